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
#ifndef SE_SINK_JOURNALD_H_INCLUDED
#define SE_SINK_JOURNALD_H_INCLUDED

#include "se-sink.h"
#include "stats/stats-counter.h"

/*
 * sink(journald): journald's native protocol over its unix datagram
 * socket, one non-blocking sendmsg() per event whose iovecs point into the
 * message's values.  An entry too large for a datagram (EMSGSIZE) goes
 * through a sealed memfd passed with SCM_RIGHTS, as sd_journal_sendv()
 * does.  A missing or refusing socket (ENOENT, ECONNREFUSED) means not
 * connected: events stay queued and are resent after time-reopen().
 */
#define SE_JOURNALD_DEFAULT_SOCKET "/run/systemd/journal/socket"

typedef struct _SeSinkJournaldOptions
{
  gchar *socket;                     /* socket(); NULL: the default */
  gchar *namespace_;                 /* namespace(): /run/systemd/journal.NAME/socket */
  StatsCounterItem **memfd_sends;    /* the destination's memfd_sends counter, may be NULL */
} SeSinkJournaldOptions;

void se_sink_journald_options_destroy(SeSinkJournaldOptions *self);
/* journald's namespace names: 1-64 of [A-Za-z0-9_.-] (what fits a unit instance name) */
gboolean se_sink_journald_namespace_is_valid(const gchar *name);
gboolean se_sink_journald_check_options(const SeSinkJournaldOptions *self, GError **error);
/* the socket the options select */
const gchar *se_sink_journald_socket(const SeSinkJournaldOptions *self, gchar *buf, gsize size);
/* "structured-event,journald,<socket>" for stats and persist names */
void se_sink_journald_format_instance(const SeSinkJournaldOptions *self, gchar *buf, gsize size);

SeSink *se_sink_journald_new(const SeSinkJournaldOptions *options);

#endif
