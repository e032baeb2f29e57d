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
#ifndef FASTFILE_FORMAT_H_INCLUDED
#define FASTFILE_FORMAT_H_INCLUDED

#include "logmsg/logmsg.h"
#include "template/templates.h"
#include "line-encoder.h"
#include "stats/stats-counter.h"

/* file()'s writer options that shape a record (LogWriter's flags(),
 * pad-size(), truncate-size()); the driver's, read-only once it runs */
typedef struct _FastFileRecordOptions
{
  gboolean syslog_protocol;       /* flags(syslog-protocol): RFC 5424, template() is the message part */
  gboolean no_multi_line;         /* flags(no-multi-line) */
  gint pad_size;                  /* pad-size(), 0: none */
  gint truncate_size;             /* truncate-size(), -1: none */
  /* 4.x's flags(no-seqnum) and flags(seqnum-all): no message is numbered, every one is (not only local ones) */
  gboolean no_seq_num;
  gboolean seq_num_all;
  /* whether anything the destination writes reads its number (fastfile_template_reads_seq_num(), the
   * RFC 5424 sequenceId): without a reader the number is not stepped, as nobody can tell */
  gboolean seq_num_read;
  StatsCounterItem *truncated_count;
  StatsCounterItem *truncated_bytes;
  /* the padding warning names the destination */
  const gchar *driver_id;
  LogPipe *owner;
} FastFileRecordOptions;

/* whether a message gets the destination's next sequence number ($SEQNUM,
 * the RFC 5424 sequenceId): local ones, as file() numbers them; with 4.x's
 * flags() none, or every one */
static inline gboolean
fastfile_record_takes_seq_num(const FastFileRecordOptions *record, const LogMessage *msg)
{
  if (record && record->no_seq_num)
    return FALSE;
  return (record && record->seq_num_all) || (msg->flags & LF_LOCAL);
}

/* whether msg steps the destination's sequence number: it takes one, and the output reads it.  The
 * step is an atomic add on a counter every delivering thread shares, beside the driver's fields read
 * per message: with several connections on two CPUs that cache line went back and forth between
 * them once per message (perf, syslog-ng 4.8.1, 4 connections, 100 B) */
static inline gboolean
fastfile_record_steps_seq_num(const FastFileRecordOptions *record, const LogMessage *msg)
{
  return (!record || record->seq_num_read) && fastfile_record_takes_seq_num(record, msg);
}

gboolean fastfile_template_reads_seq_num(const LogTemplate *template);

/*
 * Produces the bytes of one record: the template output (or file()'s
 * built-in format, or with flags(syslog-protocol) file()'s RFC 5424 line),
 * converted to the output charset, ending in the line ending that was
 * encoded once.  A trailing "\n" from the template is replaced by the
 * configured line ending, so file() templates keep working.
 *
 * pad-size(), flags(no-multi-line) and truncate-size() work as in file(), on
 * the UTF-8 record with its "\n" (one byte, whatever the line ending): a
 * record they cut short or pad loses its "\n" as in file(), and then gets no
 * line ending either.
 */
typedef struct _FastFileFormatter
{
  LogTemplate *template;          /* NULL: file()'s built-in format */
  const LogTemplateOptions *template_options;
  const FastFileRecordOptions *record;
  gboolean reshape;               /* pad-size(), no-multi-line or truncate-size() is set */
  NVHandle meta_sequence_id;
  LineEncoder *encoder;
  GString *scratch;               /* UTF-8 staging area for non-UTF-8 charsets */
  const guint8 *line_ending;
  gsize line_ending_len;

  /* the built-in format's timestamp, formatted once per distinct stamp:
   * a burst of messages shares its second */
  struct
  {
    gint64 sec;
    guint32 usec;
    gint32 gmtoff;
    gboolean valid;
    GString *text;
  } stamp_cache;

  /* "Padding is too small": at most once a second */
  struct
  {
    gint64 last_report;
    guint suppressed;
  } padding_warning;
} FastFileFormatter;

/* record: NULL for none of file()'s record options */
gboolean fastfile_formatter_init(FastFileFormatter *self, LogTemplate *template,
                                 const LogTemplateOptions *template_options, const FastFileRecordOptions *record,
                                 const gchar *encoding, LineEnding line_ending, GError **error);
void fastfile_formatter_destroy(FastFileFormatter *self);

/* appends one record to out; FALSE (and nothing appended) when the message
 * renders to an empty string, which file() does not write either */
gboolean fastfile_formatter_append(FastFileFormatter *self, LogMessage *msg, gint32 seq_num, GString *out);

const guint8 *fastfile_formatter_get_bom(const FastFileFormatter *self, gsize *len);
/* the encoder whose line ending ends every record; NULL when a record may end
 * without one (line-ending(none), pad-size() on file()'s formats, truncate-size()) */
const LineEncoder *fastfile_formatter_get_lines(const FastFileFormatter *self);

#endif
