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
/* memmem() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "se-export-http.h"
#include "se-export-tcp.h"
#include "batch-writer.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

gsize
se_http_format_request(gchar *buf, gsize size, const gchar *host, gint port, gsize body_len)
{
  /* an IPv6 literal needs brackets in Host: */
  gboolean v6 = strchr(host, ':') != NULL;
  gint n = g_snprintf(buf, size,
                      "POST /upload HTTP/1.1\r\n"
                      "Host: %s%s%s:%d\r\n"
                      "Content-Type: application/vnd.fdo.journal\r\n"
                      "Content-Length: %" G_GSIZE_FORMAT "\r\n"
                      "\r\n",
                      v6 ? "[" : "", host, v6 ? "]" : "", port, body_len);

  return n > 0 && (gsize) n < size ? (gsize) n : 0;
}

void
se_http_response_reset(SeHttpResponse *self)
{
  self->len = 0;
  self->header_end = 0;
  self->status = 0;
  self->minor_version = 0;
  self->has_content_length = FALSE;
  self->content_length = 0;
  self->body_seen = 0;
  self->body_kept = 0;
  self->body_until_close = FALSE;
  self->must_close = FALSE;
}

gchar *
se_http_response_space(SeHttpResponse *self, gsize *avail)
{
  if (self->len < sizeof(self->buf))
    {
      *avail = sizeof(self->buf) - self->len;
      return self->buf + self->len;
    }
  /* only reachable with complete headers (else the feed was INVALID) */
  *avail = sizeof(self->discard);
  return self->discard;
}

static gboolean
_name_is(const gchar *name, gsize name_len, const gchar *expected)
{
  return name_len == strlen(expected) && g_ascii_strncasecmp(name, expected, name_len) == 0;
}

/* a comma separated header value holds this token */
static gboolean
_has_token(const gchar *value, gsize len, const gchar *token)
{
  gsize token_len = strlen(token);

  for (gsize i = 0; i + token_len <= len; i++)
    {
      if (g_ascii_strncasecmp(value + i, token, token_len) != 0)
        continue;
      gboolean starts = i == 0 || value[i - 1] == ',' || value[i - 1] == ' ' || value[i - 1] == '\t';
      gsize after = i + token_len;
      gboolean ends = after == len || value[after] == ',' || value[after] == ' ' || value[after] == '\t';
      if (starts && ends)
        return TRUE;
    }
  return FALSE;
}

static gboolean
_parse_content_length(SeHttpResponse *self, const gchar *value, gsize len)
{
  guint64 v = 0;

  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit(value[i]) || v > (G_MAXUINT64 - 9) / 10)
        return FALSE;
      v = v * 10 + (value[i] - '0');
    }
  if (self->has_content_length && self->content_length != v)
    return FALSE;
  self->has_content_length = TRUE;
  self->content_length = v;
  return TRUE;
}

/* "HTTP/1.x NNN reason" */
static gboolean
_parse_status_line(SeHttpResponse *self, const gchar *line, gsize len)
{
  if (len < 12 || memcmp(line, "HTTP/1.", 7) != 0 || !g_ascii_isdigit(line[7]) || line[8] != ' ')
    return FALSE;
  for (gint i = 9; i < 12; i++)
    if (!g_ascii_isdigit(line[i]))
      return FALSE;
  if (len > 12 && line[12] != ' ')
    return FALSE;
  self->minor_version = line[7] - '0';
  self->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  return self->status >= 100;
}

/* parses buf[0, header_end); FALSE on anything that is not HTTP/1.x */
static gboolean
_parse_head(SeHttpResponse *self)
{
  const gchar *p = self->buf;
  const gchar *end = self->buf + self->header_end - 2;   /* the empty line's CRLF */
  const gchar *eol = memchr(p, '\n', end - p);
  gboolean keep_alive = FALSE, chunked = FALSE;

  if (!eol || eol == p || eol[-1] != '\r' || !_parse_status_line(self, p, eol - 1 - p))
    return FALSE;
  for (p = eol + 1; p < end; p = eol + 1)
    {
      eol = memchr(p, '\n', end - p);
      if (!eol || eol == p || eol[-1] != '\r')
        return FALSE;

      const gchar *colon = memchr(p, ':', eol - 1 - p);
      if (!colon || colon == p)
        return FALSE;
      gsize name_len = colon - p;
      const gchar *value = colon + 1;
      const gchar *value_end = eol - 1;
      while (value < value_end && (*value == ' ' || *value == '\t'))
        value++;
      while (value_end > value && (value_end[-1] == ' ' || value_end[-1] == '\t'))
        value_end--;

      if (_name_is(p, name_len, "Content-Length"))
        {
          if (!_parse_content_length(self, value, value_end - value))
            return FALSE;
        }
      else if (_name_is(p, name_len, "Connection"))
        {
          if (_has_token(value, value_end - value, "close"))
            self->must_close = TRUE;
          if (_has_token(value, value_end - value, "keep-alive"))
            keep_alive = TRUE;
        }
      else if (_name_is(p, name_len, "Transfer-Encoding"))
        chunked = TRUE;
    }

  if (self->minor_version == 0 && !keep_alive)
    self->must_close = TRUE;
  if (self->status == 204 || self->status == 304 || self->status < 200)
    {
      self->has_content_length = TRUE;
      self->content_length = 0;
    }
  else if (chunked)
    {
      /* not decoded: the status is all we need; the connection is not reused */
      self->has_content_length = TRUE;
      self->content_length = 0;
      self->must_close = TRUE;
    }
  else if (!self->has_content_length)
    {
      self->body_until_close = TRUE;
      self->must_close = TRUE;
    }
  return TRUE;
}

static SeHttpParseResult
_body_progress(SeHttpResponse *self)
{
  if (self->body_until_close || self->body_seen < self->content_length)
    return SE_HTTP_PARSE_MORE;
  if (self->body_seen > self->content_length)
    {
      /* bytes after the answer we never asked for: do not trust the connection */
      self->must_close = TRUE;
      self->body_kept = MIN(self->body_kept, self->content_length);
    }
  return SE_HTTP_PARSE_DONE;
}

static SeHttpParseResult
_find_head(SeHttpResponse *self, gsize search_from)
{
  for (;;)
    {
      gsize from = search_from >= 3 ? search_from - 3 : 0;
      /* memmem(), not a string search: the bytes may hold a NUL, which must not hide the end */
      const gchar *hit = self->len > from ? memmem(self->buf + from, self->len - from, "\r\n\r\n", 4) : NULL;

      if (!hit)
        return self->len < sizeof(self->buf) ? SE_HTTP_PARSE_MORE : SE_HTTP_PARSE_INVALID;

      self->header_end = hit + 4 - self->buf;
      /* a NUL is never part of a status line or a field (RFC 9110 5.5) */
      if (memchr(self->buf, 0, self->header_end) || !_parse_head(self))
        return SE_HTTP_PARSE_INVALID;
      if (self->status >= 200)
        break;

      /* an interim answer (100 Continue): the final one follows */
      gsize rest = self->len - self->header_end;
      memmove(self->buf, self->buf + self->header_end, rest);
      se_http_response_reset(self);
      self->len = rest;
      search_from = 0;
    }

  self->body_seen = self->len - self->header_end;
  self->body_kept = self->body_seen;
  return _body_progress(self);
}

SeHttpParseResult
se_http_response_feed(SeHttpResponse *self, gsize n)
{
  if (self->header_end == 0)
    {
      gsize before = self->len;

      self->len += n;
      return _find_head(self, before);
    }

  if (self->len < sizeof(self->buf))
    {
      self->len += n;
      self->body_kept += n;
    }
  self->body_seen += n;
  return _body_progress(self);
}

SeHttpParseResult
se_http_response_eof(SeHttpResponse *self)
{
  if (self->header_end == 0)
    return SE_HTTP_PARSE_INVALID;
  /* the status is known; a body cut short only means the connection is gone */
  self->must_close = TRUE;
  return SE_HTTP_PARSE_DONE;
}

/* the transport ------------------------------------------------------ */

typedef struct _SeExportHttp
{
  SeExportTransport super;
  gchar *host;
  gint port;
  gchar *target;              /* host:port */
  gint fd;
  guint requests_on_fd;       /* answered requests on this connection */
  SeHttpResponse response;
} SeExportHttp;

typedef enum
{
  HTTP_ANSWERED,
  HTTP_SEND_FAILED,            /* the request did not go out whole */
  HTTP_CLOSED,                 /* sent whole; the peer closed or reset without an answer */
  HTTP_TIMED_OUT,
  HTTP_GARBLED,                /* an answer that is not HTTP/1.x */
} HttpExchange;

static void
_close(SeExportTransport *s)
{
  SeExportHttp *self = (SeExportHttp *) s;

  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
  self->requests_on_fd = 0;
}

/* between requests a server sends nothing: anything readable is its close */
static gboolean
_peer_closed(gint fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };

  return poll(&pfd, 1, 0) != 0;
}

static HttpExchange
_read_response(SeExportHttp *self, gint64 deadline)
{
  SeHttpResponse *response = &self->response;

  se_http_response_reset(response);
  for (;;)
    {
      gsize avail;
      gchar *space = se_http_response_space(response, &avail);
      gssize n;
      SeHttpParseResult r;

      if (!se_export_tcp_wait(self->fd, POLLIN, deadline))
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

/* one request and its answer */
static HttpExchange
_exchange(SeExportHttp *self, const gchar *data, gsize len, gint64 deadline)
{
  gchar head[SE_HTTP_REQUEST_HEADER_MAX];
  struct iovec iov[2];
  BatchWriteResult sent;

  iov[0].iov_base = head;
  iov[0].iov_len = se_http_format_request(head, sizeof(head), self->host, self->port, len);
  iov[1].iov_base = (gchar *) data;
  iov[1].iov_len = len;
  g_assert(iov[0].iov_len > 0);

  if (!batch_writer_send(self->fd, iov, 2, deadline, &sent))
    {
      /* a server refusing the request early answers and closes: read that answer */
      if ((sent.error == EPIPE || sent.error == ECONNRESET) && _read_response(self, deadline) == HTTP_ANSWERED)
        return HTTP_ANSWERED;
      errno = sent.error;
      return sent.error == ETIMEDOUT ? HTTP_TIMED_OUT : HTTP_SEND_FAILED;
    }
  return _read_response(self, deadline);
}

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

static void
_open(SeExportTransport *s, gint64 deadline, SeExportResult *result)
{
  SeExportHttp *self = (SeExportHttp *) s;

  _close(s);
  self->fd = se_export_tcp_connect(self->host, self->port, deadline, result->reason, sizeof(result->reason));
  result->status = self->fd >= 0 ? SE_EXPORT_OK : SE_EXPORT_DOWN;
}

static gboolean
_is_open(SeExportTransport *s)
{
  return ((SeExportHttp *) s)->fd >= 0;
}

static void
_send(SeExportTransport *s, const gchar *data, gsize len, gint64 deadline, SeExportResult *result)
{
  SeExportHttp *self = (SeExportHttp *) s;
  HttpExchange x = HTTP_CLOSED;
  gboolean reused = FALSE;
  gint error = 0;

  /* a kept-alive connection the server closed meanwhile is replaced at once */
  for (gint attempt = 0; attempt < 2; attempt++)
    {
      if (self->fd >= 0 && _peer_closed(self->fd))
        _close(s);
      if (self->fd < 0)
        {
          _open(s, deadline, result);
          if (result->status != SE_EXPORT_OK)
            return;
        }
      reused = self->requests_on_fd > 0;
      x = _exchange(self, data, len, deadline);
      if (x == HTTP_ANSWERED)
        break;
      error = errno;
      _close(s);
      if (!reused || (x != HTTP_CLOSED && x != HTTP_SEND_FAILED))
        break;
    }

  if (x == HTTP_ANSWERED)
    {
      gsize body_len;
      const gchar *body = se_http_response_body(&self->response, &body_len);

      self->requests_on_fd++;
      if (self->response.must_close)
        _close(s);
      /* the server's reason: journal-remote answers one line of text */
      while (body_len && (body[body_len - 1] == '\n' || body[body_len - 1] == '\r'))
        body_len--;
      result->status = se_http_response_is_success(&self->response) ? SE_EXPORT_OK : SE_EXPORT_REFUSED;
      g_snprintf(result->reason, sizeof(result->reason), "%d %.*s", self->response.status,
                 (gint) MIN(body_len, 256), body);
      return;
    }
  if (x == HTTP_CLOSED && !reused)
    {
      se_export_result_set(result, SE_EXPORT_CLOSED_ON, "none, the connection was closed");
      return;
    }
  result->status = SE_EXPORT_DOWN;
  g_snprintf(result->reason, sizeof(result->reason), "no answer: %s%s%s", _exchange_reason(x), error ? ", " : "",
             error ? g_strerror(error) : "");
}

static const gchar *
_target(SeExportTransport *s)
{
  return ((SeExportHttp *) s)->target;
}

static void
_free(SeExportTransport *s)
{
  SeExportHttp *self = (SeExportHttp *) s;

  _close(s);
  g_free(self->host);
  g_free(self->target);
  g_free(self);
}

SeExportTransport *
se_export_http_new(const gchar *host, gint port)
{
  SeExportHttp *self = g_new0(SeExportHttp, 1);

  self->super.requests = TRUE;
  self->super.open = _open;
  self->super.is_open = _is_open;
  self->super.close = _close;
  self->super.send = _send;
  self->super.target = _target;
  self->super.free_fn = _free;
  self->host = g_strdup(host);
  self->port = port;
  self->target = g_strdup_printf(strchr(host, ':') ? "http://[%s]:%d" : "http://%s:%d", host, port);
  self->fd = -1;
  return &self->super;
}
