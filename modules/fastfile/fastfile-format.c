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
  memset(self, 0, sizeof(*self));
}

const guint8 *
fastfile_formatter_get_bom(const FastFileFormatter *self, gsize *len)
{
  return line_encoder_get_bom(self->encoder, len);
}

static void
_append_value(LogMessage *msg, NVHandle handle, GString *out)
{
  gssize len;
  const gchar *value = log_msg_get_value(msg, handle, &len);

  g_string_append_len(out, value, len);
}

/* file()'s built-in format (LogWriter, LW_FORMAT_FILE, no template): byte for byte */
static void
_append_default_format(FastFileFormatter *self, LogMessage *msg, GString *out)
{
  const UnixTime *stamp = &msg->timestamps[LM_TS_STAMP];
  const LogTemplateOptions *options = self->template_options;
  gssize len;

  append_format_unix_time(stamp, out, options->ts_format,
                          time_zone_info_get_offset(options->time_zone_info[LTZ_SEND], stamp->ut_sec),
                          options->frac_digits);
  g_string_append_c(out, ' ');
  _append_value(msg, LM_V_HOST, out);
  g_string_append_c(out, ' ');

  log_msg_get_value(msg, LM_V_LEGACY_MSGHDR, &len);
  if (len > 0)
    {
      _append_value(msg, LM_V_LEGACY_MSGHDR, out);
    }
  else
    {
      log_msg_get_value(msg, LM_V_PROGRAM, &len);
      if (len > 0)
        {
          _append_value(msg, LM_V_PROGRAM, out);
          log_msg_get_value(msg, LM_V_PID, &len);
          if (len > 0)
            {
              g_string_append_c(out, '[');
              _append_value(msg, LM_V_PID, out);
              g_string_append_c(out, ']');
            }
          g_string_append_len(out, ": ", 2);
        }
    }
  _append_value(msg, LM_V_MESSAGE, out);
  g_string_append_c(out, '\n');
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
  g_string_append_len(out, (const gchar *) self->line_ending, self->line_ending_len);
  return TRUE;
}
