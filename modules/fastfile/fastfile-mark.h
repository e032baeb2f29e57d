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
#ifndef FASTFILE_MARK_H_INCLUDED
#define FASTFILE_MARK_H_INCLUDED

#include "logmsg/logmsg.h"
#include "host-resolve.h"
#include "cfg.h"

/*
 * file()'s mark-mode() and mark-freq(), per file as file() keeps them: a
 * "-- MARK --" line every mark-freq() seconds
 *  - dst-idle: once the file had no message for that long (and on while it has none),
 *  - host-idle: the same, counting only messages that are not local,
 *  - periodical: from the file's first message on, whatever comes;
 *  - internal: the MARK messages of syslog-ng's internal() source pass
 *    (with any other mode they are left out, as file() leaves them out),
 *  - none: nothing.
 * The timing is file()'s: a MARK is due at a whole second of the monotonic
 * clock; the writer looks for due MARKs once a second.
 *
 * Everything here runs under the owning lane's lock.
 */
typedef struct _FastFileMarkOptions
{
  gint mode;                          /* MM_*, global resolved */
  gint freq;                          /* seconds; 0: no MARK */
  HostResolveOptions host_resolve_options;  /* the MARK's host, as file() names it */
} FastFileMarkOptions;

/* one per file (entry) */
typedef struct _FastFileMarkSlot
{
  gint64 due;                         /* monotonic second of the next MARK */
  GList link;                         /* in FastFileMarks.scheduled */
  GQueue *scheduled;                  /* that queue while linked */
} FastFileMarkSlot;

typedef struct _FastFileMarks
{
  const FastFileMarkOptions *options;
  gboolean timed;                     /* this destination writes MARKs of its own */
  GQueue scheduled;                   /* slots with a MARK to come */
} FastFileMarks;

void fastfile_marks_init(FastFileMarks *self, const FastFileMarkOptions *options);
void fastfile_marks_destroy(FastFileMarks *self);

static inline gboolean
fastfile_marks_timed(const FastFileMarks *self)
{
  return self->timed;
}

/* an internal() MARK this destination leaves out (mark-mode() other than internal) */
static inline gboolean
fastfile_marks_leaves_out(const FastFileMarks *self, LogMessage *msg)
{
  gint mode = self->options ? self->options->mode : MM_NONE;

  return (msg->flags & (LF_INTERNAL | LF_MARK)) == (LF_INTERNAL | LF_MARK) && mode != MM_INTERNAL;
}

/* msg is written to the slot's file: postpones the MARK (idle modes) or
 * starts them (periodical) */
void fastfile_marks_note_message(FastFileMarks *self, FastFileMarkSlot *slot, LogMessage *msg, gint64 now);

/* the MARKs due at now: for each, fn(slot, mark, user_data) with a new
 * message, the caller's; the next one is due mark-freq() seconds later */
void fastfile_marks_take_due(FastFileMarks *self, gint64 now,
                             void (*fn)(FastFileMarkSlot *slot, LogMessage *mark, gpointer user_data),
                             gpointer user_data);

/* a MARK is to come: the file is kept (closed or not) as file() keeps its
 * writer, until time-reap() finds it unused */
static inline gboolean
fastfile_mark_slot_scheduled(const FastFileMarkSlot *slot)
{
  return slot->scheduled != NULL;
}

/* the slot's file goes away, or is reaped: no more MARKs for it */
void fastfile_mark_slot_clear(FastFileMarkSlot *slot);

#endif
