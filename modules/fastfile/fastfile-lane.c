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
#include "fastfile-lane.h"
#include "template/eval.h"
#include "messages.h"
#include "scratch-buffers.h"
#include "seqnum.h"
#include "compat-template.h"

#include <string.h>

#define ENTRY_OF(slot, member) ((FastFileEntry *) ((gchar *) (slot) - G_STRUCT_OFFSET(FastFileEntry, member)))

gboolean
fastfile_lane_init(FastFileLane *self, const FastFileLaneOptions *options, GError **error)
{
  memset(self, 0, sizeof(*self));
  if (!fastfile_formatter_init(&self->formatter, options->template, options->template_options, options->record,
                               options->encoding, options->line_ending, error))
    return FALSE;
  self->formatter_ready = TRUE;

  FastFileSetOptions files = options->files;
  if (options->bom)
    files.bom = fastfile_formatter_get_bom(&self->formatter, &files.bom_len);
  files.lines = fastfile_formatter_get_lines(&self->formatter);
  fastfile_set_init(&self->files, &files);

  fastfile_suppress_init(&self->suppress, options->suppress);
  fastfile_marks_init(&self->marks, options->marks);
  self->file_hooks = fastfile_lane_needs_tick(self);
  self->seq_num = options->seq_num;
  self->delivering_thread = FASTFILE_NO_THREAD;

  self->filename = g_string_sized_new(256);
  self->discarded = g_ptr_array_new();
  self->filename_template = options->filename_template;
  self->template_options = options->template_options;
  if (options->filename_is_literal)
    {
      self->single_file = fastfile_set_lookup(&self->files, fd_template_str(options->filename_template));
      /* never reaped or freed: one reference for the lane's lifetime */
      self->single_file->unacked++;
    }
  return TRUE;
}

void
fastfile_lane_destroy(FastFileLane *self)
{
  /* the owner collected every held record first: none may leak its message */
  for (guint i = self->head; i < self->tail; i++)
    g_assert(!self->records[i].held);
  if (self->formatter_ready)
    fastfile_formatter_destroy(&self->formatter);
  /* the files let go of their suppress() and MARK slots first */
  fastfile_set_destroy(&self->files);
  fastfile_suppress_destroy(&self->suppress);
  fastfile_marks_destroy(&self->marks);
  if (self->filename)
    g_string_free(self->filename, TRUE);
  g_free(self->records);
  if (self->discarded)
    g_ptr_array_free(self->discarded, TRUE);
  memset(self, 0, sizeof(*self));
}

/* names come from message fields a sender controls: at most one error a second */
static void
_report_refused_name(FastFileLane *self, const gchar *filename, const gchar *reason)
{
  gint64 now = g_get_monotonic_time() / G_USEC_PER_SEC;

  if (now == self->refused_names.last_report)
    {
      self->refused_names.suppressed++;
      return;
    }
  msg_error("fast-file(): refused file name, message dropped",
            evt_tag_str("driver", self->files.options.driver_id),
            evt_tag_str("path", filename),
            evt_tag_str("reason", reason),
            evt_tag_int("suppressed_since_last_report", self->refused_names.suppressed),
            log_pipe_location_tag(self->files.options.owner));
  self->refused_names.last_report = now;
  self->refused_names.suppressed = 0;
}

static void
_format_filename(const FastFileLane *self, LogMessage *msg, gint32 seq_num, GString *filename)
{
  /* as file(): the name in local-time-zone(), the records in time-zone() */
  LogTemplateEvalOptions options = { (LogTemplateOptions *) self->template_options, LTZ_LOCAL, seq_num, NULL,
                                     LM_VT_STRING
                                   };
  log_template_format(self->filename_template, msg, &options, filename);
}

/* a name made of message fields (len bytes, NUL-terminated) that is never opened: why, or NULL */
static const gchar *
_refused_reason(const gchar *filename, gsize len)
{
  if (len == 0)
    return "empty file name";
  if (strlen(filename) != len)
    return "NUL byte in the file name";
  if (append_opener_is_spurious_path(filename))
    return "spurious path";
  return NULL;
}

/* _refused_reason() of the prepared file name, looked at again only when it is not the name checked last (its
 * strlen() and the spurious path's scan were ~80 instructions per message with 4 connections into a file per host,
 * callgrind, 100 B) */
static const gchar *
_checked_reason(FastFilePrepared *prepared)
{
  GString *name = prepared->filename;

  if (name->len != prepared->checked->len || memcmp(name->str, prepared->checked->str, name->len) != 0)
    {
      prepared->checked_refused = _refused_reason(name->str, name->len);
      g_string_truncate(prepared->checked, 0);
      g_string_append_len(prepared->checked, name->str, name->len);
    }
  return prepared->checked_refused;
}

/* lock held: the entry of a formatted name (len bytes, NUL-terminated); NULL (reported) when it is refused */
static FastFileEntry *
_entry_of(FastFileLane *self, const gchar *filename, gsize len, const gchar *refused)
{
  /* a name looked up and checked before */
  FastFileEntry *entry = fastfile_set_last_found(&self->files, filename, len);
  if (entry)
    return entry;

  if (!refused)
    refused = _refused_reason(filename, len);
  if (refused)
    {
      _report_refused_name(self, filename, refused);
      return NULL;
    }
  return fastfile_set_lookup(&self->files, filename);
}

static FastFileEntry *
_resolve_entry(FastFileLane *self, LogMessage *msg, gint32 seq_num)
{
  if (self->single_file)
    return self->single_file;

  _format_filename(self, msg, seq_num, self->filename);
  return _entry_of(self, self->filename->str, self->filename->len, NULL);
}

static void
_push_record(FastFileLane *self, FastFileEntry *entry, LogMessage *held, FastFileRecordState state,
             gboolean ack_needed, gsize size)
{
  if (self->tail == self->records_capacity && self->head > 0)
    {
      memmove(self->records, self->records + self->head, (self->tail - self->head) * sizeof(self->records[0]));
      self->tail -= self->head;
      self->head = 0;
    }
  if (self->tail == self->records_capacity)
    {
      self->records_capacity = MAX(self->records_capacity * 2, 64);
      self->records = g_renew(FastFileRecord, self->records, self->records_capacity);
    }
  self->records[self->tail++] = (FastFileRecord)
  {
    .entry = entry, .held = held, .state = state, .ack_needed = ack_needed, .thread = self->delivering_thread,
    .size = (guint32) MIN(size, G_MAXUINT32)
  };
  if (state == FASTFILE_RECORD_UNWRITTEN)
    self->unwritten++;
  else
    self->settled++;
}

/* lock held: the bytes appended to entry->fill since `before` are a record */
static FastFileRecordState
_end_record(FastFileLane *self, FastFileEntry *entry, gsize before, FastFileStaged *staged)
{
  GString *data = batch_buffer_data(&entry->fill);

  batch_buffer_end_record(&entry->fill);
  fastfile_set_mark_filled(&self->files, entry);
  entry->unacked++;
  staged->len = data->len - before;
  staged->buffer_full = batch_buffer_is_full(&entry->fill);
  self->staged_bytes += staged->len;
  return FASTFILE_RECORD_UNWRITTEN;
}

/* a line the destination writes itself (a suppression summary, a MARK):
 * a held record without an ack, numbered as file() numbers it */
static void
_stage_own(FastFileLane *self, FastFileEntry *entry, LogMessage *msg)
{
  gint32 seq_num = fastfile_record_steps_seq_num(self->formatter.record, msg) && self->seq_num
                   ? step_sequence_number_atomic(self->seq_num) : 0;
  gsize before = batch_buffer_len(&entry->fill);
  gsize size = log_msg_get_size(msg);
  FastFileStaged staged;

  self->own.records++;
  self->own.memory += size;
  if (!fastfile_formatter_append(&self->formatter, msg, seq_num, batch_buffer_data(&entry->fill)))
    {
      _push_record(self, NULL, msg, FASTFILE_RECORD_SKIPPED, FALSE, size);
      return;
    }
  _push_record(self, entry, msg, _end_record(self, entry, before, &staged), FALSE, size);
}

static gint64
_now_sec(void)
{
  return g_get_monotonic_time() / G_USEC_PER_SEC;
}

/* file()'s order for a message on its way into a file: suppress() first (a
 * summary of repeats goes before it), then the internal() MARKs that
 * mark-mode() leaves out, then the file's MARK timer.  FALSE: not written. */
static gboolean
_file_hooks(FastFileLane *self, FastFileEntry *entry, LogMessage *msg)
{
  gint64 now = self->file_hooks ? _now_sec() : 0;
  LogMessage *summary;

  if (fastfile_suppress_check(&self->suppress, &entry->suppress, msg, now, &summary))
    return FALSE;
  if (summary)
    _stage_own(self, entry, summary);
  if (fastfile_marks_leaves_out(&self->marks, msg))
    return FALSE;
  fastfile_marks_note_message(&self->marks, &entry->mark, msg, now);
  return TRUE;
}

static void
_stage_due_summary(FastFileSuppressSlot *slot, LogMessage *summary, gpointer user_data)
{
  _stage_own((FastFileLane *) user_data, ENTRY_OF(slot, suppress), summary);
}

static void
_stage_due_mark(FastFileMarkSlot *slot, LogMessage *mark, gpointer user_data)
{
  FastFileLane *self = user_data;
  FastFileEntry *entry = ENTRY_OF(slot, mark);
  LogMessage *summary;

  /* file() passes its MARK through suppress(): it ends a run of repeats and becomes the last message */
  fastfile_suppress_check(&self->suppress, &entry->suppress, mark, _now_sec(), &summary);
  if (summary)
    _stage_own(self, entry, summary);
  _stage_own(self, entry, mark);
}

guint
fastfile_lane_tick(FastFileLane *self, gint64 now)
{
  guint before = self->own.records;
  ScratchBuffersMarker mark;

  /* templates take scratch buffers */
  scratch_buffers_mark(&mark);
  fastfile_suppress_take_due(&self->suppress, now, _stage_due_summary, self);
  fastfile_marks_take_due(&self->marks, now, _stage_due_mark, self);
  scratch_buffers_reclaim_marked(mark);
  return self->own.records - before;
}

FastFileRecordState
fastfile_lane_stage(FastFileLane *self, LogMessage *msg, gint32 seq_num, LogMessage *held, gboolean ack_needed,
                    gsize size, FastFileStaged *staged)
{
  FastFileEntry *entry = _resolve_entry(self, msg, seq_num);
  FastFileRecordState state = FASTFILE_RECORD_DROPPED;

  staged->len = 0;
  staged->buffer_full = FALSE;
  if (entry && G_UNLIKELY(self->file_hooks || (msg->flags & LF_MARK)) && !_file_hooks(self, entry, msg))
    {
      _push_record(self, NULL, held, FASTFILE_RECORD_FILTERED, ack_needed, size);
      return FASTFILE_RECORD_FILTERED;
    }
  if (entry)
    {
      gsize before = batch_buffer_len(&entry->fill);

      if (fastfile_formatter_append(&self->formatter, msg, seq_num, batch_buffer_data(&entry->fill)))
        {
          state = _end_record(self, entry, before, staged);
        }
      else
        {
          entry = NULL;
          state = FASTFILE_RECORD_SKIPPED;
        }
    }
  _push_record(self, entry, held, state, ack_needed, size);
  return state;
}

FastFilePrepared *
fastfile_prepared_new(const FastFileLaneOptions *options, GError **error)
{
  FastFilePrepared *self = g_new0(FastFilePrepared, 1);

  if (!fastfile_formatter_init(&self->formatter, options->template, options->template_options, options->record,
                               options->encoding, options->line_ending, error))
    {
      g_free(self);
      return NULL;
    }
  self->filename = g_string_sized_new(256);
  self->record = g_string_sized_new(1024);
  self->checked = g_string_sized_new(256);
  /* the verdict of the empty name it holds */
  self->checked_refused = _refused_reason(self->checked->str, self->checked->len);
  return self;
}

void
fastfile_prepared_free(FastFilePrepared *self)
{
  if (!self)
    return;
  fastfile_formatter_destroy(&self->formatter);
  g_string_free(self->filename, TRUE);
  g_string_free(self->record, TRUE);
  g_string_free(self->checked, TRUE);
  g_free(self);
}

void
fastfile_lane_prepare(const FastFileLane *self, FastFilePrepared *prepared, LogMessage *msg, gint32 seq_num)
{
  g_string_truncate(prepared->record, 0);
  prepared->refused = fastfile_lane_prepare_append(self, prepared, msg, seq_num, prepared->record, &prepared->skipped);
}

const gchar *
fastfile_lane_prepare_append(const FastFileLane *self, FastFilePrepared *prepared, LogMessage *msg, gint32 seq_num,
                             GString *records, gboolean *skipped)
{
  *skipped = FALSE;
  if (!self->single_file)
    {
      _format_filename(self, msg, seq_num, prepared->filename);
      const gchar *refused = _checked_reason(prepared);
      if (refused)
        return refused;
    }
  gsize before = records->len;
  *skipped = !fastfile_formatter_append(&prepared->formatter, msg, seq_num, records);
  if (*skipped)
    g_string_truncate(records, before);
  return NULL;
}

FastFileRecordState
fastfile_lane_stage_prepared(FastFileLane *self, FastFilePrepared *prepared, LogMessage *held,
                             gboolean ack_needed, gsize size, FastFileStaged *staged)
{
  return fastfile_lane_stage_bytes(self, prepared->filename->str, prepared->filename->len, prepared->refused,
                                   prepared->skipped, prepared->record->str, prepared->record->len,
                                   held, ack_needed, size, staged);
}

FastFileRecordState
fastfile_lane_stage_bytes(FastFileLane *self, const gchar *filename, gsize filename_len, const gchar *refused,
                          gboolean skipped, const gchar *record, gsize record_len, LogMessage *held,
                          gboolean ack_needed, gsize size, FastFileStaged *staged)
{
  FastFileEntry *entry = self->single_file;
  FastFileRecordState state = FASTFILE_RECORD_DROPPED;

  staged->len = 0;
  staged->buffer_full = FALSE;
  if (!entry)
    entry = _entry_of(self, filename, filename_len, refused);
  if (entry && G_UNLIKELY(self->file_hooks || (held->flags & LF_MARK)) && !_file_hooks(self, entry, held))
    {
      _push_record(self, NULL, held, FASTFILE_RECORD_FILTERED, ack_needed, size);
      return FASTFILE_RECORD_FILTERED;
    }
  if (entry && skipped)
    {
      entry = NULL;
      state = FASTFILE_RECORD_SKIPPED;
    }
  else if (entry)
    {
      gsize before = batch_buffer_len(&entry->fill);

      batch_buffer_append(&entry->fill, record, record_len);
      state = _end_record(self, entry, before, staged);
    }
  _push_record(self, entry, held, state, ack_needed, size);
  return state;
}

static void
_settle(FastFileLane *self, FastFileRecord *record, FastFileRecordState state)
{
  record->state = state;
  self->unwritten--;
  self->settled++;
}

/* the entries that give up their unwritten records this round */
static gboolean
_gives_up(FastFileEntry *entry, gint retries)
{
  if (entry->permanent_error)
    return TRUE;
  /* an orphan tail alone is not a record: it is retried until it is written */
  if (batch_buffer_records(&entry->out) == (entry->orphan_head ? 1u : 0u) && !entry->in_filled)
    return FALSE;
  return retries > 0 && entry->attempts >= retries;
}

static void
_log_exhausted(FastFileLane *self, FastFileEntry *entry, guint dropped)
{
  msg_error("fast-file(): retries exhausted, messages dropped",
            evt_tag_str("driver", self->files.options.driver_id),
            evt_tag_str("path", entry->path),
            evt_tag_int("dropped", dropped),
            evt_tag_int("attempts", entry->attempts),
            evt_tag_int("errno", entry->last_errno),
            evt_tag_str("error", entry->last_errno ? g_strerror(entry->last_errno) : ""),
            log_pipe_location_tag(self->files.options.owner));
}

static guint
_mark(FastFileLane *self, gboolean drop_all)
{
  guint dropped = 0;

  for (guint i = self->head; i < self->tail; i++)
    {
      FastFileRecord *record = &self->records[i];

      if (record->state != FASTFILE_RECORD_UNWRITTEN)
        continue;

      FastFileEntry *entry = record->entry;
      /* an entry's records reach the disk in the order they arrived */
      if (entry->done_records > 0)
        {
          entry->done_records--;
          _settle(self, record, FASTFILE_RECORD_WRITTEN);
        }
      else if (drop_all || entry->discarding)
        {
          _settle(self, record, FASTFILE_RECORD_DROPPED);
          dropped++;
        }
    }
  return dropped;
}

static guint
_discard_entries(FastFileLane *self, gint retries, gboolean all)
{
  GPtrArray *discarded = self->discarded;

  g_ptr_array_set_size(discarded, 0);
  for (GList *link = self->files.outgoing.head; link; link = link->next)
    {
      FastFileEntry *entry = link->data;

      if (all || _gives_up(entry, retries))
        g_ptr_array_add(discarded, entry);
    }
  /* a name refused at open never got its fill taken: it gives up as well */
  for (GList *link = self->files.filled.head; link; link = link->next)
    {
      FastFileEntry *entry = link->data;

      if (!entry->in_outgoing && (all || entry->permanent_error))
        g_ptr_array_add(discarded, entry);
    }

  for (guint i = 0; i < discarded->len; i++)
    {
      FastFileEntry *entry = g_ptr_array_index(discarded, i);

      entry->discard_count = fastfile_entry_discard_unwritten(&self->files, entry);
      entry->discarding = TRUE;
    }
  return discarded->len;
}

static guint
_attribute(FastFileLane *self, gint retries, gboolean all)
{
  guint discarded = _discard_entries(self, retries, all);
  guint dropped = _mark(self, all);

  for (guint i = 0; i < discarded; i++)
    {
      FastFileEntry *entry = g_ptr_array_index(self->discarded, i);

      if (!entry->permanent_error && entry->discard_count)
        _log_exhausted(self, entry, entry->discard_count);
      entry->discarding = FALSE;
      /* the next record for this name tries to open it again */
      entry->permanent_error = FALSE;
      entry->attempts = 0;
    }
  g_ptr_array_set_size(self->discarded, 0);
  fastfile_set_forget_idle(&self->files);
  return dropped;
}

guint
fastfile_lane_attribute(FastFileLane *self, gint retries)
{
  return _attribute(self, retries, FALSE);
}

guint
fastfile_lane_drop_unwritten(FastFileLane *self)
{
  return _attribute(self, 0, TRUE);
}

void
fastfile_lane_count_queued(FastFileLane *self, guint *queued, guint *unwritten)
{
  *queued = *unwritten = 0;
  for (guint i = self->head; i < self->tail; i++)
    {
      if (self->records[i].held)
        continue;
      (*queued)++;
      if (self->records[i].state == FASTFILE_RECORD_UNWRITTEN)
        (*unwritten)++;
    }
}

static void
_take_settled(FastFileLane *self, FastFileRecord *record, FastFileRecord *buf, guint *collected)
{
  buf[(*collected)++] = *record;
  if (record->entry)
    fastfile_set_release_record(&self->files, record->entry);
}

guint
fastfile_lane_collect_held(FastFileLane *self, FastFileRecord *buf, guint max, gboolean head_only)
{
  guint collected = 0;

  if (self->settled == 0)
    return 0;

  /* the usual case: the oldest records are the ones written */
  while (collected < max && self->head < self->tail && self->records[self->head].held
         && self->records[self->head].state != FASTFILE_RECORD_UNWRITTEN)
    _take_settled(self, &self->records[self->head++], buf, &collected);

  if (collected < max && !head_only && self->settled > collected)
    {
      /* written records behind one still being written (its file failed) */
      guint kept = self->head;

      for (guint i = self->head; i < self->tail; i++)
        {
          FastFileRecord *record = &self->records[i];

          if (record->held && record->state != FASTFILE_RECORD_UNWRITTEN && collected < max)
            _take_settled(self, record, buf, &collected);
          else
            self->records[kept++] = *record;
        }
      self->tail = kept;
    }
  if (self->head == self->tail)
    self->head = self->tail = 0;
  self->settled -= collected;
  return collected;
}

guint
fastfile_lane_settle_queued_run(FastFileLane *self, guint max, FastFileRecordState *outcome)
{
  guint run = 0, kept = self->head, i;

  for (i = self->head; i < self->tail; i++)
    {
      FastFileRecord *record = &self->records[i];

      if (!record->held)
        {
          if (run == max || record->state == FASTFILE_RECORD_UNWRITTEN)
            break;
          /* file() skips an empty line and counts it written */
          FastFileRecordState record_outcome = record->state == FASTFILE_RECORD_SKIPPED
                                               ? FASTFILE_RECORD_WRITTEN : record->state;
          if (run == 0)
            *outcome = record_outcome;
          else if (record_outcome != *outcome)
            break;
          if (record->entry)
            fastfile_set_release_record(&self->files, record->entry);
          run++;
          continue;
        }
      self->records[kept++] = *record;
    }
  if (run == 0)
    return 0;
  memmove(self->records + kept, self->records + i, (self->tail - i) * sizeof(self->records[0]));
  self->tail -= run;
  self->settled -= run;
  return run;
}
