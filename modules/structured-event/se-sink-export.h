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

#include "se-sink.h"
#include "se-export-curl.h"
#include "append-opener.h"
#include "template/templates.h"

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
#define SE_EXPORT_DEFAULT_PORT 19532
#define SE_EXPORT_DEFAULT_TIMEOUT 30

typedef enum
{
  SE_EXPORT_TRANSPORT_UNSET,
  SE_EXPORT_TRANSPORT_RAW,     /* --listen-raw: the stream, no acknowledgement */
  SE_EXPORT_TRANSPORT_HTTP,    /* --listen-http: POST /upload per batch, acked by 2xx */
} SeExportTransportKind;

typedef struct _SeSinkExportOptions
{
  /* the configuration; 0 or NULL: unset (the default) */
  LogTemplate *path;          /* file mode: a file per rendered name */
  gchar *host;                /* network mode */
  gint port;
  SeExportTransportKind transport;
  gchar *url;                 /* or an http:// or https:// URL */
  SeExportTlsOptions tls;
  gboolean tls_set;           /* tls() was given */
  gint timeout;               /* seconds one batch may take on the network */
  /* filled in by the owner before a sink is made */
  const LogTemplateOptions *template_options;
  AppendOpenerOptions opener;
  guint batch_records;
} SeSinkExportOptions;

void se_sink_export_options_defaults(SeSinkExportOptions *self);
void se_sink_export_options_destroy(SeSinkExportOptions *self);
/* url(): FALSE with error when it is not an http:// or https:// URL */
gboolean se_sink_export_set_url(SeSinkExportOptions *self, const gchar *url, GError **error);
gboolean se_sink_export_transport_from_name(const gchar *name, SeExportTransportKind *transport);
gboolean se_sink_export_check_options(const SeSinkExportOptions *self, GError **error);
/* "structured-event,journal-export,<path or host:port>" for stats and persist names */
void se_sink_export_format_instance(const SeSinkExportOptions *self, gchar *buf, gsize size);

SeSink *se_sink_export_new(const SeSinkExportOptions *options);

#endif
