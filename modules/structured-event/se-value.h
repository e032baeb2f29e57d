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
#include "compat-logmsg.h"

/*
 * syslog-ng's typed name-value pairs (LM_VT_*), read once: a value a parser
 * or a type hint typed is converted with syslog-ng's own casts
 * (type_cast_to_*()) into its binary value, which the event carries for
 * sinks with native types (CTF), together with its canonical text for the
 * journal:
 *   integer (int32, int64)  decimal, e.g. "-42" (a stored "+042" becomes "42")
 *   double        shortest of %.15g/%.16g/%.17g that reads back exactly
 *   boolean       "true" or "false" (syslog-ng reads t/T/1 and f/F/0)
 *   datetime      RFC 3339 in UTC, "2023-11-14T22:13:20.123Z": milliseconds,
 *                 or microseconds when the value has them (4.x keeps them,
 *                 3.38's cast stops at milliseconds)
 *   null          empty
 *   string, json, list, bytes (4.x)  unchanged
 * A value that does not cast to its declared type (or an integer beyond
 * int64) is sent unchanged and reported as a string.
 */
typedef union _SeValue
{
  gint64 integer;
  gdouble real;
  gboolean boolean;
  struct
  {
    gint64 sec;
    gint32 usec;             /* 0 .. 999999, also before the epoch */
  } datetime;
} SeValue;

/* integer (int32 or int64 on 3.38, integer on 4.x) */
static inline gboolean
se_value_type_is_integer(LogMessageValueType type)
{
  return type == FD_LM_VT_INTEGER || type == FD_LM_VT_INT32;
}

/*
 * Converts value (not necessarily NUL terminated) of the given type: the
 * binary value into *typed, the canonical text appended to out (*rendered
 * set) when it differs from the stored bytes, which are used as they are
 * otherwise.  Returns the type to report for the value.
 */
LogMessageValueType se_value_convert(LogMessageValueType type, const gchar *value, gsize len,
                                     SeValue *typed, GString *out, gboolean *rendered);

/* the name used in SNG_FIELD_TYPES: "int64", "double", "boolean", "datetime", "null", "list", "json"... */
const gchar *se_value_type_name(LogMessageValueType type);

#endif
