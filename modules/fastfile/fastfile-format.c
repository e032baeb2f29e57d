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
#include "fastfile-format.h"
#include "template/eval.h"
#include "timeutils/format.h"
#include "timeutils/zoneinfo.h"

#include <string.h>

gboolean
fastfile_formatter_init(FastFileFormatter *self, LogTemplate *template, const LogTemplateOptions *template_options,
                        const gchar *encoding, LineEnding line_ending, GError **error)
{
  memset(self, 0, sizeof(*self));
  self->encoder = line_encoder_new(encoding, line_ending, error);
  if (!self->encoder)
    return FALSE;

  self->template = template ? log_template_ref(template) : NULL;
  self->template_options = template_options;
  self->line_ending = line_encoder_get_line_ending(self->encoder, &self->line_ending_len);
  if (!line_encoder_is_utf8(self->encoder))
    self->scratch = g_string_sized_new(1024);
  self->stamp_cache.text = g_string_sized_new(64);
  return TRUE;
}

void
fastfile_formatter_destroy(FastFileFormatter *self)
{
  log_template_unref(self->template);
  if (self->encoder)
    line_encoder_free(self->encoder);
  if (self->scratch)
    g_string_free(self->scratch, TRUE);
  if (self->stamp_cache.text)
    g_string_free(self->stamp_cache.text, TRUE);
  memset(self, 0, sizeof(*self));
}

const guint8 *
fastfile_formatter_get_bom(const FastFileFormatter *self, gsize *len)
{
  return line_encoder_get_bom(self->encoder, len);
}

/* room for len more bytes (and the NUL after them) at the end of out */
static inline gchar *
_reserve(GString *out, gsize len)
{
  if (G_UNLIKELY(out->len + len >= out->allocated_len))
    {
      gsize old_len = out->len;
      g_string_set_size(out, old_len + len);
      out->len = old_len;
    }
  return out->str + out->len;
}

static inline void
_commit(GString *out, gchar *end)
{
  *end = 0;
  out->len = end - out->str;
}

static inline gchar *
_put(gchar *dest, const gchar *bytes, gsize len)
{
  memcpy(dest, bytes, len);
  return dest + len;
}

/* g_string_append_len() without its generality: this is the per-message path */
static inline void
_append_bytes(GString *out, const gchar *bytes, gsize len)
{
  _commit(out, _put(_reserve(out, len), bytes, len));
}

static const GString *
_stamp_text(FastFileFormatter *self, const UnixTime *stamp)
{
  const LogTemplateOptions *options = self->template_options;
  guint32 usec = options->frac_digits > 0 ? stamp->ut_usec : 0;

  if (!self->stamp_cache.valid || self->stamp_cache.sec != stamp->ut_sec
      || self->stamp_cache.usec != usec || self->stamp_cache.gmtoff != stamp->ut_gmtoff)
    {
      g_string_truncate(self->stamp_cache.text, 0);
      append_format_unix_time(stamp, self->stamp_cache.text, options->ts_format,
                              time_zone_info_get_offset(options->time_zone_info[LTZ_SEND], stamp->ut_sec),
                              options->frac_digits);
      self->stamp_cache.sec = stamp->ut_sec;
      self->stamp_cache.usec = usec;
      self->stamp_cache.gmtoff = stamp->ut_gmtoff;
      self->stamp_cache.valid = TRUE;
    }
  return self->stamp_cache.text;
}

/* file()'s built-in format (LogWriter, LW_FORMAT_FILE, no template) without
 * its closing newline, byte for byte: "$STAMP $HOST $MSGHDR$MESSAGE", where
 * an empty MSGHDR is rebuilt as "$PROGRAM[$PID]: ".  The values are looked
 * up first so that the line is reserved and copied in one go. */
static void
_append_default_format(FastFileFormatter *self, LogMessage *msg, GString *out)
{
  const GString *stamp = _stamp_text(self, &msg->timestamps[LM_TS_STAMP]);
  gssize host_len, msghdr_len, program_len = 0, pid_len = 0, message_len;
  const gchar *host = log_msg_get_value(msg, LM_V_HOST, &host_len);
  const gchar *msghdr = log_msg_get_value(msg, LM_V_LEGACY_MSGHDR, &msghdr_len);
  const gchar *program = NULL, *pid = NULL;

  if (msghdr_len == 0)
    {
      program = log_msg_get_value(msg, LM_V_PROGRAM, &program_len);
      if (program_len > 0)
        pid = log_msg_get_value(msg, LM_V_PID, &pid_len);
    }
  const gchar *message = log_msg_get_value(msg, LM_V_MESSAGE, &message_len);

  /* "[]" and ": " at most */
  gchar *p = _reserve(out, stamp->len + 1 + host_len + 1 + msghdr_len + program_len + pid_len + 4 + message_len);
  p = _put(p, stamp->str, stamp->len);
  *p++ = ' ';
  p = _put(p, host, host_len);
  *p++ = ' ';
  if (msghdr_len > 0)
    {
      p = _put(p, msghdr, msghdr_len);
    }
  else if (program_len > 0)
    {
      p = _put(p, program, program_len);
      if (pid_len > 0)
        {
          *p++ = '[';
          p = _put(p, pid, pid_len);
          *p++ = ']';
        }
      *p++ = ':';
      *p++ = ' ';
    }
  p = _put(p, message, message_len);
  _commit(out, p);
}

static void
_strip_trailing_newline(GString *text, gsize start)
{
  if (text->len > start && text->str[text->len - 1] == '\n')
    g_string_truncate(text, text->len - 1);
}

/* the line without its line ending; FALSE when it renders empty (file() writes nothing then) */
static gboolean
_append_line(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  if (!self->template)
    {
      _append_default_format(self, msg, out);
      return TRUE;
    }

  gsize start = out->len;
  LogTemplateEvalOptions options = { (LogTemplateOptions *) self->template_options, LTZ_SEND, seq_num, NULL, LM_VT_STRING };
  log_template_append_format(self->template, msg, &options, out);
  if (out->len == start)
    return FALSE;
  _strip_trailing_newline(out, start);
  return TRUE;
}

gboolean
fastfile_formatter_append(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  if (!self->scratch)
    {
      /* UTF-8: format straight into the batch buffer */
      if (!_append_line(self, msg, seq_num, out))
        return FALSE;
    }
  else
    {
      g_string_truncate(self->scratch, 0);
      if (!_append_line(self, msg, seq_num, self->scratch))
        return FALSE;
      line_encoder_append_text(self->encoder, self->scratch->str, self->scratch->len, out);
    }
  _append_bytes(out, (const gchar *) self->line_ending, self->line_ending_len);
  return TRUE;
}
