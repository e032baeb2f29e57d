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
#include "line-encoder.h"

#include <iconv.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define LINE_ENCODER_MAX_SEQUENCE 32
#define LINE_ENCODER_PROBE "A"
#define LINE_ENCODER_UTF8_REPLACEMENT "\xef\xbf\xbd"
#define LINE_ENCODER_UTF8_BOM "\xef\xbb\xbf"

typedef enum
{
  DIRECT_NONE,
  DIRECT_UTF16LE,
  DIRECT_UTF16BE,
} DirectEncoding;

struct _LineEncoder
{
  gchar *charset;
  gboolean is_utf8;
  /* UTF-16LE/BE are converted here rather than by iconv: the common
   * Windows case, several times faster, with the same substitutions */
  DirectEncoding direct;
  iconv_t cd;
  /* glibc emits a BOM (UTF-16, UTF-32) or a header (ISO-2022-KR) at the start
   * of a conversion and again after every reset: we emit it once, up front,
   * and re-arm the converter after each reset so it never shows up again */
  gboolean reset_rearms_prefix;
  gboolean bom_is_required;
  const gchar *replacement;
  guint8 line_ending[LINE_ENCODER_MAX_SEQUENCE];
  gsize line_ending_len;
  gsize code_unit;                /* bytes per code unit: 2 for UTF-16, 4 for UTF-32, else 1 */
  guint8 bom[LINE_ENCODER_MAX_SEQUENCE];
  gsize bom_len;
};

static const gchar *line_ending_names[] = { "lf", "crlf", "cr", "none" };
static const gchar *line_ending_bytes[] = { "\n", "\r\n", "\r", "" };

GQuark
line_encoder_error_quark(void)
{
  return g_quark_from_static_string("line-encoder-error-quark");
}

gboolean
line_ending_parse(const gchar *name, LineEnding *ending)
{
  if (!name)
    return FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS(line_ending_names); i++)
    {
      if (g_ascii_strcasecmp(name, line_ending_names[i]) == 0)
        {
          *ending = (LineEnding) i;
          return TRUE;
        }
    }
  return FALSE;
}

const gchar *
line_ending_name(LineEnding ending)
{
  g_return_val_if_fail((guint) ending < G_N_ELEMENTS(line_ending_names), NULL);
  return line_ending_names[ending];
}

static gboolean
_is_utf8_name(const gchar *charset)
{
  return g_ascii_strcasecmp(charset, "UTF-8") == 0 || g_ascii_strcasecmp(charset, "UTF8") == 0;
}

/* make sure out can take extra more bytes without reallocating; GString grows geometrically */
static void
_reserve(GString *out, gsize extra)
{
  gsize len = out->len;

  if (out->allocated_len - len - 1 >= extra)
    return;
  g_string_set_size(out, len + extra);
  g_string_truncate(out, len);
}

/* Convert (or with in == NULL, return to the initial state) straight into
 * out's spare capacity, growing it only on E2BIG.  Returns FALSE with errno
 * set on EILSEQ/EINVAL; *in then points at the offending input. */
static gboolean
_iconv_into(LineEncoder *self, gchar **in, gsize *in_left, GString *out)
{
  for (;;)
    {
      gchar *out_ptr = out->str + out->len;
      gsize spare = out->allocated_len - out->len - 1;
      gsize spare_before = spare;
      gsize rc = iconv(self->cd, in, in_left, &out_ptr, &spare);
      gint saved_errno = errno;

      out->len += spare_before - spare;
      out->str[out->len] = '\0';

      if (rc != (gsize) -1)
        return TRUE;
      if (saved_errno != E2BIG)
        {
          errno = saved_errno;
          return FALSE;
        }
      _reserve(out, MAX((in_left ? *in_left : 0) * 4, 64));
    }
}

static void
_return_to_initial_state(LineEncoder *self, GString *out)
{
  _iconv_into(self, NULL, NULL, out);

  if (self->reset_rearms_prefix)
    {
      gchar scratch[LINE_ENCODER_MAX_SEQUENCE * 2];
      gchar *in = LINE_ENCODER_PROBE, *out_ptr = scratch;
      gsize in_left = strlen(in), out_left = sizeof(scratch);

      /* let the converter emit its BOM/header into scratch, not into the output */
      iconv(self->cd, &in, &in_left, &out_ptr, &out_left);
    }
}

/*
 * How many bytes to skip at s: the length of a valid UTF-8 character (the
 * charset cannot carry it), or of the maximal invalid subpart (Unicode's
 * "U+FFFD substitution of maximal subparts"), at least 1.
 */
static gsize
_utf8_skip_len(const guchar *s, gsize n)
{
  guchar c = s[0];
  guchar lo = 0x80, hi = 0xbf;
  gsize need;

  if (c < 0x80)
    return 1;
  else if (c >= 0xc2 && c <= 0xdf)
    need = 1;
  else if (c == 0xe0)
    need = 2, lo = 0xa0;
  else if (c == 0xed)
    need = 2, hi = 0x9f;
  else if (c >= 0xe1 && c <= 0xef)
    need = 2;
  else if (c == 0xf0)
    need = 3, lo = 0x90;
  else if (c == 0xf4)
    need = 3, hi = 0x8f;
  else if (c >= 0xf1 && c <= 0xf3)
    need = 3;
  else
    return 1;

  if (n < 2 || s[1] < lo || s[1] > hi)
    return 1;
  for (gsize i = 2; i <= need; i++)
    {
      if (i >= n || s[i] < 0x80 || s[i] > 0xbf)
        return i;
    }
  return need + 1;
}

/* the code point of the valid UTF-8 sequence at s, its length in *len; -1 if invalid */
static gint32
_utf8_decode(const guchar *s, gsize n, gsize *len)
{
  gsize skip = _utf8_skip_len(s, n);
  guchar c = s[0];
  gint32 cp;
  gsize need;

  if (c >= 0xc2 && c <= 0xdf)
    need = 1, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    need = 2, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    need = 3, cp = c & 0x07;
  else
    {
      *len = skip;
      return -1;
    }
  *len = skip;
  if (skip != need + 1)
    return -1;
  for (gsize i = 1; i <= need; i++)
    cp = (cp << 6) | (s[i] & 0x3f);
  return cp;
}

/* one UTF-16 code unit; BE is a compile-time constant in each caller */
#define PUT_UTF16(o, unit, BE) \
  do { \
    (o)[(BE) ? 0 : 1] = (guchar) ((unit) >> 8); \
    (o)[(BE) ? 1 : 0] = (guchar) ((unit) & 0xff); \
    (o) += 2; \
  } while (0)

#ifdef __SSE2__
#include <emmintrin.h>

/* ASCII runs, 16 bytes at a time: each byte becomes a code unit (zero high byte) */
#define UTF16_ASCII_RUN(s, n, i, o, BE) \
  while ((i) + 16 <= (n)) \
    { \
      __m128i v = _mm_loadu_si128((const __m128i *) ((s) + (i))); \
      if (_mm_movemask_epi8(v)) \
        break; \
      __m128i z = _mm_setzero_si128(); \
      _mm_storeu_si128((__m128i *) (o), (BE) ? _mm_unpacklo_epi8(z, v) : _mm_unpacklo_epi8(v, z)); \
      _mm_storeu_si128((__m128i *) ((o) + 16), (BE) ? _mm_unpackhi_epi8(z, v) : _mm_unpackhi_epi8(v, z)); \
      (o) += 32; \
      (i) += 16; \
    }

/* fewer than 16 bytes left: when the last 16 input bytes are all ASCII, convert
 * them in one go.  The ones before i were ASCII too, so they were written as 2
 * bytes each right before o: the overlap rewrites the same bytes. */
#define UTF16_ASCII_TAIL(s, n, i, o, BE) \
  if ((n) >= 16 && (i) < (n) && (n) - (i) < 16) \
    { \
      __m128i v = _mm_loadu_si128((const __m128i *) ((s) + (n) - 16)); \
      if (!_mm_movemask_epi8(v)) \
        { \
          __m128i z = _mm_setzero_si128(); \
          (o) -= 2 * ((i) - ((n) - 16)); \
          _mm_storeu_si128((__m128i *) (o), (BE) ? _mm_unpacklo_epi8(z, v) : _mm_unpacklo_epi8(v, z)); \
          _mm_storeu_si128((__m128i *) ((o) + 16), (BE) ? _mm_unpackhi_epi8(z, v) : _mm_unpackhi_epi8(v, z)); \
          (o) += 32; \
          (i) = (n); \
        } \
    }
#else
#define UTF16_ASCII_RUN(s, n, i, o, BE)
#define UTF16_ASCII_TAIL(s, n, i, o, BE)
#endif

/* convert s[0..n) into o, which has room for 2 * n bytes; returns the new end */
#define DEFINE_UTF16_CONVERTER(name, BE) \
  static guchar * \
  name(const guchar *s, gsize n, guchar *o) \
  { \
    for (gsize i = 0; i < n;) \
      { \
        UTF16_ASCII_RUN(s, n, i, o, BE); \
        UTF16_ASCII_TAIL(s, n, i, o, BE); \
        if (i >= n) \
          break; \
        if (s[i] < 0x80) \
          { \
            PUT_UTF16(o, s[i], BE); \
            i++; \
            continue; \
          } \
        gsize len; \
        gint32 cp = _utf8_decode(s + i, n - i, &len); \
        i += len; \
        if (cp < 0) \
          cp = 0xfffd; \
        if (cp >= 0x10000) \
          { \
            PUT_UTF16(o, 0xd800 + ((cp - 0x10000) >> 10), BE); \
            PUT_UTF16(o, 0xdc00 + ((cp - 0x10000) & 0x3ff), BE); \
          } \
        else \
          { \
            PUT_UTF16(o, cp, BE); \
          } \
      } \
    return o; \
  }

DEFINE_UTF16_CONVERTER(_utf8_to_utf16le, FALSE)
DEFINE_UTF16_CONVERTER(_utf8_to_utf16be, TRUE)

static void
_append_utf16(LineEncoder *self, const guchar *s, gsize n, GString *out)
{
  /* at most 2 output bytes per input byte: ASCII 1 -> 2, 3 -> 2, 4 -> 4, invalid -> 2 */
  _reserve(out, n * 2);
  guchar *o = (guchar *) out->str + out->len;

  o = self->direct == DIRECT_UTF16BE ? _utf8_to_utf16be(s, n, o) : _utf8_to_utf16le(s, n, o);
  out->len = (gchar *) o - out->str;
  out->str[out->len] = '\0';
}

static DirectEncoding
_direct_encoding(const gchar *charset)
{
  if (g_ascii_strcasecmp(charset, "UTF-16LE") == 0 || g_ascii_strcasecmp(charset, "UTF16LE") == 0)
    return DIRECT_UTF16LE;
  if (g_ascii_strcasecmp(charset, "UTF-16BE") == 0 || g_ascii_strcasecmp(charset, "UTF16BE") == 0)
    return DIRECT_UTF16BE;
  return DIRECT_NONE;
}

/* convert a construction-time string fully, FALSE if the charset cannot carry it */
static gboolean
_convert_fixed(LineEncoder *self, const gchar *text, GString *out)
{
  gchar *in = (gchar *) text;
  gsize in_left = strlen(text);
  gboolean ok = _iconv_into(self, &in, &in_left, out);

  _return_to_initial_state(self, out);
  return ok;
}

static gboolean
_copy_sequence(guint8 *dest, gsize *dest_len, const GString *src)
{
  if (src->len > LINE_ENCODER_MAX_SEQUENCE)
    return FALSE;
  memcpy(dest, src->str, src->len);
  *dest_len = src->len;
  return TRUE;
}

/* the bytes glibc puts in front of the first conversion only: its BOM */
static gboolean
_detect_prefix(LineEncoder *self, GError **error)
{
  GString *first = g_string_sized_new(LINE_ENCODER_MAX_SEQUENCE);
  GString *again = g_string_sized_new(LINE_ENCODER_MAX_SEQUENCE);
  GString *after_reset = g_string_sized_new(LINE_ENCODER_MAX_SEQUENCE);
  gboolean ok = FALSE;
  gchar *in;
  gsize in_left;

  in = LINE_ENCODER_PROBE, in_left = strlen(in);
  if (!_iconv_into(self, &in, &in_left, first))
    goto exit;
  in = LINE_ENCODER_PROBE, in_left = strlen(in);
  if (!_iconv_into(self, &in, &in_left, again))
    goto exit;

  if (first->len > again->len && memcmp(first->str + first->len - again->len, again->str, again->len) == 0)
    self->bom_len = first->len - again->len;
  if (self->bom_len > LINE_ENCODER_MAX_SEQUENCE)
    goto exit;
  memcpy(self->bom, first->str, self->bom_len);

  _iconv_into(self, NULL, NULL, after_reset);
  g_string_truncate(after_reset, 0);
  in = LINE_ENCODER_PROBE, in_left = strlen(in);
  if (!_iconv_into(self, &in, &in_left, after_reset))
    goto exit;
  self->reset_rearms_prefix = self->bom_len > 0 && after_reset->len == first->len
                              && memcmp(after_reset->str, first->str, first->len) == 0;
  g_string_truncate(after_reset, 0);
  _return_to_initial_state(self, after_reset);
  ok = TRUE;

exit:
  if (!ok)
    g_set_error(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_FAILED,
                "Output charset %s cannot encode plain ASCII text", self->charset);
  g_string_free(first, TRUE);
  g_string_free(again, TRUE);
  g_string_free(after_reset, TRUE);
  return ok;
}

static gboolean
_setup_converter(LineEncoder *self, LineEnding ending, GError **error)
{
  GString *scratch = g_string_sized_new(LINE_ENCODER_MAX_SEQUENCE);
  gboolean ok = FALSE;

  self->cd = iconv_open(self->charset, "UTF-8");
  if (self->cd == (iconv_t) -1)
    {
      if (errno == EINVAL)
        g_set_error(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_UNKNOWN_CHARSET,
                    "Unknown output charset: %s (iconv cannot convert UTF-8 to it)", self->charset);
      else
        g_set_error(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_FAILED,
                    "Cannot convert UTF-8 to charset %s: %s", self->charset, g_strerror(errno));
      goto exit;
    }

  if (!_detect_prefix(self, error))
    goto exit;

  self->bom_is_required = self->bom_len > 0;
  if (self->bom_len == 0 && _convert_fixed(self, LINE_ENCODER_UTF8_BOM, scratch) && scratch->len <= sizeof(self->bom))
    {
      memcpy(self->bom, scratch->str, scratch->len);
      self->bom_len = scratch->len;
    }
  g_string_truncate(scratch, 0);

  if (!_convert_fixed(self, line_ending_bytes[ending], scratch)
      || !_copy_sequence(self->line_ending, &self->line_ending_len, scratch))
    {
      g_set_error(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_FAILED,
                  "Output charset %s cannot encode the line ending %s", self->charset, line_ending_name(ending));
      goto exit;
    }

  g_string_truncate(scratch, 0);
  if (_convert_fixed(self, LINE_ENCODER_UTF8_REPLACEMENT, scratch))
    self->replacement = LINE_ENCODER_UTF8_REPLACEMENT;
  else if (_convert_fixed(self, "?", scratch))
    self->replacement = "?";
  else
    {
      g_set_error(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_FAILED,
                  "Output charset %s can carry neither U+FFFD nor '?' to substitute invalid input", self->charset);
      goto exit;
    }
  ok = TRUE;

exit:
  g_string_free(scratch, TRUE);
  return ok;
}

LineEncoder *
line_encoder_new(const gchar *charset, LineEnding ending, GError **error)
{
  g_return_val_if_fail((guint) ending < G_N_ELEMENTS(line_ending_names), NULL);
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);

  LineEncoder *self = g_new0(LineEncoder, 1);

  self->charset = g_strdup(charset ? charset : "UTF-8");
  self->is_utf8 = _is_utf8_name(self->charset);
  self->cd = (iconv_t) -1;

  self->code_unit = 1;
  if (self->is_utf8)
    {
      /* passed through as file() does: no converter */
      self->line_ending_len = strlen(line_ending_bytes[ending]);
      memcpy(self->line_ending, line_ending_bytes[ending], self->line_ending_len);
      self->bom_len = strlen(LINE_ENCODER_UTF8_BOM);
      memcpy(self->bom, LINE_ENCODER_UTF8_BOM, self->bom_len);
      return self;
    }

  if (!_setup_converter(self, ending, error))
    {
      line_encoder_free(self);
      return NULL;
    }
  self->direct = _direct_encoding(self->charset);
  /* every line ending is one code unit per character */
  if (ending != LINE_ENDING_NONE)
    self->code_unit = self->line_ending_len / strlen(line_ending_bytes[ending]);
  return self;
}

void
line_encoder_free(LineEncoder *self)
{
  if (!self)
    return;
  if (self->cd != (iconv_t) -1)
    iconv_close(self->cd);
  g_free(self->charset);
  g_free(self);
}

gboolean
line_encoder_bom_is_required(const LineEncoder *self)
{
  return self->bom_is_required;
}

gboolean
line_encoder_is_utf8(const LineEncoder *self)
{
  return self->is_utf8;
}

const gchar *
line_encoder_get_charset(const LineEncoder *self)
{
  return self->charset;
}

const guint8 *
line_encoder_get_line_ending(const LineEncoder *self, gsize *len)
{
  *len = self->line_ending_len;
  return self->line_ending;
}

const guint8 *
line_encoder_get_bom(const LineEncoder *self, gsize *len)
{
  *len = self->bom_len;
  return self->bom;
}

static void
_append_replacement(LineEncoder *self, GString *out)
{
  gchar *in = (gchar *) self->replacement;
  gsize in_left = strlen(in);

  /* checked at construction: the charset can carry it */
  _iconv_into(self, &in, &in_left, out);
}

void
line_encoder_append_text(LineEncoder *self, const gchar *utf8, gsize len, GString *out)
{
  if (self->is_utf8)
    {
      g_string_append_len(out, utf8, len);
      return;
    }
  if (self->direct != DIRECT_NONE)
    {
      _append_utf16(self, (const guchar *) utf8, len, out);
      return;
    }

  gchar *in = (gchar *) utf8;
  gsize in_left = len;

  while (in_left > 0)
    {
      if (_iconv_into(self, &in, &in_left, out) || in_left == 0)
        break;

      /* EILSEQ/EINVAL: invalid or truncated UTF-8, or a character the charset cannot carry */
      gsize skip = _utf8_skip_len((const guchar *) in, in_left);

      skip = MIN(skip, in_left);
      in += skip;
      in_left -= skip;
      _append_replacement(self, out);
    }

  /* stateful charsets (ISO-2022-*, UTF-7): end in the initial shift state,
   * where the precomputed line ending is valid */
  _return_to_initial_state(self, out);
}

void
line_encoder_append_line_ending(const LineEncoder *self, GString *out)
{
  g_string_append_len(out, (const gchar *) self->line_ending, self->line_ending_len);
}

static gboolean
_pread_all(gint fd, guint8 *buf, gsize len, off_t offset)
{
  while (len > 0)
    {
      ssize_t n = pread(fd, buf, len, offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = EIO;   /* the file shrank under us */
          return FALSE;
        }
      buf += n;
      len -= n;
      offset += n;
    }
  return TRUE;
}

LineScanResult
line_encoder_scan_tail(const LineEncoder *self, gint fd, off_t size, off_t *valid_end)
{
  gsize unit = self->code_unit;
  const guint8 *line_end = self->line_ending + self->line_ending_len - unit;
  guint8 last[LINE_ENCODER_MAX_SEQUENCE];

  *valid_end = size;
  if (self->line_ending_len == 0 || size == 0)
    return LINE_SCAN_WHOLE;

  /* the common case, one small read: the file ends in a line end */
  if (size % unit == 0 && size >= (off_t) unit)
    {
      if (!_pread_all(fd, last, unit, size - unit))
        return LINE_SCAN_READ_ERROR;
      if (memcmp(last, line_end, unit) == 0)
        return LINE_SCAN_WHOLE;
    }

  off_t start = size > LINE_SCAN_WINDOW ? size - LINE_SCAN_WINDOW : 0;
  start -= start % unit;
  gsize len = size - start;
  guint8 *window = g_malloc(len);
  LineScanResult result = LINE_SCAN_UNENDED;

  if (!_pread_all(fd, window, len, start))
    result = LINE_SCAN_READ_ERROR;
  else
    {
      /* the last whole unit that is a line end; start is on a unit boundary */
      for (gsize at = (len / unit) * unit; at >= unit; at -= unit)
        {
          if (memcmp(window + at - unit, line_end, unit) == 0)
            {
              *valid_end = start + at;
              result = LINE_SCAN_TORN;
              break;
            }
        }
    }
  gint error = errno;
  g_free(window);
  errno = error;
  return result;
}

gsize
line_encoder_end_unended(const LineEncoder *self, off_t size, guint8 out[LINE_ENCODER_MAX_END])
{
  gsize pad = (self->code_unit - size % self->code_unit) % self->code_unit;

  memset(out, 0, pad);
  memcpy(out + pad, self->line_ending, self->line_ending_len);
  return pad + self->line_ending_len;
}
