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
#ifndef SE_EXPORT_TRANSPORT_H_INCLUDED
#define SE_EXPORT_TRANSPORT_H_INCLUDED

#include "se-event.h"

/*
 * How sink(journal-export) moves a batch of entries: into files
 * (se-export-file.h), a raw TCP stream (se-export-tcp.h) or HTTP(S)
 * requests (se-export-curl.h).  A transport only moves bytes and says
 * what became of them; what that means for the events (delivered, dropped,
 * sent again, when, and what is logged) is decided in one place, the
 * sink (se-sink-export.c).
 */
typedef enum
{
  SE_EXPORT_OK,           /* every byte went: written (file, raw) or stored (HTTP 2xx) */
  SE_EXPORT_DOWN,         /* the target as a whole failed (disk, connection, peer, timeout()): try again later */
  SE_EXPORT_REFUSED,      /* requests: the peer answered and refused the request */
  SE_EXPORT_CLOSED_ON,    /* requests: the peer took the request and closed without an answer */
  SE_EXPORT_BAD_NAME,     /* file: the name select() rendered can never be opened */
} SeExportStatus;

typedef struct _SeExportResult
{
  SeExportStatus status;
  gsize written;          /* SE_EXPORT_DOWN of a stream: the bytes that reached the target */
  gchar reason[320];      /* for the log: the error, the peer's answer */
} SeExportResult;

typedef struct _SeExportTransport SeExportTransport;
struct _SeExportTransport
{
  /* each send is one request the peer takes or refuses whole: a refused batch can be split */
  gboolean requests;
  /* file: renders the event's file name; TRUE when that is not the open file (open() it next) */
  gboolean (*select)(SeExportTransport *self, const SeEvent *event);
  /* connects, or opens the file select() named; deadline: g_get_monotonic_time() microseconds */
  void (*open)(SeExportTransport *self, gint64 deadline, SeExportResult *result);
  gboolean (*is_open)(SeExportTransport *self);
  void (*close)(SeExportTransport *self);
  /* sends len bytes (len 0: an empty request, to see whether the peer takes any) */
  void (*send)(SeExportTransport *self, const gchar *data, gsize len, gint64 deadline, SeExportResult *result);
  /* file: the last send wrote `written` bytes, of which the last `partial` start an entry that did not go whole:
   * cut them off; FALSE (why filled in) when they stay */
  gboolean (*cut_partial)(SeExportTransport *self, gsize written, gsize partial, gchar *why, gsize why_size);
  /* what the log names: the file, host:port, the URL */
  const gchar *(*target)(SeExportTransport *self);
  void (*free_fn)(SeExportTransport *self);
};

static inline void
se_export_result_set(SeExportResult *self, SeExportStatus status, const gchar *reason)
{
  self->status = status;
  g_strlcpy(self->reason, reason ? reason : "", sizeof(self->reason));
}

static inline void
se_export_transport_free(SeExportTransport *self)
{
  if (self)
    self->free_fn(self);
}

#endif
