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

#include "fastfile-trial.h"

#include <string.h>

void
fastfile_trial_init(FastFileTrial *self)
{
  memset(self, 0, sizeof(*self));
  self->way = FASTFILE_WAY_HANDING;
  self->chosen = FASTFILE_WAY_HANDING;
  self->retry_after = FASTFILE_TRIAL_FIRST_RETRY;
}

const gchar *
fastfile_trial_way_name(FastFileWay way)
{
  return way == FASTFILE_WAY_HANDING ? "hand over to the writer thread" : "format and write on the delivering thread";
}

/* the way for the next window, after a window of `measured` was measured */
static FastFileWay
_next_way(FastFileTrial *self, FastFileWay measured)
{
  FastFileWay other = 1 - measured;
  gdouble handing = self->ns_per_message[FASTFILE_WAY_HANDING];
  gdouble own = self->ns_per_message[FASTFILE_WAY_OWN];

  if (self->ns_per_message[other] == 0)
    return other;
  if (!self->decided)
    {
      /* the first choice: handing over unless formatting here was clearly cheaper */
      self->decided = TRUE;
      self->chosen = own < handing * FASTFILE_TRIAL_MARGIN ? FASTFILE_WAY_OWN : FASTFILE_WAY_HANDING;
    }
  else if (measured != self->chosen
           && self->ns_per_message[measured] < self->ns_per_message[self->chosen] * FASTFILE_TRIAL_MARGIN)
    {
      /* a retry, against the chosen way's window just before it: clearly cheaper, it is taken */
      self->chosen = measured;
    }
  if (measured != self->chosen)
    return self->chosen;
  /* the first choice rests on start-up windows: retried soon, then ever more seldom */
  if (++self->windows_since_retry >= self->retry_after)
    {
      self->windows_since_retry = 0;
      self->retry_after = MIN(self->retry_after * 2, FASTFILE_TRIAL_RETRY);
      return 1 - self->chosen;
    }
  return self->chosen;
}

/* the window's measures let go of, the way kept */
static void
_restart_window(FastFileTrial *self)
{
  self->jobs = 0;
  self->messages = 0;
  self->cpu_ns = 0;
  self->writer_from_set = FALSE;
  self->delivered = 0;
}

void
fastfile_trial_interrupt(FastFileTrial *self)
{
  _restart_window(self);
}

gboolean
fastfile_trial_job(FastFileTrial *self, guint64 messages, guint64 clocked, gint64 cpu_ns, gint64 writer_cpu_ns)
{
  gint before = self->way;
  FastFileWay chosen_before = self->chosen;

  /* the writer's part runs over every job from the window's first on, measured or not: it wrote them all */
  if (writer_cpu_ns < 0)
    self->writer_from_set = FALSE;
  else if (!self->writer_from_set)
    {
      self->writer_from_set = TRUE;
      self->writer_from_ns = writer_cpu_ns;
      self->delivered = 0;
    }
  else
    self->delivered += messages;
  if (clocked < FASTFILE_TRIAL_MIN_MESSAGES || cpu_ns <= 0)
    return FALSE;
  self->messages += clocked;
  self->cpu_ns += cpu_ns;
  if (++self->jobs < FASTFILE_TRIAL_JOBS)
    return FALSE;
  gdouble writer = self->writer_from_set && self->delivered
                   ? (gdouble) (writer_cpu_ns - self->writer_from_ns) / self->delivered : 0;
  self->writer_ns_per_message[self->way] = writer;
  self->ns_per_message[self->way] = (gdouble) self->cpu_ns / self->messages + writer;
  _restart_window(self);
  g_atomic_int_set(&self->way, _next_way(self, self->way));
  return self->way != before || self->chosen != chosen_before;
}
