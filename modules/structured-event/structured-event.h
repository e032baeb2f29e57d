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
#ifndef STRUCTURED_EVENT_H_INCLUDED
#define STRUCTURED_EVENT_H_INCLUDED

#include "syslog-ng.h"
#include "driver.h"
#include "logthrdest/logthrdestdrv.h"
#include "value-pairs/value-pairs.h"
#include "se-event.h"
#include "se-sink.h"
#include "append-opener.h"

#define SE_DEFAULT_SOCKET "/run/systemd/journal/socket"
#define SE_DEFAULT_MAX_FIELDS 1000
#define SE_DEFAULT_BATCH_LINES 100
#define SE_DEFAULT_EXPORT_PORT 19532
#define SE_DEFAULT_EXPORT_TIMEOUT 30
#define SE_DEFAULT_PACKET_SIZE 65536
#define SE_DEFAULT_MAX_STREAM_SIZE G_GINT64_CONSTANT(1073741824)

typedef struct _StructuredEventDriver StructuredEventDriver;

/* sink(journal-export) host(): how entries travel to systemd-journal-remote */
typedef enum
{
  SE_EXPORT_TRANSPORT_UNSET,
  SE_EXPORT_TRANSPORT_RAW,     /* --listen-raw: the stream, no acknowledgement */
  SE_EXPORT_TRANSPORT_HTTP,    /* --listen-http: POST /upload per batch, acked by 2xx */
} SeExportTransport;

#define SE_DEFAULT_EXPORT_TRANSPORT SE_EXPORT_TRANSPORT_RAW

/*
 * A sink kind: its sink() name, the check of the options it accepts (at
 * parse time, so that syslog-ng -s reports it), and the constructor of one
 * sink instance per worker.  Adding a sink means adding one SeSinkClass to
 * the table in structured-event.c.
 */
typedef struct _SeSinkClass
{
  const gchar *name;
  gboolean (*check_options)(StructuredEventDriver *owner, GError **error);
  /* "structured-event,<sink>,<target>" for stats and persist names */
  void (*format_instance)(StructuredEventDriver *owner, gchar *buf, gsize size);
  SeSink *(*construct)(StructuredEventDriver *owner, gint worker_index);
} SeSinkClass;

struct _StructuredEventDriver
{
  LogThreadedDestDriver super;
  const SeSinkClass *sink_class;

  gchar *socket;
  gchar *namespace_;
  LogTemplate *message_id;
  ValuePairs *value_pairs;
  gchar *prefix;
  gboolean type_hints;
  gint max_fields;
  LogTemplate *path;
  gchar *host;
  gint port;
  SeExportTransport transport;
  gint timeout;               /* sink(journal-export) host(), seconds; 0: default */
  gint packet_size;           /* sink(ctf); 0: default */
  gint64 max_stream_size;     /* sink(ctf); 0: default */
  gsize ctf_drops_reported;   /* sink(ctf): drops already counted in a packet */
  /* path(): create-dirs(), owner(), group(), perm() and dir-*() of what the sinks create; unset: options()'s */
  AppendOpenerOptions opener_options;
  LogTemplateOptions template_options;

  SeEventOptions event_options;
  StatsCounterItem *dropped_fields;
  StatsCounterItem *memfd_sends;
  gint last_cap_warning;      /* monotonic seconds, for one warning a minute */
  gchar stats_instance[512];
};

LogDriver *structured_event_dd_new(GlobalConfig *cfg);

gboolean structured_event_dd_set_sink(LogDriver *d, const gchar *name);
const gchar *structured_event_sink_names(void);
void structured_event_dd_set_socket(LogDriver *d, const gchar *path);
gboolean structured_event_dd_set_namespace(LogDriver *d, const gchar *name);
void structured_event_dd_set_message_id(LogDriver *d, LogTemplate *template);
void structured_event_dd_set_value_pairs(LogDriver *d, ValuePairs *vp);
gboolean structured_event_dd_set_prefix(LogDriver *d, const gchar *prefix);
void structured_event_dd_set_type_hints(LogDriver *d, gboolean enable);
void structured_event_dd_set_max_fields(LogDriver *d, gint max_fields);
void structured_event_dd_set_path(LogDriver *d, LogTemplate *path);
void structured_event_dd_set_host(LogDriver *d, const gchar *host);
void structured_event_dd_set_port(LogDriver *d, gint port);
gboolean structured_event_dd_set_transport(LogDriver *d, const gchar *name);
void structured_event_dd_set_timeout(LogDriver *d, gint seconds);
gboolean structured_event_dd_set_packet_size(LogDriver *d, gint64 size);
gboolean structured_event_dd_set_max_stream_size(LogDriver *d, gint64 size);
LogTemplateOptions *structured_event_dd_get_template_options(LogDriver *d);
FilePermOptions *structured_event_dd_get_file_perm_options(LogDriver *d);
void structured_event_dd_set_create_dirs(LogDriver *d, gboolean create_dirs);
/* cross-option checks, at the end of parsing */
gboolean structured_event_dd_check_options(LogDriver *d, GError **error);

/* the journald socket path the options select */
const gchar *structured_event_dd_journald_socket(StructuredEventDriver *self, gchar *buf, gsize size);
/* counts fields cut by max-fields() and warns at most once a minute */
void structured_event_dd_fields_dropped(StructuredEventDriver *self, guint count);

#define STRUCTURED_EVENT_ERROR structured_event_error_quark()
GQuark structured_event_error_quark(void);

#endif
