/*
 * Copyright (c) 2026 fastdest authors
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the Free
 * Software Foundation; either version 2 of the License, or (at your option)
 * any later version.
 *
 * This program is distributed in the hope that it will be useful, but WITHOUT
 * ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
 * FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License for
 * more details.
 *
 * You should have received a copy of the GNU General Public License along
 * with this program; if not, see <https://www.gnu.org/licenses/>.
 */
#ifndef SE_SELECT_H_INCLUDED
#define SE_SELECT_H_INCLUDED

#include "syslog-ng.h"
#include "value-pairs/value-pairs.h"

/*
 * The value-pairs() selection, compiled once so that it can be evaluated
 * per message without allocating: syslog-ng 3.38's value_pairs_foreach()
 * builds a GTree and scratch strings for every call.  This unit reads the
 * parsed ValuePairs (scopes, key()/exclude() globs, pair()s, rekey()s) and
 * answers, per name-value pair, whether it is selected, with syslog-ng's
 * rules: scopes first, then key()/exclude() patterns in order, the last
 * match wins; builtin macros and pair()s override a name-value pair of the
 * same name.  The event builder caches the answer per NVHandle, so the
 * glob patterns run once per distinct name, not once per message.
 *
 * Values that structured-event() always sends as fixed fields (MESSAGE,
 * PROGRAM, PID and the FACILITY, PRIORITY, DATE macros) are left out.
 * Types are kept unless cast(yes) is given explicitly: the implicit
 * pre-4.0 cast of @version: 3.x configs is not applied, as this driver has
 * no older behaviour to stay compatible with.  Binary values (4.x bytes and
 * protobuf) are left out unless include-bytes(yes), as value-pairs() does.
 */
typedef struct _SeBuiltin
{
  gchar *name;
  guint macro_id;          /* 0: a name-value pair, see handle */
  NVHandle handle;
} SeBuiltin;

typedef struct _SePairTemplate
{
  gchar *name;
  LogTemplate *template;
} SePairTemplate;

typedef struct _SeSelection
{
  ValuePairs *vp;
  guint32 scopes;
  gboolean iterate_nvpairs;
  gboolean cast_to_strings;
  gboolean omit_empty_values;
  gboolean include_bytes;  /* 4.x: bytes and protobuf values, left out unless include-bytes(yes) */
  SeBuiltin *builtins;
  guint n_builtins;
  SePairTemplate *pairs;
  guint n_pairs;
} SeSelection;

/* vp NULL: syslog-ng's default selection (selected-macros nv-pairs sdata) */
SeSelection *se_selection_new(GlobalConfig *cfg, ValuePairs *vp);
void se_selection_free(SeSelection *self);

/* whether the name-value pair is selected (call once per handle and cache) */
gboolean se_selection_match_nvpair(const SeSelection *self, NVHandle handle, const gchar *name);

/* rekey(): applies the transforms to name, in tmp; returns tmp->str */
const gchar *se_selection_transform_name(const SeSelection *self, const gchar *name, GString *tmp);

/* names that structured-event() sends as fixed fields */
gboolean se_selection_is_fixed_name(const gchar *name);

#endif
