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
#include "se-sink-journald.h"
#include "se-sink-export.h"
#include "se-sink-ctf.h"
#include "se-ctf-packet.h"
#include "se-name.h"

#include "messages.h"
#include "compat-stats.h"

#include <string.h>

static const SeSinkClass *sink_classes[] =
{
  &se_sink_journald_class,
  &se_sink_export_class,
  &se_sink_ctf_class,
  NULL
};

G_DEFINE_QUARK(structured-event-error-quark, structured_event_error)

const gchar *
structured_event_sink_names(void)
{
  static gchar names[256];

  if (!names[0])
    {
      for (gint i = 0; sink_classes[i]; i++)
        {
          if (i)
            g_strlcat(names, ", ", sizeof(names));
          g_strlcat(names, sink_classes[i]->name, sizeof(names));
        }
    }
  return names;
}

gboolean
structured_event_dd_set_sink(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  for (gint i = 0; sink_classes[i]; i++)
    {
      if (strcmp(sink_classes[i]->name, name) == 0)
        {
          self->sink_class = sink_classes[i];
          return TRUE;
        }
    }
  return FALSE;
}

void
structured_event_dd_set_socket(LogDriver *d, const gchar *path)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  g_free(self->socket);
  self->socket = g_strdup(path);
}

gboolean
structured_event_dd_set_namespace(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;
  gsize len = strlen(name);

  /* journald's namespace names: what fits a unit instance name, no '/' */
  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum(name[i]) && !strchr("_.-", name[i]))
      return FALSE;

  g_free(self->namespace_);
  self->namespace_ = g_strdup(name);
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
}

void
structured_event_dd_set_host(LogDriver *d, const gchar *host)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  g_free(self->host);
  self->host = g_strdup(host);
}

void
structured_event_dd_set_port(LogDriver *d, gint port)
{
  ((StructuredEventDriver *) d)->port = port;
}

gboolean
structured_event_dd_set_transport(LogDriver *d, const gchar *name)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (strcmp(name, "raw") == 0)
    self->transport = SE_EXPORT_TRANSPORT_RAW;
  else if (strcmp(name, "http") == 0)
    self->transport = SE_EXPORT_TRANSPORT_HTTP;
  else
    return FALSE;
  return TRUE;
}

gboolean
structured_event_dd_set_packet_size(LogDriver *d, gint64 size)
{
  if (!se_ctf_packet_size_is_valid(size))
    return FALSE;
  ((StructuredEventDriver *) d)->packet_size = (gint) size;
  return TRUE;
}

gboolean
structured_event_dd_set_max_stream_size(LogDriver *d, gint64 size)
{
  if (size < SE_CTF_PACKET_SIZE_MIN)
    return FALSE;
  ((StructuredEventDriver *) d)->max_stream_size = size;
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

gboolean
structured_event_dd_check_options(LogDriver *d, GError **error)
{
  StructuredEventDriver *self = (StructuredEventDriver *) d;

  if (self->socket && self->namespace_)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "socket() and namespace() are mutually exclusive");
      return FALSE;
    }
  if (self->sink_class != &se_sink_ctf_class && (self->packet_size || self->max_stream_size))
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "%s cannot be used with sink(%s), it is an option of sink(ctf)",
                  self->packet_size ? "packet-size()" : "max-stream-size()", self->sink_class->name);
      return FALSE;
    }
  if (!self->path && _file_options_set(&self->opener_options))
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "create-dirs(), owner(), group(), perm(), dir-owner(), dir-group() "
                  "and dir-perm() apply to what path() creates: they need sink(journal-export) or sink(ctf) with path()");
      return FALSE;
    }
  if (self->sink_class != &se_sink_export_class && self->transport)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "transport() cannot be used with sink(%s), it is an option of "
                  "sink(journal-export) with host()", self->sink_class->name);
      return FALSE;
    }
  return self->sink_class->check_options(self, error);
}

const gchar *
structured_event_dd_journald_socket(StructuredEventDriver *self, gchar *buf, gsize size)
{
  if (self->namespace_)
    {
      g_snprintf(buf, size, "/run/systemd/journal.%s/socket", self->namespace_);
      return buf;
    }
  return self->socket ? self->socket : SE_DEFAULT_SOCKET;
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
  fd_stats_name_add(name, self->path ? "path" : self->host ? "host" : "socket", target + 1);
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
  self->event_options.type_hints = self->type_hints;
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

  g_free(self->socket);
  g_free(self->namespace_);
  g_free(self->prefix);
  g_free(self->host);
  log_template_unref(self->message_id);
  log_template_unref(self->path);
  if (self->value_pairs)
    value_pairs_unref(self->value_pairs);
  log_template_options_destroy(&self->template_options);
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
  self->super.worker.construct = structured_event_dw_new;

  /* one sendmsg() per event or one write() per batch: batch by default */
  log_threaded_dest_driver_set_batch_lines(&self->super.super.super, SE_DEFAULT_BATCH_LINES);

  self->sink_class = &se_sink_journald_class;
  self->type_hints = TRUE;
  self->max_fields = SE_DEFAULT_MAX_FIELDS;
  self->ctf_drops_reported = G_MAXSIZE;
  log_template_options_defaults(&self->template_options);
  append_opener_options_defaults(&self->opener_options);
  return &self->super.super.super;
}
