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
#include "se-sink.h"
#include "cfg-tree.h"

G_DEFINE_QUARK(se-sink-error-quark, se_sink_error)

const gchar *
se_sink_result_name(SeSinkResult result)
{
  switch (result)
    {
    case SE_SINK_OK:
      return "ok";
    case SE_SINK_NOT_CONNECTED:
      return "not-connected";
    case SE_SINK_RETRY:
      return "retry";
    case SE_SINK_ERROR:
      return "error";
    default:
      return "unknown";
    }
}

void
se_sink_set_owner(SeSink *self, const SeSinkOwner *owner)
{
  self->owner = *owner;
}

gboolean
se_sink_drop_event(SeSink *self, guint *not_logged)
{
  gint64 now = g_get_monotonic_time();

  if (self->owner.dropped)
    self->owner.dropped(self->owner.user_data, 1);
  if (now < self->drop_log_next)
    {
      self->drops_not_logged++;
      return FALSE;
    }
  self->drop_log_next = now + SE_SINK_DROP_LOG_INTERVAL * G_USEC_PER_SEC;
  *not_logged = self->drops_not_logged;
  self->drops_not_logged = 0;
  return TRUE;
}

const gchar *
se_sink_driver_id(SeSink *self)
{
  return self->owner.id ? self->owner.id : "";
}

EVTTAG *
se_sink_location_tag(SeSink *self)
{
  /* without a pipe (a sink driven by a test): "#unknown" */
  return log_expr_node_location_tag(self->owner.pipe ? self->owner.pipe->expr_node : NULL);
}

static void
_tally_delivered(gpointer user_data, guint n)
{
  ((SeSinkTally *) user_data)->delivered += n;
}

static void
_tally_dropped(gpointer user_data, guint n)
{
  ((SeSinkTally *) user_data)->dropped += n;
}

void
se_sink_tally_attach(SeSink *self, SeSinkTally *tally)
{
  self->owner.delivered = _tally_delivered;
  self->owner.dropped = _tally_dropped;
  self->owner.user_data = tally;
}
