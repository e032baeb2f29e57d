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
#ifndef FASTDEST_BATCH_WRITER_H_INCLUDED
#define FASTDEST_BATCH_WRITER_H_INCLUDED

#include <glib.h>

#include <sys/uio.h>

/*
 * The one write-everything loop of fastdest: writes bytes to an fd
 * completely, EINTR and short writes retried.  When it stops on an error
 * (ENOSPC, EDQUOT, EIO, EFBIG, EBADF, EPIPE, EAGAIN...) it reports exactly
 * how many bytes reached the fd, so the caller can acknowledge the records
 * that were written and resume with (or cut off) the tail of a partly
 * written record.  Three forms: one buffer (write), a gather list (writev),
 * and a socket (sendmsg with MSG_NOSIGNAL: a closed peer is EPIPE, not
 * SIGPIPE) that may wait for room until a deadline.
 */
typedef struct _BatchWriteResult
{
  gsize written;
  gint error;                  /* 0 when everything was written */
  guint syscalls;              /* write/writev/sendmsg calls made */
} BatchWriteResult;

/* TRUE when all len bytes were written */
gboolean batch_writer_write(gint fd, const void *data, gsize len, BatchWriteResult *result);
/* TRUE when all bytes of iov[0 .. n_iov) were written, in order; iov itself is not changed
 * (any number of iovecs: they go in chunks of at most IOV_MAX) */
gboolean batch_writer_writev(gint fd, const struct iovec *iov, guint n_iov, BatchWriteResult *result);
/*
 * As batch_writer_writev(), on a socket, with sendmsg(MSG_NOSIGNAL).  On a
 * non-blocking socket it waits in poll() for room (EAGAIN) until deadline
 * (g_get_monotonic_time() microseconds), then stops with ETIMEDOUT; with
 * deadline 0 it does not wait and EAGAIN stops it.
 */
gboolean batch_writer_send(gint fd, const struct iovec *iov, guint n_iov, gint64 deadline, BatchWriteResult *result);
/* fdatasync(); FALSE with errno set on failure */
gboolean batch_writer_sync(gint fd);

#endif
