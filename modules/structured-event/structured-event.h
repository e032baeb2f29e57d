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
#include "se-sink-journald.h"
#include "se-sink-export.h"
#include "se-sink-ctf.h"
#include "append-opener.h"

#define SE_DEFAULT_MAX_FIELDS 1000
#define SE_DEFAULT_BATCH_LINES 100

typedef struct _StructuredEventDriver StructuredEventDriver;
typedef struct _SeSinkClass SeSinkClass;

/*
 * The options of the sinks, for the table of which sink takes which
 * (structured-event.c): an option set for a sink that does not take it
 * is an error at syslog-ng -s naming the option and the sinks that do.
 */
typedef enum
{
  SE_OPTION_SOCKET,
  SE_OPTION_NAMESPACE,
  SE_OPTION_PATH,
  SE_OPTION_HOST,
  SE_OPTION_PORT,
  SE_OPTION_TRANSPORT,
  SE_OPTION_URL,
  SE_OPTION_TLS,
  SE_OPTION_TIMEOUT,
  SE_OPTION_PACKET_SIZE,
  SE_OPTION_MAX_STREAM_SIZE,
  SE_OPTION_FILE_PERMS,          /* create-dirs(), owner(), group(), perm(), dir-*() */
  SE_OPTION_MAX
} SeOption;

struct _StructuredEventDriver
{
  LogThreadedDestDriver super;
  const SeSinkClass *sink_class;
  guint32 options_set;        /* 1 << SeOption for each sink option the configuration sets */

  /* the event: every sink */
  LogTemplate *message_id;
  ValuePairs *value_pairs;
  gchar *prefix;
  gboolean type_hints;
  gint max_fields;
  LogTemplateOptions template_options;
  SeEventOptions event_options;

  /* options of more than one sink, handed to the one in use */
  LogTemplate *path;
  AppendOpenerOptions opener_options;   /* create-dirs(), owner() ... of what path() creates; unset: options()'s */

  /* the options of each sink: only the one in use is handed over */
  SeSinkJournaldOptions journald;
  SeSinkExportOptions export;
  SeSinkCtfOptions ctf;
  gsize ctf_drops_reported;   /* sink(ctf): drops already counted in a packet */

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
gboolean structured_event_dd_set_url(LogDriver *d, const gchar *url, GError **error);
/* tls(): FALSE with errno set when the file or directory cannot be read */
gboolean structured_event_dd_set_ca_dir(LogDriver *d, const gchar *path);
gboolean structured_event_dd_set_ca_file(LogDriver *d, const gchar *path);
gboolean structured_event_dd_set_cert_file(LogDriver *d, const gchar *path);
gboolean structured_event_dd_set_key_file(LogDriver *d, const gchar *path);
void structured_event_dd_set_peer_verify(LogDriver *d, gboolean verify);
gboolean structured_event_dd_set_cipher_suite(LogDriver *d, const gchar *list);
gboolean structured_event_dd_set_ssl_version(LogDriver *d, const gchar *name);
void structured_event_dd_set_use_system_cert_store(LogDriver *d, gboolean use);
gboolean structured_event_dd_set_packet_size(LogDriver *d, gint64 size);
gboolean structured_event_dd_set_max_stream_size(LogDriver *d, gint64 size);
LogTemplateOptions *structured_event_dd_get_template_options(LogDriver *d);
FilePermOptions *structured_event_dd_get_file_perm_options(LogDriver *d);
void structured_event_dd_set_create_dirs(LogDriver *d, gboolean create_dirs);
/* cross-option checks, at the end of parsing */
gboolean structured_event_dd_check_options(LogDriver *d, GError **error);

/* counts fields cut by max-fields() and warns at most once a minute */
void structured_event_dd_fields_dropped(StructuredEventDriver *self, guint count);

#define STRUCTURED_EVENT_ERROR structured_event_error_quark()
GQuark structured_event_error_quark(void);

#endif
