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
#include "se-ctf-packet.h"

#include <string.h>

typedef struct
{
  SeCtfPacket *self;
  gsize pos;
  gboolean overflow;
} SeCtfWriter;

gboolean
se_ctf_packet_size_is_valid(gint64 size)
{
  return size >= SE_CTF_PACKET_SIZE_MIN && size <= SE_CTF_PACKET_SIZE_MAX && size % SE_CTF_PACKET_ALIGN == 0;
}

void
se_ctf_packet_init(SeCtfPacket *self, gsize capacity)
{
  memset(self, 0, sizeof(*self));
  self->capacity = capacity;
  self->data = g_malloc0(capacity);
  se_ctf_packet_reset(self);
}

void
se_ctf_packet_destroy(SeCtfPacket *self)
{
  g_free(self->data);
  self->data = NULL;
}

void
se_ctf_packet_reset(SeCtfPacket *self)
{
  self->len = SE_CTF_PACKET_HEADER_SIZE;
  self->n_events = 0;
  self->ts_begin = 0;
  self->ts_end = 0;
}

static inline void
_put(SeCtfWriter *w, const void *bytes, gsize len)
{
  if (G_UNLIKELY(w->overflow || len > w->self->capacity - w->pos))
    {
      w->overflow = TRUE;
      return;
    }
  memcpy(w->self->data + w->pos, bytes, len);
  w->pos += len;
}

static inline void
_put_u8(SeCtfWriter *w, guint8 v)
{
  _put(w, &v, 1);
}

static inline void
_put_u32(SeCtfWriter *w, guint32 v)
{
  v = GUINT32_TO_LE(v);
  _put(w, &v, sizeof(v));
}

static inline void
_put_u64(SeCtfWriter *w, guint64 v)
{
  v = GUINT64_TO_LE(v);
  _put(w, &v, sizeof(v));
}

/* a CTF string ends at the first NUL: write up to it */
static inline void
_put_string(SeCtfWriter *w, const gchar *s, gsize len)
{
  const gchar *nul = len ? memchr(s, 0, len) : NULL;

  if (nul)
    len = nul - s;
  _put(w, s, len);
  _put_u8(w, 0);
}

static inline void
_put_bytes(SeCtfWriter *w, const gchar *s, gsize len)
{
  _put_u32(w, (guint32) len);
  _put(w, s, len);
}

/* sec * 10^9 + frac_ns (0 <= frac_ns < 10^9) without overflowing; FALSE when it does not fit in int64
 * (a timestamp beyond the years 1677-2262, e.g. year 9999) */
static gboolean
_ns_from_sec(gint64 sec, gint64 frac_ns, gint64 *ns)
{
  const gint64 second = G_GINT64_CONSTANT(1000000000);

  /* for negative seconds go via sec + 1: sec * 10^9 alone may underflow while the sum fits */
  if (sec < 0)
    return !__builtin_mul_overflow(sec + 1, second, ns) && !__builtin_sub_overflow(*ns, second - frac_ns, ns);
  return !__builtin_mul_overflow(sec, second, ns) && !__builtin_add_overflow(*ns, frac_ns, ns);
}

static void
_put_pair(SeCtfWriter *w, const SeField *f)
{
  _put_string(w, f->name, f->name_len);

  /* typed values as the event carries them (se-value.h): no text to parse */
  if (se_value_type_is_integer(f->type))
    {
      _put_u8(w, SE_CTF_VALUE_INT64);
      _put_u64(w, (guint64) f->typed.integer);
      return;
    }
  switch (f->type)
    {
    case LM_VT_DOUBLE:
    {
      guint64 bits;

      memcpy(&bits, &f->typed.real, sizeof(bits));
      _put_u8(w, SE_CTF_VALUE_DOUBLE);
      _put_u64(w, bits);
      return;
    }
    case LM_VT_BOOLEAN:
      _put_u8(w, SE_CTF_VALUE_BOOL);
      _put_u8(w, f->typed.boolean ? 1 : 0);
      return;
    case LM_VT_DATETIME:
    {
      gint64 ns;

      /* beyond the int64 ns range: the canonical text instead */
      if (!_ns_from_sec(f->typed.datetime.sec, (gint64) f->typed.datetime.usec * 1000, &ns))
        break;
      _put_u8(w, SE_CTF_VALUE_TIMESTAMP);
      _put_u64(w, (guint64) ns);
      return;
    }
    case LM_VT_NULL:
      _put_u8(w, SE_CTF_VALUE_NULL);
      return;
    default:
      break;
    }

  /* text, JSON, lists; bytes when the value holds a NUL (or is binary, 4.x) */
  if (fd_lm_vt_is_binary(f->type) || (f->value_len && memchr(f->value, 0, f->value_len)))
    {
      _put_u8(w, SE_CTF_VALUE_BYTES);
      _put_bytes(w, f->value, f->value_len);
    }
  else
    {
      _put_u8(w, SE_CTF_VALUE_STRING);
      _put_string(w, f->value, f->value_len);
    }
}

static gboolean
_name_is(const SeField *f, const gchar *name, gsize len)
{
  return f->name_len == len && memcmp(f->name, name, len) == 0;
}

#define NAME_IS(f, literal) _name_is((f), literal, sizeof(literal) - 1)

gboolean
se_ctf_packet_append(SeCtfPacket *self, guint64 timestamp, const SeEvent *event)
{
  SeCtfWriter w = { .self = self, .pos = self->len };
  const SeField *message = NULL;
  const SeField *program = NULL;
  guint n_pairs = 0;
  gboolean message_has_nul;
  const UnixTime *stamp = event->stamp;
  gint64 time_ns;

  for (guint i = 0; i < event->n_fixed; i++)
    {
      const SeField *f = &event->fields[i];

      if (NAME_IS(f, "MESSAGE"))
        message = f;
      else if (NAME_IS(f, "SYSLOG_IDENTIFIER"))
        program = f;
    }
  for (guint i = event->n_fixed; i < event->n_fields; i++)
    if (!NAME_IS(&event->fields[i], "SNG_FIELD_TYPES"))
      n_pairs++;
  message_has_nul = message && message->value_len && memchr(message->value, 0, message->value_len);

  if (!_ns_from_sec(stamp->ut_sec, (gint64) stamp->ut_usec * 1000, &time_ns))
    time_ns = stamp->ut_sec < 0 ? G_MININT64 : G_MAXINT64;
  _put_u64(&w, timestamp);
  _put_u64(&w, (guint64) time_ns);
  _put_u8(&w, event->level);
  _put_u8(&w, event->facility);
  _put_string(&w, event->message_id ? event->message_id : "", event->message_id ? strlen(event->message_id) : 0);
  _put_string(&w, event->host ? event->host : "", event->host_len);
  _put_string(&w, program ? program->value : "", program ? program->value_len : 0);
  _put_string(&w, message ? message->value : "", message ? message->value_len : 0);

  _put_u32(&w, n_pairs + (message_has_nul ? 1 : 0));
  for (guint i = event->n_fixed; i < event->n_fields; i++)
    if (!NAME_IS(&event->fields[i], "SNG_FIELD_TYPES"))
      _put_pair(&w, &event->fields[i]);
  if (message_has_nul)
    _put_pair(&w, message);

  if (w.overflow)
    return FALSE;
  if (self->n_events == 0)
    self->ts_begin = timestamp;
  self->ts_end = timestamp;
  self->len = w.pos;
  self->n_events++;
  return TRUE;
}

gsize
se_ctf_packet_finish(SeCtfPacket *self, guint64 seq_num, guint64 events_discarded)
{
  gsize padded = se_ctf_packet_padded_len(self);
  SeCtfWriter w = { .self = self, .pos = 0 };

  g_assert(padded <= self->capacity);
  memset(self->data + self->len, 0, padded - self->len);
  _put_u32(&w, SE_CTF_MAGIC);
  _put_u32(&w, 0);
  _put_u64(&w, self->ts_begin);
  _put_u64(&w, self->ts_end);
  _put_u64(&w, (guint64) self->len * 8);
  _put_u64(&w, (guint64) padded * 8);
  _put_u64(&w, seq_num);
  _put_u64(&w, events_discarded);
  return padded;
}

static guint64
_get_u64(const guint8 *p)
{
  guint64 v;

  memcpy(&v, p, sizeof(v));
  return GUINT64_FROM_LE(v);
}

gboolean
se_ctf_packet_parse_header(const guint8 *header, gsize len, guint64 *packet_bytes, guint64 *content_bits)
{
  guint32 magic;
  guint64 content, size;

  if (len < SE_CTF_PACKET_HEADER_SIZE)
    return FALSE;
  memcpy(&magic, header, sizeof(magic));
  if (GUINT32_FROM_LE(magic) != SE_CTF_MAGIC)
    return FALSE;
  content = _get_u64(header + 24);
  size = _get_u64(header + 32);
  if (size % (8 * SE_CTF_PACKET_ALIGN) != 0 || size < SE_CTF_PACKET_HEADER_SIZE * 8 || content > size
      || content < SE_CTF_PACKET_HEADER_SIZE * 8 || size > (guint64) SE_CTF_PACKET_SIZE_MAX * 8)
    return FALSE;
  *packet_bytes = size / 8;
  *content_bits = content;
  return TRUE;
}
