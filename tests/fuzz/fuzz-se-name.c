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

/*
 * libFuzzer harness for the journald name mapper (modules/structured-event/se-name).
 * Input: [prefix length byte] [prefix] [name of any bytes and length].
 * Properties of every mapped name: only [A-Z0-9_], not starting with '_' or
 * a digit, 1..64 characters, se_name_is_valid() agrees, the mapping is
 * deterministic, and se_name_add_suffix() keeps all of that and gives a
 * different name for each suffix number.  (Distinct names in one event never colliding is checked by
 * fuzz-se-export, which sees the whole event.)
 */
#include "se-name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
_check(const gchar *what, const gchar *name, gsize len)
{
  gboolean ok = len >= 1 && len <= SE_NAME_MAX && name[0] != '_' && !(name[0] >= '0' && name[0] <= '9');

  for (gsize i = 0; ok && i < len; i++)
    ok = (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_';
  if (!ok || !se_name_is_valid(name, len))
    {
      fprintf(stderr, "PROPERTY VIOLATED: %s: invalid journal field name '%.*s' (%zu)\n", what, (int) len, name, len);
      abort();
    }
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
  static const gchar *prefixes[] = { "", "APP_", "X", "SNG_", "A_VERY_LONG_PREFIX_OF_32_CHARS_X" };
  gchar out[SE_NAME_MAX + 1 + 16];
  gchar again[SE_NAME_MAX + 1 + 16];

  if (size < 1)
    return 0;
  const gchar *prefix = prefixes[data[0] % G_N_ELEMENTS(prefixes)];
  gsize prefix_len = strlen(prefix);
  const gchar *name = (const gchar *) data + 1;
  gsize name_len = size - 1;

  g_assert(se_name_prefix_is_valid(prefix) || prefix_len == 0);
  memset(out, 0x55, sizeof(out));
  gsize len = se_name_map(prefix, prefix_len, name, name_len, out);
  _check("se_name_map", out, len);
  if (memcmp(out, prefix, prefix_len) != 0)
    {
      fprintf(stderr, "PROPERTY VIOLATED: prefix '%s' not kept\n", prefix);
      abort();
    }
  gsize len2 = se_name_map(prefix, prefix_len, name, name_len, again);
  if (len2 != len || memcmp(out, again, len) != 0)
    {
      fprintf(stderr, "PROPERTY VIOLATED: mapping is not deterministic\n");
      abort();
    }

  /* suffixes resolve collisions: each stays a valid name, and different
   * suffix numbers give different names (the builder tries n = 1, 2, ...) */
  gchar names[8][SE_NAME_MAX + 1 + 16];
  out[len] = '\0';
  for (guint n = 1; n <= 8; n++)
    {
      memcpy(names[n - 1], out, len + 1);
      gsize slen = se_name_add_suffix(names[n - 1], len, n * (1 + data[0] % 50));
      _check("se_name_add_suffix", names[n - 1], slen);
      names[n - 1][slen] = '\0';
      for (guint m = 1; m < n; m++)
        if (strcmp(names[m - 1], names[n - 1]) == 0)
          {
            fprintf(stderr, "PROPERTY VIOLATED: two suffix numbers give the same name '%s'\n", names[n - 1]);
            abort();
          }
    }
  return 0;
}
