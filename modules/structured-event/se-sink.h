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
#include "logpipe.h"
#include "messages.h"

/*
 * The interface every structured-event() sink implements (journald,
 * journal-export, ctf).  One sink instance belongs to one worker thread.
 *
 * Delivery accounting: the worker counts the events it has handed to the
 * sink and not yet settled.  The sink settles them oldest first, through
 * its owner: delivered (written to the file or socket, or stored by the
 * peer) or dropped (this event alone can never be delivered: a file name
 * that cannot be opened, an event larger than a CTF packet, an entry the
 * peer refuses on its own; counted in `dropped`, never retried).  When
 * emit() or flush() fails, the sink forgets every event it holds that was
 * not settled: the worker hands them over again (NOT_CONNECTED, RETRY,
 * ERROR) or drops them (ERROR after retries()).
 */
typedef enum
{
  SE_SINK_OK,
  SE_SINK_NOT_CONNECTED,   /* the destination as a whole is unreachable: reconnect after time-reopen() */
  SE_SINK_RETRY,           /* temporary (EAGAIN): resend soon */
  SE_SINK_ERROR,           /* failed: retried up to retries(), then dropped */
} SeSinkResult;

/*
 * Whom a sink works for: the destination it names in every log message
 * (its id and config location) and the worker it settles events with.
 */
typedef struct _SeSinkOwner
{
  const gchar *id;
  LogPipe *pipe;
  void (*delivered)(gpointer user_data, guint n);
  void (*dropped)(gpointer user_data, guint n);
  /* TRUE once syslog-ng stops or reloads: a sink waiting on the network gives up at once */
  gboolean (*stopping)(gpointer user_data);
  gpointer user_data;
} SeSinkOwner;

/* at most one message a sink logs for events it drops, per this many seconds */
#define SE_SINK_DROP_LOG_INTERVAL 10

typedef struct _SeSink SeSink;
struct _SeSink
{
  const gchar *name;
  SeSinkOwner owner;
  gint64 drop_log_next;        /* monotonic usec: the next drop message that may be logged */
  guint drops_not_logged;
  gboolean (*open)(SeSink *self);
  void (*close)(SeSink *self);
  SeSinkResult (*emit)(SeSink *self, const SeEvent *event);
  SeSinkResult (*flush)(SeSink *self);
  /* events held and not yet settled */
  guint (*pending)(SeSink *self);
  void (*free_fn)(SeSink *self);
  /* bytes written to the file or socket since the worker last took them (the driver's written bytes) */
  guint64 written_bytes;
};

void se_sink_set_owner(SeSink *self, const SeSinkOwner *owner);

/* for the sinks: the oldest n unsettled events are delivered */
static inline void
se_sink_delivered(SeSink *self, guint n)
{
  if (n && self->owner.delivered)
    self->owner.delivered(self->owner.user_data, n);
}

/*
 * For the sinks: the oldest unsettled event can never be delivered; it
 * alone is dropped and counted.  TRUE when the caller logs why (at most
 * once per SE_SINK_DROP_LOG_INTERVAL), *not_logged then tells how many
 * drops went unlogged before this one.
 */
gboolean se_sink_drop_event(SeSink *self, guint *not_logged);

static inline gboolean
se_sink_stopping(SeSink *self)
{
  return self->owner.stopping && self->owner.stopping(self->owner.user_data);
}

/* the destination in a log message: driver (its id) and location (its place in the config) */
const gchar *se_sink_driver_id(SeSink *self);
EVTTAG *se_sink_location_tag(SeSink *self);
#define se_sink_dest_tags(self) evt_tag_str("driver", se_sink_driver_id(self)), se_sink_location_tag(self)

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
se_sink_emit(SeSink *self, const SeEvent *event)
{
  return self->emit(self, event);
}

static inline SeSinkResult
se_sink_flush(SeSink *self)
{
  return self->flush ? self->flush(self) : SE_SINK_OK;
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

/* the domain of the errors a sink's options check reports (syslog-ng -s) */
#define SE_SINK_ERROR_DOMAIN se_sink_error_quark()
GQuark se_sink_error_quark(void);

/* counts what a sink settles: for tests and benchmarks that drive a sink without a worker */
typedef struct _SeSinkTally
{
  guint64 delivered;
  guint64 dropped;
} SeSinkTally;

void se_sink_tally_attach(SeSink *self, SeSinkTally *tally);

#endif
