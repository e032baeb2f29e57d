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
 * nothing: it holds each message until N more have arrived, then acks and
 * frees it on the thread that delivered the newest one.  That is the least
 * any destination does that acknowledges a message only after its batch is
 * written (fast-file(), stock file() with flow control): keep the message
 * and its ack while the batch fills, then settle it outside the source's
 * reference cache.  Its msgs/s, against no destination, is the ceiling of
 * such a destination that batches N messages; fast-file()'s distance to it
 * is what its formatting, hand-off and write() cost.
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

typedef struct _BenchHoldDriver
{
  LogDestDriver super;
  gint depth;
  /* nothing after the driver: hold the caller's reference and ack (as fast-file() does) */
  gboolean keep;
  GMutex lock;
  BenchHeld *ring;
  guint head, count;
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

  g_mutex_lock(&self->lock);
  if (self->count == (guint) self->depth)
    {
      oldest = self->ring[self->head];
      self->head = (self->head + 1) % self->depth;
      self->count--;
    }
  self->ring[(self->head + self->count) % self->depth] = held;
  self->count++;
  g_mutex_unlock(&self->lock);

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
  if (!self->ring)
    self->ring = g_new0(BenchHeld, self->depth);
  return TRUE;
}

static gboolean
_deinit(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  g_mutex_lock(&self->lock);
  for (; self->count > 0; self->count--)
    {
      _settle(&self->ring[self->head]);
      self->head = (self->head + 1) % self->depth;
    }
  self->head = 0;
  g_mutex_unlock(&self->lock);
  return log_dest_driver_deinit_method(s);
}

static void
_free(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  g_free(self->ring);
  g_mutex_clear(&self->lock);
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
  g_mutex_init(&self->lock);
  self->depth = 1;
  self->super.super.super.init = _init;
  self->super.super.super.deinit = _deinit;
  self->super.super.super.queue = _queue;
  self->super.super.super.free_fn = _free;
  return &self->super.super;
}
