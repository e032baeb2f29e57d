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
#include "test-se-golden.h"
#include "se-sink-ctf.h"
#include "se-ctf-packet.h"
#include "stats/stats-counter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeEvent event;
  LogMessage *msg;
  gchar *dir;
  StatsCounterItem dropped;
  StatsCounterItem *dropped_ptr;
  gsize drops_reported;
} Fixture;

static void
_fixture_init(Fixture *f)
{
  memset(f, 0, sizeof(*f));
  golden_options(&f->options);
  se_event_builder_init(&f->builder, &f->options);
  f->msg = golden_message();
  se_event_build(&f->builder, f->msg, 0, &f->event);
  f->dir = testutil_make_tmpdir();
  f->dropped_ptr = &f->dropped;
  f->drops_reported = G_MAXSIZE;
}

static void
_fixture_destroy(Fixture *f)
{
  g_assert(testutil_remove_tree(f->dir));
  g_free(f->dir);
  se_event_builder_destroy(&f->builder);
  se_selection_free(f->options.selection);
  log_msg_unref(f->msg);
}

static SeSink *
_sink(Fixture *f, gsize packet_size, guint64 max_stream_size)
{
  SeSinkCtfOptions options = { 0 };

  options.path = log_template_new(se_test_cfg, NULL);
  log_template_compile_literal_string(options.path, f->dir);
  options.packet_size = packet_size;
  options.max_stream_size = max_stream_size;
  options.worker_index = 0;
  options.dropped = &f->dropped_ptr;
  options.drops_reported = &f->drops_reported;
  append_opener_options_defaults(&options.opener);
  append_opener_options_init(&options.opener, se_test_cfg);
  SeSink *sink = se_test_attach(se_sink_ctf_new(&options));

  log_template_unref(options.path);
  return sink;
}

typedef struct
{
  guint packets;
  guint64 last_discarded;
  guint64 last_seq;
  gsize size;
} StreamInfo;

/* walks a stream file packet by packet; FALSE if it is not whole packets */
static gboolean
_stream_info(Fixture *f, const gchar *name, StreamInfo *info)
{
  gchar *path = g_build_filename(f->dir, name, NULL);
  gchar *data = NULL;
  gsize len = 0, pos = 0;
  gboolean ok;

  memset(info, 0, sizeof(*info));
  ok = g_file_get_contents(path, &data, &len, NULL);
  while (ok && pos < len)
    {
      guint64 bytes, content_bits, v;

      ok = se_ctf_packet_parse_header((guint8 *) data + pos, len - pos, &bytes, &content_bits) && pos + bytes <= len;
      if (!ok)
        break;
      memcpy(&v, data + pos + 40, 8);
      info->last_seq = GUINT64_FROM_LE(v);
      memcpy(&v, data + pos + 48, 8);
      info->last_discarded = GUINT64_FROM_LE(v);
      info->packets++;
      pos += bytes;
    }
  info->size = len;
  g_free(data);
  g_free(path);
  return ok;
}

static gboolean
_exists(Fixture *f, const gchar *name)
{
  gchar *path = g_build_filename(f->dir, name, NULL);
  gboolean r = access(path, F_OK) == 0;

  g_free(path);
  return r;
}

static void
test_ack_when_packet_written(void)
{
  Fixture f;
  SeSink *sink;
  guint delivered;
  StreamInfo info;

  _fixture_init(&f);
  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_TRUE(_exists(&f, "metadata"));
  for (gint i = 0; i < 3; i++)
    {
      CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(delivered, 0);
    }
  CU_ASSERT_EQUAL(se_sink_pending(sink), 3);
  /* nothing on disk until the packet is written */
  CU_ASSERT_FALSE(_exists(&f, "stream_0_0"));

  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 3);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.packets, 1);

  /* a full packet is written when the next event does not fit: only its events are delivered */
  guint total = 0, emitted = 0;
  while (total == 0)
    {
      CU_ASSERT_EQUAL_FATAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
      emitted++;
      total += delivered;
    }
  CU_ASSERT_EQUAL(total, emitted - 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 1);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.packets, 2);
  CU_ASSERT_EQUAL(info.last_seq, 1);
  CU_ASSERT_TRUE(info.size <= 4096 * 2);

  /* close forgets the unacknowledged event: the worker resends it */
  se_sink_close(sink);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  se_sink_free(sink);
  _fixture_destroy(&f);
}

static void
test_new_stream_after_max_stream_size(void)
{
  Fixture f;
  SeSink *sink;
  guint delivered;
  StreamInfo info;

  _fixture_init(&f);
  /* the golden event makes a packet of 224 bytes: two fit in 500 */
  sink = _sink(&f, 4096, 500);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  for (gint i = 0; i < 5; i++)
    {
      CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(delivered, 1);
    }
  for (gint i = 0; i < 3; i++)
    {
      gchar name[32];
      g_snprintf(name, sizeof(name), "stream_0_%d", i);
      CU_ASSERT_TRUE(_stream_info(&f, name, &info));
      CU_ASSERT_EQUAL(info.packets, i < 2 ? 2 : 1);
      CU_ASSERT_TRUE(info.size <= 500);
      /* sequence numbers are per stream */
      CU_ASSERT_EQUAL(info.last_seq, i < 2 ? 1 : 0);
    }
  CU_ASSERT_FALSE(_exists(&f, "stream_0_3"));
  se_sink_free(sink);
  _fixture_destroy(&f);
}

static void
test_too_large_event_dropped_and_counted(void)
{
  Fixture f;
  SeSink *sink;
  guint delivered;
  StreamInfo info;
  LogMessage *big = golden_message();
  gchar *text = g_malloc(8192);
  SeEvent big_event;
  SeEventBuilder big_builder;

  memset(text, 'x', 8192);
  log_msg_set_value(big, LM_V_MESSAGE, text, 8192);
  _fixture_init(&f);
  se_event_builder_init(&big_builder, &f.options);
  se_event_build(&big_builder, big, 0, &big_event);

  /* drops from before the sink started are not this trace's */
  stats_counter_add(&f.dropped, 5);
  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  /* the held packet is written first, then this event alone is dropped: nothing else fails */
  guint64 dropped = se_test_tally.dropped;
  CU_ASSERT_EQUAL(se_test_emit(sink, &big_event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped + 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  /* a too large event with nothing held: dropped at once too */
  CU_ASSERT_EQUAL(se_test_emit(sink, &big_event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped + 2);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.last_discarded, 0);

  /* the worker counts the drops in the destination's dropped counter: the next packet reports them */
  stats_counter_add(&f.dropped, 2);
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.packets, 2);
  CU_ASSERT_EQUAL(info.last_discarded, 2);

  /* a running count per stream */
  stats_counter_add(&f.dropped, 2);
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.packets, 4);
  CU_ASSERT_EQUAL(info.last_discarded, 4);

  se_sink_free(sink);
  se_event_builder_destroy(&big_builder);
  log_msg_unref(big);
  g_free(text);
  _fixture_destroy(&f);
}

static void
test_partial_packet_trimmed_on_restart(void)
{
  Fixture f;
  SeSink *sink;
  guint delivered;
  StreamInfo info;
  gchar *path;
  gint fd;

  _fixture_init(&f);
  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  for (gint i = 0; i < 2; i++)
    {
      CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
    }
  se_sink_free(sink);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  gsize whole = info.size;

  /* a write cut short by kill -9: the start of a third packet */
  path = g_build_filename(f.dir, "stream_0_0", NULL);
  fd = open(path, O_WRONLY | O_APPEND);
  CU_ASSERT_EQUAL(write(fd, "\xc1\x1f\xfc\xc1\0\0\0\0\x01\x02", 10), 10);
  close(fd);
  CU_ASSERT_FALSE(_stream_info(&f, "stream_0_0", &info));

  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.size, whole);
  CU_ASSERT_EQUAL(info.packets, 2);

  /* and the new run writes a new stream file */
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_1", &info));
  CU_ASSERT_EQUAL(info.packets, 1);
  se_sink_free(sink);

  /* only a partial packet: the file goes away */
  fd = open(path, O_WRONLY | O_TRUNC);
  CU_ASSERT_EQUAL(write(fd, "\xc1\x1f", 2), 2);
  close(fd);
  g_free(path);
  path = g_build_filename(f.dir, "stream_0_1", NULL);
  g_assert(truncate(path, 3) == 0);
  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_FALSE(_exists(&f, "stream_0_1"));
  /* only the newest file of the worker is checked: an earlier one was complete when the next was started */
  CU_ASSERT_TRUE(_exists(&f, "stream_0_0"));
  se_sink_free(sink);

  g_free(path);
  _fixture_destroy(&f);
}

static void
test_stream_name_lookup_fails(void)
{
  Fixture f;
  SeSink *sink;
  guint delivered;
  StreamInfo info;
  gchar *aside;

  _fixture_init(&f);
  sink = _sink(&f, 4096, 1 << 20);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  /* the trace directory becomes a file: looking for a free stream name fails with ENOTDIR, which
   * must end the search (a hang here is ended by the watchdog) */
  aside = g_strconcat(f.dir, ".aside", NULL);
  g_assert(rename(f.dir, aside) == 0);
  g_assert(g_file_set_contents(f.dir, "", 0, NULL));
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  /* the directory is back: the event handed over again is written */
  g_assert(unlink(f.dir) == 0);
  g_assert(rename(aside, f.dir) == 0);
  CU_ASSERT_EQUAL(se_test_emit(sink, &f.event, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_TRUE(_stream_info(&f, "stream_0_0", &info));
  CU_ASSERT_EQUAL(info.packets, 1);

  se_sink_free(sink);
  g_free(aside);
  _fixture_destroy(&f);
}

static void
test_trim_stream(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar *path = g_build_filename(dir, "s", NULL);
  gint fd = open(path, O_RDWR | O_CREAT, 0600);
  guint8 packet[64] = { 0 };
  guint64 v;

  /* one empty packet of 64 bytes, then 63 bytes of another */
  memcpy(packet, "\xc1\x1f\xfc\xc1", 4);
  v = GUINT64_TO_LE(SE_CTF_PACKET_HEADER_SIZE * 8);
  memcpy(packet + 24, &v, 8);
  v = GUINT64_TO_LE(64 * 8);
  memcpy(packet + 32, &v, 8);
  CU_ASSERT_EQUAL(write(fd, packet, 64), 64);
  CU_ASSERT_EQUAL(write(fd, packet, 63), 63);
  CU_ASSERT_EQUAL(se_sink_ctf_trim_stream(fd), 64);
  CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_END), 64);
  /* whole packets only: unchanged */
  CU_ASSERT_EQUAL(se_sink_ctf_trim_stream(fd), 64);
  close(fd);
  unlink(path);
  rmdir(dir);
  g_free(path);
  g_free(dir);
}

static CU_TestInfo sink_tests[] =
{
  { "events are delivered when their packet is written", test_ack_when_packet_written },
  { "a new stream file after max-stream-size()", test_new_stream_after_max_stream_size },
  { "an event too large for a packet is dropped and counted", test_too_large_event_dropped_and_counted },
  { "a partial packet is trimmed on restart", test_partial_packet_trimmed_on_restart },
  { "a failing stream name lookup ends the search", test_stream_name_lookup_fails },
  { "trimming a stream file", test_trim_stream },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-ctf-sink", se_test_startup, se_test_shutdown, NULL, NULL, sink_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  /* a name search that never ends would hang, not fail */
  TestutilWatchdog *watchdog = testutil_watchdog_start(60);
  gint rc = testutil_run_suites(suites);

  testutil_watchdog_stop(watchdog);
  return rc;
}
