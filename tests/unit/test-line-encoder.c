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
#define _GNU_SOURCE 1  /* memfd_create() */
#include "line-encoder.h"
#include "testutil.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#define S(literal) literal, sizeof(literal) - 1

static LineEncoder *
_new_encoder(const gchar *charset, LineEnding ending)
{
  GError *error = NULL;
  LineEncoder *encoder = line_encoder_new(charset, ending, &error);

  if (!encoder)
    fprintf(stderr, "\n    line_encoder_new(%s): %s\n", charset, error ? error->message : "no error");
  CU_ASSERT_PTR_NOT_NULL_FATAL(encoder);
  CU_ASSERT_PTR_NULL(error);
  return encoder;
}

/* encode text + line ending as one record */
static GString *
_encode_record(LineEncoder *encoder, const gchar *text, gsize len)
{
  GString *out = g_string_new(NULL);

  line_encoder_append_text(encoder, text, len, out);
  line_encoder_append_line_ending(encoder, out);
  return out;
}

static void
_assert_line_ending(const gchar *charset, LineEnding ending, const gchar *expected, gsize expected_len)
{
  LineEncoder *encoder = _new_encoder(charset, ending);
  gsize len;
  const guint8 *bytes = line_encoder_get_line_ending(encoder, &len);

  ASSERT_BYTES(bytes, len, expected, expected_len);

  GString *out = g_string_new("x");
  line_encoder_append_line_ending(encoder, out);
  ASSERT_BYTES(out->str + 1, out->len - 1, expected, expected_len);
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
_assert_record(const gchar *charset, LineEnding ending, const gchar *text, gsize text_len,
               const gchar *expected, gsize expected_len)
{
  LineEncoder *encoder = _new_encoder(charset, ending);
  GString *out = _encode_record(encoder, text, text_len);

  ASSERT_BYTES(out->str, out->len, expected, expected_len);
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_line_ending_parse(void)
{
  LineEnding ending = LINE_ENDING_NONE;

  CU_ASSERT_TRUE(line_ending_parse("lf", &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_LF);
  CU_ASSERT_TRUE(line_ending_parse("CRLF", &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_CRLF);
  CU_ASSERT_TRUE(line_ending_parse("Cr", &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_CR);
  CU_ASSERT_TRUE(line_ending_parse("nOnE", &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_NONE);
  CU_ASSERT_TRUE(line_ending_parse("LF", &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_LF);

  ending = LINE_ENDING_CR;
  CU_ASSERT_FALSE(line_ending_parse("", &ending));
  CU_ASSERT_FALSE(line_ending_parse("lf ", &ending));
  CU_ASSERT_FALSE(line_ending_parse("crlf2", &ending));
  CU_ASSERT_FALSE(line_ending_parse("\\n", &ending));
  CU_ASSERT_FALSE(line_ending_parse(NULL, &ending));
  CU_ASSERT_EQUAL(ending, LINE_ENDING_CR);

  CU_ASSERT_STRING_EQUAL(line_ending_name(LINE_ENDING_LF), "lf");
  CU_ASSERT_STRING_EQUAL(line_ending_name(LINE_ENDING_CRLF), "crlf");
  CU_ASSERT_STRING_EQUAL(line_ending_name(LINE_ENDING_CR), "cr");
  CU_ASSERT_STRING_EQUAL(line_ending_name(LINE_ENDING_NONE), "none");
}

static void
test_utf8_default_and_names(void)
{
  LineEncoder *encoder = _new_encoder(NULL, LINE_ENDING_LF);
  gsize len = 99;

  CU_ASSERT_TRUE(line_encoder_is_utf8(encoder));
  CU_ASSERT_STRING_EQUAL(line_encoder_get_charset(encoder), "UTF-8");
  line_encoder_get_bom(encoder, &len);
  CU_ASSERT_EQUAL(len, 3);
  CU_ASSERT_FALSE(line_encoder_bom_is_required(encoder));
  line_encoder_free(encoder);

  encoder = _new_encoder("utf8", LINE_ENDING_LF);
  CU_ASSERT_TRUE(line_encoder_is_utf8(encoder));
  CU_ASSERT_STRING_EQUAL(line_encoder_get_charset(encoder), "utf8");
  line_encoder_free(encoder);

  encoder = _new_encoder("UTF-16LE", LINE_ENDING_LF);
  CU_ASSERT_FALSE(line_encoder_is_utf8(encoder));
  CU_ASSERT_STRING_EQUAL(line_encoder_get_charset(encoder), "UTF-16LE");
  line_encoder_free(encoder);
}

static void
test_line_endings_utf8(void)
{
  _assert_line_ending("UTF-8", LINE_ENDING_LF, S("\n"));
  _assert_line_ending("UTF-8", LINE_ENDING_CRLF, S("\r\n"));
  _assert_line_ending("UTF-8", LINE_ENDING_CR, S("\r"));
  _assert_line_ending("UTF-8", LINE_ENDING_NONE, S(""));
}

static void
test_line_endings_utf16(void)
{
  _assert_line_ending("UTF-16LE", LINE_ENDING_LF, S("\x0a\x00"));
  _assert_line_ending("UTF-16LE", LINE_ENDING_CRLF, S("\x0d\x00\x0a\x00"));
  _assert_line_ending("UTF-16LE", LINE_ENDING_CR, S("\x0d\x00"));
  _assert_line_ending("UTF-16LE", LINE_ENDING_NONE, S(""));
  _assert_line_ending("UTF-16BE", LINE_ENDING_LF, S("\x00\x0a"));
  _assert_line_ending("UTF-16BE", LINE_ENDING_CRLF, S("\x00\x0d\x00\x0a"));
  _assert_line_ending("UTF-16BE", LINE_ENDING_CR, S("\x00\x0d"));
  _assert_line_ending("UTF-16BE", LINE_ENDING_NONE, S(""));
  _assert_line_ending("UTF-32BE", LINE_ENDING_CRLF, S("\x00\x00\x00\x0d\x00\x00\x00\x0a"));
}

static void
test_line_endings_single_byte(void)
{
  _assert_line_ending("ISO-8859-2", LINE_ENDING_LF, S("\n"));
  _assert_line_ending("ISO-8859-2", LINE_ENDING_CRLF, S("\r\n"));
  _assert_line_ending("ISO-8859-2", LINE_ENDING_CR, S("\r"));
  _assert_line_ending("ISO-8859-2", LINE_ENDING_NONE, S(""));
  /* EBCDIC: the line ending really goes through the converter */
  _assert_line_ending("IBM037", LINE_ENDING_LF, S("\x25"));
  _assert_line_ending("IBM037", LINE_ENDING_CRLF, S("\x0d\x25"));
}

static void
test_golden_records(void)
{
  /* "Hő€" : U+0048 U+0151 U+20AC */
  const gchar text[] = "H\xc5\x91\xe2\x82\xac";

  _assert_record("UTF-8", LINE_ENDING_LF, S(text), S("H\xc5\x91\xe2\x82\xac\n"));
  _assert_record("UTF-8", LINE_ENDING_CRLF, S(text), S("H\xc5\x91\xe2\x82\xac\r\n"));
  _assert_record("UTF-16LE", LINE_ENDING_LF, S(text), S("H\x00\x51\x01\xac\x20\x0a\x00"));
  _assert_record("UTF-16LE", LINE_ENDING_CRLF, S(text), S("H\x00\x51\x01\xac\x20\x0d\x00\x0a\x00"));
  _assert_record("UTF-16BE", LINE_ENDING_CR, S(text), S("\x00H\x01\x51\x20\xac\x00\x0d"));
  _assert_record("UTF-16BE", LINE_ENDING_NONE, S(text), S("\x00H\x01\x51\x20\xac"));
  /* € is not in ISO-8859-2: substituted with '?' as it cannot carry U+FFFD either */
  _assert_record("ISO-8859-2", LINE_ENDING_LF, S(text), S("H\xf5?\n"));
  _assert_record("ISO-8859-2", LINE_ENDING_CRLF, S(text), S("H\xf5?\r\n"));
  _assert_record("ISO-8859-2", LINE_ENDING_NONE, S(text), S("H\xf5?"));
  /* a character outside the BMP: a surrogate pair */
  _assert_record("UTF-16BE", LINE_ENDING_LF, S("\xf0\x9f\x98\x80"), S("\xd8\x3d\xde\x00\x00\x0a"));
}

static void
test_bom(void)
{
  const struct
  {
    const gchar *charset;
    const gchar *bom;
    gsize bom_len;
    gboolean required;
  } cases[] =
  {
    { "UTF-8", S("\xef\xbb\xbf"), FALSE },
    { "UTF-16LE", S("\xff\xfe"), FALSE },
    { "UTF-16BE", S("\xfe\xff"), FALSE },
    { "UTF-32LE", S("\xff\xfe\x00\x00"), FALSE },
    { "UTF-32BE", S("\x00\x00\xfe\xff"), FALSE },
    { "GB18030", S("\x84\x31\x95\x33"), FALSE },
    { "ISO-8859-2", S(""), FALSE },
    { "IBM037", S(""), FALSE },
    { "UTF-16", G_BYTE_ORDER == G_LITTLE_ENDIAN ? "\xff\xfe" : "\xfe\xff", 2, TRUE },
    { "UTF-32", G_BYTE_ORDER == G_LITTLE_ENDIAN ? "\xff\xfe\x00\x00" : "\x00\x00\xfe\xff", 4, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      LineEncoder *encoder = _new_encoder(cases[i].charset, LINE_ENDING_LF);
      gsize len;
      const guint8 *bom = line_encoder_get_bom(encoder, &len);

      ASSERT_BYTES(bom, len, cases[i].bom, cases[i].bom_len);
      CU_ASSERT_EQUAL(line_encoder_bom_is_required(encoder), cases[i].required);

      /* and it is never emitted as part of the text */
      GString *out = _encode_record(encoder, S("x"));
      CU_ASSERT_TRUE(len == 0 || out->len < len || memcmp(out->str, bom, len) != 0);
      g_string_free(out, TRUE);
      line_encoder_free(encoder);
    }
}

/* UTF-16 without endianness: glibc picks the byte order; the BOM must match it
 * and must never appear in the converted text */
static void
test_utf16_bom_matches_byte_order_and_never_repeats(void)
{
  LineEncoder *encoder = _new_encoder("UTF-16", LINE_ENDING_CRLF);
  gsize bom_len, le_len;
  const guint8 *bom = line_encoder_get_bom(encoder, &bom_len);
  const guint8 *le = line_encoder_get_line_ending(encoder, &le_len);

  CU_ASSERT_EQUAL_FATAL(bom_len, 2);
  gboolean little = bom[0] == 0xff && bom[1] == 0xfe;
  gboolean big = bom[0] == 0xfe && bom[1] == 0xff;
  CU_ASSERT_TRUE_FATAL(little || big);
  if (little)
    ASSERT_BYTES(le, le_len, "\x0d\x00\x0a\x00", 4);
  else
    ASSERT_BYTES(le, le_len, "\x00\x0d\x00\x0a", 4);

  GString *out = g_string_new(NULL);
  for (gint i = 0; i < 3; i++)
    {
      line_encoder_append_text(encoder, S("ab"), out);
      line_encoder_append_text(encoder, S("\xff"), out);
      line_encoder_append_text(encoder, S(""), out);
      line_encoder_append_line_ending(encoder, out);
    }
  const gchar *expected_le = "a\0b\0\xfd\xff\x0d\0\x0a\0";
  const gchar *expected_be = "\0a\0b\xff\xfd\0\x0d\0\x0a";
  GString *expected = g_string_new(NULL);
  for (gint i = 0; i < 3; i++)
    g_string_append_len(expected, little ? expected_le : expected_be, 10);
  ASSERT_BYTES(out->str, out->len, expected->str, expected->len);

  g_string_free(expected, TRUE);
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_utf32_bom_never_repeats(void)
{
  LineEncoder *encoder = _new_encoder("UTF-32", LINE_ENDING_LF);
  gsize bom_len;
  const guint8 *bom = line_encoder_get_bom(encoder, &bom_len);
  GString *out = g_string_new(NULL);

  CU_ASSERT_EQUAL_FATAL(bom_len, 4);
  for (gint i = 0; i < 4; i++)
    {
      line_encoder_append_text(encoder, S("z"), out);
      line_encoder_append_line_ending(encoder, out);
    }
  CU_ASSERT_EQUAL(out->len, 4 * 8);
  for (gsize i = 0; i + 4 <= out->len; i += 4)
    CU_ASSERT_NOT_EQUAL(memcmp(out->str + i, bom, 4), 0);
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_invalid_utf8_is_substituted(void)
{
  /* each maximal invalid subpart becomes one U+FFFD; nothing after it is lost */
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("a\xff" "b"), S("a\0\xfd\xff" "b\0"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("\xe2\x82x"), S("\xfd\xff" "x\0"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("a\xe2\x82"), S("a\0\xfd\xff"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("\xc0\xaf"), S("\xfd\xff\xfd\xff"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("\xed\xa0\x80!"), S("\xfd\xff\xfd\xff\xfd\xff!\0"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("\xf4\x90\x80\x80"), S("\xfd\xff\xfd\xff\xfd\xff\xfd\xff"));
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("\xf0\x9f\x98"), S("\xfd\xff"));
  _assert_record("UTF-16LE", LINE_ENDING_LF, S("\x80\x80\n"), S("\xfd\xff\xfd\xff\n\0\n\0"));
  /* where the charset cannot carry U+FFFD: '?' */
  _assert_record("ISO-8859-2", LINE_ENDING_LF, S("a\xff" "b\xc5\x91"), S("a?b\xf5\n"));
  _assert_record("ISO-8859-2", LINE_ENDING_LF, S("\xe2\x82"), S("?\n"));
  _assert_record("IBM037", LINE_ENDING_LF, S("A\xff"), S("\xc1\x6f\x25"));
  /* UTF-8 output passes the bytes through unchanged, as file() does */
  _assert_record("UTF-8", LINE_ENDING_LF, S("a\xff" "b"), S("a\xff" "b\n"));
}

static void
test_embedded_nul_is_kept(void)
{
  _assert_record("UTF-16LE", LINE_ENDING_NONE, S("a\0b"), S("a\0\0\0b\0"));
}

static void
test_unrepresentable_is_substituted(void)
{
  _assert_record("ISO-8859-2", LINE_ENDING_NONE, S("a\xe2\x82\xac" "b"), S("a?b"));
  _assert_record("ISO-8859-2", LINE_ENDING_NONE, S("a\xf0\x9f\x98\x80" "b\xc3\xa9"), S("a?b\xe9"));
  /* U+FFFD itself in the input */
  _assert_record("ISO-8859-2", LINE_ENDING_NONE, S("\xef\xbf\xbd"), S("?"));
  _assert_record("ISO-8859-1", LINE_ENDING_NONE, S("\xc5\x91\xc3\xa9"), S("?\xe9"));
  /* a long tail after a bad character survives in full */
  GString *text = g_string_new("\xe2\x82\xac");
  GString *expected = g_string_new("?");
  for (gint i = 0; i < 10000; i++)
    {
      g_string_append(text, "\xc3\xa1");
      g_string_append_c(expected, '\xe1');
    }
  _assert_record("ISO-8859-2", LINE_ENDING_NONE, text->str, text->len, expected->str, expected->len);
  g_string_free(text, TRUE);
  g_string_free(expected, TRUE);
}

static void
test_stateful_charset_returns_to_initial_state(void)
{
  /* ISO-2022-JP: back to ASCII (ESC ( B) before the precomputed line ending */
  _assert_record("ISO-2022-JP", LINE_ENDING_LF, S("\xe3\x81\x82"), S("\x1b$B$\"\x1b(B\n"));
  /* UTF-7: the base64 run is closed */
  _assert_record("UTF-7", LINE_ENDING_LF, S("\xe2\x82\xac"), S("+IKw-\n"));

  /* ISO-2022-KR has a once-per-stream header: reported as the BOM, never repeated */
  LineEncoder *encoder = _new_encoder("ISO-2022-KR", LINE_ENDING_LF);
  gsize bom_len;
  const guint8 *bom = line_encoder_get_bom(encoder, &bom_len);
  ASSERT_BYTES(bom, bom_len, "\x1b$)C", 4);
  GString *out = g_string_new(NULL);
  for (gint i = 0; i < 2; i++)
    {
      line_encoder_append_text(encoder, S("\xea\xb0\x80"), out);
      line_encoder_append_line_ending(encoder, out);
    }
  ASSERT_BYTES(out->str, out->len, "\x0e\x30\x21\x0f\n\x0e\x30\x21\x0f\n", 10);
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_unknown_charset_error_names_it(void)
{
  GError *error = NULL;
  LineEncoder *encoder = line_encoder_new("NO-SUCH-CHARSET-42", LINE_ENDING_LF, &error);

  CU_ASSERT_PTR_NULL(encoder);
  CU_ASSERT_PTR_NOT_NULL_FATAL(error);
  CU_ASSERT_TRUE(g_error_matches(error, LINE_ENCODER_ERROR, LINE_ENCODER_ERROR_UNKNOWN_CHARSET));
  CU_ASSERT_PTR_NOT_NULL(strstr(error->message, "NO-SUCH-CHARSET-42"));
  g_error_free(error);

  /* also without an error location */
  CU_ASSERT_PTR_NULL(line_encoder_new("NO-SUCH-CHARSET-42", LINE_ENDING_LF, NULL));
}

static void
test_appends_after_existing_content(void)
{
  LineEncoder *encoder = _new_encoder("UTF-16BE", LINE_ENDING_LF);
  GString *out = g_string_new("prefix");

  line_encoder_append_text(encoder, S("A"), out);
  ASSERT_BYTES(out->str, out->len, "prefix\0A", 8);
  CU_ASSERT_EQUAL(out->str[out->len], '\0');
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_grows_string_when_it_lacks_room(void)
{
  LineEncoder *encoder = _new_encoder("UTF-32LE", LINE_ENDING_NONE);
  GString *text = g_string_new(NULL);

  for (gint i = 0; i < 50000; i++)
    g_string_append(text, i % 2 ? "\xc3\xa9" : "x");

  GString *out = g_string_sized_new(1);
  line_encoder_append_text(encoder, text->str, text->len, out);
  CU_ASSERT_EQUAL_FATAL(out->len, 50000 * 4);
  for (gint i = 0; i < 50000; i++)
    CU_ASSERT_EQUAL_FATAL(memcmp(out->str + i * 4, i % 2 ? "\xe9\0\0\0" : "x\0\0\0", 4), 0);
  CU_ASSERT_EQUAL(out->str[out->len], '\0');
  g_string_free(out, TRUE);
  g_string_free(text, TRUE);
  line_encoder_free(encoder);
}

/* once the string has room, converting reuses it: no allocation per call */
static void
_assert_no_reallocation(const gchar *charset)
{
  LineEncoder *encoder = _new_encoder(charset, LINE_ENDING_CRLF);
  GString *out = g_string_sized_new(64 * 1024);
  gchar *str = out->str;
  gsize allocated = out->allocated_len;

  for (gint batch = 0; batch < 100; batch++)
    {
      for (gint i = 0; i < 100; i++)
        {
          line_encoder_append_text(encoder, S("message with \xc5\x91 and \xff invalid"), out);
          line_encoder_append_line_ending(encoder, out);
        }
      CU_ASSERT_PTR_EQUAL_FATAL(out->str, str);
      CU_ASSERT_EQUAL_FATAL(out->allocated_len, allocated);
      g_string_truncate(out, 0);
    }
  g_string_free(out, TRUE);
  line_encoder_free(encoder);
}

static void
test_no_reallocation_once_big_enough(void)
{
  _assert_no_reallocation("UTF-16LE");
  _assert_no_reallocation("UTF-16");
  _assert_no_reallocation("ISO-8859-2");
  _assert_no_reallocation("UTF-8");
}

/* UTF-16LE/BE are converted without iconv: the same bytes as iconv's path
 * (reached through the "UTF-16LE//" spelling) for valid and invalid input */
static void
test_direct_utf16_equals_iconv(void)
{
  const gchar *charsets[][2] = { { "UTF-16LE", "UTF-16LE//" }, { "UTF-16BE", "UTF-16BE//" } };
  const guchar alphabet[] = { 'a', '\n', 0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xef,
                              0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80
                            };
  GRand *rand = g_rand_new_with_seed(42);

  for (guint c = 0; c < G_N_ELEMENTS(charsets); c++)
    {
      LineEncoder *direct = line_encoder_new(charsets[c][0], LINE_ENDING_LF, NULL);
      LineEncoder *via_iconv = line_encoder_new(charsets[c][1], LINE_ENDING_LF, NULL);
      GString *a = g_string_new(""), *b = g_string_new("");
      /* long enough, and ASCII-heavy enough, for the 16-byte ASCII runs */
      guchar input[80];

      CU_ASSERT_PTR_NOT_NULL_FATAL(direct);
      CU_ASSERT_PTR_NOT_NULL_FATAL(via_iconv);
      for (gint round = 0; round < 20000; round++)
        {
          gsize n = g_rand_int_range(rand, 0, sizeof(input));
          /* every other round mostly ASCII: ASCII tails behind multi-byte characters (the overlapping tail) */
          gint odds = round % 2 ? 32 : 4;
          for (gsize i = 0; i < n; i++)
            input[i] = g_rand_int_range(rand, 0, odds) ? (guchar) g_rand_int_range(rand, 0x20, 0x7f)
                       : alphabet[g_rand_int_range(rand, 0, sizeof(alphabet))];
          g_string_truncate(a, 0);
          g_string_truncate(b, 0);
          line_encoder_append_text(direct, (const gchar *) input, n, a);
          line_encoder_append_text(via_iconv, (const gchar *) input, n, b);
          if (a->len != b->len || memcmp(a->str, b->str, a->len) != 0)
            {
              CU_FAIL("direct UTF-16 differs from iconv");
              break;
            }
        }
      g_string_free(a, TRUE);
      g_string_free(b, TRUE);
      line_encoder_free(direct);
      line_encoder_free(via_iconv);
    }
  g_rand_free(rand);
}

/* a file holding len bytes of data: what line_encoder_scan_tail() reads */
static gint
_file_of(const void *data, gsize len)
{
  gint fd = memfd_create("scan", MFD_CLOEXEC);

  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t) len);
  return fd;
}

static void
_assert_scan(LineEncoder *encoder, const void *data, gsize len, LineScanResult expected, off_t expected_end)
{
  gint fd = _file_of(data, len);
  off_t end = -1;
  LineScanResult result = line_encoder_scan_tail(encoder, fd, len, &end);

  if (result != expected || end != expected_end)
    fprintf(stderr, "\n    scan of %zu bytes: %d at %ld, expected %d at %ld\n", len, result, (glong) end, expected,
            (glong) expected_end);
  CU_ASSERT_EQUAL(result, expected);
  CU_ASSERT_EQUAL(end, expected_end);
  close(fd);
}

static void
test_scan_tail_utf8(void)
{
  LineEncoder *lf = _new_encoder("UTF-8", LINE_ENDING_LF);
  _assert_scan(lf, S(""), LINE_SCAN_WHOLE, 0);
  _assert_scan(lf, S("a\nb\n"), LINE_SCAN_WHOLE, 4);
  _assert_scan(lf, S("a\nbc"), LINE_SCAN_TORN, 2);
  _assert_scan(lf, S("a\nb\nc\r"), LINE_SCAN_TORN, 4);
  _assert_scan(lf, S("abc"), LINE_SCAN_UNENDED, 3);
  line_encoder_free(lf);

  /* crlf: "\n" ends a line, so a file written with lf is whole too */
  LineEncoder *crlf = _new_encoder("UTF-8", LINE_ENDING_CRLF);
  _assert_scan(crlf, S("a\r\nb\r\n"), LINE_SCAN_WHOLE, 6);
  _assert_scan(crlf, S("a\nb\n"), LINE_SCAN_WHOLE, 4);
  _assert_scan(crlf, S("a\r\nb\r"), LINE_SCAN_TORN, 3);
  line_encoder_free(crlf);

  LineEncoder *cr = _new_encoder("UTF-8", LINE_ENDING_CR);
  _assert_scan(cr, S("a\rb\r"), LINE_SCAN_WHOLE, 4);
  _assert_scan(cr, S("a\rb\n"), LINE_SCAN_TORN, 2);
  line_encoder_free(cr);

  /* line-ending(none): records are not lines, any end is theirs */
  LineEncoder *none = _new_encoder("UTF-8", LINE_ENDING_NONE);
  _assert_scan(none, S("abc"), LINE_SCAN_WHOLE, 3);
  line_encoder_free(none);
}

static void
test_scan_tail_utf16_code_units(void)
{
  LineEncoder *le = _new_encoder("UTF-16LE", LINE_ENDING_LF);
  guint8 end[LINE_ENCODER_MAX_END];

  _assert_scan(le, S("\xff\xfe" "a\0\n\0"), LINE_SCAN_WHOLE, 6);
  /* cut at an odd byte: back to the last whole unit that ends a line */
  _assert_scan(le, S("\xff\xfe" "a\0\n\0b"), LINE_SCAN_TORN, 6);
  _assert_scan(le, S("\xff\xfe" "a\0\n\0b\0c"), LINE_SCAN_TORN, 6);
  /* "\n\0" across two units (U+0A41 U+0100) is no line end */
  _assert_scan(le, S("A\n\0\1"), LINE_SCAN_UNENDED, 4);
  _assert_scan(le, S("A\n\0"), LINE_SCAN_UNENDED, 3);
  /* ended on a unit boundary: a NUL to the boundary, then the line ending */
  ASSERT_BYTES(end, line_encoder_end_unended(le, 3, end), "\0\n\0", 3);
  ASSERT_BYTES(end, line_encoder_end_unended(le, 4, end), "\n\0", 2);
  line_encoder_free(le);

  LineEncoder *be_crlf = _new_encoder("UTF-16BE", LINE_ENDING_CRLF);
  _assert_scan(be_crlf, S("\0a\0\r\0\n"), LINE_SCAN_WHOLE, 6);
  _assert_scan(be_crlf, S("\0a\0\r\0\n\0b\0\r"), LINE_SCAN_TORN, 6);
  line_encoder_free(be_crlf);

  LineEncoder *utf32 = _new_encoder("UTF-32LE", LINE_ENDING_LF);
  _assert_scan(utf32, S("a\0\0\0\n\0\0\0b\0"), LINE_SCAN_TORN, 8);
  ASSERT_BYTES(end, line_encoder_end_unended(utf32, 10, end), "\0\0\n\0\0\0", 6);
  line_encoder_free(utf32);
}

static void
test_scan_tail_looks_back_one_window(void)
{
  LineEncoder *lf = _new_encoder("UTF-8", LINE_ENDING_LF);
  GString *data = g_string_new(NULL);

  /* the last line end just inside the window: a torn record */
  g_string_set_size(data, LINE_SCAN_WINDOW);
  memset(data->str, 'x', data->len);
  data->str[0] = '\n';
  _assert_scan(lf, data->str, data->len, LINE_SCAN_TORN, 1);
  /* one byte further back: bytes that are not a record cut short */
  g_string_append_c(data, 'x');
  _assert_scan(lf, data->str, data->len, LINE_SCAN_UNENDED, data->len);
  g_string_free(data, TRUE);

  off_t end;
  CU_ASSERT_EQUAL(line_encoder_scan_tail(lf, -1, 10, &end), LINE_SCAN_READ_ERROR);
  CU_ASSERT_EQUAL(errno, EBADF);
  line_encoder_free(lf);
}

static CU_TestInfo line_encoder_tests[] =
{
  { "scan tail UTF-8", test_scan_tail_utf8 },
  { "scan tail UTF-16/32 code units", test_scan_tail_utf16_code_units },
  { "scan tail looks back one window", test_scan_tail_looks_back_one_window },
  { "direct UTF-16LE/BE equals iconv", test_direct_utf16_equals_iconv },
  { "line_ending_parse", test_line_ending_parse },
  { "UTF-8 default and charset names", test_utf8_default_and_names },
  { "line endings UTF-8", test_line_endings_utf8 },
  { "line endings UTF-16", test_line_endings_utf16 },
  { "line endings single-byte", test_line_endings_single_byte },
  { "golden records", test_golden_records },
  { "BOM", test_bom },
  { "UTF-16 BOM matches byte order, never repeats", test_utf16_bom_matches_byte_order_and_never_repeats },
  { "UTF-32 BOM never repeats", test_utf32_bom_never_repeats },
  { "invalid UTF-8 substituted", test_invalid_utf8_is_substituted },
  { "embedded NUL kept", test_embedded_nul_is_kept },
  { "unrepresentable substituted", test_unrepresentable_is_substituted },
  { "stateful charsets", test_stateful_charset_returns_to_initial_state },
  { "unknown charset error names it", test_unknown_charset_error_names_it },
  { "appends after existing content", test_appends_after_existing_content },
  { "grows the string when it lacks room", test_grows_string_when_it_lacks_room },
  { "no reallocation once big enough", test_no_reallocation_once_big_enough },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "line-encoder", NULL, NULL, NULL, NULL, line_encoder_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
