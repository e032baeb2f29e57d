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
#ifndef FASTFILE_TRIAL_H_INCLUDED
#define FASTFILE_TRIAL_H_INCLUDED

#include <glib.h>
#include <time.h>

/*
 * Whether a lone delivering thread hands its messages over to the worker's
 * thread or formats and writes them itself is measured, not assumed: which
 * way lets it read more messages depends on the machine more than on the
 * code.  On the bench VM of 2026-12-04 handing over gave 1.22x-1.33x the
 * msgs/s of formatting on the delivering thread at 100-2000 B; on the VM of
 * 2026-12-05 (a PVM guest: a cache line took ~420 ns to go to the other CPU
 * and back, every page fault ~10 us) the delivering thread spent 1.21
 * CPU-us/msg handing 100-byte messages over and 0.84 formatting and writing
 * them itself (1.4x the msgs/s, and less CPU than stock file()).
 *
 * The measure is what a message costs the machine: the delivering thread's
 * CPU time per message in jobs of at least FASTFILE_TRIAL_MIN_MESSAGES after
 * FASTFILE_TRIAL_CLOCK_FROM, plus the CPU time the writer's thread spent
 * meanwhile per message delivered (what it formats and writes when they are
 * handed over, next to nothing when they are not).  The delivering thread's
 * part alone misled: on the VM of 2026-12-05 at 300 B handing over cost it
 * 1.06 CPU-us/msg against 1.01 formatting and writing itself, within the
 * margin, so handing over stayed, and the writer's thread added 0.31 more:
 * 70% of the no-destination ceiling's msgs/s against 104%, as the other
 * CPU was the feeder's.  A machine with idle CPUs can give a lone connection
 * more msgs/s by handing over at more CPU in all; a log server's CPU is what
 * its users pay, and its connections share it.
 *
 * Jobs go in windows of FASTFILE_TRIAL_JOBS; the writer's clock is read at
 * the end of each, from the end of the window's first (which lets the other
 * way's tail be written first) to the end of its last.  Each way is measured
 * once at the start, then the cheaper one is taken and the other tried again
 * for one window after FASTFILE_TRIAL_FIRST_RETRY windows, then after twice
 * as many each time up to every FASTFILE_TRIAL_RETRY windows, as the machine
 * or the messages may change: the first measures are start-up's (on the
 * Xeon VM at 100 B two runs in three first chose handing over, 17% dearer
 * once warm, and kept it for 33 windows before the first retry).  The first choice takes formatting on the delivering
 * thread only when it was at least FASTFILE_TRIAL_MARGIN cheaper; otherwise
 * handing over (it keeps the delivering thread's caches to the reading).
 * After it, the chosen way is left only for a retry that cost at least the
 * margin less than the chosen way's window just before it: only adjacent
 * windows are weighed, as the machine's speed moves between windows far
 * apart (on the VM of 2026-12-05 at 1000 B the own way measured 1.26 us/msg
 * and a few windows later 1.73, against handing over's 1.74 from long
 * before, and handing over was taken for windows in which it cost more);
 * within the margin the chosen way stays, as each switch costs the other
 * way's tail.
 *
 * Only the lone delivering thread updates it (at the end of its jobs, under
 * the worker's lock; a job shared with other delivering threads restarts
 * the window: the writer's thread wrote their lines too); other delivering
 * threads read `way` (atomically) to learn that they do not hand over anyway
 * (they share, _shared_lately()).
 */
#define FASTFILE_TRIAL_JOBS 16
#define FASTFILE_TRIAL_RETRY 32
#define FASTFILE_TRIAL_FIRST_RETRY 2
#define FASTFILE_TRIAL_MIN_MESSAGES 64
/* a job's clock starts at its message of this number: a job of a few messages (syslog-ng's default
 * log-fetch-limit(10)) never hands over and pays no clock reading */
#define FASTFILE_TRIAL_CLOCK_FROM 16
#define FASTFILE_TRIAL_MARGIN 0.9

typedef enum
{
  FASTFILE_WAY_HANDING = 0,
  FASTFILE_WAY_OWN = 1,
} FastFileWay;

typedef struct _FastFileTrial
{
  gint way;                          /* the way of this window (FastFileWay; atomic for readers) */
  FastFileWay chosen;                /* the way taken between tries */
  gboolean decided;                  /* both ways measured once and the first choice made */
  guint jobs;                        /* measured jobs in this window */
  guint64 messages;                  /* their clocked messages */
  gint64 cpu_ns;                     /* the delivering thread's CPU time in them */
  gboolean writer_from_set;          /* the window's first job ended: */
  gint64 writer_from_ns;             /* the writer thread's CPU clock then */
  guint64 delivered;                 /* the messages of the jobs since */
  gdouble ns_per_message[2];         /* each way's last window, both threads (FastFileWay); 0: not measured */
  gdouble writer_ns_per_message[2];  /* of which the writer's thread */
  guint windows_since_retry;
  guint retry_after;                 /* windows of the chosen way before the next retry: doubles from
                                      * FASTFILE_TRIAL_FIRST_RETRY up to FASTFILE_TRIAL_RETRY */
} FastFileTrial;

void fastfile_trial_init(FastFileTrial *self);
/* the end of a job of the lone delivering thread: its messages, those of them after FASTFILE_TRIAL_CLOCK_FROM and
 * their CPU time, and the writer thread's CPU clock now (< 0: unknown).  TRUE when the way of the next window or the
 * way chosen changed with it (worth a debug line) */
gboolean fastfile_trial_job(FastFileTrial *self, guint64 messages, guint64 clocked, gint64 cpu_ns,
                            gint64 writer_cpu_ns);
/* a job shared with other delivering threads: the window starts again */
void fastfile_trial_interrupt(FastFileTrial *self);
const gchar *fastfile_trial_way_name(FastFileWay way);

/* a thread's CPU time so far (ns), by its clock (CLOCK_THREAD_CPUTIME_ID: the calling thread's); -1: unknown (the
 * thread is gone) */
static inline gint64
fastfile_trial_cpu_ns(clockid_t clock)
{
  struct timespec ts;

  if (clock_gettime(clock, &ts) < 0)
    return -1;
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT(1000000000) + ts.tv_nsec;
}

static inline gint64
fastfile_trial_thread_cpu_ns(void)
{
  return fastfile_trial_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline gboolean
fastfile_trial_hands_over(FastFileTrial *self)
{
  return g_atomic_int_get(&self->way) == FASTFILE_WAY_HANDING;
}

#endif
