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
#include "se-export-tcp.h"
#include "batch-writer.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct _SeExportTcp
{
  SeExportTransport super;
  gchar *host;
  gint port;
  gchar *target;              /* host:port */
  gint fd;
} SeExportTcp;

/* poll() for events on fd until deadline; FALSE with errno set (ETIMEDOUT once the deadline passed) */
static gboolean
_wait(gint fd, gshort events, gint64 deadline)
{
  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time();
      struct pollfd pfd = { .fd = fd, .events = events };
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

static gboolean
_connect_by_deadline(gint fd, const struct sockaddr *addr, socklen_t addr_len, gint64 deadline)
{
  gint error = 0;
  socklen_t len = sizeof(error);

  if (connect(fd, addr, addr_len) == 0)
    return TRUE;
  if (errno != EINPROGRESS || !_wait(fd, POLLOUT, deadline))
    return FALSE;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0)
    return FALSE;
  errno = error;
  return error == 0;
}

/* a connected non-blocking TCP socket to host:port by deadline, or -1 with the reason */
static gint
_connect(const gchar *host, gint port, gint64 deadline, gchar *reason, gsize reason_size)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  gchar port_str[16];
  gint rc, fd = -1, error = 0;

  g_snprintf(port_str, sizeof(port_str), "%d", port);
  rc = getaddrinfo(host, port_str, &hints, &res);
  if (rc != 0)
    {
      g_snprintf(reason, reason_size, "cannot resolve host(): %s", gai_strerror(rc));
      return -1;
    }
  for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
    {
      fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
      if (fd < 0)
        {
          error = errno;
          continue;
        }
      if (!_connect_by_deadline(fd, ai->ai_addr, ai->ai_addrlen, deadline))
        {
          error = errno;
          close(fd);
          fd = -1;
        }
    }
  freeaddrinfo(res);
  if (fd < 0)
    g_snprintf(reason, reason_size, "cannot connect: %s", g_strerror(error));
  return fd;
}

static void
_close(SeExportTransport *s)
{
  SeExportTcp *self = (SeExportTcp *) s;

  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
}

static void
_open(SeExportTransport *s, gint64 deadline, SeExportResult *result)
{
  SeExportTcp *self = (SeExportTcp *) s;

  _close(s);
  self->fd = _connect(self->host, self->port, deadline, result->reason, sizeof(result->reason));
  result->status = self->fd >= 0 ? SE_EXPORT_OK : SE_EXPORT_DOWN;
}

static gboolean
_is_open(SeExportTransport *s)
{
  return ((SeExportTcp *) s)->fd >= 0;
}

static void
_send(SeExportTransport *s, const gchar *data, gsize len, gint64 deadline, SeExportResult *result)
{
  SeExportTcp *self = (SeExportTcp *) s;
  struct iovec iov = { .iov_base = (gchar *) data, .iov_len = len };
  BatchWriteResult res;

  if (batch_writer_send(self->fd, &iov, 1, deadline, &res))
    {
      se_export_result_set(result, SE_EXPORT_OK, NULL);
      return;
    }
  se_export_result_set(result, SE_EXPORT_DOWN, res.error == ETIMEDOUT ? "timeout() reached" : g_strerror(res.error));
  result->written = res.written;
}

static const gchar *
_target(SeExportTransport *s)
{
  return ((SeExportTcp *) s)->target;
}

static void
_free(SeExportTransport *s)
{
  SeExportTcp *self = (SeExportTcp *) s;

  _close(s);
  g_free(self->host);
  g_free(self->target);
  g_free(self);
}

SeExportTransport *
se_export_tcp_new(const gchar *host, gint port)
{
  SeExportTcp *self = g_new0(SeExportTcp, 1);

  self->super.open = _open;
  self->super.is_open = _is_open;
  self->super.close = _close;
  self->super.send = _send;
  self->super.target = _target;
  self->super.free_fn = _free;
  self->host = g_strdup(host);
  self->port = port;
  self->target = g_strdup_printf(strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
  self->fd = -1;
  return &self->super;
}
