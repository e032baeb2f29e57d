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
#ifndef FASTFILE_FILES_H_INCLUDED
#define FASTFILE_FILES_H_INCLUDED

#include "batch-buffer.h"
#include "batch-writer.h"
#include "append-opener.h"
#include "batch-compressor.h"
#include "line-encoder.h"
#include "logpipe.h"
#include "stats/stats-counter.h"
#include "fastfile-suppress.h"
#include "fastfile-mark.h"

#include <sys/types.h>
#include <string.h>

/*
 * The files of one fast-file() lane: a hash from path to entry.  Each entry
 * has two batch buffers: records are formatted into `fill` (by whichever
 * thread delivers the message, under the lane's lock), and the writer takes
 * the whole of `fill` as `out` (a swap, under the lock) and writes `out`
 * with one write() outside the lock.  The writer's side (fd, out, the LRU of
 * open files, failure state) is only ever touched by the writer.
 *
 * At most max_open descriptors are open (the least recently used one is
 * written out and closed first), and entries idle for time_reap seconds are
 * closed and freed.  An entry stays alive while records in it are not yet
 * settled.
 */
/* a file as a write of ours left it: the same file (device and inode) still at that size is known to end
 * there, without reading it */
typedef struct _FastFileEndMark
{
  gboolean valid;
  dev_t dev;
  ino_t ino;
  off_t size;
} FastFileEndMark;

typedef struct _FastFileEntry
{
  gchar *path;
  gsize path_len;
  guint unacked;              /* records of this entry not yet settled (lane lock) */
  BatchBuffer fill;           /* records staged for the next write (lane lock) */
  GList fill_link;            /* in FastFileSet.filled while fill holds records (lane lock) */
  gboolean in_filled;

  /* the writer's side */
  gint fd;
  BatchBuffer out;            /* taken from fill; what is left of it after a failed write */
  GList out_link;             /* in FastFileSet.outgoing while out holds bytes */
  gboolean in_outgoing;
  gsize head_written;         /* bytes of out's first record already on disk (a torn write) */
  gboolean orphan_head;       /* that record was settled already (dropped): only its tail is kept */
  guint done_records;         /* records completed by writes, not yet attributed by the lane */
  FastFileEndMark torn_end;   /* the file as a torn write left it: truncate only if it still is */
  FastFileEndMark whole_end;  /* compression(): the file as our last complete member left it: no scan at reopen */
  gboolean only_bom;          /* the open file holds nothing of ours but the BOM written at its open */
  gint attempts;              /* failed writes of the records now in out */
  gint64 retry_at;            /* monotonic usec: do not try before */
  gint last_errno;
  gboolean permanent_error;   /* this name can never be opened: drop its records at once */
  gint64 last_used;           /* monotonic seconds */
  gboolean maybe_idle;        /* in FastFileSet.maybe_idle (lane lock) */
  gboolean discarding;        /* the lane is dropping its unwritten records (writer, lane lock) */
  /* delivering threads writing a batch of their own each to fd (fastfile_entry_own_begin()):
   * meanwhile the lane's writer does not write there, and nobody closes or frees this entry (lane lock) */
  guint own_writing;
  /* held by one of them from its write() to the end of its failure handling (no lane lock): the
   * file's end is then that write's, which the cut-off of a line cut short relies on */
  GMutex own_write_lock;
  /* a line one of them cut short could not be cut off: the others write nothing until the lane's
   * writer has written its rest (set under both locks, cleared when none is at work) */
  gboolean own_blocked;
  gboolean close_pending;     /* closed when those writes end (a reopen or max-open-files asked for it) */
  guint discard_count;
  GList lru_link;             /* in FastFileSet.lru while fd is open */

  /* file()'s suppress() and MARK state of this file (lane lock) */
  FastFileSuppressSlot suppress;
  FastFileMarkSlot mark;
} FastFileEntry;

/* logrotate(): the driver's, shared by its lanes */
typedef struct _FastFileRotation
{
  gboolean enable;
  guint64 size;               /* bytes a file may reach; more only when one record alone is larger */
  gint rotations;             /* app.log.1 ... app.log.N kept; 0: no rotation */
  StatsCounterItem *rotated;  /* stats-level(1): rotations done */
  /* workers(N > 1) append to the same files: one rotation of a name at a
   * time, or two renaming chains would move a file over another */
  GMutex lock;
} FastFileRotation;

static inline gboolean
fastfile_rotation_enabled(const FastFileRotation *self)
{
  return self && self->enable && self->size > 0 && self->rotations > 0;
}

/* compression(), compression-level(): the driver's, shared by its lanes */
typedef struct _FastFileCompression
{
  BatchCompression type;
  gint level;                         /* BATCH_COMPRESSION_LEVEL_DEFAULT: the codec's */
  StatsCounterItem *bytes_in;         /* stats-level(1): bytes written, before compression */
  StatsCounterItem *bytes_out;        /* ... and after */
} FastFileCompression;

typedef struct _FastFileSetOptions
{
  const AppendOpenerOptions *opener;
  guint max_open;
  guint expected_records;     /* records a buffer is sized for at reset (adaptive buffers) */
  gsize fixed_capacity;       /* buffer-size(), 0: adaptive */
  gboolean fsync;
  gboolean single_writer;     /* only this lane appends: a torn tail may be truncated away */
  gboolean literal_name;      /* the file name is the configured text, no macros */
  gint retries;               /* retries(): attempts in all before the records are dropped (for the log) */
  gboolean ignore_errors;     /* flags(ignore-errors): a failed write is not waited on before the next */
  const guint8 *bom;          /* written first into a new, empty file; NULL: none */
  gsize bom_len;
  const LineEncoder *lines;   /* every record ends in its line ending: a torn last one is cut at open; NULL: not lines */
  const FastFileRotation *rotation;   /* NULL or not enabled: files grow without bound */
  const FastFileCompression *compression;   /* NULL or none: records are written as they are */
  /* every log line names the destination: the driver's id and config location */
  const gchar *driver_id;
  LogPipe *owner;
} FastFileSetOptions;

typedef struct _FastFileSet
{
  FastFileSetOptions options;
  GHashTable *by_path;        /* lane lock */
  FastFileEntry *last_found;  /* the latest lookup's entry: consecutive messages often share a file (lane lock) */
  GQueue filled;              /* entries whose fill holds records, oldest first (lane lock) */
  GQueue outgoing;            /* entries whose out holds bytes (writer) */
  GQueue lru;                 /* open entries, most recently used first (writer) */
  GPtrArray *maybe_idle;      /* entries to free if they are idle (lane lock) */
  GPtrArray *evicted;         /* entries closed for max-open-files in this round (writer) */
  BatchCompressor *compressor;  /* compression(): one member/frame per write (writer) */
  guint64 write_syscalls;     /* writer */
  guint64 written_bytes;      /* writer: since the worker last took them for its stats */
  struct
  {
    gint64 last_report;
    guint suppressed;
  } name_errors;              /* writer: at most one error a second about names that cannot be opened */
} FastFileSet;

void fastfile_set_init(FastFileSet *self, const FastFileSetOptions *options);
void fastfile_set_destroy(FastFileSet *self);

/* lane lock held: the entry for path, created when missing (allocates only then) */
FastFileEntry *fastfile_set_lookup(FastFileSet *self, const gchar *path);
/* lane lock held: the latest entry found, if its path is this one (a cheap check first) */
static inline FastFileEntry *
fastfile_set_last_found(FastFileSet *self, const gchar *path, gsize len)
{
  FastFileEntry *entry = self->last_found;

  if (entry && entry->path_len == len && memcmp(entry->path, path, len) == 0)
    return entry;
  return NULL;
}
/* lane lock held: after appending a record to entry->fill */
void fastfile_set_mark_filled(FastFileSet *self, FastFileEntry *entry);
/* lane lock held: move every filled entry's records to its out, where out is empty */
guint fastfile_set_take(FastFileSet *self);
/* lane lock held: some fill buffer holds records */
gboolean fastfile_set_has_filled(const FastFileSet *self);

/* writer, no lock needed: writes every entry with bytes in out (those
 * waiting for their retry time only with `force`).  Entries that fail keep
 * their bytes; their failure count grows and their retry time is set
 * time_reopen seconds ahead.  Returns TRUE when nothing is left in any out. */
gboolean fastfile_set_write_all(FastFileSet *self, gboolean force, gint time_reopen);
/* writer: entries with bytes left in out */
guint fastfile_set_outgoing_count(const FastFileSet *self);
/* writer: the earliest retry time of an entry with bytes left in out (0: none) */
gint64 fastfile_set_next_retry(const FastFileSet *self);

/* writer, lane lock held: give up on the unwritten records of entry (out and
 * fill).  No line is ever left torn on purpose: a partly written record is
 * cut from the file again when the file's end is still where our write left
 * it (single writer), or else its tail stays as an orphan that is written
 * before anything else (not attributed as a record).  Returns the number of
 * records given up on, in queue order per entry: the caller marks them. */
guint fastfile_entry_discard_unwritten(FastFileSet *self, FastFileEntry *entry);
/* writer: cut a partly written record off the file when its end is still
 * ours; TRUE when no partial record is on disk any more */
gboolean fastfile_entry_truncate_torn(FastFileSet *self, FastFileEntry *entry);

/* lane lock held, and no writer of the lane's at work (it closes and evicts
 * descriptors without the lock): TRUE when a delivering thread may write a batch of its
 * own to entry's open fd now, beside the lane: the entry holds nothing of
 * the lane's (no record unsettled but the `pinned` references its lane
 * keeps for good, no bytes buffered, no failure), so that batch comes after
 * everything staged for this file before.  Other delivering threads may
 * write theirs to it too (own_writing counts them; their write()s take
 * own_write_lock in turn) until fastfile_entry_own_end(). */
gboolean fastfile_entry_own_begin(FastFileSet *self, FastFileEntry *entry, guint pinned);
/* lane lock held: that write is over; a close asked for meanwhile is done
 * by the last of them now if it may (no writer of the lane's is at work), else by the
 * lane's writer before it writes there next, or by the next close of all */
void fastfile_entry_own_end(FastFileSet *self, FastFileEntry *entry, gboolean may_close);
/* lane lock held, no writer of the lane's at work, before fastfile_entry_own_end(): a write of the caller's
 * own ended `written` bytes into a record of record_len bytes (0 <
 * written < record_len) and the file refused the rest.  The part on disk is
 * cut off again where the file's end is still where that write left it;
 * else the rest of the line is kept, as an orphan, for the lane to write
 * before anything else (as after a torn write of its own).  TRUE when
 * nothing of the record is left on disk. */
gboolean fastfile_entry_own_torn(FastFileSet *self, FastFileEntry *entry, const gchar *record, gsize record_len,
                                 gsize written);

/* lane lock held: one settled record of entry is released */
void fastfile_set_release_record(FastFileSet *self, FastFileEntry *entry);
/* writer, lane lock held: free the entries left idle (closed, nothing buffered or unsettled) */
void fastfile_set_forget_idle(FastFileSet *self);

/* writer, lane lock held */
void fastfile_set_close_all(FastFileSet *self);
/* writer, lane lock held: close and free entries idle for more than time_reap seconds */
void fastfile_set_reap(FastFileSet *self, gint time_reap);

#endif
