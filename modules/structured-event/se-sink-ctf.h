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

#include "se-sink.h"
#include "append-opener.h"
#include "stats/stats-counter.h"
#include "template/templates.h"

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
 * large for packet-size(), which is dropped alone), so babeltrace2
 * reports them.
 */
#define SE_CTF_DEFAULT_PACKET_SIZE 65536
#define SE_CTF_DEFAULT_MAX_STREAM_SIZE G_GINT64_CONSTANT(1073741824)
/* drops_reported before the first sink of the destination took its baseline */
#define SE_CTF_DROPS_UNSET G_MAXSIZE

typedef struct _SeSinkCtfOptions
{
  /* the configuration; 0 or NULL: unset (the default) */
  LogTemplate *path;              /* the trace directory: a literal path */
  gint64 packet_size;
  gint64 max_stream_size;
  /* filled in by the owner before a sink is made */
  gint worker_index;
  AppendOpenerOptions opener;
  StatsCounterItem **dropped;     /* the destination's dropped counter, may be NULL */
  gsize *drops_reported;          /* drops already put in a packet, shared by the workers; SE_CTF_DROPS_UNSET at first */
} SeSinkCtfOptions;

void se_sink_ctf_options_destroy(SeSinkCtfOptions *self);
/* packet-size(): a multiple of 8 within [4096, 256 MiB]; max-stream-size(): at least 4096 */
gboolean se_sink_ctf_packet_size_is_valid(gint64 size);
gboolean se_sink_ctf_max_stream_size_is_valid(gint64 size);
gboolean se_sink_ctf_check_options(const SeSinkCtfOptions *self, GError **error);
/* "structured-event,ctf,<dir>" for stats and persist names */
void se_sink_ctf_format_instance(const SeSinkCtfOptions *self, gchar *buf, gsize size);

SeSink *se_sink_ctf_new(const SeSinkCtfOptions *options);

/* cuts the stream file at fd back to its last whole packet; returns the bytes kept, or -1 on error */
gint64 se_sink_ctf_trim_stream(gint fd);

#endif
