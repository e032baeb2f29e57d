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

/* The fast-file() worker driven by hand, as LogThreadedDestDriver drives it:
 * real LogMessages through a real LogQueue, no daemon and no threads. */

#include "testutil.h"
#include "fastfile.h"
#include "fastfile-worker.h"
#include "apphook.h"
#include "cfg.h"
#include "compat-logqueue.h"
#include "logmsg/logmsg.h"
#include "template/templates.h"

#include "seqnum.h"
#include "messages.h"

#include <iv.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

static GlobalConfig *cfg;
static gchar *tmpdir;

typedef struct
{
  FastFileDriver *driver;
  LogThreadedDestWorker *worker;
  LogQueue *queue;
} Rig;

static Rig
rig_new(const gchar *path_template, const gchar *template)
{
  Rig rig;
  LogTemplate *filename = log_template_new(cfg, NULL);

  g_assert(log_template_compile(filename, path_template, NULL));
  rig.driver = (FastFileDriver *) fastfile_dd_new(filename, cfg);
  if (template)
    g_assert(fastfile_dd_set_template(&rig.driver->super.super.super, template, NULL));
  fastfile_dd_set_time_reap(&rig.driver->super.super.super, 0);
  log_template_options_init(&rig.driver->template_options, cfg);
  append_opener_options_init(&rig.driver->opener_options, cfg);

  /* as LogThreadedDestDriver does: popped messages wait in the backlog until acked */
  rig.queue = fd_log_queue_fifo_new_with_backlog(100000);
  rig.worker = fastfile_worker_new(&rig.driver->super, 0);
  rig.worker->queue = rig.queue;
  rig.driver->super.workers = &rig.worker;
  return rig;
}

static void
rig_start(Rig *rig)
{
  CU_ASSERT_FATAL(rig->worker->init(rig->worker));
}

static void
rig_free(Rig *rig)
{
  rig->worker->deinit(rig->worker);
  rig->driver->super.workers = NULL;
  log_threaded_dest_worker_free(rig->worker);
  log_queue_unref(rig->queue);
  log_pipe_unref(&rig->driver->super.super.super.super);
}

static LogMessage *
make_msg(const gchar *host, const gchar *program, const gchar *text)
{
  LogMessage *msg = log_msg_new_empty();

  log_msg_set_value(msg, LM_V_HOST, host, -1);
  log_msg_set_value(msg, LM_V_PROGRAM, program, -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  return msg;
}

/* the framework's loop step: pop one message and insert it */
static LogThreadedResult
insert_next(Rig *rig)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;
  LogMessage *msg = log_queue_pop_head(rig->queue, &path_options);

  g_assert(msg);
  rig->worker->batch_size++;
  LogThreadedResult result = log_threaded_dest_worker_insert(rig->worker, msg);
  log_msg_unref(msg);
  return result;
}

/* a source queues one message and the framework's loop step takes it */
static LogThreadedResult
feed(Rig *rig, LogMessage *msg)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

  log_queue_push_tail(rig->queue, msg, &path_options);
  return insert_next(rig);
}

/* after LTR_NOT_CONNECTED the framework rewinds the batch and inserts it again */
static void
rewind_and_replay(Rig *rig)
{
  gint n = rig->worker->batch_size;

  log_threaded_dest_worker_rewind_messages(rig->worker, n);
  for (gint i = 0; i < n; i++)
    CU_ASSERT_EQUAL(insert_next(rig), LTR_QUEUED);
  rig->worker->rewound_batch_size = 0;
}

static LogThreadedResult
flush(Rig *rig)
{
  return log_threaded_dest_worker_flush(rig->worker, LTF_FLUSH_NORMAL);
}

static gchar *
read_file(const gchar *path)
{
  gchar *contents = NULL;

  if (!g_file_get_contents(path, &contents, NULL, NULL))
    return g_strdup("<missing>");
  return contents;
}

static gchar *
tmp_path(const gchar *name)
{
  return g_build_filename(tmpdir, name, NULL);
}

static void
test_batch_is_written_only_on_flush_and_acked(void)
{
  gchar *path = tmp_path("single.log");
  Rig rig = rig_new(path, "${PROGRAM}: ${MSG}\n");
  rig_start(&rig);

  for (gint i = 0; i < 10; i++)
    {
      gchar text[32];
      g_snprintf(text, sizeof(text), "line %d", i);
      CU_ASSERT_EQUAL(feed(&rig, make_msg("h", "p", text)), LTR_QUEUED);
    }
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL(rig.worker->batch_size, 10);

  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->files.write_syscalls, 1);

  gchar *contents = read_file(path);
  CU_ASSERT_STRING_EQUAL(contents, "p: line 0\np: line 1\np: line 2\np: line 3\np: line 4\n"
                         "p: line 5\np: line 6\np: line 7\np: line 8\np: line 9\n");
  g_free(contents);
  rig_free(&rig);
  g_free(path);
}

static void
test_templated_names_route_each_record(void)
{
  gchar *path = tmp_path("routed-${PROGRAM}.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);

  const gchar *programs[] = { "a", "b", "a", "c", "b", "a" };
  for (guint i = 0; i < G_N_ELEMENTS(programs); i++)
    {
      gchar text[32];
      g_snprintf(text, sizeof(text), "%s%u", programs[i], i);
      feed(&rig, make_msg("h", programs[i], text));
    }
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);
  /* one write() per file per batch */
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->files.write_syscalls, 3);

  const gchar *expected[][2] = { { "a", "a0\na2\na5\n" }, { "b", "b1\nb4\n" }, { "c", "c3\n" } };
  for (guint i = 0; i < G_N_ELEMENTS(expected); i++)
    {
      gchar *name = g_strdup_printf("routed-%s.log", expected[i][0]);
      gchar *p = tmp_path(name);
      gchar *contents = read_file(p);
      CU_ASSERT_STRING_EQUAL(contents, expected[i][1]);
      g_free(contents);
      g_free(p);
      g_free(name);
    }
  rig_free(&rig);
  g_free(path);
}

/* file B fails (/dev/full: ENOSPC): the records of A are written once, never
 * again on the retries, and acked in queue order; B's are dropped after
 * retries(3) attempts in all */
static void
test_failing_file_does_not_duplicate_the_others(void)
{
  gchar *good = tmp_path("good.log");
  gchar *path_template = g_strdup_printf("${HOST}");
  Rig rig = rig_new(path_template, "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 3);
  rig_start(&rig);

  feed(&rig, make_msg(good, "p", "g0"));
  feed(&rig, make_msg("/dev/full", "p", "f1"));
  feed(&rig, make_msg(good, "p", "g2"));
  feed(&rig, make_msg(good, "p", "g3"));

  /* g0 is acked; f1 blocks the rest of the queue */
  CU_ASSERT_EQUAL(flush(&rig), LTR_NOT_CONNECTED);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 3);
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 0);

  /* second attempt */
  rewind_and_replay(&rig);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 3);
  CU_ASSERT_EQUAL(flush(&rig), LTR_NOT_CONNECTED);
  /* third: retries exhausted, f1 dropped, g2 and g3 acked */
  rewind_and_replay(&rig);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);

  gchar *contents = read_file(good);
  CU_ASSERT_STRING_EQUAL(contents, "g0\ng2\ng3\n");
  g_free(contents);
  rig_free(&rig);
  g_free(path_template);
  g_free(good);
}

static void
test_spurious_path_and_empty_output(void)
{
  gchar *path = tmp_path("sp-${PROGRAM}.log");
  Rig rig = rig_new(path, "${MSG}");
  rig_start(&rig);

  feed(&rig, make_msg("h", "ok", "first"));
  feed(&rig, make_msg("h", "x/../../escape", "evil"));
  feed(&rig, make_msg("h", "ok", ""));
  feed(&rig, make_msg("h", "ok", "last"));
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);

  gchar *ok = tmp_path("sp-ok.log");
  gchar *contents = read_file(ok);
  /* no trailing newline in the template: the line ending is still added;
   * an empty rendering writes nothing, as file() */
  CU_ASSERT_STRING_EQUAL(contents, "first\nlast\n");
  g_free(contents);
  g_free(ok);
  rig_free(&rig);
  g_free(path);
}

/* syslog-ng's internal() loop guard holds for a message taken from the queue by
 * insert() itself: an error caused by an internal message that is itself the
 * product of one (recursed) is suppressed, not logged into another loop */
static void
test_drained_internal_message_keeps_the_loop_guard(void)
{
  gchar *path = tmp_path("guard-${PROGRAM}.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);

  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;
  log_queue_push_tail(rig.queue, make_msg("h", "ok", "first"), &path_options);
  LogMessage *looped = make_msg("h", "x/../../escape", "an error about an error");
  looped->flags |= LF_INTERNAL;
  looped->recursed = TRUE;
  log_queue_push_tail(rig.queue, looped, &path_options);

  /* the framework's step for the first message; the second is drained */
  gchar *log_path = tmp_path("guard-stderr.txt");
  gint log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  gint saved_stderr = dup(2);
  fflush(stderr);
  dup2(log_fd, 2);
  msg_set_context(NULL);
  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  msg_set_context(NULL);
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  close(log_fd);

  CU_ASSERT_EQUAL(rig.worker->batch_size, 2);
  gchar *logged = read_file(log_path);
  gchar **lines = g_strsplit(logged, "\n", -1);
  gint warnings = 0, errors = 0;
  for (gchar **line = lines; *line; line++)
    {
      /* the warning quotes the first suppressed message */
      if (strstr(*line, "looping back"))
        warnings++;
      else if (strstr(*line, "spurious path"))
        errors++;
    }
  CU_ASSERT_EQUAL(warnings, 1);
  CU_ASSERT_EQUAL(errors, 0);
  g_strfreev(lines);
  g_free(logged);
  g_free(log_path);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  rig_free(&rig);
  g_free(path);
}

static void
test_fixed_buffer_size_writes_when_full(void)
{
  gchar *path = tmp_path("capped.log");
  Rig rig = rig_new(path, "${MSG}\n");
  fastfile_dd_set_buffer_size(&rig.driver->super.super.super, 64);
  rig_start(&rig);

  LogThreadedResult results[8];
  for (gint i = 0; i < 8; i++)
    results[i] = feed(&rig, make_msg("h", "p", "0123456789abcdef"));
  /* 17 bytes a record: the 64-byte cap fills after 3 or 4 records */
  gint early = 0;
  for (gint i = 0; i < 8; i++)
    early += results[i] == LTR_EXPLICIT_ACK_MGMT;
  CU_ASSERT_TRUE(early >= 1);
  CU_ASSERT_TRUE(rig.worker->batch_size < 8);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);

  struct stat st;
  CU_ASSERT_EQUAL(stat(path, &st), 0);
  CU_ASSERT_EQUAL(st.st_size, 8 * 17);
  rig_free(&rig);
  g_free(path);
}

static void
test_encoding_and_line_ending(void)
{
  gchar *path = tmp_path("utf16.log");
  Rig rig = rig_new(path, "${MSG}\n");
  CU_ASSERT_TRUE(fastfile_dd_set_encoding(&rig.driver->super.super.super, "UTF-16LE", NULL));
  CU_ASSERT_TRUE(fastfile_dd_set_line_ending(&rig.driver->super.super.super, "crlf"));
  rig_start(&rig);

  feed(&rig, make_msg("h", "p", "\xc3\xa9t\xc3\xa9"));
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);

  gchar *contents = NULL;
  gsize len = 0;
  CU_ASSERT_TRUE(g_file_get_contents(path, &contents, &len, NULL));
  ASSERT_BYTES(contents, len, "\xe9\x00t\x00\xe9\x00\r\x00\n\x00", 10);
  g_free(contents);
  rig_free(&rig);
  g_free(path);
}

static gint acked;

static void
count_ack(LogMessage *msg, AckType ack_type)
{
  acked++;
}

/* queued as a source queues: the message is acked (count_ack) when the destination lets it go */
static void
push_acked(Rig *rig, LogMessage *msg)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;

  path_options.ack_needed = TRUE;
  log_msg_add_ack(msg, &path_options);
  msg->ack_func = count_ack;
  log_queue_push_tail(rig->queue, msg, &path_options);
}

/* one insert() takes the messages queued behind its own, up to batch-lines,
 * into the same batch: counted in batch_size, numbered ($SEQNUM) as the
 * framework numbers them, acked only once written */
static void
test_insert_takes_the_queued_messages_behind_it(void)
{
  gchar *path = tmp_path("drained.log");
  Rig rig = rig_new(path, "${MSG} ${SEQNUM}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 4);
  /* as the driver's init does */
  init_sequence_number(&rig.driver->super.shared_seq_num);
  rig_start(&rig);
  acked = 0;

  for (gint i = 0; i < 10; i++)
    {
      gchar text[16];
      g_snprintf(text, sizeof(text), "m%d", i);
      LogMessage *msg = make_msg("h", "p", text);
      msg->flags |= LF_LOCAL;
      push_acked(&rig, msg);
    }

  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 4);
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 6);
  CU_ASSERT_EQUAL(acked, 0);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);
  CU_ASSERT_EQUAL(acked, 4);

  insert_next(&rig);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 4);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  insert_next(&rig);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 2);
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 0);
  CU_ASSERT_EQUAL(acked, 8);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(acked, 10);
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->files.write_syscalls, 3);

  gchar *contents = read_file(path);
  CU_ASSERT_STRING_EQUAL(contents, "m0 1\nm1 2\nm2 3\nm3 4\nm4 5\nm5 6\nm6 7\nm7 8\nm8 9\nm9 10\n");
  g_free(contents);
  rig_free(&rig);
  g_free(path);
}

/* a batch taken in one insert() fails as a whole: the framework rewinds all
 * of it, the replay writes nothing twice, and only written lines are acked */
static void
test_drained_batch_is_rewound_whole(void)
{
  gchar *good = tmp_path("drained-good.log");
  Rig rig = rig_new("${HOST}", "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 3);
  rig_start(&rig);
  acked = 0;

  push_acked(&rig, make_msg(good, "p", "g0"));
  push_acked(&rig, make_msg("/dev/full", "p", "f1"));
  push_acked(&rig, make_msg(good, "p", "g2"));
  push_acked(&rig, make_msg(good, "p", "g3"));

  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 4);
  CU_ASSERT_EQUAL(flush(&rig), LTR_NOT_CONNECTED);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 3);
  CU_ASSERT_EQUAL(acked, 1);

  rewind_and_replay(&rig);
  CU_ASSERT_EQUAL(flush(&rig), LTR_NOT_CONNECTED);
  CU_ASSERT_EQUAL(acked, 1);
  rewind_and_replay(&rig);
  /* retries(3) exhausted: f1 dropped, g2 and g3 acked */
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);
  CU_ASSERT_EQUAL(acked, 4);

  gchar *contents = read_file(good);
  CU_ASSERT_STRING_EQUAL(contents, "g0\ng2\ng3\n");
  g_free(contents);
  rig_free(&rig);
  g_free(good);
}

static void
test_steady_state_does_not_grow_buffers(void)
{
  gchar *path = tmp_path("steady.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 100);
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;

  const gchar *before_str = NULL;
  gsize before_capacity = 0;
  for (gint batch = 0; batch < 20; batch++)
    {
      for (gint i = 0; i < 100; i++)
        feed(&rig, make_msg("h", "p", "a message of a steady size, batch after batch"));
      CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
      if (batch == 2)
        {
          before_str = batch_buffer_data(&worker->single_file->buffer)->str;
          before_capacity = batch_buffer_capacity(&worker->single_file->buffer);
        }
    }
  CU_ASSERT_PTR_EQUAL(batch_buffer_data(&worker->single_file->buffer)->str, before_str);
  CU_ASSERT_EQUAL(batch_buffer_capacity(&worker->single_file->buffer), before_capacity);
  CU_ASSERT_TRUE(worker->pending_capacity <= 128);
  rig_free(&rig);
  g_free(path);
}

static int
suite_init(void)
{
  app_startup();
  cfg = cfg_new_snippet();
  tmpdir = g_dir_make_tmp("fastfile-worker-XXXXXX", NULL);
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

static CU_TestInfo worker_tests[] =
{
  { "batch is written on flush and acked", test_batch_is_written_only_on_flush_and_acked },
  { "templated names route each record", test_templated_names_route_each_record },
  { "a failing file does not duplicate the others", test_failing_file_does_not_duplicate_the_others },
  { "spurious path dropped, empty output skipped", test_spurious_path_and_empty_output },
  { "a drained internal message keeps the loop guard", test_drained_internal_message_keeps_the_loop_guard },
  { "buffer-size() cap writes when full", test_fixed_buffer_size_writes_when_full },
  { "encoding and line ending", test_encoding_and_line_ending },
  { "steady state does not grow buffers", test_steady_state_does_not_grow_buffers },
  { "insert takes the queued messages behind it", test_insert_takes_the_queued_messages_behind_it },
  { "a drained batch is rewound whole", test_drained_batch_is_rewound_whole },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "fastfile-worker", suite_init, suite_cleanup, NULL, NULL, worker_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
