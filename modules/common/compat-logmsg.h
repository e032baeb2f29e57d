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
#ifndef FASTDEST_COMPAT_LOGMSG_H_INCLUDED
#define FASTDEST_COMPAT_LOGMSG_H_INCLUDED

#include "compat-version.h"
#include "logmsg/logmsg.h"
#include "logmsg/type-hinting.h"
#include "value-pairs/value-pairs.h"
#include "value-pairs/internals.h"

#include <string.h>

/*
 * syslog-ng's typed name-value pairs.  3.38 has int32 and int64; 4.0 made
 * them one LM_VT_INTEGER (the old int64 value) and added bytes and protobuf,
 * binary values that value-pairs() leaves out unless include-bytes(yes).
 * FD_LM_VT_INT32 exists on 4.x only in messages a 3.x disk-buffer wrote.
 */
#if FD_SYSLOG_NG_4X
#define FD_LM_VT_INT32 __COMPAT_LM_VT_INT32
#define FD_LM_VT_INTEGER LM_VT_INTEGER
#else
#define FD_LM_VT_INT32 LM_VT_INT32
#define FD_LM_VT_INTEGER LM_VT_INT64
#endif

/* bytes() and protobuf() values (4.x): opaque binary, never text */
static inline gboolean
fd_lm_vt_is_binary(LogMessageValueType type)
{
#if FD_SYSLOG_NG_4X
  return type == LM_VT_BYTES || type == LM_VT_PROTOBUF;
#else
  return FALSE;
#endif
}

/* whether value-pairs() passes binary values on (include-bytes(), 4.x) */
static inline gboolean
fd_value_pairs_include_bytes(const ValuePairs *vp)
{
#if FD_SYSLOG_NG_4X
  return vp->include_bytes;
#else
  return FALSE;
#endif
}

/*
 * syslog-ng's own casts of a stored value (not necessarily NUL terminated)
 * to its type.  4.x takes the length; 3.38 needs a terminated copy, and its
 * datetime cast stops at milliseconds.  A datetime is seconds and
 * microseconds since the epoch.
 */
#define FD_CAST_MAX 128

#if FD_SYSLOG_NG_4X
#define FD_CAST_ARGS(value, len) (value), (gssize) (len)
#else
#define FD_CAST_ARGS(value, len) _fd_cast_terminated(value, len, (gchar[FD_CAST_MAX]) { 0 })

static inline const gchar *
_fd_cast_terminated(const gchar *value, gsize len, gchar *buf)
{
  /* too long for any valid scalar: an empty string fails every cast */
  if (len >= FD_CAST_MAX)
    len = 0;
  memcpy(buf, value, len);
  buf[len] = 0;
  return buf;
}
#endif

static inline gboolean
fd_cast_to_int64(const gchar *value, gsize len, gint64 *out)
{
  return type_cast_to_int64(FD_CAST_ARGS(value, len), out, NULL);
}

static inline gboolean
fd_cast_to_double(const gchar *value, gsize len, gdouble *out)
{
  return type_cast_to_double(FD_CAST_ARGS(value, len), out, NULL);
}

static inline gboolean
fd_cast_to_boolean(const gchar *value, gsize len, gboolean *out)
{
  return type_cast_to_boolean(FD_CAST_ARGS(value, len), out, NULL);
}

static inline gboolean
fd_cast_to_datetime(const gchar *value, gsize len, gint64 *sec, gint32 *usec)
{
#if FD_SYSLOG_NG_4X
  UnixTime ut;

  if (!type_cast_to_datetime_unixtime(value, (gssize) len, &ut, NULL))
    return FALSE;
  *sec = ut.ut_sec;
  *usec = (gint32) ut.ut_usec;
#else
  gint64 msec;

  if (!type_cast_to_datetime_msec(FD_CAST_ARGS(value, len), &msec, NULL))
    return FALSE;
  /* floor division: -1 ms is second -1 plus 999000 us */
  *sec = msec >= 0 ? msec / 1000 : -((-msec + 999) / 1000);
  *usec = (gint32) (msec - *sec * 1000) * 1000;
#endif
  return TRUE;
}

#endif
