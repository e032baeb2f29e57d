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
#include <poll.h>
#include <sys/socket.h>

/* iovecs passed to one writev()/sendmsg() */
#define BATCH_WRITER_IOV_CHUNK 64

/* waits for room on fd until deadline; FALSE with errno set (ETIMEDOUT once the deadline passed) */
static gboolean
_wait_writable(gint fd, gint64 deadline)
{
  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time();
      struct pollfd pfd = { .fd = fd, .events = POLLOUT };
      gint rc;

      if (left <= 0)
        {
          errno = ETIMEDOUT;
          return FALSE;
        }
      rc = poll(&pfd, 1, (gint) MIN((left + 999) / 1000, G_MAXINT));
      if (rc > 0)
        return TRUE;
      if (rc < 0 && errno != EINTR)
        return FALSE;
    }
}

/*
 * Copies the unwritten part of iov (from iovec *done, offset bytes into it)
 * into chunk, at most BATCH_WRITER_IOV_CHUNK iovecs and SSIZE_MAX bytes
 * (writev() refuses more); returns the number of iovecs.
 */
static guint
_fill_chunk(struct iovec *chunk, const struct iovec *iov, guint n_iov, guint done, gsize offset)
{
  gsize total = 0;
  guint n = 0;

  for (guint i = done; i < n_iov && n < BATCH_WRITER_IOV_CHUNK && total < (gsize) SSIZE_MAX; i++)
    {
      gsize skip = i == done ? offset : 0;
      gsize len = MIN(iov[i].iov_len - skip, (gsize) SSIZE_MAX - total);

      if (len == 0)
        continue;
      chunk[n].iov_base = (guint8 *) iov[i].iov_base + skip;
      chunk[n].iov_len = len;
      total += len;
      n++;
    }
  return n;
}

static gboolean
_write_all(gint fd, const struct iovec *iov, guint n_iov, gboolean socket, gint64 deadline,
           BatchWriteResult *result)
{
  struct iovec chunk[BATCH_WRITER_IOV_CHUNK];
  guint done = 0;              /* iovecs written whole */
  gsize offset = 0;            /* bytes written of iov[done] */

  result->written = 0;
  result->error = 0;
  result->syscalls = 0;

  for (;;)
    {
      guint n = _fill_chunk(chunk, iov, n_iov, done, offset);
      struct msghdr mh = { .msg_iov = chunk, .msg_iovlen = n };
      gssize rc;

      if (n == 0)
        return TRUE;
      rc = socket ? sendmsg(fd, &mh, MSG_NOSIGNAL) : writev(fd, chunk, n);
      result->syscalls++;
      if (rc > 0)
        {
          gsize left = rc;

          result->written += rc;
          while (done < n_iov && left >= iov[done].iov_len - offset)
            {
              left -= iov[done].iov_len - offset;
              offset = 0;
              done++;
            }
          offset += left;
          continue;
        }
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc < 0 && socket && errno == EAGAIN && deadline && _wait_writable(fd, deadline))
        continue;

      /* a write() returning 0 for a non-empty buffer would otherwise spin */
      result->error = rc < 0 ? errno : EIO;
      return FALSE;
    }
}

gboolean
batch_writer_write(gint fd, const void *data, gsize len, BatchWriteResult *result)
{
  struct iovec iov = { .iov_base = (void *) data, .iov_len = len };

  return _write_all(fd, &iov, 1, FALSE, 0, result);
}

gboolean
batch_writer_writev(gint fd, const struct iovec *iov, guint n_iov, BatchWriteResult *result)
{
  return _write_all(fd, iov, n_iov, FALSE, 0, result);
}

gboolean
batch_writer_send(gint fd, const struct iovec *iov, guint n_iov, gint64 deadline, BatchWriteResult *result)
{
  return _write_all(fd, iov, n_iov, TRUE, deadline, result);
}

gboolean
batch_writer_sync(gint fd)
{
  return fdatasync(fd) == 0;
}
