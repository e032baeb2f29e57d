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
#ifndef SE_SINK_H_INCLUDED
#define SE_SINK_H_INCLUDED

#include "se-event.h"

/*
 * The interface every structured-event() sink implements (journald,
 * journal-export, and later ctf).  One sink instance belongs to one worker
 * thread.
 *
 * Delivery accounting: the worker counts the events it has handed to the
 * sink and not yet acknowledged.  emit() and flush() report in *delivered
 * how many of the oldest of them are now delivered (written to the file or
 * socket); the worker acknowledges exactly that many.  When a call fails,
 * the sink forgets every event it holds that was not reported delivered:
 * the worker hands them over again (NOT_CONNECTED, RETRY, ERROR) or drops
 * them (DROP, or ERROR after retries()).
 */
typedef enum
{
  SE_SINK_OK,
  SE_SINK_NOT_CONNECTED,   /* destination unreachable: reconnect after time-reopen() */
  SE_SINK_RETRY,           /* temporary (EAGAIN): resend soon */
  SE_SINK_ERROR,           /* failed: retried up to retries(), then dropped */
  SE_SINK_DROP,            /* this event can never be delivered */
} SeSinkResult;

typedef struct _SeSink SeSink;
struct _SeSink
{
  const gchar *name;
  gboolean (*open)(SeSink *self);
  void (*close)(SeSink *self);
  SeSinkResult (*emit)(SeSink *self, const SeEvent *event, guint *delivered);
  SeSinkResult (*flush)(SeSink *self, guint *delivered);
  /* events held and not yet reported delivered */
  guint (*pending)(SeSink *self);
  void (*free_fn)(SeSink *self);
  /* bytes written to the file or socket since the worker last took them (the driver's written bytes) */
  guint64 written_bytes;
};

static inline gboolean
se_sink_open(SeSink *self)
{
  return self->open ? self->open(self) : TRUE;
}

static inline void
se_sink_close(SeSink *self)
{
  if (self->close)
    self->close(self);
}

static inline SeSinkResult
se_sink_emit(SeSink *self, const SeEvent *event, guint *delivered)
{
  *delivered = 0;
  return self->emit(self, event, delivered);
}

static inline SeSinkResult
se_sink_flush(SeSink *self, guint *delivered)
{
  *delivered = 0;
  return self->flush ? self->flush(self, delivered) : SE_SINK_OK;
}

static inline guint
se_sink_pending(SeSink *self)
{
  return self->pending ? self->pending(self) : 0;
}

static inline void
se_sink_free(SeSink *self)
{
  if (self)
    self->free_fn(self);
}

const gchar *se_sink_result_name(SeSinkResult result);

#endif
