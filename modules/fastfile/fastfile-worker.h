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
#ifndef FASTFILE_WORKER_H_INCLUDED
#define FASTFILE_WORKER_H_INCLUDED

#include "logthrdest/logthrdestdrv.h"
#include "fastfile-files.h"
#include "fastfile-format.h"

typedef enum
{
  FASTFILE_RECORD_QUEUED,     /* bytes in its file's buffer */
  FASTFILE_RECORD_WRITTEN,    /* on disk, waiting for the records before it */
  FASTFILE_RECORD_SKIPPED,    /* rendered empty: nothing to write (as file()) */
  FASTFILE_RECORD_DROPPED,    /* refused path or retries exhausted */
} FastFileRecordState;

typedef struct _FastFilePendingRecord
{
  FastFileEntry *entry;
  FastFileRecordState state;
} FastFilePendingRecord;

/*
 * One worker thread: formats each message into its file's batch buffer and
 * writes every buffer with one write() per flush.  Messages are acknowledged
 * in queue order, and only once their bytes are on disk.
 */
typedef struct _FastFileWorker
{
  LogThreadedDestWorker super;
  FastFileFormatter formatter;
  FastFileSet files;
  FastFileEntry *single_file;        /* literal file name: no lookup per message */
  GString *filename;                 /* scratch for templated file names */

  FastFilePendingRecord *pending;    /* unacknowledged records, in queue order */
  guint n_pending;
  guint pending_capacity;
  guint replay;                      /* rewound records coming back through insert() */
  gboolean draining;                 /* insert() is taking the messages queued behind its own */
  gint failed_flushes;
  gint reopen_generation;
  /* posted by syslog-ng-ctl reopen so that an idle worker lets go of rotated files at once */
  struct iv_event reopen_event;
  gboolean reopen_event_registered;   /* under the owner's reopen_lock */
  struct
  {
    gint64 last_report;
    guint suppressed;
  } refused_paths;
  struct iv_timer reap_timer;
} FastFileWorker;

LogThreadedDestWorker *fastfile_worker_new(LogThreadedDestDriver *owner, gint worker_index);
/* main thread: have the worker close its files now (syslog-ng-ctl reopen) */
void fastfile_worker_request_reopen(FastFileWorker *self);

#endif
