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
#ifndef SE_EXPORT_HTTP_H_INCLUDED
#define SE_EXPORT_HTTP_H_INCLUDED

#include "se-export-transport.h"

/*
 * The HTTP/1.1 framing of sink(journal-export) transport(http): one
 * `POST /upload` request per batch (Content-Length, keep-alive), as
 * systemd-journal-remote --listen-http expects, and an incremental parser
 * of the answer that works in a fixed buffer: no allocation per request.
 * systemd-journal-remote answers 202 only after every entry of the request
 * went into its journal file, which makes the answer an acknowledgement.
 */

/* request line and headers; host names are at most 253 characters */
#define SE_HTTP_REQUEST_HEADER_MAX 512
/* status line and headers must fit; a longer body is read and discarded
 * beyond what fits (only its start is logged) */
#define SE_HTTP_RESPONSE_BUFFER 4096

/* formats the request head into buf; returns its length, 0 if it does not fit */
gsize se_http_format_request(gchar *buf, gsize size, const gchar *host, gint port, gsize body_len);

typedef enum
{
  SE_HTTP_PARSE_MORE,          /* feed more bytes */
  SE_HTTP_PARSE_DONE,          /* a complete final response */
  SE_HTTP_PARSE_INVALID,       /* not HTTP/1.x, or headers beyond the buffer */
} SeHttpParseResult;

typedef struct _SeHttpResponse
{
  gchar buf[SE_HTTP_RESPONSE_BUFFER];
  gchar discard[512];          /* a body beyond buf is read here and thrown away */
  gsize len;                   /* bytes held in buf */
  gsize header_end;            /* 0 until the headers are complete */
  gint status;
  gint minor_version;
  gboolean has_content_length;
  guint64 content_length;
  guint64 body_seen;           /* body bytes received, kept or not */
  gsize body_kept;             /* body bytes kept in buf after header_end */
  gboolean body_until_close;   /* no length: the body ends when the peer closes */
  gboolean must_close;         /* the connection cannot carry another request */
} SeHttpResponse;

void se_http_response_reset(SeHttpResponse *self);
/* where the next recv() goes; never empty */
gchar *se_http_response_space(SeHttpResponse *self, gsize *avail);
/* n bytes were received into the space */
SeHttpParseResult se_http_response_feed(SeHttpResponse *self, gsize n);
/* the peer closed the connection: DONE when that ends the body */
SeHttpParseResult se_http_response_eof(SeHttpResponse *self);

static inline gboolean
se_http_response_is_success(const SeHttpResponse *self)
{
  return self->status >= 200 && self->status <= 299;
}

/* the start of the body, for the log */
static inline const gchar *
se_http_response_body(const SeHttpResponse *self, gsize *len)
{
  *len = self->body_kept;
  return self->buf + self->header_end;
}

/*
 * sink(journal-export) host() transport(http): each batch one request on a
 * kept-alive connection (a kept-alive connection lost before the answer is
 * replaced at once and the request sent again), 2xx: OK, another answer:
 * REFUSED, a fresh connection closed without an answer: CLOSED_ON,
 * anything else (no connection, timeout(), not HTTP): DOWN.
 */
SeExportTransport *se_export_http_new(const gchar *host, gint port);

#endif
