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
#include "template/repr.h"
#include "template/macros.h"
#include "timeutils/format.h"
#include "timeutils/zoneinfo.h"
#include "messages.h"
#include "str-format.h"

#include <stdlib.h>
#include <string.h>

static const FastFileRecordOptions no_record_options =
{
  .truncate_size = -1,
};

gboolean
fastfile_formatter_init(FastFileFormatter *self, LogTemplate *template, const LogTemplateOptions *template_options,
                        const FastFileRecordOptions *record, const gchar *encoding, LineEnding line_ending,
                        GError **error)
{
  memset(self, 0, sizeof(*self));
  self->encoder = line_encoder_new(encoding, line_ending, error);
  if (!self->encoder)
    return FALSE;

  self->template = template ? log_template_ref(template) : NULL;
  self->template_options = template_options;
  self->record = record ? record : &no_record_options;
  self->reshape = self->record->pad_size > 0 || self->record->no_multi_line || self->record->truncate_size >= 0;
  self->meta_sequence_id = log_msg_get_value_handle(".SDATA.meta.sequenceId");
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

/* pad-size(): only file()'s own formats are padded */
static gboolean
_padded(const FastFileFormatter *self)
{
  return self->record->pad_size > 0 && (self->record->syslog_protocol || !self->template);
}

const LineEncoder *
fastfile_formatter_get_lines(const FastFileFormatter *self)
{
  if (self->line_ending_len == 0 || _padded(self) || self->record->truncate_size >= 0)
    return NULL;
  return self->encoder;
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

static gboolean
_strip_trailing_newline(GString *text, gsize start)
{
  if (text->len > start && text->str[text->len - 1] == '\n')
    {
      g_string_truncate(text, text->len - 1);
      return TRUE;
    }
  return FALSE;
}

/* whether a template may read ${SEQNUM}: a ${SEQNUM} macro, or any template function (its
 * arguments are templates of their own, and some read every macro, as format-json
 * --scope all-macros does) */
gboolean
fastfile_template_reads_seq_num(const LogTemplate *template)
{
  if (!template)
    return FALSE;
  for (GList *l = template->compiled_template; l; l = l->next)
    {
      const LogTemplateElem *e = l->data;

      if (e->type == LTE_FUNC || (e->type == LTE_MACRO && e->macro == M_SEQNUM))
        return TRUE;
    }
  return FALSE;
}

/* the number file() gives a record for $SEQNUM and the RFC 5424 meta
 * sequenceId: the destination's own for a local message (4.x
 * flags(seqnum-all): for every message), the sender's meta.sequenceId for
 * any other; none with 4.x flags(no-seqnum) */
static gint32
_record_seq_num(FastFileFormatter *self, LogMessage *msg, gint32 seq_num)
{
  gssize len;
  gchar digits[32];

  if (self->record && self->record->no_seq_num)
    return 0;
  if (fastfile_record_takes_seq_num(self->record, msg))
    return seq_num;
  /* meta.sequenceId is structured data: none without any (RFC 3164 traffic) */
  if (msg->num_sdata == 0)
    return 0;
  const gchar *value = log_msg_get_value(msg, self->meta_sequence_id, &len);
  if (len <= 0)
    return 0;
  len = MIN(len, (gssize) sizeof(digits) - 1);
  memcpy(digits, value, len);
  digits[len] = 0;
  return (gint32) strtol(digits, NULL, 10);
}

/* an RFC 5424 header field: up to its first space, "-" when empty */
static void
_append_header_field(GString *out, LogMessage *msg, NVHandle handle)
{
  gssize len;
  const gchar *value = log_msg_get_value(msg, handle, &len);

  if (len == 0)
    {
      g_string_append_len(out, "- ", 2);
      return;
    }
  /* a NUL ends the search as it ends file()'s strchr() */
  const gchar *space = memchr(value, ' ', strnlen(value, len));
  g_string_append_len(out, value, space ? space - value : len);
  g_string_append_c(out, ' ');
}

static void
_append_utf8_bom_if_flagged(GString *out, LogMessage *msg)
{
  if (msg->flags & LF_UTF8)
    g_string_append_len(out, "\xEF\xBB\xBF", 3);
}

/* flags(syslog-protocol): file()'s RFC 5424 line (version 1, ISO time stamp
 * in time-zone() with frac-digits(), structured data with the meta
 * sequenceId of local messages), template() being the MSG part */
static void
_append_syslog_protocol(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  const LogTemplateOptions *options = self->template_options;
  const UnixTime *stamp = &msg->timestamps[LM_TS_STAMP];

  g_string_append_c(out, '<');
  format_uint32_padded(out, 0, 0, 10, msg->pri);
  g_string_append_len(out, ">1 ", 3);
  append_format_unix_time(stamp, out, TS_FMT_ISO,
                          time_zone_info_get_offset(options->time_zone_info[LTZ_SEND], stamp->ut_sec),
                          options->frac_digits);
  g_string_append_c(out, ' ');
  _append_header_field(out, msg, LM_V_HOST);
  _append_header_field(out, msg, LM_V_PROGRAM);
  _append_header_field(out, msg, LM_V_PID);
  _append_header_field(out, msg, LM_V_MSGID);

  gsize sdata_start = out->len;
  log_msg_append_format_sdata(msg, out, seq_num);
  if (out->len == sdata_start)
    g_string_append_c(out, '-');
  g_string_append_c(out, ' ');

  if (self->template)
    {
      LogTemplateEvalOptions eval_options = { (LogTemplateOptions *) options, LTZ_SEND, seq_num, NULL, LM_VT_STRING };

      _append_utf8_bom_if_flagged(out, msg);
      log_template_append_format(self->template, msg, &eval_options, out);
      return;
    }

  gssize len;
  const gchar *text = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  if (len > 0)
    {
      _append_utf8_bom_if_flagged(out, msg);
      g_string_append_len(out, text, len);
    }
}

/* the line without its line ending; *newline: file()'s record would end in
 * "\n" (its own formats always do; a template when it wrote one, which is
 * not part of the line).  FALSE when it renders empty (file() writes nothing
 * then). */
static gboolean
_append_line(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out, gboolean *newline)
{
  *newline = TRUE;
  if (G_UNLIKELY(self->record->syslog_protocol))
    {
      _append_syslog_protocol(self, msg, _record_seq_num(self, msg, seq_num), out);
      return TRUE;
    }
  if (!self->template)
    {
      _append_default_format(self, msg, out);
      return TRUE;
    }

  gsize start = out->len;
  LogTemplateEvalOptions options = { (LogTemplateOptions *) self->template_options, LTZ_SEND,
                                     _record_seq_num(self, msg, seq_num), NULL, LM_VT_STRING
                                   };
  log_template_append_format(self->template, msg, &options, out);
  if (out->len == start)
    return FALSE;
  *newline = _strip_trailing_newline(out, start);
  return TRUE;
}

/* file() warns for every message; a flood of them says no more than one a second */
static void
_warn_padding_too_small(FastFileFormatter *self, gsize record_len)
{
  gint64 now = g_get_monotonic_time() / G_USEC_PER_SEC;

  if (now == self->padding_warning.last_report)
    {
      self->padding_warning.suppressed++;
      return;
    }
  msg_warning("Padding is too small to hold the full message",
              evt_tag_int("padding", self->record->pad_size),
              evt_tag_long("msg_size", (glong) record_len),
              evt_tag_str("driver", self->record->driver_id ? self->record->driver_id : ""),
              evt_tag_int("suppressed_since_last_report", self->padding_warning.suppressed));
  self->padding_warning.last_report = now;
  self->padding_warning.suppressed = 0;
}

/* pad-size(): file() pads the record with NULs to the size (its "\n"
 * becomes one of them; file() leaves the very last byte unset, here it is a
 * NUL too), or cuts it to the size */
static void
_pad(FastFileFormatter *self, GString *text, gsize start, gboolean *newline)
{
  gsize pad = self->record->pad_size;
  gsize line_len = text->len - start;
  gsize record_len = line_len + (*newline ? 1 : 0);

  if (pad == record_len)
    return;
  if (pad < record_len)
    {
      _warn_padding_too_small(self, record_len);
      g_string_truncate(text, start + MIN(pad, line_len));
    }
  else
    {
      g_string_set_size(text, start + pad);
      memset(text->str + start + line_len, 0, pad - line_len);
    }
  *newline = FALSE;
}

/* flags(no-multi-line): CR, LF and NUL become spaces in all of the record
 * but its last byte (its "\n" when it has one) */
static void
_join_lines(GString *text, gsize start, gboolean newline)
{
  gsize n = text->len - start;

  if (!newline && n > 0)
    n--;
  for (gchar *p = text->str + start, *end = p + n; p < end; p++)
    {
      if (*p == '\r' || *p == '\n' || *p == 0)
        *p = ' ';
    }
}

/* truncate-size(): the record cut to the size, counted in
 * truncated_count/truncated_bytes */
static void
_truncate(FastFileFormatter *self, GString *text, gsize start, gboolean *newline)
{
  gsize limit = self->record->truncate_size;
  gsize line_len = text->len - start;
  gsize record_len = line_len + (*newline ? 1 : 0);

  if (record_len <= limit)
    return;
  stats_counter_inc(self->record->truncated_count);
  stats_counter_add(self->record->truncated_bytes, record_len - limit);
  g_string_truncate(text, start + MIN(limit, line_len));
  *newline = FALSE;
}

/* file()'s record options on the line at start, in file()'s order.
 * *ending: the record gets its line ending (it still has file()'s "\n", or
 * it is a template's line without one that nothing cut short).  FALSE when
 * nothing is left to write. */
static gboolean
_reshape(FastFileFormatter *self, GString *text, gsize start, gboolean newline, gboolean *ending)
{
  const FastFileRecordOptions *record = self->record;
  gboolean template_line_without_newline = !newline;
  gsize len_before = text->len;

  if (_padded(self))
    _pad(self, text, start, &newline);
  if (record->no_multi_line)
    _join_lines(text, start, newline);
  if (record->truncate_size >= 0)
    _truncate(self, text, start, &newline);

  *ending = newline || (template_line_without_newline && text->len == len_before);
  return text->len > start || newline;
}

gboolean
fastfile_formatter_append(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out)
{
  /* UTF-8: format straight into the batch buffer */
  GString *line = self->scratch ? self->scratch : out;
  gsize start = line->len;
  gboolean newline, ending = TRUE;

  if (self->scratch)
    {
      g_string_truncate(self->scratch, 0);
      start = 0;
    }
  if (!_append_line(self, msg, seq_num, line, &newline))
    return FALSE;
  if (G_UNLIKELY(self->reshape) && !_reshape(self, line, start, newline, &ending))
    return FALSE;

  if (self->scratch)
    line_encoder_append_text(self->encoder, self->scratch->str, self->scratch->len, out);
  if (ending)
    _append_bytes(out, (const gchar *) self->line_ending, self->line_ending_len);
  return TRUE;
}
