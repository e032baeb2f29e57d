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
#include "se-select.h"
#include "compat-logmsg.h"
#include "value-pairs/internals.h"
#include "template/macros.h"
#include "logmsg/logmsg.h"

#include <string.h>

/*
 * Private layouts of lib/value-pairs/value-pairs.c, the same in syslog-ng
 * 3.38 and 4.8 (configure accepts only those series).
 */
typedef struct
{
  GPatternSpec *pattern;
  gboolean include;
} VP338PatternSpec;

typedef struct
{
  const gchar *name;
  const gchar *alt_name;
  gint type;
  gint id;
} VP338ValuePairSpec;

typedef struct
{
  gchar *name;
  LogTemplate *template;
} VP338PairConf;

enum
{
  VPS_NV_PAIRS = 0x01,
  VPS_DOT_NV_PAIRS = 0x02,
  VPS_RFC5424 = 0x08,
  VPS_SDATA = 0x40,
};

gboolean
se_selection_is_fixed_name(const gchar *name)
{
  static const gchar *fixed[] = { "MESSAGE", "PROGRAM", "PID", "FACILITY", "PRIORITY", "DATE", NULL };

  for (gint i = 0; fixed[i]; i++)
    if (strcmp(name, fixed[i]) == 0)
      return TRUE;
  return FALSE;
}

SeSelection *
se_selection_new(GlobalConfig *cfg, ValuePairs *vp)
{
  SeSelection *self = g_new0(SeSelection, 1);

  self->vp = vp ? value_pairs_ref(vp) : value_pairs_new_default(cfg);
  self->scopes = self->vp->scopes;
  self->cast_to_strings = self->vp->explicit_cast_to_strings && self->vp->cast_to_strings;
  self->omit_empty_values = self->vp->omit_empty_values;
  self->include_bytes = fd_value_pairs_include_bytes(self->vp);
  self->iterate_nvpairs = (self->scopes & (VPS_NV_PAIRS | VPS_DOT_NV_PAIRS | VPS_SDATA | VPS_RFC5424))
                          || self->vp->patterns->len > 0;

  self->builtins = g_new0(SeBuiltin, self->vp->builtins->len + 1);
  for (guint i = 0; i < self->vp->builtins->len; i++)
    {
      VP338ValuePairSpec *spec = g_ptr_array_index(self->vp->builtins, i);
      const gchar *lookup = spec->alt_name ? spec->alt_name : spec->name;
      SeBuiltin *b;

      if (se_selection_is_fixed_name(spec->name))
        continue;
      b = &self->builtins[self->n_builtins++];
      b->name = g_strdup(spec->name);
      b->macro_id = log_macro_lookup(lookup, strlen(lookup));
      if (!b->macro_id)
        b->handle = log_msg_get_value_handle(lookup);
    }

  self->pairs = g_new0(SePairTemplate, self->vp->vpairs->len + 1);
  for (guint i = 0; i < self->vp->vpairs->len; i++)
    {
      VP338PairConf *conf = g_ptr_array_index(self->vp->vpairs, i);
      SePairTemplate *p = &self->pairs[self->n_pairs++];

      p->name = g_strdup(conf->name);
      p->template = log_template_ref(conf->template);
    }
  return self;
}

void
se_selection_free(SeSelection *self)
{
  if (!self)
    return;
  for (guint i = 0; i < self->n_builtins; i++)
    g_free(self->builtins[i].name);
  for (guint i = 0; i < self->n_pairs; i++)
    {
      g_free(self->pairs[i].name);
      log_template_unref(self->pairs[i].template);
    }
  g_free(self->builtins);
  g_free(self->pairs);
  value_pairs_unref(self->vp);
  g_free(self);
}

gboolean
se_selection_match_nvpair(const SeSelection *self, NVHandle handle, const gchar *name)
{
  gboolean inc;

  if (handle == LM_V_MESSAGE || handle == LM_V_PROGRAM || handle == LM_V_PID)
    return FALSE;

  inc = (name[0] == '.' && (self->scopes & VPS_DOT_NV_PAIRS)) ||
        (name[0] != '.' && (self->scopes & VPS_NV_PAIRS)) ||
        (log_msg_is_handle_sdata(handle) && (self->scopes & (VPS_SDATA | VPS_RFC5424)));

  for (guint i = 0; i < self->vp->patterns->len; i++)
    {
      VP338PatternSpec *p = g_ptr_array_index(self->vp->patterns, i);
      if (g_pattern_match_string(p->pattern, name))
        inc = p->include;
    }
  if (!inc)
    return FALSE;

  /* builtins and pair()s of the same name win, as in value_pairs_foreach() */
  for (guint i = 0; i < self->n_builtins; i++)
    if (strcmp(self->builtins[i].name, name) == 0)
      return FALSE;
  for (guint i = 0; i < self->n_pairs; i++)
    if (strcmp(self->pairs[i].name, name) == 0)
      return FALSE;
  return TRUE;
}

const gchar *
se_selection_transform_name(const SeSelection *self, const gchar *name, GString *tmp)
{
  g_string_assign(tmp, name);
  for (guint i = 0; i < self->vp->transforms->len; i++)
    value_pairs_transform_set_apply(g_ptr_array_index(self->vp->transforms, i), tmp);
  return tmp->str;
}
