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
 * libFuzzer harness for the line-ending/charset encoder (modules/common/line-encoder).
 * The first input byte picks the charset and line ending, the rest is the text.
 * Properties:
 *  - valid UTF-8 converted to UTF-16LE / UTF-32BE and back with iconv is the input;
 *  - UTF-8 output is the input unchanged (the fast path);
 *  - any input (invalid UTF-8 included): no crash, output length bounded by
 *    4 bytes per input byte (one substitution per invalid byte at most),
 *    and the line ending appended is exactly the cached encoded ending;
 *  - the encoded record cut anywhere, as a file: the tail scan's end is on a code
 *    unit boundary and ends in a line end with none after it (TORN), is the whole
 *    file ending in one (WHOLE), or no line end is in it (UNENDED); an UNENDED file
 *    with line_encoder_end_unended()'s bytes after it scans WHOLE.
 */
#define _GNU_SOURCE 1  /* memfd_create() */
#include "line-encoder.h"

#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const gchar *charsets[] = { "UTF-16LE", "UTF-32BE", "UTF-8", "ISO-8859-2", "CP1252", "ASCII" };
static LineEncoder *encoders[G_N_ELEMENTS(charsets)][4];
static GString *out;

static void
_fail(const gchar *what, const gchar *charset, const guint8 *data, size_t size)
{
  fprintf(stderr, "PROPERTY VIOLATED: %s (charset %s, %zu input bytes)\n", what, charset, size);
  abort();
}

static gboolean
_iconv_back(const gchar *charset, const gchar *in, gsize len, GString *result)
{
  iconv_t cd = iconv_open("UTF-8", charset);
  gchar buf[4096];
  gchar *inp = (gchar *) in;
  gsize inleft = len;
  gboolean ok = TRUE;

  g_assert(cd != (iconv_t) - 1);
  while (inleft)
    {
      gchar *outp = buf;
      gsize outleft = sizeof(buf);
      if (iconv(cd, &inp, &inleft, &outp, &outleft) == (size_t) - 1 && errno != E2BIG)
        {
          ok = FALSE;
          break;
        }
      g_string_append_len(result, buf, outp - buf);
    }
  iconv_close(cd);
  return ok;
}

static gint scan_fd = -1;

static gboolean
_line_end_at(const guint8 *bytes, gsize at, gsize unit, const guint8 *le, gsize le_len)
{
  return memcmp(bytes + at - unit, le + le_len - unit, unit) == 0;
}

/* the first cut bytes of out's body as a file, scanned */
static void
_check_scan(LineEncoder *enc, LineEnding ending, const gchar *charset, const guint8 *bytes, gsize cut,
            const guint8 *data, size_t size)
{
  gsize le_len;
  const guint8 *le = line_encoder_get_line_ending(enc, &le_len);
  guint8 end[LINE_ENCODER_MAX_END];
  off_t valid_end;

  if (scan_fd < 0)
    scan_fd = memfd_create("scan", MFD_CLOEXEC);
  g_assert(scan_fd >= 0);
  g_assert(ftruncate(scan_fd, 0) == 0);
  g_assert(pwrite(scan_fd, bytes, cut, 0) == (ssize_t) cut);

  LineScanResult scan = line_encoder_scan_tail(enc, scan_fd, cut, &valid_end);
  if (le_len == 0)
    {
      if (scan != LINE_SCAN_WHOLE || valid_end != (off_t) cut)
        _fail("line-ending(none) is not always whole", charset, data, size);
      return;
    }
  /* a code unit per character of the ending */
  gsize unit = le_len / (ending == LINE_ENDING_CRLF ? 2 : 1);
  switch (scan)
    {
    case LINE_SCAN_WHOLE:
      if (valid_end != (off_t) cut || (cut && (cut % unit || !_line_end_at(bytes, cut, unit, le, le_len))))
        _fail("WHOLE without a line end at the end", charset, data, size);
      break;
    case LINE_SCAN_TORN:
      if (valid_end <= 0 || valid_end >= (off_t) cut || valid_end % unit
          || !_line_end_at(bytes, valid_end, unit, le, le_len))
        _fail("TORN end is not a line end before the end", charset, data, size);
      for (gsize at = valid_end + unit; at <= cut; at += unit)
        if (_line_end_at(bytes, at, unit, le, le_len))
          _fail("TORN end is not the last line end", charset, data, size);
      break;
    case LINE_SCAN_UNENDED:
      for (gsize at = unit; at <= cut; at += unit)
        if (_line_end_at(bytes, at, unit, le, le_len))
          _fail("UNENDED with a line end in the file", charset, data, size);
      gsize end_len = line_encoder_end_unended(enc, cut, end);
      g_assert(pwrite(scan_fd, end, end_len, cut) == (ssize_t) end_len);
      if (line_encoder_scan_tail(enc, scan_fd, cut + end_len, &valid_end) != LINE_SCAN_WHOLE)
        _fail("an UNENDED file ended is not WHOLE", charset, data, size);
      break;
    default:
      _fail("read error on a memfd", charset, data, size);
    }
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
  if (size < 1)
    return 0;

  if (!out)
    {
      out = g_string_sized_new(1024);
      for (guint c = 0; c < G_N_ELEMENTS(charsets); c++)
        for (guint e = 0; e < 4; e++)
          {
            GError *error = NULL;
            encoders[c][e] = line_encoder_new(charsets[c], (LineEnding) e, &error);
            g_assert(encoders[c][e]);
          }
    }

  guint c = data[0] % G_N_ELEMENTS(charsets);
  guint e = (data[0] / G_N_ELEMENTS(charsets)) % 4;
  LineEncoder *enc = encoders[c][e];
  const gchar *text = (const gchar *) data + 1;
  gsize len = size - 1;

  g_string_truncate(out, 0);
  g_string_append(out, "PRE");           /* appends, never overwrites */
  line_encoder_append_text(enc, text, len, out);
  if (memcmp(out->str, "PRE", 3) != 0)
    _fail("the encoder overwrote what was in the output", charsets[c], data, size);
  gsize body = out->len - 3;
  if (body > 4 * len)
    _fail("output longer than 4 bytes per input byte", charsets[c], data, size);

  gsize le_len;
  const guint8 *le = line_encoder_get_line_ending(enc, &le_len);
  gsize before = out->len;
  line_encoder_append_line_ending(enc, out);
  if (out->len - before != le_len || memcmp(out->str + before, le, le_len) != 0)
    _fail("line ending differs from the cached one", charsets[c], data, size);

  /* the record cut where the text's first byte says (the fuzz input is far below the scan window) */
  gsize record_len = out->len - 3;
  _check_scan(enc, (LineEnding) e, charsets[c], (const guint8 *) out->str + 3,
              len ? (guint8) text[0] * record_len / 255 : record_len,
              data, size);

  gboolean valid = g_utf8_validate(text, len, NULL);
  if (line_encoder_is_utf8(enc))
    {
      if (body != len || memcmp(out->str + 3, text, len) != 0)
        _fail("UTF-8 output is not the input", charsets[c], data, size);
    }
  else if (valid && (c == 0 || c == 1))
    {
      GString *back = g_string_new(NULL);
      if (!_iconv_back(charsets[c], out->str + 3, body, back) || back->len != len || memcmp(back->str, text, len) != 0)
        _fail("round trip through iconv is not the input", charsets[c], data, size);
      g_string_free(back, TRUE);
    }
  else if (!valid && body == 0 && len > 0)
    _fail("invalid input dropped instead of substituted", charsets[c], data, size);
  return 0;
}
