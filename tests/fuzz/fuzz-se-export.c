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

/*
 * libFuzzer harness for the structured-event event builder (name mapping with
 * collision suffixes, max-fields cap) and the journal encoder in both forms:
 * Journal Export Format (sink(journal-export)) and the native journald
 * protocol (sink(journald)).
 *
 * Input: a LogMessage's name-value pairs, as records
 *   [name length: 1 byte][name][value length: 2 bytes LE][value]
 * (names of 1..200 bytes, values of any bytes including NUL and newlines).
 * Properties:
 *  - every field name of the event matches [A-Z0-9_], does not start with
 *    '_' or a digit, is at most 64 characters; no two fields share a name
 *    (distinct pairs never collide); at most max-fields() fields;
 *  - the export bytes decode, with the small decoder below, to exactly one
 *    entry holding the extra fields then the event's fields, in order,
 *    names and values byte-exact; the native bytes decode to the same fields.
 */
#include "se-event.h"
#include "se-journal-encoder.h"
#include "apphook.h"
#include "cfg.h"
#include "value-pairs/value-pairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64

static GlobalConfig *cfg;
static SeEventOptions options;
static SeEventBuilder builder;
static SeJournalEncoder encoder;

static void
_fail(const gchar *what)
{
  fprintf(stderr, "PROPERTY VIOLATED: %s\n", what);
  abort();
}

static void
_init(void)
{
  app_startup();
  cfg = cfg_new_snippet();
  ValuePairs *vp = value_pairs_new(cfg);
  value_pairs_add_scope(vp, "nv-pairs");
  options.selection = se_selection_new(cfg, vp);
  value_pairs_unref(vp);
  options.prefix = "";
  options.type_hints = TRUE;
  options.max_fields = MAX_FIELDS;
  se_event_builder_init(&builder, &options);
  se_journal_encoder_init(&encoder);
}

typedef struct
{
  const gchar *name;
  gsize name_len;
  const gchar *value;
  gsize value_len;
} Decoded;

/* Decode journal fields (NAME=value\n or NAME\n<le64><bytes>\n) from buf;
 * with export, one entry ending with an empty line.  Returns the count. */
static guint
_decode(const gchar *buf, gsize len, gboolean export, Decoded *out, guint cap)
{
  gsize i = 0;
  guint n = 0;

  while (i < len)
    {
      if (export && buf[i] == '\n')
        {
          if (i + 1 != len)
            _fail("export: data after the end of the entry");
          return n;
        }
      const gchar *nl = memchr(buf + i, '\n', len - i);
      if (!nl)
        _fail("decode: field without newline");
      const gchar *eq = memchr(buf + i, '=', nl - (buf + i));
      if (n == cap)
        _fail("decode: more fields than encoded");
      out[n].name = buf + i;
      if (eq)
        {
          out[n].name_len = eq - (buf + i);
          out[n].value = eq + 1;
          out[n].value_len = nl - (eq + 1);
          i = nl - buf + 1;
        }
      else
        {
          guint64 vlen;
          out[n].name_len = nl - (buf + i);
          i = nl - buf + 1;
          if (i + 8 > len)
            _fail("decode: truncated binary length");
          memcpy(&vlen, buf + i, 8);
          vlen = GUINT64_FROM_LE(vlen);
          i += 8;
          if (vlen > len - i || i + vlen >= len || buf[i + vlen] != '\n')
            _fail("decode: bad binary field");
          out[n].value = buf + i;
          out[n].value_len = vlen;
          i += vlen + 1;
        }
      n++;
    }
  if (export)
    _fail("export: entry without the terminating empty line");
  return n;
}

static gboolean
_name_ok(const gchar *name, gsize len)
{
  if (len < 1 || len > SE_NAME_MAX || name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
      return FALSE;
  return TRUE;
}

static void
_check_encoding(const SeEvent *event, const SeField *extra, guint n_extra, gboolean export)
{
  guint total = n_extra + event->n_fields;
  Decoded *dec = g_new(Decoded, total + 1);

  se_journal_encode(&encoder, extra, n_extra, event, export);
  gchar *bytes = g_malloc(encoder.total_len + 1);
  se_journal_encoder_copy(&encoder, bytes);
  if (getenv("FUZZ_DUMP"))
    fwrite(bytes, 1, encoder.total_len, stderr);
  guint n = _decode(bytes, encoder.total_len, export, dec, total + 1);
  if (n != total)
    _fail("decoded field count differs from the event's");
  for (guint i = 0; i < total; i++)
    {
      const SeField *f = i < n_extra ? &extra[i] : &event->fields[i - n_extra];
      if (dec[i].name_len != f->name_len || memcmp(dec[i].name, f->name, f->name_len) != 0)
        _fail("decoded name differs");
      if (dec[i].value_len != f->value_len || memcmp(dec[i].value, f->value, f->value_len) != 0)
        _fail("decoded value differs");
    }
  g_free(bytes);
  g_free(dec);
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
  static gboolean initialized;
  if (!initialized)
    {
      _init();
      initialized = TRUE;
    }

  LogMessage *msg = log_msg_new_empty();
  log_msg_set_value(msg, LM_V_MESSAGE, "fuzz", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "app", -1);
  log_msg_set_value(msg, LM_V_HOST, "h1", -1);
  msg->pri = 13;

  gsize i = 0;
  guint pairs = 0;
  while (i < size && pairs < 300)
    {
      gsize nlen = data[i++];
      if (nlen == 0 || nlen > 200 || i + nlen + 2 > size)
        break;
      gchar name[256];
      memcpy(name, data + i, nlen);
      name[nlen] = '\0';
      i += nlen;
      gsize vlen = data[i] | (data[i + 1] << 8);
      i += 2;
      vlen = MIN(vlen, size - i);
      /* embedded NUL ends a syslog-ng name; skip names it would refuse */
      if (strlen(name) == nlen)
        log_msg_set_value_by_name(msg, name, (const gchar *) data + i, vlen);
      i += vlen;
      pairs++;
    }

  SeEvent event;
  se_event_build(&builder, msg, 0, &event);

  if (event.n_fields > MAX_FIELDS)
    _fail("more fields than max-fields()");
  GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint f = 0; f < event.n_fields; f++)
    {
      if (!_name_ok(event.fields[f].name, event.fields[f].name_len))
        _fail("invalid field name");
      gchar *key = g_strndup(event.fields[f].name, event.fields[f].name_len);
      if (!g_hash_table_add(seen, key))
        _fail("two fields share a name (a collision overwrote a pair)");
    }
  g_hash_table_destroy(seen);

  gchar realtime[32];
  SeField extra[2] =
  {
    { .name = "__REALTIME_TIMESTAMP", .name_len = 20, .value = realtime },
    { .name = "_HOSTNAME", .name_len = 9, .value = event.host, .value_len = event.host_len },
  };
  extra[0].value_len = g_snprintf(realtime, sizeof(realtime), "%d", 1700000000);
  _check_encoding(&event, extra, 2, TRUE);
  _check_encoding(&event, NULL, 0, FALSE);

  log_msg_unref(msg);
  return 0;
}
