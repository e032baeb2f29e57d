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
#include "mainloop-worker.h"

#include <iv.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
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
  rig.worker = NULL;
  return rig;
}

/* after the options are set: as the driver's init does */
static void
rig_start(Rig *rig)
{
  fastfile_dd_init_worker_options(rig->driver);
  rig->worker = fastfile_worker_new(&rig->driver->super, 0, &rig->driver->worker_options);
  rig->worker->queue = rig->queue;
  /* the rig lives in the test's frame from here on: the driver's queue() finds the worker through it */
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
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->lane.files.write_syscalls, 1);

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
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->lane.files.write_syscalls, 3);

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
static GThread *last_ack_thread;

static void
count_ack(LogMessage *msg, AckType ack_type)
{
  g_atomic_int_inc(&acked);
  last_ack_thread = g_thread_self();
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
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->lane.files.write_syscalls, 3);

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

  /* the fill and out buffers trade places at every write: the pair stays the same */
  const gchar *before[2] = { NULL, NULL };
  gsize before_capacity[2] = { 0, 0 };
  for (gint batch = 0; batch < 20; batch++)
    {
      for (gint i = 0; i < 100; i++)
        feed(&rig, make_msg("h", "p", "a message of a steady size, batch after batch"));
      CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
      if (batch == 2)
        {
          BatchBuffer *buffers[2] = { &worker->lane.single_file->fill, &worker->lane.single_file->out };
          for (gint i = 0; i < 2; i++)
            {
              before[i] = batch_buffer_data(buffers[i])->str;
              before_capacity[i] = batch_buffer_capacity(buffers[i]);
            }
        }
    }
  BatchBuffer *fill = &worker->lane.single_file->fill, *out = &worker->lane.single_file->out;
  gboolean same_order = batch_buffer_data(fill)->str == before[0];
  CU_ASSERT_PTR_EQUAL(batch_buffer_data(fill)->str, before[same_order ? 0 : 1]);
  CU_ASSERT_PTR_EQUAL(batch_buffer_data(out)->str, before[same_order ? 1 : 0]);
  CU_ASSERT_EQUAL(batch_buffer_capacity(fill), before_capacity[same_order ? 0 : 1]);
  CU_ASSERT_EQUAL(batch_buffer_capacity(out), before_capacity[same_order ? 1 : 0]);
  CU_ASSERT_TRUE(worker->lane.records_capacity <= 128);
  rig_free(&rig);
  g_free(path);
}


/* ------------------------------------------------------------------ the direct path */

/* A source's main loop job on a thread of its own: it delivers messages to
 * the driver (its queue(), the direct path) and ends its job (the batch
 * callbacks), one command at a time, while this thread plays the worker. */
typedef enum { JOB_DELIVER, JOB_END, JOB_QUIT } JobOp;

typedef struct
{
  Rig *rig;
  GAsyncQueue *commands;
  GAsyncQueue *done;
  GThread *thread;
} Job;

typedef struct
{
  JobOp op;
  LogMessage *msg;
} JobCommand;

static void
deliver(Rig *rig, LogMessage *msg)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;
  LogPipe *driver = &rig->driver->super.super.super.super;

  /* as a flow-controlled source posts it: the source's own ack, acked back through count_ack */
  path_options.ack_needed = TRUE;
  path_options.flow_control_requested = TRUE;
  msg->ack_func = count_ack;
  log_msg_add_ack(msg, &path_options);
  driver->queue(driver, msg, &path_options);
}

static gpointer
job_thread(gpointer data)
{
  Job *job = data;
  gboolean quit = FALSE;

  iv_init();
  main_loop_worker_thread_start(MLW_ASYNC_WORKER);
  while (!quit)
    {
      JobCommand *command = g_async_queue_pop(job->commands);

      if (command->op == JOB_DELIVER)
        deliver(job->rig, command->msg);
      else if (command->op == JOB_END)
        main_loop_worker_invoke_batch_callbacks();
      quit = command->op == JOB_QUIT;
      g_free(command);
      g_async_queue_push(job->done, GINT_TO_POINTER(1));
    }
  main_loop_worker_thread_stop();
  iv_deinit();
  return NULL;
}

static void
job_run(Job *job, JobOp op, LogMessage *msg)
{
  JobCommand *command = g_new0(JobCommand, 1);

  command->op = op;
  command->msg = msg;
  g_async_queue_push(job->commands, command);
  g_async_queue_pop(job->done);
}

static Job *
job_start(Rig *rig)
{
  Job *job = g_new0(Job, 1);

  job->rig = rig;
  job->commands = g_async_queue_new();
  job->done = g_async_queue_new();
  job->thread = g_thread_new("job", job_thread, job);
  return job;
}

static void
job_stop(Job *job)
{
  job_run(job, JOB_QUIT, NULL);
  g_thread_join(job->thread);
  g_async_queue_unref(job->commands);
  g_async_queue_unref(job->done);
  g_free(job);
}

static void
job_deliver(Job *job, const gchar *host, const gchar *text)
{
  job_run(job, JOB_DELIVER, make_msg(host, "p", text));
}

/* n messages from host "h", "<prefix>000" on, each one's line appended to expected (when given) */
static void
job_deliver_numbered(Job *job, const gchar *prefix, gint n, GString *expected)
{
  for (gint i = 0; i < n; i++)
    {
      gchar text[16];

      g_snprintf(text, sizeof(text), "%s%03d", prefix, i);
      job_deliver(job, "h", text);
      if (expected)
        g_string_append_printf(expected, "%s\n", text);
    }
}

/* a message from host "h<number>", two digits */
static void
job_deliver_from_host(Job *job, gint number, const gchar *text)
{
  gchar host[16];

  g_snprintf(host, sizeof(host), "h%02d", number);
  job_deliver(job, host, text);
}

/* a delivery that may block: finished later with job_wait() */
static void
job_deliver_async(Job *job, LogMessage *msg)
{
  JobCommand *command = g_new0(JobCommand, 1);

  command->op = JOB_DELIVER;
  command->msg = msg;
  g_async_queue_push(job->commands, command);
}

/* the end of a job that may wait for another thread: finished later with job_wait() */
static void
job_end_async(Job *job)
{
  JobCommand *command = g_new0(JobCommand, 1);

  command->op = JOB_END;
  g_async_queue_push(job->commands, command);
}

static void
job_wait(Job *job)
{
  g_async_queue_pop(job->done);
}

/* every batch through the lane, as with compression(), fsync(), logrotate()
 * or batch-timeout(): delivering threads format apart and stage, and never
 * write batches of their own (the lane's tests) */
static void
rig_stage_every_batch(Rig *rig)
{
  ((FastFileWorker *) rig->worker)->own_batches = FALSE;
}

/* a lone delivering thread formats and stages its messages itself, as it
 * does when the worker's thread falls behind (FASTFILE_HANDOVER_MAX_CHUNKS),
 * instead of handing them over (the lone thread's other paths' tests) */
static void
rig_no_hand_over(Rig *rig)
{
  ((FastFileWorker *) rig->worker)->hand_over = FALSE;
}

/* what the worker's wakeup event runs */
static void
worker_writes(Rig *rig)
{
  fastfile_worker_write_requested((FastFileWorker *) rig->worker);
}

static void
assert_file(const gchar *path, const gchar *expected)
{
  gchar *contents = read_file(path);
  if (strcmp(contents, expected) != 0)
    fprintf(stderr, "%s: expected [%s], found [%s]\n", path, expected, contents);
  CU_ASSERT_STRING_EQUAL(contents, expected);
  g_free(contents);
}

static void
assert_file_size(const gchar *path, gsize expected)
{
  gchar *contents = read_file(path);
  if (strlen(contents) != expected)
    fprintf(stderr, "%s: expected %" G_GSIZE_FORMAT " bytes, found %" G_GSIZE_FORMAT "\n", path, expected,
            strlen(contents));
  CU_ASSERT_EQUAL(strlen(contents), expected);
  g_free(contents);
}

/* a lone thread's small job: formatted by the delivering thread and written
 * by it when its job ends (the worker's thread is not woken for it), acked
 * only then */
static void
test_direct_written_at_job_end_and_acked_after(void)
{
  gchar *path = tmp_path("direct.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = 0;

  for (gint i = 0; i < 5; i++)
    {
      gchar text[16];
      g_snprintf(text, sizeof(text), "d%d", i);
      job_deliver(job, "h", text);
    }
  /* not queued: the LogQueue never sees them; a lone thread keeps them for
   * the worker's thread until it has a chunk's worth (_hand_over()) or its
   * job ends */
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 0);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&((FastFileWorker *) rig.worker)->lane), 0);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);
  last_ack_thread = NULL;
  job_run(job, JOB_END, NULL);
  assert_file(path, "d0\nd1\nd2\nd3\nd4\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 5);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, job->thread);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&((FastFileWorker *) rig.worker)->lane), 0);
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->lane.files.write_syscalls, 1);

  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a full batch (batch-lines() here) is written by a delivering thread that
 * stages its messages itself (one that does not hand them over: the worker's
 * thread fell behind) in the middle of its job, and its records acked (and
 * freed) by it at once */
static void
test_direct_acked_by_the_delivering_thread(void)
{
  gchar *path = tmp_path("direct-collect.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 4);
  rig_start(&rig);
  rig_no_hand_over(&rig);
  Job *job = job_start(&rig);
  acked = 0;
  last_ack_thread = NULL;

  for (gint i = 0; i < 4; i++)
    job_deliver(job, "h", "x");
  assert_file(path, "x\nx\nx\nx\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, job->thread);

  /* the job goes on: staged until it ends */
  job_deliver(job, "h", "y");
  job_deliver(job, "h", "y");
  assert_file(path, "x\nx\nx\nx\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);
  job_run(job, JOB_END, NULL);
  assert_file(path, "x\nx\nx\nx\ny\ny\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 6);
  CU_ASSERT_EQUAL(((FastFileWorker *) rig.worker)->lane.files.write_syscalls, 2);
  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a lone delivering thread hands its messages over unformatted, a batch
 * (batch-lines() here) at a time: the worker's thread formats and writes
 * them, and leaves them to the delivering thread, which acks (and frees)
 * them itself, a few with each message it delivers after, the rest at its
 * job's end */
static void
test_direct_lone_deliverer_hands_over(void)
{
  gchar *path = tmp_path("direct-lone-handover.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 4);
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *job = job_start(&rig);
  acked = 0;
  last_ack_thread = NULL;

  for (gint i = 0; i < 4; i++)
    job_deliver(job, "h", "a");
  /* handed over: not formatted, nothing in the lane yet */
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 1);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  worker_writes(&rig);
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 0);
  assert_file(path, "a\na\na\na\n");
  CU_ASSERT_EQUAL(worker->lane.files.write_syscalls, 1);
  /* written; acked by the thread that delivered them, not by the worker's */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);

  /* the next batch handed over, the written one taken back */
  for (gint i = 0; i < 4; i++)
    job_deliver(job, "h", "b");
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 1);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);
  /* one settled per message: a message freed for each one made */
  job_deliver(job, "h", "c");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, job->thread);

  /* its job ends: the ones taken back are acked, the last few handed over
   * as the others of this job were (the worker's thread is woken for them) */
  last_ack_thread = NULL;
  job_run(job, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, job->thread);
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 2);
  assert_file(path, "a\na\na\na\n");
  /* written by the worker's thread, in order, and acked there: no job is at work to take them */
  last_ack_thread = NULL;
  worker_writes(&rig);
  assert_file(path, "a\na\na\na\nb\nb\nb\nb\nc\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 9);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, g_thread_self());
  CU_ASSERT_EQUAL(worker->lane.files.write_syscalls, 3);
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 0);

  /* a job of a few messages hands nothing over: written here at its end, no wake-up */
  job_deliver(job, "h", "d");
  job_run(job, JOB_END, NULL);
  assert_file(path, "a\na\na\na\nb\nb\nb\nb\nc\nd\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 10);
  CU_ASSERT_EQUAL(worker->lane.files.write_syscalls, 4);

  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a chunk handed over and back costs no allocation: each carries the link
 * by which the queues of chunks hold it, so that handing over allocates
 * nothing per chunk (a GQueue node of its own was one malloc() per chunk
 * each way with GLib >= 2.76, whose GSlice is malloc(): 0.05 allocations per
 * message at 2000 B on syslog-ng 4.8.1) */
static gboolean
_chunk_holds_its_link(GList *link)
{
  FastFileHanded *chunk = link->data;
  return (gchar *) link >= (gchar *) chunk && (gchar *) link < (gchar *) (chunk + 1);
}

static void
test_direct_handed_over_chunks_carry_their_links(void)
{
  gchar *path = tmp_path("direct-handover-links.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 4);
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *job = job_start(&rig);
  acked = 0;

  for (gint i = 0; i < 8; i++)
    job_deliver(job, "h", "a");
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 2);
  for (GList *link = g_queue_peek_head_link(&worker->handed); link; link = link->next)
    CU_ASSERT_TRUE(_chunk_holds_its_link(link));
  worker_writes(&rig);
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 0);
  CU_ASSERT_TRUE(g_queue_get_length(&worker->handed_spare) >= 1);
  for (GList *link = g_queue_peek_head_link(&worker->handed_spare); link; link = link->next)
    CU_ASSERT_TRUE(_chunk_holds_its_link(link));
  job_run(job, JOB_END, NULL);
  assert_file(path, "a\na\na\na\na\na\na\na\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 8);

  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* the worker's thread falls behind: from FASTFILE_HANDOVER_MAX_CHUNKS
 * chunks on, the delivering thread stages what it handed over itself, then
 * its messages, in their order */
static void
test_direct_handed_over_staged_by_the_deliverer_when_the_worker_lags(void)
{
  gchar *path = tmp_path("direct-handover-lag.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_batch_lines(&rig.driver->super.super.super, 4);
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *job = job_start(&rig);
  GString *expected = g_string_new("");
  acked = 0;

  gint n = FASTFILE_HANDOVER_MAX_CHUNKS * 4;
  for (gint i = 0; i < n + 3; i++)
    {
      gchar text[16];
      g_snprintf(text, sizeof(text), "m%03d", i);
      job_deliver(job, "h", text);
      g_string_append_printf(expected, "%s\n", text);
      if (i == n - 1)
        {
          CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), FASTFILE_HANDOVER_MAX_CHUNKS);
          CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
        }
    }
  /* staged by the delivering thread, the chunks first */
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->handed_count), 0);
  job_run(job, JOB_END, NULL);
  worker_writes(&rig);
  assert_file(path, expected->str);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), n + 3);

  g_string_free(expected, TRUE);
  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a connection's last messages wait in its thread's chunk (it has not
 * ended its job yet) when another connection's thread starts delivering: the
 * other's lines go after them, though it would write a batch of its own and
 * end its job first */
static void
test_direct_handed_over_before_another_threads_lines(void)
{
  gchar *path = tmp_path("direct-handover-order.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *one = job_start(&rig);
  Job *two = job_start(&rig);
  GString *expected = g_string_new("a1\na2\n");
  acked = 0;

  job_deliver(one, "h", "a1");
  job_deliver(one, "h", "a2");
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->open_chunks), 1);
  /* more than a batch of its own (FASTFILE_OWN_RECORDS): it waits, formatted apart */
  job_deliver_numbered(two, "b", 300, expected);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  /* its job ends first: it waits for the other thread's chunk */
  job_end_async(two);
  g_usleep(50000);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  job_run(one, JOB_END, NULL);
  job_wait(two);
  worker_writes(&rig);
  assert_file(path, expected->str);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 302);
  CU_ASSERT_EQUAL(g_atomic_int_get(&worker->open_chunks), 0);

  g_string_free(expected, TRUE);
  job_stop(one);
  job_stop(two);
  rig_free(&rig);
  g_free(path);
}

/* two delivering threads at work: the one whose job ends writes the other's
 * message too, but leaves its ack (and its free) to the thread that delivered
 * it, which settles it at its next message, on its own thread */
static void
test_direct_acked_by_the_thread_that_delivered_it(void)
{
  gchar *path = tmp_path("direct-owner.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);
  rig_stage_every_batch(&rig);
  Job *writer = job_start(&rig);
  Job *other = job_start(&rig);
  acked = 0;

  job_deliver(writer, "h", "w");
  job_deliver(other, "h", "o");
  last_ack_thread = NULL;
  job_run(writer, JOB_END, NULL);
  assert_file(path, "w\no\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, writer->thread);

  last_ack_thread = NULL;
  job_deliver(other, "h", "p");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 2);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, other->thread);

  /* its job's end writes its last one: nothing is left over */
  job_run(other, JOB_END, NULL);
  assert_file(path, "w\no\np\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 3);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&((FastFileWorker *) rig.worker)->lane), 0);

  job_stop(writer);
  job_stop(other);
  rig_free(&rig);
  g_free(path);
}

/* while another delivering thread is at work, a job formats its short
 * lines apart, without the lock, and stages them at its job's end, in their
 * order; long lines (FASTFILE_APART_MAX_LINE) take the lock each */
static void
test_direct_formatted_apart_while_others_deliver(void)
{
  gchar *path = tmp_path("direct-apart.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);
  rig_stage_every_batch(&rig);
  FastFileLane *lane = &((FastFileWorker *) rig.worker)->lane;
  Job *one = job_start(&rig);
  Job *two = job_start(&rig);
  acked = 0;

  job_deliver(one, "h", "a1");
  job_deliver(two, "h", "b1");
  job_deliver(one, "h", "a2");
  job_deliver(one, "h", "a3");
  /* a2 and a3 wait in the thread's own buffer */
  CU_ASSERT_EQUAL(fastfile_lane_pending(lane), 2);
  job_run(one, JOB_END, NULL);
  assert_file(path, "a1\nb1\na2\na3\n");
  job_run(two, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);

  /* long lines go apart as long as the lines the thread last staged were short */
  gchar *text = g_strnfill(600, 'l');
  job_deliver(one, "h", "c1");
  job_deliver(two, "h", "d1");
  job_deliver(one, "h", text);
  job_deliver(one, "h", text);
  CU_ASSERT_EQUAL(fastfile_lane_pending(lane), 2);
  job_run(one, JOB_END, NULL);
  job_run(two, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 8);
  /* ... and those were long: now each takes the lock */
  job_deliver(one, "h", "e1");
  job_deliver(two, "h", "f1");
  job_deliver(one, "h", text);
  job_deliver(one, "h", text);
  CU_ASSERT_EQUAL(fastfile_lane_pending(lane), 4);
  job_run(one, JOB_END, NULL);
  job_run(two, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 12);
  CU_ASSERT_EQUAL(fastfile_lane_pending(lane), 0);
  g_free(text);

  job_stop(one);
  job_stop(two);
  rig_free(&rig);
  g_free(path);
}

/* while another thread writes (the worker's, here), a delivering thread
 * leaves its batch to it instead of waiting: the writer takes it when done */
static void
test_direct_handed_over_while_another_writes(void)
{
  gchar *path = tmp_path("direct-handover.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *job = job_start(&rig);
  acked = 0;

  job_deliver(job, "h", "a");
  g_mutex_lock(&worker->lock);
  worker->direct.writing = TRUE;
  g_mutex_unlock(&worker->lock);
  job_run(job, JOB_END, NULL);
  CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);
  CU_ASSERT_TRUE(worker->direct.asked_while_writing);

  g_mutex_lock(&worker->lock);
  worker->direct.writing = FALSE;
  g_mutex_unlock(&worker->lock);
  last_ack_thread = NULL;
  worker_writes(&rig);
  assert_file(path, "a\n");
  /* no job at work: the writer acked it */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, g_thread_self());
  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a rig, its worker and a job, for lines of 300 bytes (299 and the newline):
 * long lines, FASTFILE_WRITE_HERE_MAX_LINE in fastfile-worker.c */
typedef struct
{
  gchar *path;
  Rig rig;
  FastFileWorker *worker;
  gchar *text;
  Job *job;
} LongLines;

#define LONG_LINE 300

static void
long_lines_start(LongLines *self, const gchar *name)
{
  self->path = tmp_path(name);
  self->rig = rig_new(self->path, "${MSG}\n");
  rig_start(&self->rig);
  /* the lone thread's own paths, as when the worker's thread falls behind */
  rig_no_hand_over(&self->rig);
  self->worker = (FastFileWorker *) self->rig.worker;
  self->text = g_strnfill(LONG_LINE - 1, 'l');
  self->job = job_start(&self->rig);
  acked = 0;
}

static void
long_lines_deliver(LongLines *self, Job *job, gint n)
{
  for (gint i = 0; i < n; i++)
    job_deliver(job, "h", self->text);
}

static void
long_lines_stop(LongLines *self)
{
  job_stop(self->job);
  rig_free(&self->rig);
  g_free(self->text);
  g_free(self->path);
}

/* the same file and job, and a second delivering thread's job */
typedef struct
{
  LongLines base;
  Job *two;
} TwoJobs;

static void
two_jobs_start(TwoJobs *self, const gchar *name)
{
  long_lines_start(&self->base, name);
  self->two = job_start(&self->base.rig);
}

static void
two_jobs_stop(TwoJobs *self)
{
  job_stop(self->two);
  long_lines_stop(&self->base);
}

/* several delivering threads at work into one literal file: each formats
 * its lines apart and writes them to the file itself, one write() per batch
 * (FASTFILE_OWN_RECORDS, or its job's end), and acks them on its own
 * thread; a batch goes behind what the lane holds for the file */
static void
test_direct_own_batches_into_one_file(void)
{
  TwoJobs t;
  two_jobs_start(&t, "direct-own.log");
  FastFileWorker *worker = t.base.worker;
  Job *one = t.base.job, *two = t.two;
  const gchar *path = t.base.path;

  /* alone, and none at work together before: staged in the lane */
  job_deliver(one, "h", "a1");
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 1);
  /* at work together from here on: each keeps its own batch */
  job_deliver(two, "h", "b1");
  job_deliver(one, "h", "a2");
  job_deliver(two, "h", "b2");
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 1);
  /* the lane holds a1 for the file: a2 goes through the lane behind it */
  job_run(one, JOB_END, NULL);
  assert_file(path, "a1\na2\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 2);
  /* now it holds nothing for the file: two writes its batch itself */
  guint lane_writes = worker->lane.files.write_syscalls;
  last_ack_thread = NULL;
  job_run(two, JOB_END, NULL);
  assert_file(path, "a1\na2\nb1\nb2\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, two->thread);
  CU_ASSERT_EQUAL(worker->lane.files.write_syscalls, lane_writes);

  /* a full batch is written in the middle of the job, the rest at its end, each thread's in its order; the
   * written batch is acked a message per message delivered after it (not all at once: glibc would trim the
   * heap its messages leave free; not two: freed faster than made, they overflow the thread's malloc cache), the
   * rest at the end of the job */
  job_deliver(two, "h", "b3");
  job_deliver_numbered(one, "c", 300, NULL);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4 + (300 - 256));
  CU_ASSERT_PTR_EQUAL(last_ack_thread, one->thread);
  job_run(one, JOB_END, NULL);
  job_run(two, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4 + 301);
  CU_ASSERT_EQUAL(worker->lane.files.write_syscalls, lane_writes);
  GString *expected = g_string_new("a1\na2\nb1\nb2\n");
  for (gint i = 0; i < 300; i++)
    g_string_append_printf(expected, "c%03d\n", i);
  g_string_append(expected, "b3\n");
  assert_file(path, expected->str);
  g_string_free(expected, TRUE);

  two_jobs_stop(&t);
}

/* a delivering thread alone goes on writing batches of its own for a while
 * after others were at work with it (with several connections each is
 * alone now and then), and then stages in the lane again, as a single
 * connection does: its long lines are written beside it */
static void
test_direct_own_batches_alone_only_for_a_while(void)
{
  TwoJobs t;
  two_jobs_start(&t, "direct-own-alone.log");
  Job *one = t.base.job;

  /* at work together once */
  job_deliver(one, "h", "a");
  job_deliver(t.two, "h", "b");
  job_run(one, JOB_END, NULL);
  job_run(t.two, JOB_END, NULL);
  gint lone_jobs_apart = 0;
  for (gint i = 0; i < 100; i++)
    {
      job_deliver(one, "h", "c");
      if (fastfile_lane_pending(&t.base.worker->lane) == 0)
        {
          CU_ASSERT_EQUAL(lone_jobs_apart, i);
          lone_jobs_apart++;
        }
      job_run(one, JOB_END, NULL);
    }
  CU_ASSERT(lone_jobs_apart >= 32 && lone_jobs_apart < 100);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 102);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&t.base.worker->lane), 0);
  assert_file_size(t.base.path, 102 * 2);

  two_jobs_stop(&t);
}

/* long lines from the only delivering thread at work, 64 KiB of them or
 * more, are written by the worker's thread, beside it; while another
 * delivering thread is in a job, the CPUs are busy delivering and the
 * thread whose job ends writes them itself */
static void
test_direct_long_lines_written_beside_a_lone_deliverer(void)
{
  LongLines t;
  long_lines_start(&t, "direct-long.log");

  /* 220 lines: 66,000 bytes */
  long_lines_deliver(&t, t.job, 220);
  job_run(t.job, JOB_END, NULL);
  CU_ASSERT_FALSE(g_file_test(t.path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);
  CU_ASSERT_TRUE(t.worker->direct.handoff_requested);
  worker_writes(&t.rig);
  assert_file_size(t.path, 220 * LONG_LINE);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 220);

  /* another delivering thread's job is at work meanwhile */
  Job *other = job_start(&t.rig);
  long_lines_deliver(&t, other, 1);
  long_lines_deliver(&t, t.job, 220);
  last_ack_thread = NULL;
  job_run(t.job, JOB_END, NULL);
  assert_file_size(t.path, 441 * LONG_LINE);
  /* the other thread's one line is acked by that thread, when its job ends */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 440);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, t.job->thread);
  last_ack_thread = NULL;
  job_run(other, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 441);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, other->thread);
  /* the worker's one write, then the job thread's: at 64 KiB in its job, the rest at its end */
  CU_ASSERT_EQUAL(t.worker->lane.files.write_syscalls, 3);

  job_stop(other);
  long_lines_stop(&t);
}

/* a job of a few long lines (syslog-ng's default log-fetch-limit(10)) is
 * written by the delivering thread at its end: waking the worker's thread
 * for 3 KB would cost more than the write */
static void
test_direct_small_job_of_long_lines_written_here(void)
{
  LongLines t;
  long_lines_start(&t, "direct-long-small.log");

  long_lines_deliver(&t, t.job, 10);
  last_ack_thread = NULL;
  job_run(t.job, JOB_END, NULL);
  assert_file_size(t.path, 10 * LONG_LINE);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 10);
  CU_ASSERT_PTR_EQUAL(last_ack_thread, t.job->thread);
  CU_ASSERT_FALSE(t.worker->direct.handoff_requested);

  long_lines_stop(&t);
}

/* long lines handed to the worker's thread go in bigger batches (512 KiB
 * instead of 64): each hand-over wakes it */
static void
test_direct_long_lines_handed_over_in_big_batches(void)
{
  LongLines t;
  long_lines_start(&t, "direct-long-batches.log");

  /* 300 lines: past 64 KiB, short of 512 */
  long_lines_deliver(&t, t.job, 300);
  CU_ASSERT_FALSE(t.worker->direct.handoff_requested);
  CU_ASSERT_EQUAL(t.worker->direct.staged_records, 300);
  /* 1,748 lines: 524,400 bytes */
  long_lines_deliver(&t, t.job, 1448);
  CU_ASSERT_TRUE(t.worker->direct.handoff_requested);
  worker_writes(&t.rig);
  CU_ASSERT_EQUAL(t.worker->lane.files.write_syscalls, 1);
  assert_file_size(t.path, 1748 * LONG_LINE);
  job_run(t.job, JOB_END, NULL);
  CU_ASSERT_EQUAL(t.worker->lane.files.write_syscalls, 1);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1748);

  long_lines_stop(&t);
}

static gint forwarded;

static void
count_forwarded(LogPipe *s, LogMessage *msg, const LogPathOptions *path_options)
{
  forwarded++;
  log_msg_drop(msg, path_options, AT_PROCESSED);
}

/* in destination { fast-file(...); file(...); } the message goes on to the
 * next driver at once; fast-file() takes a reference and an ack of its own */
static void
test_direct_forwards_to_the_next_driver(void)
{
  gchar *path = tmp_path("direct-next.log");
  Rig rig = rig_new(path, "${MSG}\n");
  LogPipe *next = log_pipe_new(cfg);
  next->queue = count_forwarded;
  next->flags |= PIF_INITIALIZED;
  log_pipe_append(&rig.driver->super.super.super.super, next);
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = forwarded = 0;

  job_deliver(job, "h", "n0");
  job_deliver(job, "h", "n1");
  CU_ASSERT_EQUAL(forwarded, 2);
  /* the next driver let go of its ack: only fast-file()'s is outstanding */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 0);
  job_run(job, JOB_END, NULL);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 2);
  assert_file(path, "n0\nn1\n");

  job_stop(job);
  rig_free(&rig);
  log_pipe_unref(next);
  g_free(path);
}

/* a delivering thread that finds the lock taken formats the message with its
 * own formatter meanwhile and only copies it in: the same bytes, the same
 * refusals and skips as formatting under the lock */
static void
test_direct_formatted_while_the_lock_is_taken(void)
{
  gchar *dir = tmp_path("contended");
  gchar *path_template = g_strdup_printf("%s/${HOST}.log", dir);
  /* no newline in the template: an empty message renders empty and is skipped */
  Rig rig = rig_new(path_template, "${MSG}");
  fastfile_dd_set_create_dirs(&rig.driver->super.super.super, TRUE);
  rig_start(&rig);
  /* a lone thread that stages its messages itself (the worker's thread fell behind) */
  rig_no_hand_over(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  Job *job = job_start(&rig);
  acked = 0;

  LogMessage *msgs[] =
  {
    make_msg("a", "p", "first a"),
    make_msg("b", "p", "first b"),
    make_msg("", "p", "no name"),
    make_msg("..", "p", "spurious"),
    make_msg("a", "p", ""),
    make_msg("a", "p", "second a"),
  };
  for (guint i = 0; i < G_N_ELEMENTS(msgs); i++)
    {
      g_mutex_lock(&worker->lock);
      job_deliver_async(job, msgs[i]);
      /* the job formats on its own, then waits for the lock */
      for (gint wait = 0; wait < 2000 && !g_atomic_pointer_get(&worker->prepared[0]); wait++)
        g_usleep(1000);
      g_usleep(20000);
      g_mutex_unlock(&worker->lock);
      job_wait(job);
    }
  CU_ASSERT_PTR_NOT_NULL(worker->prepared[0]);
  job_run(job, JOB_END, NULL);
  worker_writes(&rig);

  gchar *a = g_strdup_printf("%s/a.log", dir), *b = g_strdup_printf("%s/b.log", dir);
  assert_file(a, "first a\nsecond a\n");
  assert_file(b, "first b\n");
  /* the refused ones dropped, the empty rendering skipped, all acked */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 6);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);

  job_stop(job);
  rig_free(&rig);
  g_free(a);
  g_free(b);
  g_free(path_template);
  g_free(dir);
}

/* one file failing (/dev/full: ENOSPC) holds neither the writes nor the acks
 * of the others; its record is retried, then dropped after retries(3) */
static void
test_direct_failing_file_holds_only_its_own(void)
{
  gchar *good = tmp_path("direct-good.log");
  Rig rig = rig_new("${HOST}", "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 3);
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = 0;

  job_deliver(job, good, "g0");
  job_deliver(job, "/dev/full", "f1");
  job_deliver(job, good, "g2");
  job_deliver(job, good, "g3");
  /* the first attempt, by the delivering thread */
  job_run(job, JOB_END, NULL);
  assert_file(good, "g0\ng2\ng3\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 3);

  /* time-reopen has passed (it is 0 here): the retry timer's writes */
  worker_writes(&rig);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 3);
  worker_writes(&rig);
  /* the third attempt failed: dropped, acked as the framework acks a drop */
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 4);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&((FastFileWorker *) rig.worker)->lane), 0);
  assert_file(good, "g0\ng2\ng3\n");

  job_stop(job);
  rig_free(&rig);
  g_free(good);
}

/* a lone thread that writes batches of its own (the trial's way) into a file per host: a batch of two names goes
 * to the lane, and a record waiting there for a failed file counts its message's size in the queue's memory
 * (a record of the thread's own batch takes it only when it is staged) */
static void
test_direct_own_batch_staged_counts_its_size(void)
{
  gchar *good = tmp_path("direct-own-good.log");
  Rig rig = rig_new("${HOST}", "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 3);
  rig_start(&rig);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  g_atomic_int_set(&worker->trial.way, FASTFILE_WAY_OWN);
  worker->trial.chosen = FASTFILE_WAY_OWN;
  worker->trial.decided = TRUE;
  Job *job = job_start(&rig);
  acked = 0;

  job_deliver(job, good, "g0");
  job_deliver(job, "/dev/full", "f1");
  job_deliver(job, good, "g2");
  /* formatted into the thread's own batch, nothing staged yet */
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);
  job_run(job, JOB_END, NULL);
  assert_file(good, "g0\ng2\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 2);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 1);
  guint held = 0;
  for (guint i = worker->lane.head; i < worker->lane.tail; i++)
    if (worker->lane.records[i].held)
      {
        held++;
        CU_ASSERT(worker->lane.records[i].size >= sizeof(LogMessage));
      }
  CU_ASSERT_EQUAL(held, 1);

  worker_writes(&rig);
  worker_writes(&rig);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 3);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);

  job_stop(job);
  rig_free(&rig);
  g_free(good);
}

/* a name that can never be opened (ENAMETOOLONG) drops its message at the
 * first attempt; an empty name is refused before that; the others flow, and
 * neither leaves an entry behind */
static void
test_direct_unopenable_name_dropped_at_once(void)
{
  gchar *good = tmp_path("direct-ok.log");
  gchar *long_name = g_strnfill(300, 'n');
  gchar *bad = tmp_path(long_name);
  Rig rig = rig_new("${HOST}", "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 1000);
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = 0;

  job_deliver(job, bad, "too long");
  job_deliver(job, "", "no name");
  for (gint i = 0; i < 5; i++)
    job_deliver(job, good, "ok");
  job_run(job, JOB_END, NULL);
  worker_writes(&rig);

  assert_file(good, "ok\nok\nok\nok\nok\n");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 7);
  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);
  /* only the open file is left */
  CU_ASSERT_EQUAL(g_hash_table_size(worker->lane.files.by_path), 1);
  CU_ASSERT_PTR_NOT_NULL(g_hash_table_lookup(worker->lane.files.by_path, good));

  job_stop(job);
  rig_free(&rig);
  g_free(bad);
  g_free(long_name);
  g_free(good);
}

/* more files in one write round than max-open-files(): opening one evicts
 * another that is waiting in the same round (it is written, then closed);
 * every file is still written in that round, none is left waiting for a
 * wake-up that never comes (the round used to stop at an evicted file) */
static void
test_direct_more_files_than_max_open_files_in_one_round(void)
{
  const gint nfiles = 12;
  gchar *dir_template = tmp_path("evict-${HOST}.log");
  Rig rig = rig_new(dir_template, "${MSG}\n");
  fastfile_dd_set_max_open_files(&rig.driver->super.super.super, 3);
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = 0;

  /* the first round leaves the last three open, h09 least recently used */
  for (gint i = 0; i < nfiles; i++)
    job_deliver_from_host(job, i, "first");
  job_run(job, JOB_END, NULL);
  worker_writes(&rig);

  /* the second: opening h00 evicts h09, the next one waiting in the round */
  const gint order[] = { 0, 9, 1, 10, 2, 11, 3, 4, 5, 6, 7, 8 };
  for (gint i = 0; i < nfiles; i++)
    job_deliver_from_host(job, order[i], "second");
  job_run(job, JOB_END, NULL);
  /* one wake-up of the worker */
  worker_writes(&rig);

  FastFileWorker *worker = (FastFileWorker *) rig.worker;
  CU_ASSERT_EQUAL(fastfile_set_outgoing_count(&worker->lane.files), 0);
  CU_ASSERT_EQUAL(fastfile_lane_pending(&worker->lane), 0);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 2 * nfiles);
  for (gint i = 0; i < nfiles; i++)
    {
      gchar *name = g_strdup_printf("evict-h%02d.log", i);
      gchar *path = tmp_path(name);
      assert_file(path, "first\nsecond\n");
      g_free(path);
      g_free(name);
    }

  job_stop(job);
  rig_free(&rig);
  g_free(dir_template);
}

/* a write stops in the middle of a record (RLIMIT_FSIZE: EFBIG), then the
 * destination stops (a reload): the torn record is cut off the file again,
 * and the records not written go back into the queue in order, for the next
 * configuration, unacked */
static void
worker_deinit(Rig *rig)
{
  rig->worker->deinit(rig->worker);
}

/* the worker's writes stop at `limit` bytes of file (EFBIG) while step runs */
static void
_fsize_limited(Rig *rig, rlim_t limit, void (*step)(Rig *rig))
{
  struct rlimit saved, limited;

  g_assert(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  limited = saved;
  limited.rlim_cur = limit;
  signal(SIGXFSZ, SIG_IGN);
  g_assert(setrlimit(RLIMIT_FSIZE, &limited) == 0);
  step(rig);
  g_assert(setrlimit(RLIMIT_FSIZE, &saved) == 0);
}

static gchar *
_pop_text(LogQueue *queue)
{
  LogPathOptions path_options = LOG_PATH_OPTIONS_INIT;
  LogMessage *msg = log_queue_pop_head(queue, &path_options);

  if (!msg)
    return g_strdup("<none>");
  gchar *text = g_strdup(log_msg_get_value(msg, LM_V_MESSAGE, NULL));
  log_queue_ack_backlog(queue, 1);
  log_msg_unref(msg);
  return text;
}

static Job *limited_job;

static void
end_limited_job(Rig *rig)
{
  job_run(limited_job, JOB_END, NULL);
}

static void
_torn_write_then_deinit(const gchar *name, gboolean another_writer, const gchar *expected)
{
  gchar *path = tmp_path(name);
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 1000);
  rig_start(&rig);
  Job *job = job_start(&rig);
  acked = 0;

  job_deliver(job, "h", "aaaaaaaaa");
  job_deliver(job, "h", "bbbbbbbbb");
  job_deliver(job, "h", "ccccccccc");
  /* written as the job ends: 15 of the 30 bytes fit (aaaaaaaaa, a newline and bbbbb) */
  limited_job = job;
  _fsize_limited(&rig, 15, end_limited_job);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1);
  if (another_writer)
    {
      gint fd = open(path, O_WRONLY | O_APPEND);
      CU_ASSERT_EQUAL(write(fd, "OTHER\n", 6), 6);
      close(fd);
    }

  job_stop(job);
  /* the disk is still full when the destination stops */
  _fsize_limited(&rig, 15, worker_deinit);
  assert_file(path, expected);
  /* requeued in order, and not acked: the queue holds them now */
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 2);
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 1);
  gchar *first = _pop_text(rig.queue), *second = _pop_text(rig.queue);
  CU_ASSERT_STRING_EQUAL(first, "bbbbbbbbb");
  CU_ASSERT_STRING_EQUAL(second, "ccccccccc");
  CU_ASSERT_EQUAL(g_atomic_int_get(&acked), 3);
  g_free(first);
  g_free(second);

  rig.driver->super.workers = NULL;
  rig.driver->super.created_workers = 0;
  log_threaded_dest_worker_free(rig.worker);
  log_queue_unref(rig.queue);
  log_pipe_unref(&rig.driver->super.super.super.super);
  g_free(path);
}

static void
test_direct_torn_record_cut_and_requeued_at_deinit(void)
{
  _torn_write_then_deinit("torn.log", FALSE, "aaaaaaaaa\n");
}

/* the file's end is not where our write left it (another writer appended):
 * cutting would cut someone else's bytes, so nothing is cut */
static void
test_direct_torn_record_not_cut_when_the_end_is_not_ours(void)
{
  _torn_write_then_deinit("torn-other.log", TRUE, "aaaaaaaaa\nbbbbbOTHER\n");
}

static LogThreadedResult last_flush_result;

static void
worker_flushes(Rig *rig)
{
  last_flush_result = flush(rig);
}

/* a flush while rewound records are only partly back (throttle() lets the
 * framework pop them slowly) makes progress: it writes and acks what was
 * popped, or suspends; it never returns with nothing done and batch_size
 * unchanged, which the framework's loop would call again at once (a spin) */
static void
test_flush_during_a_partial_replay_makes_progress(void)
{
  gchar *path = tmp_path("replay.log");
  Rig rig = rig_new(path, "${MSG}\n");
  log_threaded_dest_driver_set_max_retries_on_error(&rig.driver->super.super.super, 1000);
  rig_start(&rig);

  for (gint i = 0; i < 4; i++)
    {
      gchar text[16];
      g_snprintf(text, sizeof(text), "r%d", i);
      feed(&rig, make_msg("h", "p", text));
    }
  /* the disk is full: nothing written, the framework rewinds and suspends */
  _fsize_limited(&rig, 0, worker_flushes);
  CU_ASSERT_EQUAL(last_flush_result, LTR_NOT_CONNECTED);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 4);
  log_threaded_dest_worker_rewind_messages(rig.worker, rig.worker->batch_size);
  rig.worker->rewound_batch_size = 0;

  /* time-reopen later, the throttle lets two of them through */
  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  LogThreadedResult result = flush(&rig);
  CU_ASSERT_TRUE(result == LTR_NOT_CONNECTED || rig.worker->batch_size < 2);

  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  CU_ASSERT_EQUAL(rig.worker->batch_size, 0);
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 0);
  assert_file(path, "r0\nr1\nr2\nr3\n");
  rig_free(&rig);
  g_free(path);
}

/* throttle() paces the queue's reader: every message goes through the queue */
static void
test_direct_path_not_taken_with_throttle(void)
{
  gchar *path = tmp_path("throttled.log");
  Rig rig = rig_new(path, "${MSG}\n");
  rig.driver->super.super.throttle = 100;
  rig_start(&rig);
  Job *job = job_start(&rig);

  job_deliver(job, "h", "t");
  CU_ASSERT_EQUAL(fastfile_lane_pending(&((FastFileWorker *) rig.worker)->lane), 0);
  job_run(job, JOB_END, NULL);
  CU_ASSERT_EQUAL(log_queue_get_length(rig.queue), 1);
  CU_ASSERT_EQUAL(insert_next(&rig), LTR_QUEUED);
  CU_ASSERT_EQUAL(flush(&rig), LTR_EXPLICIT_ACK_MGMT);
  assert_file(path, "t\n");

  job_stop(job);
  rig_free(&rig);
  g_free(path);
}

/* a worker whose init fails (here: no such charset) is deinited as the
 * framework does, without touching what was never set up */
static void
test_failed_worker_init_then_deinit(void)
{
  gchar *path = tmp_path("never.log");
  Rig rig = rig_new(path, NULL);
  g_free(rig.driver->encoding);
  rig.driver->encoding = g_strdup("NO-SUCH-CHARSET-FOR-FASTDEST");

  fastfile_dd_init_worker_options(rig.driver);
  rig.worker = fastfile_worker_new(&rig.driver->super, 0, &rig.driver->worker_options);
  rig.worker->queue = rig.queue;
  rig.driver->super.workers = &rig.worker;
  rig.driver->super.created_workers = 1;
  CU_ASSERT_FALSE(rig.worker->init(rig.worker));
  rig_free(&rig);
  g_free(path);
}

static int
suite_init(void)
{
  app_startup();
  /* as the main loop sets it: the delivering jobs' threads have queue inputs of their own */
  fd_log_queue_set_max_threads(MAIN_LOOP_MAX_WORKER_THREADS);
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
  { "direct: written at job end, acked after", test_direct_written_at_job_end_and_acked_after },
  { "direct: acked by the delivering thread", test_direct_acked_by_the_delivering_thread },
  { "direct: a lone deliverer hands its messages over", test_direct_lone_deliverer_hands_over },
  { "direct: handed-over chunks carry their links", test_direct_handed_over_chunks_carry_their_links },
  {
    "direct: handed over, staged by the deliverer when the worker lags",
    test_direct_handed_over_staged_by_the_deliverer_when_the_worker_lags
  },
  { "direct: handed over before another thread's lines", test_direct_handed_over_before_another_threads_lines },
  { "direct: acked by the thread that delivered it", test_direct_acked_by_the_thread_that_delivered_it },
  { "direct: formatted apart while others deliver", test_direct_formatted_apart_while_others_deliver },
  { "direct: own batches into one file", test_direct_own_batches_into_one_file },
  { "direct: own batches alone only for a while", test_direct_own_batches_alone_only_for_a_while },
  { "direct: handed over while another writes", test_direct_handed_over_while_another_writes },
  { "direct: long lines written beside a lone deliverer", test_direct_long_lines_written_beside_a_lone_deliverer },
  { "direct: a small job of long lines written here", test_direct_small_job_of_long_lines_written_here },
  { "direct: long lines handed over in big batches", test_direct_long_lines_handed_over_in_big_batches },
  { "direct: forwards to the next driver", test_direct_forwards_to_the_next_driver },
  { "direct: formatted while the lock is taken", test_direct_formatted_while_the_lock_is_taken },
  { "direct: a failing file holds only its own", test_direct_failing_file_holds_only_its_own },
  { "direct: an own batch staged counts its size", test_direct_own_batch_staged_counts_its_size },
  { "direct: a name that cannot be opened is dropped at once", test_direct_unopenable_name_dropped_at_once },
  { "direct: more files than max-open-files() in one round", test_direct_more_files_than_max_open_files_in_one_round },
  { "direct: torn record cut and requeued at deinit", test_direct_torn_record_cut_and_requeued_at_deinit },
  { "direct: torn record not cut when the end is not ours", test_direct_torn_record_not_cut_when_the_end_is_not_ours },
  { "direct path not taken with throttle()", test_direct_path_not_taken_with_throttle },
  { "a flush during a partial replay makes progress", test_flush_during_a_partial_replay_makes_progress },
  { "a failed worker init, then deinit", test_failed_worker_init_then_deinit },
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
