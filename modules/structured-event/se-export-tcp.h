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
#ifndef SE_EXPORT_TCP_H_INCLUDED
#define SE_EXPORT_TCP_H_INCLUDED

#include "se-export-transport.h"

/*
 * sink(journal-export) host() transport(raw): the entries as one stream
 * over TCP, as systemd-journal-remote --listen-raw reads them.  Connecting
 * and every write wait at most until the batch's deadline (timeout()):
 * the socket is non-blocking and the common batch writer waits in poll().
 * Raw TCP has no acknowledgement: bytes in the socket count as written.
 */
SeExportTransport *se_export_tcp_new(const gchar *host, gint port);


#endif
