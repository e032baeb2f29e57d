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
/* memfd_create(), file sealing */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "se-sink-journald.h"
#include "se-journal-encoder.h"
#include "batch-writer.h"
#include "messages.h"
#include "stats/stats-counter.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* how long a full socket buffer may block the worker before RETRY */
#define SE_JOURNALD_EAGAIN_WAIT_MS 1000

typedef struct _SeSinkJournald
{
  SeSink super;
  gchar *socket_path;
  gint fd;
  SeJournalEncoder encoder;
  StatsCounterItem **memfd_sends;   /* may be NULL */
} SeSinkJournald;

static gboolean
_open(SeSink *s)
{
  SeSinkJournald *self = (SeSinkJournald *) s;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  if (self->fd >= 0)
    return TRUE;

  if (strlen(self->socket_path) >= sizeof(sa.sun_path))
    {
      msg_error("structured-event(): journald socket path too long", se_sink_dest_tags(&self->super),
                evt_tag_str("socket", self->socket_path));
      return FALSE;
    }
  strcpy(sa.sun_path, self->socket_path);

  self->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (self->fd < 0)
    {
      msg_error("structured-event(): cannot create a unix datagram socket", se_sink_dest_tags(&self->super),
                evt_tag_error("error"));
      return FALSE;
    }
  /* the kernel's default send buffer (net.core.wmem_default) bounds a datagram: larger entries take the memfd path */
  if (connect(self->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
    {
      msg_error("structured-event(): cannot connect to journald, will retry after time-reopen()",
                se_sink_dest_tags(&self->super),
                evt_tag_str("socket", self->socket_path), evt_tag_error("error"));
      close(self->fd);
      self->fd = -1;
      return FALSE;
    }
  msg_debug("structured-event(): connected to journald", evt_tag_str("socket", self->socket_path));
  return TRUE;
}

static void
_close(SeSink *s)
{
  SeSinkJournald *self = (SeSinkJournald *) s;

  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
}

/* the entry does not fit a datagram: pass it in a sealed memfd */
static SeSinkResult
_send_memfd(SeSinkJournald *self)
{
  union
  {
    struct cmsghdr cmsghdr;
    guint8 buf[CMSG_SPACE(sizeof(gint))];
  } control;
  struct msghdr mh = { 0 };
  struct cmsghdr *cmsg;
  BatchWriteResult written;
  SeSinkResult result = SE_SINK_OK;
  gint memfd = memfd_create("fastdest-journal-entry", MFD_ALLOW_SEALING | MFD_CLOEXEC);

  if (memfd < 0)
    {
      msg_error("structured-event(): memfd_create() failed", se_sink_dest_tags(&self->super), evt_tag_error("error"));
      return SE_SINK_ERROR;
    }
  if (!batch_writer_writev(memfd, self->encoder.iov, self->encoder.n_iov, &written) ||
      fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    {
      msg_error("structured-event(): cannot prepare memfd for journald", se_sink_dest_tags(&self->super),
                evt_tag_error("error"));
      close(memfd);
      return SE_SINK_ERROR;
    }

  memset(&control, 0, sizeof(control));
  mh.msg_control = &control;
  mh.msg_controllen = sizeof(control);
  cmsg = CMSG_FIRSTHDR(&mh);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(gint));
  memcpy(CMSG_DATA(cmsg), &memfd, sizeof(gint));

  while (sendmsg(self->fd, &mh, MSG_NOSIGNAL) < 0)
    {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN)
        {
          struct pollfd pfd = { .fd = self->fd, .events = POLLOUT };
          if (poll(&pfd, 1, SE_JOURNALD_EAGAIN_WAIT_MS) > 0)
            continue;
          result = SE_SINK_RETRY;
        }
      else if (errno == ENOENT || errno == ECONNREFUSED || errno == ENOTCONN || errno == ECONNRESET)
        result = SE_SINK_NOT_CONNECTED;
      else
        {
          msg_error("structured-event(): sending memfd to journald failed", se_sink_dest_tags(&self->super),
                    evt_tag_error("error"));
          result = SE_SINK_ERROR;
        }
      break;
    }
  close(memfd);
  if (result == SE_SINK_OK && self->memfd_sends)
    stats_counter_inc(*self->memfd_sends);
  return result;
}

/* the entry is journald's: one event delivered, its bytes written */
static void
_delivered(SeSinkJournald *self)
{
  se_sink_delivered(&self->super, 1);
  self->super.written_bytes += self->encoder.total_len;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event)
{
  SeSinkJournald *self = (SeSinkJournald *) s;
  struct msghdr mh = { 0 };

  se_journal_encode(&self->encoder, NULL, 0, event, FALSE);
  if (self->encoder.n_iov > IOV_MAX)
    {
      /* more iovecs than one sendmsg() takes: the memfd is written in chunks (batch_writer_writev) */
      SeSinkResult result = _send_memfd(self);
      if (result == SE_SINK_OK)
        _delivered(self);
      return result;
    }

  mh.msg_iov = self->encoder.iov;
  mh.msg_iovlen = self->encoder.n_iov;

  while (sendmsg(self->fd, &mh, MSG_NOSIGNAL) < 0)
    {
      SeSinkResult result;

      switch (errno)
        {
        case EINTR:
          continue;
        case EAGAIN:
        {
          /* journald is behind: wait a little for room, then let the worker retry */
          struct pollfd pfd = { .fd = self->fd, .events = POLLOUT };
          if (poll(&pfd, 1, SE_JOURNALD_EAGAIN_WAIT_MS) > 0)
            continue;
          return SE_SINK_RETRY;
        }
        case EMSGSIZE:
        case ENOBUFS:
          result = _send_memfd(self);
          if (result == SE_SINK_OK)
            _delivered(self);
          return result;
        case ENOENT:
        case ECONNREFUSED:
        case ENOTCONN:
        case ECONNRESET:
          msg_error("structured-event(): journald is not accepting messages, will retry after time-reopen()",
                    se_sink_dest_tags(&self->super),
                    evt_tag_str("socket", self->socket_path), evt_tag_error("error"));
          return SE_SINK_NOT_CONNECTED;
        default:
          msg_error("structured-event(): sending to journald failed", se_sink_dest_tags(&self->super),
                    evt_tag_str("socket", self->socket_path), evt_tag_error("error"));
          return SE_SINK_ERROR;
        }
    }
  _delivered(self);
  return SE_SINK_OK;
}

static void
_free(SeSink *s)
{
  SeSinkJournald *self = (SeSinkJournald *) s;

  _close(s);
  se_journal_encoder_destroy(&self->encoder);
  g_free(self->socket_path);
  g_free(self);
}

SeSink *
se_sink_journald_new(const SeSinkJournaldOptions *options)
{
  SeSinkJournald *self = g_new0(SeSinkJournald, 1);
  gchar path[256];

  self->super.name = "journald";
  self->super.open = _open;
  self->super.close = _close;
  self->super.emit = _emit;
  self->super.free_fn = _free;
  self->socket_path = g_strdup(se_sink_journald_socket(options, path, sizeof(path)));
  self->fd = -1;
  self->memfd_sends = options->memfd_sends;
  se_journal_encoder_init(&self->encoder);
  return &self->super;
}

void
se_sink_journald_options_destroy(SeSinkJournaldOptions *self)
{
  g_free(self->socket);
  g_free(self->namespace_);
  self->socket = self->namespace_ = NULL;
}

gboolean
se_sink_journald_namespace_is_valid(const gchar *name)
{
  gsize len = strlen(name);

  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum(name[i]) && !strchr("_.-", name[i]))
      return FALSE;
  return TRUE;
}

gboolean
se_sink_journald_check_options(const SeSinkJournaldOptions *self, GError **error)
{
  if (self->socket && self->namespace_)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "socket() and namespace() are mutually exclusive");
      return FALSE;
    }
  return TRUE;
}

const gchar *
se_sink_journald_socket(const SeSinkJournaldOptions *self, gchar *buf, gsize size)
{
  if (self->namespace_)
    {
      g_snprintf(buf, size, "/run/systemd/journal.%s/socket", self->namespace_);
      return buf;
    }
  return self->socket ? self->socket : SE_JOURNALD_DEFAULT_SOCKET;
}

void
se_sink_journald_format_instance(const SeSinkJournaldOptions *self, gchar *buf, gsize size)
{
  gchar path[256];

  g_snprintf(buf, size, "structured-event,journald,%s", se_sink_journald_socket(self, path, sizeof(path)));
}
