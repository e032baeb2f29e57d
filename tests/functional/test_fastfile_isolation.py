# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""fast-file(): an error that belongs to one message or one file name affects
only that message or file; torn writes across reload and stop; no spinning
worker.  Each case runs the stock syslog-ng with the built module."""

import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402
from test_fastfile_faults import FaultCase, read_seqs, seq_lines  # noqa: E402


def host_line(host, i, text="payload"):
    return ("<13>Nov 30 05:00:00 %s prog[1]: seq=%08d %s x" % (host, i, text)).encode()


def read_exact_seqs(path, pad=60):
    """(sequence numbers, bad lines) of a file of seq_lines() records written
    with template("${MSG}\\n") from a source that takes "host" for the
    program: every line must be exactly one whole record, so a torn record
    followed by a whole one is caught"""
    seqs, bad = [], []
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        bad.append(data[data.rfind(b"\n") + 1:][:80])
    for line in data.split(b"\n")[:-1]:
        digits = line[len(b"prog[1]: seq="):][:8]
        if digits.isdigit() and line == b"prog[1]: seq=%s %s" % (digits, b"x" * pad):
            seqs.append(int(digits))
        else:
            bad.append(line[:100])
    return seqs, bad


def fast_stat(sng, what):
    return sng.stat("dst.fast-file", "d_fast", what) or 0


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TestOneBadName(FaultCase):
    """A crafted host name must not keep the other hosts' files from being written."""

    def run_bad_then_good(self, bad_host, extra_options=""):
        w = self.workdir()
        os.mkdir(os.path.join(w, "h"))
        with open(os.path.join(w, "h", "afile"), "w"):
            pass
        cfg = """
options { stats-level(1); keep-hostname(yes); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_fast { fast-file("%(w)s/h/${HOST}.log" template("${MSG}\\n") time-reopen(60) %(extra)s); };
destination d_stock { file("%(w)s/stock-${HOST}.log" template("${MSG}\\n")); };
log { source(s_in); destination(d_fast); destination(d_stock); };
""" % {"w": w, "extra": extra_options}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            lines = [host_line(bad_host, 0)] + [host_line("good", i) for i in range(1, 6)]
            start = time.monotonic()
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            good = os.path.join(w, "h", "good.log")
            self.assertTrue(fdharness.wait_for_lines(good, 5, 2),
                            "the good host's lines did not arrive within 2 s: %s\n%s"
                            % (fdharness.count_lines(good), sng.output()))
            self.assertLess(time.monotonic() - start, 2.5)
            # the bad one is dropped at once and counted, not retried
            self.assertTrue(fdharness.wait_until(lambda: fast_stat(sng, "dropped") == 1, 5), sng.stats())
            self.assertEqual(fast_stat(sng, "written"), 5)
            self.assertEqual(fast_stat(sng, "queued"), 0)
            out = sng.output()
            self.assertIn("d_fast#0", out)
            self.assertIn("syslog-ng.conf:", out)
            # stock file() wrote the good host's file too
            self.assertTrue(fdharness.wait_for_lines(os.path.join(w, "stock-good.log"), 5, 5))
        seqs, torn = read_seqs(good)
        self.assertEqual((seqs, torn), ([1, 2, 3, 4, 5], []))

    def test_overlong_host_name(self):
        # "h/" + 255 characters + ".log": ENAMETOOLONG
        self.run_bad_then_good("a" * 255)

    def test_missing_directory_of_a_templated_name(self):
        # create-dirs(no): "h/sub/x.log" has no directory; a name made of message fields is dropped at once
        self.run_bad_then_good("sub/x")

    def test_name_through_a_file(self):
        # "h/afile" is a file: "h/afile/x.log" cannot be opened (ENOTDIR)
        self.run_bad_then_good("afile/x")


@fdharness.skip_unless_root
class TestTornWrites(FaultCase):
    def test_reload_after_a_torn_write_keeps_every_line_once(self):
        """A write stops in the middle of a record (ENOSPC), then a reload comes
        before time-reopen: no torn line, nothing twice, nothing lost."""
        w = self.workdir()
        mnt, filler = self.mount_small_tmpfs(w, 40 * 1024)
        n = 3000
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(mnt)s/out.log" template("${MSG}\\n") batch-lines(200)
                     time-reopen(30) retries(1000)); };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w, "mnt": mnt}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            sender = threading.Thread(target=fdharness.send_lines,
                                      args=(os.path.join(w, "in.sock"), seq_lines(0, n)))
            sender.start()
            self.assertTrue(fdharness.wait_until(lambda: "No space left" in sng.output(), 30), sng.output())
            # the file ends in the middle of a line now
            with open(os.path.join(mnt, "out.log"), "rb") as f:
                self.assertFalse(f.read().endswith(b"\n"), "the write did not stop mid-record")
            sng.reload()
            os.unlink(filler)
            sender.join(60)
            self.assertTrue(fdharness.wait_until(lambda: fast_stat(sng, "written") == n, 120),
                            "written %s of %d\n%s" % (fast_stat(sng, "written"), n, sng.output()))
            self.assertEqual(fast_stat(sng, "dropped"), 0)
        seqs, bad = read_exact_seqs(os.path.join(mnt, "out.log"))
        self.assert_exactly_once(seqs, bad, n)

    def test_written_counts_only_whole_lines_when_retries_run_out(self):
        """Two writers on one file (workers(2)) cannot cut a torn record off:
        when its retries run out it is dropped, not counted as written, and
        every line counted as written is whole on disk."""
        w = self.workdir()
        mnt, filler = self.mount_small_tmpfs(w, 40 * 1024)
        n = 3000
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(mnt)s/out.log" template("${MSG}\\n") batch-lines(200) workers(2)
                     time-reopen(1) retries(2)); };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w, "mnt": mnt}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            sender = threading.Thread(target=fdharness.send_lines,
                                      args=(os.path.join(w, "in.sock"), seq_lines(0, n)))
            sender.start()
            self.assertTrue(fdharness.wait_until(lambda: fast_stat(sng, "dropped") > 0, 60), sng.output())
            self.assertTrue(fdharness.wait_until(
                lambda: fast_stat(sng, "written") + fast_stat(sng, "dropped") == n, 120), sng.stats())
            written = fast_stat(sng, "written")
        sender.join(10)
        seqs, bad = read_exact_seqs(os.path.join(mnt, "out.log"))
        self.assertEqual(len(seqs), len(set(seqs)), "duplicates")
        self.assertEqual(len(seqs), written, "written counts %d, whole lines on disk %d" % (written, len(seqs)))


@fdharness.skip_unless_root
class TestNoSpin(FaultCase):
    def test_throttled_replay_does_not_spin(self):
        """throttle() and a write that keeps failing: the worker waits for
        time-reopen and the throttle, it does not spin on the CPU.  The batch
        (batch-timeout) grows beyond what the throttle lets through in one
        time-reopen, so each retry replays only part of it at first."""
        w = self.workdir()
        mnt = os.path.join(w, "mnt")
        os.mkdir(mnt)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "fastdest-test", mnt], check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", mnt])
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\0" * (64 * 1024))
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(mnt)s/out.log" template("${MSG}\\n") throttle(100)
                     batch-lines(1000) batch-timeout(3000) time-reopen(1) retries(1000)); };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w, "mnt": mnt}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            threading.Thread(target=fdharness.send_lines,
                             args=(os.path.join(w, "in.sock"), seq_lines(0, 500)), daemon=True).start()
            self.assertTrue(fdharness.wait_until(lambda: "No space left" in sng.output(), 30), sng.output())
            # a few time-reopen cycles with rewinds and throttled replays
            before = proc_cpu_s(sng.pid)
            time.sleep(8)
            used = proc_cpu_s(sng.pid) - before
            self.assertLess(used, 0.8, "syslog-ng used %.2f s of CPU in 8 s while the disk was full" % used)


if __name__ == "__main__":
    fdharness.main()
