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
#ifndef FASTFILE_LANE_H_INCLUDED
#define FASTFILE_LANE_H_INCLUDED

#include "fastfile-files.h"
#include "fastfile-format.h"
#include "logmsg/logmsg.h"

/*
 * One lane of a fast-file() destination: the records not yet settled, in
 * the order their messages arrived, and the files their bytes go to.
 *
 * Any thread stages a record (formats the message into its file's fill
 * buffer) under the owner's lock (every function here expects it held,
 * except where it says writer without lock); the lane's writer (the worker thread) takes
 * the filled buffers, writes them outside the lock, then marks which records
 * reached the disk.  A settled record is acknowledged (written), counted as
 * dropped, or was skipped (an empty rendering, which file() does not write).
 *
 * Two kinds of records, one kind per lane:
 *  - held records (the direct path): the lane holds a reference to the
 *    message and an ack of it; each is settled on its own, whichever thread
 *    collects it, as soon as its own file is done with it;
 *  - queued records (the message waits in the LogQueue's backlog): settled
 *    only in queue order, by the worker, through the backlog.
 */
typedef enum
{
  FASTFILE_RECORD_UNWRITTEN,  /* bytes in its file's fill or out */
  FASTFILE_RECORD_WRITTEN,    /* on disk */
  FASTFILE_RECORD_SKIPPED,    /* rendered empty: nothing to write (as file()) */
  FASTFILE_RECORD_DROPPED,    /* refused name, name that cannot be opened, or retries exhausted */
  FASTFILE_RECORD_FILTERED,   /* left out as file() leaves it out: a repeat (suppress()), an internal()
                               * MARK (mark-mode()); acked, counted neither written nor dropped */
} FastFileRecordState;

typedef struct _FastFileRecord
{
  FastFileEntry *entry;       /* NULL when there is nothing to write */
  LogMessage *held;           /* held records: the message; NULL for queued records */
  guint8 state;
  guint8 ack_needed;
  guint8 thread;              /* held records: the main loop thread that delivered it, or FASTFILE_NO_THREAD */
  guint32 size;               /* held records: the message's size, for the queue's memory_usage */
} FastFileRecord;

#define FASTFILE_NO_THREAD G_MAXUINT8

typedef struct _FastFileLaneOptions
{
  FastFileSetOptions files;
  LogTemplate *filename_template;
  gboolean filename_is_literal;
  const LogTemplateOptions *template_options;
  LogTemplate *template;              /* NULL: file()'s built-in format */
  const FastFileRecordOptions *record; /* file()'s flags(), pad-size(), truncate-size() */
  const gchar *encoding;
  LineEnding line_ending;
  gboolean bom;
  const FastFileSuppressOptions *suppress;
  const FastFileMarkOptions *marks;
  gint32 *seq_num;                    /* the destination's numbering, for the lines it writes itself */
} FastFileLaneOptions;

typedef struct _FastFileStaged
{
  gsize len;                          /* bytes formatted */
  gboolean buffer_full;               /* buffer-size() reached: write it now */
} FastFileStaged;

typedef struct _FastFileLane
{
  FastFileSet files;
  FastFileFormatter formatter;
  gboolean formatter_ready;
  FastFileEntry *single_file;         /* literal file name: no lookup per message */
  GString *filename;                  /* scratch for templated file names */
  LogTemplate *filename_template;
  const LogTemplateOptions *template_options;

  FastFileRecord *records;            /* records[head..tail): not yet collected, in arrival order */
  guint head;
  guint tail;
  guint records_capacity;
  guint settled;                      /* records settled and not yet collected */
  guint unwritten;                    /* records staged and not yet on disk */
  gsize staged_bytes;                 /* bytes formatted since the writer last took them */
  guint8 delivering_thread;           /* set by the owner around staging: the records' `thread` */
  GPtrArray *discarded;               /* writer's scratch */

  struct
  {
    gint64 last_report;
    guint suppressed;
  } refused_names;

  /* file()'s suppress() and MARKs: lines the destination writes itself */
  FastFileSuppress suppress;
  FastFileMarks marks;
  gboolean file_hooks;                /* suppress() or timed MARKs: every record passes them */
  gint32 *seq_num;
  struct
  {
    guint records;
    gsize memory;
  } own;                              /* those lines staged, not yet counted as messages by the owner */
} FastFileLane;

/* A record formatted without the lock, by a delivering thread that found
 * the lock taken: its file name and bytes in the thread's own buffers, with
 * its own formatter (timestamp cache, encoder).  Staging it under the lock
 * then only copies it: delivering threads format side by side. */
typedef struct _FastFilePrepared
{
  FastFileFormatter formatter;
  GString *filename;
  GString *record;
  const gchar *refused;               /* why the file name is refused; NULL: it is fine */
  GString *checked;                   /* the last file name checked, and why it was refused (NULL: it is fine): */
  const gchar *checked_refused;       /* a connection's messages mostly name one file, checked once */
  gboolean skipped;                   /* rendered empty: nothing to write (as file()) */
} FastFilePrepared;

gboolean fastfile_lane_init(FastFileLane *self, const FastFileLaneOptions *options, GError **error);
void fastfile_lane_destroy(FastFileLane *self);

/* lock held: format msg into its file's fill buffer and record it (held:
 * the lane takes over a reference and an ack of it, NULL for a queued
 * record).  Returns the record's state: UNWRITTEN, or SKIPPED / DROPPED when
 * there is nothing to write. */
FastFileRecordState fastfile_lane_stage(FastFileLane *self, LogMessage *msg, gint32 seq_num, LogMessage *held,
                                        gboolean ack_needed, gsize size, FastFileStaged *staged);

FastFilePrepared *fastfile_prepared_new(const FastFileLaneOptions *options, GError **error);
void fastfile_prepared_free(FastFilePrepared *self);
/* without the lock: format msg's file name and record into prepared */
void fastfile_lane_prepare(const FastFileLane *self, FastFilePrepared *prepared, LogMessage *msg, gint32 seq_num);
/* without the lock: the same, the record appended to records instead (its
 * file name in prepared); returns why the name is refused (no record then),
 * or NULL; *skipped: it rendered empty */
const gchar *fastfile_lane_prepare_append(const FastFileLane *self, FastFilePrepared *prepared, LogMessage *msg,
    gint32 seq_num, GString *records, gboolean *skipped);
/* lock held: stage a prepared record, as fastfile_lane_stage() stages a message */
FastFileRecordState fastfile_lane_stage_prepared(FastFileLane *self, FastFilePrepared *prepared, LogMessage *held,
    gboolean ack_needed, gsize size, FastFileStaged *staged);
/* lock held: the same for a record prepared earlier and kept by the caller
 * (its file name, NUL-terminated, is ignored with a literal one) */
FastFileRecordState fastfile_lane_stage_bytes(FastFileLane *self, const gchar *filename, gsize filename_len,
    const gchar *refused, gboolean skipped, const gchar *record,
    gsize record_len, LogMessage *held, gboolean ack_needed, gsize size,
    FastFileStaged *staged);

/* lock held: hand the filled buffers to the writer's side */
static inline guint
fastfile_lane_take(FastFileLane *self)
{
  self->staged_bytes = 0;
  return fastfile_set_take(&self->files);
}

/* lock held: the lines the destination wrote itself since the last call
 * (held records without an ack): the owner counts them as messages */
static inline guint
fastfile_lane_take_own(FastFileLane *self, gsize *memory)
{
  guint records = self->own.records;

  *memory = self->own.memory;
  self->own.records = 0;
  self->own.memory = 0;
  return records;
}

/* the writer's once-a-second look for due suppression summaries and MARKs */
static inline gboolean
fastfile_lane_needs_tick(const FastFileLane *self)
{
  return fastfile_suppress_enabled(&self->suppress) || fastfile_marks_timed(&self->marks);
}

/* writer, lock held: stage the summaries and MARKs due at now (monotonic
 * seconds); returns how many lines were staged */
guint fastfile_lane_tick(FastFileLane *self, gint64 now);

/* lock held: records that are queued (in the LogQueue's backlog) and their unwritten ones */
void fastfile_lane_count_queued(FastFileLane *self, guint *queued, guint *unwritten);

/* writer, lock held: after fastfile_set_write_all(), mark the records that
 * reached the disk, and drop the records of every file that can never be
 * opened or ran out of retries (retries: attempts in all, 0: never).
 * Returns the number of records dropped. */
guint fastfile_lane_attribute(FastFileLane *self, gint retries);
/* writer, lock held: give up on every unwritten record (retries exhausted
 * for all); returns the number dropped */
guint fastfile_lane_drop_unwritten(FastFileLane *self);

/* lock held: records not yet collected */
static inline guint
fastfile_lane_pending(const FastFileLane *self)
{
  return self->tail - self->head;
}

/* lock held: move up to max settled held records into buf (any order of
 * files, arrival order per file), releasing their entries; the caller acks
 * them after unlocking.  head_only: only those at the head of the queue (a
 * cheap step; the ones behind a record still being written wait) */
guint fastfile_lane_collect_held(FastFileLane *self, FastFileRecord *buf, guint max, gboolean head_only);

/* queued records, writer, lock held: remove the first run of settled queued
 * records at the head of the queue (held records between them stay) with the
 * same outcome, at most max records (those popped from the queue so far).
 * *outcome: WRITTEN (written, or skipped as file() skips an empty line),
 * FILTERED (acknowledged, not written) or DROPPED.
 * Returns the length of the run; 0 when the head is not settled. */
guint fastfile_lane_settle_queued_run(FastFileLane *self, guint max, FastFileRecordState *outcome);

#endif
