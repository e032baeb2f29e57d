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
#ifndef SE_EVENT_H_INCLUDED
#define SE_EVENT_H_INCLUDED

#include "syslog-ng.h"
#include "logmsg/logmsg.h"
#include "template/templates.h"
#include "se-select.h"
#include "se-name.h"
#include "se-msgid.h"
#include "se-value.h"

/*
 * The event model shared by every sink: one LogMessage becomes an event
 * with an id, a level, fixed fields and the selected name-value pairs as
 * (journal field name, value bytes, type).  Building an event allocates
 * nothing in steady state: values point into the message (or into the
 * builder's scratch area when they had to be rendered), names into a
 * per-handle cache filled the first time a name is seen.
 *
 * Fields, in order:
 *   MESSAGE, PRIORITY, SYSLOG_FACILITY, SYSLOG_IDENTIFIER (when PROGRAM is
 *   set), SYSLOG_PID (when PID is set), SYSLOG_TIMESTAMP (RFC 3339),
 *   MESSAGE_ID (when message-id() renders non-empty): the fixed fields,
 *   then one field per selected pair (prefix() prepended), then
 *   SNG_FIELD_TYPES ("NAME:type ..." for every non-string pair) with
 *   type-hints(yes).  A pair whose mapped name is already taken gets a
 *   "_2", "_3"... suffix.  Typed values carry their binary value and their
 *   canonical text (se-value.h), null values an empty text.  Pairs beyond
 *   max-fields() (which counts every field of the entry) are dropped and
 *   counted in dropped_fields; the fixed fields are always kept.
 */
typedef struct _SeField
{
  const gchar *name;
  const gchar *value;        /* the text (typed values: canonical, see se-value.h) */
  gsize value_len;
  guint16 name_len;
  guint8 type;               /* LogMessageValueType of the value sent */
  SeValue typed;             /* integer, double, boolean, datetime: the binary value */
  /* builder internals: offsets into the scratch area until resolved, or -1 */
  gint32 name_ofs;
  gint32 value_ofs;
} SeField;

typedef struct _SeEvent
{
  LogMessage *msg;
  guint8 level;              /* syslog severity 0-7 */
  guint8 facility;           /* syslog facility number */
  const gchar *message_id;   /* 32 lower case hex digits, or NULL */
  const UnixTime *stamp;     /* the message's original timestamp */
  const gchar *host;
  gsize host_len;
  const SeField *fields;
  guint n_fields;
  guint n_fixed;             /* fields[0 .. n_fixed-1] are the fixed fields */
  guint dropped_fields;
} SeEvent;

typedef struct _SeEventOptions
{
  SeSelection *selection;
  const gchar *prefix;
  gboolean type_hints;
  guint max_fields;
  LogTemplate *message_id;
  const LogTemplateOptions *template_options;
} SeEventOptions;

typedef struct _SeNameCacheEntry SeNameCacheEntry;
typedef gchar SeNameBuf[SE_NAME_MAX + 1];

typedef struct _SeEventBuilder
{
  const SeEventOptions *options;
  SeField *fields;
  guint fields_cap;
  GString *scratch;
  GString *tmp;
  GChecksum *sha256;
  gchar message_id[SE_MSGID_LEN + 1];
  /* per NVHandle: selected or not, and the mapped name */
  SeNameCacheEntry **name_cache;
  guint name_cache_len;
  /* builtin macros and pair() names, mapped once */
  SeNameBuf *builtin_names;
  SeNameBuf *pair_names;
  /* collision detection: open addressing over field indexes, cleared by generation */
  guint32 *slot_gen;
  guint32 *slot_field;
  guint32 slot_mask;
  guint32 gen;
} SeEventBuilder;

void se_event_builder_init(SeEventBuilder *self, const SeEventOptions *options);
void se_event_builder_destroy(SeEventBuilder *self);
/* seq_num: as in LogThreadedDestWorker, for templates */
void se_event_build(SeEventBuilder *self, LogMessage *msg, gint seq_num, SeEvent *event);

/* RFC 3339 with microseconds and the original UTC offset; returns the length */
gsize se_event_format_rfc3339(const UnixTime *stamp, gchar *buf, gsize size);

#endif
