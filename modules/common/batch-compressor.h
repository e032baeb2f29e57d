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
#ifndef FASTDEST_BATCH_COMPRESSOR_H_INCLUDED
#define FASTDEST_BATCH_COMPRESSOR_H_INCLUDED

#include <glib.h>
#include <sys/types.h>

/*
 * Compressed output, one batch at a time: each call turns a batch's bytes
 * into one complete gzip member (zlib) or one zstd frame (libzstd), so a
 * file of such units decompresses with stock zcat / zstdcat whatever its
 * last write was, and a unit cut short at its end (a crash mid-write) can
 * be found and cut off again (batch_compressor_valid_end()).  The codec's
 * state and the output buffer are reused from batch to batch: no allocation
 * once the buffer has grown to the largest batch's bound.
 */
typedef enum
{
  BATCH_COMPRESSION_NONE,
  BATCH_COMPRESSION_GZIP,
  BATCH_COMPRESSION_ZSTD,
} BatchCompression;

#define BATCH_COMPRESSION_LEVEL_DEFAULT G_MININT

typedef struct _BatchCompressor BatchCompressor;

/* FALSE for a name that is not gzip, zstd or none */
gboolean batch_compression_parse(const gchar *name, BatchCompression *type);
const gchar *batch_compression_name(BatchCompression type);
/* whether level is one the codec takes (BATCH_COMPRESSION_LEVEL_DEFAULT always is); the range in *min, *max */
gboolean batch_compression_level_valid(BatchCompression type, gint level, gint *min, gint *max);

/* NULL on a codec that cannot start (out of memory): error set to a message */
BatchCompressor *batch_compressor_new(BatchCompression type, gint level, gchar **error);
void batch_compressor_free(BatchCompressor *self);

/* data[0 .. len) as one complete member/frame; the bytes stay valid until
 * the next call.  FALSE (and *error_text) when the codec fails. */
gboolean batch_compressor_compress(BatchCompressor *self, const void *data, gsize len,
                                   const guint8 **out, gsize *out_len, const gchar **error_text);

typedef enum
{
  BATCH_SCAN_WHOLE,       /* the file is complete members/frames */
  BATCH_SCAN_TORN,        /* a unit cut short at the end (a crash mid-write): cut it at *valid_end */
  BATCH_SCAN_FOREIGN,     /* bytes no decoder takes from *valid_end on: not a cut-short unit, leave them */
  BATCH_SCAN_READ_ERROR,  /* errno set */
} BatchScanResult;

/* Reads fd's first `size` bytes from the start and decompresses them (the
 * output is thrown away): where its complete members/frames end.  Only a
 * unit that is fine up to the end of the file and merely incomplete counts
 * as torn; anything a decoder refuses is someone else's and is left alone. */
BatchScanResult batch_compressor_scan(BatchCompression type, gint fd, off_t size, off_t *valid_end);

#endif
