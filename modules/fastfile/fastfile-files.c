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
#include <fcntl.h>
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
  g_mutex_init(&entry->own_write_lock);
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
  g_mutex_clear(&entry->own_write_lock);
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
_end_mark_is(const FastFileEndMark *mark, const struct stat *st)
{
  return mark->valid && S_ISREG(st->st_mode) && st->st_dev == mark->dev && st->st_ino == mark->ino
         && st->st_size == mark->size;
}

/* the file `st` describes, at `size`; a pipe or a device has no end to mark */
static void
_end_mark_set(FastFileEndMark *mark, const struct stat *st, off_t size)
{
  mark->valid = S_ISREG(st->st_mode);
  mark->dev = st->st_dev;
  mark->ino = st->st_ino;
  mark->size = size;
}

static gboolean
_torn_end_matches(FastFileEntry *entry, gint fd)
{
  struct stat st;

  return entry->torn_end.valid && fstat(fd, &st) == 0 && _end_mark_is(&entry->torn_end, &st);
}

static void
_remember_torn_end(FastFileEntry *entry)
{
  struct stat st;

  if (fstat(entry->fd, &st) == 0)
    _end_mark_set(&entry->torn_end, &st, st.st_size);
  else
    entry->torn_end.valid = FALSE;
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
  if (entry->own_writing)
    {
      /* a delivering thread writes to it right now: it closes it when it is done */
      entry->close_pending = TRUE;
      return;
    }
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
_compressed(FastFileSet *self)
{
  return self->options.compression && self->options.compression->type != BATCH_COMPRESSION_NONE;
}

/* one member/frame of out's first `end` bytes (or of the BOM) */
static gboolean
_compress(FastFileSet *self, FastFileEntry *entry, const void *data, gsize len, const guint8 **member,
          gsize *member_len)
{
  const gchar *error_text = "the compressor could not be started";

  if (self->compressor && batch_compressor_compress(self->compressor, data, len, member, member_len, &error_text))
    return TRUE;
  entry->last_errno = EIO;
  msg_error("fast-file(): compression failed",
            evt_tag_str("driver", self->options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_str("compression", batch_compression_name(self->options.compression->type)),
            evt_tag_str("error", error_text),
            log_pipe_location_tag(self->options.owner));
  return FALSE;
}

static gboolean
_write_bom(FastFileSet *self, FastFileEntry *entry)
{
  BatchWriteResult result;
  const guint8 *bom = self->options.bom;
  gsize bom_len = self->options.bom_len;

  /* compressed, the BOM is the first member: the decompressed file starts with it */
  if (_compressed(self) && !_compress(self, entry, bom, bom_len, &bom, &bom_len))
    return FALSE;
  self->write_syscalls++;
  if (batch_writer_write(entry->fd, bom, bom_len, &result))
    {
      entry->only_bom = TRUE;
      if (_compressed(self))
        {
          stats_counter_add(self->options.compression->bytes_in, self->options.bom_len);
          stats_counter_add(self->options.compression->bytes_out, bom_len);
        }
      return TRUE;
    }

  /* a BOM cut short would corrupt the file: start over on the next attempt */
  entry->last_errno = result.error;
  if (result.written && ftruncate(entry->fd, 0) < 0)
    msg_error("fast-file(): error truncating a partly written BOM",
              evt_tag_str("driver", self->options.driver_id),
              evt_tag_str("path", entry->path),
              log_pipe_location_tag(self->options.owner));
  return FALSE;
}

/* What the end of an existing file looks like, read before the file is
 * opened for appending (a crash or a power cut mid-write leaves part of a
 * write there), through a descriptor of its own closed again before the
 * writer's opens (that one is write-only): max-open-files() holds with it.
 * What was read is acted on only if the writer opened the very same file at
 * the same size.  With more than one writer the end may be another worker's
 * write in progress: not ours to judge, never read. */
typedef struct _FastFileTail
{
  gboolean found;             /* the end is not whole: act on it */
  struct stat st;
  LineScanResult line_scan;   /* plain */
  BatchScanResult unit_scan;  /* compression() */
  off_t valid_end;
  gint error;
} FastFileTail;

static gboolean
_tail_is_checked(FastFileSet *self)
{
  return self->options.single_writer && (_compressed(self) || self->options.lines);
}

/* whether the end of the file `st` describes is known without reading it */
static gboolean
_tail_is_known(FastFileSet *self, FastFileEntry *entry, const struct stat *st)
{
  /* compression(): our last complete member left it at this size */
  if (_compressed(self))
    return _end_mark_is(&entry->whole_end, st);
  /* bom(yes) writes the BOM as it opens a new file: a file of just that holds no record;
   * a record of ours torn in this run is finished, not cut */
  return (self->options.bom_len && st->st_size == (off_t) self->options.bom_len)
         || (entry->head_written && _end_mark_is(&entry->torn_end, st));
}

static void
_scan_tail(FastFileSet *self, FastFileEntry *entry, FastFileTail *tail)
{
  /* missing: a new file; not a regular file (a pipe, a device): never opened here, opening
   * one may have effects of its own; its end known: not opened either (a reopen after an eviction) */
  if (stat(entry->path, &tail->st) < 0 || !S_ISREG(tail->st.st_mode) || tail->st.st_size == 0
      || _tail_is_known(self, entry, &tail->st))
    return;

  gint rfd = open(entry->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (rfd < 0)
    {
      /* unreadable: its end is not checked, and said so */
      tail->error = errno;
      tail->line_scan = LINE_SCAN_READ_ERROR;
      tail->unit_scan = BATCH_SCAN_READ_ERROR;
      tail->found = TRUE;
      return;
    }
  /* again for what was opened: the path may name another file by now (a rotation between the two) */
  if (fstat(rfd, &tail->st) == 0 && S_ISREG(tail->st.st_mode) && tail->st.st_size > 0
      && !_tail_is_known(self, entry, &tail->st))
    {
      if (_compressed(self))
        {
          /* from its start, to its last complete member/frame */
          tail->unit_scan = batch_compressor_scan(self->options.compression->type, rfd, tail->st.st_size,
                                                  &tail->valid_end);
          tail->found = tail->unit_scan != BATCH_SCAN_WHOLE;
        }
      else
        {
          /* back to its last line end */
          tail->line_scan = line_encoder_scan_tail(self->options.lines, rfd, tail->st.st_size, &tail->valid_end);
          tail->found = tail->line_scan != LINE_SCAN_WHOLE;
        }
      tail->error = errno;
    }
  close(rfd);
}

/* compression(): a member/frame cut short at the end of the file is cut off
 * before anything is appended, or the file would not decompress past it.
 * Only what is merely incomplete at the very end is cut; bytes no decoder
 * takes are left alone. */
static void
_mend_unit_tail(FastFileSet *self, FastFileEntry *entry, const FastFileTail *tail)
{
  BatchCompression type = self->options.compression->type;

  switch (tail->unit_scan)
    {
    case BATCH_SCAN_WHOLE:
      break;
    case BATCH_SCAN_TORN:
      if (ftruncate(entry->fd, tail->valid_end) == 0)
        msg_warning("fast-file(): cut a partly written compressed unit off the end of the file",
                    evt_tag_str("driver", self->options.driver_id),
                    evt_tag_str("path", entry->path),
                    evt_tag_str("compression", batch_compression_name(type)),
                    evt_tag_long("offset", (glong) tail->valid_end),
                    evt_tag_long("cut_bytes", (glong) (tail->st.st_size - tail->valid_end)),
                    log_pipe_location_tag(self->options.owner));
      else
        msg_error("fast-file(): error cutting a partly written compressed unit off the end of the file",
                  evt_tag_str("driver", self->options.driver_id),
                  evt_tag_str("path", entry->path),
                  evt_tag_error("error"),
                  log_pipe_location_tag(self->options.owner));
      break;
    case BATCH_SCAN_FOREIGN:
      msg_warning("fast-file(): the file holds bytes that are not compression() output, appending after them",
                  evt_tag_str("driver", self->options.driver_id),
                  evt_tag_str("path", entry->path),
                  evt_tag_str("compression", batch_compression_name(type)),
                  evt_tag_long("offset", (glong) tail->valid_end),
                  log_pipe_location_tag(self->options.owner));
      break;
    case BATCH_SCAN_READ_ERROR:
      msg_error("fast-file(): error reading the file to check its end for a partly written compressed unit",
                evt_tag_str("driver", self->options.driver_id),
                evt_tag_str("path", entry->path),
                evt_tag_int("errno", tail->error),
                evt_tag_str("error", g_strerror(tail->error)),
                log_pipe_location_tag(self->options.owner));
      break;
    }
}

/* plain: a record cut short (never acknowledged, so it comes again whole)
 * is cut back to the last whole record, or the first record appended would
 * be glued to it.  Bytes with no line end within LINE_SCAN_WINDOW are not a
 * record of ours cut short: kept and ended with a line ending.  FALSE: that
 * line ending could not be written. */
static gboolean
_mend_line_tail(FastFileSet *self, FastFileEntry *entry, const FastFileTail *tail)
{
  switch (tail->line_scan)
    {
    case LINE_SCAN_WHOLE:
      return TRUE;
    case LINE_SCAN_TORN:
      if (ftruncate(entry->fd, tail->valid_end) == 0)
        msg_warning("fast-file(): cut a partly written record off the end of the file",
                    evt_tag_str("driver", self->options.driver_id),
                    evt_tag_str("path", entry->path),
                    evt_tag_long("offset", (glong) tail->valid_end),
                    evt_tag_long("cut_bytes", (glong) (tail->st.st_size - tail->valid_end)),
                    log_pipe_location_tag(self->options.owner));
      else
        msg_error("fast-file(): error cutting a partly written record off the end of the file",
                  evt_tag_str("driver", self->options.driver_id),
                  evt_tag_str("path", entry->path),
                  evt_tag_error("error"),
                  log_pipe_location_tag(self->options.owner));
      return TRUE;
    case LINE_SCAN_UNENDED:
    {
      guint8 end[LINE_ENCODER_MAX_END];
      gsize end_len = line_encoder_end_unended(self->options.lines, tail->st.st_size, end);
      BatchWriteResult result;

      self->write_syscalls++;
      if (!batch_writer_write(entry->fd, end, end_len, &result))
        {
          entry->last_errno = result.error;
          msg_error("fast-file(): error ending the file's unended last line, retrying after time-reopen",
                    evt_tag_str("driver", self->options.driver_id),
                    evt_tag_str("path", entry->path),
                    evt_tag_int("errno", result.error),
                    evt_tag_str("error", g_strerror(result.error)),
                    log_pipe_location_tag(self->options.owner));
          return FALSE;
        }
      msg_warning("fast-file(): the file ends in bytes with no line ending that are not a record cut short; "
                  "ended it with a line ending before appending",
                  evt_tag_str("driver", self->options.driver_id),
                  evt_tag_str("path", entry->path),
                  evt_tag_long("offset", (glong) tail->st.st_size),
                  log_pipe_location_tag(self->options.owner));
      return TRUE;
    }
    case LINE_SCAN_READ_ERROR:
      msg_error("fast-file(): error reading the file to check its end for a partly written record",
                evt_tag_str("driver", self->options.driver_id),
                evt_tag_str("path", entry->path),
                evt_tag_int("errno", tail->error),
                evt_tag_str("error", g_strerror(tail->error)),
                log_pipe_location_tag(self->options.owner));
      return TRUE;
    }
  return TRUE;
}

/* FALSE: the file could not be made ready for appending */
static gboolean
_mend_tail(FastFileSet *self, FastFileEntry *entry, const FastFileTail *tail)
{
  struct stat st;

  if (fstat(entry->fd, &st) < 0 || st.st_dev != tail->st.st_dev || st.st_ino != tail->st.st_ino
      || st.st_size != tail->st.st_size)
    return TRUE;
  if (_compressed(self))
    {
      _mend_unit_tail(self, entry, tail);
      return TRUE;
    }
  return _mend_line_tail(self, entry, tail);
}

static gboolean
_open(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  AppendOpenedFile opened;
  gint error = 0;

  if (self->options.max_open && self->lru.length >= self->options.max_open)
    _evict_one(self);

  FastFileTail tail = { .found = FALSE };
  if (_tail_is_checked(self))
    _scan_tail(self, entry, &tail);

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
  entry->only_bom = FALSE;
  g_queue_push_head_link(&self->lru, &entry->lru_link);

  if (tail.found && !opened.is_new_empty && !_mend_tail(self, entry, &tail))
    {
      _count_failure(entry, entry->last_errno, time_reopen);
      _close_fd(self, entry);
      return FALSE;
    }

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

/* fsync(yes): the batch is on disk before it is acked; a failure is logged, as file() does */
static void
_sync_if_asked(FastFileSet *self, FastFileEntry *entry)
{
  if (self->options.fsync && !batch_writer_sync(entry->fd))
    msg_error("fast-file(): fdatasync() failed",
              evt_tag_str("driver", self->options.driver_id),
              evt_tag_str("path", entry->path),
              evt_tag_error("error"),
              log_pipe_location_tag(self->options.owner));
}

/* writes out's bytes up to `end` (a record end) from where a torn write left
 * off; TRUE when all of them reached the file */
static gboolean
_write_prefix(FastFileSet *self, FastFileEntry *entry, gsize end, gint time_reopen)
{
  BatchWriteResult result;
  BatchBuffer *out = &entry->out;

  gsize len = end - entry->head_written;
  gboolean complete = batch_writer_write(entry->fd, batch_buffer_data(out)->str + entry->head_written, len, &result);
  self->write_syscalls += result.syscalls;
  self->written_bytes += result.written;
  _account_written(entry, result.written);
  if (result.written)
    entry->only_bom = FALSE;

  if (complete)
    {
      entry->attempts = 0;
      entry->torn_end.valid = FALSE;
      _sync_if_asked(self, entry);
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
_rotation_error(FastFileSet *self, FastFileEntry *entry, const gchar *what, const gchar *from, const gchar *to,
                gint error, gint time_reopen)
{
  _count_failure(entry, error, time_reopen);
  msg_error("fast-file(): error rotating file, retrying after time-reopen",
            evt_tag_str("driver", self->options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_str("operation", what),
            evt_tag_str("file", from),
            evt_tag_str("new_file", to ? to : ""),
            evt_tag_int("errno", error),
            evt_tag_str("error", g_strerror(error)),
            evt_tag_int("attempt", entry->attempts),
            evt_tag_int("retries", self->options.retries),
            evt_tag_int("time_reopen", time_reopen),
            log_pipe_location_tag(self->options.owner));
}

/* path.N-1 -> path.N ... path -> path.1 (rename() replaces the oldest).
 * From the oldest down, so that a chain cut short by an error is simply
 * run again: a name already moved on is missing (ENOENT) and skipped. */
static gboolean
_rename_chain(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  const FastFileRotation *rotation = self->options.rotation;
  gboolean ok = TRUE;

  for (gint i = rotation->rotations; ok && i >= 1; i--)
    {
      gchar *from = i > 1 ? g_strdup_printf("%s.%d", entry->path, i - 1) : g_strdup(entry->path);
      gchar *to = g_strdup_printf("%s.%d", entry->path, i);

      if (rename(from, to) < 0 && errno != ENOENT)
        {
          _rotation_error(self, entry, "rename", from, to, errno, time_reopen);
          ok = FALSE;
        }
      g_free(from);
      g_free(to);
    }
  return ok;
}

/* close the file and move it to path.1; the next write opens a new one.  A
 * file no longer at its path was rotated by someone else (another worker of
 * this destination, an external logrotate): only let go of it. */
static gboolean
_rotate(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  FastFileRotation *rotation = (FastFileRotation *) self->options.rotation;
  struct stat st_fd, st_path;

  g_mutex_lock(&rotation->lock);
  gboolean ours = fstat(entry->fd, &st_fd) == 0 && stat(entry->path, &st_path) == 0
                  && st_fd.st_dev == st_path.st_dev && st_fd.st_ino == st_path.st_ino;

  _close_fd(self, entry);
  gboolean renamed = ours && _rename_chain(self, entry, time_reopen);
  g_mutex_unlock(&rotation->lock);
  if (!ours)
    return TRUE;
  if (!renamed)
    return FALSE;

  stats_counter_inc(self->options.rotation->rotated);
  msg_verbose("fast-file(): file reached logrotate(size()), rotated",
              evt_tag_str("driver", self->options.driver_id),
              evt_tag_str("path", entry->path),
              evt_tag_long("size", (glong) self->options.rotation->size));
  return TRUE;
}

/* workers(N > 1): another worker may have rotated the file this one still
 * holds; it may be renamed on to the oldest name and deleted, so nothing more
 * goes into it */
static gboolean
_moved_by_another_writer(FastFileSet *self, FastFileEntry *entry, const struct stat *st_fd)
{
  struct stat st_path;

  if (self->options.single_writer)
    return FALSE;
  return stat(entry->path, &st_path) < 0 || st_path.st_dev != st_fd->st_dev || st_path.st_ino != st_fd->st_ino;
}

typedef enum
{
  FIT_WRITE,      /* write up to *end */
  FIT_ROTATED,    /* the file was rotated: open the next one */
  FIT_FAILED,     /* retry after time-reopen */
} FitResult;

/* the room left under size() in a file of `size` bytes */
static guint64
_room(const FastFileRotation *rotation, guint64 size)
{
  return size < rotation->size ? rotation->size - size : 0;
}

/* a unit that does not fit: a file that holds nothing of ours yet (nothing,
 * only a BOM) or was just rotated takes it anyway, so that rotations never
 * loop; any other is rotated first */
static FitResult
_oversized(FastFileSet *self, FastFileEntry *entry, guint64 size, gboolean just_rotated, gint time_reopen)
{
  if (size == 0 || entry->only_bom || just_rotated)
    return FIT_WRITE;
  return _rotate(self, entry, time_reopen) ? FIT_ROTATED : FIT_FAILED;
}

/* How much of out goes into the open file: whole records up to size().  A
 * file that holds nothing of ours yet (nothing, or only a BOM) takes at
 * least one record, however large; otherwise a record that does not fit
 * rotates the file first.  A torn record is finished in its file first. */
static FitResult
_fit_rotation(FastFileSet *self, FastFileEntry *entry, gsize *end, gboolean just_rotated, gint time_reopen)
{
  const FastFileRotation *rotation = self->options.rotation;
  BatchBuffer *out = &entry->out;
  struct stat st;

  if (entry->head_written)
    {
      /* the torn record fit when it was started; the rest is measured once it is finished */
      *end = out->record_ends[0];
      return FIT_WRITE;
    }
  /* other workers of this destination may append to it too: the file's size, not ours */
  if (fstat(entry->fd, &st) < 0 || !S_ISREG(st.st_mode))
    return FIT_WRITE;
  if (_moved_by_another_writer(self, entry, &st))
    {
      _close_fd(self, entry);
      return FIT_ROTATED;
    }

  guint64 size = st.st_size;
  guint64 room = _room(rotation, size);
  if (batch_buffer_len(out) <= room)
    return FIT_WRITE;

  guint records = batch_buffer_records_in_prefix(out, room);
  if (records)
    {
      *end = out->record_ends[records - 1];
      return FIT_WRITE;
    }
  /* not even the first record fits: it goes alone, or after a rotation */
  FitResult fit = _oversized(self, entry, size, just_rotated, time_reopen);
  if (fit == FIT_WRITE)
    *end = out->record_ends[0];
  return fit;
}

/* compression(): a member/frame of out's first `end` bytes that fits the
 * file's room under size(): fewer whole records while it does not (rotations
 * are rare: a few compressions then), one record alone into a file that holds
 * nothing of ours, else the file is rotated first.  *st: the file before the write. */
static FitResult
_compress_fit(FastFileSet *self, FastFileEntry *entry, gsize *end, gboolean just_rotated, gint time_reopen,
              const guint8 **member, gsize *member_len, struct stat *st)
{
  const FastFileRotation *rotation = self->options.rotation;
  BatchBuffer *out = &entry->out;
  const gchar *data = batch_buffer_data(out)->str;

  if (fstat(entry->fd, st) < 0)
    {
      memset(st, 0, sizeof(*st));
      entry->whole_end.valid = FALSE;
    }
  if (!_compress(self, entry, data, *end, member, member_len))
    {
      _count_failure(entry, EIO, time_reopen);
      return FIT_FAILED;
    }
  if (!fastfile_rotation_enabled(rotation) || !S_ISREG(st->st_mode))
    return FIT_WRITE;
  if (_moved_by_another_writer(self, entry, st))
    {
      _close_fd(self, entry);
      return FIT_ROTATED;
    }

  guint64 size = st->st_size;
  guint64 room = _room(rotation, size);
  guint n = batch_buffer_records_in_prefix(out, *end);
  while (*member_len > room && n > 1)
    {
      /* aim a little under the room by the ratio of this try */
      gsize target = (gsize) ((gdouble) *end * (gdouble) room / (gdouble) *member_len * 0.9);
      guint k = CLAMP(batch_buffer_records_in_prefix(out, target), 1, n - 1);

      n = k;
      *end = out->record_ends[n - 1];
      if (!_compress(self, entry, data, *end, member, member_len))
        {
          _count_failure(entry, EIO, time_reopen);
          return FIT_FAILED;
        }
    }
  if (*member_len <= room)
    return FIT_WRITE;
  return _oversized(self, entry, size, just_rotated, time_reopen);
}

/* compression(): a member cut short by a failed write is cut off again while
 * the file's end is still ours; otherwise the file is let go of, and the next
 * open cuts it if it is still at the end */
static void
_cut_partial_member(FastFileSet *self, FastFileEntry *entry, const struct stat *before, gsize written)
{
  struct stat st;

  entry->whole_end.valid = FALSE;
  if (self->options.single_writer && fstat(entry->fd, &st) == 0 && st.st_dev == before->st_dev
      && st.st_ino == before->st_ino && st.st_size == before->st_size + (off_t) written
      && ftruncate(entry->fd, before->st_size) == 0)
    return;
  _close_fd(self, entry);
}

/* compression(): the member of out's first `end` bytes, with one write();
 * its records are written only when all of it is */
static gboolean
_write_member(FastFileSet *self, FastFileEntry *entry, gsize end, const guint8 *member, gsize member_len,
              const struct stat *before, gint time_reopen)
{
  const FastFileCompression *compression = self->options.compression;
  BatchWriteResult result;

  gboolean complete = batch_writer_write(entry->fd, member, member_len, &result);
  self->write_syscalls += result.syscalls;
  if (complete)
    {
      _account_written(entry, end);
      entry->only_bom = FALSE;
      entry->attempts = 0;
      _end_mark_set(&entry->whole_end, before, before->st_size + member_len);
      stats_counter_add(compression->bytes_in, end);
      stats_counter_add(compression->bytes_out, member_len);
      _sync_if_asked(self, entry);
      return TRUE;
    }

  if (result.written)
    _cut_partial_member(self, entry, before, result.written);
  _count_failure(entry, result.error, self->options.ignore_errors ? 0 : time_reopen);
  msg_error("fast-file(): error writing file, retrying after time-reopen",
            evt_tag_str("driver", self->options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_int("errno", result.error),
            evt_tag_str("error", g_strerror(result.error)),
            evt_tag_str("compression", batch_compression_name(compression->type)),
            evt_tag_long("written_bytes", (glong) result.written),
            evt_tag_long("member_bytes", (glong) member_len),
            evt_tag_long("pending_bytes", (glong) batch_buffer_len(&entry->out)),
            evt_tag_int("attempt", entry->attempts),
            evt_tag_int("retries", self->options.retries),
            evt_tag_int("time_reopen", time_reopen),
            log_pipe_location_tag(self->options.owner));
  return FALSE;
}

/* writes what is left in entry->out; TRUE when all of it reached the file */
static gboolean
_write_entry(FastFileSet *self, FastFileEntry *entry, gint time_reopen)
{
  BatchBuffer *out = &entry->out;
  gboolean just_rotated = FALSE;

  if (batch_buffer_len(out) == 0)
    return TRUE;

  while (batch_buffer_len(out) > 0)
    {
      /* closed while a delivering thread wrote to it (a reopen): not this file any more */
      if (entry->close_pending)
        {
          entry->close_pending = FALSE;
          _close_fd(self, entry);
        }
      if (entry->fd < 0 && !_open(self, entry, time_reopen))
        return FALSE;

      entry->last_used = _now_sec();
      g_queue_unlink(&self->lru, &entry->lru_link);
      g_queue_push_head_link(&self->lru, &entry->lru_link);

      gsize end = batch_buffer_len(out);
      FitResult fit = FIT_WRITE;
      if (_compressed(self))
        {
          const guint8 *member;
          gsize member_len;
          struct stat before;

          fit = _compress_fit(self, entry, &end, just_rotated, time_reopen, &member, &member_len, &before);
          if (fit == FIT_WRITE && !_write_member(self, entry, end, member, member_len, &before, time_reopen))
            return FALSE;
        }
      else
        {
          if (fastfile_rotation_enabled(self->options.rotation))
            fit = _fit_rotation(self, entry, &end, just_rotated, time_reopen);
          if (fit == FIT_WRITE && !_write_prefix(self, entry, end, time_reopen))
            return FALSE;
        }
      if (fit == FIT_FAILED)
        return FALSE;
      just_rotated = fit == FIT_ROTATED;
    }
  batch_buffer_reset(out);
  return TRUE;
}

static void
_evict_one(FastFileSet *self)
{
  GList *link = g_queue_peek_tail_link(&self->lru);
  /* one that a delivering thread writes to is closed after its write (_close_fd()): take the next */
  while (link && ((FastFileEntry *) link->data)->own_writing)
    link = link->prev;
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

      /* what a failed write left comes first: its fill waits for the next round; so it
       * does while a delivering thread writes a batch of its own there */
      if (batch_buffer_len(&entry->out) == 0 && !entry->own_writing)
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

      /* a name that can never be opened is the lane's to drop, not to retry */
      gboolean written = !entry->permanent_error && (force || entry->retry_at <= now)
                         && _write_entry(self, entry, time_reopen);
      /* the successor only now: opening this file may have evicted (written
       * and unlinked) the one that followed it */
      GList *next = link->next;
      if (written)
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

gboolean
fastfile_entry_own_begin(FastFileSet *self, FastFileEntry *entry, guint pinned)
{
  if (entry->close_pending || entry->fd < 0 || entry->unacked > pinned || entry->in_filled
      || entry->in_outgoing || batch_buffer_len(&entry->out) || entry->head_written || entry->attempts
      || entry->permanent_error)
    return FALSE;
  if (!entry->own_writing)
    entry->own_blocked = FALSE;
  entry->own_writing++;
  /* the most recently used, as a write of the lane's makes it: reap and eviction go by that */
  entry->last_used = _now_sec();
  g_queue_unlink(&self->lru, &entry->lru_link);
  g_queue_push_head_link(&self->lru, &entry->lru_link);
  return TRUE;
}

void
fastfile_entry_own_end(FastFileSet *self, FastFileEntry *entry, gboolean may_close)
{
  entry->own_writing--;
  if (entry->close_pending && may_close && !entry->own_writing)
    {
      entry->close_pending = FALSE;
      _close_fd(self, entry);
    }
}

gboolean
fastfile_entry_own_torn(FastFileSet *self, FastFileEntry *entry, const gchar *record, gsize record_len,
                        gsize written)
{
  struct stat st;

  /* nobody of ours wrote there since (own_write_lock, and the lane's writer skips it while
   * own_writing): the end is ours unless another process appended */
  if (entry->fd >= 0)
    {
      off_t end = lseek(entry->fd, 0, SEEK_CUR);
      if (end >= (off_t) written && fstat(entry->fd, &st) == 0 && st.st_size == end
          && ftruncate(entry->fd, end - written) == 0)
        return TRUE;
    }
  /* the line stays whole on disk only if its tail follows: the lane writes it first, not as a record */
  batch_buffer_append(&entry->out, record, record_len);
  batch_buffer_end_record(&entry->out);
  entry->head_written = written;
  entry->orphan_head = TRUE;
  entry->torn_end.valid = FALSE;
  if (entry->fd >= 0)
    _remember_torn_end(entry);
  _add_outgoing(self, entry);
  return FALSE;
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

  link = g_queue_peek_head_link(&self->lru);
  while (link)
    {
      FastFileEntry *entry = link->data;
      GList *next = link->next;

      _close_fd(self, entry);
      _add_maybe_idle(self, entry);
      link = next;
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
      if (!entry->in_outgoing && !entry->in_filled && entry->unacked == 0 && !entry->own_writing)
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
  if (_compressed(self))
    {
      gchar *error = NULL;

      self->compressor = batch_compressor_new(options->compression->type, options->compression->level, &error);
      if (!self->compressor)
        {
          /* every write then fails, logged, and is retried: never written uncompressed */
          msg_error("fast-file(): error starting the compressor",
                    evt_tag_str("driver", options->driver_id),
                    evt_tag_str("error", error),
                    log_pipe_location_tag(options->owner));
          g_free(error);
        }
    }
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
  batch_compressor_free(self->compressor);
  memset(self, 0, sizeof(*self));
}
