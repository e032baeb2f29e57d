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
#include "se-export-file.h"
#include "se-export-tcp.h"
#include "se-export-curl.h"
#include "se-journal-encoder.h"
#include "batch-buffer.h"
#include "messages.h"
#include "compat-template.h"

#include <string.h>

/* a batch is written (or posted) once it holds this much, before batch-lines() */
#define SE_EXPORT_BATCH_BYTES (1024 * 1024)
/* distinct failures remembered, each logged once, until the target works again */
#define SE_EXPORT_DOWN_CAUSES 4

/*
 * The sink: encodes events into the batch buffer and decides, for every
 * transport alike, what becomes of them when the transport reports what
 * became of the bytes: the retry policy of sink(journal-export).
 *
 * - OK: the batch is delivered.
 * - DOWN (the disk, the connection, the peer, timeout()): the whole
 *   entries that reached the target are delivered, a partly written one is
 *   cut off a file again, the rest wait for time-reopen() (NOT_CONNECTED).
 *   The cause is logged once, until it clears.
 * - REFUSED or CLOSED_ON (requests): see _isolate().
 * - BAD_NAME (file): the event whose name it is is dropped alone.
 */
typedef struct _SeSinkExport
{
  SeSink super;
  SeSinkExportOptions options;
  SeExportTransport *transport;
  BatchBuffer buffer;
  gsize buffer_capacity;      /* as made: more means an outlier grew it */
  SeJournalEncoder encoder;
  /* the failures logged since the target last worked: each is logged once (a failing TLS handshake, for one,
   * alternates between a few ways libcurl words it) */
  gchar down_causes[SE_EXPORT_DOWN_CAUSES][400];
  guint n_down_causes;
  guint downs_not_logged;
} SeSinkExport;

/*
 * The batch buffer holds at most SE_EXPORT_BATCH_BYTES (a batch goes out
 * earlier when the next entry would not fit) plus one entry.  An entry
 * larger than that grows it; once its batch went out the buffer is made
 * anew, so an outlier neither keeps its memory nor skews the average
 * entry size the buffer sizes itself by.
 */
static void
_init_buffer(SeSinkExport *self)
{
  batch_buffer_init(&self->buffer, MAX(self->options.batch_records, 1), SE_EXPORT_BATCH_BYTES);
  self->buffer_capacity = batch_buffer_capacity(&self->buffer);
}

static void
_reset_buffer(SeSinkExport *self)
{
  if (batch_buffer_capacity(&self->buffer) <= self->buffer_capacity)
    {
      batch_buffer_reset(&self->buffer);
      return;
    }
  batch_buffer_destroy(&self->buffer);
  _init_buffer(self);
}

/* timeout() bounds the time one batch may take on the network, connecting and an isolation included */
static gint64
_deadline(SeSinkExport *self)
{
  return g_get_monotonic_time() + (gint64) self->options.timeout * G_USEC_PER_SEC;
}

/* a failure of the whole target: logged once per cause (what failed and why) until the target works again */
static void
_log_down(SeSinkExport *self, const gchar *what, const SeExportResult *result, guint entries)
{
  gchar cause[sizeof(self->down_causes[0])];

  g_snprintf(cause, sizeof(cause), "%s: %s", what, result->reason);
  for (guint i = 0; i < self->n_down_causes; i++)
    {
      if (strcmp(cause, self->down_causes[i]) == 0)
        {
          self->downs_not_logged++;
          msg_debug("structured-event(): the same failure again", se_sink_dest_tags(&self->super),
                    evt_tag_str("target", self->transport->target(self->transport)),
                    evt_tag_str("error", result->reason));
          return;
        }
    }
  /* the oldest cause makes room */
  if (self->n_down_causes == SE_EXPORT_DOWN_CAUSES)
    {
      memmove(self->down_causes[0], self->down_causes[1], sizeof(self->down_causes[0]) * (SE_EXPORT_DOWN_CAUSES - 1));
      self->n_down_causes--;
    }
  g_strlcpy(self->down_causes[self->n_down_causes++], cause, sizeof(self->down_causes[0]));
  msg_error(what, se_sink_dest_tags(&self->super), evt_tag_str("target", self->transport->target(self->transport)),
            evt_tag_str("error", result->reason), evt_tag_int("entries", entries),
            evt_tag_str("note", "logged once until the target works again"));
}

static void
_log_up(SeSinkExport *self)
{
  if (!self->n_down_causes)
    return;
  msg_notice("structured-event(): delivering again", se_sink_dest_tags(&self->super),
             evt_tag_str("target", self->transport->target(self->transport)),
             evt_tag_str("after", self->down_causes[self->n_down_causes - 1]),
             evt_tag_int("failures_not_logged", self->downs_not_logged));
  self->n_down_causes = 0;
  self->downs_not_logged = 0;
}

static gboolean
_open(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;
  SeExportResult result = { 0 };

  /* files are opened when an event tells which one; a request transport connects when it sends */
  if (self->transport->select || self->transport->requests || self->transport->is_open(self->transport))
    return TRUE;
  self->transport->open(self->transport, _deadline(self), &result);
  if (result.status == SE_EXPORT_OK)
    return TRUE;
  _log_down(self, "structured-event(): cannot connect to host(), will retry after time-reopen()", &result, 0);
  return FALSE;
}

static void
_close(SeSink *s)
{
  SeSinkExport *self = (SeSinkExport *) s;

  /* whatever is still buffered was not acknowledged: the worker resends it */
  _reset_buffer(self);
  self->transport->close(self->transport);
}

/* the target failed: the entries not settled yet wait for time-reopen() */
static SeSinkResult
_down(SeSinkExport *self, const SeExportResult *result, guint unsettled)
{
  _log_down(self, self->transport->requests
            ? "structured-event(): no answer to the batch, it is sent again after time-reopen()"
            : "structured-event(): write failed, will retry after time-reopen()", result, unsettled);
  self->transport->close(self->transport);
  return SE_SINK_NOT_CONNECTED;
}

/* the batch went only partly, or not at all: what reached the target is delivered, the rest comes again */
static SeSinkResult
_batch_down(SeSinkExport *self, const SeExportResult *result)
{
  guint records = batch_buffer_records(&self->buffer);
  guint complete = batch_buffer_records_in_prefix(&self->buffer, result->written);
  gsize partial = result->written - batch_buffer_whole_records_end(&self->buffer, result->written);
  gchar why[300];

  se_sink_delivered(&self->super, complete);
  self->super.written_bytes += result->written - partial;
  if (partial && self->transport->cut_partial
      && !self->transport->cut_partial(self->transport, result->written, partial, why, sizeof(why)))
    msg_error("structured-event(): a partly written entry is left in the file", se_sink_dest_tags(&self->super),
              evt_tag_str("path", self->transport->target(self->transport)), evt_tag_str("error", why));
  return _down(self, result, records - complete);
}

/* the records [first, last) of the batch, one request (first == last: an empty one) */
static void
_send_records(SeSinkExport *self, guint first, guint last, gint64 deadline, SeExportResult *result)
{
  const BatchBuffer *b = &self->buffer;
  gsize from = first ? b->record_ends[first - 1] : 0;
  gsize to = last ? b->record_ends[last - 1] : 0;

  memset(result, 0, sizeof(*result));
  self->transport->send(self->transport, batch_buffer_data(&self->buffer)->str + from, MAX(from, to) - from,
                        deadline, result);
}

/*
 * The server refused a batch (or closed on it without an answer, as
 * journal-remote does on an entry it cannot take): an entry of it may be
 * the cause, and it alone must not hold the others.  The entries go one
 * request each; one refused on its own is dropped when an empty request
 * right after it is accepted (the server takes requests, just not this
 * entry).  When even that is refused, the server refuses everything: the
 * entries not settled yet are an error (retried up to retries(), then
 * dropped), or, without an answer, they wait for time-reopen().  Entries
 * the server stored from the refused batch before the one it refused are
 * sent again: duplicates only within that batch.
 */
static SeSinkResult
_isolate(SeSinkExport *self, const SeExportResult *refusal, gint64 deadline)
{
  guint records = batch_buffer_records(&self->buffer);
  SeExportResult entry, probe;
  guint not_logged;

  msg_warning("structured-event(): the server refused a batch, sending its entries one at a time "
              "to find the ones it refuses", se_sink_dest_tags(&self->super),
              evt_tag_str("target", self->transport->target(self->transport)),
              evt_tag_str("answer", refusal->reason), evt_tag_int("entries", records));
  for (guint i = 0; i < records; i++)
    {
      _send_records(self, i, i + 1, deadline, &entry);
      if (entry.status == SE_EXPORT_OK)
        {
          se_sink_delivered(&self->super, 1);
          self->super.written_bytes += self->buffer.record_ends[i] - (i ? self->buffer.record_ends[i - 1] : 0);
          continue;
        }
      if (entry.status == SE_EXPORT_DOWN)
        return _down(self, &entry, records - i);

      _send_records(self, i + 1, i + 1, deadline, &probe);
      if (probe.status == SE_EXPORT_OK)
        {
          if (se_sink_drop_event(&self->super, &not_logged))
            msg_error("structured-event(): the server refuses this entry on its own and takes others, "
                      "entry dropped (logged at most once every 10 seconds, see the dropped counter)",
                      se_sink_dest_tags(&self->super), evt_tag_str("target", self->transport->target(self->transport)),
                      evt_tag_str("answer", entry.reason), evt_tag_int("dropped_unlogged", not_logged));
          continue;
        }
      if (probe.status == SE_EXPORT_REFUSED)
        {
          msg_error("structured-event(): the server refuses every request, will retry after time-reopen() "
                    "and drop the entries after retries()", se_sink_dest_tags(&self->super),
                    evt_tag_str("target", self->transport->target(self->transport)),
                    evt_tag_str("answer", probe.reason), evt_tag_int("entries", records - i));
          return SE_SINK_ERROR;
        }
      if (probe.status == SE_EXPORT_CLOSED_ON)
        {
          gchar reason[sizeof(probe.reason)];

          g_snprintf(reason, sizeof(reason), "the server closes every request without an answer: %s", probe.reason);
          se_export_result_set(&probe, SE_EXPORT_DOWN, reason);
        }
      return _down(self, &probe, records - i);
    }
  return SE_SINK_OK;
}

/* the batch goes out: written, posted */
static SeSinkResult
_send_batch(SeSinkExport *self)
{
  guint records = batch_buffer_records(&self->buffer);
  gint64 deadline = _deadline(self);
  SeSinkResult result = SE_SINK_OK;
  SeExportResult sent;

  if (records == 0)
    return SE_SINK_OK;

  _send_records(self, 0, records, deadline, &sent);
  switch (sent.status)
    {
    case SE_EXPORT_OK:
      se_sink_delivered(&self->super, records);
      self->super.written_bytes += batch_buffer_len(&self->buffer);
      _log_up(self);
      break;
    case SE_EXPORT_REFUSED:
    case SE_EXPORT_CLOSED_ON:
      if (self->transport->requests)
        {
          result = _isolate(self, &sent, deadline);
          break;
        }
    /* fall through */
    default:
      result = _batch_down(self, &sent);
      break;
    }
  _reset_buffer(self);
  return result;
}

/* file: the event's file differs from the open one: the batch goes to the open one first, then this one opens */
static SeSinkResult
_switch_file(SeSinkExport *self, gboolean *event_dropped)
{
  SeSinkResult result = _send_batch(self);
  SeExportResult opened = { 0 };
  guint not_logged;

  if (result != SE_SINK_OK)
    return result;
  self->transport->open(self->transport, _deadline(self), &opened);
  if (opened.status == SE_EXPORT_OK)
    return SE_SINK_OK;
  if (opened.status != SE_EXPORT_BAD_NAME)
    {
      _log_down(self, "structured-event(): cannot open path(), will retry after time-reopen()", &opened, 1);
      return SE_SINK_NOT_CONNECTED;
    }
  /* the batch went out above: this event is the oldest one not settled */
  if (se_sink_drop_event(&self->super, &not_logged))
    msg_error("structured-event(): cannot open path(), message dropped, messages for other files go on "
              "(logged at most once every 10 seconds, see the dropped counter)",
              se_sink_dest_tags(&self->super), evt_tag_str("path", self->transport->target(self->transport)),
              evt_tag_str("error", opened.reason), evt_tag_int("dropped_unlogged", not_logged));
  *event_dropped = TRUE;
  return SE_SINK_OK;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event)
{
  SeSinkExport *self = (SeSinkExport *) s;
  SeExportTransport *transport = self->transport;
  gchar realtime[32];
  SeField extra[3];
  const gchar *boot_id = se_journal_boot_id();
  guint n_extra = 0;
  GString *data;

  if (transport->select && transport->select(transport, event))
    {
      gboolean dropped = FALSE;
      SeSinkResult result = _switch_file(self, &dropped);
      if (result != SE_SINK_OK || dropped)
        return result;
    }
  else if (!transport->select && !transport->requests && !transport->is_open(transport))
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
  /* systemd-journal-remote 257 refuses an entry without it ("Entry is invalid") */
  if (boot_id)
    extra[n_extra++] = (SeField)
    {
      .name = "_BOOT_ID", .name_len = 8, .value = boot_id, .value_len = 32,
    };

  se_journal_encode(&self->encoder, extra, n_extra, event, TRUE);
  data = batch_buffer_data(&self->buffer);
  for (guint i = 0; i < self->encoder.n_iov; i++)
    g_string_append_len(data, self->encoder.iov[i].iov_base, self->encoder.iov[i].iov_len);
  batch_buffer_end_record(&self->buffer);

  if (batch_buffer_is_full(&self->buffer))
    return _send_batch(self);
  return SE_SINK_OK;
}

static SeSinkResult
_flush(SeSink *s)
{
  return _send_batch((SeSinkExport *) s);
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

  se_export_transport_free(self->transport);
  batch_buffer_destroy(&self->buffer);
  se_journal_encoder_destroy(&self->encoder);
  g_free(self);
}

static gboolean
_stopping(gpointer s)
{
  return se_sink_stopping((SeSink *) s);
}

static SeExportTransport *
_transport_new(SeSinkExport *self, const SeSinkExportOptions *options)
{
  SeExportTransport *transport;
  gchar *url;

  if (options->path)
    return se_export_file_new(options->path, options->template_options, &options->opener);
  if (options->url)
    return se_export_curl_new(options->url, &options->tls, _stopping, self);
  if (options->transport != SE_EXPORT_TRANSPORT_HTTP)
    return se_export_tcp_new(options->host, options->port);
  /* host() port() transport(http) is the URL http://host:port/upload */
  url = g_strdup_printf(strchr(options->host, ':') ? "http://[%s]:%d/upload" : "http://%s:%d/upload",
                        options->host, options->port);
  transport = se_export_curl_new(url, &options->tls, _stopping, self);
  g_free(url);
  return transport;
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
  /* the defaults of what is unset */
  if (!self->options.port)
    self->options.port = SE_EXPORT_DEFAULT_PORT;
  if (!self->options.transport)
    self->options.transport = SE_EXPORT_TRANSPORT_RAW;
  if (!self->options.timeout)
    self->options.timeout = SE_EXPORT_DEFAULT_TIMEOUT;
  self->transport = _transport_new(self, &self->options);
  /* the transport holds what it needs of these */
  self->options.path = NULL;
  self->options.host = NULL;
  self->options.url = NULL;
  se_export_tls_options_defaults(&self->options.tls);
  _init_buffer(self);
  se_journal_encoder_init(&self->encoder);
  return &self->super;
}

void
se_sink_export_options_defaults(SeSinkExportOptions *self)
{
  memset(self, 0, sizeof(*self));
  se_export_tls_options_defaults(&self->tls);
}

void
se_sink_export_options_destroy(SeSinkExportOptions *self)
{
  log_template_unref(self->path);
  g_free(self->host);
  g_free(self->url);
  se_export_tls_options_destroy(&self->tls);
  se_sink_export_options_defaults(self);
}

gboolean
se_sink_export_set_url(SeSinkExportOptions *self, const gchar *url, GError **error)
{
  gchar *request_url = se_export_curl_request_url(url, error);

  if (!request_url)
    return FALSE;
  g_free(self->url);
  self->url = request_url;
  return TRUE;
}

gboolean
se_sink_export_transport_from_name(const gchar *name, SeExportTransportKind *transport)
{
  if (strcmp(name, "raw") == 0)
    *transport = SE_EXPORT_TRANSPORT_RAW;
  else if (strcmp(name, "http") == 0)
    *transport = SE_EXPORT_TRANSPORT_HTTP;
  else
    return FALSE;
  return TRUE;
}

gboolean
se_sink_export_check_options(const SeSinkExportOptions *self, GError **error)
{
  const gchar *network = self->url ? "url()" : "host()";

  if (self->url && (self->host || self->port || self->transport))
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "url() says where and how to send: not with %s",
                  self->host ? "host()" : self->port ? "port()" : "transport()");
      return FALSE;
    }
  if (self->path && (self->host || self->url))
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "sink(journal-export) takes either path() or %s, not both", network);
      return FALSE;
    }
  if (!self->path && !self->host && !self->url)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "sink(journal-export) needs path() (a file), url() (HTTP or HTTPS) "
                  "or host() (TCP)");
      return FALSE;
    }
  if (self->port && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "port() needs host() with sink(journal-export)");
      return FALSE;
    }
  if (self->transport && !self->host)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "transport() needs host() with sink(journal-export); "
                  "path() writes a file");
      return FALSE;
    }
  if (self->timeout && !self->host && !self->url)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "timeout() needs url() or host() with sink(journal-export): "
                  "the time one batch may take on the network");
      return FALSE;
    }
  if (self->tls_set && !(self->url && se_export_curl_url_is_https(self->url)))
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "tls() needs an https:// url()");
      return FALSE;
    }
  return se_export_tls_check(&self->tls, error);
}

void
se_sink_export_format_instance(const SeSinkExportOptions *self, gchar *buf, gsize size)
{
  if (self->path)
    g_snprintf(buf, size, "structured-event,journal-export,%s", fd_template_str(self->path));
  else if (self->url)
    g_snprintf(buf, size, "structured-event,journal-export,%s", self->url);
  else
    g_snprintf(buf, size, "structured-event,journal-export,%s:%d", self->host,
               self->port ? self->port : SE_EXPORT_DEFAULT_PORT);
}
