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

/* file()'s writer options in fast-file() (issue 17), below the daemon:
 *  - the record formatter against syslog-ng's own LogWriter (the code file()
 *    formats with), message by message, for flags(syslog-protocol),
 *    flags(no-multi-line), pad-size() and truncate-size();
 *  - suppress() and MARKs through the worker's queued path, with the lane's
 *    tick driven by hand. */

#include "testutil.h"
#include "fastfile.h"
#include "fastfile-format.h"
#include "fastfile-worker.h"
#include "apphook.h"
#include "cfg.h"
#include "logwriter.h"
#include "compat-logqueue.h"
#include "logmsg/logmsg.h"
#include "template/templates.h"
#include "hostname.h"
#include "host-resolve.h"

#include <unistd.h>

static GlobalConfig *cfg;
static gchar *tmpdir;

/* ------------------------------------------------------------------ messages */

static LogMessage *
make_msg(const gchar *host, const gchar *program, const gchar *pid, const gchar *text)
{
  LogMessage *msg = log_msg_new_empty();

  log_msg_set_value(msg, LM_V_HOST, host, -1);
  log_msg_set_value(msg, LM_V_PROGRAM, program, -1);
  log_msg_set_value(msg, LM_V_PID, pid, -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  msg->pri = 13;
  return msg;
}

/* a mix that reaches every branch of file()'s formats */
static GPtrArray *
sample_messages(void)
{
  GPtrArray *msgs = g_ptr_array_new_with_free_func((GDestroyNotify) log_msg_unref);
  LogMessage *msg;

  msg = make_msg("host1", "app", "123", "plain text");
  msg->pri = 165;
  msg->timestamps[LM_TS_STAMP].ut_sec = 1764478800;
  msg->timestamps[LM_TS_STAMP].ut_usec = 123456;
  msg->timestamps[LM_TS_STAMP].ut_gmtoff = 3600;
  log_msg_set_value_by_name(msg, "MSGID", "ID47", -1);
  log_msg_set_value_by_name(msg, ".SDATA.exampleSDID@32473.iut", "3", -1);
  log_msg_set_value_by_name(msg, ".SDATA.exampleSDID@32473.eventSource", "App\"x]", -1);
  g_ptr_array_add(msgs, msg);

  /* empty fields: "-" in RFC 5424, program[pid] rebuilt or left out by the default format */
  g_ptr_array_add(msgs, make_msg("", "", "", ""));
  g_ptr_array_add(msgs, make_msg("h", "prog", "", "no pid"));

  /* spaces end a header field; a BOM for LF_UTF8 */
  msg = make_msg("a host", "my prog", "1 2", "\xc3\xbcnic\xc3\xb6" "de");
  msg->flags |= LF_UTF8;
  g_ptr_array_add(msgs, msg);

  /* local: the meta sequenceId is the writer's; a meta block of its own gets it inside */
  msg = make_msg("h", "p", "1", "local with meta");
  msg->flags |= LF_LOCAL;
  log_msg_set_value_by_name(msg, ".SDATA.meta.x", "1", -1);
  g_ptr_array_add(msgs, msg);
  msg = make_msg("h", "p", "1", "remote with a sequenceId");
  log_msg_set_value_by_name(msg, ".SDATA.meta.sequenceId", "42", -1);
  g_ptr_array_add(msgs, msg);

  /* lines in a line: CR, LF; a legacy header kept as it came */
  g_ptr_array_add(msgs, make_msg("h", "p", "9", "one\ntwo\r\nthree\r"));
  msg = make_msg("h", "p", "9", "with a header");
  log_msg_set_value(msg, LM_V_LEGACY_MSGHDR, "legacy[1]: ", -1);
  g_ptr_array_add(msgs, msg);

  /* lengths around the sizes the tests use */
  for (gint len = 0; len < 90; len += 7)
    {
      gchar *text = g_strnfill(len, 'x');
      g_ptr_array_add(msgs, make_msg("h", "p", "1", text));
      g_free(text);
    }
  return msgs;
}

/* ------------------------------------------------------------------ the formatter against LogWriter */

typedef struct
{
  const gchar *name;
  guint32 flags;                      /* LWO_* */
  gint pad_size;
  gint truncate_size;
  const gchar *template;              /* NULL: file()'s default format */
} FormatCase;

/* what file() writes for msg: LogWriter's record */
static void
file_record(LogWriter *writer, LogMessage *msg, GString *out)
{
  log_writer_format_log(writer, msg, out);
}

static void
check_format_case(const FormatCase *c)
{
  LogWriterOptions writer_options;
  LogTemplateOptions template_options;
  FastFileRecordOptions record = { .truncate_size = -1 };
  FastFileFormatter formatter;
  LogTemplate *template = NULL;
  GError *error = NULL;

  log_template_options_defaults(&template_options);
  template_options.frac_digits = 3;
  log_template_options_init(&template_options, cfg);
  if (c->template)
    {
      template = log_template_new(cfg, NULL);
      CU_ASSERT_FATAL(log_template_compile(template, c->template, NULL));
    }

  /* defaults() leaves `initialized` as it finds it */
  memset(&writer_options, 0, sizeof(writer_options));
  log_writer_options_defaults(&writer_options);
  /* on top of the defaults (4.x: flags(seqnum)) */
  writer_options.options |= c->flags;
  writer_options.padding = c->pad_size;
  writer_options.truncate_size = c->truncate_size;
  writer_options.template = template ? log_template_ref(template) : NULL;
  writer_options.template_options.frac_digits = 3;
  log_writer_options_init(&writer_options, cfg, 0);
  LogWriter *writer = log_writer_new(LW_FORMAT_FILE, cfg);
  fd_log_writer_set_options(writer, &writer_options, "unit");

  record.syslog_protocol = (c->flags & LWO_SYSLOG_PROTOCOL) != 0;
  record.no_multi_line = (c->flags & LWO_NO_MULTI_LINE) != 0;
  record.pad_size = c->pad_size;
  record.truncate_size = c->truncate_size;
  CU_ASSERT_FATAL(fastfile_formatter_init(&formatter, template, &template_options, &record, NULL, LINE_ENDING_LF,
                                          &error));

  GPtrArray *msgs = sample_messages();
  GString *expected = g_string_new(NULL), *actual = g_string_new(NULL);
  for (guint i = 0; i < msgs->len; i++)
    {
      LogMessage *msg = g_ptr_array_index(msgs, i);

      g_string_truncate(expected, 0);
      g_string_truncate(actual, 0);
      file_record(writer, msg, expected);
      /* a new LogWriter numbers its first local record 1 */
      gboolean written = fastfile_formatter_append(&formatter, msg, 1, actual);

      /* file() writes nothing for an empty record */
      CU_ASSERT_EQUAL(written, expected->len > 0);
      /* file() leaves the last byte of a padded record unset: only that one may differ */
      gsize compare = expected->len;
      if (c->pad_size && actual->len == expected->len && actual->len && actual->str[actual->len - 1] == 0)
        compare--;
      gboolean same = actual->len == expected->len && memcmp(actual->str, expected->str, compare) == 0;
      if (!same)
        fprintf(stderr, "\n%s, message %u:\n file():      [%.*s] (%" G_GSIZE_FORMAT ")\n fast-file(): [%.*s] (%"
                G_GSIZE_FORMAT ")\n", c->name, i, (gint) expected->len, expected->str, expected->len,
                (gint) actual->len, actual->str, actual->len);
      CU_ASSERT_TRUE(same);
    }

  g_string_free(expected, TRUE);
  g_string_free(actual, TRUE);
  g_ptr_array_free(msgs, TRUE);
  fastfile_formatter_destroy(&formatter);
  log_pipe_unref((LogPipe *) writer);
  log_writer_options_destroy(&writer_options);
  log_template_options_destroy(&template_options);
  log_template_unref(template);
}

static void
test_formats_as_logwriter(void)
{
  const FormatCase cases[] =
  {
    { "default format", 0, 0, -1, NULL },
    { "template", 0, 0, -1, "${PROGRAM}|${MSG}|${SEQNUM}\n" },
    { "syslog-protocol", LWO_SYSLOG_PROTOCOL, 0, -1, NULL },
    { "syslog-protocol with a template", LWO_SYSLOG_PROTOCOL, 0, -1, "${MSG} ${SEQNUM}\n" },
    { "no-multi-line", LWO_NO_MULTI_LINE, 0, -1, NULL },
    { "no-multi-line, template", LWO_NO_MULTI_LINE, 0, -1, "${MSG}\n" },
    { "no-multi-line, syslog-protocol", LWO_NO_MULTI_LINE | LWO_SYSLOG_PROTOCOL, 0, -1, NULL },
    { "truncate-size", 0, 0, 40, NULL },
    { "truncate-size 0", 0, 0, 0, NULL },
    { "truncate-size, template", 0, 0, 12, "${MSG}\n" },
    { "truncate-size, syslog-protocol", LWO_SYSLOG_PROTOCOL, 0, 70, NULL },
    { "pad-size", 0, 64, -1, NULL },
    { "pad-size, syslog-protocol", LWO_SYSLOG_PROTOCOL, 96, -1, NULL },
    { "pad-size, no-multi-line", LWO_NO_MULTI_LINE, 64, -1, NULL },
    { "pad-size, truncate-size", 0, 64, 50, NULL },
    { "pad-size does not touch a template", 0, 64, -1, "${MSG}\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    check_format_case(&cases[i]);
}

/* ------------------------------------------------------------------ suppress() and MARK through a worker */

typedef struct
{
  FastFileDriver *driver;
  LogThreadedDestWorker *worker;
  LogQueue *queue;
} Rig;

static Rig
rig_new(const gchar *path, const gchar *template)
{
  Rig rig;
  LogTemplate *filename = log_template_new(cfg, NULL);

  g_assert(log_template_compile(filename, path, NULL));
  rig.driver = (FastFileDriver *) fastfile_dd_new(filename, cfg);
  g_assert(fastfile_dd_set_template(&rig.driver->super.super.super, template, NULL));
  fastfile_dd_set_time_reap(&rig.driver->super.super.super, 0);
  log_template_options_init(&rig.driver->template_options, cfg);
  append_opener_options_init(&rig.driver->opener_options, cfg);
  rig.queue = fd_log_queue_fifo_new_with_backlog(1000);
  rig.worker = NULL;
  return rig;
}

static void
rig_start(Rig *rig)
{
  fastfile_dd_init_worker_options(rig->driver);
  rig->worker = fastfile_worker_new(&rig->driver->super, 0, &rig->driver->worker_options);
  rig->worker->queue = rig->queue;
  rig->driver->super.workers = &rig->worker;
  rig->driver->super.created_workers = 1;
  CU_ASSERT_FATAL(rig->worker->init(rig->worker));
}

static void
rig_free(Rig *rig)
{
  rig->worker->deinit(rig->worker);
  rig->driver->super.workers = NULL;
  rig->driver->super.created_workers = 0;
  log_threaded_dest_worker_free(rig->worker);
  log_queue_unref(rig->queue);
  log_pipe_unref(&rig->driver->super.super.super.super);
}

/* a source queues msg and the framework's loop step takes it (the queued path) */
static void
feed(Rig *rig, LogMessage *msg)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

  log_queue_push_tail(rig->queue, msg, &path_options);
  LogMessage *popped = log_queue_pop_head(rig->queue, &path_options);
  rig->worker->batch_size++;
  log_threaded_dest_worker_insert(rig->worker, popped);
  log_msg_unref(popped);
}

static void
flush(Rig *rig)
{
  CU_ASSERT_EQUAL(log_threaded_dest_worker_flush(rig->worker, LTF_FLUSH_NORMAL), LTR_EXPLICIT_ACK_MGMT);
  /* every message acked, the repeats left out too */
  CU_ASSERT_EQUAL(rig->worker->batch_size, 0);
}

/* what the worker's tick does, at a time of the test's choosing */
static guint
tick(Rig *rig, gint64 now)
{
  FastFileWorker *worker = (FastFileWorker *) rig->worker;

  g_mutex_lock(&worker->lock);
  guint staged = fastfile_lane_tick(&worker->lane, now);
  worker->direct.handoff_requested = TRUE;
  worker->direct.handoff_now = TRUE;
  g_mutex_unlock(&worker->lock);
  fastfile_worker_write_requested(worker);
  return staged;
}

static gchar *
read_file(const gchar *path)
{
  gchar *contents = NULL;

  if (!g_file_get_contents(path, &contents, NULL, NULL))
    return g_strdup("<missing>");
  return contents;
}

static void
assert_file(const gchar *path, const gchar *expected)
{
  gchar *contents = read_file(path);

  if (strcmp(contents, expected) != 0)
    fprintf(stderr, "\n%s:\n expected [%s]\n found    [%s]\n", path, expected, contents);
  CU_ASSERT_STRING_EQUAL(contents, expected);
  g_free(contents);
}

static gint64
now_sec(void)
{
  return g_get_monotonic_time() / G_USEC_PER_SEC;
}

static void
test_suppress_runs_and_summaries(void)
{
  gchar *path = g_build_filename(tmpdir, "suppress.log", NULL);
  Rig rig = rig_new(path, "${HOST} ${PROGRAM}[${PID}] ${MSG}\n");
  fastfile_dd_set_suppress(&rig.driver->super.super.super, 60);
  rig_start(&rig);

  feed(&rig, make_msg("h", "p", "1", "same"));
  feed(&rig, make_msg("h", "p", "1", "same"));
  feed(&rig, make_msg("h", "p", "1", "same"));
  /* another pid, an empty text (a MARK to file()), a MARK: never repeats */
  feed(&rig, make_msg("h", "p", "2", "same"));
  feed(&rig, make_msg("h", "p", "2", ""));
  feed(&rig, make_msg("h", "p", "2", ""));
  feed(&rig, make_msg("h", "p", "2", "-- MARK --"));
  feed(&rig, make_msg("h", "p", "2", "-- MARK --"));
  feed(&rig, make_msg("h", "p", "2", "x"));
  feed(&rig, make_msg("h", "p", "2", "x"));
  flush(&rig);

  gchar *expected = g_strdup_printf("h p[1] same\n"
                                    "h p[%d] Last message 'same' repeated 2 times, suppressed by syslog-ng on %s\n"
                                    "h p[2] same\nh p[2] \nh p[2] \nh p[2] -- MARK --\nh p[2] -- MARK --\nh p[2] x\n",
                                    (gint) getpid(), get_local_hostname_fqdn());
  /* the summary: the last message's host and program, syslog-ng's pid, as file() makes it */
  assert_file(path, expected);

  /* the repeat of "x" waits for its summary: due suppress() seconds after it */
  CU_ASSERT_EQUAL(tick(&rig, now_sec() + 30), 0);
  CU_ASSERT_EQUAL(tick(&rig, now_sec() + 61), 1);
  gchar *with_timed = g_strdup_printf("%sh p[%d] Last message 'x' repeated 1 times, suppressed by syslog-ng on %s\n",
                                      expected, (gint) getpid(), get_local_hostname_fqdn());
  assert_file(path, with_timed);
  /* after the summary the next repeat is a first again */
  feed(&rig, make_msg("h", "p", "2", "x"));
  flush(&rig);
  gchar *again = g_strdup_printf("%sh p[2] x\n", with_timed);
  assert_file(path, again);

  g_free(again);
  g_free(with_timed);
  g_free(expected);
  rig_free(&rig);
  g_free(path);
}

static void
test_suppress_per_file(void)
{
  gchar *path = g_build_filename(tmpdir, "per-${HOST}.log", NULL);
  Rig rig = rig_new(path, "${MSG}\n");
  fastfile_dd_set_suppress(&rig.driver->super.super.super, 60);
  rig_start(&rig);

  /* interleaved hosts: each file keeps its own last message */
  for (gint i = 0; i < 3; i++)
    {
      feed(&rig, make_msg("a", "p", "1", "dup"));
      feed(&rig, make_msg("b", "p", "1", "dup"));
    }
  feed(&rig, make_msg("a", "p", "1", "end"));
  flush(&rig);

  gchar *a = g_build_filename(tmpdir, "per-a.log", NULL);
  gchar *b = g_build_filename(tmpdir, "per-b.log", NULL);
  gchar *expected_a = g_strdup_printf("dup\nLast message 'dup' repeated 2 times, suppressed by syslog-ng on %s\nend\n",
                                      get_local_hostname_fqdn());
  assert_file(a, expected_a);
  assert_file(b, "dup\n");
  /* b's repeats keep its file until their summary is written */
  CU_ASSERT_EQUAL(tick(&rig, now_sec() + 61), 1);
  gchar *expected_b = g_strdup_printf("dup\nLast message 'dup' repeated 2 times, suppressed by syslog-ng on %s\n",
                                      get_local_hostname_fqdn());
  assert_file(b, expected_b);

  g_free(expected_b);
  g_free(expected_a);
  g_free(b);
  g_free(a);
  rig_free(&rig);
  g_free(path);
}

static void
test_marks_dst_idle_and_internal(void)
{
  gchar *path = g_build_filename(tmpdir, "mark.log", NULL);
  Rig rig = rig_new(path, "${HOST} ${MSG}\n");
  fastfile_dd_set_mark_mode(&rig.driver->super.super.super, "dst-idle");
  fastfile_dd_set_mark_freq(&rig.driver->super.super.super, 10);
  rig_start(&rig);

  /* nothing before the first message */
  CU_ASSERT_EQUAL(tick(&rig, now_sec() + 100), 0);

  feed(&rig, make_msg("h", "p", "1", "hello"));
  /* an internal() MARK: left out in any mode but internal */
  LogMessage *internal_mark = log_msg_new_mark();
  log_msg_set_value(internal_mark, LM_V_HOST, "h", -1);
  feed(&rig, internal_mark);
  flush(&rig);
  assert_file(path, "h hello\n");

  gint64 start = now_sec();
  CU_ASSERT_EQUAL(tick(&rig, start + 5), 0);
  CU_ASSERT_EQUAL(tick(&rig, start + 11), 1);
  /* and on while nothing comes: the next one mark-freq() later */
  CU_ASSERT_EQUAL(tick(&rig, start + 12), 0);
  CU_ASSERT_EQUAL(tick(&rig, start + 21), 1);

  gsize host_len;
  const gchar *host = resolve_sockaddr_to_hostname(&host_len, NULL, &rig.driver->mark_options.host_resolve_options);
  gchar *expected = g_strdup_printf("h hello\n%.*s -- MARK --\n%.*s -- MARK --\n", (gint) host_len, host,
                                    (gint) host_len, host);
  assert_file(path, expected);

  g_free(expected);
  rig_free(&rig);
  g_free(path);
}

/* which templates read the destination's number: the step is left out for the others */
static void
test_template_reads_seq_num(void)
{
  static const struct
  {
    const gchar *template;
    gboolean reads;
  } cases[] =
  {
    { "${ISODATE} ${HOST} ${MSGHDR}${MSG}\n", FALSE },
    { "literal text", FALSE },
    { "$SEQNUM", TRUE },
    { "${MSG} ${SEQNUM}\n", TRUE },
    /* a template function (any may read it) needs its plugin loaded: the functional
     * test TestSeqnumRead has it, with the daemon */
  };

  CU_ASSERT_FALSE(fastfile_template_reads_seq_num(NULL));
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      LogTemplate *template = log_template_new(cfg, NULL);

      CU_ASSERT_FATAL(log_template_compile(template, cases[i].template, NULL));
      CU_ASSERT_EQUAL(fastfile_template_reads_seq_num(template), cases[i].reads);
      log_template_unref(template);
    }
}

static int
suite_init(void)
{
  app_startup();
  cfg = cfg_new_snippet();
  tmpdir = g_dir_make_tmp("fastfile-file-options-XXXXXX", NULL);
  return tmpdir ? 0 : 1;
}

static int
suite_cleanup(void)
{
  if (!testutil_remove_tree(tmpdir))
    fprintf(stderr, "could not remove %s\n", tmpdir);
  g_free(tmpdir);
  cfg_free(cfg);
  app_shutdown();
  return 0;
}

static CU_TestInfo file_option_tests[] =
{
  { "records formatted as LogWriter formats them", test_formats_as_logwriter },
  { "suppress(): runs of repeats and their summaries", test_suppress_runs_and_summaries },
  { "suppress(): per file", test_suppress_per_file },
  { "MARK: dst-idle, internal() MARKs left out", test_marks_dst_idle_and_internal },
  { "which templates read ${SEQNUM}", test_template_reads_seq_num },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "fastfile-file-options", suite_init, suite_cleanup, NULL, NULL, file_option_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
