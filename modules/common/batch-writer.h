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

/*
 * Writes a byte range to an fd completely: EINTR and short writes are
 * retried.  When it stops on an error (ENOSPC, EDQUOT, EIO, EFBIG, EBADF,
 * EAGAIN...) it reports exactly how many bytes reached the fd, so the caller
 * can acknowledge the records that were written and resume with the tail of
 * a partly written record.
 */
typedef struct _BatchWriteResult
{
  gsize written;
  gint error;                  /* 0 when everything was written */
  guint syscalls;              /* write() calls made */
} BatchWriteResult;

/* TRUE when all len bytes were written */
gboolean batch_writer_write(gint fd, const void *data, gsize len, BatchWriteResult *result);
/* fdatasync(); FALSE with errno set on failure */
gboolean batch_writer_sync(gint fd);

#endif
