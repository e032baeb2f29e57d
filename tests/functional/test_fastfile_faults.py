# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""fast-file() under faults: disk full (short writes), rotation with reopen,
reload mid-stream, permission errors.  Every message exactly once, no torn line."""

import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402


def seq_lines(start, n, pad=60):
    return [("<13>Nov 30 05:00:00 host prog[1]: seq=%08d %s" % (i, "x" * pad)).encode()
            for i in range(start, start + n)]


def read_seqs(*paths, same_prefix=False):
    """(sequence numbers in order, torn lines) of the records in paths.
    same_prefix: every record of a file has what its first one has before "seq=" (one host and
    program), so a record glued to the fragment of another is torn however short the fragment"""
    seqs, torn = [], []
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if data and not data.endswith(b"\n"):
            torn.append(data[data.rfind(b"\n") + 1:][:80])
        prefix = None
        for line in data.split(b"\n")[:-1]:
            i = line.find(b"seq=")
            if prefix is None and i >= 0:
                prefix = line[:i]
            # two records glued together (one written after a fragment of another) are torn too
            if (i < 0 or not line.endswith(b"x") or line.count(b"seq=") != 1
                    or (same_prefix and line[:i] != prefix)):
                torn.append(line[:80])
                continue
            seqs.append(int(line[i + 4:i + 12]))
    return seqs, torn


def stat(sng, what):
    return sng.stat("dst.", "d_fast", what) or 0


class FaultCase(fdharness.TestCase):
    def assert_exactly_once(self, seqs, torn, n):
        self.assertEqual(torn, [], "torn lines")
        dupes = len(seqs) - len(set(seqs))
        missing = sorted(set(range(n)) - set(seqs))
        self.assertEqual((len(missing), dupes), (0, 0),
                         "missing %d (first %s), duplicated %d" % (len(missing), missing[:5], dupes))


@fdharness.skip_unless_root
class TestDiskFull(FaultCase):
    def test_enospc_then_space_freed(self):
        w = self.workdir()
        # leave ~40 KiB free: the first batch fits, later ones hit ENOSPC mid-record
        mnt, filler = self.mount_small_tmpfs(w, 40 * 1024)
        n = 3000
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(mnt)s/out.log" template("${MSG}\\n") batch-lines(200)
                     time-reopen(1) retries(1000)); };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w, "mnt": mnt}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            sender = threading.Thread(target=fdharness.send_lines,
                                      args=(os.path.join(w, "in.sock"), seq_lines(0, n)))
            sender.start()
            self.assertTrue(fdharness.wait_until(lambda: "No space left" in sng.output(), 30),
                            "never hit ENOSPC: " + sng.output())
            time.sleep(2)
            stalled = stat(sng, "written")
            self.assertLess(stalled, n)
            self.assertEqual(stat(sng, "dropped"), 0)
            os.unlink(filler)
            ok = fdharness.wait_until(lambda: stat(sng, "written") == n, 60)
            sender.join()
            self.assertTrue(ok, "written %d of %d" % (stat(sng, "written"), n))
            self.assertEqual(stat(sng, "dropped"), 0)
        seqs, torn = read_seqs(os.path.join(mnt, "out.log"))
        self.assert_exactly_once(seqs, torn, n)

    def test_enospc_retries_exhausted_are_dropped_and_counted(self):
        w = self.workdir()
        mnt, _ = self.mount_small_tmpfs(w, 8 * 1024, size=256 * 1024)
        n = 1000
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(mnt)s/out.log" template("${MSG}\\n") batch-lines(100)
                     time-reopen(1) retries(2)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "mnt": mnt}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n))
            ok = fdharness.wait_until(lambda: stat(sng, "written") + stat(sng, "dropped") == n, 60)
            self.assertTrue(ok, "written %d dropped %d" % (stat(sng, "written"), stat(sng, "dropped")))
            written, dropped = stat(sng, "written"), stat(sng, "dropped")
            self.assertGreater(dropped, 0)
            self.assertIn("retries exhausted", sng.output())
        seqs, torn = read_seqs(os.path.join(mnt, "out.log"))
        self.assertEqual(torn, [])
        self.assertEqual(len(seqs), len(set(seqs)))
        self.assertEqual(len(seqs), written)


class TestTornRecordAtOpen(FaultCase):
    """A file left ending in part of a record (kill -9 or a power cut mid-write) is
    cut back to its last whole record when fast-file() opens it, so the first record
    it appends starts a line of its own; bytes that are not a record of ours cut
    short are kept and ended with a line ending instead."""

    def run_into(self, w, msgs, options=""):
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(w)s/out.log" %(o)s); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "o": options}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), msgs)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= len(msgs), 30), sng.output())
            return sng.output()

    def test_partial_record_is_cut(self):
        w = self.workdir()
        path = os.path.join(w, "out.log")
        self.run_into(w, seq_lines(0, 100))
        with open(path, "rb") as f:
            whole = f.read()
        last = whole[:-1].rsplit(b"\n", 1)[1]
        with open(path, "ab") as f:
            f.write(last.replace(b"seq=00000099", b"seq=00000100")[:len(last) // 2])
        output = self.run_into(w, seq_lines(100, 100))
        self.assertIn("cut a partly written record off the end of the file", output)
        with open(path, "rb") as f:
            self.assertTrue(f.read().startswith(whole))
        seqs, torn = read_seqs(path, same_prefix=True)
        self.assert_exactly_once(seqs, torn, 200)

    def test_partial_utf16_record_is_cut_on_a_code_unit(self):
        """an odd number of bytes: cut on the code unit, or every later record is misaligned"""
        w = self.workdir()
        path = os.path.join(w, "out.log")
        options = 'encoding("UTF-16LE") bom(yes)'
        self.run_into(w, seq_lines(0, 50), options)
        with open(path, "rb") as f:
            whole = f.read()
        fragment = "Nov 30 05:00:00 host prog[1]: seq=00000050 xxx".encode("utf-16-le")[:-1]
        with open(path, "ab") as f:
            f.write(fragment)
        self.assertIn("cut a partly written record", self.run_into(w, seq_lines(50, 50), options))
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(whole))
        self.assertEqual(data[:2], b"\xff\xfe")
        text = data[2:].decode("utf-16-le").encode()
        self.assertEqual(text.count(b"seq="), 100)
        self.assertNotIn(b"xxxNov", text)

    def test_bytes_without_any_line_ending_are_kept_and_ended(self):
        """no whole line to go back to: not a record of ours cut short; kept, and ended"""
        w = self.workdir()
        path = os.path.join(w, "out.log")
        with open(path, "wb") as f:
            f.write(b"an unfinished note")
        output = self.run_into(w, seq_lines(0, 50))
        self.assertIn("ended it with a line ending", output)
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"an unfinished note\n"), data[:80])
        seqs, torn = read_seqs(path)
        self.assertEqual(torn, [b"an unfinished note"])
        self.assertEqual(seqs, list(range(50)))

    def test_a_file_holding_only_its_bom_is_whole(self):
        """bom(yes) writes the BOM when it opens a new file: a file left holding only that is not unended"""
        w = self.workdir()
        path = os.path.join(w, "out.log")
        with open(path, "wb") as f:
            f.write(b"\xef\xbb\xbf")
        output = self.run_into(w, seq_lines(0, 10), 'bom(yes)')
        self.assertNotIn("line ending", output)
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"\xef\xbb\xbfNov 30"), data[:40])
        seqs, torn = read_seqs(path)
        self.assertEqual(seqs, list(range(10)))

    @fdharness.skip_unless_root
    def test_ending_an_unended_file_waits_for_room(self):
        """the line ending cannot be written (disk full): nothing is appended after the unended
        bytes until it is; retried after time-reopen()"""
        w = self.workdir()
        mnt, filler = self.mount_small_tmpfs(w, 4096)
        path = os.path.join(mnt, "out.log")
        with open(path, "wb") as f:
            f.write(b"n" * 4096)   # the last free page, full
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(path)s" time-reopen(1)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "path": path}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 50))
            self.assertTrue(fdharness.wait_until(lambda: "error ending the file's unended last line" in sng.output(),
                                                 10), sng.output())
            self.assertEqual(stat(sng, "written"), 0)
            os.unlink(filler)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= 50, 30), sng.output())
        with open(path, "rb") as f:
            self.assertTrue(f.read().startswith(b"n" * 4096 + b"\n"))
        seqs, torn = read_seqs(path, same_prefix=True)
        self.assertEqual(torn, [b"n" * 80])
        self.assertEqual(seqs, list(range(50)))

    def test_records_without_line_endings_are_left_alone(self):
        """line-ending(none): a file not ending in one is how the records are, nothing is cut"""
        w = self.workdir()
        path = os.path.join(w, "out.log")
        self.run_into(w, seq_lines(0, 10), 'line-ending(none)')
        with open(path, "rb") as f:
            whole = f.read()
        output = self.run_into(w, seq_lines(10, 10), 'line-ending(none)')
        self.assertNotIn("partly written record", output)
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(whole))
        self.assertEqual(data.count(b"seq="), 20)

    @fdharness.skip_unless_root
    def test_a_file_it_may_not_read_is_appended_to_unchecked(self):
        """a file syslog-ng may write but not read (mode 0200, syslog-ng running as another
        user without capabilities): its end is not checked, which is logged, and nothing is
        cut or lost; the records are appended after whatever it ends in"""
        w = self.workdir()
        path = os.path.join(w, "out.log")
        head = b"an earlier line\nNov 30 05:00:00 host prog[1]: seq=000"
        with open(path, "wb") as f:
            f.write(head)
        os.chmod(path, 0o200)
        for p in (w, path):
            os.chown(p, 65534, 65534)
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(path)s"); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "path": path}
        wrapper = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all " \
            + os.environ.get("FASTDEST_SYSLOG_NG_WRAPPER", "")
        with unittest.mock.patch.dict(os.environ, {"FASTDEST_SYSLOG_NG_WRAPPER": wrapper}):
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, 50))
                self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= 50, 30), sng.output())
                output = sng.output()
        self.assertRegex(output, r"error reading the file to check its end for a partly written record;.*"
                         r"errno='13'")
        self.assertNotIn("cut a partly written record", output)
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(head), data[:80])
        lines = data[len(head):].split(b"\n")
        self.assertEqual(lines[-1], b"")
        self.assertEqual([int(line[line.find(b"seq=") + 4:][:8]) for line in lines[:-1]], list(range(50)))


class TestRotation(FaultCase):
    def test_rename_and_reopen_mid_stream(self):
        w = self.workdir()
        n = 60000
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(w)s/out.log" template("${MSG}\\n")); };
log { source(s_in); destination(d_fast); flags(flow-control); };
""" % {"w": w}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            sender = threading.Thread(target=fdharness.send_lines,
                                      args=(os.path.join(w, "in.sock"), seq_lines(0, n)))
            sender.start()
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") > 1000, 30))
            os.rename(os.path.join(w, "out.log"), os.path.join(w, "out.log.1"))
            sng.reopen()
            sender.join()
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == n, 60))
        self.assertGreater(fdharness.count_lines(os.path.join(w, "out.log")), 0, "reopen did not create a new file")
        seqs, torn = read_seqs(os.path.join(w, "out.log.1"), os.path.join(w, "out.log"))
        self.assert_exactly_once(seqs, torn, n)

    def reload_mid_stream(self, n, per_connection, pad=60, source_opts="", written_before=1000):
        """n lines sent over a new connection for every per_connection lines, a
        reload once fast-file() wrote written_before of them; stock file() in
        the same log path is the witness of what arrived (a reload closes the
        source connections, so a few lines may be lost at the source).  Checks
        that fast-file() wrote no torn line, nothing twice and what file() did;
        returns its sequence numbers in the order written."""
        w = self.workdir()
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" %(so)s); };
destination d_file { file("%(w)s/file.log" template("${MSG}\\n")); };
destination d_fast { fast-file("%(w)s/out.log" template("${MSG}\\n")); };
log { source(s_in); destination(d_file); destination(d_fast); flags(flow-control); };
""" % {"w": w, "so": source_opts}
        lines = seq_lines(0, n, pad=pad)

        def send_reconnecting():
            i = 0
            while i < n:
                try:
                    fdharness.send_lines(os.path.join(w, "in.sock"),
                                         [b"".join(line + b"\n" for line in lines[i:i + per_connection])])
                except OSError:
                    time.sleep(0.05)
                i += per_connection
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            sender = threading.Thread(target=send_reconnecting)
            sender.start()
            self.assertTrue(fdharness.wait_until(
                lambda: fdharness.count_lines(os.path.join(w, "out.log")) > written_before, 30))
            sng.reload()
            sender.join()
            self.assertTrue(fdharness.wait_until(
                lambda: fdharness.count_lines(os.path.join(w, "out.log"))
                == fdharness.count_lines(os.path.join(w, "file.log")) > n // 2, 60))
            time.sleep(0.5)
        file_seqs, file_torn = read_seqs(os.path.join(w, "file.log"))
        seqs, torn = read_seqs(os.path.join(w, "out.log"))
        self.assertEqual(torn, [])
        self.assertEqual(len(seqs), len(set(seqs)), "duplicates")
        self.assertEqual(sorted(seqs), sorted(file_seqs))
        return seqs

    def test_reload_mid_stream(self):
        """reload closes the source connections, so a few lines may be lost at the
        source: stock file() in the same log path is the witness of what arrived"""
        self.reload_mid_stream(60000, 500)

    def test_reload_mid_stream_while_one_connection_hands_over(self):
        """The same with the reader taking 1000 messages at a time from one
        connection: its messages are handed to fast-file()'s writer thread
        unformatted, chunk by chunk, when the reload comes; what was handed over
        is written or kept in the queue for the next configuration, never lost
        or written twice, and each connection's lines in order."""
        n = 200000
        seqs = self.reload_mid_stream(n, 5000, pad=900, written_before=20000,
                                      source_opts="max-connections(1) log-fetch-limit(1000) log-iw-size(20000)")
        # the sender opens a connection for every 5000 lines: each one's lines in order (across two whose
        # threads were at work at once the order is not kept: README, Limits)
        for conn in range(n // 5000):
            mine = [q for q in seqs if q // 5000 == conn]
            self.assertEqual(mine, sorted(mine), "connection %d's lines out of order" % conn)


def host_lines(host, start, n, pad=60):
    return [("<13>Nov 30 05:00:00 %s prog[1]: seq=%08d %s" % (host, i, "x" * pad)).encode()
            for i in range(start, start + n)]


def send_blob(path, lines):
    """All of lines in a few large writes: a sender fast enough to keep several delivering threads busy"""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        for i in range(0, len(lines), 2000):
            s.sendall(b"\n".join(lines[i:i + 2000]) + b"\n")
        s.shutdown(socket.SHUT_WR)


class TestOwnBatches(FaultCase):
    """Several connections into a file per host: the delivering threads write the batches they format apart
    themselves.  Every connection's lines in its order, once, never torn, across a disk full."""
    HOSTS = ["h%d" % i for i in range(4)]
    DEST = 'fast-file("%(out)s/${HOST}.log" template("${MSG}\\n") time-reopen(1) retries(1000))'

    def config(self, w, out):
        return ("""
options { stats-level(1); keep-hostname(yes); };
source s_in { unix-stream("%(w)s/in.sock" max-connections(4) log-iw-size(40000) log-fetch-limit(1000)
                               flags(expect-hostname)); };
destination d_fast { """ + self.DEST + """; };
log { source(s_in); destination(d_fast); flags(flow-control); };
""") % {"w": w, "out": out}

    def send_all(self, w, n):
        senders = [threading.Thread(target=send_blob, args=(os.path.join(w, "in.sock"), host_lines(h, 0, n)))
                   for h in self.HOSTS]
        for t in senders:
            t.start()
        return senders

    def assert_each_host_in_order(self, out, n):
        for h in self.HOSTS:
            seqs, torn = read_seqs(os.path.join(out, h + ".log"))
            self.assertEqual(torn, [], "torn lines in %s" % h)
            self.assertEqual(seqs, list(range(n)), "%s: %d lines, not 0..%d in order" % (h, len(seqs), n - 1))

    def test_connections_into_a_file_per_host_in_order(self):
        w = self.workdir()
        n = 60000
        with fdharness.SyslogNg(self.config(w, w), workdir=w, extra_args=("-d",)) as sng:
            for t in self.send_all(w, n):
                t.join()
            ok = fdharness.wait_until(lambda: stat(sng, "written") == n * len(self.HOSTS), 60)
            self.assertTrue(ok, "written %d of %d" % (stat(sng, "written"), n * len(self.HOSTS)))
            self.assertEqual(stat(sng, "dropped"), 0)
            # the path under test was taken
            self.assertTrue("delivering threads write batches of their own" in sng.output(),
                            "no batch was written by a delivering thread")
        self.assert_each_host_in_order(w, n)

    def test_one_connection_into_several_files(self):
        # a batch of one connection's lines for several files goes through the lane, in order
        w = self.workdir()
        n = 20000
        lines = [line for group in zip(*(host_lines(h, 0, n) for h in self.HOSTS)) for line in group]
        with fdharness.SyslogNg(self.config(w, w), workdir=w) as sng:
            send_blob(os.path.join(w, "in.sock"), lines)
            ok = fdharness.wait_until(lambda: stat(sng, "written") == n * len(self.HOSTS), 60)
            self.assertTrue(ok, "written %d of %d" % (stat(sng, "written"), n * len(self.HOSTS)))
            self.assertEqual(stat(sng, "dropped"), 0)
        self.assert_each_host_in_order(w, n)

    @fdharness.skip_unless_root
    def test_disk_full_under_batches_of_their_own(self):
        w = self.workdir()
        # room for about a quarter of the lines: the rest hit ENOSPC, some of them mid-record
        n = 20000
        mnt, filler = self.mount_small_tmpfs(w, n * 100, size=8 * 1024 * 1024)
        with fdharness.SyslogNg(self.config(w, mnt), workdir=w, extra_args=("-d",)) as sng:
            senders = self.send_all(w, n)
            self.assertTrue(fdharness.wait_until(lambda: "No space left" in sng.output(), 60),
                            "never hit ENOSPC")
            time.sleep(2)
            self.assertLess(stat(sng, "written"), n * len(self.HOSTS))
            self.assertEqual(stat(sng, "dropped"), 0)
            os.unlink(filler)
            ok = fdharness.wait_until(lambda: stat(sng, "written") == n * len(self.HOSTS), 90)
            for t in senders:
                t.join()
            self.assertTrue(ok, "written %d of %d" % (stat(sng, "written"), n * len(self.HOSTS)))
            self.assertEqual(stat(sng, "dropped"), 0)
            output = sng.output()
        # a write of a delivering thread's own batch met the full disk
        self.assertTrue("writer='delivering thread'" in output, "no batch of a delivering thread met the full disk")
        self.assert_each_host_in_order(mnt, n)


class TestOwnBatchesOneFile(TestOwnBatches):
    """Several connections into one file: the delivering threads write their own batches to it in turn.  Every
    connection's lines in its order, once, never torn (a line of one thread never inside another's)."""

    DEST = 'fast-file("%(out)s/all.log" template("${HOST} ${MSG}\\n") time-reopen(1) retries(1000))'

    def assert_each_host_in_order(self, out, n):
        hosts = self.HOSTS
        with open(os.path.join(out, "all.log"), "rb") as f:
            data = f.read()
        self.assertTrue(data.endswith(b"\n"), "the file ends in a torn line")
        seqs = {h: [] for h in hosts}
        torn = []
        for line in data.split(b"\n")[:-1]:
            m = re.fullmatch(rb"(h\d) seq=(\d{8}) x{60}", line)
            if not m or m.group(1).decode() not in seqs:
                torn.append(line[:80])
                continue
            seqs[m.group(1).decode()].append(int(m.group(2)))
        self.assertEqual(torn, [], "torn or mixed lines")
        for h in hosts:
            self.assertEqual(seqs[h], list(range(n)), "%s: %d lines, not 0..%d in order" % (h, len(seqs[h]), n - 1))

    # one file here: not collected
    test_one_connection_into_several_files = None


class TestPermissions(FaultCase):
    @fdharness.skip_unless_root
    def test_unwritable_directory_then_fixed(self):
        w = self.workdir()
        d = os.path.join(w, "logs")
        os.mkdir(d)
        n = 500
        # root ignores mode bits: make the directory immutable instead
        if subprocess.run(["chattr", "+i", d]).returncode != 0:
            self.skipTest("chattr +i not supported on this filesystem")
        try:
            cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock"); };
destination d_fast { fast-file("%(d)s/out.log" template("${MSG}\\n") time-reopen(1) retries(1000)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "d": d}
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                fdharness.send_lines(os.path.join(w, "in.sock"), seq_lines(0, n))
                self.assertTrue(fdharness.wait_until(lambda: "error opening file" in sng.output(), 20), sng.output())
                out = sng.output()
                self.assertIn(os.path.join(d, "out.log"), out)
                self.assertIn("errno", out)
                time.sleep(1.5)
                self.assertEqual(stat(sng, "written"), 0)
                subprocess.run(["chattr", "-i", d], check=True)
                self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == n, 30))
                self.assertEqual(stat(sng, "dropped"), 0)
            seqs, torn = read_seqs(os.path.join(d, "out.log"))
            self.assert_exactly_once(seqs, torn, n)
        finally:
            subprocess.run(["chattr", "-i", d])


if __name__ == "__main__":
    fdharness.main()
