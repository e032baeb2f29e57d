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
#ifndef SE_SINK_EXPORT_H_INCLUDED
#define SE_SINK_EXPORT_H_INCLUDED

#include "structured-event.h"
#include "append-opener.h"

/*
 * sink(journal-export): the Journal Export Format, with the message's own
 * time and host kept as __REALTIME_TIMESTAMP (microseconds) and _HOSTNAME,
 * so that systemd-journal-remote stores them.  Entries are collected in
 * the common batch buffer and written with one write() per batch (the
 * common batch writer): into a file opened by the common append opener
 * (path() is a template; a batch goes to one file, a change of file
 * writes the batch first), or to a TCP connection (host(), port()):
 * transport(raw) streams to systemd-journal-remote --listen-raw and counts
 * an entry delivered once written into the connection; transport(http)
 * posts each batch to --listen-http as one request and counts its entries
 * delivered only when the answer is 2xx (journal-remote answers after
 * storing them).  Only entries written completely are acknowledged; a file
 * keeps no partial entry after a failed write (it is truncated back to the
 * last complete entry).
 */
extern const SeSinkClass se_sink_export_class;

typedef struct _SeSinkExportOptions
{
  LogTemplate *path;          /* file mode when set */
  const gchar *host;          /* TCP mode */
  gint port;
  SeExportTransport transport;
  gint timeout;               /* seconds one batch may take: connect, send, answer */
  const LogTemplateOptions *template_options;
  AppendOpenerOptions opener;
  guint batch_records;
} SeSinkExportOptions;

SeSink *se_sink_export_new(const SeSinkExportOptions *options);

#endif
