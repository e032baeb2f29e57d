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
#include "se-name.h"

#include <string.h>

#define SE_NAME_HASHED_KEEP (SE_NAME_MAX - 9)

guint32
se_name_hash(const gchar *s, gsize len)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    {
      h ^= (guint8) s[i];
      h *= 16777619u;
    }
  return h;
}

static inline gchar
_map_char(gchar c)
{
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 'A';
  if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return c;
  return '_';
}

gsize
se_name_map(const gchar *prefix, gsize prefix_len, const gchar *name, gsize name_len, gchar *out)
{
  static const gchar hex[] = "0123456789ABCDEF";
  gsize start = 0;
  gsize len = 0;
  gboolean overflow = FALSE;

  /* leading '_' would make the field trusted (ignored by journald) */
  while (start < name_len && _map_char(name[start]) == '_')
    start++;

  memcpy(out, prefix, MIN(prefix_len, SE_NAME_MAX));
  len = MIN(prefix_len, SE_NAME_MAX);
  if (prefix_len == 0 && (start == name_len || (name[start] >= '0' && name[start] <= '9')))
    {
      out[len++] = 'F';
      out[len++] = '_';
    }

  for (gsize i = start; i < name_len; i++)
    {
      if (len == SE_NAME_MAX)
        {
          overflow = TRUE;
          break;
        }
      out[len++] = _map_char(name[i]);
    }

  if (overflow)
    {
      guint32 h = se_name_hash(name, name_len);

      len = SE_NAME_HASHED_KEEP;
      out[len++] = '_';
      for (gint shift = 28; shift >= 0; shift -= 4)
        out[len++] = hex[(h >> shift) & 0xf];
    }
  out[len] = 0;
  return len;
}

gboolean
se_name_is_valid(const gchar *name, gsize len)
{
  if (len == 0 || len > SE_NAME_MAX)
    return FALSE;
  if (name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      gchar c = name[i];
      if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
        return FALSE;
    }
  return TRUE;
}

gboolean
se_name_prefix_is_valid(const gchar *prefix)
{
  gsize len = strlen(prefix);

  if (len == 0)
    return TRUE;
  return len <= SE_NAME_PREFIX_MAX && se_name_is_valid(prefix, len);
}

gsize
se_name_add_suffix(gchar *name, gsize len, guint n)
{
  gchar suffix[16];
  gint suffix_len = g_snprintf(suffix, sizeof(suffix), "_%u", n);

  if (len + suffix_len > SE_NAME_MAX)
    len = SE_NAME_MAX - suffix_len;
  memcpy(name + len, suffix, suffix_len);
  len += suffix_len;
  name[len] = 0;
  return len;
}
