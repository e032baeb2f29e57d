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
#include "fastfile-worker.h"
#include "logqueue.h"
#include "messages.h"
#include "scratch-buffers.h"
#include "seqnum.h"
#include "compat-stats.h"
#include "compat-thrdest.h"
#include "compat-logqueue.h"

#include <iv.h>
#include <pthread.h>
#include <string.h>

static void _stage_handed_locked(FastFileWorker *self, gboolean write);
static void _hand_over_chunk(FastFileWorker *self, gint thread_id, gboolean wake);

/* a delivering thread in a job whose own chunk is handed over: another
 * thread's chunk holds messages delivered before this thread's next ones
 * (_hand_over()); they are staged first */
static inline gboolean
_others_open(FastFileWorker *self)
{
  return g_atomic_int_get(&self->open_chunks) > 0;
}

/* settled records collected per round trip through the lock */
#define FASTFILE_COLLECT_CHUNK 256
/* settled by a delivering thread per message it delivers, on each of its
 * paths (taken back from the lane or the hand-over, or written in a batch
 * of its own): a message freed for each one made, so that malloc serves the
 * next one from its per-thread cache (tcache) with the chunk the last one
 * left; freeing two per message overflowed it into the arena's bins
 * (callgrind, 100 B: 80 Ir per message more in _int_malloc and _int_free
 * than the bench's (x), which frees one) */
#define FASTFILE_COLLECT_PER_MESSAGE 1

/* LogQueueFifo, the memory queue (its type string is the same in 3.38 and 4.x) */
static gboolean
_is_memory_fifo(LogQueue *queue)
{
  return g_strcmp0(queue->type, "FIFO") == 0;
}

static const gchar *
_driver_id(FastFileWorker *self)
{
  return self->super.owner->super.super.id;
}

static LogPipe *
_driver_pipe(FastFileWorker *self)
{
  return &self->super.owner->super.super.super;
}

/* ------------------------------------------------------------------ settling */

/* held records, outside the lock, on whichever thread collected them */
static void
_settle_held(FastFileWorker *self, FastFileRecord *records, guint n)
{
  LogThreadedDestDriver *owner = self->super.owner;
  guint dropped = 0, filtered = 0;
  gsize memory = 0;

  for (guint i = 0; i < n; i++)
    {
      LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

      path_options.ack_needed = records[i].ack_needed;
      dropped += records[i].state == FASTFILE_RECORD_DROPPED;
      filtered += records[i].state == FASTFILE_RECORD_FILTERED;
      memory += records[i].size;
      log_msg_ack(records[i].held, &path_options, AT_PROCESSED);
      log_msg_unref(records[i].held);
    }
  stats_counter_add(fd_thrdest_written_counter(owner), n - dropped - filtered);
  stats_counter_add(fd_thrdest_dropped_counter(owner), dropped);
  log_queue_queued_messages_sub(self->super.queue, n);
  log_queue_memory_usage_sub(self->super.queue, memory);
}

/* lock held: the held records staged since the last call are counted in the
 * queue's stats in one go, before any of them can be subtracted again */
static void
_publish_queued(FastFileWorker *self)
{
  /* the lines the destination writes itself (suppression summaries, MARKs) count as messages */
  gsize own_memory;
  guint own = fastfile_lane_take_own(&self->lane, &own_memory);
  if (own)
    {
      self->direct.queued += own;
      self->direct.queued_memory += own_memory;
      stats_counter_add(fd_thrdest_processed_counter(self->super.owner), own);
    }

  if (self->direct.queued == 0)
    return;
  log_queue_queued_messages_add(self->super.queue, self->direct.queued);
  log_queue_memory_usage_add(self->super.queue, self->direct.queued_memory);
  self->direct.queued = 0;
  self->direct.queued_memory = 0;
}

/* Lock held: of the n records collected, leave those delivered by another
 * main loop thread that is at work here to that thread (it settles them at
 * its next turn or at the end of its job) and return how many are left in
 * records, to be settled by the caller (thread_id: its main loop thread, -1
 * for none).  The delivering thread allocated the message from its malloc
 * arena; another thread's free() of it takes that arena's lock, which the
 * delivering thread takes at once for its next message: measured with 4
 * connections at 1000 B, those frees sleeping on the arena's lock were most
 * of the daemon's context switches whenever they took hold (a third less
 * msgs/s in such rounds).  Messages that fit glibc's per-thread cache do not
 * reach the arena, the bigger ones do. */
static guint
_leave_theirs_locked(FastFileWorker *self, gint thread_id, FastFileRecord *records, guint n)
{
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    {
      guint owner = records[i].thread;
      if (owner != (guint) thread_id && owner < MAIN_LOOP_MAX_WORKER_THREADS && self->direct.job_registered[owner])
        {
          if (!self->theirs[owner])
            self->theirs[owner] = g_array_sized_new(FALSE, FALSE, sizeof(FastFileRecord), FASTFILE_COLLECT_CHUNK);
          g_array_append_val(self->theirs[owner], records[i]);
          continue;
        }
      records[kept++] = records[i];
    }
  return kept;
}

/* lock held: take what other threads left to thread_id (_leave_theirs_locked()),
 * to settle after unlocking (_settle_taken()); what it took before is
 * settled by then, its array is reused */
static void
_take_mine_locked(FastFileWorker *self, gint thread_id)
{
  GArray *theirs = self->theirs[thread_id];

  if (!theirs || theirs->len == 0)
    return;
  g_assert(!self->taken[thread_id] || self->taken[thread_id]->len == 0);
  self->theirs[thread_id] = self->taken[thread_id];
  self->taken[thread_id] = theirs;
  self->counts[thread_id].taken_len = theirs->len;
}

/* a delivering thread, without the lock: the records it took back and has
 * not settled yet (_settle_taken_some()), all of them */
static void
_settle_taken(FastFileWorker *self, gint thread_id)
{
  /* the array's header is written by the threads that fill it: read only when it has records */
  if (self->counts[thread_id].taken_len == 0)
    return;
  GArray *taken = self->taken[thread_id];
  guint at = self->counts[thread_id].taken_settled;
  _settle_held(self, &g_array_index(taken, FastFileRecord, at), taken->len - at);
  g_array_set_size(taken, 0);
  self->counts[thread_id].taken_settled = 0;
  self->counts[thread_id].taken_len = 0;
}

/* lock held on entry and on return; released while acking; thread_id: the
 * caller's main loop thread, -1 for none */
static void
_collect_and_settle_locked(FastFileWorker *self, gint thread_id)
{
  FastFileRecord records[FASTFILE_COLLECT_CHUNK];
  guint n;

  _publish_queued(self);
  while ((n = fastfile_lane_collect_held(&self->lane, records, G_N_ELEMENTS(records), FALSE)) > 0)
    {
      n = _leave_theirs_locked(self, thread_id, records, n);
      if (n == 0)
        continue;
      g_mutex_unlock(&self->lock);
      _settle_held(self, records, n);
      g_mutex_lock(&self->lock);
    }
  self->direct.settle_ready = FALSE;
}

/* a delivering thread, per message: a few settled records from the head,
 * acked after unlocking; returns how many are in records */
static guint
_collect_a_few_locked(FastFileWorker *self, gint thread_id, FastFileRecord *records)
{
  _publish_queued(self);
  guint n = fastfile_lane_collect_held(&self->lane, records, FASTFILE_COLLECT_PER_MESSAGE, TRUE);
  self->direct.settle_ready = self->lane.settled > 0;
  return _leave_theirs_locked(self, thread_id, records, n);
}

/* queued records, this thread: ack or drop the settled head of the backlog */
static void
_settle_queued(FastFileWorker *self)
{
  FastFileRecordState outcome;
  guint run;

  g_mutex_lock(&self->lock);
  guint queued, unwritten;
  fastfile_lane_count_queued(&self->lane, &queued, &unwritten);
  /* rewound records not yet popped again are not in the backlog */
  guint popped = queued - MIN(queued, self->replay);
  while (popped > 0 && (run = fastfile_lane_settle_queued_run(&self->lane, popped, &outcome)) > 0)
    {
      if (outcome == FASTFILE_RECORD_DROPPED)
        {
          log_threaded_dest_worker_drop_messages(&self->super, run);
        }
      else
        {
          log_threaded_dest_worker_ack_messages(&self->super, run);
          /* left out as file() leaves them out (suppress(), mark-mode()): acked, not written */
          if (outcome == FASTFILE_RECORD_FILTERED)
            stats_counter_sub(fd_thrdest_written_counter(self->super.owner), run);
        }
      popped -= run;
    }
  g_mutex_unlock(&self->lock);
}

/* ------------------------------------------------------------------ writing */

static void
_arm_timer(struct iv_timer *timer, gint64 monotonic_usec)
{
  if (iv_timer_registered(timer))
    iv_timer_unregister(timer);
  iv_validate_now();
  gint64 delay = MAX(monotonic_usec - g_get_monotonic_time(), 0);
  timer->expires = iv_now;
  timer->expires.tv_sec += delay / G_USEC_PER_SEC;
  timer->expires.tv_nsec += (delay % G_USEC_PER_SEC) * 1000;
  if (timer->expires.tv_nsec >= 1000000000)
    {
      timer->expires.tv_sec++;
      timer->expires.tv_nsec -= 1000000000;
    }
  iv_timer_register(timer);
}

static void
_check_reopen_locked(FastFileWorker *self)
{
  gint generation = g_atomic_int_get(self->options->reopen_generation);

  if (generation != self->reopen_generation)
    {
      self->reopen_generation = generation;
      fastfile_set_close_all(&self->lane.files);
    }
}

/* this thread, lock held: while a delivering thread writes, the files are
 * its own (_write_here_locked()); wait until they are this thread's again
 * (at once when nobody writes) */
static void
_wait_for_delivering_write_locked(FastFileWorker *self)
{
  self->direct.write_waiters++;
  while (self->direct.writing)
    g_cond_wait(&self->write_done, &self->lock);
  self->direct.write_waiters--;
}

/* lock held: the fill buffers become the ones to write */
static void
_take_staged_locked(FastFileWorker *self)
{
  fastfile_lane_take(&self->lane);
  /* a file whose last write is not finished keeps its fill until it is */
  self->direct.handoff_requested = fastfile_set_has_filled(&self->lane.files);
  self->direct.handoff_now = FALSE;
  self->direct.staged_records = 0;
}

/* lock held on entry and on return, released while writing: meanwhile the
 * files are the caller's alone (`writing`) */
static void
_write_outside_lock(FastFileWorker *self, gboolean force)
{
  self->direct.writing = TRUE;
  self->direct.asked_while_writing = FALSE;
  g_mutex_unlock(&self->lock);
  fastfile_set_write_all(&self->lane.files, force, self->super.time_reopen);
  fd_threaded_dest_worker_written_bytes_add(&self->super, self->lane.files.written_bytes);
  self->lane.files.written_bytes = 0;
  g_mutex_lock(&self->lock);
  self->direct.writing = FALSE;
  if (self->direct.write_waiters)
    g_cond_broadcast(&self->write_done);
}

/* this thread, lock held on entry and on return: take what was staged (all
 * of it with force, else what a delivering thread asked for) and write it,
 * round after round while more is asked for.  Without force, files waiting
 * for their retry time are left alone. */
static void
_write_rounds_locked(FastFileWorker *self, gboolean force)
{
  LogThreadedDestDriver *owner = self->super.owner;

  /* only a delivering thread can be writing when this thread comes here: it
   * wakes this thread for what is left when it is done; a forced round (the
   * last one, or the queued records') waits for it */
  if (self->direct.writing)
    {
      if (!force)
        {
          self->direct.asked_while_writing = TRUE;
          return;
        }
      _wait_for_delivering_write_locked(self);
    }
  _check_reopen_locked(self);
  for (;;)
    {
      if (force || self->direct.handoff_requested)
        _take_staged_locked(self);
      guint outgoing = fastfile_set_outgoing_count(&self->lane.files);
      if (outgoing == 0)
        break;

      _write_outside_lock(self, force);
      fastfile_lane_attribute(&self->lane, owner->retries_on_error_max);

      if (force)
        break;
      /* asked for more while writing (nobody woke us for it), or a file
       * finished its write and its fill can go now; files that failed wait
       * for their retry time */
      gboolean progress = fastfile_set_outgoing_count(&self->lane.files) < outgoing;
      if (!self->direct.asked_while_writing && !(self->direct.handoff_requested && progress))
        break;
    }

  gint64 next_retry = fastfile_set_next_retry(&self->lane.files);
  if (next_retry)
    _arm_timer(&self->retry_timer, next_retry);
  else if (iv_timer_registered(&self->retry_timer))
    iv_timer_unregister(&self->retry_timer);
}

/* lock held: ack the held records settled, then forget the entries whose
 * last record went just now: only the thread that has the files frees them
 * (a delivering thread that writes meanwhile does) */
static void
_settle_and_forget_locked(FastFileWorker *self, gint thread_id)
{
  _collect_and_settle_locked(self, thread_id);
  if (!self->direct.writing)
    fastfile_set_forget_idle(&self->lane.files);
}

/* this thread: the held records written are acked by the delivering thread
 * that comes next (it made them: it frees them best), or here when none is
 * at work to come by */
static void
_settle_after_write_locked(FastFileWorker *self)
{
  if (!self->lane.settled)
    return;
  if (self->direct.active_jobs > 0 && self->direct.accepting)
    {
      self->direct.settle_ready = TRUE;
      return;
    }
  _settle_and_forget_locked(self, -1);
}

static gboolean
_batch_timeout_pending_locked(FastFileWorker *self)
{
  gint batch_timeout = self->super.owner->batch_timeout;

  if (batch_timeout <= 0 || self->direct.handoff_now || !self->direct.handoff_requested)
    return FALSE;

  gint64 due = self->direct.first_staged + (gint64) batch_timeout * 1000;
  if (g_get_monotonic_time() >= due)
    return FALSE;
  _arm_timer(&self->batch_timer, due);
  return TRUE;
}

/* a delivering thread asked for a write, a batch timed out, or a file's retry time came */
void
fastfile_worker_write_requested(FastFileWorker *self)
{
  g_mutex_lock(&self->lock);
  self->direct.wakeup_posted = FALSE;
  _stage_handed_locked(self, TRUE);
  if (!_batch_timeout_pending_locked(self))
    {
      _write_rounds_locked(self, FALSE);
      _settle_after_write_locked(self);
    }
  g_mutex_unlock(&self->lock);
}

static void
_wakeup_event_cb(void *cookie)
{
  fastfile_worker_write_requested((FastFileWorker *) cookie);
}

static void
_batch_timer_cb(void *cookie)
{
  FastFileWorker *self = cookie;

  g_mutex_lock(&self->lock);
  self->direct.handoff_now = TRUE;
  g_mutex_unlock(&self->lock);
  fastfile_worker_write_requested(self);
}

static void
_retry_timer_cb(void *cookie)
{
  fastfile_worker_write_requested((FastFileWorker *) cookie);
}

/* ------------------------------------------------------------------ the direct path */

/* lock held: returns TRUE when the caller must post the wakeup event */
static gboolean
_request_handoff_locked(FastFileWorker *self, gboolean now)
{
  self->direct.handoff_requested = TRUE;
  self->direct.handoff_now |= now;
  /* a writing worker looks for more when it is done: no need to wake it */
  if (self->direct.writing)
    {
      self->direct.asked_while_writing = TRUE;
      return FALSE;
    }
  if (self->direct.wakeup_posted)
    return FALSE;
  self->direct.wakeup_posted = TRUE;
  return TRUE;
}

/* Bytes formatted after which a delivering thread writes them (or, while
 * another thread writes, asks for their write) before its job ends: fewer
 * messages are held at once (the memory they took is reused while it is
 * still in the cache).  Sized for a core's L2 (512 KiB here): it holds the
 * two batch buffers and the messages held for them.  valgrind's cache
 * simulation of the reader thread (bench/run --callgrind, 2,000-byte
 * messages) counts 69 L2 misses per message at 256 KiB, 42 at 64 KiB, 22 at
 * 32 KiB (stock file() 93); measured, 64 KiB was 1.08x 256 KiB at 1,000 and
 * 2,000 bytes and 1.13x at 300 (paired medians of 5 interleaved rounds, with
 * less CPU per message), and 32 KiB no better than 64 KiB while the writer
 * wakes twice as often. */
#define FASTFILE_HANDOFF_BYTES (64 * 1024)
/* The same for long lines that this worker's thread writes beside a lone
 * delivering thread (FASTFILE_WRITE_HERE_MAX_LINE): each hand-over wakes
 * it, and the wake-ups, not the cache, are what cost then.  Measured the
 * same way at 1000 bytes (5 rounds): 512 KiB-1 MiB took 1.95 CPU-us/msg
 * against 2.27 at 64 KiB, at the same msgs/s; at 300 bytes 1.39 against
 * 1.50, 1.03x the msgs/s. */
#define FASTFILE_HANDOFF_BESIDE_BYTES (512 * 1024)

/* Lines at least this long on average are written by this worker's thread
 * while a single delivering thread is at work, beside it on another CPU:
 * the copy into the page cache grows with the bytes and then costs more
 * than handing the lines over.  Measured on the 2-CPU bench machine, one
 * connection, this worker's thread writing against the delivering thread
 * writing (paired interleaved rounds): 0.98x at 100-byte messages, ~1.04x
 * at 200, 1.04x-1.23x at 300, 1.2x-1.5x at 1000, ~1.2x at 2000.  With two
 * or more delivering threads at work the CPUs are busy delivering; a third
 * thread would only take CPU from them (4 connections at 1000 bytes:
 * 0.75x-0.97x into one file). */
#define FASTFILE_WRITE_HERE_MAX_LINE 256

/* lock held: the lines staged since the last take are for this worker's
 * thread to write, beside the caller: long, and no other delivering thread
 * at work (`alone`) */
static gboolean
_lines_go_beside_locked(FastFileWorker *self, gboolean alone)
{
  return alone && self->lane.staged_bytes >= (gsize) self->direct.staged_records * FASTFILE_WRITE_HERE_MAX_LINE;
}

/* A delivering thread, lock held on entry and on return: write what is
 * staged, here, as syslog-ng's file() writes on the thread that formatted
 * the lines, instead of waking this worker's thread for it.  That saves the
 * wake-up, the hand-over of the bytes and of the records between two CPUs,
 * and the held messages are acked and freed right after their write, while
 * they are still in this CPU's cache.  Not while another thread writes, nor
 * while a file waits for its retry (this worker's thread keeps the timers),
 * nor 64 KiB or more of lines that go beside (above).  FALSE when something
 * is left for this worker's thread: a retry, a write asked for meanwhile,
 * or the lines themselves. */
static gboolean
_write_here_locked(FastFileWorker *self, gboolean alone, gint thread_id)
{
  const FastFileSetOptions *files = &self->options->lane.files;
  gboolean left = FALSE;

  if (self->direct.writing || fastfile_set_next_retry(&self->lane.files))
    return FALSE;
  /* a smaller batch (a job of syslog-ng's default log-fetch-limit(10), say)
   * does not pay for the wake-up of this worker's thread */
  if (self->lane.staged_bytes >= FASTFILE_HANDOFF_BYTES && _lines_go_beside_locked(self, alone))
    return FALSE;
  /* compression() and fsync() cost far more than the copy into the page
   * cache: this worker's thread does those beside the delivering threads */
  if (files->fsync || (files->compression && files->compression->type != BATCH_COMPRESSION_NONE))
    return FALSE;

  _check_reopen_locked(self);
  _take_staged_locked(self);
  if (fastfile_set_outgoing_count(&self->lane.files) > 0)
    {
      _write_outside_lock(self, FALSE);
      fastfile_lane_attribute(&self->lane, self->super.owner->retries_on_error_max);
      /* a reopen asked for while this thread wrote */
      _check_reopen_locked(self);
      left = fastfile_set_outgoing_count(&self->lane.files) > 0 || fastfile_set_next_retry(&self->lane.files);
    }
  _settle_and_forget_locked(self, thread_id);
  return !left && !self->direct.asked_while_writing && !self->direct.handoff_requested;
}

static gboolean _stage_deferred_locked(FastFileWorker *self, gint thread_id, gboolean in_job);
static gboolean _own_write(FastFileWorker *self, gint thread_id);
static void _own_job_done(FastFileWorker *self, gint thread_id);

static gboolean _shared_lately(FastFileWorker *self);

/* the end of a lone delivering thread's job, all of it done: its CPU time per message weighs the two ways
 * (fastfile-trial.h) */
static void
_time_job(FastFileWorker *self, gint thread_id)
{
  guint messages = self->counts[thread_id].job_messages;

  self->counts[thread_id].job_messages = 0;
  /* a job of a few messages does not hand over and pays no clock reading */
  if (messages <= FASTFILE_TRIAL_CLOCK_FROM)
    return;
  if (_shared_lately(self))
    {
      g_mutex_lock(&self->lock);
      fastfile_trial_interrupt(&self->trial);
      g_mutex_unlock(&self->lock);
      return;
    }
  gint64 cpu_ns = fastfile_trial_thread_cpu_ns() - self->counts[thread_id].job_cpu_from;
  gint64 writer_cpu_ns = self->writer_clock_set ? fastfile_trial_cpu_ns(self->writer_clock) : -1;
  g_mutex_lock(&self->lock);
  gboolean changed = fastfile_trial_job(&self->trial, messages, messages - FASTFILE_TRIAL_CLOCK_FROM, cpu_ns,
                                        writer_cpu_ns);
  g_mutex_unlock(&self->lock);
  if (changed)
    msg_debug("fast-file(): weighed handing a lone connection's messages over against formatting them on its thread",
              evt_tag_str("driver", _driver_id(self)),
              evt_tag_str("chosen", fastfile_trial_way_name(self->trial.chosen)),
              evt_tag_str("next_jobs", fastfile_trial_way_name(self->trial.way)),
              evt_tag_printf("handing_over_ns_per_msg", "%.0f", self->trial.ns_per_message[FASTFILE_WAY_HANDING]),
              evt_tag_printf("own_ns_per_msg", "%.0f", self->trial.ns_per_message[FASTFILE_WAY_OWN]),
              evt_tag_printf("of_which_writer_thread_handing_over", "%.0f",
                             self->trial.writer_ns_per_message[FASTFILE_WAY_HANDING]),
              evt_tag_printf("of_which_writer_thread_own", "%.0f",
                             self->trial.writer_ns_per_message[FASTFILE_WAY_OWN]));
}

/* the end of a main loop job that staged records here: have them written */
static gpointer
_job_done(gpointer user_data)
{
  FastFileWorker *self = user_data;
  gint thread_id = fd_main_loop_worker_thread_index();
  gboolean post = FALSE;

  /* the chunk it filled last goes as those before it in this job did; a job
   * that handed none over (a few messages: syslog-ng's default
   * log-fetch-limit(10)) is staged and written here, after what went before,
   * as before (_write_here_locked()), without a wake-up of this worker's
   * thread */
  gboolean woke = self->counts[thread_id].handed_in_job;
  _hand_over_chunk(self, thread_id, woke);
  self->counts[thread_id].handed_in_job = FALSE;
  /* another thread's chunk holds messages delivered before this job's: they
   * go first.  That thread hands it over at its next message or at the end
   * of its job, and waits for nobody before it does (its own chunk is the
   * first thing it lets go of, here too). */
  while (_others_open(self))
    g_thread_yield();
  _own_job_done(self, thread_id);
  /* taken before: _take_mine_locked() below reuses its array */
  _settle_taken(self, thread_id);
  g_mutex_lock(&self->lock);
  if (!woke)
    _stage_handed_locked(self, FALSE);
  post = _stage_deferred_locked(self, thread_id, TRUE);
  /* from here on nothing is left to this thread: what was, it settles below */
  self->direct.job_registered[thread_id] = FALSE;
  self->direct.active_jobs--;
  /* batch-timeout() lets a batch wait for more: this worker's thread keeps its timer */
  if (self->direct.staged_records
      && !(self->direct.accepting && self->super.owner->batch_timeout <= 0
           && _write_here_locked(self, self->direct.active_jobs == 0, thread_id)))
    post = _request_handoff_locked(self, FALSE) || post;
  if (self->direct.settle_ready || self->direct.active_jobs == 0)
    _collect_and_settle_locked(self, thread_id);
  _take_mine_locked(self, thread_id);
  g_mutex_unlock(&self->lock);

  _settle_taken(self, thread_id);

  if (post)
    iv_event_post(&self->wakeup_event);
  _time_job(self, thread_id);
  return NULL;
}

static void
_count_overflow(FastFileWorker *self)
{
  /* as the queue does beyond log-fifo-size: counted in the queue's dropped */
  fd_log_queue_dropped_inc(self->super.queue);
  msg_debug("fast-file(): destination queue full, dropping message",
            evt_tag_str("driver", _driver_id(self)),
            evt_tag_int("log_fifo_size", self->direct.fifo_limit),
            log_pipe_location_tag(_driver_pipe(self)));
}

/* the driver's own accounting, as for a queued message; the caller's
 * reference and ack are either held here (kept) or let go of */
static void
_account_delivery(FastFileWorker *self, LogMessage *msg, const LogPathOptions *path_options, gboolean kept)
{
  LogThreadedDestDriver *owner = self->super.owner;

  stats_counter_inc(fd_thrdest_processed_counter(owner));
  if (kept)
    {
      /* what log_dest_driver_queue_method() counts, without forwarding what we keep */
      stats_counter_inc(owner->super.super.processed_group_messages);
      stats_counter_inc(owner->super.queued_global_messages);
      return;
    }
  log_dest_driver_queue_method(_driver_pipe(self), msg, path_options);
}

/* lock held: no delivering thread but the caller's (in a job) is at work here */
static gboolean
_alone_locked(FastFileWorker *self, gint thread_id)
{
  return self->direct.active_jobs - (self->direct.job_registered[thread_id] ? 1 : 0) == 0;
}

/* Jobs after the last one that found another at work during which a lone
 * delivering thread still writes batches of its own (_may_defer()): with
 * several connections one is alone now and then, and a record it stages
 * holds every thread's batches for that file in the lane; a single
 * connection is alone for good, and its long lines are written beside it
 * (_lines_go_beside_locked()). */
#define FASTFILE_OWN_ALONE_JOBS 64

/* lock held: the caller's job (its main loop thread) has its end called here */
static void
_register_job_locked(FastFileWorker *self, gint thread_id)
{
  if (self->direct.job_registered[thread_id])
    return;
  self->direct.job_registered[thread_id] = TRUE;
  self->direct.active_jobs++;
  /* written under the lock, read without it (_shared_lately()) */
  g_atomic_int_inc((volatile gint *) &self->direct.jobs_registered);
  if (self->direct.active_jobs >= 2)
    g_atomic_int_set((volatile gint *) &self->direct.shared_until_job,
                     (gint) (self->direct.jobs_registered + FASTFILE_OWN_ALONE_JOBS));
  main_loop_worker_register_batch_callback(&self->direct.job_done[thread_id]);
}

/* a delivering thread's own formatter, made the first time it finds the lock taken */
static FastFilePrepared *
_prepared_for(FastFileWorker *self, gint thread_id)
{
  if (!self->prepared[thread_id])
    self->prepared[thread_id] = fastfile_prepared_new(&self->options->lane, NULL);
  return self->prepared[thread_id];
}

/* With several connections the delivering threads would take the lock in
 * turns for every message, and on a contended lock each turn is a futex
 * sleep and wake-up (measured: a sixth of syslog-ng's CPU with 4
 * connections at 100 B).  A thread that finds the lock taken in the middle
 * of its job formats the message without it and keeps the record here; its
 * next turn under the lock stages them all in their order, at the latest
 * when its job ends (_job_done()), as LogQueueFifo keeps a thread's input
 * until the end of its job.  The order of each connection holds: a
 * connection's messages come through one job at a time. */
#define FASTFILE_DEFER_RECORDS 64
#define FASTFILE_DEFER_BYTES (32 * 1024)

/* Each delivering thread (alone too: _may_defer()) writes the batches it
 * formats apart to their file itself, beside the others (_own_write()), once the lane holds nothing
 * for that file: no copy into the lane, no records in it, no turn under its
 * lock per batch but two short ones.  Measured with 4 connections into a
 * file per host against staging those batches in the lane (paired
 * interleaved rounds, 2026-12-03, load average 0.4-1.5 from these runs
 * only): 1.16x the msgs/s at 0.79x the CPU at 1000 B (4 rounds), 1.09x at
 * 0.89x at 300 B (4 rounds); with the writes of both threads serialized
 * 1.06x at 0.86x, so writing side by side is half of it.  Into one shared
 * file, with their write()s taking the file's own_write_lock in turn: 1.23x
 * / 1.12x / 1.04x the msgs/s at 1000 / 300 / 100 B, at 0.71x / 0.86x / 0.94x
 * the CPU (4 / 3 / 3 rounds; side by side without the lock 1.23x-1.26x at
 * 1000 B, no better; before a lone thread wrote its own batches, 0.97x). */
#define FASTFILE_OWN_RECORDS 256
#define FASTFILE_OWN_BYTES (64 * 1024)

/* 40 bytes: one is written for each message and read again when it is settled (offsets and sizes within a batch
 * of lines that is written at FASTFILE_OWN_BYTES, and of one message, fit 32 bits) */
typedef struct _FastFileDeferredRecord
{
  LogMessage *held;
  const gchar *refused;
  guint32 size;
  guint32 record_at, record_len;
  guint32 name_at, name_len;
  guint skipped : 1;
  guint ack_needed : 1;
  /* a MARK message (file()'s mark-mode() looks at it in the lane): flagged while the message is in the cache,
   * not read again from it when the batch is written */
  guint mark : 1;
} FastFileDeferredRecord;

/* records in their order: a plain array, one added for each message delivered (GArray's append was a call and
 * its checks, ~50 instructions per message on the delivering thread, callgrind, 100 B) */
typedef struct _FastFileDeferredRecords
{
  FastFileDeferredRecord *at;
  guint len, room;
} FastFileDeferredRecords;

static void
_records_init(FastFileDeferredRecords *self, guint room)
{
  self->at = g_new(FastFileDeferredRecord, room);
  self->len = 0;
  self->room = room;
}

/* n more at the end, not filled in yet */
static inline FastFileDeferredRecord *
_records_add(FastFileDeferredRecords *self, guint n)
{
  if (G_UNLIKELY(self->len + n > self->room))
    {
      self->room = MAX(self->room * 2, self->len + n);
      self->at = g_renew(FastFileDeferredRecord, self->at, self->room);
    }
  self->len += n;
  return self->at + self->len - n;
}

static void
_records_remove_first(FastFileDeferredRecords *self, guint n)
{
  memmove(self->at, self->at + n, (self->len - n) * sizeof(FastFileDeferredRecord));
  self->len -= n;
}

typedef struct _FastFileDeferred
{
  FastFileDeferredRecords records;    /* in arrival order */
  GString *lines;                     /* their formatted lines, one after another */
  GString *names;                     /* their file names (templated names only) */
  guint kept;                         /* of them, held with the caller's reference: not yet counted */
  FastFileDeferredRecords written;    /* records of batches written here, settled one per message delivered */
  guint written_head;                 /* the first of them not settled yet */
  guint written_acked;                /* of those from written_head, acked at a job's end: only let go of */
  gboolean short_lines;               /* the lines last staged were short: batch apart */
  guint mixed_jobs;                   /* own batches went to several files: this many jobs stage as before */
} FastFileDeferred;

static void
_deferred_free(FastFileDeferred *self)
{
  if (!self)
    return;
  g_free(self->records.at);
  g_free(self->written.at);
  g_string_free(self->lines, TRUE);
  g_string_free(self->names, TRUE);
  g_free(self);
}

/* its records were staged or written: empty it for the next ones, keeping its buffers */
static void
_deferred_clear(FastFileDeferred *self)
{
  self->records.len = 0;
  g_string_truncate(self->lines, 0);
  g_string_truncate(self->names, 0);
}

/* the messages deferred with the caller's reference, counted as delivered
 * once per batch (the counters' cache lines are written by every
 * delivering thread), before any of them can be acked */
static void
_count_kept(FastFileWorker *self, FastFileDeferred *deferred)
{
  LogThreadedDestDriver *owner = self->super.owner;

  if (!deferred->kept)
    return;
  stats_counter_add(fd_thrdest_processed_counter(owner), deferred->kept);
  stats_counter_add(owner->super.super.processed_group_messages, deferred->kept);
  stats_counter_add(owner->super.queued_global_messages, deferred->kept);
  deferred->kept = 0;
}

/* Lines shorter than this on average are formatted apart by a delivering
 * thread in a job while other delivering threads are at work, even when the
 * lock is free: it takes the lock once per FASTFILE_DEFER_RECORDS records
 * instead of once per message, and the lock's cache line and the lane's
 * stop going back and forth between the CPUs for each message.  Measured
 * with 4 connections (paired interleaved rounds, 5 each, into one file and
 * into a file per connection): 1.17x / 1.27x the msgs/s at 100 B, 1.02x /
 * 1.04x at 300 B; at 1000 B always formatting apart was 0.93x into a file
 * per connection: the copy of long lines from the thread's buffer into the
 * file's costs more than the lock saves. */
#define FASTFILE_APART_MAX_LINE 512

/* Jobs that stage as before once a thread's own batch held the lines of
 * several files (${PROGRAM} from one connection, say): formatting apart only
 * adds a copy when the batch cannot be written whole to one file. */
#define FASTFILE_OWN_MIXED_JOBS 64

/* a delivering thread in a job, without the lock: TRUE while delivering
 * threads have been at work together lately (the last FASTFILE_OWN_ALONE_JOBS
 * jobs); stale reads only pick the other way for a batch */
static gboolean
_shared_lately(FastFileWorker *self)
{
  guint registered = (guint) g_atomic_int_get((volatile gint *) &self->direct.jobs_registered);
  guint until = (guint) g_atomic_int_get((volatile gint *) &self->direct.shared_until_job);
  return (gint) (until - registered) > 0;
}

/* a delivering thread in a job, without the lock: whether it may format
 * msg apart (_defer()).  Without flow control the queue's limit is checked
 * under the lock; and only a job whose end is registered here (its first
 * message took the lock) is sure to stage what it defers.  A lone
 * delivering thread found the lock with this worker's own thread, briefly:
 * it waits, as it always did (an unlocked look at the count: a stale one
 * only picks the other way); unless it writes batches of its own, as it
 * does alone too while threads were at work together lately
 * (FASTFILE_OWN_ALONE_JOBS): a record of a lone thread's staged in the lane
 * would keep the lane's hold on its file, and the next batches of every
 * thread for it with it (measured with 4 connections into a file per host at 300 B: 45%
 * of the messages went through the lane so; alone too, paired interleaved
 * rounds, 2026-12-03: 1.04x / 1.09x / 1.20x / 1.25x the msgs/s at 100 / 300
 * / 1000 / 2000 B, at 0.96x / 0.90x / 0.71x / 0.67x the CPU); and a lone
 * connection that does not hand its messages over (fastfile-trial.h) writes
 * batches of its own too: no lock, record or settling per message in the
 * lane (paired interleaved rounds on 2026-12-05's VM at 300 B, 5 each: 1.07
 * CPU-us/msg as the bench's least a destination writing on the delivering
 * thread does, against 1.19 staging each message in the lane) */
static gboolean
_may_defer(FastFileWorker *self, const LogPathOptions *path_options, gint thread_id)
{
  if (!path_options->flow_control_requested || !self->direct.job_registered[thread_id])
    return FALSE;
  FastFileDeferred *deferred = self->deferred[thread_id];
  if (self->own_batches && (!deferred || !deferred->mixed_jobs)
      && (_shared_lately(self) || !fastfile_trial_hands_over(&self->trial)))
    return TRUE;
  return g_atomic_int_get((volatile gint *) &self->direct.active_jobs) >= 2;
}

/* a delivering thread in a job, without the lock: TRUE when it formats msg
 * apart (_defer()) without trying the lock first; may_defer: _may_defer()'s
 * answer, asked once per message for both */
static gboolean
_batching_apart(FastFileWorker *self, gboolean may_defer, gint thread_id)
{
  if (!may_defer)
    return FALSE;
  FastFileDeferred *deferred = self->deferred[thread_id];
  return self->own_batches || !deferred || deferred->short_lines;
}

/* records of a batch of the caller's own, written (or dropped): acked,
 * outside the lock.  They never were in the queue's stats (they were not
 * staged); the written or dropped counter counted them already. */
static void
_ack_own(FastFileWorker *self, FastFileDeferredRecord *records, guint n, gboolean dropped)
{
  LogThreadedDestDriver *owner = self->super.owner;

  for (guint i = 0; i < n; i++)
    {
      LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

      path_options.ack_needed = records[i].ack_needed;
      if (!dropped)
        log_threaded_dest_driver_insert_msg_length_stats(owner, records[i].record_len);
      log_msg_ack(records[i].held, &path_options, AT_PROCESSED);
    }
}

/* the same, acked and let go of */
static void
_settle_own(FastFileWorker *self, FastFileDeferredRecord *records, guint n, gboolean dropped)
{
  _ack_own(self, records, n, dropped);
  for (guint i = 0; i < n; i++)
    log_msg_unref(records[i].held);
}

/* A batch written here is settled FASTFILE_COLLECT_PER_MESSAGE records
 * per message delivered after it; at the end of the job the rest is acked
 * and let go of in the same way later (_ack_written()).
 * Letting go of a whole batch at once (up to FASTFILE_OWN_RECORDS messages,
 * 600 KiB at 1000 B) gives glibc a free top of the thread's heap to trim,
 * and the next messages grow it again a page fault at a time (measured on
 * 2026-12-05's VM at 1000 B: 0.025 page faults per message, sysmalloc and
 * _int_malloc 0.1 CPU-us/msg more than the bench's (x)).  With one per
 * message, the record's mark flag and no copy of the records, the reader's
 * L1d misses per message went 9.5 -> 7.6 read, 8.4 -> 7.6 written
 * (callgrind, 100 B).  The written records and the batch being formatted
 * stay within one batch's records together: each message adds one to the
 * batch and settles one written, and a write moves the batch to the
 * written. */
static void
_settle_written(FastFileWorker *self, FastFileDeferred *deferred, guint max)
{
  guint n = MIN(max, deferred->written.len - deferred->written_head);

  if (n == 0)
    return;
  FastFileDeferredRecord *records = deferred->written.at + deferred->written_head;
  /* the first written_acked of them were acked at a job's end */
  guint acked = MIN(n, deferred->written_acked);
  _ack_own(self, records + acked, n - acked, FALSE);
  for (guint i = 0; i < n; i++)
    log_msg_unref(records[i].held);
  deferred->written_acked -= acked;
  deferred->written_head += n;
  if (deferred->written_head == deferred->written.len)
    {
      deferred->written.len = 0;
      deferred->written_head = 0;
    }
}

/* The end of a job: what its thread wrote is acked now (it may find no
 * other job for a while), and let go of one per message delivered after
 * it, as within a job.  Letting go of up to a batch of messages at once at
 * the job's end put most of them in glibc's bins, and the next job's
 * messages were allocated from there instead of the thread's cache:
 * _int_malloc and _int_free 60 instructions per message more, L1d misses
 * 15.9 -> 14.7 per message on the delivering thread (callgrind, 100 B,
 * 2026-12-07).  Between jobs a thread holds at most one batch's messages
 * (FASTFILE_OWN_RECORDS, or FASTFILE_OWN_BYTES of their lines). */
static void
_ack_written(FastFileWorker *self, FastFileDeferred *deferred)
{
  guint from = deferred->written_head + deferred->written_acked;

  if (from == deferred->written.len)
    return;
  _ack_own(self, deferred->written.at + from, deferred->written.len - from, FALSE);
  deferred->written_acked = deferred->written.len - deferred->written_head;
}

/* a delivering thread, without the lock: format msg and keep its record
 * for the thread's next turn under the lock; FALSE when it has to be staged
 * now */
static gboolean
_defer(FastFileWorker *self, FastFilePrepared *prepared, LogMessage *msg, gint32 seq_num,
       const LogPathOptions *path_options, gboolean keep, gboolean may_defer, gint thread_id)
{
  if (!may_defer)
    return FALSE;
  if (!self->deferred[thread_id])
    {
      FastFileDeferred *deferred = g_new0(FastFileDeferred, 1);
      _records_init(&deferred->records, MAX(FASTFILE_DEFER_RECORDS, FASTFILE_OWN_RECORDS));
      _records_init(&deferred->written, FASTFILE_OWN_RECORDS);
      deferred->lines = g_string_sized_new(FASTFILE_DEFER_BYTES + 4096);
      deferred->names = g_string_sized_new(self->lane.single_file ? 0 : 4096);
      deferred->short_lines = TRUE;
      self->deferred[thread_id] = deferred;
    }
  FastFileDeferred *deferred = self->deferred[thread_id];
  gboolean full = self->own_batches
                  ? deferred->records.len >= FASTFILE_OWN_RECORDS || deferred->lines->len >= FASTFILE_OWN_BYTES
                  : deferred->records.len >= FASTFILE_DEFER_RECORDS || deferred->lines->len >= FASTFILE_DEFER_BYTES;
  /* while another thread's chunk holds messages delivered before these, the batch waits for them (it grows) */
  if (full && !_others_open(self))
    {
      /* a batch of its own: written here, or else staged with this message as any other */
      if (!self->own_batches || !_own_write(self, thread_id))
        return FALSE;
    }

  FastFileDeferredRecord record = { .record_at = deferred->lines->len, .ack_needed = path_options->ack_needed };
  gboolean skipped;
  record.refused = fastfile_lane_prepare_append(&self->lane, prepared, msg, seq_num, deferred->lines, &skipped);
  record.skipped = skipped;
  record.record_len = deferred->lines->len - record.record_at;
  if (!self->lane.single_file)
    {
      const FastFileDeferredRecord *last = deferred->records.len ? &deferred->records.at[deferred->records.len - 1]
                                           : NULL;
      record.name_len = prepared->filename->len;
      /* the name of the record before, kept once (a connection's job is mostly one host's): _own_write() compares
       * where they are */
      if (last && last->name_len == record.name_len
          && memcmp(deferred->names->str + last->name_at, prepared->filename->str, record.name_len) == 0)
        record.name_at = last->name_at;
      else
        {
          record.name_at = deferred->names->len;
          /* with its NUL: the lane looks it up as it is */
          g_string_append_len(deferred->names, prepared->filename->str, prepared->filename->len + 1);
        }
    }
  /* the queue's memory counter needs it only for a record staged in the lane: a batch of the thread's own
   * takes it then, if ever (_stage_deferred_locked()); the others are staged, and take it here, outside the lock */
  record.size = self->own_batches ? 0 : log_msg_get_size(msg);
  record.mark = (msg->flags & LF_MARK) != 0;
  record.held = keep ? msg : log_msg_ref(msg);
  if (!keep)
    log_msg_add_ack(msg, path_options);
  *_records_add(&deferred->records, 1) = record;
  _settle_written(self, deferred, FASTFILE_COLLECT_PER_MESSAGE);
  return TRUE;
}

/* lock held: account for a held record just staged, and have the batch
 * written here or by this worker's thread once it is due; TRUE: post the
 * wakeup event after unlocking */
static gboolean
_staged_locked(FastFileWorker *self, FastFileRecordState state, gsize size, const FastFileStaged *staged,
               gboolean in_job, gint thread_id)
{
  LogThreadedDestDriver *owner = self->super.owner;

  self->direct.queued++;
  self->direct.queued_memory += size;
  if (state != FASTFILE_RECORD_UNWRITTEN)
    {
      /* nothing to write: acked (or dropped) by the next collection */
      self->direct.settle_ready = TRUE;
      return FALSE;
    }
  if (self->direct.staged_records++ == 0)
    self->direct.first_staged = g_get_monotonic_time();
  gboolean alone = in_job && _alone_locked(self, thread_id);
  gsize handoff_bytes = _lines_go_beside_locked(self, alone) ? FASTFILE_HANDOFF_BESIDE_BYTES
                        : FASTFILE_HANDOFF_BYTES;
  if ((!in_job || staged->buffer_full || self->direct.staged_records >= (guint) owner->batch_lines
       || self->lane.staged_bytes >= handoff_bytes)
      && !(in_job && _write_here_locked(self, alone, thread_id)))
    return _request_handoff_locked(self, in_job);
  return FALSE;
}

/* lock held: stage the records thread_id deferred (_defer()), in their
 * order; TRUE: post the wakeup event after unlocking */
static gboolean
_stage_deferred_locked(FastFileWorker *self, gint thread_id, gboolean in_job)
{
  FastFileDeferred *deferred = self->deferred[thread_id];
  gboolean post = FALSE;

  if (!deferred || deferred->records.len == 0)
    return FALSE;
  /* what was handed over came before */
  _stage_handed_locked(self, FALSE);
  /* before any of them can be acked */
  _count_kept(self, deferred);
  self->lane.delivering_thread = thread_id;
  for (guint i = 0; i < deferred->records.len; i++)
    {
      FastFileDeferredRecord *record = &deferred->records.at[i];
      FastFileStaged staged;
      /* a record of the thread's own batch has none yet (_defer()) */
      gsize size = record->size ? record->size : log_msg_get_size(record->held);
      FastFileRecordState state = fastfile_lane_stage_bytes(&self->lane, deferred->names->str + record->name_at,
                                  record->name_len, record->refused, record->skipped,
                                  deferred->lines->str + record->record_at,
                                  record->record_len, record->held,
                                  record->ack_needed, size, &staged);
      post = _staged_locked(self, state, size, &staged, in_job, thread_id) || post;
      if (staged.len)
        log_threaded_dest_driver_insert_msg_length_stats(self->super.owner, staged.len);
    }
  self->lane.delivering_thread = FASTFILE_NO_THREAD;
  deferred->short_lines = deferred->lines->len < (gsize) deferred->records.len * FASTFILE_APART_MAX_LINE;
  _deferred_clear(deferred);
  return post;
}

/* A delivering thread in a job, without the lock: write the batch it
 * formatted apart to its file itself (FASTFILE_OWN_RECORDS), when every
 * record of it goes to one file that the lane holds nothing for and whose
 * descriptor is open.  FALSE when it may not: nothing was done then, the
 * caller stages the batch.  A write that fails leaves what it did not write
 * to the lane, in order, which retries it, drops it when retries() run out
 * and counts and logs it as for any batch; a record it cut short on disk is
 * cut off again (else its tail goes first, as the lane does with its own). */
static gboolean
_own_write(FastFileWorker *self, gint thread_id)
{
  FastFileDeferred *deferred = self->deferred[thread_id];
  guint n = deferred->records.len;

  if (n == 0)
    return TRUE;
  FastFileDeferredRecord *records = deferred->records.at;
  const gchar *name = deferred->names->str + records[0].name_at;
  /* a literal file name: no names were kept, every record goes to it */
  gboolean one_name = self->lane.single_file != NULL;
  for (guint i = 0; i < n; i++)
    {
      if (!one_name && records[i].name_at != records[0].name_at
          && (records[i].name_len != records[0].name_len
              || memcmp(deferred->names->str + records[i].name_at, name, records[i].name_len) != 0))
        {
          deferred->mixed_jobs = FASTFILE_OWN_MIXED_JOBS;
          return FALSE;
        }
      /* file()'s mark-mode() looks at each MARK in the lane */
      if (records[i].refused || records[i].skipped || records[i].mark)
        return FALSE;
    }

  g_mutex_lock(&self->lock);
  /* a reopen asked for and not done yet: the lane's writer does it first */
  FastFileEntry *entry = NULL;
  /* what was handed over and not yet staged goes first: the batch is staged after it */
  if (self->direct.accepting && !self->direct.writing && g_atomic_int_get(&self->handed_count) == 0
      && g_atomic_int_get(self->options->reopen_generation) == self->reopen_generation)
    entry = self->lane.single_file ? : fastfile_set_lookup(&self->lane.files, name);
  /* the lane keeps one reference on its single file for good */
  if (!entry || !fastfile_entry_own_begin(&self->lane.files, entry, self->lane.single_file ? 1 : 0))
    {
      g_mutex_unlock(&self->lock);
      return FALSE;
    }
  _count_kept(self, deferred);
  gint fd = entry->fd;
  g_mutex_unlock(&self->lock);

  /* one thread's write at a time per file: in the kernel they would wait on the file's lock anyway,
   * and a failed one finds the file's end where it left it */
  g_mutex_lock(&entry->own_write_lock);
  BatchWriteResult result = { 0 };
  /* another thread's line cut short went before: its rest comes first, this batch goes to the lane */
  gboolean blocked = entry->own_blocked;
  gboolean complete = !blocked && batch_writer_write(fd, deferred->lines->str, deferred->lines->len, &result);
  if (complete || blocked)
    g_mutex_unlock(&entry->own_write_lock);
  guint done = 0;
  while (done < n && records[done].record_at + records[done].record_len <= result.written)
    done++;
  /* counted now, settled as the next messages come (_settle_written()) */
  stats_counter_add(fd_thrdest_written_counter(self->super.owner), done);
  if (done == n && deferred->written.len == 0)
    {
      /* the usual case: the batch becomes the written records as it is, no copy of them */
      FastFileDeferredRecords written = deferred->written;
      deferred->written = deferred->records;
      deferred->records = written;
    }
  else
    memcpy(_records_add(&deferred->written, done), records, done * sizeof(FastFileDeferredRecord));

  g_mutex_lock(&self->lock);
  fd_threaded_dest_worker_written_bytes_add(&self->super, result.written);
  if (!self->own_reported)
    {
      self->own_reported = TRUE;
      msg_debug("fast-file(): delivering threads write batches of their own",
                evt_tag_str("driver", _driver_id(self)),
                evt_tag_str("path", entry->path),
                log_pipe_location_tag(_driver_pipe(self)));
    }
  gboolean post = FALSE;
  gboolean orphan = FALSE;
  if (!complete && !blocked)
    {
      msg_error("fast-file(): error writing file, retrying after time-reopen",
                evt_tag_str("driver", _driver_id(self)),
                evt_tag_str("path", entry->path),
                evt_tag_int("errno", result.error),
                evt_tag_str("error", g_strerror(result.error)),
                evt_tag_long("written_bytes", (glong) result.written),
                evt_tag_long("pending_bytes", (glong) (deferred->lines->len - result.written)),
                evt_tag_int("time_reopen", self->super.time_reopen),
                evt_tag_str("writer", "delivering thread"),
                log_pipe_location_tag(_driver_pipe(self)));
      gsize torn = result.written - (done < n ? records[done].record_at : result.written);
      /* the entry's buffers and the file list are the lane writer's while it writes */
      _wait_for_delivering_write_locked(self);
      if (torn)
        orphan = !fastfile_entry_own_torn(&self->lane.files, entry, deferred->lines->str + records[done].record_at,
                                          records[done].record_len, torn);
      if (orphan)
        entry->own_blocked = TRUE;
      g_mutex_unlock(&entry->own_write_lock);
    }
  fastfile_entry_own_end(&self->lane.files, entry, !self->direct.writing);
  if (!complete)
    {
      /* what was not written goes to the lane, in its order, after what others staged there meanwhile */
      if (orphan)
        {
          msg_error("fast-file(): a line cut short by a failed write could not be cut off again, its rest is "
                    "written first and its message counted as dropped",
                    evt_tag_str("driver", _driver_id(self)),
                    evt_tag_str("path", entry->path),
                    log_pipe_location_tag(_driver_pipe(self)));
          g_mutex_unlock(&self->lock);
          stats_counter_inc(fd_thrdest_dropped_counter(self->super.owner));
          _settle_own(self, &records[done], 1, TRUE);
          g_mutex_lock(&self->lock);
          done++;
        }
      _records_remove_first(&deferred->records, done);
      post = _stage_deferred_locked(self, thread_id, TRUE);
      post = _request_handoff_locked(self, TRUE) || post;
    }
  else if (entry->in_filled)
    {
      /* others staged lines for this file while it was ours: the lane's writer skipped it */
      post = _request_handoff_locked(self, FALSE);
    }
  g_mutex_unlock(&self->lock);
  if (post)
    iv_event_post(&self->wakeup_event);

  _deferred_clear(deferred);
  return TRUE;
}

/* the end of a job, without the lock: the batch its thread formatted apart
 * written, and one job fewer left to stage as before */
static void
_own_job_done(FastFileWorker *self, gint thread_id)
{
  FastFileDeferred *deferred = self->deferred[thread_id];

  if (!self->own_batches || !deferred)
    return;
  _own_write(self, thread_id);
  _ack_written(self, deferred);
  if (deferred->mixed_jobs)
    deferred->mixed_jobs--;
}

/* ------------------------------------------------------------------ the hand-over */

/* a delivering thread in a job, without the lock: whether msg goes into
 * its chunk.  Not syslog-ng's own messages: an error logged while one is
 * formatted would be one more (the internal() loop guard is the delivering
 * thread's message context). */
static gboolean
_hands_over(FastFileWorker *self, LogMessage *msg, const LogPathOptions *path_options, gint thread_id)
{
  FastFileDeferred *deferred = self->deferred[thread_id];

  /* what it deferred is staged first (its next turn under the lock) */
  return self->hand_over && path_options->flow_control_requested && !(msg->flags & LF_INTERNAL)
         && self->direct.job_registered[thread_id]
         && !_shared_lately(self) && (!deferred || deferred->records.len == 0)
         && g_atomic_int_get(&self->handed_count) < FASTFILE_HANDOVER_MAX_CHUNKS
         && fastfile_trial_hands_over(&self->trial);
}

/* the first chunk of `handed` or `handed_spare` (under handover_lock while threads run), or NULL:
 * they hold chunks by the links the chunks carry */
static FastFileHanded *
_chunk_pop_head(GQueue *chunks)
{
  GList *link = g_queue_pop_head_link(chunks);
  return link ? link->data : NULL;
}

/* lock held: stage the chunks handed over, in their order; with `write`
 * (this worker's thread) write them too, a chunk at a time */
static void
_stage_handed_locked(FastFileWorker *self, gboolean write)
{
  /* only templates take scratch buffers; given back after each message, as the framework does */
  gboolean templates = self->lane.formatter.template || !self->lane.single_file;

  while (g_atomic_int_get(&self->handed_count) > 0)
    {
      g_mutex_lock(&self->handover_lock);
      FastFileHanded *chunk = _chunk_pop_head(&self->handed);
      if (chunk)
        g_atomic_int_dec_and_test(&self->handed_count);
      if (g_queue_is_empty(&self->handed))
        self->handover_posted = FALSE;
      g_mutex_unlock(&self->handover_lock);
      if (!chunk)
        break;

      self->lane.delivering_thread = chunk->thread;
      for (guint i = 0; i < chunk->count; i++)
        {
          FastFileHandedRecord *record = &chunk->records[i];
          FastFileStaged staged;
          ScratchBuffersMarker mark;
          if (templates)
            scratch_buffers_mark(&mark);
          FastFileRecordState state = fastfile_lane_stage(&self->lane, record->held, record->seq_num, record->held,
                                      record->ack_needed, record->size, &staged);
          if (templates)
            scratch_buffers_reclaim_marked(mark);
          self->direct.queued++;
          self->direct.queued_memory += record->size;
          if (state != FASTFILE_RECORD_UNWRITTEN)
            self->direct.settle_ready = TRUE;
          else if (self->direct.staged_records++ == 0)
            self->direct.first_staged = g_get_monotonic_time();
          if (staged.len)
            log_threaded_dest_driver_insert_msg_length_stats(self->super.owner, staged.len);
        }
      self->lane.delivering_thread = FASTFILE_NO_THREAD;
      chunk->count = 0;
      chunk->bytes = 0;
      g_mutex_lock(&self->handover_lock);
      g_queue_push_tail_link(&self->handed_spare, &chunk->link);
      g_mutex_unlock(&self->handover_lock);

      /* a delivering thread stages before its own records: what they are staged with decides the write */
      if (write && self->direct.staged_records)
        {
          self->direct.handoff_requested = TRUE;
          self->direct.handoff_now = TRUE;
          _write_rounds_locked(self, FALSE);
          /* what was written goes back to the threads that delivered it (_leave_theirs_locked()) */
          if (self->lane.settled)
            _collect_and_settle_locked(self, -1);
        }
    }
}

/* _hand_over_chunk() of a chunk that holds records */
static void
_hand_over_filled(FastFileWorker *self, gint thread_id, FastFileHanded *chunk, gboolean wake)
{
  g_mutex_lock(&self->handover_lock);
  g_queue_push_tail_link(&self->handed, &chunk->link);
  g_atomic_int_inc(&self->handed_count);
  self->handing[thread_id] = _chunk_pop_head(&self->handed_spare);
  self->counts[thread_id].handed_in_job |= wake;
  gboolean post = wake && !self->handover_posted;
  self->handover_posted |= wake;
  g_mutex_unlock(&self->handover_lock);
  /* after it is among those handed over: whoever stages next stages it first */
  g_atomic_int_add(&self->open_chunks, -1);
  if (post)
    iv_event_post(&self->wakeup_event);
}

/* the chunk the thread fills goes to this worker's thread (`wake`: wake it for it), or to the next
 * thread that stages under the lock; inline: every message delivered asks, mostly with nothing handed */
static inline void
_hand_over_chunk(FastFileWorker *self, gint thread_id, gboolean wake)
{
  FastFileHanded *chunk = self->handing[thread_id];

  if (chunk && chunk->count)
    _hand_over_filled(self, thread_id, chunk, wake);
}

/* a delivering thread, without the lock: settle up to max of the records it
 * took back (_take_mine_locked()), a few per message handed over: a message
 * freed for each one made (FASTFILE_COLLECT_PER_MESSAGE) */
static void
_settle_taken_some(FastFileWorker *self, gint thread_id, guint max)
{
  FastFileThreadCounts *counts = &self->counts[thread_id];

  if (counts->taken_settled >= counts->taken_len)
    return;
  GArray *taken = self->taken[thread_id];
  guint at = counts->taken_settled;
  guint n = MIN(max, counts->taken_len - at);
  _settle_held(self, &g_array_index(taken, FastFileRecord, at), n);
  counts->taken_settled += n;
  if (counts->taken_settled == counts->taken_len)
    {
      g_array_set_size(taken, 0);
      counts->taken_settled = 0;
      counts->taken_len = 0;
    }
}

/* a delivering thread in a job, without the lock: msg goes into its chunk */
static void
_hand_over(FastFileWorker *self, LogMessage *msg, gint32 seq_num, const LogPathOptions *path_options,
           gboolean keep, gint thread_id)
{
  FastFileHanded *chunk = self->handing[thread_id];
  if (!chunk)
    {
      chunk = self->handing[thread_id] = g_new(FastFileHanded, 1);
      chunk->link = (GList)
      {
        chunk, NULL, NULL
      };
      chunk->count = 0;
      chunk->bytes = 0;
    }
  chunk->thread = thread_id;
  /* before the message is in it: a thread that stages now sees it (_others_open()) */
  if (chunk->count == 0)
    g_atomic_int_inc(&self->open_chunks);

  LogMessage *held = msg;
  if (!keep)
    {
      log_msg_add_ack(msg, path_options);
      held = log_msg_ref(msg);
    }
  gsize size = log_msg_get_size(msg);
  chunk->records[chunk->count++] = (FastFileHandedRecord)
  {
    held, seq_num, size, path_options->ack_needed
  };
  chunk->bytes += size;
  _account_delivery(self, msg, path_options, keep);
  _settle_taken_some(self, thread_id, FASTFILE_COLLECT_PER_MESSAGE);
  /* a batch-lines() batch goes as soon as it is full, as on the other paths */
  if (chunk->count < FASTFILE_HANDOVER_RECORDS && chunk->bytes < FASTFILE_HANDOVER_BYTES
      && chunk->count < (guint) self->super.owner->batch_lines)
    return;

  _hand_over_chunk(self, thread_id, TRUE);
  /* what this worker's thread wrote of this thread's messages, to ack and free here, where they were made,
   * once those taken before are */
  if (self->counts[thread_id].taken_len || !g_mutex_trylock(&self->lock))
    return;
  _take_mine_locked(self, thread_id);
  g_mutex_unlock(&self->lock);
}

static void
_handed_free_all(FastFileWorker *self)
{
  FastFileHanded *chunk;

  for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
    g_free(self->handing[i]);
  while ((chunk = _chunk_pop_head(&self->handed_spare)))
    g_free(chunk);
  g_assert(g_queue_is_empty(&self->handed));
}

gboolean
fastfile_worker_queue(FastFileWorker *self, LogMessage *msg, const LogPathOptions *path_options, gint thread_id)
{
  LogThreadedDestDriver *owner = self->super.owner;
  LogPathOptions local_options;
  gboolean in_job = thread_id >= 0 && thread_id < MAIN_LOOP_MAX_WORKER_THREADS;
  /* with nothing after the driver the caller's reference and ack would be
   * let go of right away: hold those instead of taking new ones (unless the
   * config debugger steps through the pipes) */
  gboolean keep = self->options->keep_callers_ref && !pipe_single_step_hook;
  /* only templates take scratch buffers */
  gboolean templates = self->lane.formatter.template || !self->lane.single_file;
  gboolean post = FALSE;
  FastFilePrepared *prepared = NULL;
  FastFileStaged staged;
  ScratchBuffersMarker mark;

  /* the framework's numbering, for $SEQNUM; a queued record that the worker
   * inserts at the same time steps it without atomics (one worker), which
   * can only repeat a number */
  gint32 seq_num = 0;
  if (fastfile_record_steps_seq_num(self->options->lane.record, msg))
    seq_num = step_sequence_number_atomic(&owner->shared_seq_num);

  /* the first message of a job registers its end, and goes apart as the others when it may: a
   * record of it staged in the lane would keep the lane's hold on its file (_own_write()) */
  if (self->own_batches && in_job && path_options->flow_control_requested && !self->direct.job_registered[thread_id])
    {
      g_mutex_lock(&self->lock);
      if (self->direct.accepting)
        _register_job_locked(self, thread_id);
      g_mutex_unlock(&self->lock);
    }
  /* its end (_job_done()) reads the clock again */
  if (in_job && self->hand_over && self->direct.job_registered[thread_id]
      && ++self->counts[thread_id].job_messages == FASTFILE_TRIAL_CLOCK_FROM)
    self->counts[thread_id].job_cpu_from = fastfile_trial_thread_cpu_ns();
  if (in_job && _hands_over(self, msg, path_options, thread_id))
    {
      _hand_over(self, msg, seq_num, path_options, keep, thread_id);
      return TRUE;
    }
  /* what it filled goes first; what it took back is settled before it takes more */
  if (in_job)
    {
      _hand_over_chunk(self, thread_id, FALSE);
      _settle_taken(self, thread_id);
    }
  if (templates)
    scratch_buffers_mark(&mark);
  /* another thread's chunk holds messages delivered before this one: formatted apart, staged after them */
  gboolean may_defer = in_job && _may_defer(self, path_options, thread_id);
  if ((in_job && (_batching_apart(self, may_defer, thread_id) || _others_open(self)))
      || !g_mutex_trylock(&self->lock))
    {
      /* another delivering thread holds it: format here meanwhile, only copy under it */
      prepared = in_job ? _prepared_for(self, thread_id) : NULL;
      if (prepared && _defer(self, prepared, msg, seq_num, path_options, keep, may_defer, thread_id))
        {
          if (templates)
            scratch_buffers_reclaim_marked(mark);
          if (keep)
            self->deferred[thread_id]->kept++;
          else
            _account_delivery(self, msg, path_options, keep);
          return TRUE;
        }
      if (prepared)
        fastfile_lane_prepare(&self->lane, prepared, msg, seq_num);
      g_mutex_lock(&self->lock);
    }
  if (!self->direct.accepting)
    {
      g_mutex_unlock(&self->lock);
      if (templates)
        scratch_buffers_reclaim_marked(mark);
      return FALSE;
    }
  if (!path_options->flow_control_requested)
    {
      path_options = log_msg_break_ack(msg, path_options, &local_options);
      /* as the queue: only messages without flow control are dropped when it is full */
      if (fastfile_lane_pending(&self->lane) >= self->direct.fifo_limit)
        {
          g_mutex_unlock(&self->lock);
          if (templates)
            scratch_buffers_reclaim_marked(mark);
          _count_overflow(self);
          _account_delivery(self, msg, path_options, FALSE);
          return TRUE;
        }
    }
  /* what was handed over came first, and what this thread deferred */
  _stage_handed_locked(self, FALSE);
  if (in_job)
    post = _stage_deferred_locked(self, thread_id, TRUE);
  LogMessage *held = msg;
  if (!keep)
    {
      log_msg_add_ack(msg, path_options);
      held = log_msg_ref(msg);
    }

  gsize size = log_msg_get_size(msg);
  self->lane.delivering_thread = in_job ? thread_id : FASTFILE_NO_THREAD;
  FastFileRecordState state = prepared
                              ? fastfile_lane_stage_prepared(&self->lane, prepared, held, path_options->ack_needed,
                                  size, &staged)
                              : fastfile_lane_stage(&self->lane, msg, seq_num, held, path_options->ack_needed,
                                  size, &staged);
  self->lane.delivering_thread = FASTFILE_NO_THREAD;

  post = _staged_locked(self, state, size, &staged, in_job, thread_id) || post;

  if (in_job)
    _register_job_locked(self, thread_id);
  FastFileRecord settled[FASTFILE_COLLECT_PER_MESSAGE];
  guint n_settled = self->direct.settle_ready ? _collect_a_few_locked(self, thread_id, settled) : 0;
  if (in_job)
    _take_mine_locked(self, thread_id);
  g_mutex_unlock(&self->lock);
  if (templates)
    scratch_buffers_reclaim_marked(mark);

  if (n_settled)
    _settle_held(self, settled, n_settled);
  if (in_job)
    _settle_taken(self, thread_id);
  if (post)
    iv_event_post(&self->wakeup_event);
  if (staged.len)
    log_threaded_dest_driver_insert_msg_length_stats(owner, staged.len);
  _account_delivery(self, msg, path_options, keep);
  return TRUE;
}

/* ------------------------------------------------------------------ queued records */

static LogThreadedResult
_write_queued(FastFileWorker *self)
{
  guint queued, unwritten;

  g_mutex_lock(&self->lock);
  _write_rounds_locked(self, TRUE);
  _settle_after_write_locked(self);
  g_mutex_unlock(&self->lock);
  _settle_queued(self);

  g_mutex_lock(&self->lock);
  fastfile_lane_count_queued(&self->lane, &queued, &unwritten);
  g_mutex_unlock(&self->lock);
  if (unwritten == 0)
    return LTR_EXPLICIT_ACK_MGMT;

  /* the framework rewinds the unacked messages and suspends for time-reopen;
   * they come back through insert() in the same order, already formatted */
  if (self->super.batch_size != (gint) (queued - MIN(queued, self->replay)))
    msg_error("fast-file(): internal accounting mismatch",
              evt_tag_str("driver", _driver_id(self)),
              evt_tag_int("batch_size", self->super.batch_size),
              evt_tag_int("queued", queued),
              evt_tag_int("replay", self->replay),
              log_pipe_location_tag(_driver_pipe(self)));
  self->replay = queued;
  return LTR_NOT_CONNECTED;
}

static LogThreadedResult
_insert_one(FastFileWorker *self, LogMessage *msg)
{
  FastFileStaged staged;

  if (self->replay)
    {
      self->replay--;
      return LTR_QUEUED;
    }

  g_mutex_lock(&self->lock);
  fastfile_lane_stage(&self->lane, msg, self->super.seq_num, NULL, FALSE, 0, &staged);
  g_mutex_unlock(&self->lock);

  if (staged.len)
    log_threaded_dest_driver_insert_msg_length_stats(self->super.owner, staged.len);
  if (staged.buffer_full)
    return _write_queued(self);
  return LTR_QUEUED;
}

/* Take the messages behind msg from the queue here, up to a batch.  syslog-ng
 * 3.38 wraps every insert() in a loop step (message context set and cleared,
 * reference cache started and flushed, scratch buffers marked, the clock
 * invalidated) that costs more instructions than formatting the line.  The
 * accounting stays the framework's: each message is popped into the backlog,
 * counted in batch_size and acked or rewound with the rest of the batch. */
static LogThreadedResult
_drain(FastFileWorker *self, LogMessage *first, LogThreadedResult result)
{
  LogThreadedDestWorker *s = &self->super;
  /* only templates take scratch buffers; give them back after each message as the framework does */
  gboolean templates = self->lane.formatter.template || !self->lane.single_file;
  /* the framework set the message context for first: syslog-ng's internal() loop guard */
  gboolean context_internal = (first->flags & LF_INTERNAL) != 0;
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;
  LogMessage *msg;

  while ((result == LTR_QUEUED || result == LTR_EXPLICIT_ACK_MGMT)
         && s->batch_size < s->owner->batch_lines
         && !self->replay && !s->suspended && !s->owner->under_termination
         && (msg = log_queue_pop_head(s->queue, &path_options)) != NULL)
    {
      ScratchBuffersMarker mark;

      s->batch_size++;
      /* errors caused by an internal() message are marked or suppressed as for the framework's
       * own loop; any other message has the context of none */
      gboolean internal = (msg->flags & LF_INTERNAL) != 0;
      if (internal || context_internal)
        msg_set_context(internal ? msg : NULL);
      context_internal = internal;
      if (templates)
        scratch_buffers_mark(&mark);
      /* through the framework's inline for seq_num; draining is off here */
      result = log_threaded_dest_worker_insert(s, msg);
      if (templates)
        scratch_buffers_reclaim_marked(mark);
      log_msg_unref(msg);
    }
  return result;
}

static LogThreadedResult
_insert(LogThreadedDestWorker *s, LogMessage *msg)
{
  FastFileWorker *self = (FastFileWorker *) s;

  if (self->draining)
    return _insert_one(self, msg);

  self->draining = TRUE;
  LogThreadedResult result = _drain(self, msg, _insert_one(self, msg));
  self->draining = FALSE;
  /* the framework acts on this as for one message: NOT_CONNECTED rewinds the
   * whole batch_size, drained messages included */
  return result;
}

static LogThreadedResult
_flush(LogThreadedDestWorker *s, LogThreadedFlushMode mode)
{
  return _write_queued((FastFileWorker *) s);
}

static gboolean
_connect(LogThreadedDestWorker *s)
{
  /* files are opened when their first batch is written */
  return TRUE;
}

static void
_disconnect(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;

  /* after an error, reopen (the file may have been removed or fixed); keep the buffered bytes */
  g_mutex_lock(&self->lock);
  _wait_for_delivering_write_locked(self);
  fastfile_set_close_all(&self->lane.files);
  g_mutex_unlock(&self->lock);
}

/* ------------------------------------------------------------------ housekeeping */

static void
_reopen_event_cb(void *cookie)
{
  FastFileWorker *self = cookie;

  g_mutex_lock(&self->lock);
  /* a delivering thread that writes looks at it when its write ends */
  if (!self->direct.writing)
    _check_reopen_locked(self);
  g_mutex_unlock(&self->lock);
}

void
fastfile_worker_request_reopen(FastFileWorker *self)
{
  g_mutex_lock(self->options->reopen_lock);
  if (self->events_registered)
    iv_event_post(&self->reopen_event);
  g_mutex_unlock(self->options->reopen_lock);
}

static void
_reap_timer_cb(void *cookie)
{
  FastFileWorker *self = cookie;

  g_mutex_lock(&self->lock);
  /* not while a delivering thread has the files: next time */
  if (!self->direct.writing)
    fastfile_set_reap(&self->lane.files, self->options->time_reap);
  g_mutex_unlock(&self->lock);
  iv_validate_now();
  self->reap_timer.expires = iv_now;
  self->reap_timer.expires.tv_sec += MAX(1, self->options->time_reap / 2);
  iv_timer_register(&self->reap_timer);
}

/* file()'s suppress() summaries and MARK lines: looked for on whole seconds
 * of the monotonic clock, when file()'s own timers fire */
static void
_arm_tick(FastFileWorker *self)
{
  _arm_timer(&self->tick_timer, (g_get_monotonic_time() / G_USEC_PER_SEC + 1) * G_USEC_PER_SEC + 1000);
}

static void
_tick_cb(void *cookie)
{
  FastFileWorker *self = cookie;

  g_mutex_lock(&self->lock);
  guint staged = fastfile_lane_tick(&self->lane, g_get_monotonic_time() / G_USEC_PER_SEC);
  /* those lines go out now, and so does a summary staged ahead of a message
   * that was left out after all (nobody asked for its write) */
  gboolean write = staged > 0 || (fastfile_set_has_filled(&self->lane.files)
                                  && !self->direct.handoff_requested && self->direct.staged_records == 0);
  if (write)
    {
      self->direct.handoff_requested = TRUE;
      self->direct.handoff_now = TRUE;
    }
  g_mutex_unlock(&self->lock);
  if (write)
    fastfile_worker_write_requested(self);
  _arm_tick(self);
}

/* ------------------------------------------------------------------ life cycle */

static gboolean
_init(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;
  GError *error = NULL;

  if (!fastfile_lane_init(&self->lane, &self->options->lane, &error))
    {
      msg_error("fast-file(): cannot set up the output encoding",
                evt_tag_str("driver", _driver_id(self)),
                evt_tag_str("encoding", self->options->lane.encoding ? self->options->lane.encoding : "UTF-8"),
                evt_tag_str("error", error->message),
                log_pipe_location_tag(_driver_pipe(self)));
      g_clear_error(&error);
      return FALSE;
    }
  self->lane_ready = TRUE;
  /* this runs on the worker's own thread: the trial weighs its CPU time too */
  self->writer_clock_set = pthread_getcpuclockid(pthread_self(), &self->writer_clock) == 0;
  self->reopen_generation = g_atomic_int_get(self->options->reopen_generation);
  if (fastfile_lane_needs_tick(&self->lane))
    _arm_tick(self);

  if (!self->lane.single_file && self->options->time_reap > 0)
    {
      iv_validate_now();
      self->reap_timer.expires = iv_now;
      self->reap_timer.expires.tv_sec += MAX(1, self->options->time_reap / 2);
      iv_timer_register(&self->reap_timer);
    }

  g_mutex_lock(self->options->reopen_lock);
  iv_event_register(&self->reopen_event);
  iv_event_register(&self->wakeup_event);
  self->events_registered = TRUE;
  g_mutex_unlock(self->options->reopen_lock);

  g_mutex_lock(&self->lock);
  gint fifo_size = self->super.owner->super.log_fifo_size;
  if (fifo_size < 0)
    fifo_size = log_pipe_get_config(_driver_pipe(self))->log_fifo_size;
  self->direct.fifo_limit = fifo_size > 0 ? fifo_size : G_MAXINT;
  /* a disk-buffer() keeps what it holds across restarts, and throttle() paces
   * the queue's reader: both need every message to go through the queue */
  self->direct.accepting = self->options->direct && _is_memory_fifo(self->super.queue)
                           && self->super.owner->super.throttle == 0;
  /* compression(), fsync(), logrotate() and file()'s suppress() and MARKs are the lane's writer's to do */
  const FastFileSetOptions *files = &self->options->lane.files;
  self->own_batches = self->direct.accepting && !self->lane.file_hooks
                      && !files->fsync && !(files->compression && files->compression->type != BATCH_COMPRESSION_NONE)
                      && !fastfile_rotation_enabled(files->rotation) && self->super.owner->batch_timeout <= 0;
  self->hand_over = self->own_batches;
  fastfile_trial_init(&self->trial);
  g_mutex_unlock(&self->lock);

  return log_threaded_dest_worker_init_method(s);
}

/* a reload keeps the queue: what the direct path could not write goes back
 * into it, in order, for the next configuration to write */
static void
_requeue_unwritten_locked(FastFileWorker *self)
{
  FastFileLane *lane = &self->lane;
  gsize memory = 0;
  guint requeued = 0;

  /* a record cut short on disk is cut off again where the file's end is still ours */
  for (GList *link = lane->files.outgoing.head; link; link = link->next)
    fastfile_entry_truncate_torn(&lane->files, link->data);

  /* in their old place in front of the queue, newest first; where the queue
   * cannot take them back in front (4.x), at its tail, oldest first */
  gboolean in_front = fd_log_queue_takes_back_in_front();
  for (guint k = lane->head; k < lane->tail; k++)
    {
      guint i = in_front ? lane->tail - 1 - (k - lane->head) : k;
      FastFileRecord *record = &lane->records[i];
      LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

      if (!record->held || record->state != FASTFILE_RECORD_UNWRITTEN)
        continue;
      path_options.ack_needed = record->ack_needed;
      path_options.flow_control_requested = record->ack_needed;
      memory += record->size;
      /* the queue takes over our reference and our ack */
      fd_log_queue_take_back(self->super.queue, record->held, &path_options);
      record->held = NULL;
      record->state = FASTFILE_RECORD_DROPPED;
      requeued++;
    }
  fd_log_queue_take_back_done();
  if (requeued)
    {
      log_queue_queued_messages_sub(self->super.queue, requeued);
      log_queue_memory_usage_sub(self->super.queue, memory);
      msg_warning("fast-file(): messages not yet written are kept in the queue",
                  evt_tag_str("driver", _driver_id(self)),
                  evt_tag_int("messages", requeued),
                  log_pipe_location_tag(_driver_pipe(self)));
    }
}

static void
_deinit(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;

  g_mutex_lock(&self->lock);
  self->direct.accepting = FALSE;
  if (self->lane_ready)
    {
      /* every main loop job ends before a deinit and stages what it deferred at its end (_job_done()):
       * should anything be left, it is written with the rest */
      for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
        _hand_over_chunk(self, i, FALSE);
      _stage_handed_locked(self, FALSE);
      for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
        _stage_deferred_locked(self, i, FALSE);
      /* the last chance of the held records: write, settle, keep the rest in the queue */
      _write_rounds_locked(self, TRUE);
      _collect_and_settle_locked(self, -1);
      _requeue_unwritten_locked(self);
      _collect_and_settle_locked(self, -1);
      /* every job ended and took what was left to it (_job_done()); should anything be left, settle it */
      for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
        {
          g_mutex_unlock(&self->lock);
          _settle_taken(self, i);
          g_mutex_lock(&self->lock);
          _take_mine_locked(self, i);
          g_mutex_unlock(&self->lock);
          _settle_taken(self, i);
          g_mutex_lock(&self->lock);
        }
      fastfile_set_close_all(&self->lane.files);
      /* queued records are the backlog's, which the framework rewinds */
      self->lane.head = self->lane.tail = 0;
      fastfile_lane_destroy(&self->lane);
      self->lane_ready = FALSE;
    }
  self->replay = 0;
  g_mutex_unlock(&self->lock);

  /* after the last writes: a failed one arms the retry timer */
  g_mutex_lock(self->options->reopen_lock);
  if (self->events_registered)
    {
      iv_event_unregister(&self->reopen_event);
      iv_event_unregister(&self->wakeup_event);
    }
  self->events_registered = FALSE;
  g_mutex_unlock(self->options->reopen_lock);

  if (iv_timer_registered(&self->reap_timer))
    iv_timer_unregister(&self->reap_timer);
  if (iv_timer_registered(&self->retry_timer))
    iv_timer_unregister(&self->retry_timer);
  if (iv_timer_registered(&self->batch_timer))
    iv_timer_unregister(&self->batch_timer);
  if (iv_timer_registered(&self->tick_timer))
    iv_timer_unregister(&self->tick_timer);
  log_threaded_dest_worker_deinit_method(s);
}

static void
_free(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;

  for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
    {
      fastfile_prepared_free(self->prepared[i]);
      /* every job acked what it wrote before it ended (_own_job_done()): what is left is let go of */
      if (self->deferred[i])
        _settle_written(self, self->deferred[i], G_MAXUINT);
      _deferred_free(self->deferred[i]);
      if (self->theirs[i])
        g_array_free(self->theirs[i], TRUE);
      if (self->taken[i])
        g_array_free(self->taken[i], TRUE);
    }
  _handed_free_all(self);
  g_mutex_clear(&self->handover_lock);
  g_cond_clear(&self->write_done);
  g_mutex_clear(&self->lock);
  log_threaded_dest_worker_free_method(s);
}

LogThreadedDestWorker *
fastfile_worker_new(LogThreadedDestDriver *owner, gint worker_index, const FastFileWorkerOptions *options)
{
  FastFileWorker *self = g_new0(FastFileWorker, 1);

  log_threaded_dest_worker_init_instance(&self->super, owner, worker_index);
  self->super.init = _init;
  self->super.deinit = _deinit;
  self->super.insert = _insert;
  self->super.flush = _flush;
  self->super.connect = _connect;
  self->super.disconnect = _disconnect;
  self->super.free_fn = _free;
  self->options = options;
  /* delivering threads take it as soon as the driver is up, before this worker's thread runs */
  g_mutex_init(&self->lock);
  g_mutex_init(&self->handover_lock);
  g_queue_init(&self->handed);
  g_queue_init(&self->handed_spare);
  g_cond_init(&self->write_done);

  for (gint i = 0; i < MAIN_LOOP_MAX_WORKER_THREADS; i++)
    {
      worker_batch_callback_init(&self->direct.job_done[i]);
      self->direct.job_done[i].func = _job_done;
      self->direct.job_done[i].user_data = self;
    }
  IV_EVENT_INIT(&self->wakeup_event);
  self->wakeup_event.cookie = self;
  self->wakeup_event.handler = _wakeup_event_cb;
  IV_EVENT_INIT(&self->reopen_event);
  self->reopen_event.cookie = self;
  self->reopen_event.handler = _reopen_event_cb;
  IV_TIMER_INIT(&self->reap_timer);
  self->reap_timer.cookie = self;
  self->reap_timer.handler = _reap_timer_cb;
  IV_TIMER_INIT(&self->retry_timer);
  self->retry_timer.cookie = self;
  self->retry_timer.handler = _retry_timer_cb;
  IV_TIMER_INIT(&self->batch_timer);
  self->batch_timer.cookie = self;
  self->batch_timer.handler = _batch_timer_cb;
  IV_TIMER_INIT(&self->tick_timer);
  self->tick_timer.cookie = self;
  self->tick_timer.handler = _tick_cb;
  return &self->super;
}
