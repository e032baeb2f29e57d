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
#ifndef SE_NAME_H_INCLUDED
#define SE_NAME_H_INCLUDED

#include <glib.h>

/*
 * Maps syslog-ng name-value pair names to journal field names.
 *
 * journald accepts [A-Z0-9_], at most 64 characters, not starting with a
 * digit; a leading '_' marks trusted fields that it ignores from clients.
 * The mapping is deterministic: lower case letters are upper-cased, every
 * other byte outside [A-Z0-9_] becomes '_', leading '_' are stripped, and a
 * name that would be empty or start with a digit gets "F_" in front (unless
 * a prefix is set).  A name longer than 64 characters keeps its first 55
 * characters followed by '_' and 8 hex digits of the FNV-1a 32 hash of the
 * original (unmapped) name, so different long names stay different.
 */
#define SE_NAME_MAX 64
#define SE_NAME_PREFIX_MAX 32

/* out must have room for SE_NAME_MAX + 1 bytes; returns the mapped length */
gsize se_name_map(const gchar *prefix, gsize prefix_len, const gchar *name, gsize name_len, gchar *out);

/* TRUE when name is a valid client field name for journald */
gboolean se_name_is_valid(const gchar *name, gsize len);
/* a prefix must itself be a valid name of at most SE_NAME_PREFIX_MAX characters; "" is valid */
gboolean se_name_prefix_is_valid(const gchar *prefix);

/* FNV-1a, 32 bits */
guint32 se_name_hash(const gchar *s, gsize len);

/*
 * Makes a colliding name unique: appends "_<n>" (n >= 2), shortening the
 * name first if needed to stay within SE_NAME_MAX.  name has room for
 * SE_NAME_MAX + 1 bytes; returns the new length.
 */
gsize se_name_add_suffix(gchar *name, gsize len, guint n);

#endif
