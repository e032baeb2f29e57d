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

/*
 * bench-hold(depth(N)): a measuring instrument, never installed.  It writes
 * nothing: it holds each message until N more have arrived through the
 * thread that delivered it, then acks and frees it on that thread.  That is
 * the least any destination does that acknowledges a message only after its
 * batch is written (fast-file(), stock file() with flow control): keep the
 * message and its ack while the batch fills, then settle it outside the
 * source's reference cache.  Its msgs/s, against no destination, is the
 * ceiling of such a destination that batches N messages; fast-file()'s
 * distance to it is what its formatting, hand-off and write() cost.
 *
 * Each of the main loop's worker threads holds its messages in a ring of its
 * own, without a lock: with several connections a ring shared by their
 * threads would add what a destination need not pay (a lock taken in turns
 * for every message, messages freed on a thread other than the one that
 * allocated them, which waits on glibc's arena lock).  Any other thread
 * uses one shared ring under a lock.
 */
#include "bench-hold.h"
#include "logmsg/logmsg.h"
#include "logpipe.h"
#include "compat-thrdest.h"

typedef struct _BenchHeld
{
  LogMessage *msg;
  gboolean ack_needed;
} BenchHeld;

typedef struct _BenchHoldRing
{
  BenchHeld *held;
  guint head, count;
} BenchHoldRing;

/* rings[MAIN_LOOP_MAX_WORKER_THREADS]: the one shared by threads outside the main loop's workers */
#define BENCH_HOLD_SHARED MAIN_LOOP_MAX_WORKER_THREADS

typedef struct _BenchHoldDriver
{
  LogDestDriver super;
  gint depth;
  /* nothing after the driver: hold the caller's reference and ack (as fast-file() does) */
  gboolean keep;
  GMutex shared_lock;
  BenchHoldRing rings[MAIN_LOOP_MAX_WORKER_THREADS + 1];
} BenchHoldDriver;

static void
_settle(BenchHeld *held)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

  path_options.ack_needed = held->ack_needed;
  log_msg_ack(held->msg, &path_options, AT_PROCESSED);
  log_msg_unref(held->msg);
}

static void
_queue(LogPipe *s, LogMessage *msg, const LogPathOptions *path_options)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;
  BenchHeld held = { msg, path_options->ack_needed }, oldest = { NULL, FALSE };

  if (!self->keep)
    {
      log_msg_add_ack(msg, path_options);
      log_msg_ref(msg);
    }

  gint thread_id = fd_main_loop_worker_thread_index();
  gboolean shared = thread_id < 0 || thread_id >= MAIN_LOOP_MAX_WORKER_THREADS;
  BenchHoldRing *ring = &self->rings[shared ? BENCH_HOLD_SHARED : thread_id];

  if (shared)
    g_mutex_lock(&self->shared_lock);
  if (!ring->held)
    ring->held = g_new0(BenchHeld, self->depth);
  if (ring->count == (guint) self->depth)
    {
      oldest = ring->held[ring->head];
      ring->head = (ring->head + 1) % self->depth;
      ring->count--;
    }
  ring->held[(ring->head + ring->count) % self->depth] = held;
  ring->count++;
  if (shared)
    g_mutex_unlock(&self->shared_lock);

  if (oldest.msg)
    _settle(&oldest);
  if (!self->keep)
    log_dest_driver_queue_method(s, msg, path_options);
}

static gboolean
_init(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  if (!log_dest_driver_init_method(s))
    return FALSE;
  self->keep = fd_pipe_nothing_after(s) && !pipe_single_step_hook;
  return TRUE;
}

static gboolean
_deinit(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  /* no delivering thread is at work any more */
  for (gint i = 0; i <= BENCH_HOLD_SHARED; i++)
    {
      BenchHoldRing *ring = &self->rings[i];
      for (; ring->count > 0; ring->count--)
        {
          _settle(&ring->held[ring->head]);
          ring->head = (ring->head + 1) % self->depth;
        }
      ring->head = 0;
    }
  return log_dest_driver_deinit_method(s);
}

static void
_free(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  for (gint i = 0; i <= BENCH_HOLD_SHARED; i++)
    g_free(self->rings[i].held);
  g_mutex_clear(&self->shared_lock);
  log_dest_driver_free(s);
}

void
bench_hold_dd_set_depth(LogDriver *s, gint depth)
{
  ((BenchHoldDriver *) s)->depth = depth;
}

LogDriver *
bench_hold_dd_new(GlobalConfig *cfg)
{
  BenchHoldDriver *self = g_new0(BenchHoldDriver, 1);

  log_dest_driver_init_instance(&self->super, cfg);
  g_mutex_init(&self->shared_lock);
  self->depth = 1;
  self->super.super.super.init = _init;
  self->super.super.super.deinit = _deinit;
  self->super.super.super.queue = _queue;
  self->super.super.super.free_fn = _free;
  return &self->super.super;
}
