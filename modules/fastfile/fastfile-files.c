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
#include "fastfile-files.h"
#include "messages.h"

#include <errno.h>
#include <string.h>
#include <xxhash.h>
#include <unistd.h>
#include <sys/stat.h>

static gint64
_now_sec(void)
{
  return g_get_monotonic_time() / G_USEC_PER_SEC;
}

static FastFileEntry *
_entry_new(FastFileSet *self, const gchar *path)
{
  FastFileEntry *entry = g_new0(FastFileEntry, 1);

  entry->path = g_strdup(path);
  entry->path_len = strlen(path);
  entry->fd = -1;
  entry->lru_link.data = entry;
  entry->fill_link.data = entry;
  entry->out_link.data = entry;
  batch_buffer_init(&entry->fill, self->options.expected_records, self->options.fixed_capacity);
  batch_buffer_init(&entry->out, self->options.expected_records, self->options.fixed_capacity);
  return entry;
}

static void
_entry_free(FastFileEntry *entry)
{
  fastfile_suppress_slot_clear(&entry->suppress);
  fastfile_mark_slot_clear(&entry->mark);
  batch_buffer_destroy(&entry->fill);
  batch_buffer_destroy(&entry->out);
  g_free(entry->path);
  g_free(entry);
}

static gboolean
_is_idle(FastFileEntry *entry)
{
  /* repeats left out by suppress() keep the file until their summary is written, a MARK to
   * come keeps it over a reopen or an eviction (file()'s writer keeps its timer) */
  return entry->fd < 0 && entry->unacked == 0 && !fastfile_suppress_slot_pending(&entry->suppress)
         && !fastfile_mark_slot_scheduled(&entry->mark)
         && batch_buffer_len(&entry->fill) == 0 && batch_buffer_len(&entry->out) == 0;
}

/* writer, lane lock held */
static void
_forget_if_idle(FastFileSet *self, FastFileEntry *entry)
{
  if (!_is_idle(entry))
    return;
  if (self->last_found == entry)
    self->last_found = NULL;
  g_hash_table_remove(self->by_path, entry->path);
}

static gboolean
_torn_end_matches(FastFileEntry *entry, gint fd)
{
  struct stat st;

  return entry->torn_end.valid && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
         && st.st_dev == entry->torn_end.dev && st.st_ino == entry->torn_end.ino
         && st.st_size == entry->torn_end.size;
}

static void
_remember_torn_end(FastFileEntry *entry)
{
  struct stat st;

  entry->torn_end.valid = fstat(entry->fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!entry->torn_end.valid)
    return;
  entry->torn_end.dev = st.st_dev;
  entry->torn_end.ino = st.st_ino;
  entry->torn_end.size = st.st_size;
}

/* the head record's start is not at the end of the file we (re)opened: write
 * it again whole; an orphan tail belongs to the old file and is dropped */
static void
_restart_torn_head(FastFileEntry *entry)
{
  if (entry->orphan_head)
    {
      batch_buffer_consume(&entry->out, entry->out.record_ends[0]);
      entry->orphan_head = FALSE;
    }
  entry->head_written = 0;
  entry->torn_end.valid = FALSE;
}

gboolean
fastfile_entry_truncate_torn(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->head_written == 0)
    return TRUE;
  if (!self->options.single_writer || entry->fd < 0 || !_torn_end_matches(entry, entry->fd)
      || ftruncate(entry->fd, entry->torn_end.size - entry->head_written) < 0)
    return FALSE;

  entry->head_written = 0;
  entry->torn_end.valid = FALSE;
  return TRUE;
}

static void
_close_fd(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->fd < 0)
    return;
  /* a torn record is finished in this file or nowhere: cut it while we still can */
  fastfile_entry_truncate_torn(self, entry);
  close(entry->fd);
  entry->fd = -1;
  g_queue_unlink(&self->lru, &entry->lru_link);
}

static void _evict_one(FastFileSet *self);

/* names come from message fields a sender controls: at most one error a second */
static void
_report_name_error(FastFileSet *self, FastFileEntry *entry, AppendOpenResult result, gint error)
{
  gint64 now = _now_sec();

  if (now == self->name_errors.last_report)
    {
      self->name_errors.suppressed++;
      return;
    }
  msg_error("fast-file(): the file name can never be opened, its messages are dropped",
            evt_tag_str("driver", self->options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_str("reason", append_open_result_name(result)),
            evt_tag_int("errno", error),
            evt_tag_str("error", error ? g_strerror(error) : ""),
            evt_tag_int("suppressed_since_last_report", self->name_errors.suppressed),
            log_pipe_location_tag(self->options.owner));
  self->name_errors.last_report = now;
  self->name_errors.suppressed = 0;
}

static void
_count_failure(FastFileEntry *entry, gint error, gint time_reopen)
{
  entry->last_errno = error;
  entry->attempts++;
  entry->retry_at = g_get_monotonic_time() + (gint64) MAX(time_reopen, 0) * G_USEC_PER_SEC;
}

static gboolean
_write_bom(FastFileSet *self, FastFileEntry *entry)
{
  BatchWriteResult result;

  self->write_syscalls++;
  if (batch_writer_write(entry->fd, self->options.bom, self->options.bom_len, &result))
    return TRUE;

  /* a BOM cut short would corrupt the file: start over on the next attempt */
  entry->last_errno = result.error;
  if (result.written && ftruncate(entry->fd, 0) < 0)
    msg_error("fast-file(): error truncating a partly written BOM",
              evt_tag_str("driver", self->options.driver_id),
              evt_tag_str("path", entry->path),
              log_pipe_location_tag(self->options.owner));
  return FALSE;
}

static gboolean
_open(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  AppendOpenedFile opened;
  gint error = 0;

  if (self->options.max_open && self->lru.length >= self->options.max_open)
    _evict_one(self);

  AppendOpenResult result = append_opener_open(self->options.opener, entry->path, &opened, &error);
  if (result != APPEND_OPEN_SUCCESS)
    {
      /* the configured name's missing directory may yet be made (file() waits
       * for it too); a name made of message fields is dropped at once */
      entry->permanent_error = append_open_result_is_permanent(result)
                               && !(self->options.literal_name && result == APPEND_OPEN_BAD_NAME && error == ENOENT);
      if (entry->permanent_error)
        {
          entry->last_errno = error;
          _report_name_error(self, entry, result, error);
          return FALSE;
        }
      _count_failure(entry, error, time_reopen);
      msg_error("fast-file(): error opening file, retrying after time-reopen",
                evt_tag_str("driver", self->options.driver_id),
                evt_tag_str("path", entry->path),
                evt_tag_int("errno", error),
                evt_tag_str("error", error ? g_strerror(error) : ""),
                evt_tag_int("attempt", entry->attempts),
                evt_tag_int("retries", self->options.retries),
                evt_tag_int("time_reopen", time_reopen),
                log_pipe_location_tag(self->options.owner));
      return FALSE;
    }

  entry->fd = opened.fd;
  entry->permanent_error = FALSE;
  g_queue_push_head_link(&self->lru, &entry->lru_link);

  if (entry->head_written && !_torn_end_matches(entry, entry->fd))
    _restart_torn_head(entry);

  if (opened.is_new_empty && self->options.bom_len && !_write_bom(self, entry))
    {
      _count_failure(entry, entry->last_errno, time_reopen);
      _close_fd(self, entry);
      return FALSE;
    }
  return TRUE;
}

static void
_add_outgoing(FastFileSet *self, FastFileEntry *entry)
{
  if (!entry->in_outgoing)
    {
      g_queue_push_tail_link(&self->outgoing, &entry->out_link);
      entry->in_outgoing = TRUE;
    }
}

static void
_remove_outgoing(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->in_outgoing)
    {
      g_queue_unlink(&self->outgoing, &entry->out_link);
      entry->in_outgoing = FALSE;
    }
}

/* the records of out completed by a write of `written` bytes that started
 * head_written bytes into it */
static void
_account_written(FastFileEntry *entry, gsize written)
{
  gsize total = entry->head_written + written;
  guint records = batch_buffer_records_in_prefix(&entry->out, total);
  gsize whole = records ? entry->out.record_ends[records - 1] : 0;

  if (records && entry->orphan_head)
    {
      /* the head was settled already: finishing its line is not a record */
      records--;
      entry->orphan_head = FALSE;
    }
  entry->done_records += records;
  batch_buffer_consume(&entry->out, whole);
  entry->head_written = total - whole;
}

/* writes what is left in entry->out; TRUE when all of it reached the file */
static gboolean
_write_entry(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  BatchWriteResult result;
  BatchBuffer *out = &entry->out;

  if (batch_buffer_len(out) == 0)
    return TRUE;
  if (entry->fd < 0 && !_open(self, entry, time_reopen))
    return FALSE;

  entry->last_used = _now_sec();
  g_queue_unlink(&self->lru, &entry->lru_link);
  g_queue_push_head_link(&self->lru, &entry->lru_link);

  gsize len = batch_buffer_len(out) - entry->head_written;
  gboolean complete = batch_writer_write(entry->fd, batch_buffer_data(out)->str + entry->head_written, len, &result);
  self->write_syscalls += result.syscalls;
  self->written_bytes += result.written;
  _account_written(entry, result.written);

  if (complete)
    {
      entry->attempts = 0;
      entry->torn_end.valid = FALSE;
      if (self->options.fsync && !batch_writer_sync(entry->fd))
        msg_error("fast-file(): fdatasync() failed",
                  evt_tag_str("driver", self->options.driver_id),
                  evt_tag_str("path", entry->path),
                  evt_tag_error("error"),
                  log_pipe_location_tag(self->options.owner));
      batch_buffer_reset(out);
      return TRUE;
    }

  /* where our bytes end the file now; a write that wrote nothing leaves the
   * file as an earlier one left it, or as another writer made it */
  if (result.written)
    {
      entry->torn_end.valid = FALSE;
      if (entry->head_written)
        _remember_torn_end(entry);
    }
  _count_failure(entry, result.error, self->options.ignore_errors ? 0 : time_reopen);
  msg_error("fast-file(): error writing file, retrying after time-reopen",
            evt_tag_str("driver", self->options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_int("errno", result.error),
            evt_tag_str("error", g_strerror(result.error)),
            evt_tag_long("written_bytes", (glong) result.written),
            evt_tag_long("pending_bytes", (glong) (batch_buffer_len(out) - entry->head_written)),
            evt_tag_int("attempt", entry->attempts),
            evt_tag_int("retries", self->options.retries),
            evt_tag_int("time_reopen", time_reopen),
            log_pipe_location_tag(self->options.owner));
  return FALSE;
}

static void
_evict_one(FastFileSet *self)
{
  GList *link = g_queue_peek_tail_link(&self->lru);
  if (!link)
    return;

  FastFileEntry *victim = link->data;
  /* its bytes would be written in this round anyway: write them before closing */
  if (victim->in_outgoing && _write_entry(self, victim, 0))
    _remove_outgoing(self, victim);
  _close_fd(self, victim);
  /* freed under the lane lock, when the round is over (fastfile_set_forget_idle()) */
  g_ptr_array_add(self->evicted, victim);
}

void
fastfile_set_mark_filled(FastFileSet *self, FastFileEntry *entry)
{
  if (!entry->in_filled)
    {
      g_queue_push_tail_link(&self->filled, &entry->fill_link);
      entry->in_filled = TRUE;
    }
}

gboolean
fastfile_set_has_filled(const FastFileSet *self)
{
  return self->filled.length > 0;
}

static void
_swap_buffers(BatchBuffer *a, BatchBuffer *b)
{
  BatchBuffer tmp = *a;

  *a = *b;
  *b = tmp;
}

guint
fastfile_set_take(FastFileSet *self)
{
  GList *link = g_queue_peek_head_link(&self->filled);
  guint taken = 0;

  while (link)
    {
      FastFileEntry *entry = link->data;
      GList *next = link->next;

      /* what a failed write left comes first: its fill waits for the next round */
      if (batch_buffer_len(&entry->out) == 0)
        {
          _swap_buffers(&entry->fill, &entry->out);
          g_queue_unlink(&self->filled, link);
          entry->in_filled = FALSE;
          _add_outgoing(self, entry);
          taken++;
        }
      link = next;
    }
  return taken;
}

gboolean
fastfile_set_write_all(FastFileSet *self, gboolean force, gint time_reopen)
{
  gint64 now = g_get_monotonic_time();
  GList *link = g_queue_peek_head_link(&self->outgoing);

  while (link)
    {
      FastFileEntry *entry = link->data;
      GList *next = link->next;

      /* a name that can never be opened is the lane's to drop, not to retry */
      if (!entry->permanent_error && (force || entry->retry_at <= now) && _write_entry(self, entry, time_reopen))
        _remove_outgoing(self, entry);
      link = next;
    }
  return self->outgoing.length == 0;
}

guint
fastfile_set_outgoing_count(const FastFileSet *self)
{
  return self->outgoing.length;
}

gint64
fastfile_set_next_retry(const FastFileSet *self)
{
  gint64 next = 0;

  for (GList *link = self->outgoing.head; link; link = link->next)
    {
      FastFileEntry *entry = link->data;

      if (!next || entry->retry_at < next)
        next = entry->retry_at;
    }
  return next;
}

guint
fastfile_entry_discard_unwritten(FastFileSet *self, FastFileEntry *entry)
{
  guint dropped = batch_buffer_records(&entry->fill);

  batch_buffer_reset(&entry->fill);
  if (entry->in_filled)
    {
      g_queue_unlink(&self->filled, &entry->fill_link);
      entry->in_filled = FALSE;
    }

  guint in_out = batch_buffer_records(&entry->out) - (entry->orphan_head ? 1 : 0);
  dropped += in_out;
  if (entry->head_written && !entry->orphan_head && !fastfile_entry_truncate_torn(self, entry))
    {
      /* the line stays whole on disk only if its tail follows: keep it, not as a record */
      batch_buffer_truncate_records(&entry->out, 1);
      entry->orphan_head = TRUE;
      entry->attempts = 0;
      return dropped;
    }
  if (!entry->orphan_head)
    {
      batch_buffer_reset(&entry->out);
      entry->head_written = 0;
      entry->torn_end.valid = FALSE;
      _remove_outgoing(self, entry);
    }
  else
    {
      batch_buffer_truncate_records(&entry->out, 1);
    }
  return dropped;
}

static void
_add_maybe_idle(FastFileSet *self, FastFileEntry *entry)
{
  if (!entry->maybe_idle)
    {
      entry->maybe_idle = TRUE;
      g_ptr_array_add(self->maybe_idle, entry);
    }
}

void
fastfile_set_release_record(FastFileSet *self, FastFileEntry *entry)
{
  g_assert(entry->unacked > 0);
  entry->unacked--;
  /* its writer's side is not ours to look at: the writer frees it if it is idle */
  if (entry->unacked == 0)
    _add_maybe_idle(self, entry);
}

void
fastfile_set_forget_idle(FastFileSet *self)
{
  for (guint i = 0; i < self->evicted->len; i++)
    _add_maybe_idle(self, g_ptr_array_index(self->evicted, i));
  g_ptr_array_set_size(self->evicted, 0);

  for (guint i = 0; i < self->maybe_idle->len; i++)
    {
      FastFileEntry *entry = g_ptr_array_index(self->maybe_idle, i);

      entry->maybe_idle = FALSE;
      _forget_if_idle(self, entry);
    }
  g_ptr_array_set_size(self->maybe_idle, 0);
}

void
fastfile_set_close_all(FastFileSet *self)
{
  GList *link;

  while ((link = g_queue_peek_head_link(&self->lru)))
    {
      FastFileEntry *entry = link->data;

      _close_fd(self, entry);
      _add_maybe_idle(self, entry);
    }
  fastfile_set_forget_idle(self);
}

void
fastfile_set_reap(FastFileSet *self, gint time_reap)
{
  gint64 now = _now_sec();
  GList *link = g_queue_peek_tail_link(&self->lru);

  while (link)
    {
      FastFileEntry *entry = link->data;
      GList *prev = link->prev;

      if (now - entry->last_used < time_reap)
        break;
      if (!entry->in_outgoing && !entry->in_filled && entry->unacked == 0)
        {
          msg_debug("fast-file(): closing idle file", evt_tag_str("path", entry->path));
          /* as file() reaps a writer with its MARK timer */
          fastfile_mark_slot_clear(&entry->mark);
          _close_fd(self, entry);
          _add_maybe_idle(self, entry);
        }
      link = prev;
    }
  fastfile_set_forget_idle(self);
}

FastFileEntry *
fastfile_set_lookup(FastFileSet *self, const gchar *path)
{
  FastFileEntry *entry = g_hash_table_lookup(self->by_path, path);

  if (!entry)
    {
      entry = _entry_new(self, path);
      g_hash_table_insert(self->by_path, entry->path, entry);
    }
  self->last_found = entry;
  return entry;
}

/* a lookup per message for templated names: XXH3 reads the path a word at a
 * time where g_str_hash() takes a byte at a time (it was a quarter of the
 * cost of a templated name) */
static guint
_path_hash(gconstpointer path)
{
  return (guint) XXH3_64bits(path, strlen(path));
}

void
fastfile_set_init(FastFileSet *self, const FastFileSetOptions *options)
{
  memset(self, 0, sizeof(*self));
  self->options = *options;
  self->by_path = g_hash_table_new_full(_path_hash, g_str_equal, NULL, (GDestroyNotify) _entry_free);
  g_queue_init(&self->filled);
  g_queue_init(&self->outgoing);
  g_queue_init(&self->lru);
  self->maybe_idle = g_ptr_array_new();
  self->evicted = g_ptr_array_new();
}

void
fastfile_set_destroy(FastFileSet *self)
{
  GHashTableIter iter;
  gpointer value;

  if (!self->by_path)
    return;
  g_hash_table_iter_init(&iter, self->by_path);
  while (g_hash_table_iter_next(&iter, NULL, &value))
    {
      FastFileEntry *entry = value;
      if (entry->fd >= 0)
        close(entry->fd);
    }
  g_hash_table_destroy(self->by_path);
  g_ptr_array_free(self->maybe_idle, TRUE);
  g_ptr_array_free(self->evicted, TRUE);
  memset(self, 0, sizeof(*self));
}
