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
 *    and the line ending appended is exactly the cached encoded ending.
 */
#include "line-encoder.h"

#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
