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
#ifndef SE_SINK_CTF_H_INCLUDED
#define SE_SINK_CTF_H_INCLUDED

#include "structured-event.h"
#include "append-opener.h"
#include "stats/stats-counter.h"

/*
 * sink(ctf): a CTF 1.8 trace directory (path()): the metadata
 * (se-ctf-metadata.h) and one stream file per worker and start,
 * stream_<worker>_<n>, each a sequence of whole packets (se-ctf-packet.h).
 *
 * Events are stamped with CLOCK_REALTIME when they are added to the
 * packet, never earlier than the previous event of the stream.  A packet
 * is written with one write() when the next event does not fit, or when
 * the worker flushes (after batch-lines() events or when the queue runs
 * empty); only then are its events reported delivered.  A failed write is
 * cut off the file again (ftruncate), so a stream file only ever holds
 * whole packets while syslog-ng runs; a kill -9 landing inside a write()
 * can still leave a partial packet at the end, and the next start trims
 * the newest stream file of the worker back to its last whole packet
 * before it starts a new file.  A stream file reaching max-stream-size()
 * is closed and a new one started.
 *
 * Loss is visible in the trace: events_discarded of each packet is the
 * stream's running count of the messages the destination dropped (its
 * "dropped" counter: queue overflow, retries exhausted, or an event too
 * large for packet-size(), which is dropped), so babeltrace2 reports them.
 */
extern const SeSinkClass se_sink_ctf_class;

typedef struct _SeSinkCtfOptions
{
  const gchar *dir;
  gsize packet_size;
  guint64 max_stream_size;
  gint worker_index;
  AppendOpenerOptions opener;
  StatsCounterItem **dropped;     /* the destination's dropped counter, may be NULL */
  gsize *drops_reported;          /* drops already put in a packet, shared by the workers */
} SeSinkCtfOptions;

SeSink *se_sink_ctf_new(const SeSinkCtfOptions *options);

/* cuts the stream file at fd back to its last whole packet; returns the bytes kept, or -1 on error */
gint64 se_sink_ctf_trim_stream(gint fd);

#endif
