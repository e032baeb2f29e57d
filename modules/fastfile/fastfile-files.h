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

/*
 * The open files of one fast-file() worker: a hash from path to entry, each
 * entry with its own reusable batch buffer.  At most max_open descriptors are
 * open (the least recently used one is written out and closed first), and
 * entries idle for time_reap seconds are closed and freed.  An entry stays
 * alive while records in it are not yet acknowledged.
 */
typedef struct _FastFileEntry
{
  gchar *path;
  gint fd;
  BatchBuffer buffer;
  gboolean head_partial;      /* the first record in buffer is partly on disk */
  gsize head_written;         /* how much of it */
  guint done_records;         /* written by the last write, not yet settled */
  guint unacked;              /* records of this entry still in the worker's pending list */
  guint orphans;              /* head records already settled by the worker (kept partial tails) */
  gint64 last_used;           /* monotonic seconds */
  gint last_errno;
  gboolean permanent_error;   /* spurious path, or not a regular file/char device */
  GList lru_link;             /* in FastFileSet.lru while fd is open */
  GList dirty_link;           /* in FastFileSet.dirty while buffer holds bytes */
  gboolean in_dirty;
  guint write_round;          /* the last fastfile_set_write_all() round that tried it */
} FastFileEntry;

typedef struct _FastFileSetOptions
{
  const AppendOpenerOptions *opener;
  guint max_open;
  guint expected_records;     /* records a buffer is sized for at reset (adaptive buffers) */
  gsize fixed_capacity;       /* buffer-size(), 0: adaptive */
  gboolean fsync;
  gboolean single_writer;     /* only this worker appends: a torn tail may be truncated away */
  const guint8 *bom;          /* written first into a new, empty file; NULL: none */
  gsize bom_len;
} FastFileSetOptions;

typedef struct _FastFileSet
{
  FastFileSetOptions options;
  GHashTable *by_path;
  GQueue lru;                 /* open entries, most recently used first */
  GQueue dirty;               /* entries with buffered bytes, oldest first */
  guint64 write_syscalls;
  guint64 written_bytes;      /* since the worker last took them for its stats */
  guint write_round;
} FastFileSet;

void fastfile_set_init(FastFileSet *self, const FastFileSetOptions *options);
void fastfile_set_destroy(FastFileSet *self);

/* the entry for path, created when missing (allocates only then) */
FastFileEntry *fastfile_set_lookup(FastFileSet *self, const gchar *path);
/* call after appending a record to entry->buffer */
void fastfile_set_mark_dirty(FastFileSet *self, FastFileEntry *entry);

/* writes every dirty entry once; entries that fail keep their bytes and
 * stay dirty.  Returns TRUE when nothing is left unwritten. */
gboolean fastfile_set_write_all(FastFileSet *self);

/* in every dirty entry (only those that can never be opened with
 * permanent_only), drop the bytes of the records not yet written.  No line
 * is ever left torn: a partly written record is cut from the file again
 * (single writer), or else kept as an orphan that is finished later and
 * reported through done_records, so the worker counts it as written. */
void fastfile_set_discard_unwritten(FastFileSet *self, gboolean permanent_only);
guint fastfile_set_dirty_count(const FastFileSet *self);

/* the worker releases one settled record of entry; frees idle closed entries */
void fastfile_set_release_record(FastFileSet *self, FastFileEntry *entry);

void fastfile_set_close_all(FastFileSet *self);
/* close and free entries idle for more than time_reap seconds */
void fastfile_set_reap(FastFileSet *self, gint time_reap);

#endif
