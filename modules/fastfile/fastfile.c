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
#include "fastfile-worker.h"
#include "apphook.h"
#include "cfg.h"
#include "cfg-tree.h"
#include "messages.h"
#include "compat-stats.h"
#include "compat-template.h"

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

static gboolean
_init(LogPipe *s)
{
  FastFileDriver *self = (FastFileDriver *) s;
  GlobalConfig *cfg = log_pipe_get_config(s);

  log_template_options_init(&self->template_options, cfg);
  append_opener_options_init(&self->opener_options, cfg);
  if (self->time_reap == -1)
    self->time_reap = cfg->time_reap;

  if (self->template)
    log_template_set_escape(self->template, self->template_escape);
  else if (cfg->file_template)
    self->template = log_template_ref(cfg->file_template);

  if (self->filename_is_literal && append_opener_is_spurious_path(fd_template_str(self->filename_template)))
    {
      msg_error("fast-file(): spurious path in the file name, refusing to start",
                evt_tag_str("path", fd_template_str(self->filename_template)),
                log_pipe_location_tag(s));
      return FALSE;
    }

  if (!log_threaded_dest_driver_init_method(s))
    return FALSE;

  fastfile_drivers = g_list_prepend(fastfile_drivers, self);
  return TRUE;
}

static gboolean
_deinit(LogPipe *s)
{
  fastfile_drivers = g_list_remove(fastfile_drivers, s);
  return log_threaded_dest_driver_deinit_method(s);
}

static void
_free(LogPipe *s)
{
  FastFileDriver *self = (FastFileDriver *) s;

  log_template_unref(self->filename_template);
  log_template_unref(self->template);
  log_template_options_destroy(&self->template_options);
  g_free(self->encoding);
  g_mutex_clear(&self->reopen_lock);
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
  self->super.worker.construct = fastfile_worker_new;
  self->super.batch_lines = FASTFILE_DEFAULT_BATCH_LINES;
  self->super.batch_timeout = FASTFILE_DEFAULT_BATCH_TIMEOUT;

  self->filename_template = filename_template;
  self->filename_is_literal = log_template_is_literal_string(filename_template);
  log_template_options_defaults(&self->template_options);
  append_opener_options_defaults(&self->opener_options);
  self->line_ending = LINE_ENDING_LF;
  self->time_reap = -1;
  self->max_open_files = FASTFILE_DEFAULT_MAX_OPEN_FILES;
  g_mutex_init(&self->reopen_lock);

  fastfile_dd_global_init();
  return &self->super.super.super;
}
