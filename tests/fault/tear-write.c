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
 * LD_PRELOAD for the fault table: a process killed in the middle of a write.
 *
 * A kill -9 from outside lands between two writes nearly every time (a write
 * of one batch takes microseconds), so the case the destination must survive,
 * part of a unit on disk and the process gone, is never hit that way.  With
 * this library, once the file FASTDEST_TEAR_ARMED exists, the next write() or
 * writev() to FASTDEST_TEAR_PATH puts only the first half of its bytes in the
 * file, then the process is killed with SIGKILL before the call returns: what
 * the kernel leaves when a fatal signal arrives part way through a large
 * write.  Without FASTDEST_TEAR_PATH every call passes straight through.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static int
_is_torn_here(int fd)
{
  const char *path = getenv("FASTDEST_TEAR_PATH");
  const char *armed = getenv("FASTDEST_TEAR_ARMED");
  char link[64], target[4096];

  if (!path || !armed)
    return 0;
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof(target) - 1);
  if (n <= 0)
    return 0;
  target[n] = '\0';
  return strcmp(target, path) == 0 && access(armed, F_OK) == 0;
}

/* about half of the bytes, then the process dies without returning */
static void
_tear(int fd, const struct iovec *iov, int iovcnt)
{
  size_t total = 0;

  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;

  /* one byte past the half: a batch of an even number of equal records
   * would otherwise be cut exactly between two of them */
  size_t left = total / 2 + (total > 2);
  for (int i = 0; i < iovcnt && left > 0; i++)
    {
      size_t len = iov[i].iov_len < left ? iov[i].iov_len : left;
      if (syscall(SYS_write, fd, iov[i].iov_base, len) != (long) len)
        break;
      left -= len;
    }
  kill(getpid(), SIGKILL);
  for (;;)
    pause();
}

ssize_t
write(int fd, const void *buf, size_t count)
{
  if (count > 1 && _is_torn_here(fd))
    {
      struct iovec iov = { .iov_base = (void *) buf, .iov_len = count };
      _tear(fd, &iov, 1);
    }
  return syscall(SYS_write, fd, buf, count);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
  if (_is_torn_here(fd))
    _tear(fd, iov, iovcnt);
  return syscall(SYS_writev, fd, iov, iovcnt);
}
