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
  entry->fd = -1;
  entry->lru_link.data = entry;
  entry->dirty_link.data = entry;
  batch_buffer_init(&entry->buffer, self->options.expected_records, self->options.fixed_capacity);
  return entry;
}

static void
_entry_free(FastFileEntry *entry)
{
  batch_buffer_destroy(&entry->buffer);
  g_free(entry->path);
  g_free(entry);
}

static void
_close_fd(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->fd < 0)
    return;
  close(entry->fd);
  entry->fd = -1;
  g_queue_unlink(&self->lru, &entry->lru_link);
}

static gboolean
_is_idle(FastFileEntry *entry)
{
  return entry->fd < 0 && entry->unacked == 0 && batch_buffer_len(&entry->buffer) == 0;
}

static void
_forget_if_idle(FastFileSet *self, FastFileEntry *entry)
{
  if (_is_idle(entry))
    g_hash_table_remove(self->by_path, entry->path);
}

static void _evict_one(FastFileSet *self);

static gboolean
_open(FastFileSet *self, FastFileEntry *entry)
{
  AppendOpenedFile opened;
  gint error = 0;

  if (self->options.max_open && self->lru.length >= self->options.max_open)
    _evict_one(self);

  AppendOpenResult result = append_opener_open(self->options.opener, entry->path, &opened, &error);
  if (result != APPEND_OPEN_SUCCESS)
    {
      entry->last_errno = error;
      entry->permanent_error = (result == APPEND_OPEN_SPURIOUS_PATH || result == APPEND_OPEN_NOT_SUPPORTED);
      msg_error("fast-file(): error opening file",
                evt_tag_str("path", entry->path),
                evt_tag_str("reason", append_open_result_name(result)),
                evt_tag_int("errno", error),
                evt_tag_str("error", error ? g_strerror(error) : ""));
      return FALSE;
    }

  entry->fd = opened.fd;
  entry->permanent_error = FALSE;
  g_queue_push_head_link(&self->lru, &entry->lru_link);

  if (opened.is_new_empty && self->options.bom_len)
    {
      BatchWriteResult bom_result;

      self->write_syscalls++;
      if (!batch_writer_write(entry->fd, self->options.bom, self->options.bom_len, &bom_result))
        {
          /* a BOM cut short would corrupt the file: start over on the next attempt */
          entry->last_errno = bom_result.error;
          if (bom_result.written && ftruncate(entry->fd, 0) < 0)
            msg_error("fast-file(): error truncating a partly written BOM", evt_tag_str("path", entry->path));
          _close_fd(self, entry);
          return FALSE;
        }
    }
  return TRUE;
}

/* writes the buffered bytes of one entry; TRUE when all of them reached the file */
static gboolean
_write_entry(FastFileSet *self, FastFileEntry *entry)
{
  BatchWriteResult result;
  BatchBuffer *buffer = &entry->buffer;
  gsize len = batch_buffer_len(buffer);

  if (len == 0)
    return TRUE;
  if (entry->fd < 0 && !_open(self, entry))
    return FALSE;

  entry->last_used = _now_sec();
  g_queue_unlink(&self->lru, &entry->lru_link);
  g_queue_push_head_link(&self->lru, &entry->lru_link);

  gboolean complete = batch_writer_write(entry->fd, batch_buffer_data(buffer)->str, len, &result);
  self->write_syscalls += result.syscalls;
  self->written_bytes += result.written;

  guint records = batch_buffer_records_in_prefix(buffer, result.written);
  guint orphans_done = MIN(records, entry->orphans);
  entry->orphans -= orphans_done;
  entry->done_records += records - orphans_done;
  if (complete)
    {
      entry->head_partial = FALSE;
      msg_debug("fast-file(): batch written",
                evt_tag_str("path", entry->path),
                evt_tag_long("bytes", (glong) len),
                evt_tag_int("records", records));
      if (self->options.fsync && !batch_writer_sync(entry->fd))
        msg_error("fast-file(): fdatasync() failed", evt_tag_str("path", entry->path), evt_tag_error("error"));
      batch_buffer_reset(buffer);
      return TRUE;
    }

  if (result.written)
    {
      gsize partial = result.written - batch_buffer_whole_records_end(buffer, result.written);

      entry->head_written = (records == 0 && entry->head_partial) ? entry->head_written + partial : partial;
      entry->head_partial = partial > 0;
      batch_buffer_consume(buffer, result.written);
    }
  entry->last_errno = result.error;
  msg_error("fast-file(): error writing file",
            evt_tag_str("path", entry->path),
            evt_tag_int("errno", result.error),
            evt_tag_str("error", g_strerror(result.error)),
            evt_tag_long("written_bytes", (glong) result.written),
            evt_tag_long("pending_bytes", (glong) batch_buffer_len(buffer)));
  return FALSE;
}

static void
_unlink_dirty(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->in_dirty)
    {
      g_queue_unlink(&self->dirty, &entry->dirty_link);
      entry->in_dirty = FALSE;
    }
}

static void
_evict_one(FastFileSet *self)
{
  GList *link = g_queue_peek_tail_link(&self->lru);
  if (!link)
    return;

  FastFileEntry *victim = link->data;
  /* its bytes would be written at this flush anyway: write them before closing */
  if (victim->in_dirty && _write_entry(self, victim))
    _unlink_dirty(self, victim);
  _close_fd(self, victim);
  _forget_if_idle(self, victim);
}

void
fastfile_set_mark_dirty(FastFileSet *self, FastFileEntry *entry)
{
  if (!entry->in_dirty)
    {
      g_queue_push_tail_link(&self->dirty, &entry->dirty_link);
      entry->in_dirty = TRUE;
    }
}

gboolean
fastfile_set_write_all(FastFileSet *self)
{
  GList *link;

  self->write_round++;
  while ((link = g_queue_peek_head_link(&self->dirty)))
    {
      FastFileEntry *entry = link->data;

      if (entry->write_round == self->write_round)
        break;
      entry->write_round = self->write_round;
      g_queue_unlink(&self->dirty, link);
      if (_write_entry(self, entry))
        entry->in_dirty = FALSE;
      else
        g_queue_push_tail_link(&self->dirty, link);
    }
  return self->dirty.length == 0;
}

/* cut a partly written record off the end of the file again */
static gboolean
_truncate_torn_tail(FastFileSet *self, FastFileEntry *entry)
{
  struct stat st;

  if (!self->options.single_writer || entry->fd < 0 || fstat(entry->fd, &st) < 0
      || !S_ISREG(st.st_mode) || (gsize) st.st_size < entry->head_written)
    return FALSE;
  if (ftruncate(entry->fd, st.st_size - entry->head_written) < 0)
    return FALSE;
  entry->head_partial = FALSE;
  entry->head_written = 0;
  return TRUE;
}

static void
_discard_entry(FastFileSet *self, FastFileEntry *entry)
{
  if (entry->head_partial && entry->orphans == 0)
    _truncate_torn_tail(self, entry);

  guint keep = entry->head_partial ? 1 : 0;

  batch_buffer_truncate_records(&entry->buffer, keep);
  entry->done_records += keep - MIN(keep, entry->orphans);
  entry->orphans = keep;
  if (keep == 0)
    _unlink_dirty(self, entry);
}

void
fastfile_set_discard_unwritten(FastFileSet *self, gboolean permanent_only)
{
  GList *link = g_queue_peek_head_link(&self->dirty);

  while (link)
    {
      FastFileEntry *entry = link->data;
      GList *next = link->next;

      if (!permanent_only || entry->permanent_error)
        _discard_entry(self, entry);
      link = next;
    }
}

guint
fastfile_set_dirty_count(const FastFileSet *self)
{
  return self->dirty.length;
}

void
fastfile_set_release_record(FastFileSet *self, FastFileEntry *entry)
{
  g_assert(entry->unacked > 0);
  entry->unacked--;
  _forget_if_idle(self, entry);
}

void
fastfile_set_close_all(FastFileSet *self)
{
  GList *link;

  while ((link = g_queue_peek_head_link(&self->lru)))
    {
      FastFileEntry *entry = link->data;
      _close_fd(self, entry);
      _forget_if_idle(self, entry);
    }
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
      if (!entry->in_dirty && entry->unacked == 0)
        {
          msg_debug("fast-file(): closing idle file", evt_tag_str("path", entry->path));
          _close_fd(self, entry);
          _forget_if_idle(self, entry);
        }
      link = prev;
    }
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
  return entry;
}

void
fastfile_set_init(FastFileSet *self, const FastFileSetOptions *options)
{
  memset(self, 0, sizeof(*self));
  self->options = *options;
  self->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify) _entry_free);
  g_queue_init(&self->lru);
  g_queue_init(&self->dirty);
}

void
fastfile_set_destroy(FastFileSet *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init(&iter, self->by_path);
  while (g_hash_table_iter_next(&iter, NULL, &value))
    {
      FastFileEntry *entry = value;
      if (entry->fd >= 0)
        close(entry->fd);
    }
  g_hash_table_destroy(self->by_path);
  memset(self, 0, sizeof(*self));
}
