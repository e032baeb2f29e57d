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
#include "se-msgid.h"

static gboolean
_copy_if_id128(const gchar *input, gsize len, gchar *out)
{
  gsize n = 0;

  for (gsize i = 0; i < len; i++)
    {
      gchar c = input[i];

      if (c == '-')
        continue;
      if (!g_ascii_isxdigit(c) || n == SE_MSGID_LEN)
        return FALSE;
      out[n++] = g_ascii_tolower(c);
    }
  return n == SE_MSGID_LEN;
}

gboolean
se_msgid_normalise(const gchar *input, gsize len, GChecksum *sha256, gchar out[SE_MSGID_LEN + 1])
{
  static const gchar hex[] = "0123456789abcdef";
  guint8 digest[32];
  gsize digest_len = sizeof(digest);

  if (len == 0)
    return FALSE;

  if (_copy_if_id128(input, len, out))
    {
      out[SE_MSGID_LEN] = 0;
      return TRUE;
    }

  g_checksum_reset(sha256);
  g_checksum_update(sha256, (const guchar *) input, len);
  g_checksum_get_digest(sha256, digest, &digest_len);
  for (gint i = 0; i < SE_MSGID_LEN / 2; i++)
    {
      out[2 * i] = hex[digest[i] >> 4];
      out[2 * i + 1] = hex[digest[i] & 0xf];
    }
  out[SE_MSGID_LEN] = 0;
  return TRUE;
}
