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
#ifndef SE_JOURNAL_ENCODER_H_INCLUDED
#define SE_JOURNAL_ENCODER_H_INCLUDED

#include "se-event.h"
#include <sys/uio.h>

/*
 * Encodes an event as journal fields, the form shared by journald's native
 * protocol and the Journal Export Format:
 *   NAME=value\n                          text form
 *   NAME\n<64-bit little endian length><value bytes>\n   binary-safe form
 * The binary-safe form is used for values that contain a control character
 * other than TAB, DEL, or bytes that are not valid UTF-8 (NUL included), so
 * such values survive byte-exact and journalctl shows them as byte arrays.
 *
 * The result is an iovec list: names, '=', length prefixes, newlines and
 * values of up to SE_JOURNAL_INLINE_MAX bytes are laid out contiguously in a
 * scratch area (one iovec per run), longer values are referenced where
 * they are stored in the message.  The arrays are reused: no allocation
 * once they have grown to the largest event seen.
 */
#define SE_JOURNAL_INLINE_MAX 64

typedef struct _SeJournalEncoder
{
  struct iovec *iov;
  guint n_iov;
  guint iov_cap;
  gchar *scratch;
  gsize scratch_cap;
  gsize total_len;
} SeJournalEncoder;

void se_journal_encoder_init(SeJournalEncoder *self);
void se_journal_encoder_destroy(SeJournalEncoder *self);

gboolean se_journal_value_needs_binary(const gchar *value, gsize len);

/*
 * Encodes extra[0..n_extra-1] followed by the event's fields.  With
 * export_format, the entry is terminated by the blank line of the Journal
 * Export Format.
 */
void se_journal_encode(SeJournalEncoder *self, const SeField *extra, guint n_extra,
                       const SeEvent *event, gboolean export_format);

/*
 * The boot id of this host as journald records it in _BOOT_ID: 32 lower
 * case hex digits (/proc/sys/kernel/random/boot_id without its dashes), or
 * NULL when the kernel does not tell.  Read once.
 */
const gchar *se_journal_boot_id(void);

/* copies the encoded bytes to dest (total_len bytes) */
void se_journal_encoder_copy(const SeJournalEncoder *self, gchar *dest);

#endif
