# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""fast-file() options that change behaviour rather than bytes: workers(),
fsync(), time-reap(), SIGUSR1 reopen, perm(), buffer-size(), stats names."""

import os
import re
import signal
import socket
import stat
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402
from test_fastfile_faults import read_seqs, seq_lines  # noqa: E402


def config(w, dest, source_opts=""):
    return """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" %(so)s); };
destination d_fast { %(dest)s };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w, "dest": dest, "so": source_opts}


def written(sng):
    return sng.stat("dst.fast-file", "d_fast", "written") or 0


def thread_cpu_and_written_bytes(pid):
    """per thread of pid: (CPU ticks, bytes passed to write-family calls)"""
    threads = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        # a thread of syslog-ng's pool can end between the listing and the
        # reads (seen once in CI on 4.8): it is not the reader, so it is skipped
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%d/task/%s/io" % (pid, tid)) as f:
                io = dict(line.split(": ") for line in f.read().splitlines())
        except (FileNotFoundError, ProcessLookupError):
            continue
        # utime and stime are the 14th and 15th fields of stat; the 3rd here
        threads[int(tid)] = (int(fields[11]) + int(fields[12]), int(io["wchar"]))
    return threads


class TestOptions(fdharness.TestCase):
    THREAD_TEST_LINES = 50000

    def write_and_measure_threads(self, dest, out, pad=100, fetch=100, debug=False):
        """THREAD_TEST_LINES lines (of pad + 13 bytes of ${MSG}) through dest,
        fetched `fetch` at a time, over one connection; (per thread, what it did
        while the lines went through (CPU ticks, bytes written), the thread
        that used the most CPU then (the source's reader: it parses every
        message), the size of out).  Only what happened after start-up
        counts: at start-up the main thread reads the configuration and
        writes the persist file (16 KB of it) and the pid file; on a fresh
        CI machine that took more CPU than the reader spent on the lines, so
        the main thread was taken for the reader."""
        w = self.workdir()
        n = self.THREAD_TEST_LINES
        # filters nothing uses make the main thread's start-up cost more CPU
        # than the reader spends on the lines, as it did on a fresh CI machine
        unused = "".join('filter f_unused%d { message("needle%d") and program("p%d"); };\n' % (i, i, i)
                         for i in range(6000))
        # a big fetch: with a window that lets the reader take that many, and the lines sent at once (as a
        # busy sender's would come) so that each read finds many
        source_opts = "log-fetch-limit(%d)" % fetch
        if fetch > 100:
            source_opts += " max-connections(1) log-iw-size(%d)" % (20 * fetch)
        cfg = unused + config(w, dest % w, source_opts)
        with fdharness.SyslogNg(cfg, workdir=w, extra_args=("-d",) if debug else ()) as sng:
            logged_before = os.path.getsize(sng.output_path)
            before = thread_cpu_and_written_bytes(sng.pid)
            lines = seq_lines(0, n, pad=pad)
            if fetch > 100:
                lines = [b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)]
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), written(sng))
            after = thread_cpu_and_written_bytes(sng.pid)
            # with -d (debug) a thread's wchar also counts the lines it logged: on 3.38 the reader logs
            # each message it reads ("Incoming log entry"), the other threads a few lines; all of them
            # together no more than this
            self.logged_bytes = os.path.getsize(sng.output_path) - logged_before
            self.daemon_output = sng.output()
        threads = {tid: tuple(now - then for now, then in zip(counts, before.get(tid, (0, 0))))
                   for tid, counts in after.items()}
        reader = max(threads, key=lambda tid: threads[tid][0])
        return threads, reader, os.path.join(w, out)

    def file_bytes(self, threads, reader):
        """per thread, the bytes it wrote but what it logged: the reader's less
        everything logged (a lower bound), the others' as they are (they log a
        few lines)"""
        return {tid: written - (self.logged_bytes if tid == reader else 0) for tid, (_, written) in threads.items()}

    def assert_written_both_ways(self, threads, reader, out):
        """a lone connection's trial (fastfile-trial.h) measures both ways at
        the start, 16 jobs each: handing the messages over (the worker's
        thread writes them) and formatting them on the delivering thread (it
        writes them itself); so each of the two wrote more than 2% of out's
        bytes (of 100-message jobs of 50,000 lines: 3.2% a window), whichever
        way it chose after (on CI's machine it changed its mind several times
        in one test where the two cost about the same); out's size"""
        size = os.path.getsize(out)
        file_bytes = self.file_bytes(threads, reader)
        others = sum(written for tid, written in file_bytes.items() if tid != reader)
        detail = ("the reader thread %d wrote %d bytes, %d of all threads' logged, the others %d, the file has %d; "
                  "per thread (CPU ticks, bytes written): %s"
                  % (reader, threads[reader][1], self.logged_bytes, others, size, threads))
        self.assertGreater(file_bytes[reader], 0.02 * size, detail)
        self.assertGreater(others, 0.02 * size, detail)
        return size

    @fdharness.skip_unless_root
    def test_the_delivering_thread_writes_its_own_batches(self):
        """While the worker's thread is idle, the thread that formats the lines
        (of 113 bytes here) writes them itself, as file() does on its thread:
        no wake-up and no hand-over of the lines between CPUs (a job of 100
        such messages fills no chunk to hand over, whichever way the trial
        chose).  The source's
        reader is the thread that used the most CPU (it parses every message);
        at least 90% of the file's bytes went through its write() calls, not
        the worker's."""
        threads, reader, out = self.write_and_measure_threads('fast-file("%s/out.log" template("${MSG}\\n"));',
                                                              "out.log")
        size = os.path.getsize(out)
        self.assertGreaterEqual(threads[reader][1], 0.9 * size,
                                "the reader thread %d wrote %d of the file's %d bytes; per thread (CPU ticks, "
                                "bytes written): %s" % (reader, threads[reader][1], size, threads))
        seqs, torn = read_seqs(out)
        self.assertEqual((seqs, torn), (list(range(self.THREAD_TEST_LINES)), []))

    @fdharness.skip_unless_root
    def test_one_connection_in_big_jobs_goes_the_way_that_costs_less(self):
        """A single connection read 1000 messages at a time (log-fetch-limit(1000),
        and a window that lets it: log-iw-size(20000)): its delivering thread
        hands its first jobs' messages over unformatted (the worker's thread
        formats and writes them on another CPU), formats and writes the next
        jobs' itself, a batch per write() of its own, and goes on the way that
        cost less CPU per message, its own and the worker thread's together
        (fastfile-trial.h).  So both threads wrote lines, the debug log names
        the two measures with the worker thread's part of each (more than
        nothing while it formatted what was handed over), the delivering thread
        wrote batches of its own, and the lines are all there, in order, once
        each."""
        threads, reader, out = self.write_and_measure_threads('fast-file("%s/out.log" template("${MSG}\\n"));',
                                                              "out.log", fetch=1000, debug=True)
        self.assert_written_both_ways(threads, reader, out)
        weighed = re.findall(r"weighed handing a lone connection's messages over against formatting them on its "
                             r"thread.*?chosen='([^']*)'.*?handing_over_ns_per_msg='(\d+)', own_ns_per_msg='(\d+)'",
                             self.daemon_output)
        self.assertTrue(weighed, self.daemon_output[-3000:])
        self.assertTrue(any(int(handing) > 0 and int(own) > 0 for _, handing, own in weighed), weighed)
        writer_parts = re.findall(r"of_which_writer_thread_handing_over='(\d+)', of_which_writer_thread_own='(\d+)'",
                                  self.daemon_output)
        self.assertTrue(any(int(handing) > 0 for handing, _ in writer_parts), writer_parts)
        self.assertTrue("delivering threads write batches of their own" in self.daemon_output,
                        "no batch of the delivering thread's own; weighed: %s" % weighed)
        seqs, torn = read_seqs(out)
        self.assertEqual((seqs, torn), (list(range(self.THREAD_TEST_LINES)), []))

    @fdharness.skip_unless_root
    def test_long_lines_of_one_connection_are_written_both_ways_while_measured(self):
        """Lines of 1000 bytes from a single delivering thread, 100 a job (a
        job fills a chunk): it hands its first jobs' messages over, then
        formats and writes the next jobs' itself, and goes on the way that cost
        less; each thread wrote lines, and every line is there once, in order."""
        threads, reader, out = self.write_and_measure_threads('fast-file("%s/out.log" template("${MSG}\\n"));',
                                                              "out.log", pad=1000)
        self.assert_written_both_ways(threads, reader, out)
        seqs, torn = read_seqs(out)
        self.assertEqual((seqs, torn), (list(range(self.THREAD_TEST_LINES)), []))

    def test_long_lines_of_one_connection_into_a_templated_name_are_written_both_ways_while_measured(self):
        """The same with a templated file name: a single connection's delivering
        thread, alone for good, measures both ways as with a literal name, and
        formatting on it, it writes batches of its own (the debug log says so)."""
        threads, reader, out = self.write_and_measure_threads(
            'fast-file("%s/out-${FACILITY}.log" template("${MSG}\\n"));', "out-user.log", pad=1000, debug=True)
        self.assert_written_both_ways(threads, reader, out)
        self.assertIn("delivering threads write batches of their own", self.daemon_output)
        seqs, torn = read_seqs(out)
        self.assertEqual((seqs, torn), (list(range(self.THREAD_TEST_LINES)), []))

    @fdharness.skip_unless_root
    def test_compression_is_left_to_the_worker_thread(self):
        """compression() costs CPU per byte: the worker's thread compresses and
        writes beside the source's reader, which passes it nearly nothing."""
        threads, reader, out = self.write_and_measure_threads(
            'fast-file("%s/out.log.zst" template("${MSG}\\n") compression(zstd));', "out.log.zst")
        size = os.path.getsize(out)
        self.assertLess(threads[reader][1], 0.1 * size,
                        "the reader thread %d wrote %d of the file's %d bytes; per thread (CPU ticks, bytes "
                        "written): %s" % (reader, threads[reader][1], size, threads))
        self.assertGreaterEqual(max(written for _, written in threads.values()), size)

    def test_reopen_and_reap_while_the_reader_writes(self):
        """syslog-ng-ctl reopen after each rotation, and time-reap(1) closing
        the file of a program gone quiet, while the source's thread writes its
        batches: every line once, in its file, none torn."""
        w = self.workdir()
        n = 60000
        lines = [("<13>Nov 30 05:00:00 host prog%d[1]: seq=%08d %s" % (0 if i < 2000 else 1 + i % 2, i, "x" * 150))
                 .encode() for i in range(n)]
        cfg = config(w, 'fast-file("%s/out-${PROGRAM}.log" template("${MSG}\\n") time-reap(1));' % w,
                     "flags(expect-hostname) log-fetch-limit(100)")
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            # prog0 only at first: its file goes quiet and is reaped while the others are written
            fdharness.send_lines(os.path.join(w, "in.sock"), lines[:2000])
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 2000, 30), written(sng))
            self.assertEqual(fdharness.open_fds_under(sng.pid, os.path.join(w, "out-prog0.log")), 1)
            # 20 bursts over about two seconds (time-reap(1) looks every second); each rotation and
            # reopen comes while the tail of a burst is still being written
            rotations = 0
            for start in range(2000, n, 2900):
                fdharness.send_lines(os.path.join(w, "in.sock"), lines[start:start + 2900])
                path = os.path.join(w, "out-prog1.log")
                if os.path.exists(path):
                    os.rename(path, os.path.join(w, "moved-%d.log" % rotations))
                    rotations += 1
                sng.reopen()
                time.sleep(0.1)
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), written(sng))
            self.assertTrue(fdharness.wait_until(
                lambda: fdharness.open_fds_under(sng.pid, os.path.join(w, "out-prog0.log")) == 0, 10),
                "time-reap(1) did not close the quiet program's file")
        files = [os.path.join(w, f) for f in sorted(os.listdir(w)) if f.endswith(".log")]
        seqs, torn = read_seqs(*files)
        self.assertEqual(torn, [])
        self.assertEqual(sorted(seqs), list(range(n)))
        self.assertGreaterEqual(rotations, 10)

    def send_concurrently(self, sock, connections, n, pad=100):
        """n lines over `connections` concurrent connections: connection c sends
        the sequence numbers c, c + connections, ... in order, as program
        prog<c>, each in one stream of writes"""
        def send(c):
            lines = b"".join(b"<13>Nov 30 05:00:00 prog%d[1]: seq=%08d %s\n" % (c, i, b"x" * pad)
                             for i in range(c, n, connections))
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(sock)
                s.sendall(lines)
                s.shutdown(socket.SHUT_WR)
        senders = [threading.Thread(target=send, args=(c,)) for c in range(connections)]
        for t in senders:
            t.start()
        for t in senders:
            t.join()

    CONCURRENT_LINES = 80000

    def deliver_concurrently(self, dest, n=None, window=40000):
        """n (CONCURRENT_LINES) lines over four concurrent connections
        (send_concurrently()) through dest (a format string for the workdir),
        fetched 100 at a time, log-iw-size(window) shared by them; waits for all
        of them to be counted as written and none left in the queue's count,
        all processed, none dropped; returns the workdir"""
        w = self.workdir()
        n = n or self.CONCURRENT_LINES
        cfg = config(w, dest % w, "max-connections(4) log-iw-size(%d) log-fetch-limit(100)" % window)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            self.send_concurrently(os.path.join(w, "in.sock"), 4, n)
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), written(sng))
            self.assertEqual(sng.stat("dst.fast-file", "d_fast", "dropped") or 0, 0)
            self.assertTrue(fdharness.wait_until(lambda: sng.stat("dst.fast-file", "d_fast", "queued") == 0, 10),
                            sng.stat("dst.fast-file", "d_fast", "queued"))
            # counted once per batch of those formatted apart: every one is counted
            self.assertEqual(sng.stat("dst.fast-file", "d_fast", "processed"), n)
        return w

    def test_concurrent_connections_keep_their_order(self):
        """Four connections delivered by syslog-ng's threads side by side into
        one file: a thread that finds the destination busy formats its messages
        meanwhile and stages them at its next turn or at the end of its job;
        every line is written once, whole, each connection's in its order, and
        counted as written."""
        n = self.CONCURRENT_LINES
        w = self.deliver_concurrently('fast-file("%s/out.log" template("${MSG}\\n"));')
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual(torn, [])
        self.assertEqual(sorted(seqs), list(range(n)))
        for c in range(4):
            mine = [seq for seq in seqs if seq % 4 == c]
            self.assertEqual(mine, sorted(mine), "connection %d's lines out of order" % c)

    def test_concurrent_connections_with_small_windows(self):
        """A message delivered by one of syslog-ng's threads and written by
        another is acked and freed by the thread that delivered it, at its next
        message or at the end of its job: with a window of 25 messages per
        connection every connection stalls unless those acks come back while it
        sends, so all of them arriving proves they do."""
        n = 20000
        w = self.deliver_concurrently('fast-file("%s/out.log" template("${MSG}\\n"));', n, window=100)
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual(torn, [])
        self.assertEqual(sorted(seqs), list(range(n)))

    def test_concurrent_connections_into_templated_files(self):
        """The same into a file per program (${PROGRAM}, one per connection):
        each file holds its connection's lines, once and in order."""
        n = self.CONCURRENT_LINES
        w = self.deliver_concurrently('fast-file("%s/${PROGRAM}.log" template("${MSG}\\n"));')
        everything = []
        for c in range(4):
            seqs, torn = read_seqs(os.path.join(w, "prog%d.log" % c))
            self.assertEqual(torn, [])
            self.assertEqual(seqs, list(range(c, n, 4)), "prog%d.log" % c)
            everything += seqs
        self.assertEqual(sorted(everything), list(range(n)))

    def test_workers_two_never_interleave_inside_a_line(self):
        w = self.workdir()
        n = 40000
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n") workers(2) batch-lines(100));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n, pad=200))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), written(sng))
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual(torn, [])
        self.assertEqual(sorted(seqs), list(range(n)))

    def test_throttle_holds_a_queued_burst_to_its_rate(self):
        """throttle(200): a burst of 600 queued messages takes about three seconds,
        although the worker takes each batch from the queue itself"""
        w = self.workdir()
        n = 600
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n") throttle(200));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            start = time.monotonic()
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), written(sng))
            elapsed = time.monotonic() - start
        self.assertGreater(elapsed, 2.0, "throttle(200) let %d messages through in %.2fs" % (n, elapsed))
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual((sorted(seqs), torn), (list(range(n)), []))

    def test_fsync_yes_writes_everything(self):
        w = self.workdir()
        n = 2000
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n") fsync(yes) batch-lines(100));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60))
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual((sorted(seqs), torn), (list(range(n)), []))

    def test_time_reap_closes_idle_files(self):
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/out-${PROGRAM}.log" template("${MSG}\\n") time-reap(1));' % w,
                     "flags(expect-hostname)")
        outdir = w + "/out-"

        def open_outputs(pid):
            return fdharness.open_fds_under(pid, outdir)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 10))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 10, 20))
            self.assertEqual(open_outputs(sng.pid), 1)
            self.assertTrue(fdharness.wait_until(lambda: open_outputs(sng.pid) == 0, 10),
                            "the idle file was not closed after time-reap(1)")
            # and it is opened again on the next message
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(10, 5))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 15, 20))
        seqs, torn = read_seqs(os.path.join(w, "out-prog.log"))
        self.assertEqual((sorted(seqs), torn), (list(range(15)), []))

    def test_sigusr1_reopens(self):
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n"));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 100))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 100, 20))
            os.rename(os.path.join(w, "out.log"), os.path.join(w, "out.log.1"))
            os.kill(sng.pid, signal.SIGUSR1)
            time.sleep(0.5)
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(100, 100))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 200, 20))
        self.assertEqual(sorted(read_seqs(os.path.join(w, "out.log.1"))[0]), list(range(100)))
        self.assertEqual(sorted(read_seqs(os.path.join(w, "out.log"))[0]), list(range(100, 200)))

    def test_reopen_releases_a_rotated_file_while_idle(self):
        """logrotate: after rename + reopen the old file must be let go even if no
        message arrives (its space is freed only when the last fd closes)"""
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n"));' % w)
        rotated = os.path.join(w, "out.log.1")
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 10))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 10, 20))
            os.rename(os.path.join(w, "out.log"), rotated)
            self.assertEqual(fdharness.open_fds_under(sng.pid, rotated), 1)
            sng.reopen()
            self.assertTrue(fdharness.wait_until(lambda: fdharness.open_fds_under(sng.pid, rotated) == 0, 5),
                            "the rotated file is still open after syslog-ng-ctl reopen")
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(10, 5))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 15, 20))
        self.assertEqual(sorted(read_seqs(rotated)[0]), list(range(10)))
        self.assertEqual(sorted(read_seqs(os.path.join(w, "out.log"))[0]), list(range(10, 15)))

    def test_perm_and_create_dirs(self):
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/a/b/out.log" create-dirs(yes) perm(0600) dir-perm(0711));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 3))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 3, 20))
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(w, "a/b/out.log")).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(w, "a/b")).st_mode), 0o711)

    def test_create_dirs_no_is_an_error_then_retried(self):
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/missing/out.log" create-dirs(no) time-reopen(1) retries(100));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 3))
            self.assertTrue(fdharness.wait_until(lambda: "error opening file" in sng.output(), 20))
            self.assertIn("No such file or directory", sng.output())
            os.mkdir(os.path.join(w, "missing"))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 3, 20))

    def test_stats_counters_named_after_the_template(self):
        w = self.workdir()
        tmpl = "%s/out-${PROGRAM}.log" % w
        cfg = config(w, 'fast-file("%s");' % tmpl)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 50))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == 50, 20))
            stats = sng.stats()
            for kind in ("processed", "written", "dropped", "queued", "memory_usage"):
                key = "dst.fast-file;d_fast#0;%s;a;%s" % (tmpl, kind)
                self.assertIn(key, stats, sorted(k for k in stats if "fast" in k))
            self.assertEqual(stats["dst.fast-file;d_fast#0;%s;a;processed" % tmpl], 50)
            self.assertEqual(stats["dst.fast-file;d_fast#0;%s;a;dropped" % tmpl], 0)
            self.assertEqual(stats["dst.fast-file;d_fast#0;%s;a;queued" % tmpl], 0)

    def test_small_flow_control_window_does_not_wait_for_full_batches(self):
        """The default source window (log-iw-size(1000) / max-connections(10) = 100)
        is smaller than batch-lines(1000): a batch must be written when the queue
        runs empty, not when it is full or a timeout expires (that took 20 s here)"""
        w = self.workdir()
        n = 20000
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n"));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            start = time.monotonic()
            # with flow control the sender itself is held back while batches wait
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 10))
            self.assertLess(time.monotonic() - start, 10, "batches waited for batch-timeout()")

    def test_buffer_size_cap_and_batch_timeout(self):
        w = self.workdir()
        cfg = config(w, 'fast-file("%s/out.log" template("${MSG}\\n") buffer-size(4096) batch-lines(100000) '
                        'batch-timeout(60000));' % w)
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 1000))
            # 1000 x ~80 bytes: the 4 KiB cap forces writes long before batch-lines or batch-timeout
            self.assertTrue(fdharness.wait_until(lambda: written(sng) >= 900, 10), written(sng))


if __name__ == "__main__":
    fdharness.main()
