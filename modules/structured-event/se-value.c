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
#include "se-value.h"

#include <errno.h>
#include <string.h>
#include <time.h>

const gchar *
se_value_type_name(LogMessageValueType type)
{
  if (type == FD_LM_VT_INT32)
    return "int32";
  if (type == FD_LM_VT_INTEGER)
    return "int64";
  if (fd_lm_vt_is_binary(type))
    return "bytes";

  switch (type)
    {
    case LM_VT_JSON:
      return "json";
    case LM_VT_BOOLEAN:
      return "boolean";
    case LM_VT_DOUBLE:
      return "double";
    case LM_VT_DATETIME:
      return "datetime";
    case LM_VT_LIST:
      return "list";
    case LM_VT_NULL:
      return "null";
    default:
      return "string";
    }
}

static void
_append_double(GString *out, gdouble d)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (gint precision = 15; precision <= 17; precision++)
    {
      gchar fmt[8];

      g_snprintf(fmt, sizeof(fmt), "%%.%dg", precision);
      g_ascii_formatd(buf, sizeof(buf), fmt, d);
      if (precision == 17 || g_ascii_strtod(buf, NULL) == d)
        break;
    }
  g_string_append(out, buf);
}

static void
_append_datetime(GString *out, gint64 sec, gint32 usec)
{
  time_t t = (time_t) sec;
  struct tm tm;
  gchar buf[64];
  gint n;

  gmtime_r(&t, &tm);
  n = g_snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (usec % 1000 == 0)
    n += g_snprintf(buf + n, sizeof(buf) - n, ".%03dZ", usec / 1000);
  else
    n += g_snprintf(buf + n, sizeof(buf) - n, ".%06dZ", usec);
  g_string_append_len(out, buf, n);
}

static gboolean
_convert_integer(const gchar *value, gsize len, gint64 *out)
{
  /* syslog-ng's cast clamps what does not fit (strtoll): such a value keeps its text */
  errno = 0;
  return fd_cast_to_int64(value, len, out) && errno != ERANGE;
}

LogMessageValueType
se_value_convert(LogMessageValueType type, const gchar *value, gsize len, SeValue *typed, GString *out,
                 gboolean *rendered)
{
  *rendered = FALSE;
  memset(typed, 0, sizeof(*typed));

  /* the casts would stop at a NUL and take what precedes it for the whole value */
  if ((se_value_type_is_integer(type) || type == LM_VT_DOUBLE || type == LM_VT_BOOLEAN || type == LM_VT_DATETIME)
      && memchr(value, 0, len))
    return LM_VT_STRING;

  if (se_value_type_is_integer(type))
    {
      gchar buf[32];

      if (!_convert_integer(value, len, &typed->integer))
        return LM_VT_STRING;
      g_string_append_len(out, buf, g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, typed->integer));
      *rendered = TRUE;
      return type;
    }
  if (fd_lm_vt_is_binary(type))
    return type;

  switch (type)
    {
    case LM_VT_DOUBLE:
      if (!fd_cast_to_double(value, len, &typed->real))
        return LM_VT_STRING;
      _append_double(out, typed->real);
      break;
    case LM_VT_BOOLEAN:
      if (!fd_cast_to_boolean(value, len, &typed->boolean))
        return LM_VT_STRING;
      g_string_append(out, typed->boolean ? "true" : "false");
      break;
    case LM_VT_DATETIME:
      if (!fd_cast_to_datetime(value, len, &typed->datetime.sec, &typed->datetime.usec))
        return LM_VT_STRING;
      _append_datetime(out, typed->datetime.sec, typed->datetime.usec);
      break;
    case LM_VT_NULL:
      /* json-parser's null: no value, whatever text it left */
      break;
    case LM_VT_JSON:
    case LM_VT_LIST:
      return type;
    default:
      return LM_VT_STRING;
    }
  *rendered = TRUE;
  return type;
}
