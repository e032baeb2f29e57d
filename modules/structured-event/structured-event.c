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
#include "structured-event.h"
#include "structured-event-worker.h"
#include "se-name.h"

#include "messages.h"
#include "compat-stats.h"

#include <string.h>

/* the sinks' bits in the option table */
#define SE_JOURNALD (1 << 0)
#define SE_EXPORT (1 << 1)
#define SE_CTF (1 << 2)

/*
 * A sink kind: its sink() name and bit, and what the driver does for it:
 * hand over the options it takes and check them (at the end of parsing,
 * so that syslog-ng -s reports it), name its stats instance, make one sink
 * per worker.  Adding a sink means one entry here and its column in the
 * option table.
 */
struct _SeSinkClass
{
  const gchar *name;
  guint bit;
  gboolean native_types;      /* the sink keeps value types itself: no SNG_FIELD_TYPES */
  gboolean (*check_options)(StructuredEventDriver *self, GError **error);
  void (*format_instance)(StructuredEventDriver *self, gchar *buf, gsize size);
  SeSink *(*construct)(StructuredEventDriver *self, gint worker_index);
};

/* which sinks take which option */
static const struct
{
  const gchar *name;
  guint sinks;
} option_table[SE_OPTION_MAX] =
{
  [SE_OPTION_SOCKET] = { "socket()", SE_JOURNALD },
  [SE_OPTION_NAMESPACE] = { "namespace()", SE_JOURNALD },
  [SE_OPTION_PATH] = { "path()", SE_EXPORT | SE_CTF },
  [SE_OPTION_HOST] = { "host()", SE_EXPORT },
  [SE_OPTION_PORT] = { "port()", SE_EXPORT },
  [SE_OPTION_TRANSPORT] = { "transport()", SE_EXPORT },
  [SE_OPTION_URL] = { "url()", SE_EXPORT },
  [SE_OPTION_TLS] = { "tls()", SE_EXPORT },
  [SE_OPTION_TIMEOUT] = { "timeout()", SE_EXPORT },
  [SE_OPTION_PACKET_SIZE] = { "packet-size()", SE_CTF },
  [SE_OPTION_MAX_STREAM_SIZE] = { "max-stream-size()", SE_CTF },
  [SE_OPTION_FILE_PERMS] =
  { "create-dirs(), owner(), group(), perm(), dir-owner(), dir-group() and dir-perm()", SE_EXPORT | SE_CTF },
};

/* sink(journald) */

static gboolean
_journald_check(StructuredEventDriver *self, GError **error)
{
  return se_sink_journald_check_options(&self->journald, error);
}

static void
_journald_format_instance(StructuredEventDriver *self, gchar *buf, gsize size)
{
  se_sink_journald_format_instance(&self->journald, buf, size);
}

static SeSink *
_journald_construct(StructuredEventDriver *self, gint worker_index)
{
  SeSinkJournaldOptions options = self->journald;

  options.memfd_sends = &self->memfd_sends;
  return se_sink_journald_new(&options);
}

/* sink(journal-export) */

static gboolean
_export_check(StructuredEventDriver *self, GError **error)
{
  log_template_unref(self->export.path);
  self->export.path = log_template_ref(self->path);
  return se_sink_export_check_options(&self->export, error);
}

static void
_export_format_instance(StructuredEventDriver *self, gchar *buf, gsize size)
{
  se_sink_export_format_instance(&self->export, buf, size);
}

static SeSink *
_export_construct(StructuredEventDriver *self, gint worker_index)
{
  SeSinkExportOptions options = self->export;

  options.template_options = &self->template_options;
  options.opener = self->opener_options;
  options.batch_records = self->super.batch_lines > 0 ? self->super.batch_lines : 1;
  return se_sink_export_new(&options);
}

/* sink(ctf) */

static gboolean
_ctf_check(StructuredEventDriver *self, GError **error)
{
  log_template_unref(self->ctf.path);
  self->ctf.path = log_template_ref(self->path);
  return se_sink_ctf_check_options(&self->ctf, error);
}

static void
_ctf_format_instance(StructuredEventDriver *self, gchar *buf, gsize size)
{
  se_sink_ctf_format_instance(&self->ctf, buf, size);
}

static SeSink *
_ctf_construct(StructuredEventDriver *self, gint worker_index)
{
  SeSinkCtfOptions options = self->ctf;

  options.worker_index = worker_index;
  options.dropped = fd_threaded_dest_driver_dropped_counter(&self->super);
  options.drops_reported = &self->ctf_drops_reported;
  options.opener = self->opener_options;
  return se_sink_ctf_new(&options);
}

static const SeSinkClass sink_classes[] =
{
  { "journald", SE_JOURNALD, FALSE, _journald_check, _journald_format_instance, _journald_construct },
  { "journal-export", SE_EXPORT, FALSE, _export_check, _export_format_instance, _export_construct },
  { "ctf", SE_CTF, TRUE, _ctf_check, _ctf_format_instance, _ctf_construct },
};

G_DEFINE_QUARK(structured-event-error-quark, structured_event_error)

const gchar *
structured_event_sink_names(void)
{
  static gchar names[256];

  if (!names[0])
    {
      for (guint i = 0; i < G_N_ELEMENTS(sink_classes); i++)
        {
          if (i)
            g_strlcat(names, ", ", sizeof(names));
          g_strlcat(names, sink_classes[i].name, sizeof(names));
        }
    }
  return names;
}

gboolean
structured_event_dd_set_sink(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  for (guint i = 0; i < G_N_ELEMENTS(sink_classes); i++)
    {
      if (strcmp(sink_classes[i].name, name) == 0)
        {
          self->sink_class = &sink_classes[i];
          return TRUE;
        }
    }
  return FALSE;
}

static void
_option_set(StructuredEventDriver *self, SeOption option)
{
  self->options_set |= 1u << option;
}

void
structured_event_dd_set_socket(LogDriver *d, const gchar *path)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  g_free(self->journald.socket);
  self->journald.socket = g_strdup(path);
  _option_set(self, SE_OPTION_SOCKET);
}

gboolean
structured_event_dd_set_namespace(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_sink_journald_namespace_is_valid(name))
    return FALSE;
  g_free(self->journald.namespace_);
  self->journald.namespace_ = g_strdup(name);
  _option_set(self, SE_OPTION_NAMESPACE);
  return TRUE;
}

void
structured_event_dd_set_message_id(LogDriver *d, LogTemplate *template)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  log_template_unref(self->message_id);
  self->message_id = template;
}

void
structured_event_dd_set_value_pairs(LogDriver *d, ValuePairs *vp)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (self->value_pairs)
    value_pairs_unref(self->value_pairs);
  self->value_pairs = vp;
}

gboolean
structured_event_dd_set_prefix(LogDriver *d, const gchar *prefix)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_name_prefix_is_valid(prefix))
    return FALSE;
  g_free(self->prefix);
  self->prefix = g_strdup(prefix);
  return TRUE;
}

void
structured_event_dd_set_type_hints(LogDriver *d, gboolean enable)
{
  ((StructuredEventDriver *) d)->type_hints = enable;
}

void
structured_event_dd_set_max_fields(LogDriver *d, gint max_fields)
{
  ((StructuredEventDriver *) d)->max_fields = max_fields;
}

void
structured_event_dd_set_path(LogDriver *d, LogTemplate *path)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  log_template_unref(self->path);
  self->path = path;
  _option_set(self, SE_OPTION_PATH);
}

void
structured_event_dd_set_host(LogDriver *d, const gchar *host)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  g_free(self->export.host);
  self->export.host = g_strdup(host);
  _option_set(self, SE_OPTION_HOST);
}

void
structured_event_dd_set_port(LogDriver *d, gint port)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  self->export.port = port;
  _option_set(self, SE_OPTION_PORT);
}

gboolean
structured_event_dd_set_transport(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_sink_export_transport_from_name(name, &self->export.transport))
    return FALSE;
  _option_set(self, SE_OPTION_TRANSPORT);
  return TRUE;
}

void
structured_event_dd_set_timeout(LogDriver *d, gint seconds)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  self->export.timeout = seconds;
  _option_set(self, SE_OPTION_TIMEOUT);
}

gboolean
structured_event_dd_set_url(LogDriver *d, const gchar *url, GError **error)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_sink_export_set_url(&self->export, url, error))
    return FALSE;
  _option_set(self, SE_OPTION_URL);
  return TRUE;
}

static SeExportTlsOptions *
_tls(StructuredEventDriver *self)
{
  _option_set(self, SE_OPTION_TLS);
  self->export.tls_set = TRUE;
  return &self->export.tls;
}

gboolean
structured_event_dd_set_ca_dir(LogDriver *d, const gchar *path)
{
  return se_export_tls_set_dir(&_tls((StructuredEventDriver *) d)->ca_dir, path);
}

gboolean
structured_event_dd_set_ca_file(LogDriver *d, const gchar *path)
{
  return se_export_tls_set_file(&_tls((StructuredEventDriver *) d)->ca_file, path);
}

gboolean
structured_event_dd_set_cert_file(LogDriver *d, const gchar *path)
{
  return se_export_tls_set_file(&_tls((StructuredEventDriver *) d)->cert_file, path);
}

gboolean
structured_event_dd_set_key_file(LogDriver *d, const gchar *path)
{
  return se_export_tls_set_file(&_tls((StructuredEventDriver *) d)->key_file, path);
}

void
structured_event_dd_set_peer_verify(LogDriver *d, gboolean verify)
{
  _tls((StructuredEventDriver *) d)->peer_verify = verify;
}

gboolean
structured_event_dd_set_cipher_suite(LogDriver *d, const gchar *list)
{
  return se_export_tls_set_cipher_suite(_tls((StructuredEventDriver *) d), list);
}

gboolean
structured_event_dd_set_ssl_version(LogDriver *d, const gchar *name)
{
  return se_export_tls_set_ssl_version(_tls((StructuredEventDriver *) d), name);
}

void
structured_event_dd_set_use_system_cert_store(LogDriver *d, gboolean use)
{
  _tls((StructuredEventDriver *) d)->use_system_cert_store = use;
}

gboolean
structured_event_dd_set_packet_size(LogDriver *d, gint64 size)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_sink_ctf_packet_size_is_valid(size))
    return FALSE;
  self->ctf.packet_size = size;
  _option_set(self, SE_OPTION_PACKET_SIZE);
  return TRUE;
}

gboolean
structured_event_dd_set_max_stream_size(LogDriver *d, gint64 size)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (!se_sink_ctf_max_stream_size_is_valid(size))
    return FALSE;
  self->ctf.max_stream_size = size;
  _option_set(self, SE_OPTION_MAX_STREAM_SIZE);
  return TRUE;
}

LogTemplateOptions *
structured_event_dd_get_template_options(LogDriver *d)
{
  return &((StructuredEventDriver *) d)->template_options;
}

FilePermOptions *
structured_event_dd_get_file_perm_options(LogDriver *d)
{
  return &((StructuredEventDriver *) d)->opener_options.file_perm_options;
}

void
structured_event_dd_set_create_dirs(LogDriver *d, gboolean create_dirs)
{
  ((StructuredEventDriver *) d)->opener_options.create_dirs = create_dirs;
}

static gboolean
_file_options_set(const AppendOpenerOptions *options)
{
  const FilePermOptions *perms = &options->file_perm_options;

  return options->create_dirs != -1
         || perms->file_uid != -1 || perms->file_gid != -1 || perms->file_perm != -1
         || perms->dir_uid != -1 || perms->dir_gid != -1 || perms->dir_perm != -1;
}

/* "sink(journal-export) and sink(ctf)" */
static void
_sink_list(guint sinks, gchar *buf, gsize size)
{
  buf[0] = 0;
  for (guint i = 0, n = 0; i < G_N_ELEMENTS(sink_classes); i++)
    {
      if (!(sinks & sink_classes[i].bit))
        continue;
      if (n++)
        g_strlcat(buf, " and ", size);
      g_strlcat(buf, "sink(", size);
      g_strlcat(buf, sink_classes[i].name, size);
      g_strlcat(buf, ")", size);
    }
}

gboolean
structured_event_dd_check_options(LogDriver *d, GError **error)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;
  gchar sinks[128];

  /* the file options are syslog-ng's own grammar: set is what differs from unset */
  if (_file_options_set(&self->opener_options))
    _option_set(self, SE_OPTION_FILE_PERMS);
  if ((self->options_set & (1u << SE_OPTION_FILE_PERMS)) && !self->path)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "create-dirs(), owner(), group(), perm(), dir-owner(), dir-group() "
                  "and dir-perm() apply to what path() creates: they need sink(journal-export) or sink(ctf) with path()");
      return FALSE;
    }
  for (guint option = 0; option < SE_OPTION_MAX; option++)
    {
      if (!(self->options_set & (1u << option)) || (option_table[option].sinks & self->sink_class->bit))
        continue;
      _sink_list(option_table[option].sinks, sinks, sizeof(sinks));
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "%s cannot be used with sink(%s), it is an option of %s",
                  option_table[option].name, self->sink_class->name, sinks);
      return FALSE;
    }
  return self->sink_class->check_options(self, error);
}

static void
_fields_dropped(LogThreadedDestDriver *s, guint count)
{
  structured_event_dd_fields_dropped((StructuredEventDriver *) s, count);
}

static LogThreadedDestWorker *
_construct_worker(LogThreadedDestDriver *s, gint worker_index)
{
  StructuredEventDriver *self = (StructuredEventDriver *) s;

  return structured_event_dw_new(s, worker_index, &self->event_options,
                                 self->sink_class->construct(self, worker_index), _fields_dropped);
}

void
structured_event_dd_fields_dropped(StructuredEventDriver *self, guint count)
{
  gint now = (gint) (g_get_monotonic_time() / G_USEC_PER_SEC);
  gint last = g_atomic_int_get(&self->last_cap_warning);

  stats_counter_add(self->dropped_fields, count);
  if ((last == 0 || now - last >= 60) && g_atomic_int_compare_and_exchange(&self->last_cap_warning, last, now))
    msg_warning("structured-event(): message has more fields than max-fields(), extra fields dropped "
                "(warning at most once a minute, see the dropped_fields counter)",
                evt_tag_str("driver", self->super.super.super.id),
                log_pipe_location_tag(&self->super.super.super.super),
                evt_tag_int("max_fields", self->max_fields),
                evt_tag_int("dropped", count));
}

/*
 * Named as http() names its counters: every part of the sink's instance
 * "structured-event,<sink>,<target>" is a label (driver, sink, and path,
 * host or socket), and the parts joined are the legacy instance, the same on
 * 3.38 and 4.x.
 */
static void
_stats_name(LogThreadedDestDriver *d, FdStatsName *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;
  const gchar *sink, *target;

  self->sink_class->format_instance(self, self->stats_instance, sizeof(self->stats_instance));
  sink = strchr(self->stats_instance, ',');
  target = sink ? strchr(sink + 1, ',') : NULL;
  g_assert(target);

  fd_stats_name_add(name, "driver", "structured-event");
  fd_stats_name_add(name, "sink", self->sink_class->name);
  fd_stats_name_add(name, self->path ? "path" : self->export.url ? "url" : self->export.host ? "host" : "socket",
                    target + 1);
}

FD_STATS_KEY_FUNC(_format_stats_key, _stats_name)

static const gchar *
_format_persist_name(const LogPipe *d)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;
  static gchar persist_name[1024];

  if (d->persist_name)
    g_snprintf(persist_name, sizeof(persist_name), "structured-event.%s", d->persist_name);
  else
    {
      self->sink_class->format_instance(self, self->stats_instance, sizeof(self->stats_instance));
      g_snprintf(persist_name, sizeof(persist_name), "structured-event.%s", self->stats_instance);
    }
  return persist_name;
}

static void
_register_counters(StructuredEventDriver *self, gboolean reg)
{
  fd_stats_driver_counter(&self->super, _stats_name, reg, "output_dropped_fields_total", "dropped_fields",
                          &self->dropped_fields);
  fd_stats_driver_counter(&self->super, _stats_name, reg, "output_memfd_sends_total", "memfd_sends",
                          &self->memfd_sends);
}

static gboolean
_dd_init(LogPipe *s)
{
  StructuredEventDriver *self = (StructuredEventDriver *) s;
  GlobalConfig *cfg = log_pipe_get_config(s);

  log_template_options_init(&self->template_options, cfg);
  append_opener_options_init(&self->opener_options, cfg);

  se_selection_free(self->event_options.selection);
  self->event_options.selection = se_selection_new(cfg, self->value_pairs);
  self->event_options.prefix = self->prefix ? self->prefix : "";
  self->event_options.type_hints = self->type_hints && !self->sink_class->native_types;
  self->event_options.max_fields = self->max_fields;
  self->event_options.message_id = self->message_id;
  self->event_options.template_options = &self->template_options;

  if (!log_threaded_dest_driver_init_method(s))
    return FALSE;
  _register_counters(self, TRUE);
  return TRUE;
}

static gboolean
_dd_deinit(LogPipe *s)
{
  StructuredEventDriver *self = (StructuredEventDriver *) s;
  gboolean result;

  _register_counters(self, FALSE);
  result = log_threaded_dest_driver_deinit_method(s);
  se_selection_free(self->event_options.selection);
  self->event_options.selection = NULL;
  return result;
}

static void
_dd_free(LogPipe *s)
{
  StructuredEventDriver *self = (StructuredEventDriver *) s;

  se_sink_journald_options_destroy(&self->journald);
  se_sink_export_options_destroy(&self->export);
  se_sink_ctf_options_destroy(&self->ctf);
  g_free(self->prefix);
  log_template_unref(self->message_id);
  log_template_unref(self->path);
  if (self->value_pairs)
    value_pairs_unref(self->value_pairs);
  log_template_options_destroy(&self->template_options);
  append_opener_options_destroy(&self->opener_options);
  se_selection_free(self->event_options.selection);
  log_threaded_dest_driver_free(s);
}

LogDriver *
structured_event_dd_new(GlobalConfig *cfg)
{
  StructuredEventDriver *self = g_new0(StructuredEventDriver, 1);

  log_threaded_dest_driver_init_instance(&self->super, cfg);
  self->super.super.super.super.init = _dd_init;
  self->super.super.super.super.deinit = _dd_deinit;
  self->super.super.super.super.free_fn = _dd_free;
  self->super.super.super.super.generate_persist_name = _format_persist_name;
  fd_threaded_dest_driver_set_stats_key(&self->super, _format_stats_key);
  fd_threaded_dest_driver_count_written_bytes(&self->super);
  self->super.stats_source = stats_register_type("structured-event");
  self->super.worker.construct = _construct_worker;

  /* one sendmsg() per event or one write() per batch: batch by default */
  log_threaded_dest_driver_set_batch_lines(&self->super.super.super, SE_DEFAULT_BATCH_LINES);

  self->sink_class = &sink_classes[0];
  se_sink_export_options_defaults(&self->export);
  self->type_hints = TRUE;
  self->max_fields = SE_DEFAULT_MAX_FIELDS;
  self->ctf_drops_reported = SE_CTF_DROPS_UNSET;
  log_template_options_defaults(&self->template_options);
  append_opener_options_defaults(&self->opener_options);
  return &self->super.super.super;
}
