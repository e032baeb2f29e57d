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
#ifndef FASTDEST_COMPAT_THRDEST_H_INCLUDED
#define FASTDEST_COMPAT_THRDEST_H_INCLUDED

#include "compat-version.h"
#include "logthrdest/logthrdestdrv.h"
#include "logqueue.h"
#include "logpipe.h"
#include "mainloop-worker.h"
#include "stats/stats-registry.h"

#include <string.h>

/*
 * What a threaded destination that takes messages itself (fast-file()'s
 * direct path) needs of the framework's internals, which 4.0 moved or
 * extended: its counters, its queue's drop counter, the flags of the pipes
 * after it, 4.x's seqnum flags and internal().
 */

/* the index of the main loop worker thread running this, -1 outside of them (renamed in 4.0) */
static inline gint
fd_main_loop_worker_thread_index(void)
{
#if FD_SYSLOG_NG_4X
  return main_loop_worker_get_thread_index();
#else
  return main_loop_worker_get_thread_id();
#endif
}

/* the driver's own counters (4.x keeps them in metrics) */
static inline StatsCounterItem *
fd_thrdest_written_counter(LogThreadedDestDriver *driver)
{
#if FD_SYSLOG_NG_4X
  return driver->metrics.written_messages;
#else
  return driver->written_messages;
#endif
}

static inline StatsCounterItem *
fd_thrdest_dropped_counter(LogThreadedDestDriver *driver)
{
#if FD_SYSLOG_NG_4X
  return driver->metrics.dropped_messages;
#else
  return driver->dropped_messages;
#endif
}

static inline StatsCounterItem *
fd_thrdest_processed_counter(LogThreadedDestDriver *driver)
{
#if FD_SYSLOG_NG_4X
  return driver->metrics.processed_messages;
#else
  return driver->processed_messages;
#endif
}

/* a message the queue drops as full (log-fifo-size()) */
static inline void
fd_log_queue_dropped_inc(LogQueue *queue)
{
#if FD_SYSLOG_NG_4X
  log_queue_dropped_messages_inc(queue);
#else
  stats_counter_inc(queue->dropped_messages);
#endif
}

/*
 * Pipe flags that change only the path options a message travels with
 * after that pipe, never the message or whether it goes on: a pipe with
 * nothing else does nothing to a message it forwards.  4.x adds the
 * junction and conditional bookkeeping (PIF_JUNCTION_END,
 * PIF_CONDITIONAL_MIDPOINT) and PIF_CONFIG_RELATED, which marks pipes the
 * config made.
 */
static inline guint32
fd_pipe_flags_path_only(void)
{
#if FD_SYSLOG_NG_4X
  return PIF_INITIALIZED | PIF_INLINED | PIF_HARD_FLOW_CONTROL | PIF_CONFIG_RELATED | PIF_JUNCTION_END
         | PIF_CONDITIONAL_MIDPOINT;
#else
  return PIF_INITIALIZED | PIF_INLINED | PIF_HARD_FLOW_CONTROL;
#endif
}

/* Whether a message forwarded after the pipe s is simply dropped: pipes with
 * no queue() of their own and no flag that acts on a message (a
 * destination's sequence ends in such a do-nothing pipe).  Then a
 * destination may hold the caller's reference and ack instead of taking new
 * ones and forwarding the caller's into nothing. */
static inline gboolean
fd_pipe_nothing_after(LogPipe *s)
{
  for (LogPipe *p = s->pipe_next; p; p = p->pipe_next)
    {
      if (p->queue || (p->flags & ~fd_pipe_flags_path_only()))
        return FALSE;
    }
  return TRUE;
}

/*
 * 4.x's flags(seqnum), flags(no-seqnum), flags(seqnum-all),
 * flags(no-seqnum-all) (file()'s and every threaded destination's): which
 * messages get a sequence number.  3.38 has none of them: local messages
 * always get one.
 */
#define FD_SEQNUM_FLAG_NAMES_4X "seqnum, no-seqnum, seqnum-all, no-seqnum-all"

static inline gboolean
fd_thrdest_process_seqnum_flag(LogDriver *driver, const gchar *flag)
{
#if FD_SYSLOG_NG_4X
  if (strcmp(flag, "seqnum") != 0 && strcmp(flag, "no-seqnum") != 0 && strcmp(flag, "seqnum-all") != 0
      && strcmp(flag, "no-seqnum-all") != 0)
    return FALSE;
  return log_threaded_dest_driver_process_flag(driver, flag);
#else
  return FALSE;
#endif
}

/* the flags the driver's seqnum flags name, for an error message; "" on 3.38 */
static inline const gchar *
fd_thrdest_seqnum_flag_names(void)
{
#if FD_SYSLOG_NG_4X
  return ", " FD_SEQNUM_FLAG_NAMES_4X;
#else
  return "";
#endif
}

/* whether any message gets a number, whether every message does (not only local ones) */
static inline void
fd_thrdest_seqnum_policy(LogThreadedDestDriver *driver, gboolean *numbered, gboolean *all)
{
#if FD_SYSLOG_NG_4X
  *numbered = (driver->flags & LTDF_SEQNUM) != 0;
  *all = *numbered && (driver->flags & LTDF_SEQNUM_ALL) != 0;
#else
  *numbered = TRUE;
  *all = FALSE;
#endif
}

/* 4.x's worker-partition-key(): the worker a message goes to; FALSE without one (and on 3.38) */
static inline gboolean
fd_thrdest_partition_worker(LogThreadedDestDriver *driver, LogMessage *msg, guint n_workers, guint *index)
{
#if FD_SYSLOG_NG_4X
  if (!driver->worker_partition_key)
    return FALSE;
  LogTemplateEvalOptions options = DEFAULT_TEMPLATE_EVAL_OPTIONS;
  *index = log_template_hash(driver->worker_partition_key, msg, &options) % n_workers;
  return TRUE;
#else
  return FALSE;
#endif
}

/* 4.x's internal(yes): the driver's counters move to stats level 3, as every driver's */
static inline gint
fd_pipe_stats_level(LogPipe *pipe, gint level)
{
#if FD_SYSLOG_NG_4X
  return log_pipe_is_internal(pipe) ? STATS_LEVEL3 : level;
#else
  return level;
#endif
}

#endif
