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
#include "logmsg/type-hinting.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* typed scalars are short; anything longer cannot be a valid one */
#define SE_VALUE_SCALAR_MAX 128

const gchar *
se_value_type_name(LogMessageValueType type)
{
  switch (type)
    {
    case LM_VT_STRING:
      return "string";
    case LM_VT_JSON:
      return "json";
    case LM_VT_BOOLEAN:
      return "boolean";
    case LM_VT_INT32:
      return "int32";
    case LM_VT_INT64:
      return "int64";
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
_append_datetime(GString *out, gint64 msec)
{
  time_t secs = (time_t) (msec >= 0 ? msec / 1000 : -((-msec + 999) / 1000));
  gint ms = (gint) (msec - (gint64) secs * 1000);
  struct tm tm;
  gchar buf[64];

  gmtime_r(&secs, &tm);
  gint n = g_snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  g_string_append_len(out, buf, n);
}

LogMessageValueType
se_value_render(LogMessageValueType type, const gchar *value, gsize len, GString *out, gboolean *rendered)
{
  gchar scalar[SE_VALUE_SCALAR_MAX];

  *rendered = FALSE;
  switch (type)
    {
    case LM_VT_INT32:
    case LM_VT_INT64:
    case LM_VT_DOUBLE:
    case LM_VT_BOOLEAN:
    case LM_VT_DATETIME:
      break;
    case LM_VT_JSON:
    case LM_VT_LIST:
    case LM_VT_NULL:
      return type;
    default:
      return LM_VT_STRING;
    }

  if (len == 0 || len >= sizeof(scalar))
    return LM_VT_STRING;
  /* stored values may be slices of other values, without a terminating NUL */
  memcpy(scalar, value, len);
  scalar[len] = 0;

  switch (type)
    {
    case LM_VT_INT32:
    case LM_VT_INT64:
    {
      gint64 i;
      if (!type_cast_to_int64(scalar, &i, NULL))
        return LM_VT_STRING;
      gchar buf[32];
      gint n = g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, i);
      g_string_append_len(out, buf, n);
      break;
    }
    case LM_VT_DOUBLE:
    {
      gdouble d;
      if (!type_cast_to_double(scalar, &d, NULL))
        return LM_VT_STRING;
      _append_double(out, d);
      break;
    }
    case LM_VT_BOOLEAN:
    {
      gboolean b;
      if (!type_cast_to_boolean(scalar, &b, NULL))
        return LM_VT_STRING;
      g_string_append(out, b ? "true" : "false");
      break;
    }
    case LM_VT_DATETIME:
    {
      gint64 msec;
      if (!type_cast_to_datetime_msec(scalar, &msec, NULL))
        return LM_VT_STRING;
      _append_datetime(out, msec);
      break;
    }
    default:
      g_assert_not_reached();
    }
  *rendered = TRUE;
  return type;
}
