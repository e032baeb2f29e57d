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
#include "se-sink-export.h"
#include "se-journal-encoder.h"
#include "se-export-http.h"
#include "batch-buffer.h"
#include "batch-writer.h"
#include "messages.h"
#include "compat-template.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* a peer that stops reading makes write() fail after this, and we reconnect */
#define SE_EXPORT_SEND_TIMEOUT_SEC 30
/* transport(http): a request not answered within this is resent after reconnecting */
#define SE_EXPORT_RESPONSE_TIMEOUT_SEC 30
/* transport(http): a server that keeps closing fresh connections after reading a
 * whole request without answering (journal-remote does that on an entry it
 * refuses) gets the batch counted as an error from then on: retries(), then dropped */
#define SE_EXPORT_MAX_UNANSWERED 3

typedef struct _SeSinkExport
{
  SeSink super;
  SeSinkExportOptions options;
  gchar *host;
  BatchBuffer buffer;
  SeJournalEncoder encoder;
  GString *next_path;
  GString *cur_path;
  gint fd;
  guint requests_on_fd;       /* transport(http): answered requests on this connection */
  guint unanswered;           /* transport(http): see SE_EXPORT_MAX_UNANSWERED */
  SeHttpResponse response;
} SeSinkExport;

static gboolean
_is_file(SeSinkExport *self)
{
  return self->options.path != NULL;
}

static gboolean
_is_http(SeSinkExport *self)
{
  return !_is_file(self) && self->options.transport == SE_EXPORT_TRANSPORT_HTTP;
}

static const gchar *
_target(SeSinkExport *self)
{
  return _is_file(self) ? self->cur_path->str : self->host;
}

static void
_close_fd(SeSinkExport *self)
{
  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
  self->requests_on_fd = 0;
  g_string_truncate(self->cur_path, 0);
}

static gboolean
_connect_tcp(SeSinkExport *self)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  gchar port[16];
  gint rc;

  g_snprintf(port, sizeof(port), "%d", self->options.port);
  rc = getaddrinfo(self->host, port, &hints, &res);
  if (rc != 0)
    {
      msg_error("structured-event(): cannot resolve host()", evt_tag_str("host", self->host),
                evt_tag_str("error", gai_strerror(rc)));
      return FALSE;
    }
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
    {
      struct timeval tv = { .tv_sec = SE_EXPORT_SEND_TIMEOUT_SEC };
      struct timeval rtv = { .tv_sec = SE_EXPORT_RESPONSE_TIMEOUT_SEC };
      gint fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

      if (fd < 0)
        continue;
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rtv, sizeof(rtv));
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        {
          self->fd = fd;
          break;
        }
      rc = errno;
      close(fd);
      errno = rc;
    }
  freeaddrinfo(res);
  if (self->fd < 0)
    {
      msg_error("structured-event(): cannot connect to host(), will retry after time-reopen()",
                evt_tag_str("host", self->host), evt_tag_int("port", self->options.port), evt_tag_error("error"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
_open(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* files are opened when the first event tells which one */
  if (_is_file(self) || self->fd >= 0)
    return TRUE;
  return _connect_tcp(self);
}

static void
_close(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* whatever is still buffered was not acknowledged: the worker resends it */
  batch_buffer_reset(&self->buffer);
  _close_fd(self);
}

static SeSinkResult
_write_batch(SeSinkExport *self, guint *delivered)
{
  BatchWriteResult res;
  guint records = batch_buffer_records(&self->buffer);
  guint complete;
  gsize partial;

  if (records == 0)
    return SE_SINK_OK;

  if (batch_writer_write(self->fd, batch_buffer_data(&self->buffer)->str, batch_buffer_len(&self->buffer), &res))
    {
      *delivered += records;
      self->super.written_bytes += batch_buffer_len(&self->buffer);
      batch_buffer_reset(&self->buffer);
      return SE_SINK_OK;
    }

  complete = batch_buffer_records_in_prefix(&self->buffer, res.written);
  partial = res.written - batch_buffer_whole_records_end(&self->buffer, res.written);
  *delivered += complete;
  self->super.written_bytes += res.written - partial;
  if (partial && _is_file(self))
    {
      /* keep the file a valid export stream: cut the partial entry off */
      off_t end = lseek(self->fd, 0, SEEK_END);
      if (end < 0 || ftruncate(self->fd, end - partial) < 0)
        msg_error("structured-event(): cannot remove a partly written entry", evt_tag_str("path", _target(self)),
                  evt_tag_error("error"));
    }
  errno = res.error;
  msg_error("structured-event(): write failed, will retry after time-reopen()",
            evt_tag_str("target", _target(self)), evt_tag_error("error"),
            evt_tag_int("written_entries", complete), evt_tag_int("unwritten_entries", records - complete));
  batch_buffer_reset(&self->buffer);
  _close_fd(self);
  return SE_SINK_NOT_CONNECTED;
}

/* transport(http) ---------------------------------------------------- */

typedef enum
{
  HTTP_ANSWERED,
  HTTP_SEND_FAILED,            /* the request did not go out whole */
  HTTP_CLOSED,                 /* sent whole; the peer closed or reset without an answer */
  HTTP_TIMED_OUT,
  HTTP_GARBLED,                /* an answer that is not HTTP/1.x */
} HttpExchange;

/* between requests a server sends nothing: anything readable is its close */
static gboolean
_peer_closed(gint fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };

  return poll(&pfd, 1, 0) != 0;
}

static gboolean
_send_all(gint fd, struct iovec *iov, gint iovcnt)
{
  while (iovcnt > 0)
    {
      struct msghdr mh = { .msg_iov = iov, .msg_iovlen = iovcnt };
      gssize n = sendmsg(fd, &mh, MSG_NOSIGNAL);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      while (iovcnt > 0 && (gsize) n >= iov->iov_len)
        {
          n -= iov->iov_len;
          iov++;
          iovcnt--;
        }
      if (iovcnt > 0)
        {
          iov->iov_base = (guint8 *) iov->iov_base + n;
          iov->iov_len -= n;
        }
    }
  return TRUE;
}

static HttpExchange
_read_response(SeSinkExport *self)
{
  SeHttpResponse *response = &self->response;

  se_http_response_reset(response);
  for (;;)
    {
      gsize avail;
      gchar *space = se_http_response_space(response, &avail);
      gssize n = recv(self->fd, space, avail, 0);
      SeHttpParseResult r;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return HTTP_TIMED_OUT;
      if (n < 0)
        return response->len ? HTTP_GARBLED : HTTP_CLOSED;

      r = n ? se_http_response_feed(response, n) : se_http_response_eof(response);
      if (r == SE_HTTP_PARSE_DONE)
        return HTTP_ANSWERED;
      if (r == SE_HTTP_PARSE_INVALID)
        {
          errno = n == 0 ? 0 : EPROTO;
          return n == 0 && response->len == 0 ? HTTP_CLOSED : HTTP_GARBLED;
        }
    }
}

/* one request with the whole batch, and its answer */
static HttpExchange
_exchange(SeSinkExport *self)
{
  gchar head[SE_HTTP_REQUEST_HEADER_MAX];
  struct iovec iov[2];

  iov[0].iov_base = head;
  iov[0].iov_len = se_http_format_request(head, sizeof(head), self->host, self->options.port,
                                          batch_buffer_len(&self->buffer));
  iov[1].iov_base = batch_buffer_data(&self->buffer)->str;
  iov[1].iov_len = batch_buffer_len(&self->buffer);
  g_assert(iov[0].iov_len > 0);

  if (!_send_all(self->fd, iov, 2))
    {
      /* a server refusing the request early answers and closes: read that answer */
      gint error = errno;
      if ((error == EPIPE || error == ECONNRESET) && _read_response(self) == HTTP_ANSWERED)
        return HTTP_ANSWERED;
      errno = error;
      return HTTP_SEND_FAILED;
    }
  return _read_response(self);
}

static void
_log_rejected(SeSinkExport *self, guint records)
{
  gsize body_len;
  const gchar *body = se_http_response_body(&self->response, &body_len);

  /* the body is the server's reason: journal-remote answers one line of text */
  while (body_len && (body[body_len - 1] == '\n' || body[body_len - 1] == '\r'))
    body_len--;
  msg_error("structured-event(): the server refused the batch, will retry after time-reopen() "
            "and drop it after retries()",
            evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
            evt_tag_int("status", self->response.status),
            evt_tag_printf("body", "%.*s", (gint) MIN(body_len, 256), body),
            evt_tag_int("entries", records));
}

static SeSinkResult
_post_batch(SeSinkExport *self, guint *delivered)
{
  guint records = batch_buffer_records(&self->buffer);
  SeSinkResult result = SE_SINK_NOT_CONNECTED;
  HttpExchange x = HTTP_CLOSED;
  gboolean reused = FALSE;
  gint error = 0;

  if (records == 0)
    return SE_SINK_OK;

  /* a kept-alive connection the server closed meanwhile is replaced at once:
   * no reason to wait for time-reopen() */
  for (gint attempt = 0; attempt < 2; attempt++)
    {
      if (self->fd >= 0 && _peer_closed(self->fd))
        _close_fd(self);
      if (self->fd < 0 && !_connect_tcp(self))
        {
          batch_buffer_reset(&self->buffer);
          return SE_SINK_NOT_CONNECTED;
        }
      reused = self->requests_on_fd > 0;
      x = _exchange(self);
      if (x == HTTP_ANSWERED)
        break;
      error = errno;
      _close_fd(self);
      if (!reused || (x != HTTP_CLOSED && x != HTTP_SEND_FAILED))
        break;
      msg_warning("structured-event(): the kept-alive connection was lost before the answer, "
                  "sending the batch again on a new one",
                  evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
                  evt_tag_str("error", error ? g_strerror(error) : "closed by the peer"),
                  evt_tag_int("entries", records));
    }

  if (x == HTTP_ANSWERED)
    {
      self->unanswered = 0;
      self->requests_on_fd++;
      if (se_http_response_is_success(&self->response))
        {
          *delivered += records;
          self->super.written_bytes += batch_buffer_len(&self->buffer);
          result = SE_SINK_OK;
        }
      else
        {
          _log_rejected(self, records);
          result = SE_SINK_ERROR;
        }
      if (self->response.must_close)
        _close_fd(self);
    }
  else
    {
      if (x == HTTP_CLOSED && !reused)
        self->unanswered++;
      result = self->unanswered >= SE_EXPORT_MAX_UNANSWERED ? SE_SINK_ERROR : SE_SINK_NOT_CONNECTED;
      msg_error(result == SE_SINK_ERROR
                ? "structured-event(): no answer to the batch, again on a new connection: counted as an error, "
                "retried up to retries(), then dropped"
                : "structured-event(): no answer to the batch, it is sent again after reconnecting",
                evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
                evt_tag_str("reason", x == HTTP_TIMED_OUT ? "timeout" : x == HTTP_GARBLED ? "not an HTTP answer"
                            : x == HTTP_SEND_FAILED ? "send failed" : "connection closed"),
                evt_tag_str("error", error ? g_strerror(error) : "closed by the peer"),
                evt_tag_int("entries", records),
                evt_tag_int("closed_without_answer", self->unanswered));
    }
  batch_buffer_reset(&self->buffer);
  return result;
}

static SeSinkResult
_switch_file(SeSinkExport *self, guint *delivered)
{
  AppendOpenedFile opened;
  AppendOpenResult r;
  SeSinkResult result;
  gint error = 0;

  /* one batch goes to one file */
  result = _write_batch(self, delivered);
  if (result != SE_SINK_OK)
    return result;
  _close_fd(self);

  r = append_opener_open(&self->options.opener, self->next_path->str, &opened, &error);
  if (r == APPEND_OPEN_SUCCESS)
    {
      self->fd = opened.fd;
      g_string_assign(self->cur_path, self->next_path->str);
      return SE_SINK_OK;
    }
  errno = error;
  msg_error("structured-event(): cannot open path()", evt_tag_str("path", self->next_path->str),
            evt_tag_str("reason", append_open_result_name(r)), evt_tag_error("error"));
  return r == APPEND_OPEN_ERROR ? SE_SINK_NOT_CONNECTED : SE_SINK_DROP;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event, guint *delivered)
{
  SeSinkExport *self = (SeSinkExport *) s;
  gchar realtime[32];
  SeField extra[3];
  const gchar *boot_id = se_journal_boot_id();
  guint n_extra = 0;
  GString *data;

  if (_is_file(self))
    {
      LogTemplateEvalOptions eval = { self->options.template_options, LTZ_LOCAL, 0, NULL, LM_VT_STRING };

      log_template_format(self->options.path, event->msg, &eval, self->next_path);
      if (self->fd < 0 || strcmp(self->next_path->str, self->cur_path->str) != 0)
        {
          SeSinkResult result = _switch_file(self, delivered);
          if (result != SE_SINK_OK)
            return result;
        }
    }
  else if (self->fd < 0 && !_is_http(self))
    return SE_SINK_NOT_CONNECTED;

  extra[n_extra++] = (SeField)
  {
    .name = "__REALTIME_TIMESTAMP", .name_len = 20, .value = realtime,
    .value_len = g_snprintf(realtime, sizeof(realtime), "%" G_GINT64_FORMAT,
                            (gint64) event->stamp->ut_sec * G_USEC_PER_SEC + event->stamp->ut_usec),
  };
  if (event->host_len)
    extra[n_extra++] = (SeField)
    {
      .name = "_HOSTNAME", .name_len = 9, .value = event->host, .value_len = event->host_len,
    };
  /* systemd-journal-remote 257 refuses an entry without it ("Entry is invalid") */
  if (boot_id)
    extra[n_extra++] = (SeField)
    {
      .name = "_BOOT_ID", .name_len = 8, .value = boot_id, .value_len = 32,
    };

  se_journal_encode(&self->encoder, extra, n_extra, event, TRUE);
  data = batch_buffer_data(&self->buffer);
  for (guint i = 0; i < self->encoder.n_iov; i++)
    g_string_append_len(data, self->encoder.iov[i].iov_base, self->encoder.iov[i].iov_len);
  batch_buffer_end_record(&self->buffer);

  if (batch_buffer_is_full(&self->buffer))
    return _is_http(self) ? _post_batch(self, delivered) : _write_batch(self, delivered);
  return SE_SINK_OK;
}

static SeSinkResult
_flush(SeSink *s, guint *delivered)
{
  SeSinkExport *self = (SeSinkExport *) s;

  if (_is_http(self))
    return _post_batch(self, delivered);
  if (self->fd < 0)
    {
      guint records = batch_buffer_records(&self->buffer);
      batch_buffer_reset(&self->buffer);
      return records ? SE_SINK_NOT_CONNECTED : SE_SINK_OK;
    }
  return _write_batch(self, delivered);
}

static guint
_pending(SeSink *s)
{
  return batch_buffer_records(&((SeSinkExport *) s)->buffer);
}

static void
_free(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  _close_fd(self);
  batch_buffer_destroy(&self->buffer);
  se_journal_encoder_destroy(&self->encoder);
  g_string_free(self->next_path, TRUE);
  g_string_free(self->cur_path, TRUE);
  log_template_unref(self->options.path);
  g_free(self->host);
  g_free(self);
}

SeSink *
se_sink_export_new(const SeSinkExportOptions *options)
{
  SeSinkExport *self = g_new0(SeSinkExport, 1);

  self->super.name = "journal-export";
  self->super.open = _open;
  self->super.close = _close;
  self->super.emit = _emit;
  self->super.flush = _flush;
  self->super.pending = _pending;
  self->super.free_fn = _free;
  self->options = *options;
  self->options.path = log_template_ref(options->path);
  self->host = g_strdup(options->host);
  self->options.host = self->host;
  self->fd = -1;
  self->next_path = g_string_sized_new(256);
  self->cur_path = g_string_sized_new(256);
  batch_buffer_init(&self->buffer, MAX(options->batch_records, 1), 0);
  se_journal_encoder_init(&self->encoder);
  return &self->super;
}

static gboolean
_check_options(StructuredEventDriver *owner, GError **error)
{
  if (owner->socket || owner->namespace_)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "%s cannot be used with sink(journal-export), "
                  "it is an option of sink(journald)", owner->socket ? "socket()" : "namespace()");
      return FALSE;
    }
  if (owner->path && owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "sink(journal-export) takes either path() or host(), not both");
      return FALSE;
    }
  if (!owner->path && !owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "sink(journal-export) needs path() (a file) or host() (TCP)");
      return FALSE;
    }
  if (owner->port && !owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "port() needs host() with sink(journal-export)");
      return FALSE;
    }
  if (owner->transport && !owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "transport() needs host() with sink(journal-export); "
                  "path() writes a file");
      return FALSE;
    }
  return TRUE;
}

static void
_format_instance(StructuredEventDriver *owner, gchar *buf, gsize size)
{
  if (owner->path)
    g_snprintf(buf, size, "structured-event,journal-export,%s", fd_template_str(owner->path));
  else
    g_snprintf(buf, size, "structured-event,journal-export,%s:%d", owner->host,
               owner->port ? owner->port : SE_DEFAULT_EXPORT_PORT);
}

static SeSink *
_construct(StructuredEventDriver *owner, gint worker_index)
{
  SeSinkExportOptions options = { 0 };

  options.path = owner->path;
  options.host = owner->host;
  options.port = owner->port ? owner->port : SE_DEFAULT_EXPORT_PORT;
  options.transport = owner->transport ? owner->transport : SE_DEFAULT_EXPORT_TRANSPORT;
  options.template_options = &owner->template_options;
  options.batch_records = owner->super.batch_lines > 0 ? owner->super.batch_lines : 1;
  options.opener = owner->opener_options;
  return se_sink_export_new(&options);
}

const SeSinkClass se_sink_export_class =
{
  .name = "journal-export",
  .check_options = _check_options,
  .format_instance = _format_instance,
  .construct = _construct,
};
