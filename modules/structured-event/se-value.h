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
#ifndef SE_VALUE_H_INCLUDED
#define SE_VALUE_H_INCLUDED

#include "syslog-ng.h"
#include "logmsg/logmsg.h"

/*
 * Canonical text of typed name-value pairs (syslog-ng's LM_VT_* types):
 *   int32, int64  decimal, e.g. "-42" (a stored "+042" becomes "42")
 *   double        shortest of %.15g/%.16g/%.17g that reads back exactly
 *   boolean       "true" or "false" (syslog-ng reads t/T/1 and f/F/0)
 *   datetime      RFC 3339 in UTC with milliseconds, "2023-11-14T22:13:20.123Z"
 *   string, json, list  unchanged
 * Parsing uses syslog-ng's own casts (type_cast_to_*()).  A value that
 * does not parse as its declared type is sent unchanged and
 * reported as a string.
 */

/*
 * Renders value (not necessarily NUL terminated) of the given type.  When a
 * canonical form differs from the stored bytes it is appended to out and
 * *rendered is set; otherwise the stored bytes are to be used as they are.
 * Returns the type to report for the value.
 */
LogMessageValueType se_value_render(LogMessageValueType type, const gchar *value, gsize len,
                                    GString *out, gboolean *rendered);

/* the name used in SNG_FIELD_TYPES: "int64", "double", "boolean", "datetime", "list", "json"... */
const gchar *se_value_type_name(LogMessageValueType type);

#endif
