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
#include "fastfile-mark.h"

void
fastfile_marks_init(FastFileMarks *self, const FastFileMarkOptions *options)
{
  self->options = options;
  self->timed = options && options->freq > 0
                && (options->mode == MM_DST_IDLE || options->mode == MM_HOST_IDLE || options->mode == MM_PERIODICAL);
  g_queue_init(&self->scheduled);
}

void
fastfile_marks_destroy(FastFileMarks *self)
{
  /* the slots belong to the files, which are gone by now */
  g_assert(self->scheduled.length == 0);
}

static void
_schedule(FastFileMarks *self, FastFileMarkSlot *slot, gint64 due)
{
  slot->due = due;
  if (!slot->scheduled)
    {
      slot->link.data = slot;
      g_queue_push_tail_link(&self->scheduled, &slot->link);
      slot->scheduled = &self->scheduled;
    }
}

void
fastfile_mark_slot_clear(FastFileMarkSlot *slot)
{
  if (slot->scheduled)
    {
      g_queue_unlink(slot->scheduled, &slot->link);
      slot->scheduled = NULL;
    }
}

void
fastfile_marks_note_message(FastFileMarks *self, FastFileMarkSlot *slot, LogMessage *msg, gint64 now)
{
  if (!self->timed)
    return;

  switch (self->options->mode)
    {
    case MM_HOST_IDLE:
      /* only what comes from other hosts keeps the MARK away */
      if (msg->flags & LF_LOCAL)
        break;
    /* fallthrough */
    case MM_DST_IDLE:
      _schedule(self, slot, now + self->options->freq);
      break;
    case MM_PERIODICAL:
      /* from the file's first message on, as file() starts them with the file's writer */
      if (!slot->scheduled)
        _schedule(self, slot, now + self->options->freq);
      break;
    default:
      break;
    }
}

/* file()'s MARK: an internal message, "-- MARK --", syslog.info, with the
 * local host name as the host-resolve options give it */
static LogMessage *
_new_mark(FastFileMarks *self)
{
  LogMessage *mark = log_msg_new_mark();
  gsize len;
  const gchar *host = resolve_sockaddr_to_hostname(&len, mark->saddr, &self->options->host_resolve_options);

  log_msg_set_value(mark, LM_V_HOST, host, len);
  return mark;
}

void
fastfile_marks_take_due(FastFileMarks *self, gint64 now,
                        void (*fn)(FastFileMarkSlot *slot, LogMessage *mark, gpointer user_data),
                        gpointer user_data)
{
  GList *link = self->scheduled.head;

  while (link)
    {
      GList *next = link->next;
      FastFileMarkSlot *slot = link->data;

      if (slot->due <= now)
        {
          /* every mode goes on while nothing comes */
          slot->due = now + self->options->freq;
          fn(slot, _new_mark(self), user_data);
        }
      link = next;
    }
}
