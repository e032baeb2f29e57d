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
#define _GNU_SOURCE 1  /* pipe2(), F_SETPIPE_SZ */
#include "batch-writer.h"
#include "testutil.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <pthread.h>

static gchar *tmpdir;

static gchar *
_pattern(gsize len)
{
  gchar *data = g_malloc(len);

  for (gsize i = 0; i < len; i++)
    data[i] = 'a' + (i * 7 + i / 26) % 26;
  return data;
}

static gint
_open_file(const gchar *name, gchar **path_out)
{
  gchar *path = g_build_filename(tmpdir, name, NULL);
  gint fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);

  CU_ASSERT_TRUE_FATAL(fd >= 0);
  *path_out = path;
  return fd;
}

static void
test_full_write(void)
{
  gchar *path;
  gint fd = _open_file("full.log", &path);
  gsize len = 3 * 1024 * 1024 + 17;
  gchar *data = _pattern(len);
  BatchWriteResult result;

  memset(&result, 0x55, sizeof(result));
  CU_ASSERT_TRUE(batch_writer_write(fd, data, len, &result));
  CU_ASSERT_EQUAL(result.written, len);
  CU_ASSERT_EQUAL(result.error, 0);
  CU_ASSERT_EQUAL(result.syscalls, 1);
  CU_ASSERT_TRUE(batch_writer_sync(fd));
  close(fd);

  gchar *contents;
  gsize contents_len;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &contents, &contents_len, NULL));
  CU_ASSERT_EQUAL(contents_len, len);
  CU_ASSERT_EQUAL(memcmp(contents, data, len), 0);
  g_free(contents);
  g_free(data);
  g_free(path);
}

static void
test_empty_write_makes_no_syscall(void)
{
  BatchWriteResult result;

  memset(&result, 0x55, sizeof(result));
  /* even an invalid fd: nothing to write, nothing to fail */
  CU_ASSERT_TRUE(batch_writer_write(-1, "", 0, &result));
  CU_ASSERT_EQUAL(result.written, 0);
  CU_ASSERT_EQUAL(result.error, 0);
  CU_ASSERT_EQUAL(result.syscalls, 0);
}

static void
test_enospc_on_dev_full(void)
{
  gint fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  BatchWriteResult result;

  CU_ASSERT_TRUE_FATAL(fd >= 0);
  CU_ASSERT_FALSE(batch_writer_write(fd, "some bytes\n", 11, &result));
  CU_ASSERT_EQUAL(result.written, 0);
  CU_ASSERT_EQUAL(result.error, ENOSPC);
  CU_ASSERT_EQUAL(result.syscalls, 1);
  close(fd);
}

static void
test_ebadf_on_closed_fd(void)
{
  gchar *path;
  gint fd = _open_file("closed.log", &path);
  BatchWriteResult result;

  close(fd);
  CU_ASSERT_FALSE(batch_writer_write(fd, "x\n", 2, &result));
  CU_ASSERT_EQUAL(result.written, 0);
  CU_ASSERT_EQUAL(result.error, EBADF);
  CU_ASSERT_EQUAL(result.syscalls, 1);

  errno = 0;
  CU_ASSERT_FALSE(batch_writer_sync(fd));
  CU_ASSERT_EQUAL(errno, EBADF);
  g_free(path);
}

static void
test_sync_on_pipe_fails(void)
{
  gint fds[2];

  CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
  errno = 0;
  CU_ASSERT_FALSE(batch_writer_sync(fds[1]));
  CU_ASSERT_EQUAL(errno, EINVAL);
  close(fds[0]);
  close(fds[1]);
}

/* A real short write: RLIMIT_FSIZE stops the file at `limit` bytes, write()
 * returns the part that fit, and the next write() fails with EFBIG.  Runs in
 * a child so the limit does not leak into the rest of the tests. */
static void
_run_fsize_limited_write(const gchar *path, gsize limit, gsize len, BatchWriteResult *result, gboolean *ok)
{
  gint report[2];

  CU_ASSERT_EQUAL_FATAL(pipe(report), 0);
  pid_t pid = fork();
  CU_ASSERT_TRUE_FATAL(pid >= 0);
  if (pid == 0)
    {
      struct rlimit rl = { .rlim_cur = limit, .rlim_max = limit };
      gchar *data = _pattern(len);
      BatchWriteResult child_result = { 0 };
      gboolean child_ok;

      close(report[0]);
      signal(SIGXFSZ, SIG_IGN);
      if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
        _exit(3);
      gint fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
      if (fd < 0)
        _exit(4);
      child_ok = batch_writer_write(fd, data, len, &child_result);
      if (write(report[1], &child_result, sizeof(child_result)) != sizeof(child_result)
          || write(report[1], &child_ok, sizeof(child_ok)) != sizeof(child_ok))
        _exit(5);
      _exit(0);
    }

  close(report[1]);
  gint status;
  CU_ASSERT_EQUAL(read(report[0], result, sizeof(*result)), sizeof(*result));
  CU_ASSERT_EQUAL(read(report[0], ok, sizeof(*ok)), sizeof(*ok));
  close(report[0]);
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  /* not killed by SIGXFSZ; the exit code itself is valgrind's under valgrind
   * (the parent's other threads are gone in the child), the pipe told the rest */
  CU_ASSERT_TRUE(WIFEXITED(status));
}

static void
test_short_write_reports_exactly_what_reached_the_file(void)
{
  gchar *path = g_build_filename(tmpdir, "fsize.log", NULL);
  BatchWriteResult result = { 0 };
  gboolean ok = TRUE;
  gsize len = 10000;

  /* the file already holds 300 bytes, the limit is 1000: 700 more fit */
  gchar *old = _pattern(300);
  CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, old, 300, NULL));
  _run_fsize_limited_write(path, 1000, len, &result, &ok);

  CU_ASSERT_FALSE(ok);
  CU_ASSERT_EQUAL(result.written, 700);
  CU_ASSERT_EQUAL(result.error, EFBIG);
  /* the short write, then the one that failed */
  CU_ASSERT_EQUAL(result.syscalls, 2);

  gchar *contents;
  gsize contents_len;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &contents, &contents_len, NULL));
  CU_ASSERT_EQUAL_FATAL(contents_len, 300 + result.written);
  gchar *data = _pattern(len);
  CU_ASSERT_EQUAL(memcmp(contents + 300, data, result.written), 0);

  g_free(data);
  g_free(contents);
  g_free(old);
  g_free(path);
}

static void
test_eagain_on_full_nonblocking_pipe(void)
{
  gint fds[2];
  gsize len = 3 * 65536;
  gchar *data = _pattern(len);
  BatchWriteResult result;

  CU_ASSERT_EQUAL_FATAL(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  gint capacity = fcntl(fds[1], F_SETPIPE_SZ, 4096);
  CU_ASSERT_TRUE_FATAL(capacity > 0 && (gsize) capacity < len);

  CU_ASSERT_FALSE(batch_writer_write(fds[1], data, len, &result));
  CU_ASSERT_EQUAL(result.error, EAGAIN);
  CU_ASSERT_EQUAL(result.written, (gsize) capacity);
  CU_ASSERT_EQUAL(result.syscalls, 2);

  /* exactly the reported bytes are in the pipe */
  gint queued = -1;
  CU_ASSERT_EQUAL(ioctl(fds[0], FIONREAD, &queued), 0);
  CU_ASSERT_EQUAL(queued, (gint) result.written);
  gchar *back = g_malloc(len);
  CU_ASSERT_EQUAL(read(fds[0], back, len), (gssize) result.written);
  CU_ASSERT_EQUAL(memcmp(back, data, result.written), 0);

  /* resuming with the tail completes the data */
  CU_ASSERT_TRUE(batch_writer_write(fds[1], data + result.written, 100, &result));
  CU_ASSERT_EQUAL(result.written, 100);

  g_free(back);
  g_free(data);
  close(fds[0]);
  close(fds[1]);
}

typedef struct
{
  gint fd;
  gsize expected;
  gchar *received;
  gsize received_len;
} PipeReader;

static gpointer
_drain_pipe_later(gpointer user_data)
{
  PipeReader *reader = user_data;

  /* long enough for the interval timer to interrupt the blocked write() */
  g_usleep(300 * 1000);
  while (reader->received_len < reader->expected)
    {
      gssize rc = read(reader->fd, reader->received + reader->received_len, reader->expected - reader->received_len);
      if (rc <= 0)
        break;
      reader->received_len += rc;
    }
  return NULL;
}

static void
_on_alarm(int signo)
{
}

static void
test_eintr_is_retried(void)
{
  gint fds[2];
  gsize prefill = 4096, len = 4096;
  gchar *data = _pattern(len);
  gchar *fill = g_malloc0(prefill);
  BatchWriteResult result;
  PipeReader reader = { 0 };

  CU_ASSERT_EQUAL_FATAL(pipe2(fds, O_CLOEXEC), 0);
  CU_ASSERT_EQUAL_FATAL(fcntl(fds[1], F_SETPIPE_SZ, 4096), 4096);
  /* the pipe is full: our write() blocks until the reader drains it */
  CU_ASSERT_EQUAL_FATAL(write(fds[1], fill, prefill), (gssize) prefill);

  struct sigaction sa = { 0 }, old_sa;
  sa.sa_handler = _on_alarm;
  sa.sa_flags = 0;  /* no SA_RESTART: write() returns EINTR */
  sigemptyset(&sa.sa_mask);
  CU_ASSERT_EQUAL_FATAL(sigaction(SIGALRM, &sa, &old_sa), 0);

  /* the reader thread must not take the signal */
  sigset_t alarm_set, old_set;
  sigemptyset(&alarm_set);
  sigaddset(&alarm_set, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm_set, &old_set);
  reader.fd = fds[0];
  reader.expected = prefill + len;
  reader.received = g_malloc(reader.expected);
  GThread *thread = g_thread_new("drain", _drain_pipe_later, &reader);
  pthread_sigmask(SIG_SETMASK, &old_set, NULL);

  struct itimerval timer = { .it_interval = { 0, 50 * 1000 }, .it_value = { 0, 50 * 1000 } };
  CU_ASSERT_EQUAL(setitimer(ITIMER_REAL, &timer, NULL), 0);

  gboolean ok = batch_writer_write(fds[1], data, len, &result);

  struct itimerval off = { 0 };
  setitimer(ITIMER_REAL, &off, NULL);
  /* the reader stops at EOF if the write gave up early */
  close(fds[1]);
  g_thread_join(thread);
  sigaction(SIGALRM, &old_sa, NULL);

  CU_ASSERT_TRUE(ok);
  CU_ASSERT_EQUAL(result.written, len);
  CU_ASSERT_EQUAL(result.error, 0);
  /* at least one write() was interrupted and retried */
  CU_ASSERT_TRUE(result.syscalls >= 2);
  CU_ASSERT_EQUAL_FATAL(reader.received_len, prefill + len);
  CU_ASSERT_EQUAL(memcmp(reader.received + prefill, data, len), 0);

  g_free(reader.received);
  g_free(fill);
  g_free(data);
  close(fds[0]);
}

/* 3000 iovecs of 0..99 bytes (more than IOV_MAX and than one chunk), over the pattern */
static struct iovec *
_scatter(const gchar *data, gsize *total, guint *n_iov)
{
  struct iovec *iov = g_new(struct iovec, 3000);
  gsize pos = 0;

  for (guint i = 0; i < 3000; i++)
    {
      iov[i].iov_base = (gchar *) data + pos;
      iov[i].iov_len = (i * 37) % 100;
      pos += iov[i].iov_len;
    }
  *total = pos;
  *n_iov = 3000;
  return iov;
}

static void
test_writev_many_iovecs(void)
{
  gchar *path;
  gint fd = _open_file("writev.log", &path);
  gchar *data = _pattern(200000);
  gsize total;
  guint n_iov;
  struct iovec *iov = _scatter(data, &total, &n_iov);
  struct iovec *copy = g_memdup2(iov, n_iov * sizeof(struct iovec));
  BatchWriteResult result;

  CU_ASSERT_TRUE(batch_writer_writev(fd, iov, n_iov, &result));
  CU_ASSERT_EQUAL(result.written, total);
  CU_ASSERT_EQUAL(result.error, 0);
  /* in chunks, never one syscall per iovec */
  CU_ASSERT_TRUE(result.syscalls >= n_iov / 1024 && result.syscalls <= n_iov / 64 + 1);
  /* the caller's iovecs are left as they were */
  CU_ASSERT_EQUAL(memcmp(iov, copy, n_iov * sizeof(struct iovec)), 0);
  close(fd);

  gchar *contents;
  gsize contents_len;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &contents, &contents_len, NULL));
  CU_ASSERT_EQUAL_FATAL(contents_len, total);
  CU_ASSERT_EQUAL(memcmp(contents, data, total), 0);

  /* only empty iovecs: nothing to write, no syscall */
  struct iovec empty[3] = { { data, 0 }, { data, 0 }, { data, 0 } };
  CU_ASSERT_TRUE(batch_writer_writev(-1, empty, 3, &result));
  CU_ASSERT_EQUAL(result.syscalls, 0);

  g_free(contents);
  g_free(copy);
  g_free(iov);
  g_free(data);
  g_free(path);
}

static void
test_writev_stops_inside_an_iovec(void)
{
  gint fds[2];
  gchar *data = _pattern(3 * 4096);
  struct iovec iov[3] = { { data, 1000 }, { data + 1000, 5000 }, { data + 6000, 6288 } };
  BatchWriteResult result;

  /* a pipe of 4096 bytes: the first writev() ends inside the second iovec, the next one finds it full */
  CU_ASSERT_EQUAL_FATAL(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  CU_ASSERT_EQUAL_FATAL(fcntl(fds[1], F_SETPIPE_SZ, 4096), 4096);
  CU_ASSERT_FALSE(batch_writer_writev(fds[1], iov, 3, &result));
  CU_ASSERT_EQUAL(result.error, EAGAIN);
  CU_ASSERT_EQUAL(result.written, 4096);
  gchar back[4096];
  CU_ASSERT_EQUAL(read(fds[0], back, sizeof(back)), 4096);
  CU_ASSERT_EQUAL(memcmp(back, data, 4096), 0);
  close(fds[0]);
  close(fds[1]);
  g_free(data);
}

typedef struct
{
  gint fd;
  gsize received;
  gint64 delay_usec;
  GString *bytes;
} SlowReader;

static gpointer
_read_slowly(gpointer user_data)
{
  SlowReader *self = user_data;
  gchar buf[16384];
  gssize rc;

  while ((rc = read(self->fd, buf, sizeof(buf))) > 0)
    {
      g_string_append_len(self->bytes, buf, rc);
      g_usleep(self->delay_usec);
    }
  return NULL;
}

static gint
_socketpair_sender(gint *peer, gint sndbuf)
{
  gint sv[2];

  CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  *peer = sv[1];
  return sv[0];
}

static void
test_send_waits_for_room_until_done(void)
{
  gint peer, fd = _socketpair_sender(&peer, 4096);
  gsize total;
  guint n_iov;
  gchar *data = _pattern(200000);
  struct iovec *iov = _scatter(data, &total, &n_iov);
  SlowReader reader = { .fd = peer, .delay_usec = 1000, .bytes = g_string_new(NULL) };
  GThread *thread = g_thread_new("slow-reader", _read_slowly, &reader);
  BatchWriteResult result;

  /* the reader drains slowly: the non-blocking sender waits for room each time, within the deadline */
  CU_ASSERT_TRUE(batch_writer_send(fd, iov, n_iov, g_get_monotonic_time() + 30 * G_USEC_PER_SEC, &result));
  CU_ASSERT_EQUAL(result.written, total);
  CU_ASSERT_EQUAL(result.error, 0);
  close(fd);
  g_thread_join(thread);
  CU_ASSERT_EQUAL_FATAL(reader.bytes->len, total);
  CU_ASSERT_EQUAL(memcmp(reader.bytes->str, data, total), 0);

  close(peer);
  g_string_free(reader.bytes, TRUE);
  g_free(iov);
  g_free(data);
}

static void
test_send_deadline(void)
{
  gint peer, fd = _socketpair_sender(&peer, 4096);
  gsize len = 1024 * 1024;
  gchar *data = _pattern(len);
  struct iovec iov = { data, len };
  BatchWriteResult result;
  gint64 start = g_get_monotonic_time();

  /* nobody reads: the sender gives up at the deadline, reporting what went into the socket */
  CU_ASSERT_FALSE(batch_writer_send(fd, &iov, 1, start + 200 * 1000, &result));
  gint64 took = g_get_monotonic_time() - start;
  CU_ASSERT_EQUAL(result.error, ETIMEDOUT);
  CU_ASSERT_TRUE(result.written > 0 && result.written < len);
  CU_ASSERT_TRUE(took >= 200 * 1000 && took < 5 * G_USEC_PER_SEC);
  gint queued = -1;
  CU_ASSERT_EQUAL(ioctl(peer, FIONREAD, &queued), 0);
  CU_ASSERT_EQUAL(queued, (gint) result.written);

  /* no deadline: EAGAIN at once */
  CU_ASSERT_FALSE(batch_writer_send(fd, &iov, 1, 0, &result));
  CU_ASSERT_EQUAL(result.error, EAGAIN);
  CU_ASSERT_EQUAL(result.written, 0);
  close(fd);
  close(peer);
  g_free(data);
}

static void
test_send_to_closed_peer_is_epipe(void)
{
  gint peer, fd = _socketpair_sender(&peer, 4096);
  struct iovec iov = { "x\n", 2 };
  BatchWriteResult result;

  /* MSG_NOSIGNAL: EPIPE, not a SIGPIPE that kills the process */
  close(peer);
  CU_ASSERT_FALSE(batch_writer_send(fd, &iov, 1, 0, &result));
  CU_ASSERT_EQUAL(result.error, EPIPE);
  CU_ASSERT_EQUAL(result.written, 0);
  close(fd);
}

static GMutex watchdog_lock;
static GCond watchdog_cond;
static gboolean tests_done;

static gpointer
_watchdog(gpointer user_data)
{
  gint64 deadline = g_get_monotonic_time() + GPOINTER_TO_UINT(user_data) * G_TIME_SPAN_SECOND;
  sigset_t all;

  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  g_mutex_lock(&watchdog_lock);
  while (!tests_done)
    {
      if (!g_cond_wait_until(&watchdog_cond, &watchdog_lock, deadline))
        {
          fprintf(stderr, "\nwatchdog: the tests hung (a write() loop that never ends?)\n");
          abort();
        }
    }
  g_mutex_unlock(&watchdog_lock);
  return NULL;
}

static gint
_suite_init(void)
{
  tmpdir = testutil_make_tmpdir();
  return 0;
}

static gint
_suite_cleanup(void)
{
  gboolean removed = testutil_remove_tree(tmpdir);

  g_free(tmpdir);
  return removed ? 0 : 1;
}

static CU_TestInfo batch_writer_tests[] =
{
  { "full write", test_full_write },
  { "empty write makes no syscall", test_empty_write_makes_no_syscall },
  { "ENOSPC on /dev/full", test_enospc_on_dev_full },
  { "EBADF on a closed fd", test_ebadf_on_closed_fd },
  { "sync on a pipe fails", test_sync_on_pipe_fails },
  { "short write (RLIMIT_FSIZE) reports exact bytes", test_short_write_reports_exactly_what_reached_the_file },
  { "EAGAIN on a full non-blocking pipe", test_eagain_on_full_nonblocking_pipe },
  { "EINTR is retried", test_eintr_is_retried },
  { "writev: 3000 iovecs, in chunks, the caller's iovecs untouched", test_writev_many_iovecs },
  { "writev: stops inside an iovec, reporting exact bytes", test_writev_stops_inside_an_iovec },
  { "send: waits for room until everything is sent", test_send_waits_for_room_until_done },
  { "send: gives up at the deadline (ETIMEDOUT), no deadline: EAGAIN", test_send_deadline },
  { "send: a closed peer is EPIPE, no SIGPIPE", test_send_to_closed_peer_is_epipe },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "batch-writer", _suite_init, _suite_cleanup, NULL, NULL, batch_writer_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  /* a writer that retries EAGAIN or loses EINTR would hang, not fail */
  GThread *watchdog = g_thread_new("watchdog", _watchdog, GUINT_TO_POINTER(60));
  gint rc = testutil_run_suites(suites);

  g_mutex_lock(&watchdog_lock);
  tests_done = TRUE;
  g_cond_signal(&watchdog_cond);
  g_mutex_unlock(&watchdog_lock);
  g_thread_join(watchdog);
  return rc;
}
