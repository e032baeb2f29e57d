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
#ifndef SE_MSGID_H_INCLUDED
#define SE_MSGID_H_INCLUDED

#include <glib.h>

/*
 * Normalises a rendered message-id() into journald's MESSAGE_ID form: 32
 * lower case hex digits.
 *
 * - input that is 32 hex digits once dashes are removed (a UUID, or an
 *   sd-id128 as printed by journalctl --new-id128) is used as-is, lower-cased;
 * - anything else is hashed: the id is the first 16 bytes of the SHA-256 of
 *   the input bytes, as 32 lower case hex digits.  The same input always
 *   gives the same id.
 *
 * sha256 is a caller-owned GChecksum(G_CHECKSUM_SHA256), reused so that no
 * memory is allocated per call.  Returns FALSE for an empty input.
 */
#define SE_MSGID_LEN 32

gboolean se_msgid_normalise(const gchar *input, gsize len, GChecksum *sha256, gchar out[SE_MSGID_LEN + 1]);

#endif
