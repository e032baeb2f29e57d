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
#ifndef FASTFILE_H_INCLUDED
#define FASTFILE_H_INCLUDED

#include "logthrdest/logthrdestdrv.h"
#include "template/templates.h"
#include "fastfile-worker.h"

#define FASTFILE_DEFAULT_BATCH_LINES 1000
/* as file(): write out as soon as the queue is empty.  A flow-controlled
 * source's window can be smaller than a batch; waiting for more would stall it */
#define FASTFILE_DEFAULT_BATCH_TIMEOUT -1
#define FASTFILE_DEFAULT_MAX_OPEN_FILES 256

typedef struct _FastFileDriver
{
  LogThreadedDestDriver super;

  LogTemplate *filename_template;
  gboolean filename_is_literal;
  /* template(): NULL means file()'s default (global file-template() or the built-in format) */
  LogTemplate *template;
  gint template_escape;               /* -1: not set */
  LogTemplateOptions template_options;

  AppendOpenerOptions opener_options;
  gchar *encoding;
  LineEnding line_ending;
  gboolean bom;
  gsize buffer_size;
  gboolean fsync;
  gint time_reap;
  gint max_open_files;
  FastFileRotation rotation;          /* logrotate() */
  FastFileCompression compression;    /* compression(), compression-level() */
  gboolean compression_level_set;

  /* file()'s writer options (LogWriter's): flags(), pad-size(), truncate-size(), suppress(), mark-*() */
  guint32 writer_flags;               /* LWO_* */
  FastFileRecordOptions record_options;
  FastFileSuppressOptions suppress_options;   /* seconds -1: global suppress() */
  FastFileMarkOptions mark_options;           /* file()'s default mode none; freq -1: global mark-freq() */

  /* bumped by syslog-ng-ctl reopen (main thread), checked by the workers */
  gint reopen_generation;
  /* guards posting the workers' reopen events against their threads going away */
  GMutex reopen_lock;

  /* what the workers run with, filled at init */
  FastFileWorkerOptions worker_options;
  /* the framework's queue(), for messages the direct path does not take */
  void (*queue_in_framework)(LogPipe *s, LogMessage *msg, const LogPathOptions *path_options);
  gint next_worker;
} FastFileDriver;

LogDriver *fastfile_dd_new(LogTemplate *filename_template, GlobalConfig *cfg);

gboolean fastfile_dd_set_template(LogDriver *d, const gchar *template_or_name, GError **error);
void fastfile_dd_set_template_escape(LogDriver *d, gboolean enable);
LogTemplateOptions *fastfile_dd_get_template_options(LogDriver *d);
FilePermOptions *fastfile_dd_get_file_perm_options(LogDriver *d);
gboolean fastfile_dd_set_encoding(LogDriver *d, const gchar *encoding, GError **error);
gboolean fastfile_dd_set_line_ending(LogDriver *d, const gchar *line_ending);
void fastfile_dd_set_bom(LogDriver *d, gboolean bom);
void fastfile_dd_set_buffer_size(LogDriver *d, gsize buffer_size);
void fastfile_dd_set_fsync(LogDriver *d, gboolean fsync);
void fastfile_dd_set_time_reap(LogDriver *d, gint time_reap);
void fastfile_dd_set_max_open_files(LogDriver *d, gint max_open_files);
void fastfile_dd_set_create_dirs(LogDriver *d, gboolean create_dirs);
void fastfile_dd_set_follow_symlinks(LogDriver *d, gboolean follow_symlinks);
/* flags(): file()'s writer flags; -1 for a flag file() does not have */
gint fastfile_dd_lookup_flag(const gchar *flag);
void fastfile_dd_set_writer_flags(LogDriver *d, guint32 flags);
gboolean fastfile_dd_process_seqnum_flag(LogDriver *d, const gchar *flag);
const gchar *fastfile_dd_flag_names(void);
void fastfile_dd_set_pad_size(LogDriver *d, gint pad_size);
void fastfile_dd_set_truncate_size(LogDriver *d, gint truncate_size);
void fastfile_dd_set_suppress(LogDriver *d, gint seconds);
void fastfile_dd_set_mark_freq(LogDriver *d, gint seconds);
/* FALSE for a mode file() does not have */
gboolean fastfile_dd_set_mark_mode(LogDriver *d, const gchar *mode);
void fastfile_dd_set_overwrite_if_older(LogDriver *d, gint seconds);
void fastfile_dd_set_symlink_as(LogDriver *d, const gchar *symlink_as);
void fastfile_dd_set_logrotate_enable(LogDriver *d, gboolean enable);
void fastfile_dd_set_logrotate_size(LogDriver *d, guint64 size);
void fastfile_dd_set_logrotate_rotations(LogDriver *d, gint rotations);
/* FALSE for a name that is not gzip, zstd or none */
gboolean fastfile_dd_set_compression(LogDriver *d, const gchar *compression);
void fastfile_dd_set_compression_level(LogDriver *d, gint64 level);
/* after all options: why compression-level() does not fit compression(), NULL when it does */
const gchar *fastfile_dd_compression_problem(LogDriver *d);

void fastfile_dd_global_init(void);
/* init: what the workers run with, from the options set (after the template and perm options are initialized) */
void fastfile_dd_init_worker_options(FastFileDriver *self);

#endif
