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

#include <string.h>

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
