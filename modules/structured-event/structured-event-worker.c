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
#include "messages.h"
#include "compat-stats.h"

/*
 * Turns each message into an event, hands it to the sink and settles
 * exactly the events the sink reports delivered or dropped, oldest first
 * (LTR_EXPLICIT_ACK_MGMT).  Failures map onto the threaded destination's
 * results, which rewind (or drop) every event not settled yet: the sink
 * has forgotten them too.
 */
static void
_settle_delivered(gpointer s, guint n)
{
  log_threaded_dest_worker_ack_messages((LogThreadedDestWorker *) s, n);
}

static void
_settle_dropped(gpointer s, guint n)
{
  log_threaded_dest_worker_drop_messages((LogThreadedDestWorker *) s, n);
}

static gboolean
_stopping(gpointer s)
{
  LogThreadedDestWorker *self = s;

  /* set by the main thread when it asks the workers to exit */
  return g_atomic_int_get(&self->owner->under_termination);
}

static LogThreadedResult
_map_result(StructuredEventWorker *self, SeSinkResult result)
{
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
    default:
      g_assert_not_reached();
    }
}

static LogThreadedResult
_dw_insert(LogThreadedDestWorker *s, LogMessage *msg)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;
  SeEvent event;

  se_event_build(&self->builder, msg, s->seq_num, &event);
  if (G_UNLIKELY(event.dropped_fields))
    self->fields_dropped(s->owner, event.dropped_fields);

  return _map_result(self, se_sink_emit(self->sink, &event));
}

static LogThreadedResult
_dw_flush(LogThreadedDestWorker *s, LogThreadedFlushMode mode)
{
  StructuredEventWorker *self = (StructuredEventWorker *) s;

  return _map_result(self, se_sink_flush(self->sink));
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
structured_event_dw_new(LogThreadedDestDriver *owner, gint worker_index, const SeEventOptions *event_options,
                        SeSink *sink, StructuredEventFieldsDropped fields_dropped)
{
  StructuredEventWorker *self = g_new0(StructuredEventWorker, 1);

  log_threaded_dest_worker_init_instance(&self->super, owner, worker_index);
  self->super.insert = _dw_insert;
  self->super.flush = _dw_flush;
  self->super.connect = _dw_connect;
  self->super.disconnect = _dw_disconnect;
  self->super.free_fn = _dw_free;

  se_event_builder_init(&self->builder, event_options);
  self->fields_dropped = fields_dropped;
  self->sink = sink;
  se_sink_set_owner(self->sink, &(SeSinkOwner)
  {
    .id = owner->super.super.id,
    .pipe = &owner->super.super.super,
    .delivered = _settle_delivered,
    .dropped = _settle_dropped,
    .stopping = _stopping,
    .user_data = self,
  });
  return &self->super;
}
