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
#include "fastfile-suppress.h"
#include "hostname.h"

#include <string.h>

void
fastfile_suppress_init(FastFileSuppress *self, const FastFileSuppressOptions *options)
{
  self->options = options;
  g_queue_init(&self->pending);
}

void
fastfile_suppress_destroy(FastFileSuppress *self)
{
  /* the slots belong to the files, which are gone by now */
  g_assert(self->pending.length == 0);
}

static void
_unlink(FastFileSuppressSlot *slot)
{
  if (slot->pending)
    {
      g_queue_unlink(slot->pending, &slot->link);
      slot->pending = NULL;
    }
}

static void
_forget_last(FastFileSuppressSlot *slot)
{
  _unlink(slot);
  if (slot->last)
    log_msg_unref(slot->last);
  slot->last = NULL;
  slot->repeats = 0;
}

void
fastfile_suppress_slot_clear(FastFileSuppressSlot *slot)
{
  _forget_last(slot);
}

/* as file() tells a MARK: the text is "-- MARK --" or a beginning of it
 * (an empty text too), compared as strncmp() does */
static gboolean
_is_mark(LogMessage *msg)
{
  gssize len;
  const gchar *text = log_msg_get_value(msg, LM_V_MESSAGE, &len);

  return strncmp(text, "-- MARK --", len) == 0;
}

static gboolean
_same_value(LogMessage *a, LogMessage *b, NVHandle handle)
{
  return strcmp(log_msg_get_value(a, handle, NULL), log_msg_get_value(b, handle, NULL)) == 0;
}

static gboolean
_is_repeat(FastFileSuppress *self, LogMessage *last, LogMessage *msg)
{
  /* received within the window that the file's last message opened */
  if (last->timestamps[LM_TS_RECVD].ut_sec < msg->timestamps[LM_TS_RECVD].ut_sec - self->options->seconds)
    return FALSE;
  return _same_value(last, msg, LM_V_MESSAGE) && _same_value(last, msg, LM_V_HOST)
         && _same_value(last, msg, LM_V_PROGRAM) && _same_value(last, msg, LM_V_PID)
         && !_is_mark(msg);
}

/* file()'s summary: an internal message with the last message's priority,
 * host and program */
static LogMessage *
_summary(FastFileSuppressSlot *slot)
{
  gchar text[1024];
  gssize len;

  g_snprintf(text, sizeof(text), "Last message '%.20s' repeated %u times, suppressed by syslog-ng on %s",
             log_msg_get_value(slot->last, LM_V_MESSAGE, NULL), slot->repeats, get_local_hostname_fqdn());

  LogMessage *summary = log_msg_new_internal(slot->last->pri, text);
  const gchar *value = log_msg_get_value(slot->last, LM_V_HOST, &len);
  log_msg_set_value(summary, LM_V_HOST, value, len);
  value = log_msg_get_value(slot->last, LM_V_PROGRAM, &len);
  log_msg_set_value(summary, LM_V_PROGRAM, value, len);
  return summary;
}

gboolean
fastfile_suppress_check(FastFileSuppress *self, FastFileSuppressSlot *slot, LogMessage *msg, gint64 now,
                        LogMessage **summary)
{
  *summary = NULL;
  if (!fastfile_suppress_enabled(self))
    return FALSE;

  if (slot->last && _is_repeat(self, slot->last, msg))
    {
      stats_counter_inc(self->options->suppressed);
      if (slot->repeats++ == 0)
        {
          slot->due = now + self->options->seconds;
          slot->link.data = slot;
          g_queue_push_tail_link(&self->pending, &slot->link);
          slot->pending = &self->pending;
        }
      return TRUE;
    }

  if (slot->repeats)
    *summary = _summary(slot);
  _forget_last(slot);
  slot->last = log_msg_ref(msg);
  return FALSE;
}

void
fastfile_suppress_take_due(FastFileSuppress *self, gint64 now,
                           void (*fn)(FastFileSuppressSlot *slot, LogMessage *summary, gpointer user_data),
                           gpointer user_data)
{
  GList *link = self->pending.head;

  while (link)
    {
      GList *next = link->next;
      FastFileSuppressSlot *slot = link->data;

      if (slot->due <= now)
        {
          LogMessage *summary = _summary(slot);

          /* after a summary file() starts over: the next message is written whatever it is */
          _forget_last(slot);
          fn(slot, summary, user_data);
        }
      link = next;
    }
}
