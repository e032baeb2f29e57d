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
