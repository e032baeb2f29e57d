#!/usr/bin/env python3
# Copyright (c) 2026 fastdest authors
#
# This program is free software; you can redistribute it and/or modify it
# under the terms of the GNU General Public License as published by the Free
# Software Foundation; either version 2 of the License, or (at your option)
# any later version.
#
# This program is distributed in the hope that it will be useful, but WITHOUT
# ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
# FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License for
# more details.
#
# You should have received a copy of the GNU General Public License along
# with this program; if not, see <https://www.gnu.org/licenses/>.
"""bench-hold(depth(N)), the bench's case (r): it must really hold every
message's ack until N more have come, or (r) would measure a destination that
acks at once (no destination) and call it the ceiling of one that acks after
the write.  Stock syslog-ng's flow control shows it: a source whose window is
smaller than the depth stops at the window, since no ack comes back.  The same
holds for handover(yes), the bench's case (u), whose thread acks N messages at
a time once the delivering thread hands them over, and for write-file(), the
bench's cases (v) and (w), which must also write every line, each
connection's in order, byte for byte as stock file() does."""

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

BUILDDIR = os.environ.get("FASTDEST_BUILDDIR", "")
WINDOW = 100
SENT = 300


def module_path():
    extra = os.environ.get("FASTDEST_MODULE_PATH", "")
    return fdharness.full_module_path(extra + ":" + os.path.join(BUILDDIR, "bench", "hold", ".libs"))


def config(sock, depth, handover=False, write_file=None):
    # write-file(): the sender's host names its file, as in the bench
    flags = " flags(expect-hostname) keep-hostname(yes)" if write_file else ""
    return f"""
options {{ stats-freq(0); }};
source s_in {{ unix-stream("{sock}" max-connections(1) log-iw-size({WINDOW}) log-fetch-limit(10){flags}); }};
destination d_hold {{ bench-hold(depth({depth}) handover({"yes" if handover else "no"})
                                  {f'write-file("{write_file}")' if write_file else ""}); }};
log {{ source(s_in); destination(d_hold); flags(flow-control); }};
"""


class TestBenchHold(fdharness.TestCase):
    def received(self, sng):
        return sng.stats().get("center;;received;a;processed", 0)

    def run_with_depth(self, depth, handover=False):
        workdir = fdharness.make_workdir("fdtest-hold-")
        sock = os.path.join(workdir, "in.sock")
        sng = fdharness.SyslogNg(config(sock, depth, handover), workdir=workdir, module_path=module_path())
        with sng:
            fdharness.send_lines(sock, [b"<13>Dec  2 04:30:00 host prog: message %d" % i for i in range(SENT)])
            fdharness.wait_until(lambda: self.received(sng) >= SENT, timeout=5)
            # what the source took does not move any more: it is either all, or stopped by its window
            before = self.received(sng)
            time.sleep(1)
            return before, self.received(sng)

    def test_the_window_stops_the_source_when_the_depth_is_larger(self):
        before, after = self.run_with_depth(WINDOW + 50)
        self.assertEqual(before, after)
        self.assertEqual(after, WINDOW, "the source read past its window: bench-hold acked before depth(N) more came")

    def test_every_message_goes_through_when_the_depth_fits_in_the_window(self):
        _, after = self.run_with_depth(WINDOW // 2)
        self.assertEqual(after, SENT)

    def test_handed_over_the_window_stops_the_source_when_the_depth_is_larger(self):
        before, after = self.run_with_depth(WINDOW + 50, handover=True)
        self.assertEqual(before, after)
        self.assertEqual(after, WINDOW, "the source read past its window: handover(yes) acked before N more came")

    def test_handed_over_every_message_goes_through_when_the_depth_fits_in_the_window(self):
        _, after = self.run_with_depth(WINDOW // 2, handover=True)
        self.assertEqual(after, SENT)

    def test_several_connections_each_go_through(self):
        self.several_connections_go_through(handover=False)

    def test_handed_over_several_connections_each_go_through(self):
        self.several_connections_go_through(handover=True)

    def several_connections_go_through(self, handover):
        """with several connections each delivering thread holds its own ring
        (or hands over its own chunks); every message of each connection still
        goes through, and the daemon acks what is held when it stops"""
        workdir = fdharness.make_workdir("fdtest-hold-")
        sock = os.path.join(workdir, "in.sock")
        cfg = config(sock, 50, handover).replace("max-connections(1) log-iw-size(%d)" % WINDOW,
                                                 "max-connections(4) log-iw-size(%d)" % (4 * 1000))
        per_connection = 2000
        with fdharness.SyslogNg(cfg, workdir=workdir, module_path=module_path()) as sng:
            senders = [threading.Thread(target=fdharness.send_lines, args=(
                sock, [b"<13>Dec  2 04:30:00 host%d prog: message %d" % (c, i) for i in range(per_connection)]))
                for c in range(4)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            self.assertTrue(fdharness.wait_until(lambda: self.received(sng) == 4 * per_connection, timeout=10),
                            self.received(sng))
        self.assertEqual(sng.returncode, 0, sng.output())

    def test_written_the_window_stops_the_source_when_the_depth_is_larger(self):
        """write-file() writes at the end of each job, but acks a written
        message only once N more have come"""
        workdir = fdharness.make_workdir("fdtest-hold-")
        sock = os.path.join(workdir, "in.sock")
        out = os.path.join(workdir, "out.log")
        lines = [b"<13>Dec  2 04:30:00 host prog: message %d" % i for i in range(SENT)]
        with fdharness.SyslogNg(config(sock, WINDOW + 50, write_file=out), workdir=workdir,
                                module_path=module_path()) as sng:
            fdharness.send_lines(sock, lines)
            fdharness.wait_until(lambda: self.received(sng) >= WINDOW, timeout=5)
            time.sleep(1)
            self.assertEqual(self.received(sng), WINDOW)
            self.assertTrue(fdharness.wait_for_lines(out, WINDOW, timeout=5))
        with open(out, "rb") as f:
            self.assertEqual(f.read().splitlines()[:WINDOW], [line[4:] for line in lines[:WINDOW]])

    def test_written_per_host_every_line_in_order_as_stock_file_writes_it(self):
        workdir = fdharness.make_workdir("fdtest-hold-")
        sock = os.path.join(workdir, "in.sock")
        cfg = config(sock, 50, write_file=os.path.join(workdir, "${HOST}.log")).replace(
            "max-connections(1) log-iw-size(%d)" % WINDOW, "max-connections(4) log-iw-size(%d)" % (4 * 1000))
        cfg = cfg.replace("destination d_hold", 'destination d_stock { file("%s/stock-${HOST}.log"); };\n'
                          % workdir + "destination d_hold")
        cfg = cfg.replace("destination(d_hold);", "destination(d_hold); destination(d_stock);")
        per_connection = 3000
        sent = {c: [b"<13>Dec  2 04:30:00 host%d prog: message %d" % (c, i) for i in range(per_connection)]
                for c in range(4)}
        with fdharness.SyslogNg(cfg, workdir=workdir, module_path=module_path()) as sng:
            senders = [threading.Thread(target=fdharness.send_lines, args=(sock, sent[c])) for c in range(4)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            for c in range(4):
                self.assertTrue(fdharness.wait_for_lines(os.path.join(workdir, "host%d.log" % c), per_connection,
                                                         timeout=10))
        self.assertEqual(sng.returncode, 0, sng.output())
        for c in range(4):
            with open(os.path.join(workdir, "host%d.log" % c), "rb") as f:
                written = f.read()
            with open(os.path.join(workdir, "stock-host%d.log" % c), "rb") as f:
                self.assertEqual(written, f.read())
            self.assertEqual(written.splitlines(), [line[4:] for line in sent[c]])

    def test_depth_must_be_positive(self):
        rc, text = fdharness.check_config(config("/tmp/unused.sock", 0), module_path=module_path())
        self.assertNotEqual(rc, 0)
        self.assertIn("depth", text)


if __name__ == "__main__":
    unittest.main()
