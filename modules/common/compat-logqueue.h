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
#ifndef FASTDEST_COMPAT_LOGQUEUE_H_INCLUDED
#define FASTDEST_COMPAT_LOGQUEUE_H_INCLUDED

#include "compat-version.h"
#include "logqueue-fifo.h"
#include "resolved-configurable-paths.h"
#include "logwriter.h"
#include "mainloop-worker.h"

/*
 * What the unit tests and bench/hotpath need to run syslog-ng's machinery
 * in process: a threaded destination's queue (a memory queue with a
 * backlog, without counters: 4.x always keeps a backlog and takes stats key
 * builders) and the module path syslog-ng resolved at start-up.
 */
static inline LogQueue *
fd_log_queue_fifo_new_with_backlog(gint size)
{
#if FD_SYSLOG_NG_4X
  return log_queue_fifo_new(size, NULL, STATS_LEVEL0, NULL, NULL);
#else
  LogQueue *queue = log_queue_fifo_new(size, NULL);

  log_queue_set_use_backlog(queue, TRUE);
  return queue;
#endif
}

/*
 * Giving messages back to a queue (a worker that stops with messages it
 * had taken): 3.38's queues take them back in front, in their old place;
 * 4.x's have no push_head(), so they go to the tail there, behind what
 * reached the queue meanwhile.  The caller gives them newest first when
 * fd_log_queue_takes_back_in_front(), else oldest first.
 */
static inline gboolean
fd_log_queue_takes_back_in_front(void)
{
#if FD_SYSLOG_NG_4X
  return FALSE;
#else
  return TRUE;
#endif
}

static inline void
fd_log_queue_take_back(LogQueue *queue, LogMessage *msg, const LogPathOptions *path_options)
{
#if FD_SYSLOG_NG_4X
  log_queue_push_tail(queue, msg, path_options);
#else
  log_queue_push_head(queue, msg, path_options);
#endif
}

/* as the main loop sizes them: the queues' per-thread inputs, one per delivering thread */
static inline void
fd_log_queue_set_max_threads(gint threads)
{
#if FD_SYSLOG_NG_4X
  main_loop_worker_allocate_thread_space(threads);
  main_loop_worker_finalize_thread_space();
#else
  log_queue_set_max_threads(threads);
#endif
}

/* a LogWriter to compare file()'s formatting with (4.x names its counters with a key builder) */
static inline void
fd_log_writer_set_options(LogWriter *writer, LogWriterOptions *options, const gchar *stats_id)
{
#if FD_SYSLOG_NG_4X
  log_writer_set_options(writer, NULL, options, stats_id, NULL);
#else
  log_writer_set_options(writer, NULL, options, stats_id, stats_id);
#endif
}

/* after the last fd_log_queue_take_back(): 4.x's queue takes messages pushed
 * from a main loop worker thread (a threaded destination's worker is one)
 * into that thread's input first, moved into the queue by the thread's batch
 * callbacks, which must run before the thread ends; other threads push
 * into the queue itself */
static inline void
fd_log_queue_take_back_done(void)
{
#if FD_SYSLOG_NG_4X
  /* only a main loop worker thread has (and initialises) its list of them */
  if (main_loop_worker_get_thread_index() >= 0)
    main_loop_worker_invoke_batch_callbacks();
#endif
}

static inline ResolvedConfigurablePaths *
fd_resolved_configurable_paths(void)
{
#if FD_SYSLOG_NG_4X
  return &resolved_configurable_paths;
#else
  return &resolvedConfigurablePaths;
#endif
}

#endif
