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

/*
 * The hot path in process, BenchmarkDotNet-style: each "method" runs over
 * pre-built LogMessages, warm-up first, then --reps measured repetitions
 * interleaved across methods (a b c a b c ...).  One JSON object per method
 * on stdout; bench/run turns them into tables.
 *
 *   file     the fast-file() worker, driven as LogThreadedDestDriver drives
 *            it (a batch queued, then the framework's loop step: pop into
 *            the backlog, refcache, scratch buffers, insert -- which takes
 *            the rest of the batch from the queue itself --, flush every
 *            batch-lines, ack), against a mimic of
 *            stock LogWriter + LogProtoFileWriter on the same queue: format
 *            into the line buffer (log_writer_format_log() itself, or
 *            log_template_format()), hand the buffer over and allocate a
 *            fresh one, one iovec per line, writev() every flush-lines.
 *   encoders structured-event's event builder and journal encoders (no I/O)
 *            against stock $(format-json) into a fresh GString.
 *   sinks    structured-event sinks with their I/O: journald into a unix
 *            datagram socket drained by a thread of this program, next to
 *            libsystemd's sd_journal_sendv() of the same fields into the
 *            same socket; journal-export into a file, next to stock
 *            $(format-json) written as stock file() would.
 *
 * Allocations are counted by bench/.libs/libmalloc-counter.so, the counter
 * the end-to-end bench preloads into syslog-ng: run this program with it in
 * LD_PRELOAD; its totals are read before and after each measured repetition.
 *
 * --journal-ns: sd_journal_sendv() always sends to
 * /run/systemd/journal/socket.  This option moves the process into private
 * mount and network namespaces (root), mounts a tmpfs on /run there and binds
 * the drained socket at that path, so both journald rows send to the same
 * socket and no journald of the machine is touched; net.unix.max_dgram_qlen
 * of the private network namespace is set to 512, systemd's default.
 *
 * The exit status is non-zero only when some output is wrong.
 */
#define _GNU_SOURCE
#include "fastfile.h"
#include "fastfile-worker.h"
#include "se-event.h"
#include "se-journal-encoder.h"
#include "se-sink.h"
#include "se-sink-journald.h"
#include "se-sink-export.h"
#include "se-sink-ctf.h"
#include "apphook.h"
#include "cfg.h"
#include "compat-logqueue.h"
#include "logwriter.h"
#include "plugin.h"
#include "logmsg/logmsg.h"
#include "scratch-buffers.h"
#include "template/templates.h"
#include "stats/stats-counter.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define N_MSGS 4096
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static GlobalConfig *cfg;
static const gchar *work_dir;
static LogTemplateOptions tpl_options;
static LogMessage *file_msgs[N_MSGS];
static LogMessage *se_msgs[N_MSGS];
static guint64 acks;

static void (*counter_totals)(guint64 *allocs, guint64 *bytes);
static int (*sd_sendv)(const struct iovec *iov, int n);
static const gchar *sd_missing = "libsystemd.so.0 not loadable";

/* ------------------------------------------------------------------ rows */

typedef struct _Row Row;
struct _Row
{
  const gchar *group;
  const gchar *key;
  const gchar *method;
  const gchar *vs;                 /* key of the row this one is compared with */
  gboolean (*setup)(Row *self);
  gboolean (*run)(Row *self, guint64 n);
  /* after each repetition, outside the timing window */
  gboolean (*check_rep)(Row *self, guint64 n);
  void (*teardown)(Row *self);
  gpointer state;

  gchar *na;                       /* not available: why */
  GArray *ns;                      /* per repetition: ns per op */
  GArray *cpu_ns;
  guint64 allocs, bytes, ops;
  gboolean failed;
  GString *detail;
};

static void
row_fail(Row *self, const gchar *fmt, ...)
{
  va_list va;

  if (self->failed)
    return;
  self->failed = TRUE;
  va_start(va, fmt);
  g_string_vprintf(self->detail, fmt, va);
  va_end(va);
}

static guint64
now_ns(clockid_t clock)
{
  struct timespec ts;

  clock_gettime(clock, &ts);
  return (guint64) ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
alloc_totals(guint64 *allocs, guint64 *bytes)
{
  *allocs = *bytes = 0;
  if (counter_totals)
    counter_totals(allocs, bytes);
}

/* ------------------------------------------------------------------ messages */

static void
ack_counter(LogMessage *msg, AckType ack_type)
{
  acks++;
}

static void
set_stamp(LogMessage *msg)
{
  struct tm tm = { 0 };
  time_t now = time(NULL);

  localtime_r(&now, &tm);
  tm.tm_mon = 10;
  tm.tm_mday = 30;
  tm.tm_hour = 5;
  tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  msg->timestamps[LM_TS_STAMP].ut_sec = mktime(&tm);
  msg->timestamps[LM_TS_STAMP].ut_usec = 123456;
  msg->timestamps[LM_TS_STAMP].ut_gmtoff = tm.tm_gmtoff;
}

/* as bench/feeder's 100-byte messages: "<13>Nov 30 05:00:00 host progNN[123]: seq=0000000042 abc..." */
static LogMessage *
make_file_msg(guint i)
{
  LogMessage *msg = log_msg_new_empty();
  gchar program[16], text[64];
  static const gchar filler[] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";

  g_snprintf(program, sizeof(program), "prog%02u", i % 100);
  /* 61 bytes: the default file() line is 96 bytes with its newline */
  g_snprintf(text, sizeof(text), "seq=%010u %.46s", i, filler);
  log_msg_set_value(msg, LM_V_HOST, "host", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, program, -1);
  log_msg_set_value(msg, LM_V_PID, "123", -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  msg->pri = 13;
  msg->ack_func = ack_counter;
  set_stamp(msg);
  return msg;
}

/*
 * A message with 10 name-value pairs, as kv-parser makes them from the
 * payload bench/feeder --kv sends (bench/run cases (h) and (i)).
 */
#define SE_KV_FORMAT "seq=%010u user=u%04u action=fetch item=%u status=200 duration_ms=%u bytes=%u " \
  "client=10.0.%u.%u method=GET path=/api/items/%u"

static LogMessage *
make_se_msg(guint i)
{
  LogMessage *msg = log_msg_new_empty();
  gchar text[256], v[64];

  g_snprintf(text, sizeof(text), SE_KV_FORMAT, i, i % 10000, i % 1000, 10 + i % 90, 1000 + i % 9000,
             (i / 256) % 256, i % 256, i % 1000);
  log_msg_set_value(msg, LM_V_HOST, "host", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "app", -1);
  log_msg_set_value(msg, LM_V_PID, "4242", -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
#define PAIR(name, ...) do { g_snprintf(v, sizeof(v), __VA_ARGS__); log_msg_set_value_by_name(msg, name, v, -1); } while (0)
  PAIR("seq", "%010u", i);
  PAIR("user", "u%04u", i % 10000);
  PAIR("action", "fetch");
  PAIR("item", "%u", i % 1000);
  PAIR("status", "200");
  PAIR("duration_ms", "%u", 10 + i % 90);
  PAIR("bytes", "%u", 1000 + i % 9000);
  PAIR("client", "10.0.%u.%u", (i / 256) % 256, i % 256);
  PAIR("method", "GET");
  PAIR("path", "/api/items/%u", i % 1000);
#undef PAIR
  msg->pri = 13;
  msg->ack_func = ack_counter;
  set_stamp(msg);
  return msg;
}

/* ------------------------------------------------------------------ the queue, as a source and LogThreadedDestDriver use it */

typedef struct
{
  LogPathOptions path_options;
  ScratchBuffersMarker mark;
} Popped;

/* a source's batch into the queue: referenced and acked as log_source_post() does */
static void
queue_push(LogQueue *queue, LogMessage *msg)
{
  LogPathOptions push_options = LOG_PATH_OPTIONS_INIT;

  log_msg_ref(msg);
  log_msg_add_ack(msg, &push_options);
  log_queue_push_tail(queue, msg, &push_options);
}

/* a source posts msg; the destination pops it into its backlog (both sides of the queue) */
static LogMessage *
queue_cycle(LogQueue *queue, LogMessage *msg, Popped *p)
{
  queue_push(queue, msg);

  p->path_options = (LogPathOptions) LOG_PATH_OPTIONS_INIT;
  LogMessage *popped = log_queue_pop_head(queue, &p->path_options);
  log_msg_refcache_start_consumer(popped, &p->path_options);
  scratch_buffers_mark(&p->mark);
  return popped;
}

static void
queue_done(LogMessage *popped, Popped *p)
{
  scratch_buffers_reclaim_marked(p->mark);
  log_msg_unref(popped);
  log_msg_refcache_stop();
}

static LogQueue *
new_queue(void)
{
  return fd_log_queue_fifo_new_with_backlog(100000);
}

static gboolean
write_all_iov(gint fd, struct iovec *iov, gint n)
{
  while (n > 0)
    {
      ssize_t rc = writev(fd, iov, MIN(n, IOV_MAX));
      if (rc < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      while (n > 0 && (size_t) rc >= iov->iov_len)
        {
          rc -= iov->iov_len;
          iov++;
          n--;
        }
      if (n > 0 && rc > 0)
        {
          iov->iov_base = (gchar *) iov->iov_base + rc;
          iov->iov_len -= rc;
        }
    }
  return TRUE;
}

static gchar *
path_for(Row *self, const gchar *suffix)
{
  return g_strdup_printf("%s/%s%s", work_dir, self->key, suffix);
}

static gboolean
file_size_is(Row *self, const gchar *path, guint64 expected)
{
  struct stat st;

  if (stat(path, &st) < 0)
    {
      row_fail(self, "%s: %s", path, g_strerror(errno));
      return FALSE;
    }
  if ((guint64) st.st_size != expected)
    {
      row_fail(self, "%s: %" G_GUINT64_FORMAT " bytes, expected %" G_GUINT64_FORMAT, path,
               (guint64) st.st_size, expected);
      return FALSE;
    }
  return TRUE;
}

static void
ack_check(Row *self, guint64 before, guint64 n)
{
  if (acks - before != n)
    row_fail(self, "%" G_GUINT64_FORMAT " messages acked, expected %" G_GUINT64_FORMAT, acks - before, n);
}

/* ------------------------------------------------------------------ stock file() mimic */

typedef struct
{
  LogQueue *queue;
  LogWriter *writer;               /* for log_writer_format_log(): the default format */
  LogWriterOptions writer_options;
  LogTemplate *template;           /* or this, with log_template_format() */
  GString *line;                   /* LogWriter's line_buffer */
  struct iovec *iov;
  gint n_iov;
  gint flush_lines;
  gint fd;
  gchar *path;
  GArray *line_len;                /* per prebuilt message, for the size check */
  gint32 seq_num;
} StockFile;

static const gchar *stock_template_str = "${ISODATE} ${HOST} ${MSGHDR}${MSG}\n";
static const gchar *json_template_str =
  "$(format-json --scope nv-pairs PRIORITY=$LEVEL_NUM SYSLOG_FACILITY=$FACILITY_NUM SYSLOG_TIMESTAMP=$ISODATE)\n";

static void
stock_format(StockFile *s, LogMessage *msg, GString *out)
{
  if (s->writer)
    {
      log_writer_format_log(s->writer, msg, out);
    }
  else
    {
      LogTemplateEvalOptions options = { &tpl_options, LTZ_SEND, s->seq_num++, NULL, LM_VT_STRING };
      log_template_format(s->template, msg, &options, out);
    }
}

static gboolean
stock_flush(StockFile *s)
{
  gboolean ok = write_all_iov(s->fd, s->iov, s->n_iov);

  /* as LogProtoFileWriter: the lines were handed over, free them after the write */
  for (gint i = 0; i < s->n_iov; i++)
    g_free(s->iov[i].iov_base);
  log_queue_ack_backlog(s->queue, s->n_iov);
  s->n_iov = 0;
  return ok;
}

static gboolean
stock_setup_common(Row *self, const gchar *template_str, gint flush_lines, LogMessage **msgs)
{
  StockFile *s = g_new0(StockFile, 1);

  self->state = s;
  s->queue = new_queue();
  if (template_str)
    {
      GError *error = NULL;
      s->template = log_template_new(cfg, NULL);
      if (!log_template_compile(s->template, template_str, &error))
        {
          self->na = g_strdup_printf("template does not compile: %s", error->message);
          g_clear_error(&error);
          return FALSE;
        }
    }
  else
    {
      s->writer = log_writer_new(LW_FORMAT_FILE, cfg);
      log_writer_options_defaults(&s->writer_options);
      log_writer_options_init(&s->writer_options, cfg, 0);
      log_writer_set_options(s->writer, NULL, &s->writer_options, NULL, NULL);
    }
  s->line = g_string_sized_new(128);
  s->flush_lines = flush_lines;
  s->iov = g_new(struct iovec, flush_lines);
  s->path = path_for(self, ".out");
  s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (s->fd < 0)
    {
      self->na = g_strdup_printf("%s: %s", s->path, g_strerror(errno));
      return FALSE;
    }
  s->line_len = g_array_new(FALSE, FALSE, sizeof(guint));
  GString *tmp = g_string_new("");
  for (guint i = 0; i < N_MSGS; i++)
    {
      stock_format(s, msgs[i], tmp);
      guint len = tmp->len;
      g_array_append_val(s->line_len, len);
    }
  g_string_free(tmp, TRUE);
  return TRUE;
}

static gboolean
stock_run_msgs(Row *self, guint64 n, LogMessage **msgs)
{
  StockFile *s = self->state;

  if (ftruncate(s->fd, 0) < 0)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    {
      Popped p;
      LogMessage *msg = queue_cycle(s->queue, msgs[i % N_MSGS], &p);

      stock_format(s, msg, s->line);
      if (s->line->len)
        {
          /* log_proto_client_post() takes the buffer; LogWriter allocates a new one */
          s->iov[s->n_iov].iov_base = s->line->str;
          s->iov[s->n_iov].iov_len = s->line->len;
          s->n_iov++;
          s->line->str = g_malloc(s->line->allocated_len);
          s->line->str[0] = 0;
          s->line->len = 0;
        }
      queue_done(msg, &p);
      if (s->n_iov == s->flush_lines && !stock_flush(s))
        return FALSE;
    }
  return s->n_iov == 0 || stock_flush(s);
}

static gboolean
stock_run(Row *self, guint64 n)
{
  return stock_run_msgs(self, n, file_msgs);
}

static gboolean
stock_run_se(Row *self, guint64 n)
{
  return stock_run_msgs(self, n, se_msgs);
}

static guint64
stock_expected_size(StockFile *s, guint64 n)
{
  guint64 total = 0;

  for (guint64 i = 0; i < n; i++)
    total += g_array_index(s->line_len, guint, i % N_MSGS);
  return total;
}

static gboolean
stock_check(Row *self, guint64 n)
{
  StockFile *s = self->state;
  return file_size_is(self, s->path, stock_expected_size(s, n));
}

static void
stock_teardown(Row *self)
{
  StockFile *s = self->state;

  if (!s)
    return;
  if (s->writer)
    {
      log_pipe_unref((LogPipe *) s->writer);
      log_writer_options_destroy(&s->writer_options);
    }
  if (s->template)
    log_template_unref(s->template);
  if (s->fd >= 0)
    close(s->fd);
  g_string_free(s->line, TRUE);
  g_free(s->iov);
  if (s->line_len)
    g_array_free(s->line_len, TRUE);
  log_queue_unref(s->queue);
  /* the output stays for the cross-checks; the runner removes the directory */
  g_free(s->path);
  g_free(s);
}

static gboolean
stock_default_100_setup(Row *self)
{
  return stock_setup_common(self, NULL, 100, file_msgs);
}

static gboolean
stock_default_1000_setup(Row *self)
{
  return stock_setup_common(self, NULL, 1000, file_msgs);
}

static gboolean
stock_template_setup(Row *self)
{
  return stock_setup_common(self, stock_template_str, 1000, file_msgs);
}

static gboolean
stock_json_setup(Row *self)
{
  return stock_setup_common(self, json_template_str, 100, se_msgs);
}

/* ------------------------------------------------------------------ fast-file() worker */

typedef struct
{
  FastFileDriver *driver;
  LogThreadedDestWorker *worker;
  LogQueue *queue;
  gchar *path;
  const gchar *template;
  const gchar *encoding;
  const gchar *line_ending;
} FastFile;

static gboolean
fastfile_setup_with(Row *self, const gchar *template, const gchar *encoding, const gchar *line_ending)
{
  FastFile *f = g_new0(FastFile, 1);
  GError *error = NULL;
  LogTemplate *filename = log_template_new(cfg, NULL);

  self->state = f;
  f->path = path_for(self, ".out");
  unlink(f->path);
  if (!log_template_compile(filename, f->path, &error))
    {
      self->na = g_strdup(error->message);
      g_clear_error(&error);
      return FALSE;
    }
  f->driver = (FastFileDriver *) fastfile_dd_new(filename, cfg);
  LogDriver *d = &f->driver->super.super.super;
  if (template && !fastfile_dd_set_template(d, template, &error))
    {
      self->na = g_strdup(error->message);
      g_clear_error(&error);
      return FALSE;
    }
  if (encoding && !fastfile_dd_set_encoding(d, encoding, &error))
    {
      self->na = g_strdup(error->message);
      g_clear_error(&error);
      return FALSE;
    }
  if (line_ending)
    fastfile_dd_set_line_ending(d, line_ending);
  log_template_options_init(&f->driver->template_options, cfg);
  append_opener_options_init(&f->driver->opener_options, cfg);

  f->queue = new_queue();
  fastfile_dd_init_worker_options(f->driver);
  f->worker = fastfile_worker_new(&f->driver->super, 0, &f->driver->worker_options);
  f->worker->queue = f->queue;
  f->driver->super.workers = &f->worker;
  f->driver->super.created_workers = 1;
  if (!f->worker->init(f->worker))
    {
      self->na = g_strdup("worker init failed");
      return FALSE;
    }
  return TRUE;
}

static gboolean
fastfile_default_setup(Row *self)
{
  return fastfile_setup_with(self, NULL, NULL, NULL);
}

static gboolean
fastfile_template_setup(Row *self)
{
  return fastfile_setup_with(self, stock_template_str, NULL, NULL);
}

static gboolean
fastfile_utf16_setup(Row *self)
{
  return fastfile_setup_with(self, NULL, "UTF-16LE", "crlf");
}

static gboolean
fastfile_flush(FastFile *f)
{
  LogThreadedResult r = log_threaded_dest_worker_flush(f->worker, LTF_FLUSH_NORMAL);
  return r == LTR_EXPLICIT_ACK_MGMT || r == LTR_SUCCESS;
}

static gboolean
fastfile_run(Row *self, guint64 n)
{
  FastFile *f = self->state;
  gint batch_lines = f->driver->super.batch_lines;

  /* the worker keeps its file open with O_APPEND: truncating it starts the repetition afresh */
  if (truncate(f->path, 0) < 0 && errno != ENOENT)
    return FALSE;
  for (guint64 done = 0; done < n;)
    {
      guint64 chunk = MIN((guint64) batch_lines, n - done);
      for (guint64 i = 0; i < chunk; i++)
        queue_push(f->queue, file_msgs[(done + i) % N_MSGS]);
      done += chunk;

      /* _perform_inserts(): one loop step per popped message; insert() takes
       * the messages behind it from the queue itself */
      Popped p = { LOG_PATH_OPTIONS_INIT };
      LogMessage *msg;
      while ((msg = log_queue_pop_head(f->queue, &p.path_options)))
        {
          log_msg_refcache_start_consumer(msg, &p.path_options);
          scratch_buffers_mark(&p.mark);
          f->worker->batch_size++;
          LogThreadedResult r = log_threaded_dest_worker_insert(f->worker, msg);
          if (r != LTR_QUEUED && r != LTR_EXPLICIT_ACK_MGMT && r != LTR_SUCCESS)
            {
              row_fail(self, "insert returned %d", r);
              return FALSE;
            }
          if (f->worker->batch_size >= batch_lines && !fastfile_flush(f))
            return FALSE;
          queue_done(msg, &p);
        }
    }
  return fastfile_flush(f) && f->worker->batch_size == 0;
}

/* the bytes are compared with the stock rows' at the end (cross_check); here: the file is there */
static gboolean
fastfile_check(Row *self, guint64 n)
{
  FastFile *f = self->state;
  struct stat st;

  if (stat(f->path, &st) < 0 || st.st_size == 0)
    {
      row_fail(self, "%s: missing or empty", f->path);
      return FALSE;
    }
  return TRUE;
}

static void
fastfile_teardown(Row *self)
{
  FastFile *f = self->state;

  if (!f)
    return;
  if (f->worker)
    {
      f->worker->deinit(f->worker);
      f->driver->super.workers = NULL;
      log_threaded_dest_worker_free(f->worker);
    }
  if (f->queue)
    log_queue_unref(f->queue);
  if (f->driver)
    log_pipe_unref(&f->driver->super.super.super.super);
  g_free(f->path);
  g_free(f);
}

/* ------------------------------------------------------------------ framework only */

typedef struct
{
  LogQueue *queue;
} QueueOnly;

static gboolean
queue_setup(Row *self)
{
  QueueOnly *q = g_new0(QueueOnly, 1);

  self->state = q;
  q->queue = new_queue();
  return TRUE;
}

static gboolean
queue_run(Row *self, guint64 n)
{
  QueueOnly *q = self->state;
  gint pending = 0;

  for (guint64 i = 0; i < n; i++)
    {
      Popped p;
      LogMessage *msg = queue_cycle(q->queue, file_msgs[i % N_MSGS], &p);
      queue_done(msg, &p);
      if (++pending == 1000)
        {
          log_queue_ack_backlog(q->queue, pending);
          pending = 0;
        }
    }
  log_queue_ack_backlog(q->queue, pending);
  return TRUE;
}

static void
queue_teardown(Row *self)
{
  QueueOnly *q = self->state;

  if (q)
    log_queue_unref(q->queue);
  g_free(q);
}

/* ------------------------------------------------------------------ structured-event */

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeJournalEncoder encoder;
  SeSink *sink;
  StatsCounterItem memfd_counter;
  StatsCounterItem *memfd_sends;
  gchar *buf;                      /* export copy / sd_journal_sendv layout */
  gsize buf_cap;
  struct iovec *iov;
  guint iov_cap;
  GString *json;                   /* for the format-json row */
  LogTemplate *template;
  gchar *path;
  gint32 seq_num;
  guint64 sent_before;
  guint64 encoded_bytes;
  gchar *ctf_dir;
  guint64 ctf_events;              /* all repetitions, warm-up included */
  SeSinkTally tally;               /* what the sink settled */
  GPid remote_pid;                 /* systemd-journal-remote, the peer of the HTTP(S) rows */
  gchar *remote_dir;
} Se;

static gboolean
se_setup_common(Row *self)
{
  Se *s = g_new0(Se, 1);
  ValuePairs *vp = value_pairs_new(cfg);

  self->state = s;
  value_pairs_add_scope(vp, "nv-pairs");
  s->options.selection = se_selection_new(cfg, vp);
  value_pairs_unref(vp);
  s->options.prefix = "";
  s->options.type_hints = TRUE;
  s->options.max_fields = 1000;
  s->options.template_options = &tpl_options;
  se_event_builder_init(&s->builder, &s->options);
  se_journal_encoder_init(&s->encoder);
  s->buf_cap = 65536;
  s->buf = g_malloc(s->buf_cap);
  s->iov_cap = 64;
  s->iov = g_new(struct iovec, s->iov_cap);
  s->memfd_sends = &s->memfd_counter;
  return TRUE;
}

static void
se_teardown(Row *self)
{
  Se *s = self->state;

  if (!s)
    return;
  if (s->sink)
    {
      se_sink_close(s->sink);
      se_sink_free(s->sink);
    }
  se_journal_encoder_destroy(&s->encoder);
  se_event_builder_destroy(&s->builder);
  se_selection_free(s->options.selection);
  if (s->template)
    log_template_unref(s->template);
  if (s->json)
    g_string_free(s->json, TRUE);
  g_free(s->buf);
  g_free(s->iov);
  g_free(s->path);
  g_free(s->ctf_dir);
  if (s->remote_pid > 0)
    {
      kill(s->remote_pid, SIGTERM);
      waitpid(s->remote_pid, NULL, 0);
    }
  if (s->remote_dir)
    {
      gchar *cmd = g_strdup_printf("rm -rf '%s'", s->remote_dir);
      if (system(cmd) != 0)
        fprintf(stderr, "hotpath: cannot remove %s\n", s->remote_dir);
      g_free(cmd);
    }
  g_free(s->remote_dir);
  g_free(s);
}

static gboolean
se_build_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;
  guint64 fields = 0;

  for (guint64 i = 0; i < n; i++)
    {
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      fields += event.n_fields;
    }
  /* 6 fixed fields, HOST (nv-pairs selects it, as $(format-json --scope nv-pairs) does) and the 10 pairs */
  if (fields != n * 17)
    row_fail(self, "%" G_GUINT64_FORMAT " fields built, expected %" G_GUINT64_FORMAT, fields, n * 17);
  return TRUE;
}

static gboolean
se_native_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;

  s->encoded_bytes = 0;
  for (guint64 i = 0; i < n; i++)
    {
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      se_journal_encode(&s->encoder, NULL, 0, &event, FALSE);
      s->encoded_bytes += s->encoder.total_len;
    }
  return TRUE;
}

static gboolean
se_export_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;
  SeField extra[2] = { { 0 } };
  gchar stamp[32];

  s->encoded_bytes = 0;
  for (guint64 i = 0; i < n; i++)
    {
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      /* the extras sink(journal-export) adds */
      const UnixTime *ut = event.stamp;
      gint len = g_snprintf(stamp, sizeof(stamp), "%" G_GINT64_FORMAT,
                            (gint64) ut->ut_sec * 1000000 + ut->ut_usec);
      extra[0] = (SeField)
      {
        .name = "__REALTIME_TIMESTAMP", .name_len = 20, .value = stamp, .value_len = len, .type = LM_VT_STRING
      };
      extra[1] = (SeField)
      {
        .name = "_HOSTNAME", .name_len = 9, .value = event.host, .value_len = event.host_len, .type = LM_VT_STRING
      };
      se_journal_encode(&s->encoder, extra, 2, &event, TRUE);
      if (s->encoder.total_len <= s->buf_cap)
        se_journal_encoder_copy(&s->encoder, s->buf);
      s->encoded_bytes += s->encoder.total_len;
    }
  return TRUE;
}

static gboolean
se_json_setup(Row *self)
{
  Se *s;
  GError *error = NULL;

  se_setup_common(self);
  s = self->state;
  s->template = log_template_new(cfg, NULL);
  if (!log_template_compile(s->template, json_template_str, &error))
    {
      self->na = g_strdup_printf("$(format-json) not available: %s", error->message);
      g_clear_error(&error);
      return FALSE;
    }
  s->json = g_string_sized_new(128);
  return TRUE;
}

/* stock: format into LogWriter's line buffer and hand it over, as file() does */
static gboolean
se_json_run(Row *self, guint64 n)
{
  Se *s = self->state;

  for (guint64 i = 0; i < n; i++)
    {
      LogTemplateEvalOptions options = { &tpl_options, LTZ_SEND, s->seq_num++, NULL, LM_VT_STRING };
      log_template_format(s->template, se_msgs[i % N_MSGS], &options, s->json);
      g_free(g_string_free(s->json, FALSE));
      s->json = g_string_sized_new(128);
    }
  return TRUE;
}

/* ------------------------------------------------------------------ the drained datagram socket */

typedef struct
{
  gint fd;
  gchar *path;
  pthread_t thread;
  volatile gint stop;
  guint64 received;                /* datagrams */
  guint64 bytes;
  /* the first datagram after capture is armed */
  gint capture;
  gchar captured[256 * 1024];     /* static: the drainer allocates nothing while counted */
  gsize captured_len;
} Drain;

static Drain drain = { .fd = -1 };  /* large: static storage */
static const gchar *drain_na;
static gboolean in_namespace;

static void *
drain_thread(void *arg)
{
  static gchar buf[256 * 1024];

  while (!drain.stop)
    {
      ssize_t n = recv(drain.fd, buf, sizeof(buf), 0);
      if (n < 0)
        {
          if (errno == EINTR || errno == EAGAIN)
            continue;
          break;
        }
      if (__atomic_load_n(&drain.capture, __ATOMIC_ACQUIRE))
        {
          memcpy(drain.captured, buf, n);
          drain.captured_len = n;
          __atomic_store_n(&drain.capture, 0, __ATOMIC_RELEASE);
        }
      __atomic_store_n(&drain.bytes, drain.bytes + n, __ATOMIC_RELAXED);
      __atomic_store_n(&drain.received, drain.received + 1, __ATOMIC_RELEASE);
    }
  return NULL;
}

static gboolean
drain_start(const gchar *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  gint size = 16 * 1024 * 1024;
  struct timeval tv = { 0, 200000 };

  drain.path = g_strdup(path);
  unlink(path);
  drain.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  g_strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
  if (drain.fd < 0 || bind(drain.fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
    {
      drain_na = "cannot bind the drained socket";
      return FALSE;
    }
  /* a big receive buffer, as journald has; FORCE needs root, the plain one is capped by rmem_max */
  if (setsockopt(drain.fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
    setsockopt(drain.fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  setsockopt(drain.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  pthread_create(&drain.thread, NULL, drain_thread, NULL);
  return TRUE;
}

static void
drain_stop(void)
{
  if (drain.fd < 0)
    return;
  drain.stop = 1;
  pthread_join(drain.thread, NULL);
  close(drain.fd);
  unlink(drain.path);
  g_free(drain.path);
}

/* the drainer has read everything sent so far (part of the measured time) */
static gboolean
drain_wait(guint64 target)
{
  guint64 deadline = now_ns(CLOCK_MONOTONIC) + 10000000000ULL;

  while (__atomic_load_n(&drain.received, __ATOMIC_ACQUIRE) < target)
    {
      if (now_ns(CLOCK_MONOTONIC) > deadline)
        return FALSE;
      sched_yield();
    }
  return TRUE;
}

static void
drain_arm_capture(void)
{
  drain.captured_len = 0;
  __atomic_store_n(&drain.capture, 1, __ATOMIC_RELEASE);
}

/* the first datagram of a repetition is the native encoding of se_msgs[0] */
static void
drain_check_first(Row *self, Se *s)
{
  SeJournalEncoder enc;
  SeEvent event;
  SeEventBuilder builder;

  se_event_builder_init(&builder, &s->options);
  se_journal_encoder_init(&enc);
  se_event_build(&builder, se_msgs[0], 0, &event);
  se_journal_encode(&enc, NULL, 0, &event, FALSE);
  gchar *expected = g_malloc(enc.total_len);
  se_journal_encoder_copy(&enc, expected);
  if (drain.captured_len != enc.total_len || memcmp(drain.captured, expected, enc.total_len) != 0)
    row_fail(self, "first datagram (%" G_GSIZE_FORMAT " bytes) differs from the native encoding of the event "
             "(%" G_GSIZE_FORMAT " bytes)", drain.captured_len, enc.total_len);
  g_free(expected);
  se_journal_encoder_destroy(&enc);
  se_event_builder_destroy(&builder);
}

static gboolean
se_journald_setup(Row *self)
{
  Se *s;

  if (drain.fd < 0)
    {
      self->na = g_strdup(drain_na ? drain_na : "no drained socket");
      return FALSE;
    }
  se_setup_common(self);
  s = self->state;
  s->sink = se_sink_journald_new(&(SeSinkJournaldOptions)
  {
    .socket = drain.path, .memfd_sends = &s->memfd_sends
  });
  se_sink_tally_attach(s->sink, &s->tally);
  if (!se_sink_open(s->sink))
    {
      self->na = g_strdup("cannot connect to the drained socket");
      return FALSE;
    }
  return TRUE;
}

static gboolean
se_journald_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;

  s->sent_before = __atomic_load_n(&drain.received, __ATOMIC_ACQUIRE);
  drain_arm_capture();
  for (guint64 i = 0; i < n; i++)
    {
      guint64 before = s->tally.delivered;
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      SeSinkResult r;
      while ((r = se_sink_emit(s->sink, &event)) == SE_SINK_RETRY)
        ;
      if (r != SE_SINK_OK || s->tally.delivered != before + 1)
        {
          row_fail(self, "emit: %s, delivered %u", se_sink_result_name(r), (guint) (s->tally.delivered - before));
          return FALSE;
        }
    }
  if (!drain_wait(s->sent_before + n))
    row_fail(self, "the drainer got %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " datagrams",
             drain.received - s->sent_before, n);
  return TRUE;
}

static gboolean
se_socket_check(Row *self, guint64 n)
{
  Se *s = self->state;

  if (drain.received - s->sent_before != n)
    row_fail(self, "%" G_GUINT64_FORMAT " datagrams received, %" G_GUINT64_FORMAT " sent",
             drain.received - s->sent_before, n);
  drain_check_first(self, s);
  return !self->failed;
}

static gboolean
sd_setup(Row *self)
{
  if (!sd_sendv)
    {
      self->na = g_strdup(sd_missing);
      return FALSE;
    }
  if (!in_namespace)
    {
      self->na = g_strdup("needs --journal-ns (root: private mount namespace with the drained socket at "
                          JOURNAL_SOCKET ")");
      return FALSE;
    }
  if (drain.fd < 0)
    {
      self->na = g_strdup(drain_na ? drain_na : "no drained socket");
      return FALSE;
    }
  return se_setup_common(self);
}

/* the same fields as sink(journald), laid out as NAME=value in a reused buffer, one iovec each */
static gboolean
sd_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;

  s->sent_before = __atomic_load_n(&drain.received, __ATOMIC_ACQUIRE);
  drain_arm_capture();
  for (guint64 i = 0; i < n; i++)
    {
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      gchar *p = s->buf;
      for (guint f = 0; f < event.n_fields; f++)
        {
          const SeField *field = &event.fields[f];
          s->iov[f].iov_base = p;
          memcpy(p, field->name, field->name_len);
          p += field->name_len;
          *p++ = '=';
          memcpy(p, field->value, field->value_len);
          p += field->value_len;
          s->iov[f].iov_len = p - (gchar *) s->iov[f].iov_base;
        }
      gint rc = sd_sendv(s->iov, event.n_fields);
      if (rc < 0)
        {
          row_fail(self, "sd_journal_sendv: %s", g_strerror(-rc));
          return FALSE;
        }
    }
  if (!drain_wait(s->sent_before + n))
    row_fail(self, "the drainer got %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " datagrams",
             drain.received - s->sent_before, n);
  return TRUE;
}

static gboolean
se_export_file_setup(Row *self)
{
  Se *s;
  SeSinkExportOptions options = { 0 };
  GError *error = NULL;

  se_setup_common(self);
  s = self->state;
  s->path = path_for(self, ".export");
  unlink(s->path);
  options.path = log_template_new(cfg, NULL);
  if (!log_template_compile(options.path, s->path, &error))
    {
      self->na = g_strdup(error->message);
      g_clear_error(&error);
      log_template_unref(options.path);
      return FALSE;
    }
  options.template_options = &tpl_options;
  options.batch_records = 100;     /* structured-event()'s default batch-lines() */
  append_opener_options_defaults(&options.opener);
  append_opener_options_init(&options.opener, cfg);
  s->sink = se_sink_export_new(&options);
  se_sink_tally_attach(s->sink, &s->tally);
  log_template_unref(options.path);
  if (!se_sink_open(s->sink))
    {
      self->na = g_strdup("cannot open the export file");
      return FALSE;
    }
  return TRUE;
}

static gboolean
se_export_file_run(Row *self, guint64 n)
{
  Se *s = self->state;
  SeEvent event;
  guint64 before = s->tally.delivered;

  /* a CTF stream only ever takes whole packets: it grows over the repetitions instead; HTTP rows have no file */
  if (s->path && truncate(s->path, 0) < 0 && errno != ENOENT)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    {
      se_event_build(&s->builder, se_msgs[i % N_MSGS], s->seq_num++, &event);
      SeSinkResult r = se_sink_emit(s->sink, &event);
      if (r != SE_SINK_OK)
        {
          row_fail(self, "emit: %s", se_sink_result_name(r));
          return FALSE;
        }
      /* as the worker does at batch-lines() */
      if (se_sink_pending(s->sink) >= 100)
        {
          if (se_sink_flush(s->sink) != SE_SINK_OK)
            return FALSE;
        }
    }
  if (se_sink_flush(s->sink) != SE_SINK_OK)
    return FALSE;
  if (s->tally.delivered - before != n)
    row_fail(self, "%" G_GUINT64_FORMAT " events reported delivered, %" G_GUINT64_FORMAT " emitted",
             s->tally.delivered - before, n);
  s->ctf_events += n;
  return TRUE;
}

static guint64
count_in_file(const gchar *path, const gchar *needle, gsize needle_len)
{
  gint fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  guint64 count = 0;

  if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0)
    {
      if (fd >= 0)
        close(fd);
      return 0;
    }
  const gchar *data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED)
    return 0;
  const gchar *p = data, *end = data + st.st_size;
  while ((p = memmem(p, end - p, needle, needle_len)))
    {
      count++;
      p += needle_len;
    }
  munmap((void *) data, st.st_size);
  return count;
}

static gboolean
se_export_file_check(Row *self, guint64 n)
{
  Se *s = self->state;
  guint64 entries = count_in_file(s->path, "\n\n", 2);
  guint64 stamps = count_in_file(s->path, "__REALTIME_TIMESTAMP=", 21);

  if (entries != n || stamps != n)
    row_fail(self, "%s: %" G_GUINT64_FORMAT " entries (%" G_GUINT64_FORMAT " timestamps), expected %"
             G_GUINT64_FORMAT, s->path, entries, stamps, n);
  return !self->failed;
}

static gboolean
stock_json_check(Row *self, guint64 n)
{
  StockFile *s = self->state;

  if (!stock_check(self, n))
    return FALSE;
  if (count_in_file(s->path, "\"seq\":\"", 7) != n)
    row_fail(self, "%s: not %" G_GUINT64_FORMAT " JSON objects with a seq", s->path, n);
  return !self->failed;
}

static gsize ctf_drops_reported;

static gboolean
se_ctf_setup(Row *self)
{
  Se *s;
  SeSinkCtfOptions options = { 0 };
  gchar *cmd;

  se_setup_common(self);
  s = self->state;
  s->ctf_dir = path_for(self, ".ctf");
  cmd = g_strdup_printf("rm -rf '%s'", s->ctf_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "hotpath: cannot clean %s\n", s->ctf_dir);
  g_free(cmd);
  g_mkdir_with_parents(s->ctf_dir, 0755);
  options.path = log_template_new(cfg, NULL);
  log_template_compile_literal_string(options.path, s->ctf_dir);
  options.worker_index = 0;
  options.drops_reported = &ctf_drops_reported;
  append_opener_options_defaults(&options.opener);
  append_opener_options_init(&options.opener, cfg);
  s->sink = se_sink_ctf_new(&options);
  log_template_unref(options.path);
  se_sink_tally_attach(s->sink, &s->tally);
  if (!se_sink_open(s->sink))
    {
      self->na = g_strdup("cannot open the CTF trace directory");
      return FALSE;
    }
  return TRUE;
}

/* after the last repetition: babeltrace2 reads back every event of the trace */
static void
se_ctf_final_check(Row *self)
{
  Se *s = self->state;
  gchar *cmd, *bt2 = g_find_program_in_path("babeltrace2");
  FILE *p;
  guint64 lines = 0;
  gchar buf[65536];
  size_t got;

  if (!bt2)
    {
      g_string_append(self->detail, "babeltrace2 not installed: trace not read back");
      return;
    }
  g_free(bt2);
  se_sink_close(s->sink);
  cmd = g_strdup_printf("babeltrace2 '%s' 2>&1", s->ctf_dir);
  p = popen(cmd, "r");
  g_free(cmd);
  if (!p)
    return;
  while ((got = fread(buf, 1, sizeof(buf), p)) > 0)
    for (size_t i = 0; i < got; i++)
      lines += buf[i] == '\n';
  gint rc = pclose(p);
  if (rc != 0 || lines != s->ctf_events)
    row_fail(self, "babeltrace2 read %" G_GUINT64_FORMAT " lines (exit %d), %" G_GUINT64_FORMAT " events written",
             lines, rc, s->ctf_events);
  else
    g_string_append_printf(self->detail, "babeltrace2 read back all %" G_GUINT64_FORMAT " events", lines);
}

/* ------------------------------------------------------------------ the table of rows */

/* ------------------------------------------------------------------ journal-export over HTTP and HTTPS */

#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"

static gboolean
run_quietly(const gchar *cwd, const gchar *const *argv)
{
  gint status = -1;

  return g_spawn_sync(cwd, (gchar **) argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, NULL, NULL, &status, NULL) && g_spawn_check_wait_status(status, NULL);
}

/* a test CA and a certificate for 127.0.0.1 it signed, made with openssl in dir */
static gboolean
make_certificates(const gchar *dir)
{
  const gchar *ca[] =
  {
    "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
    "-subj", "/CN=hotpath CA", "-addext", "basicConstraints=critical,CA:TRUE", NULL
  };
  const gchar *csr[] =
  {
    "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
    "-subj", "/CN=127.0.0.1", NULL
  };
  const gchar *sign[] =
  {
    "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial", "2",
    "-days", "2", "-out", "server.crt", "-extfile", "server.ext", NULL
  };
  gchar *ext = g_build_filename(dir, "server.ext", NULL);
  gboolean ok = g_file_set_contents(ext, "subjectAltName=IP:127.0.0.1\n", -1, NULL)
                && run_quietly(dir, ca) && run_quietly(dir, csr) && run_quietly(dir, sign);

  g_free(ext);
  return ok;
}

/* in the bench's private network namespace the loopback interface starts down */
static void
loopback_up(void)
{
  struct ifreq ifr = { 0 };
  gint fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  g_strlcpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name));
  if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP))
    {
      ifr.ifr_flags |= IFF_UP;
      if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
        fprintf(stderr, "hotpath: cannot bring lo up: %s\n", g_strerror(errno));
    }
  if (fd >= 0)
    close(fd);
}

static gint
free_tcp_port(void)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof(sa);
  gint fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

  if (fd >= 0 && bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0
      && getsockname(fd, (struct sockaddr *) &sa, &len) == 0)
    port = ntohs(sa.sin_port);
  if (fd >= 0)
    close(fd);
  return port;
}

static gboolean
tcp_listening(gint port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  gint fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  gboolean ok = fd >= 0 && connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0;

  if (fd >= 0)
    close(fd);
  return ok;
}

/*
 * sink(journal-export) url() into systemd-journal-remote on 127.0.0.1, --listen-http or --listen-https
 * (a certificate of a CA made here): the same batches of 100 as the file row; an event counts once
 * journal-remote answered 2xx for its batch (after storing it).  The HTTPS row minus the HTTP row is
 * what TLS costs per event.
 */
static gboolean
se_export_remote_setup(Row *self, gboolean https)
{
  SeSinkExportOptions options;
  Se *s;
  gint port;
  gchar *out, *listen, *cert = NULL, *key = NULL;

  if (!g_file_test(JOURNAL_REMOTE, G_FILE_TEST_IS_EXECUTABLE))
    {
      self->na = g_strdup("systemd-journal-remote not installed");
      return FALSE;
    }
  se_setup_common(self);
  s = self->state;
  if (in_namespace)
    loopback_up();
  s->remote_dir = path_for(self, ".remote");
  g_mkdir_with_parents(s->remote_dir, 0700);
  if (https && !make_certificates(s->remote_dir))
    {
      self->na = g_strdup("openssl could not make the test certificates");
      return FALSE;
    }
  port = free_tcp_port();
  out = g_strdup_printf("--output=%s/remote.journal", s->remote_dir);
  listen = g_strdup_printf("--listen-%s=127.0.0.1:%d", https ? "https" : "http", port);
  cert = g_strdup_printf("--cert=%s/server.crt", s->remote_dir);
  key = g_strdup_printf("--key=%s/server.key", s->remote_dir);
  const gchar *argv[] = { JOURNAL_REMOTE, listen, "--split-mode=none", out, https ? cert : NULL, key, NULL };
  gboolean spawned = g_spawn_async(NULL, (gchar **) argv, NULL,
                                   G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                   NULL, NULL, &s->remote_pid, NULL);
  g_free(out);
  g_free(listen);
  g_free(cert);
  g_free(key);
  for (gint i = 0; spawned && i < 1000 && !tcp_listening(port); i++)
    g_usleep(10000);
  if (!spawned || !tcp_listening(port))
    {
      self->na = g_strdup("systemd-journal-remote does not listen");
      return FALSE;
    }

  se_sink_export_options_defaults(&options);
  options.url = g_strdup_printf("%s://127.0.0.1:%d/upload", https ? "https" : "http", port);
  if (https)
    options.tls.ca_file = g_strdup_printf("%s/ca.crt", s->remote_dir);
  options.template_options = &tpl_options;
  options.batch_records = 100;     /* structured-event()'s default batch-lines() */
  append_opener_options_defaults(&options.opener);
  s->sink = se_sink_export_new(&options);
  se_sink_tally_attach(s->sink, &s->tally);
  se_sink_export_options_destroy(&options);
  return se_sink_open(s->sink);
}

static gboolean
se_export_http_setup(Row *self)
{
  return se_export_remote_setup(self, FALSE);
}

static gboolean
se_export_https_setup(Row *self)
{
  return se_export_remote_setup(self, TRUE);
}

static Row rows[] =
{
  {
    "file", "queue-only", "framework only: queue push, pop, ack (no output)", NULL,
    queue_setup, queue_run, NULL, queue_teardown
  },
  {
    "file", "stock-default-100", "stock file() mimic: log_writer_format_log(), fresh buffer/msg, writev per 100", NULL,
    stock_default_100_setup, stock_run, stock_check, stock_teardown
  },
  {
    "file", "stock-default-1000", "stock file() mimic, flush-lines(1000): writev per 1000", "stock-default-100",
    stock_default_1000_setup, stock_run, stock_check, stock_teardown
  },
  {
    "file", "fastfile-default", "fast-file() worker, default format, batch-lines 1000", "stock-default-100",
    fastfile_default_setup, fastfile_run, fastfile_check, fastfile_teardown
  },
  {
    "file", "fastfile-utf16", "fast-file() worker, UTF-16LE CRLF", "stock-default-100",
    fastfile_utf16_setup, fastfile_run, fastfile_check, fastfile_teardown
  },
  {
    "file", "stock-template", "stock file() mimic: log_template_format() of a template, writev per 1000", NULL,
    stock_template_setup, stock_run, stock_check, stock_teardown
  },
  {
    "file", "fastfile-template", "fast-file() worker, the same template", "stock-template",
    fastfile_template_setup, fastfile_run, fastfile_check, fastfile_teardown
  },

  {
    "encoders", "format-json", "stock $(format-json --scope nv-pairs ...) into a fresh GString", NULL,
    se_json_setup, se_json_run, NULL, se_teardown
  },
  {
    "encoders", "se-build", "structured-event: event build only (17 fields)", "format-json",
    se_setup_common, se_build_run, NULL, se_teardown
  },
  {
    "encoders", "se-native", "structured-event: build + journald datagram encoding", "format-json",
    se_setup_common, se_native_run, NULL, se_teardown
  },
  {
    "encoders", "se-export", "structured-event: build + Journal Export encoding + copy", "format-json",
    se_setup_common, se_export_run, NULL, se_teardown
  },

  {
    "sinks", "sd-journal-sendv", "libsystemd sd_journal_sendv(), same fields, drained socket", NULL,
    sd_setup, sd_run, se_socket_check, se_teardown
  },
  {
    "sinks", "se-journald", "structured-event sink(journald), same drained socket", "sd-journal-sendv",
    se_journald_setup, se_journald_run, se_socket_check, se_teardown
  },
  {
    "sinks", "stock-json-file", "stock file() mimic with $(format-json): fresh buffer/msg, writev per 100", NULL,
    stock_json_setup, stock_run_se, stock_json_check, stock_teardown
  },
  {
    "sinks", "se-export-file", "structured-event sink(journal-export) into a file, batch 100", "stock-json-file",
    se_export_file_setup, se_export_file_run, se_export_file_check, se_teardown
  },
  {
    "sinks", "se-ctf-file", "structured-event sink(ctf) into a trace directory, flush per 100", "stock-json-file",
    se_ctf_setup, se_export_file_run, NULL, se_teardown
  },
  {
    "sinks", "se-export-http", "structured-event sink(journal-export) url(http://) to systemd-journal-remote, "
    "batch 100", NULL, se_export_http_setup, se_export_file_run, NULL, se_teardown
  },
  {
    "sinks", "se-export-https", "the same over HTTPS (--listen-https, TLS through libcurl/OpenSSL)", "se-export-http",
    se_export_https_setup, se_export_file_run, NULL, se_teardown
  },
};

/* ------------------------------------------------------------------ cross-checks */

static gboolean
files_equal(const gchar *a, const gchar *b, gchar **why)
{
  gchar *ca = NULL, *cb = NULL;
  gsize la = 0, lb = 0;
  gboolean same;

  if (!g_file_get_contents(a, &ca, &la, NULL) || !g_file_get_contents(b, &cb, &lb, NULL))
    {
      *why = g_strdup_printf("cannot read %s or %s", a, b);
      g_free(ca);
      g_free(cb);
      return FALSE;
    }
  same = la == lb && memcmp(ca, cb, la) == 0;
  if (!same)
    *why = g_strdup_printf("%s (%" G_GSIZE_FORMAT " bytes) differs from %s (%" G_GSIZE_FORMAT " bytes)", a, la, b, lb);
  g_free(ca);
  g_free(cb);
  return same;
}

static Row *
row_by_key(const gchar *key)
{
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
    if (strcmp(rows[i].key, key) == 0)
      return &rows[i];
  return NULL;
}

static gchar *
utf16_crlf_of(const gchar *path)
{
  gchar *contents = NULL, *out = NULL;
  gsize len = 0;

  if (!g_file_get_contents(path, &contents, &len, NULL))
    return NULL;
  GString *crlf = g_string_sized_new(len + len / 50);
  for (gsize i = 0; i < len; i++)
    {
      if (contents[i] == '\n')
        g_string_append_c(crlf, '\r');
      g_string_append_c(crlf, contents[i]);
    }
  gsize written = 0;
  out = g_convert(crlf->str, crlf->len, "UTF-16LE", "UTF-8", NULL, &written, NULL);
  gchar *outpath = g_strconcat(path, ".utf16", NULL);
  if (out)
    g_file_set_contents(outpath, out, written, NULL);
  g_free(out);
  g_free(contents);
  g_string_free(crlf, TRUE);
  return outpath;
}

/* fast-file() must write exactly what stock file() writes (the last repetition of each) */
static void
cross_check(void)
{
  struct
  {
    const gchar *fast, *stock;
    gboolean utf16;
  } pairs[] =
  {
    { "fastfile-default", "stock-default-100", FALSE },
    { "fastfile-template", "stock-template", FALSE },
    { "fastfile-utf16", "stock-default-100", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS(pairs); i++)
    {
      Row *fast = row_by_key(pairs[i].fast), *stock = row_by_key(pairs[i].stock);
      if (!fast || !stock || fast->na || stock->na || !fast->ns || fast->ns->len == 0)
        continue;
      gchar *fp = path_for(fast, ".out"), *sp = path_for(stock, ".out"), *why = NULL;
      if (pairs[i].utf16)
        {
          gchar *conv = utf16_crlf_of(sp);
          g_free(sp);
          sp = conv;
        }
      if (!sp || !files_equal(fp, sp, &why))
        row_fail(fast, "output differs from stock: %s", why ? why : "cannot convert");
      g_free(why);
      g_free(fp);
      g_free(sp);
    }
}

/* ------------------------------------------------------------------ namespace */

static const gchar *
enter_journal_namespace(void)
{
  if (unshare(CLONE_NEWNS | CLONE_NEWNET) < 0)
    return "unshare(CLONE_NEWNS|CLONE_NEWNET) failed (not root?)";
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return "cannot make / private in the mount namespace";
  if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
    return "cannot mount a tmpfs on /run in the mount namespace";
  if (g_mkdir_with_parents("/run/systemd/journal", 0755) < 0)
    return "cannot create /run/systemd/journal in the private /run";
  /* systemd's sysctl default (50-default.conf); the kernel's is 10 */
  gint fd = open("/proc/sys/net/unix/max_dgram_qlen", O_WRONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      if (write(fd, "512\n", 4) != 4)
        fprintf(stderr, "hotpath: cannot set max_dgram_qlen in the private network namespace\n");
      close(fd);
    }
  return NULL;
}

static gint
read_int_file(const gchar *path)
{
  gchar *c = NULL;
  gint v = -1;

  if (g_file_get_contents(path, &c, NULL, NULL))
    v = atoi(c);
  g_free(c);
  return v;
}

/* ------------------------------------------------------------------ main */

static void
json_str(GString *out, const gchar *s)
{
  g_string_append_c(out, '"');
  for (; s && *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c(out, '\\');
      if ((guchar) *s < 0x20)
        g_string_append_printf(out, "\\u%04x", *s);
      else
        g_string_append_c(out, *s);
    }
  g_string_append_c(out, '"');
}

static void
print_row(Row *r, guint64 n, gint reps)
{
  GString *out = g_string_new("{\"group\": ");

  json_str(out, r->group);
  g_string_append(out, ", \"key\": ");
  json_str(out, r->key);
  g_string_append(out, ", \"method\": ");
  json_str(out, r->method);
  g_string_append(out, ", \"vs\": ");
  if (r->vs)
    json_str(out, r->vs);
  else
    g_string_append(out, "null");
  if (r->na)
    {
      g_string_append(out, ", \"na\": ");
      json_str(out, r->na);
    }
  else
    {
      g_string_append_printf(out, ", \"ops_per_rep\": %" G_GUINT64_FORMAT ", \"reps\": %d, \"ns\": [", n, reps);
      for (guint i = 0; i < r->ns->len; i++)
        g_string_append_printf(out, "%s%.2f", i ? ", " : "", g_array_index(r->ns, gdouble, i));
      g_string_append(out, "], \"cpu_ns\": [");
      for (guint i = 0; i < r->cpu_ns->len; i++)
        g_string_append_printf(out, "%s%.2f", i ? ", " : "", g_array_index(r->cpu_ns, gdouble, i));
      g_string_append(out, "]");
      if (counter_totals && r->ops)
        g_string_append_printf(out, ", \"allocs_per_op\": %.4f, \"bytes_per_op\": %.2f",
                               (gdouble) r->allocs / r->ops, (gdouble) r->bytes / r->ops);
      g_string_append(out, ", \"check\": ");
      json_str(out, r->failed ? "FAIL" : "PASS");
      g_string_append(out, ", \"detail\": ");
      json_str(out, r->detail->str);
    }
  g_string_append(out, "}\n");
  fputs(out->str, stdout);
  fflush(stdout);
  g_string_free(out, TRUE);
}

static gboolean
group_selected(const gchar *groups, const gchar *group)
{
  gchar **list = g_strsplit(groups, ",", -1);
  gboolean found = g_strv_contains((const gchar *const *) list, group);

  g_strfreev(list);
  return found;
}

int
main(int argc, char **argv)
{
  guint64 count = 200000, se_count = 50000;
  gint reps = 5;
  const gchar *groups = "file,encoders,sinks";
  gboolean journal_ns = FALSE;
  static const struct option long_options[] =
  {
    { "dir", required_argument, NULL, 'd' },
    { "count", required_argument, NULL, 'n' },
    { "se-count", required_argument, NULL, 'e' },
    { "reps", required_argument, NULL, 'r' },
    { "groups", required_argument, NULL, 'g' },
    { "journal-ns", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  gint c;

  while ((c = getopt_long(argc, argv, "d:n:e:r:g:jh", long_options, NULL)) != -1)
    {
      switch (c)
        {
        case 'd':
          work_dir = optarg;
          break;
        case 'n':
          count = g_ascii_strtoull(optarg, NULL, 10);
          break;
        case 'e':
          se_count = g_ascii_strtoull(optarg, NULL, 10);
          break;
        case 'r':
          reps = atoi(optarg);
          break;
        case 'g':
          groups = optarg;
          break;
        case 'j':
          journal_ns = TRUE;
          break;
        default:
          fprintf(stderr, "usage: %s --dir DIR [--count N] [--se-count N] [--reps R] [--groups file,encoders,sinks]"
                  " [--journal-ns]\n", argv[0]);
          return c == 'h' ? 0 : 2;
        }
    }
  if (!work_dir || count == 0 || se_count == 0 || reps < 1)
    {
      fprintf(stderr, "hotpath: --dir is required; counts and reps must be positive\n");
      return 2;
    }

  /* before any thread exists: unshare() of the mount namespace refuses a shared fs */
  const gchar *ns_error = NULL;
  if (journal_ns && group_selected(groups, "sinks"))
    {
      ns_error = enter_journal_namespace();
      in_namespace = ns_error == NULL;
      if (ns_error)
        fprintf(stderr, "hotpath: %s; sd_journal_sendv row n/a\n", ns_error);
    }

  counter_totals = dlsym(RTLD_DEFAULT, "malloc_counter_totals");
  if (!counter_totals)
    fprintf(stderr, "hotpath: malloc counter not preloaded: no allocation counts\n");
  void *libsystemd = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  if (libsystemd)
    sd_sendv = dlsym(libsystemd, "sd_journal_sendv");

  app_startup();
  resolved_configurable_paths_init(fd_resolved_configurable_paths());
  cfg = cfg_new_snippet();
  plugin_context_set_module_path(&cfg->plugin_context, fd_resolved_configurable_paths()->initial_module_path);
  /* the stock alternative's $(format-json) lives in json-plugin */
  if (!cfg_load_module(cfg, "json-plugin"))
    fprintf(stderr, "hotpath: json-plugin not loadable: $(format-json) rows n/a\n");
  log_template_options_defaults(&tpl_options);
  log_template_options_init(&tpl_options, cfg);

  for (guint i = 0; i < N_MSGS; i++)
    {
      file_msgs[i] = make_file_msg(i);
      se_msgs[i] = make_se_msg(i);
    }

  if (group_selected(groups, "sinks"))
    {
      gchar *local = g_strdup_printf("%s/journal.socket", work_dir);
      drain_start(in_namespace ? JOURNAL_SOCKET : local);
      g_free(local);
    }
  printf("{\"info\": {\"journal_ns\": %s, \"ns_error\": ", in_namespace ? "true" : "false");
  {
    GString *s = g_string_new("");
    json_str(s, ns_error ? ns_error : "");
    printf("%s, \"socket\": ", s->str);
    g_string_truncate(s, 0);
    json_str(s, drain.path ? drain.path : "");
    printf("%s, \"max_dgram_qlen\": %d, \"alloc_counter\": %s, \"n_msgs\": %d}}\n", s->str,
           read_int_file("/proc/sys/net/unix/max_dgram_qlen"), counter_totals ? "true" : "false", N_MSGS);
    g_string_free(s, TRUE);
  }
  fflush(stdout);

  GPtrArray *active = g_ptr_array_new();
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
    {
      Row *r = &rows[i];
      if (!group_selected(groups, r->group))
        continue;
      r->detail = g_string_new("");
      r->ns = g_array_new(FALSE, FALSE, sizeof(gdouble));
      r->cpu_ns = g_array_new(FALSE, FALSE, sizeof(gdouble));
      if (!r->setup(r) && !r->na)
        r->na = g_strdup("setup failed");
      g_ptr_array_add(active, r);
    }

  /* repetition 0 warms up (buffers grow to size, caches, name caches); it is not recorded */
  for (gint rep = 0; rep <= reps; rep++)
    {
      for (guint i = 0; i < active->len; i++)
        {
          Row *r = g_ptr_array_index(active, i);
          if (r->na || r->failed)
            continue;
          guint64 n = strcmp(r->group, "file") == 0 ? count : se_count;
          guint64 a0, b0, a1, b1, acks0 = acks;

          alloc_totals(&a0, &b0);
          guint64 c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns(CLOCK_MONOTONIC);
          gboolean ok = r->run(r, n);
          guint64 t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
          alloc_totals(&a1, &b1);

          if (!ok)
            row_fail(r, "run failed: %s", g_strerror(errno));
          if (strcmp(r->group, "file") == 0 || strcmp(r->key, "stock-json-file") == 0)
            ack_check(r, acks0, n);
          if (r->check_rep)
            r->check_rep(r, n);
          if (rep == 0)
            continue;
          gdouble ns = (gdouble)(t1 - t0) / n, cpu = (gdouble)(c1 - c0) / n;
          g_array_append_val(r->ns, ns);
          g_array_append_val(r->cpu_ns, cpu);
          r->allocs += a1 - a0;
          r->bytes += b1 - b0;
          r->ops += n;
        }
    }
  cross_check();
  Row *ctf = row_by_key("se-ctf-file");
  if (ctf && ctf->detail && ctf->state && !ctf->na && !ctf->failed)
    se_ctf_final_check(ctf);

  gboolean failed = FALSE;
  for (guint i = 0; i < active->len; i++)
    {
      Row *r = g_ptr_array_index(active, i);
      print_row(r, strcmp(r->group, "file") == 0 ? count : se_count, reps);
      failed |= r->failed;
    }
  for (guint i = 0; i < active->len; i++)
    {
      Row *r = g_ptr_array_index(active, i);
      if (r->teardown && r->state)
        r->teardown(r);
    }
  drain_stop();
  for (guint i = 0; i < N_MSGS; i++)
    {
      log_msg_unref(file_msgs[i]);
      log_msg_unref(se_msgs[i]);
    }
  cfg_free(cfg);
  app_shutdown();
  return failed ? 1 : 0;
}
