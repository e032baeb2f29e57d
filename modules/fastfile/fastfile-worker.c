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
#include "fastfile.h"
#include "messages.h"
#include "template/eval.h"
#include "scratch-buffers.h"
#include "compat-stats.h"
#include "compat-template.h"

#include <iv.h>
#include <iv_event.h>
#include <string.h>

static FastFileDriver *
_owner(FastFileWorker *self)
{
  return (FastFileDriver *) self->super.owner;
}

static void
_push_pending(FastFileWorker *self, FastFileEntry *entry, FastFileRecordState state)
{
  if (self->n_pending == self->pending_capacity)
    {
      self->pending_capacity = MAX(self->pending_capacity * 2, 64);
      self->pending = g_renew(FastFilePendingRecord, self->pending, self->pending_capacity);
    }
  self->pending[self->n_pending++] = (FastFilePendingRecord)
  {
    .entry = entry, .state = state
  };
  if (entry)
    entry->unacked++;
}

/* match the records each file wrote against the pending list, in queue order */
static void
_attribute_writes(FastFileWorker *self)
{
  for (guint i = 0; i < self->n_pending; i++)
    {
      FastFilePendingRecord *record = &self->pending[i];

      if (record->state == FASTFILE_RECORD_QUEUED && record->entry->done_records > 0)
        {
          record->entry->done_records--;
          record->state = FASTFILE_RECORD_WRITTEN;
        }
    }
}

/* ack (or count as dropped) the settled records at the head of the queue */
static void
_settle_prefix(FastFileWorker *self)
{
  guint settled = 0;

  while (settled < self->n_pending && self->pending[settled].state != FASTFILE_RECORD_QUEUED)
    {
      gboolean dropped = self->pending[settled].state == FASTFILE_RECORD_DROPPED;
      guint run = 0;

      while (settled + run < self->n_pending
             && self->pending[settled + run].state != FASTFILE_RECORD_QUEUED
             && (self->pending[settled + run].state == FASTFILE_RECORD_DROPPED) == dropped)
        run++;

      if (dropped)
        log_threaded_dest_worker_drop_messages(&self->super, run);
      else
        log_threaded_dest_worker_ack_messages(&self->super, run);
      settled += run;
    }

  for (guint i = 0; i < settled; i++)
    {
      if (self->pending[i].entry)
        fastfile_set_release_record(&self->files, self->pending[i].entry);
    }
  memmove(self->pending, self->pending + settled, (self->n_pending - settled) * sizeof(self->pending[0]));
  self->n_pending -= settled;
}

/* give up on the records that are not on disk yet (only those of files
 * that can never be opened, with permanent_only) */
static void
_drop_unwritten(FastFileWorker *self, gboolean permanent_only)
{
  guint dropped = 0;

  fastfile_set_discard_unwritten(&self->files, permanent_only);
  _attribute_writes(self);
  for (guint i = 0; i < self->n_pending; i++)
    {
      FastFilePendingRecord *record = &self->pending[i];

      if (record->state != FASTFILE_RECORD_QUEUED || (permanent_only && !record->entry->permanent_error))
        continue;
      record->state = FASTFILE_RECORD_DROPPED;
      dropped++;
    }
  if (dropped)
    msg_error("fast-file(): messages dropped",
              evt_tag_str("driver", self->super.owner->super.super.id),
              evt_tag_int("dropped", dropped),
              evt_tag_str("reason", permanent_only ? "the file can never be opened" : "retries exhausted"),
              evt_tag_int("attempts", self->failed_flushes));
}

static void
_check_reopen(FastFileWorker *self)
{
  gint generation = g_atomic_int_get(&_owner(self)->reopen_generation);

  if (generation != self->reopen_generation)
    {
      self->reopen_generation = generation;
      fastfile_set_close_all(&self->files);
    }
}

static void
_reopen_event_cb(void *cookie)
{
  _check_reopen((FastFileWorker *) cookie);
}

void
fastfile_worker_request_reopen(FastFileWorker *self)
{
  FastFileDriver *owner = _owner(self);

  g_mutex_lock(&owner->reopen_lock);
  if (self->reopen_event_registered)
    iv_event_post(&self->reopen_event);
  g_mutex_unlock(&owner->reopen_lock);
}

static LogThreadedResult
_write_batch(FastFileWorker *self)
{
  if (self->replay)
    return LTR_EXPLICIT_ACK_MGMT;

  _check_reopen(self);
  gboolean complete = fastfile_set_write_all(&self->files);
  fd_threaded_dest_worker_written_bytes_add(&self->super, self->files.written_bytes);
  self->files.written_bytes = 0;
  _attribute_writes(self);
  if (!complete)
    _drop_unwritten(self, TRUE);
  _settle_prefix(self);

  if (self->n_pending == 0 || fastfile_set_dirty_count(&self->files) == 0)
    {
      self->failed_flushes = 0;
      return LTR_EXPLICIT_ACK_MGMT;
    }

  self->failed_flushes++;
  /* as syslog-ng counts retries(): the number of attempts in all */
  if (self->failed_flushes >= self->super.owner->retries_on_error_max)
    {
      _drop_unwritten(self, FALSE);
      _settle_prefix(self);
      self->failed_flushes = 0;
      return LTR_EXPLICIT_ACK_MGMT;
    }

  msg_error("fast-file(): write failed, retrying after time-reopen",
            evt_tag_str("driver", self->super.owner->super.super.id),
            evt_tag_int("unwritten_messages", self->n_pending),
            evt_tag_int("attempt", self->failed_flushes),
            evt_tag_int("retries", self->super.owner->retries_on_error_max),
            evt_tag_int("time_reopen", self->super.time_reopen));

  /* the framework rewinds the unacked messages; they come back through
   * insert() in the same order, already formatted (and maybe written) */
  if (self->super.batch_size != (gint) self->n_pending)
    msg_error("fast-file(): internal accounting mismatch",
              evt_tag_int("batch_size", self->super.batch_size), evt_tag_int("pending", self->n_pending));
  self->replay = self->n_pending;
  return LTR_NOT_CONNECTED;
}

/* names come from message fields a sender controls: at most one error a second */
static void
_report_refused_path(FastFileWorker *self)
{
  gint64 now = g_get_monotonic_time() / G_USEC_PER_SEC;

  if (now == self->refused_paths.last_report)
    {
      self->refused_paths.suppressed++;
      return;
    }
  msg_error("fast-file(): spurious path, message dropped",
            evt_tag_str("driver", self->super.owner->super.super.id),
            evt_tag_str("path", self->filename->str),
            evt_tag_int("suppressed_since_last_report", self->refused_paths.suppressed));
  self->refused_paths.last_report = now;
  self->refused_paths.suppressed = 0;
}

static FastFileEntry *
_resolve_entry(FastFileWorker *self, LogMessage *msg)
{
  FastFileDriver *owner = _owner(self);

  if (self->single_file)
    return self->single_file;

  LogTemplateEvalOptions options = { &owner->template_options, LTZ_SEND, self->super.seq_num, NULL, LM_VT_STRING };
  log_template_format(owner->filename_template, msg, &options, self->filename);

  if (append_opener_is_spurious_path(self->filename->str) || strlen(self->filename->str) != self->filename->len)
    {
      _report_refused_path(self);
      return NULL;
    }
  return fastfile_set_lookup(&self->files, self->filename->str);
}

static LogThreadedResult
_insert_one(FastFileWorker *self, LogMessage *msg)
{
  LogThreadedDestWorker *s = &self->super;

  if (self->replay)
    {
      self->replay--;
      return LTR_QUEUED;
    }

  FastFileEntry *entry = _resolve_entry(self, msg);
  if (!entry)
    {
      _push_pending(self, NULL, FASTFILE_RECORD_DROPPED);
      return LTR_QUEUED;
    }

  GString *out = batch_buffer_data(&entry->buffer);
  gsize before = out->len;
  if (!fastfile_formatter_append(&self->formatter, msg, s->seq_num, out))
    {
      _push_pending(self, NULL, FASTFILE_RECORD_SKIPPED);
      return LTR_QUEUED;
    }
  log_threaded_dest_driver_insert_msg_length_stats(s->owner, out->len - before);
  batch_buffer_end_record(&entry->buffer);
  fastfile_set_mark_dirty(&self->files, entry);
  _push_pending(self, entry, FASTFILE_RECORD_QUEUED);

  if (batch_buffer_is_full(&entry->buffer))
    return _write_batch(self);
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
  FastFileDriver *owner = _owner(self);
  /* only templates take scratch buffers; give them back after each message as the framework does */
  gboolean templates = owner->template || !owner->filename_is_literal;
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
  FastFileWorker *self = (FastFileWorker *) s;

  return _write_batch(self);
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
  fastfile_set_close_all(&self->files);
}

static void
_reap_timer_cb(void *cookie)
{
  FastFileWorker *self = cookie;
  FastFileDriver *owner = _owner(self);

  fastfile_set_reap(&self->files, owner->time_reap);
  iv_validate_now();
  self->reap_timer.expires = iv_now;
  self->reap_timer.expires.tv_sec += MAX(1, owner->time_reap / 2);
  iv_timer_register(&self->reap_timer);
}

static gboolean
_init(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;
  FastFileDriver *owner = _owner(self);
  GError *error = NULL;

  if (!fastfile_formatter_init(&self->formatter, owner->template, &owner->template_options,
                               owner->encoding, owner->line_ending, &error))
    {
      msg_error("fast-file(): cannot set up the output encoding",
                evt_tag_str("encoding", owner->encoding ? owner->encoding : "UTF-8"),
                evt_tag_str("error", error->message));
      g_clear_error(&error);
      return FALSE;
    }

  FastFileSetOptions options =
  {
    .opener = &owner->opener_options,
    .max_open = owner->max_open_files,
    /* one file takes whole batches: size for them up front; with templated
     * names a file takes its share, and its buffer grows to what it needs */
    .expected_records = owner->filename_is_literal ? MAX(owner->super.batch_lines, 1) : 1,
    .fixed_capacity = owner->buffer_size,
    .fsync = owner->fsync,
    .single_writer = owner->super.num_workers <= 1,
  };
  if (owner->bom)
    options.bom = fastfile_formatter_get_bom(&self->formatter, &options.bom_len);
  fastfile_set_init(&self->files, &options);

  self->filename = g_string_sized_new(256);
  self->reopen_generation = g_atomic_int_get(&owner->reopen_generation);
  if (owner->filename_is_literal)
    {
      self->single_file = fastfile_set_lookup(&self->files, fd_template_str(owner->filename_template));
      /* never reaped or freed: hold one reference for the worker's lifetime */
      self->single_file->unacked++;
    }
  else if (owner->time_reap > 0)
    {
      iv_validate_now();
      self->reap_timer.expires = iv_now;
      self->reap_timer.expires.tv_sec += MAX(1, owner->time_reap / 2);
      iv_timer_register(&self->reap_timer);
    }

  g_mutex_lock(&owner->reopen_lock);
  iv_event_register(&self->reopen_event);
  self->reopen_event_registered = TRUE;
  g_mutex_unlock(&owner->reopen_lock);

  return log_threaded_dest_worker_init_method(s);
}

static void
_deinit(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;
  FastFileDriver *owner = _owner(self);

  g_mutex_lock(&owner->reopen_lock);
  if (self->reopen_event_registered)
    iv_event_unregister(&self->reopen_event);
  self->reopen_event_registered = FALSE;
  g_mutex_unlock(&owner->reopen_lock);

  if (iv_timer_registered(&self->reap_timer))
    iv_timer_unregister(&self->reap_timer);
  fastfile_set_destroy(&self->files);
  fastfile_formatter_destroy(&self->formatter);
  g_string_free(self->filename, TRUE);
  self->filename = NULL;
  self->single_file = NULL;
  self->n_pending = 0;
  self->replay = 0;
  log_threaded_dest_worker_deinit_method(s);
}

static void
_free(LogThreadedDestWorker *s)
{
  FastFileWorker *self = (FastFileWorker *) s;

  g_free(self->pending);
  log_threaded_dest_worker_free_method(s);
}

LogThreadedDestWorker *
fastfile_worker_new(LogThreadedDestDriver *owner, gint worker_index)
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

  IV_EVENT_INIT(&self->reopen_event);
  self->reopen_event.cookie = self;
  self->reopen_event.handler = _reopen_event_cb;
  IV_TIMER_INIT(&self->reap_timer);
  self->reap_timer.cookie = self;
  self->reap_timer.handler = _reap_timer_cb;
  return &self->super;
}
