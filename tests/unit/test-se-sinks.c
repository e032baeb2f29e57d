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
/* file sealing constants */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test-se-golden.h"
#include "se-sink-journald.h"
#include "se-sink-export.h"
#include "se-journal-encoder.h"
#include "stats/stats-counter.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeEvent event;
} Events;

static void
_events_init(Events *e)
{
  golden_options(&e->options);
  se_event_builder_init(&e->builder, &e->options);
}

static void
_events_destroy(Events *e)
{
  se_event_builder_destroy(&e->builder);
  se_selection_free(e->options.selection);
}

static gint
_bind_dgram(const gchar *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  gint fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  g_strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
  g_assert(bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0);
  return fd;
}

static void
test_journald_datagram(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar *path = g_build_filename(dir, "socket", NULL);
  gint server = _bind_dgram(path);
  StatsCounterItem memfd_counter = { 0 };
  StatsCounterItem *memfd_sends = &memfd_counter;
  SeSink *sink = se_test_attach(se_sink_journald_new(&(SeSinkJournaldOptions)
  {
    .socket = path, .memfd_sends = &memfd_sends
  }));
  LogMessage *msg = golden_message();
  Events e;
  guint delivered;
  gchar buf[4096];

  _events_init(&e);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  se_event_build(&e.builder, msg, 0, &e.event);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  gssize n = recv(server, buf, sizeof(buf), MSG_DONTWAIT);
  ASSERT_BYTES(buf, n, GOLDEN_NATIVE, sizeof(GOLDEN_NATIVE) - 1);
  CU_ASSERT_EQUAL(stats_counter_get(&memfd_counter), 0);

  /* the receiver goes away: not connected, nothing reported delivered */
  close(server);
  unlink(path);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  se_sink_close(sink);
  CU_ASSERT_FALSE(se_sink_open(sink));

  se_sink_free(sink);
  _events_destroy(&e);
  log_msg_unref(msg);
  rmdir(dir);
  g_free(path);
  g_free(dir);
}

static void
test_journald_memfd(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar *path = g_build_filename(dir, "socket", NULL);
  gint server = _bind_dgram(path);
  StatsCounterItem memfd_counter = { 0 };
  StatsCounterItem *memfd_sends = &memfd_counter;
  SeSink *sink = se_test_attach(se_sink_journald_new(&(SeSinkJournaldOptions)
  {
    .socket = path, .memfd_sends = &memfd_sends
  }));
  LogMessage *msg = golden_message();
  gsize big_len = 300 * 1024;
  gchar *big = g_malloc(big_len);
  SeJournalEncoder enc;
  Events e;
  guint delivered;

  memset(big, 'x', big_len);
  log_msg_set_value(msg, LM_V_MESSAGE, big, big_len);
  _events_init(&e);
  se_journal_encoder_init(&enc);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  se_event_build(&e.builder, msg, 0, &e.event);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_EQUAL(stats_counter_get(&memfd_counter), 1);

  /* an empty datagram carrying a sealed memfd with the whole entry */
  union
  {
    struct cmsghdr h;
    guint8 buf[CMSG_SPACE(sizeof(gint))];
  } control;
  gchar dummy[16];
  struct iovec iov = { dummy, sizeof(dummy) };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control) };
  gssize n = recvmsg(server, &mh, MSG_DONTWAIT);
  CU_ASSERT_EQUAL(n, 0);
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cmsg);
  CU_ASSERT_EQUAL(cmsg->cmsg_type, SCM_RIGHTS);
  gint memfd;
  memcpy(&memfd, CMSG_DATA(cmsg), sizeof(memfd));
  CU_ASSERT_EQUAL(fcntl(memfd, F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
                  F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);

  se_journal_encode(&enc, NULL, 0, &e.event, FALSE);
  gchar *expected = g_malloc(enc.total_len);
  gchar *actual = g_malloc(enc.total_len + 1);
  se_journal_encoder_copy(&enc, expected);
  CU_ASSERT_EQUAL(pread(memfd, actual, enc.total_len + 1, 0), (gssize) enc.total_len);
  CU_ASSERT_EQUAL(memcmp(actual, expected, enc.total_len), 0);
  CU_ASSERT_TRUE(enc.total_len > big_len);

  close(memfd);
  g_free(expected);
  g_free(actual);
  g_free(big);
  se_journal_encoder_destroy(&enc);
  se_sink_free(sink);
  _events_destroy(&e);
  log_msg_unref(msg);
  close(server);
  unlink(path);
  rmdir(dir);
  g_free(path);
  g_free(dir);
}

static SeSink *
_export_file_sink(const gchar *dir, guint batch_records)
{
  SeSinkExportOptions options = { 0 };
  gchar *template_str = g_strdup_printf("%s/${HOST}.export", dir);
  LogTemplate *path = log_template_new(se_test_cfg, NULL);
  static LogTemplateOptions template_options;
  SeSink *sink;

  g_assert(log_template_compile(path, template_str, NULL));
  /* static: the sink keeps a pointer to it; the previous test's sink is gone,
   * so free what the previous init allocated (ASan's leak check) */
  if (template_options.initialized)
    log_template_options_destroy(&template_options);
  log_template_options_defaults(&template_options);
  log_template_options_init(&template_options, se_test_cfg);
  options.path = path;
  options.template_options = &template_options;
  options.batch_records = batch_records;
  append_opener_options_defaults(&options.opener);
  append_opener_options_init(&options.opener, se_test_cfg);
  sink = se_test_attach(se_sink_export_new(&options));
  log_template_unref(path);
  g_free(template_str);
  return sink;
}

static void
_assert_file(const gchar *dir, const gchar *name, const gchar *expected, gsize expected_len)
{
  gchar *path = g_build_filename(dir, name, NULL);
  gchar *contents = NULL;
  gsize len = 0;

  CU_ASSERT_TRUE(g_file_get_contents(path, &contents, &len, NULL));
  ASSERT_BYTES(contents, len, expected, expected_len);
  g_free(contents);
  unlink(path);
  g_free(path);
}

static void
test_export_file_batches(void)
{
  gchar *dir = testutil_make_tmpdir();
  SeSink *sink = _export_file_sink(dir, 10);
  LogMessage *msg = golden_message();
  LogMessage *other = golden_message();
  Events e;
  guint delivered;
  const gchar *golden = golden_export();
  gsize golden_len = GOLDEN_EXPORT_LEN;
  gchar *twice = g_malloc(2 * golden_len);

  memcpy(twice, golden, golden_len);
  memcpy(twice + golden_len, golden, golden_len);
  log_msg_set_value(other, LM_V_HOST, "h2", -1);

  _events_init(&e);
  CU_ASSERT_TRUE(se_sink_open(sink));
  for (gint i = 0; i < 2; i++)
    {
      se_event_build(&e.builder, msg, 0, &e.event);
      CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(delivered, 0);
    }
  CU_ASSERT_EQUAL(se_sink_pending(sink), 2);

  /* another file: the batch so far is written first */
  se_event_build(&e.builder, other, 0, &e.event);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 1);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  _assert_file(dir, "h1.export", twice, 2 * golden_len);
  se_sink_free(sink);
  _events_destroy(&e);

  gchar *h2 = g_build_filename(dir, "h2.export", NULL);
  gchar *contents;
  gsize len;
  CU_ASSERT_TRUE(g_file_get_contents(h2, &contents, &len, NULL));
  CU_ASSERT_EQUAL(len, golden_len);
  CU_ASSERT_PTR_NOT_NULL(g_strstr_len(contents, len, "_HOSTNAME=h2\n"));
  g_free(contents);
  unlink(h2);
  g_free(h2);

  g_free(twice);
  log_msg_unref(msg);
  log_msg_unref(other);
  rmdir(dir);
  g_free(dir);
}

static void
test_export_file_name_never_opens(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar *sub = g_build_filename(dir, "missing", NULL);
  SeSink *sink = _export_file_sink(sub, 10);
  LogMessage *msg = golden_message();
  Events e;
  guint delivered;
  guint64 dropped = se_test_tally.dropped;

  /* the directory does not exist and create-dirs is off: the name is the message's, it alone is dropped */
  _events_init(&e);
  se_event_build(&e.builder, msg, 0, &e.event);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped + 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  se_sink_free(sink);
  _events_destroy(&e);
  log_msg_unref(msg);
  rmdir(dir);
  g_free(sub);
  g_free(dir);
}

static void
test_export_file_no_descriptors_left(void)
{
  gchar *dir = testutil_make_tmpdir();
  SeSink *sink = _export_file_sink(dir, 10);
  LogMessage *msg = golden_message();
  struct rlimit saved, none;
  Events e;
  guint delivered;
  guint64 dropped = se_test_tally.dropped;

  /* EMFILE is the process's, not the name's: not connected, the event comes again */
  _events_init(&e);
  se_event_build(&e.builder, msg, 0, &e.event);
  g_assert(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  none = saved;
  none.rlim_cur = 0;
  g_assert(setrlimit(RLIMIT_NOFILE, &none) == 0);
  SeSinkResult r = se_test_emit(sink, &e.event, &delivered);
  g_assert(setrlimit(RLIMIT_NOFILE, &saved) == 0);
  CU_ASSERT_EQUAL(r, SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped);

  /* and goes out once descriptors are there again */
  CU_ASSERT_EQUAL(se_test_emit(sink, &e.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  const gchar *golden = golden_export();
  _assert_file(dir, "h1.export", golden, GOLDEN_EXPORT_LEN);

  se_sink_free(sink);
  _events_destroy(&e);
  log_msg_unref(msg);
  rmdir(dir);
  g_free(dir);
}

/* "another writer": appends to the file when our write() runs into RLIMIT_FSIZE, before we see its error */
static gchar *other_writer_path;

static void
_other_writer(int signo)
{
  struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
  gint fd;

  setrlimit(RLIMIT_FSIZE, &unlimited);
  fd = open(other_writer_path, O_WRONLY | O_APPEND);
  if (fd >= 0)
    {
      if (write(fd, "OTHER\n", 6) != 6)
        abort();
      close(fd);
    }
}

/* two entries into h1.export with the file size limit 10 bytes into the second: a partial write */
static SeSinkResult
_write_partially(const gchar *dir, Events *e, LogMessage *msg, void (*on_limit)(int), guint *delivered)
{
  SeSink *sink = _export_file_sink(dir, 10);
  const gchar *golden = golden_export();
  struct rlimit saved, limit;
  struct sigaction sa = { .sa_handler = on_limit }, old_sa;
  SeSinkResult r;

  se_event_build(&e->builder, msg, 0, &e->event);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e->event, delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_emit(sink, &e->event, delivered), SE_SINK_OK);
  g_assert(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  limit = saved;
  limit.rlim_cur = GOLDEN_EXPORT_LEN + 10;
  g_assert(sigaction(SIGXFSZ, &sa, &old_sa) == 0);
  g_assert(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  r = se_test_flush(sink, delivered);
  g_assert(setrlimit(RLIMIT_FSIZE, &saved) == 0);
  g_assert(sigaction(SIGXFSZ, &old_sa, NULL) == 0);
  se_sink_free(sink);
  return r;
}

static void
test_export_file_partial_entry_cut(void)
{
  gchar *dir = testutil_make_tmpdir();
  LogMessage *msg = golden_message();
  const gchar *golden = golden_export();
  Events e;
  guint delivered;

  /* the write stops 10 bytes into the second entry: the first is delivered, the partial one cut off */
  _events_init(&e);
  CU_ASSERT_EQUAL(_write_partially(dir, &e, msg, SIG_IGN, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 1);
  _assert_file(dir, "h1.export", golden, GOLDEN_EXPORT_LEN);

  _events_destroy(&e);
  log_msg_unref(msg);
  rmdir(dir);
  g_free(dir);
}

static void
test_export_file_partial_entry_kept_when_not_ours(void)
{
  gchar *dir = testutil_make_tmpdir();
  LogMessage *msg = golden_message();
  const gchar *golden = golden_export();
  gsize golden_len = GOLDEN_EXPORT_LEN;
  Events e;
  guint delivered;
  gchar *expected = g_malloc(golden_len + 10 + 6);

  /* another writer appended after our partial entry: its bytes are the end of the file now, and
   * cutting our partial entry would cut them; the file is left as it is */
  other_writer_path = g_build_filename(dir, "h1.export", NULL);
  _events_init(&e);
  CU_ASSERT_EQUAL(_write_partially(dir, &e, msg, _other_writer, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 1);
  memcpy(expected, golden, golden_len);
  memcpy(expected + golden_len, golden, 10);
  memcpy(expected + golden_len + 10, "OTHER\n", 6);
  _assert_file(dir, "h1.export", expected, golden_len + 16);

  g_free(expected);
  g_free(other_writer_path);
  _events_destroy(&e);
  log_msg_unref(msg);
  rmdir(dir);
  g_free(dir);
}

static CU_TestInfo sink_tests[] =
{
  { "journald: one datagram per event", test_journald_datagram },
  { "journald: memfd for a 300 KiB entry", test_journald_memfd },
  { "export: batches per file", test_export_file_batches },
  { "export: a name that never opens drops its event alone", test_export_file_name_never_opens },
  { "export: out of descriptors is not the name's fault", test_export_file_no_descriptors_left },
  { "export: a partial entry is cut off", test_export_file_partial_entry_cut },
  { "export: a partial entry followed by another writer's bytes stays", test_export_file_partial_entry_kept_when_not_ours },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-sinks", se_test_startup, se_test_shutdown, NULL, NULL, sink_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
