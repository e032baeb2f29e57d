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
#ifndef TEST_SE_UTIL_H_INCLUDED
#define TEST_SE_UTIL_H_INCLUDED

/* helpers shared by the structured-event unit tests */
#include "testutil.h"
#include "apphook.h"
#include "cfg.h"
#include "logmsg/logmsg.h"
#include "value-pairs/value-pairs.h"
#include "se-event.h"
#include "se-sink.h"

static GlobalConfig *se_test_cfg;

static inline int
se_test_startup(void)
{
  app_startup();
  se_test_cfg = cfg_new_snippet();
  return 0;
}

static inline int
se_test_shutdown(void)
{
  cfg_free(se_test_cfg);
  app_shutdown();
  return 0;
}

/* user.notice from app[42] on h1, 2023-11-14T23:13:20.123456+01:00 */
static inline LogMessage *
se_test_message(const gchar *text)
{
  LogMessage *msg = log_msg_new_empty();

  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "app", -1);
  log_msg_set_value(msg, LM_V_PID, "42", -1);
  log_msg_set_value(msg, LM_V_HOST, "h1", -1);
  msg->pri = (1 << 3) | 5;
  msg->timestamps[LM_TS_STAMP].ut_sec = 1700000000;
  msg->timestamps[LM_TS_STAMP].ut_usec = 123456;
  msg->timestamps[LM_TS_STAMP].ut_gmtoff = 3600;
  return msg;
}

/* value-pairs(scope(...)) followed by exclude() patterns, NULL-terminated lists */
static inline ValuePairs *
se_test_value_pairs(const gchar *scope, const gchar *exclude)
{
  ValuePairs *vp = value_pairs_new(se_test_cfg);

  value_pairs_add_scope(vp, scope);
  if (exclude)
    value_pairs_add_glob_pattern(vp, exclude, FALSE);
  return vp;
}

static inline const SeField *
se_test_find(const SeEvent *event, const gchar *name)
{
  for (guint i = 0; i < event->n_fields; i++)
    if (event->fields[i].name_len == strlen(name) && memcmp(event->fields[i].name, name, strlen(name)) == 0)
      return &event->fields[i];
  return NULL;
}

static inline gboolean
se_test_field_is(const SeEvent *event, const gchar *name, const gchar *value, gsize len)
{
  const SeField *f = se_test_find(event, name);

  if (!f)
    {
      fprintf(stderr, "\n    field %s missing\n", name);
      return FALSE;
    }
  return testutil_bytes_equal((const guint8 *) f->value, f->value_len, (const guint8 *) value, len);
}

/* what the sinks of a test settle: se_test_attach() a sink, then drive it with se_test_emit() and se_test_flush() */
static SeSinkTally se_test_tally;

static inline SeSink *
se_test_attach(SeSink *sink)
{
  se_sink_tally_attach(sink, &se_test_tally);
  return sink;
}

/* emit(); *delivered: the events it reported delivered */
static inline SeSinkResult
se_test_emit(SeSink *sink, const SeEvent *event, guint *delivered)
{
  guint64 before = se_test_tally.delivered;
  SeSinkResult r = se_sink_emit(sink, event);

  *delivered = (guint) (se_test_tally.delivered - before);
  return r;
}

static inline SeSinkResult
se_test_flush(SeSink *sink, guint *delivered)
{
  guint64 before = se_test_tally.delivered;
  SeSinkResult r = se_sink_flush(sink);

  *delivered = (guint) (se_test_tally.delivered - before);
  return r;
}

#endif
