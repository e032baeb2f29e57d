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

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

struct _BatchCompressor
{
  BatchCompression type;
  z_stream deflate;
  gboolean deflate_ready;
  ZSTD_CCtx *zstd;
  guint8 *buf;
  gsize buf_size;
};

#define GZIP_WINDOW_BITS (MAX_WBITS + 16)   /* deflate with a gzip header and trailer */
#define SCAN_CHUNK (64 * 1024)

gboolean
batch_compression_parse(const gchar *name, BatchCompression *type)
{
  if (g_ascii_strcasecmp(name, "gzip") == 0)
    *type = BATCH_COMPRESSION_GZIP;
  else if (g_ascii_strcasecmp(name, "zstd") == 0)
    *type = BATCH_COMPRESSION_ZSTD;
  else if (g_ascii_strcasecmp(name, "none") == 0)
    *type = BATCH_COMPRESSION_NONE;
  else
    return FALSE;
  return TRUE;
}

const gchar *
batch_compression_name(BatchCompression type)
{
  switch (type)
    {
    case BATCH_COMPRESSION_GZIP:
      return "gzip";
    case BATCH_COMPRESSION_ZSTD:
      return "zstd";
    default:
      return "none";
    }
}

gboolean
batch_compression_level_valid(BatchCompression type, gint level, gint *min, gint *max)
{
  switch (type)
    {
    case BATCH_COMPRESSION_GZIP:
      *min = Z_NO_COMPRESSION;
      *max = Z_BEST_COMPRESSION;
      break;
    case BATCH_COMPRESSION_ZSTD:
      *min = ZSTD_minCLevel();
      *max = ZSTD_maxCLevel();
      break;
    default:
      *min = *max = 0;
      return level == BATCH_COMPRESSION_LEVEL_DEFAULT;
    }
  return level == BATCH_COMPRESSION_LEVEL_DEFAULT || (level >= *min && level <= *max);
}

BatchCompressor *
batch_compressor_new(BatchCompression type, gint level, gchar **error)
{
  BatchCompressor *self = g_new0(BatchCompressor, 1);

  self->type = type;
  if (type == BATCH_COMPRESSION_GZIP)
    {
      gint rc = deflateInit2(&self->deflate, level == BATCH_COMPRESSION_LEVEL_DEFAULT ? Z_DEFAULT_COMPRESSION : level,
                             Z_DEFLATED, GZIP_WINDOW_BITS, 8, Z_DEFAULT_STRATEGY);
      if (rc != Z_OK)
        {
          *error = g_strdup_printf("zlib deflateInit2() failed: %s", zError(rc));
          g_free(self);
          return NULL;
        }
      self->deflate_ready = TRUE;
    }
  else if (type == BATCH_COMPRESSION_ZSTD)
    {
      self->zstd = ZSTD_createCCtx();
      if (!self->zstd)
        {
          *error = g_strdup("ZSTD_createCCtx() failed");
          g_free(self);
          return NULL;
        }
      if (level != BATCH_COMPRESSION_LEVEL_DEFAULT)
        ZSTD_CCtx_setParameter(self->zstd, ZSTD_c_compressionLevel, level);
      /* a frame damaged in place is told from a good one by zstdcat too */
      ZSTD_CCtx_setParameter(self->zstd, ZSTD_c_checksumFlag, 1);
    }
  return self;
}

void
batch_compressor_free(BatchCompressor *self)
{
  if (!self)
    return;
  if (self->deflate_ready)
    deflateEnd(&self->deflate);
  ZSTD_freeCCtx(self->zstd);
  g_free(self->buf);
  g_free(self);
}

static void
_reserve(BatchCompressor *self, gsize bound)
{
  if (self->buf_size >= bound)
    return;
  g_free(self->buf);
  self->buf_size = MAX(bound, self->buf_size * 2);
  self->buf = g_malloc(self->buf_size);
}

static gboolean
_gzip(BatchCompressor *self, const void *data, gsize len, gsize *out_len, const gchar **error_text)
{
  z_stream *z = &self->deflate;

  /* zlib counts in uInt: a batch is far below 4 GiB, but say so rather than wrap */
  if (len > G_MAXUINT32 / 2)
    {
      *error_text = "batch too large for one gzip member";
      return FALSE;
    }
  _reserve(self, deflateBound(z, len));
  z->next_in = (Bytef *) data;
  z->avail_in = len;
  z->next_out = self->buf;
  z->avail_out = self->buf_size > G_MAXUINT32 ? G_MAXUINT32 : self->buf_size;
  gint rc = deflate(z, Z_FINISH);
  *out_len = (guint8 *) z->next_out - self->buf;
  deflateReset(z);
  if (rc != Z_STREAM_END)
    {
      *error_text = zError(rc);
      return FALSE;
    }
  return TRUE;
}

static gboolean
_zstd(BatchCompressor *self, const void *data, gsize len, gsize *out_len, const gchar **error_text)
{
  _reserve(self, ZSTD_compressBound(len));
  /* ZSTD_compress2() starts a new frame with the parameters set once */
  size_t rc = ZSTD_compress2(self->zstd, self->buf, self->buf_size, data, len);
  if (ZSTD_isError(rc))
    {
      *error_text = ZSTD_getErrorName(rc);
      ZSTD_CCtx_reset(self->zstd, ZSTD_reset_session_only);
      return FALSE;
    }
  *out_len = rc;
  return TRUE;
}

gboolean
batch_compressor_compress(BatchCompressor *self, const void *data, gsize len,
                          const guint8 **out, gsize *out_len, const gchar **error_text)
{
  gboolean ok;

  if (self->type == BATCH_COMPRESSION_GZIP)
    ok = _gzip(self, data, len, out_len, error_text);
  else if (self->type == BATCH_COMPRESSION_ZSTD)
    ok = _zstd(self, data, len, out_len, error_text);
  else
    {
      *out = data;
      *out_len = len;
      return TRUE;
    }
  *out = self->buf;
  return ok;
}

/* pread() of up to len bytes at offset; 0 at the end */
static gssize
_read_at(gint fd, guint8 *buf, gsize len, off_t offset)
{
  gssize n;

  do
    n = pread(fd, buf, len, offset);
  while (n < 0 && errno == EINTR);
  return n;
}

static BatchScanResult
_scan_gzip(gint fd, off_t size, off_t *valid_end, guint8 *in, guint8 *out)
{
  z_stream z;
  BatchScanResult result = BATCH_SCAN_WHOLE;
  off_t pos = 0;

  memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, GZIP_WINDOW_BITS) != Z_OK)
    {
      errno = ENOMEM;
      return BATCH_SCAN_READ_ERROR;
    }
  *valid_end = 0;
  while (pos < size && result == BATCH_SCAN_WHOLE)
    {
      gssize n = _read_at(fd, in, MIN((off_t) SCAN_CHUNK, size - pos), pos);
      if (n <= 0)
        {
          result = n < 0 ? BATCH_SCAN_READ_ERROR : BATCH_SCAN_WHOLE;
          size = pos;
          break;
        }
      z.next_in = in;
      z.avail_in = n;
      while (z.avail_in > 0)
        {
          z.next_out = out;
          z.avail_out = SCAN_CHUNK;
          gint rc = inflate(&z, Z_NO_FLUSH);
          if (rc == Z_STREAM_END)
            {
              *valid_end = pos + (n - z.avail_in);
              inflateReset(&z);
              continue;
            }
          if (rc != Z_OK && rc != Z_BUF_ERROR)
            {
              result = BATCH_SCAN_FOREIGN;
              break;
            }
          if (rc == Z_BUF_ERROR && z.avail_out == SCAN_CHUNK)
            break;
        }
      pos += n;
    }
  inflateEnd(&z);
  if (result == BATCH_SCAN_WHOLE && *valid_end < size)
    result = BATCH_SCAN_TORN;
  return result;
}

static BatchScanResult
_scan_zstd(gint fd, off_t size, off_t *valid_end, guint8 *in, guint8 *out)
{
  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  BatchScanResult result = BATCH_SCAN_WHOLE;
  off_t pos = 0;

  if (!dctx)
    {
      errno = ENOMEM;
      return BATCH_SCAN_READ_ERROR;
    }
  *valid_end = 0;
  while (pos < size && result == BATCH_SCAN_WHOLE)
    {
      gssize n = _read_at(fd, in, MIN((off_t) SCAN_CHUNK, size - pos), pos);
      if (n <= 0)
        {
          result = n < 0 ? BATCH_SCAN_READ_ERROR : BATCH_SCAN_WHOLE;
          size = pos;
          break;
        }
      ZSTD_inBuffer input = { in, n, 0 };
      gboolean out_full = FALSE;
      while (input.pos < input.size || out_full)
        {
          ZSTD_outBuffer output = { out, SCAN_CHUNK, 0 };
          size_t rc = ZSTD_decompressStream(dctx, &output, &input);
          if (ZSTD_isError(rc))
            {
              result = BATCH_SCAN_FOREIGN;
              break;
            }
          out_full = output.pos == output.size;
          /* 0: a frame is decoded and flushed, and the decoder stops at its end */
          if (rc == 0)
            *valid_end = pos + input.pos;
        }
      pos += n;
    }
  ZSTD_freeDCtx(dctx);
  if (result == BATCH_SCAN_WHOLE && *valid_end < size)
    result = BATCH_SCAN_TORN;
  return result;
}

BatchScanResult
batch_compressor_scan(BatchCompression type, gint fd, off_t size, off_t *valid_end)
{
  BatchScanResult result;

  *valid_end = size;
  if (type == BATCH_COMPRESSION_NONE || size == 0)
    return BATCH_SCAN_WHOLE;

  guint8 *in = g_malloc(SCAN_CHUNK);
  guint8 *out = g_malloc(SCAN_CHUNK);
  if (type == BATCH_COMPRESSION_GZIP)
    result = _scan_gzip(fd, size, valid_end, in, out);
  else
    result = _scan_zstd(fd, size, valid_end, in, out);
  g_free(in);
  g_free(out);
  return result;
}
