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

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* a batch is written (or posted) once it holds this much, before batch-lines() */
#define SE_EXPORT_BATCH_BYTES (1024 * 1024)

typedef struct _SeSinkExport
{
  SeSink super;
  SeSinkExportOptions options;
  gchar *host;
  BatchBuffer buffer;
  gsize buffer_capacity;      /* as made: more means an outlier grew it */
  SeJournalEncoder encoder;
  GString *next_path;
  GString *cur_path;
  gint fd;
  guint requests_on_fd;       /* transport(http): answered requests on this connection */
  gint64 deadline;            /* transport(http): monotonic usec by which the batch is answered */
  gchar refusal[300];         /* transport(http): the answer to a refused request, for the log */
  SeHttpResponse response;
} SeSinkExport;

/*
 * The batch buffer holds at most SE_EXPORT_BATCH_BYTES (a batch goes out
 * earlier when the next entry would not fit) plus one entry.  An entry
 * larger than that grows it; once its batch went out the buffer is made
 * anew, so an outlier neither keeps its memory nor skews the average
 * entry size the buffer sizes itself by.
 */
static void
_init_buffer(SeSinkExport *self)
{
  batch_buffer_init(&self->buffer, MAX(self->options.batch_records, 1), SE_EXPORT_BATCH_BYTES);
  self->buffer_capacity = batch_buffer_capacity(&self->buffer);
}

static void
_reset_buffer(SeSinkExport *self)
{
  if (batch_buffer_capacity(&self->buffer) <= self->buffer_capacity)
    {
      batch_buffer_reset(&self->buffer);
      return;
    }
  batch_buffer_destroy(&self->buffer);
  _init_buffer(self);
}

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

/*
 * transport(http): the time one batch may take, connecting, sending and
 * reading the answer, is timeout() from its start: a peer that answers a
 * byte at a time (or never) costs at most that, and a stop or a reload
 * waits at most that.  The socket is non-blocking; every wait is a poll()
 * for what is left of the time.
 */
static void
_start_deadline(SeSinkExport *self)
{
  self->deadline = g_get_monotonic_time() + (gint64) self->options.timeout * G_USEC_PER_SEC;
}

/* FALSE with errno ETIMEDOUT once the deadline passed */
static gboolean
_wait_ready(SeSinkExport *self, gint fd, gshort events)
{
  for (;;)
    {
      gint64 left = self->deadline - g_get_monotonic_time();
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

/* connect() within the deadline; the socket stays non-blocking */
static gboolean
_connect_by_deadline(SeSinkExport *self, gint fd, const struct sockaddr *addr, socklen_t addr_len)
{
  gint error = 0;
  socklen_t len = sizeof(error);

  if (connect(fd, addr, addr_len) == 0)
    return TRUE;
  if (errno != EINPROGRESS || !_wait_ready(self, fd, POLLOUT))
    return FALSE;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0)
    return FALSE;
  errno = error;
  return error == 0;
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
      msg_error("structured-event(): cannot resolve host()", se_sink_dest_tags(&self->super),
                evt_tag_str("host", self->host),
                evt_tag_str("error", gai_strerror(rc)));
      return FALSE;
    }
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
    {
      gint fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);

      if (fd < 0)
        continue;
      if (_connect_by_deadline(self, fd, ai->ai_addr, ai->ai_addrlen))
        {
          /* transport(raw) writes with the common batch writer: blocking, each write() bounded by timeout() */
          if (!_is_http(self))
            {
              struct timeval tv = { .tv_sec = self->options.timeout };
              setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
              fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            }
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
                se_sink_dest_tags(&self->super),
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
  _start_deadline(self);
  return _connect_tcp(self);
}

static void
_close(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* whatever is still buffered was not acknowledged: the worker resends it */
  _reset_buffer(self);
  _close_fd(self);
}

/*
 * Keeps the file a valid export stream after a write that stopped inside
 * an entry: its start is cut off again, but only while the end of the
 * file is still ours (the same file, exactly as long as before the write
 * plus what it wrote).  Another writer's bytes after ours, or a file
 * truncated meanwhile, are never cut: the partial entry stays, logged.
 */
static void
_cut_partial_entry(SeSinkExport *self, const struct stat *before, gsize written, gsize partial)
{
  struct stat now;

  if (fstat(self->fd, &now) < 0)
    {
      msg_error("structured-event(): cannot remove a partly written entry", se_sink_dest_tags(&self->super),
                evt_tag_str("path", _target(self)), evt_tag_error("error"));
      return;
    }
  if (now.st_dev != before->st_dev || now.st_ino != before->st_ino
      || now.st_size != before->st_size + (off_t) written)
    {
      msg_error("structured-event(): a partly written entry stays in the file: the file changed under us "
                "(another writer or a truncation), its end is not ours to cut", se_sink_dest_tags(&self->super),
                evt_tag_str("path", _target(self)), evt_tag_long("expected_size", before->st_size + written),
                evt_tag_long("size", now.st_size), evt_tag_long("partial_bytes", partial));
      return;
    }
  if (ftruncate(self->fd, now.st_size - partial) < 0)
    msg_error("structured-event(): cannot remove a partly written entry", se_sink_dest_tags(&self->super),
              evt_tag_str("path", _target(self)), evt_tag_error("error"));
}

static SeSinkResult
_write_batch(SeSinkExport *self)
{
  BatchWriteResult res;
  guint records = batch_buffer_records(&self->buffer);
  struct stat before = { 0 };
  guint complete;
  gsize partial;

  if (records == 0)
    return SE_SINK_OK;

  /* what the file looks like before our bytes: a partial entry is cut only while the end is still ours */
  if (_is_file(self) && fstat(self->fd, &before) < 0)
    before.st_ino = 0;
  if (batch_writer_write(self->fd, batch_buffer_data(&self->buffer)->str, batch_buffer_len(&self->buffer), &res))
    {
      se_sink_delivered(&self->super, records);
      _reset_buffer(self);
      return SE_SINK_OK;
    }

  complete = batch_buffer_records_in_prefix(&self->buffer, res.written);
  partial = res.written - batch_buffer_whole_records_end(&self->buffer, res.written);
  se_sink_delivered(&self->super, complete);
  if (partial && _is_file(self))
    _cut_partial_entry(self, &before, res.written, partial);
  errno = res.error;
  msg_error("structured-event(): write failed, will retry after time-reopen()", se_sink_dest_tags(&self->super),
            evt_tag_str("target", _target(self)), evt_tag_error("error"),
            evt_tag_int("written_entries", complete), evt_tag_int("unwritten_entries", records - complete));
  _reset_buffer(self);
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

static HttpExchange
_read_response(SeSinkExport *self)
{
  SeHttpResponse *response = &self->response;

  se_http_response_reset(response);
  for (;;)
    {
      gsize avail;
      gchar *space = se_http_response_space(response, &avail);
      gssize n;
      SeHttpParseResult r;

      if (!_wait_ready(self, self->fd, POLLIN))
        return errno == ETIMEDOUT ? HTTP_TIMED_OUT : response->len ? HTTP_GARBLED : HTTP_CLOSED;
      n = recv(self->fd, space, avail, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
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

/* one request with the bytes [from, to) of the batch (none: an empty upload), and its answer */
static HttpExchange
_exchange(SeSinkExport *self, gsize from, gsize to)
{
  gchar head[SE_HTTP_REQUEST_HEADER_MAX];
  struct iovec iov[2];
  BatchWriteResult sent;

  iov[0].iov_base = head;
  iov[0].iov_len = se_http_format_request(head, sizeof(head), self->host, self->options.port, to - from);
  iov[1].iov_base = batch_buffer_data(&self->buffer)->str + from;
  iov[1].iov_len = to - from;
  g_assert(iov[0].iov_len > 0);

  if (!batch_writer_send(self->fd, iov, 2, self->deadline, &sent))
    {
      errno = sent.error;
      /* a server refusing the request early answers and closes: read that answer */
      gint error = errno;
      if ((error == EPIPE || error == ECONNRESET) && _read_response(self) == HTTP_ANSWERED)
        return HTTP_ANSWERED;
      errno = error;
      return HTTP_SEND_FAILED;
    }
  return _read_response(self);
}

/* what became of one request */
typedef enum
{
  POST_ACCEPTED,               /* answered 2xx: stored */
  POST_REFUSED,                /* answered, not 2xx (self->response holds the answer) */
  POST_UNANSWERED,             /* sent whole on a fresh connection, closed without an answer: journal-remote's
                                * way to refuse an entry it cannot take (more than 1024 fields...) */
  POST_FAILED,                 /* not connected, not sent, timeout(), not HTTP: nothing known of the entries */
} PostOutcome;

static const gchar *
_exchange_reason(HttpExchange x)
{
  switch (x)
    {
    case HTTP_TIMED_OUT:
      return "timeout() reached";
    case HTTP_GARBLED:
      return "not an HTTP answer";
    case HTTP_SEND_FAILED:
      return "send failed";
    default:
      return "connection closed";
    }
}

/* the records [first, last) of the batch (first == last: an empty upload, to see whether the server takes any) */
static PostOutcome
_post(SeSinkExport *self, guint first, guint last)
{
  const BatchBuffer *b = &self->buffer;
  gsize from = first ? b->record_ends[first - 1] : 0;
  gsize to = last ? b->record_ends[last - 1] : 0;
  HttpExchange x = HTTP_CLOSED;
  gboolean reused = FALSE;
  gint error = 0;

  /* a kept-alive connection the server closed meanwhile is replaced at once:
   * no reason to wait for time-reopen() */
  for (gint attempt = 0; attempt < 2; attempt++)
    {
      if (self->fd >= 0 && _peer_closed(self->fd))
        _close_fd(self);
      if (self->fd < 0 && !_connect_tcp(self))
        return POST_FAILED;
      reused = self->requests_on_fd > 0;
      x = _exchange(self, from, MAX(from, to));
      if (x == HTTP_ANSWERED)
        break;
      error = errno;
      _close_fd(self);
      if (!reused || (x != HTTP_CLOSED && x != HTTP_SEND_FAILED))
        break;
      msg_warning("structured-event(): the kept-alive connection was lost before the answer, "
                  "sending the request again on a new one", se_sink_dest_tags(&self->super),
                  evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
                  evt_tag_str("error", error ? g_strerror(error) : "closed by the peer"),
                  evt_tag_int("entries", last - first));
    }

  if (x == HTTP_ANSWERED)
    {
      self->requests_on_fd++;
      if (self->response.must_close)
        _close_fd(self);
      return se_http_response_is_success(&self->response) ? POST_ACCEPTED : POST_REFUSED;
    }
  if (x == HTTP_CLOSED && !reused)
    return POST_UNANSWERED;
  msg_error("structured-event(): no answer to the batch, it is sent again after time-reopen()",
            se_sink_dest_tags(&self->super), evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
            evt_tag_str("reason", _exchange_reason(x)),
            evt_tag_str("error", error ? g_strerror(error) : "closed by the peer"),
            evt_tag_int("entries", last - first));
  return POST_FAILED;
}

/* the server's answer to a refused request, kept for the log: status and reason (journal-remote answers
 * one line of text) */
static void
_note_refusal(SeSinkExport *self, PostOutcome outcome)
{
  gsize body_len;
  const gchar *body = se_http_response_body(&self->response, &body_len);

  if (outcome != POST_REFUSED)
    {
      g_strlcpy(self->refusal, "none, the connection was closed", sizeof(self->refusal));
      return;
    }
  while (body_len && (body[body_len - 1] == '\n' || body[body_len - 1] == '\r'))
    body_len--;
  g_snprintf(self->refusal, sizeof(self->refusal), "%d %.*s", self->response.status, (gint) MIN(body_len, 256), body);
}

/*
 * The server refused a batch (or closed on it without an answer, as
 * journal-remote does on an entry it cannot take): an entry of it may be
 * the cause, and it alone must not hold the others.  The entries go one
 * request each; one refused on its own is dropped when an empty upload
 * right after it is accepted (the server takes requests, just not this
 * entry).  When even that is refused, the server refuses everything: the
 * entries not settled yet are an error (retried up to retries(), then
 * dropped), or, without an answer, they wait for time-reopen().  Entries
 * the server stored from the refused batch before the one it refused are
 * sent again: duplicates only within that batch.
 */
static SeSinkResult
_isolate(SeSinkExport *self, PostOutcome batch_outcome)
{
  guint records = batch_buffer_records(&self->buffer);
  guint not_logged;

  _note_refusal(self, batch_outcome);
  msg_warning("structured-event(): the server refused a batch, sending its entries one at a time "
              "to find the ones it refuses", se_sink_dest_tags(&self->super), evt_tag_str("host", self->host),
              evt_tag_int("port", self->options.port), evt_tag_str("answer", self->refusal),
              evt_tag_int("entries", records));
  for (guint i = 0; i < records; i++)
    {
      PostOutcome outcome = _post(self, i, i + 1);

      if (outcome == POST_ACCEPTED)
        {
          se_sink_delivered(&self->super, 1);
          continue;
        }
      if (outcome == POST_FAILED)
        return SE_SINK_NOT_CONNECTED;

      _note_refusal(self, outcome);
      PostOutcome probe = _post(self, i + 1, i + 1);
      if (probe == POST_ACCEPTED)
        {
          if (se_sink_drop_event(&self->super, &not_logged))
            msg_error("structured-event(): the server refuses this entry on its own and takes others, "
                      "entry dropped (logged at most once every 10 seconds, see the dropped counter)",
                      se_sink_dest_tags(&self->super), evt_tag_str("host", self->host),
                      evt_tag_int("port", self->options.port), evt_tag_str("answer", self->refusal),
                      evt_tag_int("dropped_unlogged", not_logged));
          continue;
        }
      if (probe == POST_REFUSED)
        {
          _note_refusal(self, probe);
          msg_error("structured-event(): the server refuses every request, will retry after time-reopen() "
                    "and drop the entries after retries()", se_sink_dest_tags(&self->super),
                    evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
                    evt_tag_str("answer", self->refusal), evt_tag_int("entries", records - i));
          return SE_SINK_ERROR;
        }
      if (probe == POST_UNANSWERED)
        msg_error("structured-event(): the server closes every request without an answer, "
                  "will retry after time-reopen()", se_sink_dest_tags(&self->super),
                  evt_tag_str("host", self->host), evt_tag_int("port", self->options.port),
                  evt_tag_int("entries", records - i));
      return SE_SINK_NOT_CONNECTED;
    }
  return SE_SINK_OK;
}

static SeSinkResult
_post_batch(SeSinkExport *self)
{
  guint records = batch_buffer_records(&self->buffer);
  SeSinkResult result = SE_SINK_NOT_CONNECTED;
  PostOutcome outcome;

  if (records == 0)
    return SE_SINK_OK;

  /* timeout() bounds the whole batch, the requests of an isolation included */
  _start_deadline(self);
  outcome = _post(self, 0, records);
  if (outcome == POST_ACCEPTED)
    {
      se_sink_delivered(&self->super, records);
      result = SE_SINK_OK;
    }
  else if (outcome == POST_REFUSED || outcome == POST_UNANSWERED)
    result = _isolate(self, outcome);
  _reset_buffer(self);
  return result;
}

/*
 * A name that can never be opened belongs to the message that rendered it:
 * too long, a file where a directory should be, a directory where the file
 * should be, a missing directory (create-dirs() off, or it could not make
 * it), a symlink refused, a spurious ".." path.  Anything else (ENOSPC,
 * EIO, EDQUOT, EMFILE, EACCES, EROFS...) is a matter of the disk or the
 * process: every file would fail alike, so the destination waits.
 */
static gboolean
_open_error_is_the_names(AppendOpenResult r, gint error)
{
  if (r == APPEND_OPEN_SPURIOUS_PATH || r == APPEND_OPEN_NOT_SUPPORTED)
    return TRUE;
  switch (error)
    {
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ENOENT:
    case ELOOP:
    case EINVAL:
      return TRUE;
    default:
      return FALSE;
    }
}

/* after the batch of the previous file went out: the event's file is opened, or the event dropped */
static SeSinkResult
_switch_file(SeSinkExport *self, gboolean *event_dropped)
{
  AppendOpenedFile opened;
  AppendOpenResult r;
  SeSinkResult result;
  gint error = 0;
  guint not_logged;

  /* one batch goes to one file */
  result = _write_batch(self);
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
  if (!_open_error_is_the_names(r, error))
    {
      msg_error("structured-event(): cannot open path(), will retry after time-reopen()", se_sink_dest_tags(&self->super),
                evt_tag_str("path", self->next_path->str), evt_tag_str("reason", append_open_result_name(r)),
                evt_tag_error("error"));
      return SE_SINK_NOT_CONNECTED;
    }
  /* the batch went out above: this event is the oldest one not settled */
  if (se_sink_drop_event(&self->super, &not_logged))
    msg_error("structured-event(): cannot open path(), message dropped, messages for other files go on "
              "(logged at most once every 10 seconds, see the dropped counter)",
              se_sink_dest_tags(&self->super), evt_tag_str("path", self->next_path->str),
              evt_tag_str("reason", append_open_result_name(r)), evt_tag_error("error"),
              evt_tag_int("dropped_unlogged", not_logged));
  *event_dropped = TRUE;
  return SE_SINK_OK;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event)
{
  SeSinkExport *self = (SeSinkExport *) s;
  gchar realtime[32];
  SeField extra[2];
  guint n_extra = 0;
  GString *data;

  if (_is_file(self))
    {
      LogTemplateEvalOptions eval = { self->options.template_options, LTZ_LOCAL, 0, NULL, LM_VT_STRING };

      log_template_format(self->options.path, event->msg, &eval, self->next_path);
      if (self->fd < 0 || strcmp(self->next_path->str, self->cur_path->str) != 0)
        {
          gboolean dropped = FALSE;
          SeSinkResult result = _switch_file(self, &dropped);
          if (result != SE_SINK_OK || dropped)
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

  se_journal_encode(&self->encoder, extra, n_extra, event, TRUE);
  data = batch_buffer_data(&self->buffer);
  for (guint i = 0; i < self->encoder.n_iov; i++)
    g_string_append_len(data, self->encoder.iov[i].iov_base, self->encoder.iov[i].iov_len);
  batch_buffer_end_record(&self->buffer);

  if (batch_buffer_is_full(&self->buffer))
    return _is_http(self) ? _post_batch(self) : _write_batch(self);
  return SE_SINK_OK;
}

static SeSinkResult
_flush(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  if (_is_http(self))
    return _post_batch(self);
  if (self->fd < 0)
    {
      guint records = batch_buffer_records(&self->buffer);
      _reset_buffer(self);
      return records ? SE_SINK_NOT_CONNECTED : SE_SINK_OK;
    }
  return _write_batch(self);
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
  /* the defaults of what is unset */
  if (!self->options.port)
    self->options.port = SE_EXPORT_DEFAULT_PORT;
  if (!self->options.transport)
    self->options.transport = SE_EXPORT_TRANSPORT_RAW;
  if (!self->options.timeout)
    self->options.timeout = SE_EXPORT_DEFAULT_TIMEOUT;
  self->fd = -1;
  self->next_path = g_string_sized_new(256);
  self->cur_path = g_string_sized_new(256);
  _init_buffer(self);
  se_journal_encoder_init(&self->encoder);
  return &self->super;
}

void
se_sink_export_options_destroy(SeSinkExportOptions *self)
{
  log_template_unref(self->path);
  g_free(self->host);
  self->path = NULL;
  self->host = NULL;
}

gboolean
se_sink_export_transport_from_name(const gchar *name, SeExportTransportKind *transport)
{
  if (strcmp(name, "raw") == 0)
    *transport = SE_EXPORT_TRANSPORT_RAW;
  else if (strcmp(name, "http") == 0)
    *transport = SE_EXPORT_TRANSPORT_HTTP;
  else
    return FALSE;
  return TRUE;
}

gboolean
se_sink_export_check_options(const SeSinkExportOptions *self, GError **error)
{
  if (self->path && self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "sink(journal-export) takes either path() or host(), not both");
      return FALSE;
    }
  if (!self->path && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "sink(journal-export) needs path() (a file) or host() (TCP)");
      return FALSE;
    }
  if (self->port && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "port() needs host() with sink(journal-export)");
      return FALSE;
    }
  if (self->transport && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "transport() needs host() with sink(journal-export); "
                  "path() writes a file");
      return FALSE;
    }
  if (self->timeout && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "timeout() needs host() with sink(journal-export): "
                  "the time one batch may take on the network");
      return FALSE;
    }
  return TRUE;
}

void
se_sink_export_format_instance(const SeSinkExportOptions *self, gchar *buf, gsize size)
{
  if (self->path)
    g_snprintf(buf, size, "structured-event,journal-export,%s", self->path->template);
  else
    g_snprintf(buf, size, "structured-event,journal-export,%s:%d", self->host,
               self->port ? self->port : SE_EXPORT_DEFAULT_PORT);
}
