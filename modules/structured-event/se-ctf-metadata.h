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
#ifndef SE_CTF_METADATA_H_INCLUDED
#define SE_CTF_METADATA_H_INCLUDED

#include <glib.h>
#include "file-perms.h"

/*
 * The TSDL (CTF 1.8) metadata of a structured-event() trace: one clock
 * ("realtime": CLOCK_REALTIME in ns at write time), one stream class with
 * the packet context babeltrace2 uses for discarded-event reports, and one
 * event class "syslog" whose payload is the layout se-ctf-packet.h writes.
 * Everything is little endian; the packet header and context are naturally
 * aligned, event fields are byte aligned (align = 8) so events need no
 * padding.
 *
 * Layout choices tested against babeltrace2 2.0 (Debian bookworm): a
 * variant inside a dynamic array, tagged by an enum in the same element,
 * resolves; a sequence length whose name starts with '_' inside an array
 * element does not (babeltrace2 strips one leading underscore from field
 * names but not from the length path), so no length field starts with '_'.
 * Option names that are TSDL keywords ("string", "double") are written
 * "_string", "_double", which babeltrace2 matches with the enum labels.
 *
 * The text never changes for a given fastdest layout, so it carries no
 * UUID: a directory holds one trace and every restart appends new stream
 * files to it.
 */
#define SE_CTF_METADATA_NAME "metadata"
/* stream files: stream_<worker>_<n> */
#define SE_CTF_STREAM_PREFIX "stream_"

const gchar *se_ctf_metadata_text(gsize *len);

typedef enum
{
  SE_CTF_METADATA_KEPT,       /* identical metadata already there */
  SE_CTF_METADATA_WRITTEN,    /* a new trace */
  SE_CTF_METADATA_REPLACED,   /* a different layout was there: its files were moved to moved_to */
  SE_CTF_METADATA_ERROR,      /* see *error_errno */
} SeCtfMetadataResult;

/*
 * Makes dir hold our metadata, creating dir if needed: written to a hidden
 * temporary file, fsync()ed and renamed into place, so readers never see
 * a partial one.  When dir holds metadata of another layout, that trace
 * (its metadata and stream files) is moved into a subdirectory
 * "previous-<seconds>", which stays readable on its own.  Serialised
 * within the process (several workers share a directory).  dir and its
 * missing parents get perms' dir-*() options, the metadata its file ones;
 * NULL perms: file()'s global defaults (0700, 0600).
 */
SeCtfMetadataResult se_ctf_metadata_install(const gchar *dir, const FilePermOptions *perms, gchar *moved_to,
    gsize moved_to_size, gint *error_errno);

const gchar *se_ctf_metadata_result_name(SeCtfMetadataResult result);

#endif
