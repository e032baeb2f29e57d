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
 * libFuzzer harness for the CTF packet writer (se-ctf-packet.c, sink(ctf)).
 *
 * Input: a packet capacity, then events, each: level, facility, flags,
 * the message's timestamp (any int64 seconds), host, program, message
 * (bytes, NUL included) and up to 63 name-value pairs, each with a mode:
 *   string/json/list of any bytes; integer (int32 or int64), double (NaN
 *   and infinities too), boolean, datetime (any seconds of the years
 *   0000-9999, any microseconds) as the event carries them: the binary
 *   value and se-value's canonical text; null; the name SNG_FIELD_TYPES.
 * Events are appended to a packet until one does not fit; the packet is
 * finished and decoded by the small decoder below, the next one starts.
 *
 * Properties:
 *  - append fails exactly when the event does not fit: the same event
 *    appended to a large scratch packet takes s bytes and len + s >
 *    capacity; a failed append leaves len, the event count and the begin
 *    and end timestamps unchanged;
 *  - the finished packet: magic, zero padding after it, timestamp_begin/end
 *    = the first/last event's, content_size = 8 * bytes used, packet_size
 *    = content padded to 8 bytes and within the capacity, zero padding
 *    bytes, seq_num and events_discarded as given; se_ctf_packet_parse_header
 *    reads it back, and refuses it cut short;
 *  - every event decodes to exactly what was written: write timestamp,
 *    time_ns (the message's time in ns, saturated to int64), priority,
 *    facility, message id, host, program and message (CTF strings: cut at
 *    the first NUL), the pairs in order, SNG_FIELD_TYPES left out, and the
 *    whole message as a trailing "MESSAGE" bytes pair when it holds a NUL;
 *    typed values come back as their type with the binary value the
 *    field carries (int64 exact, double bit-exact or NaN, bool, timestamp
 *    in ns, null with no payload; a datetime whose ns do not fit in int64
 *    is its canonical text); anything else is a string (no NUL) or bytes
 *    (with NUL) holding the value's bytes exactly; the events fill the
 *    content exactly.
 */
#include "se-ctf-packet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64
#define MAX_PAIRS 63
#define SCRATCH_CAPACITY (4 * 1024 * 1024)

typedef enum
{
  MODE_TEXT,
  MODE_INT,
  MODE_DOUBLE,
  MODE_BOOL,
  MODE_DATETIME,
  MODE_NULL,
  MODE_FIELD_TYPES,
  MODE_COUNT
} PairMode;

typedef struct
{
  PairMode mode;
  /* expected for canonical modes */
  guint8 ctf_type;
  gint64 i;
  gdouble d;
} Expect;

typedef struct
{
  SeEvent event;
  SeField *fields;
  Expect *expect;            /* per field, fixed ones included */
  UnixTime stamp;
  guint64 ts;
  gchar *message_id;
} FuzzEvent;

typedef struct
{
  const guint8 *p;
  gsize left;
} Input;

static gchar *arena;
static gsize arena_used;

static void
_fail(const gchar *what)
{
  fprintf(stderr, "PROPERTY VIOLATED: %s\n", what);
  abort();
}

static guint8
_u8(Input *in)
{
  if (!in->left)
    return 0;
  in->left--;
  return *in->p++;
}

static guint64
_u64(Input *in)
{
  guint64 v = 0;

  for (gint i = 0; i < 8; i++)
    v |= (guint64) _u8(in) << (8 * i);
  return v;
}

/* len bytes of the input, copied to the arena (so values outlive the input walk) */
static gchar *
_bytes(Input *in, gsize len, gsize *out_len)
{
  len = MIN(len, in->left);
  gchar *p = arena + arena_used;
  memcpy(p, in->p, len);
  arena_used += len + 1;
  p[len] = 0;
  in->p += len;
  in->left -= len;
  *out_len = len;
  return p;
}

static gchar *
_text(const gchar *s, gsize len)
{
  gchar *p = arena + arena_used;
  memcpy(p, s, len);
  p[len] = 0;
  arena_used += len + 1;
  return p;
}

/* civil date from days since 1970-01-01 (proleptic Gregorian) */
static void
_civil(gint64 days, gint *y, gint *m, gint *d)
{
  gint64 z = days + 719468;
  gint64 era = (z >= 0 ? z : z - 146096) / 146097;
  gint64 doe = z - era * 146097;
  gint64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  gint64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  gint64 mp = (5 * doy + 2) / 153;

  *d = (gint) (doy - (153 * mp + 2) / 5 + 1);
  *m = (gint) (mp < 10 ? mp + 3 : mp - 9);
  *y = (gint) (yoe + era * 400 + (*m <= 2));
}

/* years 0000-9999 as seconds since the epoch */
#define DT_MIN_SEC G_GINT64_CONSTANT(-62167219200)
#define DT_MAX_SEC G_GINT64_CONSTANT(253402300799)

static gsize
_format_datetime(gint64 sec, guint32 frac_ns, gint digits, gchar *buf, gsize size)
{
  gint64 days = sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
  gint64 rem = sec - days * 86400;
  gint y, m, d;

  _civil(days, &y, &m, &d);
  gsize n = g_snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, (gint) (rem / 3600),
                       (gint) (rem / 60 % 60), (gint) (rem % 60));
  if (digits)
    {
      gchar frac[16];
      g_snprintf(frac, sizeof(frac), "%09u", frac_ns);
      n += g_snprintf(buf + n, size - n, ".%.*s", digits, frac);
    }
  n += g_snprintf(buf + n, size - n, "Z");
  return n;
}

static void
_read_pair(Input *in, SeField *f, Expect *e)
{
  guint8 mode = _u8(in);
  gsize len;
  gchar buf[96];

  memset(e, 0, sizeof(*e));
  e->mode = mode % MODE_COUNT;
  f->name = _bytes(in, _u8(in) % 80, &len);
  f->name_len = len;
  f->type = LM_VT_STRING;
  switch (e->mode)
    {
    case MODE_TEXT:
    {
      static const guint8 types[] = { LM_VT_STRING, LM_VT_JSON, LM_VT_LIST };
      f->type = types[(mode / MODE_COUNT) % 3];
      gsize vlen = _u8(in) | (_u8(in) << 8);
      f->value = _bytes(in, vlen, &f->value_len);
      break;
    }
    case MODE_INT:
    {
      gint64 v = (gint64) _u64(in);
      if (mode & 0x80)
        {
          v = (gint32) v;
          f->type = FD_LM_VT_INT32;
        }
      else
        f->type = FD_LM_VT_INTEGER;
      len = g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, v);
      f->value = _text(buf, len);
      f->value_len = len;
      f->typed.integer = v;
      e->ctf_type = SE_CTF_VALUE_INT64;
      e->i = v;
      break;
    }
    case MODE_DOUBLE:
    {
      guint64 bits = _u64(in);
      gdouble d;
      memcpy(&d, &bits, sizeof(d));
      g_ascii_formatd(buf, sizeof(buf), "%.17g", d);
      f->type = LM_VT_DOUBLE;
      f->value = _text(buf, strlen(buf));
      f->value_len = strlen(buf);
      f->typed.real = d;
      e->ctf_type = SE_CTF_VALUE_DOUBLE;
      e->d = d;
      break;
    }
    case MODE_BOOL:
      e->i = _u8(in) & 1;
      f->type = LM_VT_BOOLEAN;
      f->value = e->i ? "true" : "false";
      f->value_len = e->i ? 4 : 5;
      f->typed.boolean = (gboolean) e->i;
      e->ctf_type = SE_CTF_VALUE_BOOL;
      break;
    case MODE_DATETIME:
    {
      guint64 r = _u64(in);
      gint64 sec = DT_MIN_SEC + (gint64) (r % (guint64) (DT_MAX_SEC - DT_MIN_SEC + 1));
      gint32 usec = (gint32) (_u64(in) % 1000000);
      len = _format_datetime(sec, (guint32) usec * 1000, 6, buf, sizeof(buf));
      f->type = LM_VT_DATETIME;
      f->value = _text(buf, len);
      f->value_len = len;
      f->typed.datetime.sec = sec;
      f->typed.datetime.usec = usec;
      e->ctf_type = SE_CTF_VALUE_TIMESTAMP;
      /* ns since the epoch, or the text when that does not fit in int64 (before 1677, after 2262) */
      __int128 ns = (__int128) sec * 1000000000 + (__int128) usec * 1000;
      if (ns > G_MAXINT64 || ns < G_MININT64)
        e->ctf_type = SE_CTF_VALUE_STRING;
      else
        e->i = (gint64) ns;
      break;
    }
    case MODE_NULL:
      f->type = LM_VT_NULL;
      f->value = "";
      e->ctf_type = SE_CTF_VALUE_NULL;
      break;
    case MODE_FIELD_TYPES:
      f->name = "SNG_FIELD_TYPES";
      f->name_len = 15;
      f->value = _bytes(in, _u8(in), &f->value_len);
      break;
    default:
      g_assert_not_reached();
    }
}

static gboolean
_read_event(Input *in, FuzzEvent *fe, guint64 *clock)
{
  gsize len;

  if (in->left < 8)
    return FALSE;
  memset(fe, 0, sizeof(*fe));
  SeEvent *ev = &fe->event;
  ev->level = _u8(in);
  ev->facility = _u8(in);
  guint8 flags = _u8(in);
  fe->stamp.ut_sec = (gint64) _u64(in);
  if (!(flags & 0x10))
    fe->stamp.ut_sec %= G_GINT64_CONSTANT(400000000000);     /* mostly years up to ~14600 */
  fe->stamp.ut_usec = (_u8(in) | (_u8(in) << 8) | (_u8(in) << 16)) % 1000000;
  ev->stamp = &fe->stamp;
  *clock += _u8(in);
  fe->ts = *clock;
  if (flags & 1)
    {
      gchar id[SE_MSGID_LEN + 1];
      for (gint i = 0; i < SE_MSGID_LEN; i++)
        id[i] = "0123456789abcdef"[_u8(in) & 15];
      fe->message_id = _text(id, SE_MSGID_LEN);
      ev->message_id = fe->message_id;
    }
  ev->host = _bytes(in, _u8(in) % 64, &ev->host_len);

  guint n_pairs = _u8(in) % (MAX_PAIRS + 1);
  fe->fields = g_new0(SeField, 3 + n_pairs);
  fe->expect = g_new0(Expect, 3 + n_pairs);
  guint n = 0;
  if (flags & 2)
    {
      SeField *f = &fe->fields[n++];
      f->name = "MESSAGE";
      f->name_len = 7;
      f->value = _bytes(in, _u8(in) | (_u8(in) << 8), &f->value_len);
    }
  {
    SeField *f = &fe->fields[n++];
    f->name = "PRIORITY";
    f->name_len = 8;
    f->value = "5";
    f->value_len = 1;
  }
  if (flags & 4)
    {
      SeField *f = &fe->fields[n++];
      f->name = "SYSLOG_IDENTIFIER";
      f->name_len = 17;
      f->value = _bytes(in, _u8(in) % 64, &len);
      f->value_len = len;
    }
  ev->n_fixed = n;
  for (guint i = 0; i < n_pairs; i++, n++)
    _read_pair(in, &fe->fields[n], &fe->expect[n]);
  ev->fields = fe->fields;
  ev->n_fields = n;
  return TRUE;
}

/* ------------------------------------------------------------ decoder */

typedef struct
{
  const guint8 *p;
  gsize pos;
  gsize end;
} Reader;

static guint64
_get(Reader *r, gsize n)
{
  guint64 v = 0;

  if (n > r->end - r->pos)
    _fail("decode: field runs past content_size");
  for (gsize i = 0; i < n; i++)
    v |= (guint64) r->p[r->pos + i] << (8 * i);
  r->pos += n;
  return v;
}

static const gchar *
_get_string(Reader *r, gsize *len)
{
  const guint8 *start = r->p + r->pos;
  const guint8 *nul = memchr(start, 0, r->end - r->pos);

  if (!nul)
    _fail("decode: string without NUL within content_size");
  *len = nul - start;
  r->pos += *len + 1;
  return (const gchar *) start;
}

/* a CTF string holds the bytes up to the first NUL */
static void
_expect_cstring(const gchar *got, gsize got_len, const gchar *want, gsize want_len, const gchar *what)
{
  const gchar *nul = want_len ? memchr(want, 0, want_len) : NULL;

  if (nul)
    want_len = nul - want;
  if (got_len != want_len || memcmp(got, want, want_len) != 0)
    _fail(what);
}

static gint64
_saturated_ns(const UnixTime *t)
{
  __int128 ns = (__int128) t->ut_sec * 1000000000 + (__int128) t->ut_usec * 1000;

  if (ns > G_MAXINT64)
    return G_MAXINT64;
  if (ns < G_MININT64)
    return G_MININT64;
  return (gint64) ns;
}

static const SeField *
_fixed(const FuzzEvent *fe, const gchar *name)
{
  for (guint i = 0; i < fe->event.n_fixed; i++)
    if (strcmp(fe->fields[i].name, name) == 0)
      return &fe->fields[i];
  return NULL;
}

static void
_check_text_value(Reader *r, guint8 type, const SeField *f)
{
  gboolean has_nul = f->value_len && memchr(f->value, 0, f->value_len);

  if (type == SE_CTF_VALUE_STRING)
    {
      gsize len;
      const gchar *s = _get_string(r, &len);
      if (has_nul)
        _fail("a value with NUL written as a string (cut)");
      if (len != f->value_len || memcmp(s, f->value, len) != 0)
        _fail("string value differs");
    }
  else if (type == SE_CTF_VALUE_BYTES)
    {
      guint64 len = _get(r, 4);
      if (!has_nul)
        _fail("bytes for a value without NUL");
      if (len != f->value_len || len > r->end - r->pos || memcmp(r->p + r->pos, f->value, len) != 0)
        _fail("bytes value differs");
      r->pos += len;
    }
  else
    _fail("text value written typed");
}

static void
_check_pair(Reader *r, const SeField *f, const Expect *e)
{
  gsize name_len;
  const gchar *name = _get_string(r, &name_len);

  _expect_cstring(name, name_len, f->name, f->name_len, "pair name differs");
  guint8 type = (guint8) _get(r, 1);
  if (e->mode == MODE_TEXT || (e->mode == MODE_DATETIME && e->ctf_type == SE_CTF_VALUE_STRING))
    {
      _check_text_value(r, type, f);
      return;
    }
  if (type != e->ctf_type)
    _fail("typed value written with another type");
  switch (type)
    {
    case SE_CTF_VALUE_INT64:
    case SE_CTF_VALUE_TIMESTAMP:
      if ((gint64) _get(r, 8) != e->i)
        _fail("int64/timestamp value differs");
      break;
    case SE_CTF_VALUE_DOUBLE:
    {
      guint64 bits = _get(r, 8);
      gdouble got;
      memcpy(&got, &bits, sizeof(got));
      if (isnan(e->d) ? !isnan(got) : memcmp(&got, &e->d, sizeof(got)) != 0)
        _fail("double value differs");
      break;
    }
    case SE_CTF_VALUE_BOOL:
      if (_get(r, 1) != (guint64) e->i)
        _fail("bool value differs");
      break;
    case SE_CTF_VALUE_NULL:
      break;
    default:
      _fail("unexpected type");
    }
}

/* left out of the packet: any pair named SNG_FIELD_TYPES, whatever made it */
static gboolean
_left_out(const SeField *f)
{
  return f->name_len == 15 && memcmp(f->name, "SNG_FIELD_TYPES", 15) == 0;
}

static void
_check_event(Reader *r, const FuzzEvent *fe)
{
  const SeEvent *ev = &fe->event;
  gsize len;
  const gchar *s;

  if (_get(r, 8) != fe->ts)
    _fail("event timestamp differs");
  if ((gint64) _get(r, 8) != _saturated_ns(&fe->stamp))
    _fail("time_ns differs from the message's time (saturated)");
  if (_get(r, 1) != ev->level || _get(r, 1) != ev->facility)
    _fail("priority or facility differs");
  s = _get_string(r, &len);
  _expect_cstring(s, len, fe->message_id ? fe->message_id : "", fe->message_id ? SE_MSGID_LEN : 0, "message_id");
  s = _get_string(r, &len);
  _expect_cstring(s, len, ev->host, ev->host_len, "host differs");
  const SeField *program = _fixed(fe, "SYSLOG_IDENTIFIER");
  s = _get_string(r, &len);
  _expect_cstring(s, len, program ? program->value : "", program ? program->value_len : 0, "program differs");
  const SeField *message = _fixed(fe, "MESSAGE");
  s = _get_string(r, &len);
  _expect_cstring(s, len, message ? message->value : "", message ? message->value_len : 0, "message differs");
  gboolean message_nul = message && message->value_len && memchr(message->value, 0, message->value_len);

  guint want_pairs = message_nul ? 1 : 0;
  for (guint i = ev->n_fixed; i < ev->n_fields; i++)
    want_pairs += !_left_out(&fe->fields[i]);
  if (_get(r, 4) != want_pairs)
    _fail("pairs_length differs");
  for (guint i = ev->n_fixed; i < ev->n_fields; i++)
    if (!_left_out(&fe->fields[i]))
      _check_pair(r, &fe->fields[i], &fe->expect[i]);
  if (message_nul)
    {
      Expect e = { .mode = MODE_TEXT };
      _check_pair(r, message, &e);
    }
}

static void
_check_packet(SeCtfPacket *packet, FuzzEvent *events, guint n, guint64 seq, guint64 discarded)
{
  gsize len = packet->len;
  gsize bytes = se_ctf_packet_finish(packet, seq, discarded);
  const guint8 *d = packet->data;
  Reader hr = { .p = d, .pos = 0, .end = bytes };

  if (n == 0 || packet->n_events != n)
    _fail("packet event count");
  if (bytes % 8 || bytes < len || bytes - len >= 8 || bytes > packet->capacity)
    _fail("packet_size is not content padded to 8 bytes within the capacity");
  if (_get(&hr, 4) != SE_CTF_MAGIC || _get(&hr, 4) != 0)
    _fail("magic or its padding");
  if (_get(&hr, 8) != events[0].ts || _get(&hr, 8) != events[n - 1].ts)
    _fail("timestamp_begin/end are not the first/last event's");
  if (_get(&hr, 8) != (guint64) len * 8 || _get(&hr, 8) != (guint64) bytes * 8)
    _fail("content_size/packet_size");
  if (_get(&hr, 8) != seq || _get(&hr, 8) != discarded)
    _fail("packet_seq_num/events_discarded");
  for (gsize i = len; i < bytes; i++)
    if (d[i])
      _fail("padding not zero");

  guint64 pbytes, cbits;
  if (!se_ctf_packet_parse_header(d, bytes, &pbytes, &cbits) || pbytes != bytes || cbits != (guint64) len * 8)
    _fail("se_ctf_packet_parse_header does not read the packet back");
  if (se_ctf_packet_parse_header(d, SE_CTF_PACKET_HEADER_SIZE - 1, &pbytes, &cbits))
    _fail("se_ctf_packet_parse_header accepts a cut header");

  Reader r = { .p = d, .pos = SE_CTF_PACKET_HEADER_SIZE, .end = len };
  for (guint i = 0; i < n; i++)
    _check_event(&r, &events[i]);
  if (r.pos != len)
    _fail("events do not fill content_size exactly");
}

/* ------------------------------------------------------------ driver */

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
  static SeCtfPacket scratch;
  static gboolean initialized;
  Input in = { data, size };

  if (!initialized)
    {
      se_ctf_packet_init(&scratch, SCRATCH_CAPACITY);
      initialized = TRUE;
    }
  arena = g_malloc(2 * size + MAX_EVENTS * (MAX_PAIRS + 4) * 100 + 4096);
  arena_used = 0;

  gsize capacity = SE_CTF_PACKET_HEADER_SIZE + 8 + 8 * ((_u8(&in) | (_u8(&in) << 8)) % 1024);
  guint64 seq = _u8(&in);
  guint64 discarded = _u64(&in);
  guint64 clock = _u64(&in) >> 1;
  SeCtfPacket packet;
  se_ctf_packet_init(&packet, capacity);

  FuzzEvent *events = g_new0(FuzzEvent, MAX_EVENTS);
  guint total = 0, in_packet = 0, first = 0;
  while (total < MAX_EVENTS && _read_event(&in, &events[total], &clock))
    {
      FuzzEvent *fe = &events[total++];

      se_ctf_packet_reset(&scratch);
      if (!se_ctf_packet_append(&scratch, fe->ts, &fe->event))
        _fail("event larger than the 4 MiB scratch packet");
      gsize need = scratch.len - SE_CTF_PACKET_HEADER_SIZE;

      for (gint attempt = 0; attempt < 2; attempt++)
        {
          gsize len = packet.len;
          guint64 b = packet.ts_begin, e = packet.ts_end;
          guint n = packet.n_events;
          gboolean ok = se_ctf_packet_append(&packet, fe->ts, &fe->event);

          if (ok != (len + need <= capacity))
            _fail(ok ? "append succeeded beyond the capacity" : "append failed although the event fits");
          if (ok)
            {
              if (packet.len != len + need || packet.n_events != n + 1
                  || memcmp(packet.data + len, scratch.data + SE_CTF_PACKET_HEADER_SIZE, need) != 0)
                _fail("appended bytes differ from the same event appended elsewhere");
              in_packet++;
              break;
            }
          if (packet.len != len || packet.n_events != n || packet.ts_begin != b || packet.ts_end != e)
            _fail("a failed append changed the packet");
          if (n == 0)
            {
              /* too large for any packet of this size: the sink drops it */
              first = total;
              break;
            }
          _check_packet(&packet, events + first, in_packet, seq++, discarded);
          se_ctf_packet_reset(&packet);
          first = total - 1;
          in_packet = 0;
        }
    }
  if (in_packet)
    _check_packet(&packet, events + first, in_packet, seq, discarded);

  for (guint i = 0; i < total; i++)
    {
      g_free(events[i].fields);
      g_free(events[i].expect);
    }
  g_free(events);
  se_ctf_packet_destroy(&packet);
  g_free(arena);
  return 0;
}
