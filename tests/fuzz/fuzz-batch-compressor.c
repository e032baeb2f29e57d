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
 * libFuzzer harness for the batch compressor's scan (modules/common/batch-compressor):
 * the scan reads whatever file is at a compressed destination's path.
 * The first input byte picks the codec and the mode.
 * Properties:
 *  - any bytes as a file: no crash; valid_end <= size; WHOLE only with valid_end == size;
 *    the prefix up to a TORN or FOREIGN valid_end scans WHOLE to the same end;
 *  - batches compressed one unit each, the file cut anywhere: a cut at a unit's end is
 *    WHOLE there, any other cut is TORN at the end of the last whole unit before it
 *    (never FOREIGN: our own units are never taken for someone else's bytes).
 */
#define _GNU_SOURCE 1  /* memfd_create() */
#include "batch-compressor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static BatchCompressor *compressors[2];
static gint fd = -1;

static void
_fail(const gchar *what, BatchCompression type, off_t size, off_t valid_end, gint result)
{
  fprintf(stderr, "PROPERTY VIOLATED: %s (%s, file %ld bytes, valid_end %ld, result %d)\n", what,
          batch_compression_name(type), (long) size, (long) valid_end, result);
  abort();
}

static void
_set_file(const void *data, gsize len)
{
  if (ftruncate(fd, 0) < 0 || pwrite(fd, data, len, 0) != (gssize) len)
    abort();
}

static BatchScanResult
_scan(BatchCompression type, off_t size, off_t *valid_end)
{
  return batch_compressor_scan(type, fd, size, valid_end);
}

static void
_any_bytes(BatchCompression type, const guint8 *data, gsize len)
{
  off_t valid_end;

  _set_file(data, len);
  BatchScanResult result = _scan(type, len, &valid_end);
  if (result == BATCH_SCAN_READ_ERROR || valid_end < 0 || valid_end > (off_t) len)
    _fail("scan of any bytes", type, len, valid_end, result);
  if (result == BATCH_SCAN_WHOLE && valid_end != (off_t) len)
    _fail("WHOLE short of the end", type, len, valid_end, result);
  if (result != BATCH_SCAN_WHOLE)
    {
      off_t again;
      BatchScanResult prefix = _scan(type, valid_end, &again);
      if (prefix != BATCH_SCAN_WHOLE || again != valid_end)
        _fail("the prefix up to valid_end is not WHOLE", type, valid_end, again, prefix);
    }
}

static void
_own_units_cut(BatchCompression type, const guint8 *data, gsize len)
{
  GByteArray *file = g_byte_array_new();
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(off_t));
  gsize start = 0;

  if (len < 2)
    goto out;
  /* the last two bytes: where to cut (a fraction of the file) */
  guint cut_at = data[len - 2] << 8 | data[len - 1];
  len -= 2;
  /* batches end at each 0xFF byte */
  for (gsize i = 0; i <= len; i++)
    {
      if (i < len && data[i] != 0xFF)
        continue;
      if (i > start)
        {
          const guint8 *unit;
          gsize unit_len;
          const gchar *error_text;

          if (!batch_compressor_compress(compressors[type == BATCH_COMPRESSION_ZSTD], data + start, i - start,
                                         &unit, &unit_len, &error_text))
            _fail("compression failed", type, 0, 0, -1);
          g_byte_array_append(file, unit, unit_len);
          off_t end = file->len;
          g_array_append_val(ends, end);
        }
      start = i + 1;
    }
  if (file->len == 0)
    goto out;

  off_t cut = (off_t) ((guint64) file->len * cut_at / 65535);
  off_t expect = 0;
  for (guint i = 0; i < ends->len; i++)
    if (g_array_index(ends, off_t, i) <= cut)
      expect = g_array_index(ends, off_t, i);

  off_t valid_end;
  _set_file(file->data, cut);
  BatchScanResult result = _scan(type, cut, &valid_end);
  BatchScanResult want = expect == cut ? BATCH_SCAN_WHOLE : BATCH_SCAN_TORN;
  if (result != want || valid_end != expect)
    _fail("own units cut short", type, cut, valid_end, result);
out:
  g_byte_array_free(file, TRUE);
  g_array_free(ends, TRUE);
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
  if (size < 1)
    return 0;
  if (fd < 0)
    {
      gchar *error = NULL;

      fd = memfd_create("fuzz-batch-compressor", MFD_CLOEXEC);
      compressors[0] = batch_compressor_new(BATCH_COMPRESSION_GZIP, 1, &error);
      compressors[1] = batch_compressor_new(BATCH_COMPRESSION_ZSTD, 1, &error);
      if (fd < 0 || !compressors[0] || !compressors[1])
        abort();
    }
  BatchCompression type = data[0] & 1 ? BATCH_COMPRESSION_ZSTD : BATCH_COMPRESSION_GZIP;
  if (data[0] & 2)
    _own_units_cut(type, data + 1, size - 1);
  else
    _any_bytes(type, data + 1, size - 1);
  return 0;
}
