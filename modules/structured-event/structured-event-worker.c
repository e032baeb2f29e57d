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
#include "structured-event-worker.h"
#include "structured-event.h"
#include "messages.h"
#include "compat-stats.h"

/*
 * Turns each message into an event, hands it to the sink and acknowledges
 * exactly the events the sink reports delivered (LTR_EXPLICIT_ACK_MGMT).
 * Failures map onto the threaded destination's results, which rewind (or
 * drop) every event not acknowledged yet: the sink has forgotten them too.
 */
static LogThreadedResult
_map_result(StructuredEventWorker *self, SeSinkResult result, guint delivered)
{
  if (delivered)
    log_threaded_dest_worker_ack_messages(&self->super, delivered);
  if (self->sink->written_bytes)
    {
      fd_threaded_dest_worker_written_bytes_add(&self->super, self->sink->written_bytes);
      self->sink->written_bytes = 0;
    }

  switch (result)
    {
    case SE_SINK_OK:
      /* LTR_QUEUED turns batching on: flush() after batch-lines() events */
      return se_sink_pending(self->sink) ? LTR_QUEUED : LTR_EXPLICIT_ACK_MGMT;
    case SE_SINK_NOT_CONNECTED:
      return LTR_NOT_CONNECTED;
    case SE_SINK_RETRY:
      return LTR_RETRY;
    case SE_SINK_ERROR:
      return LTR_ERROR;
    case SE_SINK_DROP:
      return LTR_DROP;
    default:
      g_assert_not_reached();
    }
}

static LogThreadedResult
_dw_insert(LogThreadedDestWorker *s, LogMessage *msg)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;
  StructuredEventDriver *owner = (StructuredEventDriver *) s->owner;
  SeEvent event;
  guint delivered;
  SeSinkResult result;

  se_event_build(&self->builder, msg, s->seq_num, &event);
  if (G_UNLIKELY(event.dropped_fields))
    structured_event_dd_fields_dropped(owner, event.dropped_fields);

  result = se_sink_emit(self->sink, &event, &delivered);
  return _map_result(self, result, delivered);
}

static LogThreadedResult
_dw_flush(LogThreadedDestWorker *s, LogThreadedFlushMode mode)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;
  guint delivered;
  SeSinkResult result;

  result = se_sink_flush(self->sink, &delivered);
  return _map_result(self, result, delivered);
}

static gboolean
_dw_connect(LogThreadedDestWorker *s)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;

  return se_sink_open(self->sink);
}

static void
_dw_disconnect(LogThreadedDestWorker *s)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;

  se_sink_close(self->sink);
}

static void
_dw_free(LogThreadedDestWorker *s)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;

  se_sink_free(self->sink);
  se_event_builder_destroy(&self->builder);
  log_threaded_dest_worker_free_method(s);
}

LogThreadedDestWorker *
structured_event_dw_new(LogThreadedDestDriver *o, gint worker_index)
{
  StructuredEventWorker *self = g_new0(StructuredEventWorker, 1);
  StructuredEventDriver *owner = (StructuredEventDriver *) o;

  log_threaded_dest_worker_init_instance(&self->super, o, worker_index);
  self->super.insert = _dw_insert;
  self->super.flush = _dw_flush;
  self->super.connect = _dw_connect;
  self->super.disconnect = _dw_disconnect;
  self->super.free_fn = _dw_free;

  se_event_builder_init(&self->builder, &owner->event_options);
  self->sink = owner->sink_class->construct(owner, worker_index);
  return &self->super;
}
