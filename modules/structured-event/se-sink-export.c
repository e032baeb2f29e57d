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
#include "se-sink-export.h"
#include "se-journal-encoder.h"
#include "batch-buffer.h"
#include "batch-writer.h"
#include "messages.h"

#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* a peer that stops reading makes write() fail after this, and we reconnect */
#define SE_EXPORT_SEND_TIMEOUT_SEC 30

typedef struct _SeSinkExport
{
  SeSink super;
  SeSinkExportOptions options;
  gchar *host;
  BatchBuffer buffer;
  SeJournalEncoder encoder;
  GString *next_path;
  GString *cur_path;
  gint fd;
} SeSinkExport;

static gboolean
_is_file(SeSinkExport *self)
{
  return self->options.path != NULL;
}

static const gchar *
_target(SeSinkExport *self)
{
  return _is_file(self) ? self->cur_path->str : self->host;
}

static void
_close_fd(SeSinkExport *self)
{
  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
  g_string_truncate(self->cur_path, 0);
}

static gboolean
_connect_tcp(SeSinkExport *self)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  gchar port[16];
  gint rc;

  g_snprintf(port, sizeof(port), "%d", self->options.port);
  rc = getaddrinfo(self->host, port, &hints, &res);
  if (rc != 0)
    {
      msg_error("structured-event(): cannot resolve host()", evt_tag_str("host", self->host),
                evt_tag_str("error", gai_strerror(rc)));
      return FALSE;
    }
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
    {
      struct timeval tv = { .tv_sec = SE_EXPORT_SEND_TIMEOUT_SEC };
      gint fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

      if (fd < 0)
        continue;
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        {
          self->fd = fd;
          break;
        }
      rc = errno;
      close(fd);
      errno = rc;
    }
  freeaddrinfo(res);
  if (self->fd < 0)
    {
      msg_error("structured-event(): cannot connect to host(), will retry after time-reopen()",
                evt_tag_str("host", self->host), evt_tag_int("port", self->options.port), evt_tag_error("error"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
_open(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* files are opened when the first event tells which one */
  if (_is_file(self) || self->fd >= 0)
    return TRUE;
  return _connect_tcp(self);
}

static void
_close(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* whatever is still buffered was not acknowledged: the worker resends it */
  batch_buffer_reset(&self->buffer);
  _close_fd(self);
}

static gsize
_bytes_of_first_records(SeSinkExport *self, guint records)
{
  return records ? self->buffer.record_ends[records - 1] : 0;
}

static SeSinkResult
_write_batch(SeSinkExport *self, guint *delivered)
{
  BatchWriteResult res;
  guint records = batch_buffer_records(&self->buffer);
  guint complete;
  gsize partial;

  if (records == 0)
    return SE_SINK_OK;

  if (batch_writer_write(self->fd, batch_buffer_data(&self->buffer)->str, batch_buffer_len(&self->buffer), &res))
    {
      *delivered += records;
      batch_buffer_reset(&self->buffer);
      return SE_SINK_OK;
    }

  complete = batch_buffer_records_in_prefix(&self->buffer, res.written);
  partial = res.written - _bytes_of_first_records(self, complete);
  *delivered += complete;
  if (partial && _is_file(self))
    {
      /* keep the file a valid export stream: cut the partial entry off */
      off_t end = lseek(self->fd, 0, SEEK_END);
      if (end < 0 || ftruncate(self->fd, end - partial) < 0)
        msg_error("structured-event(): cannot remove a partly written entry", evt_tag_str("path", _target(self)),
                  evt_tag_error("error"));
    }
  errno = res.error;
  msg_error("structured-event(): write failed, will retry after time-reopen()",
            evt_tag_str("target", _target(self)), evt_tag_error("error"),
            evt_tag_int("written_entries", complete), evt_tag_int("unwritten_entries", records - complete));
  batch_buffer_reset(&self->buffer);
  _close_fd(self);
  return SE_SINK_NOT_CONNECTED;
}

static SeSinkResult
_switch_file(SeSinkExport *self, guint *delivered)
{
  AppendOpenedFile opened;
  AppendOpenResult r;
  SeSinkResult result;
  gint error = 0;

  /* one batch goes to one file */
  result = _write_batch(self, delivered);
  if (result != SE_SINK_OK)
    return result;
  _close_fd(self);

  r = append_opener_open(&self->options.opener, self->next_path->str, &opened, &error);
  if (r == APPEND_OPEN_SUCCESS)
    {
      self->fd = opened.fd;
      g_string_assign(self->cur_path, self->next_path->str);
      return SE_SINK_OK;
    }
  errno = error;
  msg_error("structured-event(): cannot open path()", evt_tag_str("path", self->next_path->str),
            evt_tag_str("reason", append_open_result_name(r)), evt_tag_error("error"));
  return r == APPEND_OPEN_ERROR ? SE_SINK_NOT_CONNECTED : SE_SINK_DROP;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event, guint *delivered)
{
  SeSinkExport *self = (SeSinkExport *) s;
  gchar realtime[32];
  SeField extra[2];
  guint n_extra = 0;
  GString *data;

  if (_is_file(self))
    {
      LogTemplateEvalOptions eval = { self->options.template_options, LTZ_LOCAL, 0, NULL, LM_VT_STRING };

      log_template_format(self->options.path, event->msg, &eval, self->next_path);
      if (self->fd < 0 || strcmp(self->next_path->str, self->cur_path->str) != 0)
        {
          SeSinkResult result = _switch_file(self, delivered);
          if (result != SE_SINK_OK)
            return result;
        }
    }
  else if (self->fd < 0)
    return SE_SINK_NOT_CONNECTED;

  extra[n_extra++] = (SeField)
  {
    .name = "__REALTIME_TIMESTAMP", .name_len = 20, .value = realtime,
    .value_len = g_snprintf(realtime, sizeof(realtime), "%" G_GINT64_FORMAT,
                            (gint64) event->stamp->ut_sec * G_USEC_PER_SEC + event->stamp->ut_usec),
  };
  if (event->host_len)
    extra[n_extra++] = (SeField)
    {
      .name = "_HOSTNAME", .name_len = 9, .value = event->host, .value_len = event->host_len,
    };

  se_journal_encode(&self->encoder, extra, n_extra, event, TRUE);
  data = batch_buffer_data(&self->buffer);
  for (guint i = 0; i < self->encoder.n_iov; i++)
    g_string_append_len(data, self->encoder.iov[i].iov_base, self->encoder.iov[i].iov_len);
  batch_buffer_end_record(&self->buffer);

  if (batch_buffer_is_full(&self->buffer))
    return _write_batch(self, delivered);
  return SE_SINK_OK;
}

static SeSinkResult
_flush(SeSink *s, guint *delivered)
{
  SeSinkExport *self = (SeSinkExport *) s;

  if (self->fd < 0)
    {
      guint records = batch_buffer_records(&self->buffer);
      batch_buffer_reset(&self->buffer);
      return records ? SE_SINK_NOT_CONNECTED : SE_SINK_OK;
    }
  return _write_batch(self, delivered);
}

static guint
_pending(SeSink *s)
{
  return batch_buffer_records(&((SeSinkExport *) s)->buffer);
}

static void
_free(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  _close_fd(self);
  batch_buffer_destroy(&self->buffer);
  se_journal_encoder_destroy(&self->encoder);
  g_string_free(self->next_path, TRUE);
  g_string_free(self->cur_path, TRUE);
  log_template_unref(self->options.path);
  g_free(self->host);
  g_free(self);
}

SeSink *
se_sink_export_new(const SeSinkExportOptions *options)
{
  SeSinkExport *self = g_new0(SeSinkExport, 1);

  self->super.name = "journal-export";
  self->super.open = _open;
  self->super.close = _close;
  self->super.emit = _emit;
  self->super.flush = _flush;
  self->super.pending = _pending;
  self->super.free_fn = _free;
  self->options = *options;
  self->options.path = log_template_ref(options->path);
  self->host = g_strdup(options->host);
  self->options.host = self->host;
  self->fd = -1;
  self->next_path = g_string_sized_new(256);
  self->cur_path = g_string_sized_new(256);
  batch_buffer_init(&self->buffer, MAX(options->batch_records, 1), 0);
  se_journal_encoder_init(&self->encoder);
  return &self->super;
}

static gboolean
_check_options(StructuredEventDriver *owner, GError **error)
{
  if (owner->socket || owner->namespace_)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "%s cannot be used with sink(journal-export), "
                  "it is an option of sink(journald)", owner->socket ? "socket()" : "namespace()");
      return FALSE;
    }
  if (owner->path && owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "sink(journal-export) takes either path() or host(), not both");
      return FALSE;
    }
  if (!owner->path && !owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "sink(journal-export) needs path() (a file) or host() (TCP)");
      return FALSE;
    }
  if (owner->port && !owner->host)
    {
      g_set_error(error, STRUCTURED_EVENT_ERROR, 0, "port() needs host() with sink(journal-export)");
      return FALSE;
    }
  return TRUE;
}

static void
_format_instance(StructuredEventDriver *owner, gchar *buf, gsize size)
{
  if (owner->path)
    g_snprintf(buf, size, "structured-event,journal-export,%s", owner->path->template);
  else
    g_snprintf(buf, size, "structured-event,journal-export,%s:%d", owner->host,
               owner->port ? owner->port : SE_DEFAULT_EXPORT_PORT);
}

static SeSink *
_construct(StructuredEventDriver *owner, gint worker_index)
{
  SeSinkExportOptions options = { 0 };

  options.path = owner->path;
  options.host = owner->host;
  options.port = owner->port ? owner->port : SE_DEFAULT_EXPORT_PORT;
  options.template_options = &owner->template_options;
  options.batch_records = owner->super.batch_lines > 0 ? owner->super.batch_lines : 1;
  append_opener_options_defaults(&options.opener);
  append_opener_options_init(&options.opener, log_pipe_get_config(&owner->super.super.super.super));
  return se_sink_export_new(&options);
}

const SeSinkClass se_sink_export_class =
{
  .name = "journal-export",
  .check_options = _check_options,
  .format_instance = _format_instance,
  .construct = _construct,
};
