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
#include "se-event.h"
#include "se-value.h"
#include "compat-template.h"

#include <string.h>
#include <time.h>

struct _SeNameCacheEntry
{
  gboolean selected;
  guint16 name_len;
  guint32 hash;
  gchar name[SE_NAME_MAX + 1];
};

/* MESSAGE .. MESSAGE_ID, plus SNG_FIELD_TYPES */
#define SE_FIXED_MAX 8
#define SE_SCRATCH_INITIAL 65536

/* names a pair can never take: they get a suffix instead */
static const gchar *reserved_names[] =
{
  "MESSAGE", "PRIORITY", "SYSLOG_FACILITY", "SYSLOG_IDENTIFIER", "SYSLOG_PID",
  "SYSLOG_TIMESTAMP", "MESSAGE_ID", "SNG_FIELD_TYPES",
};
#define SE_RESERVED_BASE 0x80000000u

typedef struct
{
  SeEventBuilder *self;
  LogMessage *msg;
  guint n_fields;
  guint pairs_limit;
  guint n_pairs;
  guint dropped;
} SeBuildState;

gsize
se_event_format_rfc3339(const UnixTime *stamp, gchar *buf, gsize size)
{
  time_t local = (time_t) stamp->ut_sec + stamp->ut_gmtoff;
  glong off = stamp->ut_gmtoff;
  struct tm tm;
  gchar sign = '+';

  if (off < 0)
    {
      sign = '-';
      off = -off;
    }
  gmtime_r(&local, &tm);
  return g_snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06u%c%02ld:%02ld",
                    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                    (guint) stamp->ut_usec, sign, off / 3600, (off % 3600) / 60);
}

void
se_event_builder_init(SeEventBuilder *self, const SeEventOptions *options)
{
  guint slots = 16;
  const gchar *prefix = options->prefix ? options->prefix : "";
  SeSelection *sel = options->selection;

  memset(self, 0, sizeof(*self));
  self->options = options;
  self->fields_cap = MAX(options->max_fields, SE_FIXED_MAX) + SE_FIXED_MAX;
  self->fields = g_new0(SeField, self->fields_cap);
  self->scratch = g_string_sized_new(SE_SCRATCH_INITIAL);
  self->tmp = g_string_sized_new(256);
  self->sha256 = g_checksum_new(G_CHECKSUM_SHA256);

  while (slots < 2 * (self->fields_cap + G_N_ELEMENTS(reserved_names)))
    slots *= 2;
  self->slot_gen = g_new0(guint32, slots);
  self->slot_field = g_new0(guint32, slots);
  self->slot_mask = slots - 1;

  self->builtin_names = g_new0(SeNameBuf, sel->n_builtins + 1);
  for (guint i = 0; i < sel->n_builtins; i++)
    {
      const gchar *n = se_selection_transform_name(sel, sel->builtins[i].name, self->tmp);
      se_name_map(prefix, strlen(prefix), n, strlen(n), self->builtin_names[i]);
    }
  self->pair_names = g_new0(SeNameBuf, sel->n_pairs + 1);
  for (guint i = 0; i < sel->n_pairs; i++)
    {
      const gchar *n = se_selection_transform_name(sel, sel->pairs[i].name, self->tmp);
      se_name_map(prefix, strlen(prefix), n, strlen(n), self->pair_names[i]);
    }
}

void
se_event_builder_destroy(SeEventBuilder *self)
{
  for (guint i = 0; i < self->name_cache_len; i++)
    g_free(self->name_cache[i]);
  g_free(self->name_cache);
  g_free(self->builtin_names);
  g_free(self->pair_names);
  g_free(self->slot_gen);
  g_free(self->slot_field);
  g_checksum_free(self->sha256);
  g_string_free(self->tmp, TRUE);
  g_string_free(self->scratch, TRUE);
  g_free(self->fields);
}

static SeNameCacheEntry *
_lookup_name(SeEventBuilder *self, NVHandle handle, const gchar *name)
{
  SeNameCacheEntry *entry;

  if (handle >= self->name_cache_len)
    {
      guint new_len = MAX(handle + 1, self->name_cache_len * 2);

      self->name_cache = g_renew(SeNameCacheEntry *, self->name_cache, new_len);
      memset(self->name_cache + self->name_cache_len, 0, (new_len - self->name_cache_len) * sizeof(gpointer));
      self->name_cache_len = new_len;
    }
  entry = self->name_cache[handle];
  if (G_LIKELY(entry))
    return entry;

  /* first time this worker sees this name: decide and map once */
  entry = g_new0(SeNameCacheEntry, 1);
  entry->selected = se_selection_match_nvpair(self->options->selection, handle, name);
  if (entry->selected)
    {
      const gchar *prefix = self->options->prefix ? self->options->prefix : "";
      const gchar *n = se_selection_transform_name(self->options->selection, name, self->tmp);

      entry->name_len = se_name_map(prefix, strlen(prefix), n, strlen(n), entry->name);
      entry->hash = se_name_hash(entry->name, entry->name_len);
    }
  self->name_cache[handle] = entry;
  return entry;
}

static inline const gchar *
_field_name(SeEventBuilder *self, const SeField *f)
{
  return f->name_ofs >= 0 ? self->scratch->str + f->name_ofs : f->name;
}

static gboolean
_name_taken(SeEventBuilder *self, const gchar *name, gsize len, guint32 hash, guint32 *slot)
{
  guint32 i = hash & self->slot_mask;

  while (self->slot_gen[i] == self->gen)
    {
      guint32 idx = self->slot_field[i];
      const gchar *other;
      gsize other_len;

      if (idx >= SE_RESERVED_BASE)
        {
          other = reserved_names[idx - SE_RESERVED_BASE];
          other_len = strlen(other);
        }
      else
        {
          other = _field_name(self, &self->fields[idx]);
          other_len = self->fields[idx].name_len;
        }
      if (other_len == len && memcmp(other, name, len) == 0)
        return TRUE;
      i = (i + 1) & self->slot_mask;
    }
  *slot = i;
  return FALSE;
}

static void
_claim_slot(SeEventBuilder *self, guint32 slot, guint32 idx)
{
  self->slot_gen[slot] = self->gen;
  self->slot_field[slot] = idx;
}

static void
_add_fixed(SeBuildState *st, const gchar *name, const gchar *value, gsize len, gint32 value_ofs)
{
  SeField *f = &st->self->fields[st->n_fields++];

  f->name = name;
  f->name_len = strlen(name);
  f->name_ofs = -1;
  f->value = value;
  f->value_len = len;
  f->value_ofs = value_ofs;
  f->type = LM_VT_STRING;
}

static void
_add_fixed_scratch(SeBuildState *st, const gchar *name, const gchar *bytes, gsize len)
{
  gint32 ofs = st->self->scratch->len;

  g_string_append_len(st->self->scratch, bytes, len);
  _add_fixed(st, name, NULL, len, ofs);
}

/* value is either a pointer (value_ofs < 0) or an offset into scratch */
static void
_add_pair(SeBuildState *st, const gchar *name, gsize name_len, guint32 hash,
          const gchar *value, gsize value_len, gint32 value_ofs, LogMessageValueType type)
{
  SeEventBuilder *self = st->self;
  SeField *f;
  guint32 slot;
  gboolean rendered;

  if (st->n_pairs >= st->pairs_limit)
    {
      st->dropped++;
      return;
    }
  if (self->options->selection->cast_to_strings)
    type = LM_VT_STRING;

  f = &self->fields[st->n_fields];
  f->name = name;
  f->name_len = name_len;
  f->name_ofs = -1;

  if (_name_taken(self, name, name_len, hash, &slot))
    {
      gchar unique[SE_NAME_MAX + 1];
      gsize len;

      for (guint n = 2;; n++)
        {
          memcpy(unique, name, name_len);
          len = se_name_add_suffix(unique, name_len, n);
          if (!_name_taken(self, unique, len, se_name_hash(unique, len), &slot))
            break;
        }
      f->name = NULL;
      f->name_ofs = self->scratch->len;
      f->name_len = len;
      g_string_append_len(self->scratch, unique, len);
      g_string_append_c(self->scratch, 0);
    }

  if (type != LM_VT_STRING)
    {
      const gchar *v = value_ofs >= 0 ? self->scratch->str + value_ofs : value;
      gint32 ofs = self->scratch->len;

      type = se_value_convert(type, v, value_len, &f->typed, self->scratch, &rendered);
      if (rendered)
        {
          value = NULL;
          value_ofs = ofs;
          value_len = self->scratch->len - ofs;
        }
    }
  f->value = value;
  f->value_ofs = value_ofs;
  f->value_len = value_len;
  f->type = type;

  _claim_slot(self, slot, st->n_fields);
  st->n_fields++;
  st->n_pairs++;
}

static gboolean
_nvpair_cb(NVHandle handle, const gchar *name, const gchar *value, gssize value_len,
           LogMessageValueType type, gpointer user_data)
{
  SeBuildState *st = user_data;
  SeNameCacheEntry *entry;

  if (st->self->options->selection->omit_empty_values && value_len == 0)
    return FALSE;
  if (fd_lm_vt_is_binary(type) && !st->self->options->selection->include_bytes)
    return FALSE;
  entry = _lookup_name(st->self, handle, name);
  if (!entry->selected)
    return FALSE;
  _add_pair(st, entry->name, entry->name_len, entry->hash, value, value_len, -1, type);
  return FALSE;
}

static void
_add_builtins_and_pairs(SeBuildState *st, LogTemplateEvalOptions *eval)
{
  SeEventBuilder *self = st->self;
  SeSelection *sel = self->options->selection;

  for (guint i = 0; i < sel->n_builtins; i++)
    {
      SeBuiltin *b = &sel->builtins[i];
      const gchar *name = self->builtin_names[i];
      gsize name_len = strlen(name);
      LogMessageValueType type = LM_VT_STRING;

      if (b->macro_id)
        {
          gint32 ofs = self->scratch->len;

          fd_macro_expand(b->macro_id, eval, st->msg, self->scratch, &type);
          if (self->scratch->len == (gsize) ofs)
            continue;
          _add_pair(st, name, name_len, se_name_hash(name, name_len), NULL, self->scratch->len - ofs, ofs, type);
        }
      else
        {
          gssize len;
          const gchar *v = log_msg_get_value_with_type(st->msg, b->handle, &len, &type);

          if (len == 0)
            continue;
          _add_pair(st, name, name_len, se_name_hash(name, name_len), v, len, -1, type);
        }
    }

  for (guint i = 0; i < sel->n_pairs; i++)
    {
      const gchar *name = self->pair_names[i];
      gsize name_len = strlen(name);
      LogMessageValueType type = LM_VT_STRING;
      gint32 ofs = self->scratch->len;

      log_template_append_format_value_and_type(sel->pairs[i].template, st->msg, eval, self->scratch, &type);
      if (sel->omit_empty_values && self->scratch->len == (gsize) ofs)
        continue;
      if (fd_lm_vt_is_binary(type) && !sel->include_bytes)
        {
          g_string_truncate(self->scratch, ofs);
          continue;
        }
      if (sel->cast_to_strings && sel->pairs[i].template->explicit_type_hint == LM_VT_NONE)
        type = LM_VT_STRING;
      _add_pair(st, name, name_len, se_name_hash(name, name_len), NULL, self->scratch->len - ofs, ofs, type);
    }
}

static void
_add_type_hints(SeBuildState *st, guint first_pair)
{
  SeEventBuilder *self = st->self;
  gint32 ofs = self->scratch->len;

  for (guint i = first_pair; i < st->n_fields; i++)
    {
      SeField *f = &self->fields[i];

      if (f->type == LM_VT_STRING)
        continue;
      if ((gsize) ofs != self->scratch->len)
        g_string_append_c(self->scratch, ' ');
      g_string_append_len(self->scratch, _field_name(self, f), f->name_len);
      g_string_append_c(self->scratch, ':');
      g_string_append(self->scratch, se_value_type_name(f->type));
    }
  if ((gsize) ofs != self->scratch->len)
    _add_fixed(st, "SNG_FIELD_TYPES", NULL, self->scratch->len - ofs, ofs);
}

static void
_reserve_names(SeEventBuilder *self)
{
  if (++self->gen == 0)
    {
      memset(self->slot_gen, 0, (self->slot_mask + 1) * sizeof(guint32));
      self->gen = 1;
    }
  for (guint i = 0; i < G_N_ELEMENTS(reserved_names); i++)
    {
      gsize len = strlen(reserved_names[i]);
      guint32 slot;

      if (!_name_taken(self, reserved_names[i], len, se_name_hash(reserved_names[i], len), &slot))
        _claim_slot(self, slot, SE_RESERVED_BASE + i);
    }
}

void
se_event_build(SeEventBuilder *self, LogMessage *msg, gint seq_num, SeEvent *event)
{
  const SeEventOptions *options = self->options;
  LogTemplateEvalOptions eval = { options->template_options, LTZ_SEND, seq_num, NULL, LM_VT_STRING };
  SeBuildState st = { .self = self, .msg = msg };
  gchar buf[64];
  gssize len;
  const gchar *v;
  guint reserved_for_fixed;
  guint first_pair;

  g_string_truncate(self->scratch, 0);
  _reserve_names(self);

  memset(event, 0, sizeof(*event));
  event->msg = msg;
  event->level = msg->pri & 7;
  event->facility = msg->pri >> 3;
  event->stamp = &msg->timestamps[LM_TS_STAMP];
  event->host = log_msg_get_value(msg, LM_V_HOST, &len);
  event->host_len = len;

  v = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  _add_fixed(&st, "MESSAGE", v, len, -1);
  _add_fixed_scratch(&st, "PRIORITY", buf, g_snprintf(buf, sizeof(buf), "%u", event->level));
  _add_fixed_scratch(&st, "SYSLOG_FACILITY", buf, g_snprintf(buf, sizeof(buf), "%u", event->facility));
  v = log_msg_get_value(msg, LM_V_PROGRAM, &len);
  if (len > 0)
    _add_fixed(&st, "SYSLOG_IDENTIFIER", v, len, -1);
  v = log_msg_get_value(msg, LM_V_PID, &len);
  if (len > 0)
    _add_fixed(&st, "SYSLOG_PID", v, len, -1);
  _add_fixed_scratch(&st, "SYSLOG_TIMESTAMP", buf, se_event_format_rfc3339(event->stamp, buf, sizeof(buf)));

  if (options->message_id)
    {
      gint32 ofs = self->scratch->len;

      log_template_append_format(options->message_id, msg, &eval, self->scratch);
      if (se_msgid_normalise(self->scratch->str + ofs, self->scratch->len - ofs, self->sha256, self->message_id))
        {
          g_string_truncate(self->scratch, ofs);
          _add_fixed(&st, "MESSAGE_ID", self->message_id, SE_MSGID_LEN, -1);
          event->message_id = self->message_id;
        }
      else
        g_string_truncate(self->scratch, ofs);
    }

  first_pair = st.n_fields;
  reserved_for_fixed = st.n_fields + (options->type_hints ? 1 : 0);
  st.pairs_limit = options->max_fields > reserved_for_fixed ? options->max_fields - reserved_for_fixed : 0;

  if (options->selection->iterate_nvpairs)
    log_msg_values_foreach(msg, _nvpair_cb, &st);
  _add_builtins_and_pairs(&st, &eval);

  event->n_fixed = first_pair;
  if (options->type_hints)
    _add_type_hints(&st, first_pair);

  for (guint i = 0; i < st.n_fields; i++)
    {
      SeField *f = &self->fields[i];

      if (f->name_ofs >= 0)
        f->name = self->scratch->str + f->name_ofs;
      if (f->value_ofs >= 0)
        f->value = self->scratch->str + f->value_ofs;
    }
  event->fields = self->fields;
  event->n_fields = st.n_fields;
  event->dropped_fields = st.dropped;
}
