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
#include "mainloop-worker.h"
#include "fastfile-lane.h"
#include "fastfile-trial.h"

#include <iv_event.h>

/*
 * One writer thread of a fast-file() destination and its lane.
 *
 * The direct path (a memory queue and no throttle()): the thread that
 * delivers a message formats it into the lane right away (the driver's
 * queue()), holding the message until its bytes are on disk; at the end of
 * its batch of work (syslog-ng's batch callback), or when a batch is full,
 * it writes the batch itself and then acknowledges and releases what was
 * written, so a message is freed by the thread that made it.  This thread
 * writes only what is handed to it while another thread writes, what waits
 * for a retry (it keeps the timers), batch-timeout() batches, and every
 * batch with compression() or fsync().  A lone delivering thread (one
 * connection, in jobs of more than a chunk) may hand its messages over
 * unformatted instead (when that costs it less: fastfile-trial.h), a chunk at
 * a time: this thread formats and writes
 * them on another CPU, and the delivering thread acknowledges and releases
 * them.  Nothing is queued in the LogQueue, and nothing is acknowledged
 * before its bytes are written.
 *
 * Queued records: with disk-buffer() or throttle(), and for what a reload
 * left in the queue, messages come through the LogQueue as with any threaded
 * destination: this thread formats them (insert()), writes them (flush())
 * and acknowledges them in queue order through the backlog.
 */
/* what the driver decides once, at its init */
typedef struct _FastFileWorkerOptions
{
  FastFileLaneOptions lane;
  gboolean direct;                   /* the direct path where the queue allows it (memory, no throttle) */
  gboolean keep_callers_ref;         /* nothing after the driver: hold the caller's reference and ack */
  gint time_reap;
  /* syslog-ng-ctl reopen: bumped by the driver, under reopen_lock */
  gint *reopen_generation;
  GMutex *reopen_lock;
} FastFileWorkerOptions;

/* A lone delivering thread (one connection) hands its messages over to
 * this worker's thread unformatted, a chunk at a time, and goes back to
 * reading: this thread formats them into the lane, writes them and leaves
 * them settled for the delivering thread to ack and free (it made them),
 * as it does its own.  The reader's only cost per message is a pointer
 * stored; formatting and the copy into the page cache run on the other
 * CPU.  Measured with bench/run's instruments on the 2-CPU bench machine
 * (2026-12-04, bench-hold(handover(yes) write-file()) against fast-file()
 * formatting on the delivering thread): 1.26x / 1.22x / 1.33x / 1.23x the
 * msgs/s at 100 / 300 / 1000 / 2000 B at less CPU per message.  While
 * threads deliver together, each formats its own (_defer() in
 * fastfile-worker.c): two CPUs are busy delivering then.  On another
 * machine formatting on the delivering thread paid more (2026-12-05, 100 B:
 * 0.84 against 1.21 CPU-us/msg on the reader): the delivering thread
 * measures both ways and takes the cheaper (fastfile-trial.h). */

/* a chunk: at most this many messages */
#define FASTFILE_HANDOVER_RECORDS 1024
/* the messages' size (log_msg_get_size()) after which a chunk goes */
#define FASTFILE_HANDOVER_BYTES (128 * 1024)

typedef struct _FastFileHandedRecord
{
  LogMessage *held;
  gint32 seq_num;
  guint32 size;
  gboolean ack_needed;
} FastFileHandedRecord;

typedef struct _FastFileHanded
{
  /* how `handed` and `handed_spare` hold it (it is in one of them at most): a node of their own would be
   * an allocation per chunk each way */
  GList link;
  gint thread;
  guint count;
  gsize bytes;
  FastFileHandedRecord records[FASTFILE_HANDOVER_RECORDS];
} FastFileHanded;

/* chunks handed over (_hand_over()) and not yet staged from which on the
 * delivering thread stages them itself, and its messages as before: the
 * held messages stay few when the worker's thread falls behind (peak RSS),
 * and both CPUs format */
#define FASTFILE_HANDOVER_MAX_CHUNKS 8

/* what a main loop thread writes here per message, on cache lines no other thread writes: as elements
 * of arrays indexed by thread, the counters of the four threads of four connections shared a line,
 * which went back and forth between the two CPUs once per message (syslog-ng 4.8.1, 100 B, perf:
 * about 0.12 us per message on the `++` of the job's messages) */
typedef struct _FastFileThreadCounts
{
  /* its job's messages so far, and its CPU clock at message FASTFILE_TRIAL_CLOCK_FROM (the trial) */
  guint job_messages;
  gint64 job_cpu_from;
  /* its `taken` records (their array's length, which other threads' writes keep away from this CPU's
   * cache), and of them those settled so far (a few per message handed over) */
  guint taken_len;
  guint taken_settled;
  /* its job woke this worker's thread for a chunk */
  gboolean handed_in_job;
  /* the worker is allocated with malloc()'s alignment, so a 64-byte element could share a line with
   * the next one: this keeps any two threads' counts more than a line apart */
  gchar spacing[96];
} FastFileThreadCounts;

typedef struct _FastFileWorker
{
  LogThreadedDestWorker super;
  const FastFileWorkerOptions *options;
  /* guards the lane and `direct`: taken by delivering threads and by this thread */
  GMutex lock;
  GCond write_done;                  /* a delivering thread's write ended (write_waiters) */
  FastFileLane lane;
  gboolean lane_ready;

  /* queued records */
  guint replay;                      /* rewound records coming back through insert() */
  gboolean draining;                 /* insert() is taking the messages queued behind its own */

  /* the direct path (under lock) */
  struct
  {
    gboolean accepting;              /* the worker runs and the driver takes the direct path */
    gboolean handoff_requested;      /* a delivering thread asked for the fill buffers to be written */
    gboolean handoff_now;            /* ... without waiting for batch-timeout() (a batch is full) */
    gboolean writing;                /* a thread writes outside the lock: it alone touches the files */
    gboolean asked_while_writing;    /* a handoff was asked for meanwhile: go on without a wakeup */
    guint write_waiters;             /* this thread waits for a delivering thread's write to end */
    gboolean wakeup_posted;
    gboolean settle_ready;           /* settled records wait for a delivering thread to collect them */
    guint active_jobs;               /* main loop jobs with a batch callback registered here */
    /* jobs registered so far, and the one until which a lone delivering thread still counts as one of several:
     * they write their own batches (_may_defer()) */
    guint jobs_registered, shared_until_job;
    guint staged_records;            /* since the buffers were last taken */
    gint64 first_staged;             /* monotonic usec: the oldest record not yet taken */
    gsize queued;                    /* held records staged, not yet counted in the queue's stats */
    gsize queued_memory;             /* their size */
    guint fifo_limit;                /* log-fifo-size(): the most held records beyond flow control */
    gboolean job_registered[MAIN_LOOP_MAX_WORKER_THREADS];
    WorkerBatchCallback job_done[MAIN_LOOP_MAX_WORKER_THREADS];
  } direct;
  /* delivering threads write the batches they format apart themselves (_own_write()) */
  gboolean own_batches;
  gboolean own_reported;             /* the first one is logged (debug), under lock */
  /* per main loop thread: its own formatter for when it finds the lock taken (that thread's only) */
  FastFilePrepared *prepared[MAIN_LOOP_MAX_WORKER_THREADS];
  /* per main loop thread: the records it formatted while others held the lock, not yet staged */
  struct _FastFileDeferred *deferred[MAIN_LOOP_MAX_WORKER_THREADS];
  /* per main loop thread: settled records of messages it delivered, which another thread collected
   * while it was at work (under lock), and those it takes out of there to settle (that thread's only) */
  GArray *theirs[MAIN_LOOP_MAX_WORKER_THREADS];
  GArray *taken[MAIN_LOOP_MAX_WORKER_THREADS];
  /* a lone delivering thread hands its messages over (_hands_over()) */
  gboolean hand_over;
  /* a lone delivering thread's messages handed over unformatted, for this thread to format and write
   * (_hand_over()): the chunk each main loop thread fills (that thread's only), and under handover_lock
   * the chunks handed over, in order, and the emptied ones */
  struct _FastFileHanded *handing[MAIN_LOOP_MAX_WORKER_THREADS];
  /* which way a lone delivering thread goes (fastfile-trial.h) */
  FastFileTrial trial;
  /* per main loop thread: its counts (that thread's only) */
  FastFileThreadCounts counts[MAIN_LOOP_MAX_WORKER_THREADS];
  /* this worker's thread's CPU clock, for the trial to read from the delivering thread */
  clockid_t writer_clock;
  gboolean writer_clock_set;
  GMutex handover_lock;
  GQueue handed;
  GQueue handed_spare;
  gint handed_count;                 /* chunks in `handed`; read without the lock too */
  /* threads whose chunk holds messages not yet handed over (atomic): another thread in a job stages
   * and writes nothing of its own meanwhile, so that those messages, delivered first, go first */
  gint open_chunks;
  gboolean handover_posted;          /* the wakeup event was posted for them (handover_lock) */
  struct iv_event wakeup_event;      /* posted by delivering threads */
  struct iv_timer retry_timer;       /* the next retry of a file that failed */
  struct iv_timer batch_timer;       /* batch-timeout() */

  gint reopen_generation;
  /* posted by syslog-ng-ctl reopen so that an idle worker lets go of rotated files at once */
  struct iv_event reopen_event;
  gboolean events_registered;        /* under the owner's reopen_lock */
  struct iv_timer reap_timer;
  struct iv_timer tick_timer;        /* file()'s suppress() summaries and MARKs, once a second */
} FastFileWorker;

LogThreadedDestWorker *fastfile_worker_new(LogThreadedDestDriver *owner, gint worker_index,
    const FastFileWorkerOptions *options);

/* the direct path, on the thread delivering msg (the driver's queue(); its
 * main loop thread id): FALSE when this worker does not take it (not
 * running): queue it then */
gboolean fastfile_worker_queue(FastFileWorker *self, LogMessage *msg, const LogPathOptions *path_options,
                               gint thread_id);

/* this worker's thread: write what delivering threads asked for and settle
 * it (what its wakeup event runs) */
void fastfile_worker_write_requested(FastFileWorker *self);

/* main thread: have the worker close its files now (syslog-ng-ctl reopen) */
void fastfile_worker_request_reopen(FastFileWorker *self);

#endif
