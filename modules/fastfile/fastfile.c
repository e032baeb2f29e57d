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
#include "fastfile.h"
#include "apphook.h"
#include "cfg.h"
#include "cfg-tree.h"
#include "logwriter.h"
#include "messages.h"
#include "compat-stats.h"
#include "compat-template.h"
#include "compat-thrdest.h"

#include <string.h>

/* every live fast-file() driver, for syslog-ng-ctl reopen (main thread only) */
static GList *fastfile_drivers;

gboolean
fastfile_dd_set_template(LogDriver *d, const gchar *template_or_name, GError **error)
{
  FastFileDriver *self = (FastFileDriver *) d;
  GlobalConfig *cfg = log_pipe_get_config(&d->super);
  LogTemplate *template = cfg_tree_check_inline_template(&cfg->tree, template_or_name, error);

  if (!template)
    return FALSE;
  log_template_unref(self->template);
  self->template = template;
  return TRUE;
}

void
fastfile_dd_set_template_escape(LogDriver *d, gboolean enable)
{
  ((FastFileDriver *) d)->template_escape = enable;
}

LogTemplateOptions *
fastfile_dd_get_template_options(LogDriver *d)
{
  return &((FastFileDriver *) d)->template_options;
}

FilePermOptions *
fastfile_dd_get_file_perm_options(LogDriver *d)
{
  return &((FastFileDriver *) d)->opener_options.file_perm_options;
}

gboolean
fastfile_dd_set_encoding(LogDriver *d, const gchar *encoding, GError **error)
{
  FastFileDriver *self = (FastFileDriver *) d;
  /* fail at config time, naming the charset, rather than in a worker thread */
  LineEncoder *probe = line_encoder_new(encoding, LINE_ENDING_LF, error);

  if (!probe)
    return FALSE;
  line_encoder_free(probe);
  g_free(self->encoding);
  self->encoding = g_strdup(encoding);
  return TRUE;
}

gboolean
fastfile_dd_set_line_ending(LogDriver *d, const gchar *line_ending)
{
  return line_ending_parse(line_ending, &((FastFileDriver *) d)->line_ending);
}

void
fastfile_dd_set_bom(LogDriver *d, gboolean bom)
{
  ((FastFileDriver *) d)->bom = bom;
}

void
fastfile_dd_set_buffer_size(LogDriver *d, gsize buffer_size)
{
  ((FastFileDriver *) d)->buffer_size = buffer_size;
}

void
fastfile_dd_set_fsync(LogDriver *d, gboolean fsync)
{
  ((FastFileDriver *) d)->fsync = fsync;
}

void
fastfile_dd_set_time_reap(LogDriver *d, gint time_reap)
{
  ((FastFileDriver *) d)->time_reap = time_reap;
}

void
fastfile_dd_set_max_open_files(LogDriver *d, gint max_open_files)
{
  ((FastFileDriver *) d)->max_open_files = max_open_files;
}

void
fastfile_dd_set_create_dirs(LogDriver *d, gboolean create_dirs)
{
  ((FastFileDriver *) d)->opener_options.create_dirs = create_dirs;
}

void
fastfile_dd_set_follow_symlinks(LogDriver *d, gboolean follow_symlinks)
{
  ((FastFileDriver *) d)->opener_options.follow_symlinks = follow_symlinks;
}

/* file()'s flags(), by file()'s names (LogWriter's LWO_* bits) */
gint
fastfile_dd_lookup_flag(const gchar *flag)
{
  static const struct
  {
    const gchar *name;
    guint32 bit;
  } flags[] =
  {
    { "syslog-protocol", LWO_SYSLOG_PROTOCOL },
    { "no-multi-line", LWO_NO_MULTI_LINE },
    { "threaded", LWO_THREADED },
    { "ignore-errors", LWO_IGNORE_ERRORS },
  };

  for (gsize i = 0; i < G_N_ELEMENTS(flags); i++)
    {
      if (strcmp(flag, flags[i].name) == 0)
        return flags[i].bit;
    }
  return -1;
}

/* 4.x's flags(seqnum) and the others (FALSE on 3.38, which has none) */
gboolean
fastfile_dd_process_seqnum_flag(LogDriver *d, const gchar *flag)
{
  return fd_thrdest_process_seqnum_flag(d, flag);
}

const gchar *
fastfile_dd_flag_names(void)
{
  static gchar names[200];

  if (!names[0])
    g_snprintf(names, sizeof(names), "syslog-protocol, no-multi-line, threaded, ignore-errors%s",
               fd_thrdest_seqnum_flag_names());
  return names;
}

void
fastfile_dd_set_writer_flags(LogDriver *d, guint32 flags)
{
  ((FastFileDriver *) d)->writer_flags = flags;
}

void
fastfile_dd_set_pad_size(LogDriver *d, gint pad_size)
{
  ((FastFileDriver *) d)->record_options.pad_size = pad_size;
}

void
fastfile_dd_set_truncate_size(LogDriver *d, gint truncate_size)
{
  ((FastFileDriver *) d)->record_options.truncate_size = truncate_size;
}

void
fastfile_dd_set_suppress(LogDriver *d, gint seconds)
{
  ((FastFileDriver *) d)->suppress_options.seconds = seconds;
}

void
fastfile_dd_set_mark_freq(LogDriver *d, gint seconds)
{
  ((FastFileDriver *) d)->mark_options.freq = seconds;
}

gboolean
fastfile_dd_set_mark_mode(LogDriver *d, const gchar *mode)
{
  gint value = cfg_lookup_mark_mode(mode);

  if (value < 0)
    return FALSE;
  ((FastFileDriver *) d)->mark_options.mode = value;
  return TRUE;
}

void
fastfile_dd_set_overwrite_if_older(LogDriver *d, gint seconds)
{
  ((FastFileDriver *) d)->opener_options.overwrite_if_older = seconds;
}

void
fastfile_dd_set_symlink_as(LogDriver *d, const gchar *symlink_as)
{
  append_opener_options_set_symlink_as(&((FastFileDriver *) d)->opener_options, symlink_as);
}

void
fastfile_dd_set_logrotate_enable(LogDriver *d, gboolean enable)
{
  ((FastFileDriver *) d)->rotation.enable = enable;
}

void
fastfile_dd_set_logrotate_size(LogDriver *d, guint64 size)
{
  ((FastFileDriver *) d)->rotation.size = size;
}

void
fastfile_dd_set_logrotate_rotations(LogDriver *d, gint rotations)
{
  ((FastFileDriver *) d)->rotation.rotations = rotations;
}

gboolean
fastfile_dd_set_compression(LogDriver *d, const gchar *compression)
{
  return batch_compression_parse(compression, &((FastFileDriver *) d)->compression.type);
}

void
fastfile_dd_set_compression_level(LogDriver *d, gint64 level)
{
  FastFileDriver *self = (FastFileDriver *) d;

  /* out of gint's range is out of every codec's: refused by the check */
  self->compression.level = CLAMP(level, G_MININT + 1, G_MAXINT);
  self->compression_level_set = TRUE;
}

const gchar *
fastfile_dd_compression_problem(LogDriver *d)
{
  FastFileDriver *self = (FastFileDriver *) d;
  /* the config is parsed by one thread */
  static gchar message[160];
  gint min, max;

  if (!self->compression_level_set)
    return NULL;
  if (self->compression.type == BATCH_COMPRESSION_NONE)
    {
      g_snprintf(message, sizeof(message),
                 "fast-file(): compression-level(%d) needs compression(gzip) or compression(zstd)",
                 self->compression.level);
      return message;
    }
  if (!batch_compression_level_valid(self->compression.type, self->compression.level, &min, &max))
    {
      g_snprintf(message, sizeof(message),
                 "fast-file(): compression-level(%d) is out of range for compression(%s): %d to %d",
                 self->compression.level, batch_compression_name(self->compression.type), min, max);
      return message;
    }
  return NULL;
}

/* named as file() names its counters: driver="fast-file", filename="<path template>" (the legacy instance) */
static void
_stats_name(LogThreadedDestDriver *d, FdStatsName *name)
{
  FastFileDriver *self = (FastFileDriver *) d;

  name->driver = "fast-file";
  fd_stats_name_add(name, "filename", fd_template_str(self->filename_template));
}

FD_STATS_KEY_FUNC(_format_stats_key, _stats_name)

static const gchar *
_format_persist_name(const LogPipe *s)
{
  const FastFileDriver *self = (const FastFileDriver *) s;
  static gchar persist_name[1024];

  g_snprintf(persist_name, sizeof(persist_name), "fast-file.%s",
             s->persist_name ? s->persist_name : fd_template_str(self->filename_template));
  return persist_name;
}

void
fastfile_dd_init_worker_options(FastFileDriver *self)
{
  FastFileWorkerOptions *options = &self->worker_options;
  LogThreadedDestDriver *s = &self->super;

  memset(options, 0, sizeof(*options));
  options->lane.files = (FastFileSetOptions)
  {
    .opener = &self->opener_options,
    .max_open = self->max_open_files,
    /* one file takes whole batches: size for them up front; with templated
     * names a file takes its share, and its buffer grows to what it needs */
    .expected_records = self->filename_is_literal ? MAX(s->batch_lines, 1) : 1,
    .fixed_capacity = self->buffer_size,
    .fsync = self->fsync,
    .single_writer = s->num_workers <= 1,
    .literal_name = self->filename_is_literal,
    .retries = s->retries_on_error_max,
    .ignore_errors = (self->writer_flags & LWO_IGNORE_ERRORS) != 0,
    .rotation = &self->rotation,
    .compression = &self->compression,
    .driver_id = s->super.super.id,
    .owner = &s->super.super.super,
  };
  options->lane.filename_template = self->filename_template;
  options->lane.filename_is_literal = self->filename_is_literal;
  options->lane.template_options = &self->template_options;
  options->lane.template = self->template;
  options->lane.record = &self->record_options;
  options->lane.suppress = &self->suppress_options;
  options->lane.marks = &self->mark_options;
  options->lane.seq_num = &s->shared_seq_num;
  options->lane.encoding = self->encoding;
  options->lane.line_ending = self->line_ending;
  options->lane.bom = self->bom;
  options->direct = TRUE;
  options->keep_callers_ref = fd_pipe_nothing_after(&s->super.super.super);
  options->time_reap = self->time_reap;
  options->reopen_generation = &self->reopen_generation;
  options->reopen_lock = &self->reopen_lock;
}

/* The direct path: the delivering thread formats the message into a
 * worker's lane itself (fastfile_worker_queue()).  A worker that does not
 * take it (not running, or its queue must see every message) leaves it to
 * the framework's queue.  Messages of one main loop thread stay in one lane,
 * so their order holds. */
static void
_queue(LogPipe *s, LogMessage *msg, const LogPathOptions *path_options)
{
  FastFileDriver *self = (FastFileDriver *) s;
  gint thread_id = fd_main_loop_worker_thread_index();
  gint n = self->super.created_workers;

  if (n > 0)
    {
      guint index;
      /* 4.x's worker-partition-key(): messages with the same key go to the same worker */
      if (!fd_thrdest_partition_worker(&self->super, msg, n, &index))
        index = thread_id >= 0 ? (guint) thread_id : (guint) g_atomic_int_add(&self->next_worker, 1);
      if (fastfile_worker_queue((FastFileWorker *) self->super.workers[index % n], msg, path_options, thread_id))
        return;
    }
  self->queue_in_framework(s, msg, path_options);
}

/* file()'s counters of its writer options, by file()'s names and stats level;
 * each registered only while its option is in use */
static void
_writer_counters(FastFileDriver *self, gboolean reg)
{
  gboolean compressed = self->compression.type != BATCH_COMPRESSION_NONE;
  const struct
  {
    const gchar *name;
    StatsCounterItem **counter;
    gboolean used;
  } counters[] =
  {
    { "truncated_count", &self->record_options.truncated_count, TRUE },
    { "truncated_bytes", &self->record_options.truncated_bytes, TRUE },
    { "rotations", &self->rotation.rotated, fastfile_rotation_enabled(&self->rotation) },
    { "uncompressed_bytes", &self->compression.bytes_in, compressed },
    { "compressed_bytes", &self->compression.bytes_out, compressed },
  };
  StatsClusterKey events_storage, key;
  gchar events_instance[1024], instance[1024];
  StatsClusterKey *events = fd_stats_driver_events_key(&self->super, _stats_name, &events_storage,
                            events_instance, sizeof(events_instance));
  gint level = fd_pipe_stats_level(&self->super.super.super.super, STATS_LEVEL1);

  stats_lock();
  for (gsize i = 0; i < G_N_ELEMENTS(counters); i++)
    {
      /* the key points into instance: used before the next one is made */
      fd_stats_driver_legacy_key_set(&self->super, _stats_name, counters[i].name, &key, instance, sizeof(instance));
      if (reg && counters[i].used)
        stats_register_counter(level, &key, SC_TYPE_SINGLE_VALUE, counters[i].counter);
      else if (!reg && *counters[i].counter)
        stats_unregister_counter(&key, SC_TYPE_SINGLE_VALUE, counters[i].counter);
    }
  if (reg && self->suppress_options.seconds > 0)
    stats_register_counter(level, events, SC_TYPE_SUPPRESSED, &self->suppress_options.suppressed);
  else if (!reg && self->suppress_options.suppressed)
    stats_unregister_counter(events, SC_TYPE_SUPPRESSED, &self->suppress_options.suppressed);
  stats_unlock();
  fd_stats_events_key_free(events);
}

static void
_register_writer_counters(FastFileDriver *self)
{
  _writer_counters(self, TRUE);
}

static void
_unregister_writer_counters(FastFileDriver *self)
{
  _writer_counters(self, FALSE);
}

static gboolean
_init(LogPipe *s)
{
  FastFileDriver *self = (FastFileDriver *) s;
  GlobalConfig *cfg = log_pipe_get_config(s);

  log_template_options_init(&self->template_options, cfg);
  append_opener_options_init(&self->opener_options, cfg);
  if (self->time_reap == -1)
    self->time_reap = cfg->time_reap;

  /* as file(): on 4.x a template option of this destination; on 3.38 a
   * property of the template, and a named one (or file-template()) is shared
   * with other destinations and is not ours to change */
  if (self->template_escape != -1
      && !fd_template_options_set_escape(&self->template_options, self->template_escape))
    {
      if (self->template && self->template->def_inline)
        log_template_set_escape(self->template, self->template_escape);
      else
        msg_error("Macro escaping can only be specified for inline templates", log_pipe_location_tag(s));
    }
  /* with flags(syslog-protocol) template() is the message part, file-template() is not used */
  self->record_options.syslog_protocol = (self->writer_flags & LWO_SYSLOG_PROTOCOL) != 0;
  self->record_options.no_multi_line = (self->writer_flags & LWO_NO_MULTI_LINE) != 0;
  gboolean numbered, all;
  fd_thrdest_seqnum_policy(&self->super, &numbered, &all);
  self->record_options.no_seq_num = !numbered;
  self->record_options.seq_num_all = all;
  if (!self->template && cfg->file_template && !self->record_options.syslog_protocol)
    self->template = log_template_ref(cfg->file_template);
  self->record_options.seq_num_read = self->record_options.syslog_protocol
                                      || fastfile_template_reads_seq_num(self->template)
                                      || fastfile_template_reads_seq_num(self->filename_template);
  /* flags(ignore-errors): a file that fails gives up its records at once instead of retrying,
   * and the next batch is tried without waiting for time-reopen() */
  if (self->writer_flags & LWO_IGNORE_ERRORS)
    self->super.retries_on_error_max = 1;

  if (self->filename_is_literal && append_opener_is_spurious_path(fd_template_str(self->filename_template)))
    {
      msg_error("fast-file(): spurious path in the file name, refusing to start",
                evt_tag_str("driver", self->super.super.super.id),
                evt_tag_str("path", fd_template_str(self->filename_template)),
                log_pipe_location_tag(s));
      return FALSE;
    }

  /* file()'s defaults from options { }: suppress(), mark-mode(global), mark-freq() */
  if (self->suppress_options.seconds == -1)
    self->suppress_options.seconds = cfg->suppress;
  if (self->mark_options.mode == MM_GLOBAL)
    self->mark_options.mode = cfg->mark_mode;
  if (self->mark_options.freq == -1)
    self->mark_options.freq = cfg->mark_freq;
  host_resolve_options_init(&self->mark_options.host_resolve_options, &cfg->host_resolve_options);

  self->record_options.driver_id = self->super.super.super.id;
  self->record_options.owner = s;
  _register_writer_counters(self);
  fastfile_dd_init_worker_options(self);
  if (!log_threaded_dest_driver_init_method(s))
    {
      _unregister_writer_counters(self);
      return FALSE;
    }

  fastfile_drivers = g_list_prepend(fastfile_drivers, self);
  return TRUE;
}

static gboolean
_deinit(LogPipe *s)
{
  fastfile_drivers = g_list_remove(fastfile_drivers, s);
  gboolean result = log_threaded_dest_driver_deinit_method(s);
  _unregister_writer_counters((FastFileDriver *) s);
  return result;
}

static void
_free(LogPipe *s)
{
  FastFileDriver *self = (FastFileDriver *) s;

  log_template_unref(self->filename_template);
  log_template_unref(self->template);
  log_template_options_destroy(&self->template_options);
  g_free(self->encoding);
  append_opener_options_destroy(&self->opener_options);
  host_resolve_options_destroy(&self->mark_options.host_resolve_options);
  g_mutex_clear(&self->reopen_lock);
  g_mutex_clear(&self->rotation.lock);
  log_threaded_dest_driver_free(s);
}

static void
_reopen_all(gint hook_type, gpointer user_data)
{
  for (GList *l = fastfile_drivers; l; l = l->next)
    {
      FastFileDriver *self = l->data;

      g_atomic_int_inc(&self->reopen_generation);
      for (gint i = 0; i < self->super.created_workers; i++)
        fastfile_worker_request_reopen((FastFileWorker *) self->super.workers[i]);
    }
}

void
fastfile_dd_global_init(void)
{
  static gboolean initialized = FALSE;

  if (!initialized)
    {
      register_application_hook(AH_REOPEN_FILES, _reopen_all, NULL, AHM_RUN_REPEAT);
      initialized = TRUE;
    }
}

static LogThreadedDestWorker *
_construct_worker(LogThreadedDestDriver *s, gint worker_index)
{
  FastFileDriver *self = (FastFileDriver *) s;

  return fastfile_worker_new(s, worker_index, &self->worker_options);
}

LogDriver *
fastfile_dd_new(LogTemplate *filename_template, GlobalConfig *cfg)
{
  FastFileDriver *self = g_new0(FastFileDriver, 1);

  log_threaded_dest_driver_init_instance(&self->super, cfg);
  self->super.super.super.super.init = _init;
  self->super.super.super.super.deinit = _deinit;
  self->super.super.super.super.free_fn = _free;
  self->super.super.super.super.generate_persist_name = _format_persist_name;
  fd_threaded_dest_driver_set_stats_key(&self->super, _format_stats_key);
  fd_threaded_dest_driver_count_written_bytes(&self->super);
  self->super.stats_source = stats_register_type("fast-file");
  /* syslog-ng 4.10 file()'s defaults, once logrotate(enable(yes)) */
  self->rotation.size = 1000000;
  self->rotation.rotations = 1;
  g_mutex_init(&self->rotation.lock);
  self->compression.level = BATCH_COMPRESSION_LEVEL_DEFAULT;
  self->super.worker.construct = _construct_worker;
  self->queue_in_framework = self->super.super.super.super.queue;
  self->super.super.super.super.queue = _queue;
  self->super.batch_lines = FASTFILE_DEFAULT_BATCH_LINES;
  self->super.batch_timeout = FASTFILE_DEFAULT_BATCH_TIMEOUT;

  self->filename_template = filename_template;
  self->filename_is_literal = log_template_is_literal_string(filename_template);
  log_template_options_defaults(&self->template_options);
  append_opener_options_defaults(&self->opener_options);
  self->line_ending = LINE_ENDING_LF;
  self->template_escape = -1;
  self->record_options.truncate_size = -1;
  self->suppress_options.seconds = -1;
  /* file()'s default (not the global mark-mode()), as file() sets it */
  self->mark_options.mode = MM_NONE;
  self->mark_options.freq = -1;
  host_resolve_options_defaults(&self->mark_options.host_resolve_options);
  self->time_reap = -1;
  self->max_open_files = FASTFILE_DEFAULT_MAX_OPEN_FILES;
  g_mutex_init(&self->reopen_lock);

  fastfile_dd_global_init();
  return &self->super.super.super;
}
