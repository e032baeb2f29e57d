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

/* g_string_append_len() without its generality: this is the per-message path */
static inline void
_append_bytes(GString *out, const gchar *bytes, gsize len)
{
  if (G_UNLIKELY(out->len + len >= out->allocated_len))
    {
      gsize old_len = out->len;
      g_string_set_size(out, old_len + len);
      g_string_truncate(out, old_len);
    }
  memcpy(out->str + out->len, bytes, len);
  out->len += len;
  out->str[out->len] = 0;
}

static inline gssize
_append_value(LogMessage *msg, NVHandle handle, GString *out)
{
  gssize len;
  const gchar *value = log_msg_get_value(msg, handle, &len);

  _append_bytes(out, value, len);
  return len;
}

static void
_append_stamp(FastFileFormatter *self, const UnixTime *stamp, GString *out)
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
  _append_bytes(out, self->stamp_cache.text->str, self->stamp_cache.text->len);
}

/* file()'s built-in format (LogWriter, LW_FORMAT_FILE, no template): byte for byte */
static void
_append_default_format(FastFileFormatter *self, LogMessage *msg, GString *out)
{
  gssize len;

  _append_stamp(self, &msg->timestamps[LM_TS_STAMP], out);
  _append_bytes(out, " ", 1);
  _append_value(msg, LM_V_HOST, out);
  _append_bytes(out, " ", 1);

  const gchar *msghdr = log_msg_get_value(msg, LM_V_LEGACY_MSGHDR, &len);
  if (len > 0)
    {
      _append_bytes(out, msghdr, len);
    }
  else if (_append_value(msg, LM_V_PROGRAM, out) > 0)
    {
      const gchar *pid = log_msg_get_value(msg, LM_V_PID, &len);
      if (len > 0)
        {
          _append_bytes(out, "[", 1);
          _append_bytes(out, pid, len);
          _append_bytes(out, "]", 1);
        }
      _append_bytes(out, ": ", 2);
    }
  _append_value(msg, LM_V_MESSAGE, out);
  _append_bytes(out, "\n", 1);
}

static void
_append_text(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  if (!self->template)
    {
      _append_default_format(self, msg, out);
      return;
    }

  LogTemplateEvalOptions options = { (LogTemplateOptions *) self->template_options, LTZ_SEND, seq_num, NULL, LM_VT_STRING };
  log_template_append_format(self->template, msg, &options, out);
}

static gsize
_strip_trailing_newline(GString *text, gsize start)
{
  if (text->len > start && text->str[text->len - 1] == '\n')
    g_string_truncate(text, text->len - 1);
  return text->len - start;
}

gboolean
fastfile_formatter_append(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  gsize start = out->len;

  if (!self->scratch)
    {
      /* UTF-8: format straight into the batch buffer */
      _append_text(self, msg, seq_num, out);
      if (out->len == start)
        return FALSE;
      _strip_trailing_newline(out, start);
    }
  else
    {
      g_string_truncate(self->scratch, 0);
      _append_text(self, msg, seq_num, self->scratch);
      if (self->scratch->len == 0)
        return FALSE;
      _strip_trailing_newline(self->scratch, 0);
      line_encoder_append_text(self->encoder, self->scratch->str, self->scratch->len, out);
    }
  _append_bytes(out, (const gchar *) self->line_ending, self->line_ending_len);
  return TRUE;
}
