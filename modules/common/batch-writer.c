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
#include "batch-writer.h"

#include <unistd.h>
#include <errno.h>
#include <limits.h>

gboolean
batch_writer_write(gint fd, const void *data, gsize len, BatchWriteResult *result)
{
  const guint8 *p = data;

  result->written = 0;
  result->error = 0;
  result->syscalls = 0;

  while (result->written < len)
    {
      gsize chunk = MIN(len - result->written, (gsize) SSIZE_MAX);
      gssize rc = write(fd, p + result->written, chunk);

      result->syscalls++;
      if (rc > 0)
        {
          result->written += rc;
          continue;
        }
      if (rc < 0 && errno == EINTR)
        continue;

      /* write() returning 0 for a non-empty buffer would otherwise spin */
      result->error = rc < 0 ? errno : EIO;
      return FALSE;
    }
  return TRUE;
}

gboolean
batch_writer_sync(gint fd)
{
  return fdatasync(fd) == 0;
}
