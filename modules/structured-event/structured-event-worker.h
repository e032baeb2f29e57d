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
#ifndef STRUCTURED_EVENT_WORKER_H_INCLUDED
#define STRUCTURED_EVENT_WORKER_H_INCLUDED

#include "logthrdest/logthrdestdrv.h"
#include "se-event.h"
#include "se-sink.h"

/* called with the number of pairs max-fields() cut off an event */
typedef void (*StructuredEventFieldsDropped)(LogThreadedDestDriver *owner, guint count);

typedef struct _StructuredEventWorker
{
  LogThreadedDestWorker super;
  SeEventBuilder builder;
  SeSink *sink;
  StructuredEventFieldsDropped fields_dropped;
} StructuredEventWorker;

/*
 * One worker of a structured-event() destination: events built with
 * event_options go to sink, which the worker owns from now on.  The
 * destination makes both (structured-event.c); the worker knows the sink
 * interface only, not the destination.
 */
LogThreadedDestWorker *structured_event_dw_new(LogThreadedDestDriver *owner, gint worker_index,
    const SeEventOptions *event_options, SeSink *sink,
    StructuredEventFieldsDropped fields_dropped);

#endif
