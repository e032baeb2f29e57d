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
#ifndef FASTFILE_SUPPRESS_H_INCLUDED
#define FASTFILE_SUPPRESS_H_INCLUDED

#include "logmsg/logmsg.h"
#include "stats/stats-counter.h"

/*
 * file()'s suppress(N), per file as file() keeps it: a message that repeats
 * the file's last one (same text, host, program and pid, received at most N
 * seconds after it) is left out; the repeats left out are summed up in a
 * line of file()'s ("Last message '...' repeated N times, suppressed by
 * syslog-ng on <host>") written before the next different message, or N
 * seconds after the first repeat when none comes.  The summary is a message
 * of its own (one per run of repeats, never one per message).
 *
 * Everything here runs under the owning lane's lock.
 */
typedef struct _FastFileSuppressOptions
{
  gint seconds;                       /* suppress(); 0: off */
  StatsCounterItem *suppressed;       /* the driver's, NULL below its stats level */
} FastFileSuppressOptions;

/* one per file (entry) */
typedef struct _FastFileSuppressSlot
{
  LogMessage *last;                   /* the file's last message written (a reference); NULL: none */
  guint repeats;                      /* repeats of it left out since */
  gint64 due;                         /* monotonic second of the summary when repeats > 0 */
  GList link;                         /* in FastFileSuppress.pending while repeats > 0 */
  GQueue *pending;                    /* that queue while linked */
} FastFileSuppressSlot;

typedef struct _FastFileSuppress
{
  const FastFileSuppressOptions *options;
  GQueue pending;                     /* slots with repeats */
} FastFileSuppress;

void fastfile_suppress_init(FastFileSuppress *self, const FastFileSuppressOptions *options);
void fastfile_suppress_destroy(FastFileSuppress *self);

static inline gboolean
fastfile_suppress_enabled(const FastFileSuppress *self)
{
  return self->options && self->options->seconds > 0;
}

/* msg is about to be written to the slot's file: TRUE when it is a repeat
 * to leave out.  Otherwise it becomes the file's last message, and
 * *summary, when not NULL, is the summary of the repeats left out before it
 * (a new message, the caller's), to be written first. */
gboolean fastfile_suppress_check(FastFileSuppress *self, FastFileSuppressSlot *slot, LogMessage *msg, gint64 now,
                                 LogMessage **summary);

/* the summaries due at now: for each, fn(slot, summary, user_data) with a
 * new message, the caller's; the slot forgets its last message as file()
 * does after a summary */
void fastfile_suppress_take_due(FastFileSuppress *self, gint64 now,
                                void (*fn)(FastFileSuppressSlot *slot, LogMessage *summary, gpointer user_data),
                                gpointer user_data);

/* repeats are waiting for their summary: the file must not be forgotten */
static inline gboolean
fastfile_suppress_slot_pending(const FastFileSuppressSlot *slot)
{
  return slot->repeats > 0;
}

/* the slot's file goes away */
void fastfile_suppress_slot_clear(FastFileSuppressSlot *slot);

#endif
