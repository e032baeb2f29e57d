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
 *
 * bench-hold(handover(yes)) measures the other way a destination can go: the
 * delivering thread only hands the message pointers over, N at a time, to a
 * thread of the destination's, which reads each message's bytes (as it would
 * to format them), acks them and gives them back to the delivering thread to
 * free (freeing them on another thread waits on glibc's arena lock).  That is
 * the least a destination pays on the delivering thread when it formats and
 * writes on a thread of its own.  With write-file() too, that thread formats
 * the lines (fast-file()'s formatter) and writes them, one write() per N,
 * before it acks them: the least such a destination does in all.
 */
#include "bench-hold.h"
#include "bench-hold-files.h"
#include "logmsg/logmsg.h"
#include "mainloop-worker.h"
#include "logpipe.h"
#include "compat-thrdest.h"
#include "scratch-buffers.h"

typedef struct _BenchHeld
{
  LogMessage *msg;
  gboolean ack_needed;
} BenchHeld;

/* handover(yes): N messages handed over at once */
typedef struct _BenchChunk
{
  struct _BenchChunk *next;
  struct _BenchHoldRing *owner;
  guint count;
  BenchHeld held[];
} BenchChunk;

typedef struct _BenchHoldRing
{
  BenchHeld *held;
  guint head, count;
  /* handover(yes): the chunk being filled, chunks to reuse, and those the
   * destination's thread has acked (a stack it pushes onto, taken whole) */
  BenchChunk *filling, *spare, *done;
  /* write-file(): this thread's files, and how many of the newest held
   * messages have their lines still in its buffers */
  BenchFiles *files;
  guint unwritten;
} BenchHoldRing;

/* rings[MAIN_LOOP_MAX_WORKER_THREADS]: the one shared by threads outside the main loop's workers */
#define BENCH_HOLD_SHARED MAIN_LOOP_MAX_WORKER_THREADS

typedef struct _BenchHoldDriver
{
  LogDestDriver super;
  gint depth;
  /* nothing after the driver: hold the caller's reference and ack (as fast-file() does) */
  gboolean keep;
  gboolean handover;
  GMutex shared_lock;
  BenchHoldRing rings[MAIN_LOOP_MAX_WORKER_THREADS + 1];

  /* write-file(): the name's template; the end of a job settles what its thread holds */
  gchar *file;
  LogTemplate *file_template;
  LogTemplateOptions template_options;
  WorkerBatchCallback job_done[MAIN_LOOP_MAX_WORKER_THREADS];
  gboolean job_registered[MAIN_LOOP_MAX_WORKER_THREADS];

  /* handover(yes): the destination's thread and the chunks handed to it */
  GThread *thread;
  GMutex lock;
  GCond cond;
  GQueue pending;
  gboolean stopping;
  guint64 touched;
} BenchHoldDriver;

static void
_ack(BenchHeld *held)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

  path_options.ack_needed = held->ack_needed;
  log_msg_ack(held->msg, &path_options, AT_PROCESSED);
}

static void
_settle(BenchHeld *held)
{
  _ack(held);
  log_msg_unref(held->msg);
}

/* the chunks the destination's thread has acked: the delivering thread frees
 * their messages, as it allocated them */
static void
_release_done(BenchHoldRing *ring)
{
  if (!g_atomic_pointer_get(&ring->done))
    return;

  BenchChunk *chunk = g_atomic_pointer_exchange(&ring->done, NULL);
  while (chunk)
    {
      BenchChunk *next = chunk->next;
      for (guint i = 0; i < chunk->count; i++)
        log_msg_unref(chunk->held[i].msg);
      chunk->count = 0;
      chunk->next = ring->spare;
      ring->spare = chunk;
      chunk = next;
    }
}

static void _hand_over_filling(BenchHoldDriver *self, BenchHoldRing *ring);

static void
_hand_over(BenchHoldDriver *self, BenchHoldRing *ring, BenchHeld *held)
{
  _release_done(ring);
  if (!ring->filling)
    {
      ring->filling = ring->spare;
      if (ring->filling)
        ring->spare = ring->filling->next;
      else
        ring->filling = g_malloc(sizeof(BenchChunk) + self->depth * sizeof(BenchHeld));
      ring->filling->count = 0;
      ring->filling->owner = ring;
    }
  ring->filling->held[ring->filling->count++] = *held;
  if (ring->filling->count == (guint) self->depth)
    _hand_over_filling(self, ring);
}

static void
_hand_over_filling(BenchHoldDriver *self, BenchHoldRing *ring)
{
  if (!ring->filling)
    return;
  g_mutex_lock(&self->lock);
  g_queue_push_tail(&self->pending, ring->filling);
  g_cond_signal(&self->cond);
  g_mutex_unlock(&self->lock);
  ring->filling = NULL;
}

/* the destination's thread: read what formatting would read, ack, give back */
static gpointer
_handover_thread(gpointer s)
{
  BenchHoldDriver *self = s;
  guint64 touched = 0;
  BenchFiles *files = NULL;

  scratch_buffers_allocator_init();
  if (self->file_template)
    files = bench_files_new(self->file_template, &self->template_options);
  g_mutex_lock(&self->lock);
  while (TRUE)
    {
      BenchChunk *chunk = g_queue_pop_head(&self->pending);
      if (!chunk)
        {
          if (self->stopping)
            break;
          g_cond_wait(&self->cond, &self->lock);
          continue;
        }
      g_mutex_unlock(&self->lock);

      BenchHoldRing *ring = chunk->owner;
      if (files)
        {
          for (guint i = 0; i < chunk->count; i++)
            bench_files_append(files, chunk->held[i].msg);
          bench_files_write(files);
        }
      for (guint i = 0; i < chunk->count && files; i++)
        _ack(&chunk->held[i]);
      for (guint i = 0; i < chunk->count && !files; i++)
        {
          gssize len;
          const guchar *value = (const guchar *) log_msg_get_value(chunk->held[i].msg, LM_V_MESSAGE, &len);
          /* one byte of every cache line the formatter would copy */
          for (gssize at = 0; at < len; at += 64)
            touched += value[at];
          _ack(&chunk->held[i]);
        }
      BenchChunk *old;
      do
        {
          old = g_atomic_pointer_get(&ring->done);
          chunk->next = old;
        }
      while (!g_atomic_pointer_compare_and_exchange(&ring->done, old, chunk));

      g_mutex_lock(&self->lock);
    }
  self->touched += touched;
  g_mutex_unlock(&self->lock);
  bench_files_free(files);
  scratch_buffers_allocator_deinit();
  return NULL;
}

/* write-file(): the ring holds up to twice N messages, the newest
 * `unwritten` of them not written yet */
static guint
_write_capacity(BenchHoldDriver *self)
{
  return 2 * self->depth + 2;
}

static void
_write_pending(BenchHoldRing *ring)
{
  bench_files_write(ring->files);
  ring->unwritten = 0;
}

static void
_settle_oldest(BenchHoldDriver *self, BenchHoldRing *ring)
{
  _settle(&ring->held[ring->head]);
  ring->head = (ring->head + 1) % _write_capacity(self);
  ring->count--;
}

/* The lines are written N at a time (and at the end of each job); a written
 * message is settled once N more have come, one or two per message
 * delivered, as (s) settles them: letting go of N at once makes glibc trim
 * the thread's heap and grow it again page by page, a cost a destination
 * need not pay (fast-file() settles a few per message too). */
static void
_write_line(BenchHoldDriver *self, BenchHoldRing *ring, BenchHeld *held)
{
  guint capacity = _write_capacity(self);

  if (!ring->held)
    ring->held = g_new0(BenchHeld, capacity);
  if (!ring->files)
    ring->files = bench_files_new(self->file_template, &self->template_options);
  if (ring->count == capacity)
    {
      _write_pending(ring);
      _settle_oldest(self, ring);
    }
  bench_files_append(ring->files, held->msg);
  ring->held[(ring->head + ring->count) % capacity] = *held;
  ring->count++;
  ring->unwritten++;
  if (ring->unwritten == (guint) self->depth)
    _write_pending(ring);
  for (gint i = 0; i < 2 && ring->count > (guint) self->depth && ring->count > ring->unwritten; i++)
    _settle_oldest(self, ring);
}

/* the end of a main loop job: its connection's next job may run on another
 * thread, so what this one holds is written now, in order */
static gpointer
_job_done(gpointer s)
{
  BenchHoldDriver *self = s;
  gint thread_id = fd_main_loop_worker_thread_index();

  self->job_registered[thread_id] = FALSE;
  /* handover(yes) with write-file(): the lines are written on the destination's thread */
  if (self->handover)
    _hand_over_filling(self, &self->rings[thread_id]);
  else
    _write_pending(&self->rings[thread_id]);
  return NULL;
}

/* returns the message that has waited for N more: to settle */
static BenchHeld
_hold(BenchHoldDriver *self, BenchHoldRing *ring, BenchHeld *held)
{
  BenchHeld oldest = { NULL, FALSE };

  if (!ring->held)
    ring->held = g_new0(BenchHeld, self->depth);
  if (ring->count == (guint) self->depth)
    {
      oldest = ring->held[ring->head];
      ring->head = (ring->head + 1) % self->depth;
      ring->count--;
    }
  ring->held[(ring->head + ring->count) % self->depth] = *held;
  ring->count++;
  return oldest;
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
  if (self->handover)
    _hand_over(self, ring, &held);
  else if (self->file_template)
    _write_line(self, ring, &held);
  else
    oldest = _hold(self, ring, &held);
  if (self->file_template && !shared && !self->job_registered[thread_id])
    {
      self->job_registered[thread_id] = TRUE;
      main_loop_worker_register_batch_callback(&self->job_done[thread_id]);
    }
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
  if (self->file && !self->file_template)
    {
      GError *error = NULL;

      log_template_options_init(&self->template_options, log_pipe_get_config(s));
      self->file_template = log_template_new(log_pipe_get_config(s), NULL);
      if (!log_template_compile(self->file_template, self->file, &error))
        {
          msg_error("bench-hold(): error compiling write-file()", evt_tag_str("error", error->message));
          g_clear_error(&error);
          return FALSE;
        }
    }
  if (self->handover)
    {
      self->stopping = FALSE;
      self->thread = g_thread_new("bench-hold", _handover_thread, self);
    }
  return TRUE;
}

static void
_stop_handover(BenchHoldDriver *self)
{
  if (!self->thread)
    return;
  g_mutex_lock(&self->lock);
  self->stopping = TRUE;
  g_cond_signal(&self->cond);
  g_mutex_unlock(&self->lock);
  g_thread_join(self->thread);
  self->thread = NULL;

  for (gint i = 0; i <= BENCH_HOLD_SHARED; i++)
    {
      BenchHoldRing *ring = &self->rings[i];
      _release_done(ring);
      if (ring->filling)
        {
          for (guint j = 0; j < ring->filling->count; j++)
            _settle(&ring->filling->held[j]);
          g_free(ring->filling);
          ring->filling = NULL;
        }
      while (ring->spare)
        {
          BenchChunk *next = ring->spare->next;
          g_free(ring->spare);
          ring->spare = next;
        }
    }
}

static gboolean
_deinit(LogPipe *s)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  /* no delivering thread is at work any more */
  _stop_handover(self);
  for (gint i = 0; i <= BENCH_HOLD_SHARED; i++)
    {
      BenchHoldRing *ring = &self->rings[i];
      if (ring->files)
        {
          _write_pending(ring);
          /* the ring's capacity is not depth here: emptied before the loop below */
          while (ring->count > 0)
            _settle_oldest(self, ring);
          bench_files_free(ring->files);
          ring->files = NULL;
        }
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
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->cond);
  g_free(self->file);
  if (self->file_template)
    {
      log_template_unref(self->file_template);
      log_template_options_destroy(&self->template_options);
    }
  log_dest_driver_free(s);
}

void
bench_hold_dd_set_depth(LogDriver *s, gint depth)
{
  ((BenchHoldDriver *) s)->depth = depth;
}

void
bench_hold_dd_set_file(LogDriver *s, const gchar *file)
{
  BenchHoldDriver *self = (BenchHoldDriver *) s;

  g_free(self->file);
  self->file = g_strdup(file);
}

void
bench_hold_dd_set_handover(LogDriver *s, gboolean handover)
{
  ((BenchHoldDriver *) s)->handover = handover;
}

LogDriver *
bench_hold_dd_new(GlobalConfig *cfg)
{
  BenchHoldDriver *self = g_new0(BenchHoldDriver, 1);

  log_dest_driver_init_instance(&self->super, cfg);
  g_mutex_init(&self->shared_lock);
  g_mutex_init(&self->lock);
  g_cond_init(&self->cond);
  g_queue_init(&self->pending);
  for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
    {
      worker_batch_callback_init(&self->job_done[i]);
      self->job_done[i].func = _job_done;
      self->job_done[i].user_data = self;
    }
  self->depth = 1;
  self->super.super.super.init = _init;
  self->super.super.super.deinit = _deinit;
  self->super.super.super.queue = _queue;
  self->super.super.super.free_fn = _free;
  return &self->super.super;
}
