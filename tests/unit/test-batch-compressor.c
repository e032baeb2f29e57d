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
#include "batch-compressor.h"
#include "testutil.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

/* each batch a complete member/frame: stock zcat / zstdcat read the file
 * whole, and a unit cut short at its end is found by the scan */

static gchar *tmpdir;

static gchar *
_batch(gint n, gint first)
{
  GString *s = g_string_new(NULL);

  for (gint i = 0; i < n; i++)
    g_string_append_printf(s, "<13>Dec  1 12:00:00 host app[42]: message number %08d of the batch, some text\n",
                           first + i);
  return g_string_free(s, FALSE);
}

static gchar *
_write_batches(BatchCompression type, gint level, const gchar *name, gint batches, gint per_batch,
               GString *plain, GArray *ends)
{
  gchar *error = NULL;
  BatchCompressor *c = batch_compressor_new(type, level, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);

  gchar *path = g_build_filename(tmpdir, name, NULL);
  gint fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CU_ASSERT_TRUE_FATAL(fd >= 0);
  off_t end = 0;
  for (gint b = 0; b < batches; b++)
    {
      gchar *data = _batch(per_batch, b * per_batch);
      const guint8 *out;
      gsize out_len;
      const gchar *err = NULL;

      CU_ASSERT_TRUE_FATAL(batch_compressor_compress(c, data, strlen(data), &out, &out_len, &err));
      CU_ASSERT_TRUE(out_len < strlen(data));
      CU_ASSERT_EQUAL((gsize) write(fd, out, out_len), out_len);
      end += out_len;
      if (ends)
        g_array_append_val(ends, end);
      g_string_append(plain, data);
      g_free(data);
    }
  close(fd);
  batch_compressor_free(c);
  return path;
}

static gchar *
_decompress_with(const gchar *tool, const gchar *path, gint *status)
{
  gchar *argv[] = { (gchar *) tool, (gchar *) "-dc", (gchar *) path, NULL };
  gchar *out = NULL;

  CU_ASSERT_TRUE_FATAL(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                    &out, NULL, status, NULL));
  return out;
}

static void
_check_stock_tool_reads(BatchCompression type, const gchar *tool, gint level)
{
  GString *plain = g_string_new(NULL);
  gchar *path = _write_batches(type, level, "stock", 20, 100, plain, NULL);
  gint status;
  gchar *out = _decompress_with(tool, path, &status);

  CU_ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
  CU_ASSERT_STRING_EQUAL(out, plain->str);
  g_free(out);
  g_free(path);
  g_string_free(plain, TRUE);
}

static void
test_gzip_members_read_by_zcat(void)
{
  _check_stock_tool_reads(BATCH_COMPRESSION_GZIP, "gzip", BATCH_COMPRESSION_LEVEL_DEFAULT);
  _check_stock_tool_reads(BATCH_COMPRESSION_GZIP, "gzip", 1);
  _check_stock_tool_reads(BATCH_COMPRESSION_GZIP, "gzip", 9);
}

static void
test_zstd_frames_read_by_zstdcat(void)
{
  _check_stock_tool_reads(BATCH_COMPRESSION_ZSTD, "zstd", BATCH_COMPRESSION_LEVEL_DEFAULT);
  _check_stock_tool_reads(BATCH_COMPRESSION_ZSTD, "zstd", 1);
  _check_stock_tool_reads(BATCH_COMPRESSION_ZSTD, "zstd", 19);
}

static BatchScanResult
_scan(const gchar *path, off_t *valid_end)
{
  gint fd = open(path, O_RDONLY);
  struct stat st;

  CU_ASSERT_TRUE_FATAL(fd >= 0 && fstat(fd, &st) == 0);
  BatchScanResult result = batch_compressor_scan(BATCH_COMPRESSION_NONE, fd, st.st_size, valid_end);
  CU_ASSERT_EQUAL(result, BATCH_SCAN_WHOLE);
  CU_ASSERT_EQUAL(*valid_end, st.st_size);
  close(fd);
  return result;
}

static BatchScanResult
_scan_as(BatchCompression type, const gchar *path, off_t *valid_end)
{
  gint fd = open(path, O_RDONLY);
  struct stat st;

  CU_ASSERT_TRUE_FATAL(fd >= 0 && fstat(fd, &st) == 0);
  BatchScanResult result = batch_compressor_scan(type, fd, st.st_size, valid_end);
  close(fd);
  return result;
}

/* every cut inside the last unit is found as torn, at the end of the one before */
static void
_check_torn_tail(BatchCompression type, const gchar *tool)
{
  GString *plain = g_string_new(NULL);
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(off_t));
  gchar *path = _write_batches(type, 3, "torn", 4, 200, plain, ends);
  off_t last = g_array_index(ends, off_t, 3), before = g_array_index(ends, off_t, 2);
  off_t valid_end;

  _scan(path, &valid_end);
  CU_ASSERT_EQUAL(_scan_as(type, path, &valid_end), BATCH_SCAN_WHOLE);
  CU_ASSERT_EQUAL(valid_end, last);

  for (off_t cut = last - 1; cut > before; cut -= MAX((last - before) / 7, 1))
    {
      CU_ASSERT_EQUAL_FATAL(truncate(path, cut), 0);
      CU_ASSERT_EQUAL(_scan_as(type, path, &valid_end), BATCH_SCAN_TORN);
      CU_ASSERT_EQUAL(valid_end, before);
    }
  /* cut where the scan says: the stock tool reads the first three batches whole */
  CU_ASSERT_EQUAL_FATAL(truncate(path, before), 0);
  gint status;
  gchar *out = _decompress_with(tool, path, &status);
  CU_ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
  CU_ASSERT_EQUAL(strlen(out), plain->len / 4 * 3);
  CU_ASSERT_TRUE(strncmp(out, plain->str, strlen(out)) == 0);
  g_free(out);
  g_free(path);
  g_array_free(ends, TRUE);
  g_string_free(plain, TRUE);
}

static void
test_gzip_torn_member_found(void)
{
  _check_torn_tail(BATCH_COMPRESSION_GZIP, "gzip");
}

static void
test_zstd_torn_frame_found(void)
{
  _check_torn_tail(BATCH_COMPRESSION_ZSTD, "zstd");
}

/* bytes no decoder takes are not a torn unit: never to be cut */
static void
_check_foreign(BatchCompression type)
{
  GString *plain = g_string_new(NULL);
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(off_t));
  gchar *path = _write_batches(type, BATCH_COMPRESSION_LEVEL_DEFAULT, "foreign", 3, 50, plain, ends);
  off_t valid_end;

  /* plain text after two good units */
  FILE *f = fopen(path, "a");
  fputs("a plain text line\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(_scan_as(type, path, &valid_end), BATCH_SCAN_FOREIGN);
  CU_ASSERT_EQUAL(valid_end, g_array_index(ends, off_t, 2));

  /* a plain text file */
  g_file_set_contents(path, "plain text, never compressed\nsecond line\n", -1, NULL);
  CU_ASSERT_EQUAL(_scan_as(type, path, &valid_end), BATCH_SCAN_FOREIGN);
  CU_ASSERT_EQUAL(valid_end, 0);
  g_free(path);
  g_array_free(ends, TRUE);
  g_string_free(plain, TRUE);
}

static void
test_foreign_bytes_are_not_torn(void)
{
  _check_foreign(BATCH_COMPRESSION_GZIP);
  _check_foreign(BATCH_COMPRESSION_ZSTD);
}

static void
test_names_and_levels(void)
{
  BatchCompression type;
  gint min, max;

  CU_ASSERT_TRUE(batch_compression_parse("gzip", &type) && type == BATCH_COMPRESSION_GZIP);
  CU_ASSERT_TRUE(batch_compression_parse("zstd", &type) && type == BATCH_COMPRESSION_ZSTD);
  CU_ASSERT_TRUE(batch_compression_parse("none", &type) && type == BATCH_COMPRESSION_NONE);
  CU_ASSERT_FALSE(batch_compression_parse("bzip2", &type));
  CU_ASSERT_TRUE(batch_compression_level_valid(BATCH_COMPRESSION_GZIP, 9, &min, &max));
  CU_ASSERT_FALSE(batch_compression_level_valid(BATCH_COMPRESSION_GZIP, 10, &min, &max));
  CU_ASSERT_EQUAL(max, 9);
  CU_ASSERT_TRUE(batch_compression_level_valid(BATCH_COMPRESSION_ZSTD, 19, &min, &max));
  CU_ASSERT_FALSE(batch_compression_level_valid(BATCH_COMPRESSION_ZSTD, 100, &min, &max));
  CU_ASSERT_FALSE(batch_compression_level_valid(BATCH_COMPRESSION_NONE, 1, &min, &max));
  CU_ASSERT_TRUE(batch_compression_level_valid(BATCH_COMPRESSION_NONE, BATCH_COMPRESSION_LEVEL_DEFAULT, &min, &max));
}

static gint
_suite_init(void)
{
  tmpdir = testutil_make_tmpdir();
  return 0;
}

static gint
_suite_cleanup(void)
{
  gboolean removed = testutil_remove_tree(tmpdir);

  g_free(tmpdir);
  return removed ? 0 : 1;
}

static CU_TestInfo batch_compressor_tests[] =
{
  { "gzip: one member per batch, read whole by stock zcat", test_gzip_members_read_by_zcat },
  { "zstd: one frame per batch, read whole by stock zstdcat", test_zstd_frames_read_by_zstdcat },
  { "gzip: a member cut short anywhere is found, at the previous member's end", test_gzip_torn_member_found },
  { "zstd: a frame cut short anywhere is found, at the previous frame's end", test_zstd_torn_frame_found },
  { "bytes no decoder takes are foreign, not torn", test_foreign_bytes_are_not_torn },
  { "names and levels", test_names_and_levels },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "batch-compressor", _suite_init, _suite_cleanup, NULL, NULL, batch_compressor_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
