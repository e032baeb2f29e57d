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
#include "se-sink-ctf.h"
#include "se-ctf-metadata.h"
#include "se-ctf-packet.h"
#include "batch-writer.h"
#include "messages.h"
#include "compat-template.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct _SeSinkCtf
{
  SeSink super;
  SeSinkCtfOptions options;
  gchar *dir;
  gboolean ready;            /* metadata installed, leftovers of a previous run trimmed */
  SeCtfPacket packet;
  gint fd;
  gchar *stream_path;
  guint next_index;
  guint64 stream_bytes;
  guint64 seq_num;
  guint64 stream_discarded;
  guint64 last_ts;
} SeSinkCtf;

static guint64
_now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_REALTIME, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT(1000000000) + ts.tv_nsec;
}

static gsize
_dropped_total(SeSinkCtf *self)
{
  StatsCounterItem *c = self->options.dropped ? *self->options.dropped : NULL;

  return c ? stats_counter_get(c) : 0;
}

/* drops not yet reported by any worker of the destination */
static gsize
_take_drops(SeSinkCtf *self)
{
  gsize *reported = self->options.drops_reported;
  gsize total, seen;

  if (!reported)
    return 0;
  total = _dropped_total(self);
  seen = __atomic_load_n(reported, __ATOMIC_SEQ_CST);
  for (;;)
    {
      /* no baseline yet, or the counters were reset (syslog-ng-ctl stats --reset) */
      if (seen == SE_CTF_DROPS_UNSET || seen > total)
        {
          if (__atomic_compare_exchange_n(reported, &seen, total, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return 0;
          continue;
        }
      if (seen == total)
        return 0;
      if (__atomic_compare_exchange_n(reported, &seen, total, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return total - seen;
    }
}

static void
_give_back_drops(SeSinkCtf *self, gsize count)
{
  if (count && self->options.drops_reported)
    __atomic_sub_fetch(self->options.drops_reported, count, __ATOMIC_SEQ_CST);
}

static gboolean
_parse_stream_name(const gchar *name, gint worker_index, guint *index)
{
  gchar prefix[64];
  gchar *end;
  guint64 n;

  g_snprintf(prefix, sizeof(prefix), SE_CTF_STREAM_PREFIX "%d_", worker_index);
  if (!g_str_has_prefix(name, prefix))
    return FALSE;
  name += strlen(prefix);
  if (!g_ascii_isdigit(*name))
    return FALSE;
  n = g_ascii_strtoull(name, &end, 10);
  if (*end || n >= G_MAXUINT)
    return FALSE;
  *index = (guint) n;
  return TRUE;
}

gint64
se_sink_ctf_trim_stream(gint fd)
{
  struct stat st;
  guint8 header[SE_CTF_PACKET_HEADER_SIZE];
  guint64 pos = 0;

  if (fstat(fd, &st) < 0)
    return -1;
  while (pos + SE_CTF_PACKET_HEADER_SIZE <= (guint64) st.st_size)
    {
      guint64 bytes, content_bits;

      if (pread(fd, header, sizeof(header), pos) != (gssize) sizeof(header)
          || !se_ctf_packet_parse_header(header, sizeof(header), &bytes, &content_bits)
          || pos + bytes > (guint64) st.st_size)
        break;
      pos += bytes;
    }
  if (pos != (guint64) st.st_size && ftruncate(fd, pos) < 0)
    return -1;
  return pos;
}

/* the newest stream file of this worker may end in a partial packet (kill -9 during a write) */
static void
_recover(SeSinkCtf *self)
{
  GDir *d = g_dir_open(self->dir, 0, NULL);
  const gchar *name;
  guint index, newest = 0;
  gboolean found = FALSE;

  if (!d)
    return;
  while ((name = g_dir_read_name(d)))
    {
      if (_parse_stream_name(name, self->options.worker_index, &index) && (!found || index > newest))
        {
          newest = index;
          found = TRUE;
        }
    }
  g_dir_close(d);
  if (!found)
    return;
  self->next_index = newest + 1;

  gchar *path = g_strdup_printf("%s/" SE_CTF_STREAM_PREFIX "%d_%u", self->dir, self->options.worker_index, newest);
  gint fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;

  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    {
      gint64 kept = se_sink_ctf_trim_stream(fd);

      if (kept < 0)
        msg_error("structured-event(): cannot trim a partial packet off a CTF stream file", se_sink_dest_tags(&self->super),
                  evt_tag_str("path", path),
                  evt_tag_error("error"));
      else if (kept != st.st_size)
        msg_warning("structured-event(): removed a partial packet from the end of a CTF stream file "
                    "(interrupted write of an earlier run, its events were not acknowledged then)",
                    se_sink_dest_tags(&self->super),
                    evt_tag_str("path", path), evt_tag_long("kept_bytes", kept),
                    evt_tag_long("removed_bytes", st.st_size - kept));
      if (kept == 0)
        unlink(path);
    }
  if (fd >= 0)
    close(fd);
  g_free(path);
}

static gboolean
_open(SeSink *s)
{
  SeSinkCtf *self = (SeSinkCtf *) s;
  gchar moved_to[4096];
  gint error = 0;
  SeCtfMetadataResult r;

  if (self->options.drops_reported)
    {
      gsize unset = SE_CTF_DROPS_UNSET;
      /* drops from before this destination started are not this trace's */
      __atomic_compare_exchange_n(self->options.drops_reported, &unset, _dropped_total(self), FALSE,
                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
  if (self->ready)
    return TRUE;

  r = se_ctf_metadata_install(self->dir, &self->options.opener.file_perm_options, moved_to, sizeof(moved_to), &error);
  if (r == SE_CTF_METADATA_ERROR)
    {
      errno = error;
      msg_error("structured-event(): cannot write the CTF metadata, will retry after time-reopen()",
                se_sink_dest_tags(&self->super),
                evt_tag_str("path", self->dir), evt_tag_error("error"));
      return FALSE;
    }
  if (r == SE_CTF_METADATA_REPLACED)
    msg_warning("structured-event(): the CTF trace directory held a trace of another layout, moved it aside",
                se_sink_dest_tags(&self->super),
                evt_tag_str("path", self->dir), evt_tag_str("moved_to", moved_to));
  _recover(self);
  self->ready = TRUE;
  return TRUE;
}

static void
_close_stream(SeSinkCtf *self)
{
  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
  g_free(self->stream_path);
  self->stream_path = NULL;
}

static gboolean
_open_stream(SeSinkCtf *self)
{
  AppendOpenedFile opened;
  AppendOpenResult r;
  struct stat st;
  gint error = 0;

  /* a new file each time: a file of an earlier run is never appended to */
  for (;; self->next_index++)
    {
      g_free(self->stream_path);
      self->stream_path = g_strdup_printf("%s/" SE_CTF_STREAM_PREFIX "%d_%u", self->dir, self->options.worker_index,
                                          self->next_index);
      if (lstat(self->stream_path, &st) == 0)
        continue;
      if (errno == ENOENT)
        break;
      /* ENOTDIR, EACCES, ELOOP...: the trace directory is unusable, not this name */
      msg_error("structured-event(): cannot look for a free CTF stream file name, will retry after time-reopen()",
                se_sink_dest_tags(&self->super), evt_tag_str("path", self->stream_path), evt_tag_error("error"));
      g_free(self->stream_path);
      self->stream_path = NULL;
      return FALSE;
    }
  r = append_opener_open(&self->options.opener, self->stream_path, &opened, &error);
  if (r != APPEND_OPEN_SUCCESS)
    {
      errno = error;
      msg_error("structured-event(): cannot open a CTF stream file, will retry after time-reopen()",
                se_sink_dest_tags(&self->super),
                evt_tag_str("path", self->stream_path), evt_tag_str("reason", append_open_result_name(r)),
                evt_tag_error("error"));
      g_free(self->stream_path);
      self->stream_path = NULL;
      return FALSE;
    }
  self->next_index++;
  self->fd = opened.fd;
  self->stream_bytes = 0;
  self->seq_num = 0;
  self->stream_discarded = 0;
  return TRUE;
}

static SeSinkResult
_write_packet(SeSinkCtf *self)
{
  SeCtfPacket *packet = &self->packet;
  gsize bytes = se_ctf_packet_padded_len(packet);
  BatchWriteResult res;
  gsize drops;

  if (packet->n_events == 0)
    return SE_SINK_OK;

  if (self->fd >= 0 && self->stream_bytes > 0 && self->stream_bytes + bytes > (guint64) self->options.max_stream_size)
    _close_stream(self);
  if (self->fd < 0 && !_open_stream(self))
    {
      se_ctf_packet_reset(packet);
      return SE_SINK_NOT_CONNECTED;
    }

  drops = _take_drops(self);
  self->stream_discarded += drops;
  se_ctf_packet_finish(packet, self->seq_num, self->stream_discarded);
  if (batch_writer_write(self->fd, packet->data, bytes, &res))
    {
      se_sink_delivered(&self->super, packet->n_events);
      self->stream_bytes += bytes;
      self->super.written_bytes += bytes;
      self->seq_num++;
      se_ctf_packet_reset(packet);
      return SE_SINK_OK;
    }

  /* keep the stream whole packets only: cut the partial one off */
  if (res.written && ftruncate(self->fd, self->stream_bytes) < 0)
    msg_error("structured-event(): cannot remove a partly written CTF packet", se_sink_dest_tags(&self->super),
              evt_tag_str("path", self->stream_path),
              evt_tag_error("error"));
  self->stream_discarded -= drops;
  _give_back_drops(self, drops);
  errno = res.error;
  msg_error("structured-event(): writing a CTF packet failed, will retry after time-reopen()",
            se_sink_dest_tags(&self->super),
            evt_tag_str("path", self->stream_path), evt_tag_error("error"),
            evt_tag_int("unwritten_events", packet->n_events));
  if (self->stream_bytes == 0)
    unlink(self->stream_path);
  _close_stream(self);
  se_ctf_packet_reset(packet);
  return SE_SINK_NOT_CONNECTED;
}

/* the packet holds no event: this one is the oldest not settled, and it alone is dropped */
static SeSinkResult
_too_large(SeSinkCtf *self, const SeEvent *event)
{
  guint not_logged;
  gsize size = 0;

  for (guint i = 0; i < event->n_fields; i++)
    size += event->fields[i].name_len + event->fields[i].value_len;
  if (se_sink_drop_event(&self->super, &not_logged))
    msg_error("structured-event(): event does not fit in a CTF packet, dropped (counted in events_discarded), "
              "raise packet-size() (logged at most once every 10 seconds)",
              se_sink_dest_tags(&self->super), evt_tag_str("path", self->dir),
              evt_tag_long("packet_size", self->options.packet_size),
              evt_tag_long("fields_size", size), evt_tag_int("dropped_unlogged", not_logged));
  return SE_SINK_OK;
}

static SeSinkResult
_emit(SeSink *s, const SeEvent *event)
{
  SeSinkCtf *self = (SeSinkCtf *) s;
  guint64 ts = MAX(_now_ns(), self->last_ts);

  if (!self->ready)
    return SE_SINK_NOT_CONNECTED;
  if (!se_ctf_packet_append(&self->packet, ts, event))
    {
      SeSinkResult result;

      if (self->packet.n_events == 0)
        return _too_large(self, event);
      result = _write_packet(self);
      if (result != SE_SINK_OK)
        return result;
      if (!se_ctf_packet_append(&self->packet, ts, event))
        return _too_large(self, event);
    }
  self->last_ts = ts;
  return SE_SINK_OK;
}

static SeSinkResult
_flush(SeSink *s)
{
  return _write_packet((SeSinkCtf *) s);
}

static void
_close(SeSink *s)
{
  SeSinkCtf *self = (SeSinkCtf *) s;

  /* events still in the packet were not acknowledged: the worker hands them over again */
  se_ctf_packet_reset(&self->packet);
}

static guint
_pending(SeSink *s)
{
  return ((SeSinkCtf *) s)->packet.n_events;
}

static void
_free(SeSink *s)
{
  SeSinkCtf *self = (SeSinkCtf *) s;

  _close_stream(self);
  se_ctf_packet_destroy(&self->packet);
  g_free(self->dir);
  g_free(self);
}

static gint64
_packet_size(const SeSinkCtfOptions *self)
{
  return self->packet_size ? self->packet_size : SE_CTF_DEFAULT_PACKET_SIZE;
}

static gint64
_max_stream_size(const SeSinkCtfOptions *self)
{
  return self->max_stream_size ? self->max_stream_size : SE_CTF_DEFAULT_MAX_STREAM_SIZE;
}

SeSink *
se_sink_ctf_new(const SeSinkCtfOptions *options)
{
  SeSinkCtf *self = g_new0(SeSinkCtf, 1);

  self->super.name = "ctf";
  self->super.open = _open;
  self->super.close = _close;
  self->super.emit = _emit;
  self->super.flush = _flush;
  self->super.pending = _pending;
  self->super.free_fn = _free;
  self->options = *options;
  self->options.path = NULL;
  self->options.packet_size = _packet_size(options);
  self->options.max_stream_size = _max_stream_size(options);
  self->dir = g_strdup(fd_template_str(options->path));
  self->fd = -1;
  se_ctf_packet_init(&self->packet, self->options.packet_size);
  return &self->super;
}

void
se_sink_ctf_options_destroy(SeSinkCtfOptions *self)
{
  log_template_unref(self->path);
  self->path = NULL;
}

gboolean
se_sink_ctf_packet_size_is_valid(gint64 size)
{
  return se_ctf_packet_size_is_valid(size);
}

gboolean
se_sink_ctf_max_stream_size_is_valid(gint64 size)
{
  return size >= SE_CTF_PACKET_SIZE_MIN;
}

gboolean
se_sink_ctf_check_options(const SeSinkCtfOptions *self, GError **error)
{
  if (!self->path)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "sink(ctf) needs path(), the trace directory");
      return FALSE;
    }
  if (!log_template_is_literal_string(self->path) || !fd_template_str(self->path)[0])
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "path(%s): the trace directory of sink(ctf) must be a fixed "
                  "path, without macros", fd_template_str(self->path));
      return FALSE;
    }
  if (_max_stream_size(self) < _packet_size(self))
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "max-stream-size(%" G_GINT64_FORMAT ") must not be smaller "
                  "than packet-size(%" G_GINT64_FORMAT ")", _max_stream_size(self), _packet_size(self));
      return FALSE;
    }
  return TRUE;
}

void
se_sink_ctf_format_instance(const SeSinkCtfOptions *self, gchar *buf, gsize size)
{
  g_snprintf(buf, size, "structured-event,ctf,%s", fd_template_str(self->path));
}
