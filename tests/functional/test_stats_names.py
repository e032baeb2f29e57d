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
"""The counters of fast-file() and structured-event() next to stock file() and
http() in the same config: `syslog-ng-ctl stats` rows on every series, and on
4.x `syslog-ng-ctl stats prometheus` names and labels as the stock drivers have
them (fast-file() as file(), structured-event() as http()), written bytes, and
the 4.x threaded-destination options flags(seqnum...) and worker-partition-key()."""

import http.server
import os
import threading

import fdharness

N = 40

CONFIG = """
options { %(stats)s keep-hostname(yes); };
source s { unix-stream("%(w)s/in.sock" so-passcred(no)); };
destination d_file { file("%(w)s/file.log"); };
destination d_ff { fast-file("%(w)s/ff.log"); };
destination d_http { http(url("http://127.0.0.1:%(port)d/") method("POST")); };
destination d_se { structured-event(sink(journal-export) path("%(w)s/se.export")); };
log { source(s); destination(d_file); destination(d_ff); destination(d_http); destination(d_se); };
"""


class _Ok(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def line(i, program="app"):
    return b"<14>Nov 30 12:00:00 %s[7]: message %d" % (program.encode(), i)


class TestStatsNames(fdharness.TestCase):
    def setUp(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def start(self):
        w = self.workdir()
        sng = fdharness.SyslogNg(CONFIG % {"w": w, "port": self.server.server_address[1],
                                           "stats": fdharness.STATS_LEVEL1 + ";"}, workdir=w)
        sng.start()
        self.addCleanup(sng.stop)
        fdharness.send_lines(os.path.join(w, "in.sock"), [line(i) for i in range(N)])
        self.assertTrue(fdharness.wait_until(
            lambda: all(sng.stat("dst." + d, i, "written") == N
                        for d, i in (("file", "d_file"), ("fast-file", "d_ff"), ("http", "d_http"),
                                     ("structured-event", "d_se"))), 30), sng.stats())
        return sng, w

    def test_legacy_rows_as_file_and_http_have_them(self):
        sng, w = self.start()
        stats = sng.stats()
        ff, se = w + "/ff.log", "structured-event,journal-export,%s/se.export" % w
        for typ, value in (("written", N), ("processed", N), ("dropped", 0), ("queued", 0)):
            # the same rows as stock file(), the instance once (not "<instance>,<instance>")
            self.assertEqual(stats.get("dst.file;d_file#0;%s/file.log;a;%s" % (w, typ)), value, typ)
            self.assertEqual(stats.get("dst.fast-file;d_ff#0;%s;a;%s" % (ff, typ)), value, (typ, stats))
            self.assertEqual(stats.get("dst.structured-event;d_se#0;%s;a;%s" % (se, typ)), value, (typ, stats))
        # structured-event()'s own counters, next to the stock ones
        self.assertEqual(stats.get("dst.structured-event;d_se#0;%s;a;dropped_fields" % se), 0)
        self.assertEqual(stats.get("dst.structured-event;d_se#0;%s;a;memfd_sends" % se), 0)

    def test_prometheus_names_and_labels_as_file_and_http(self):
        if not fdharness.SYSLOG_NG_4X:
            self.skipTest("syslog-ng %s has no `syslog-ng-ctl stats prometheus`" % fdharness.SYSLOG_NG_VERSION)
        sng, w = self.start()
        # written bytes are counted after the acknowledgement: wait for them too
        self.assertTrue(fdharness.wait_until(lambda: all(
            any(n == "syslogng_output_event_bytes_total" and l.get("id") == i and v > 0 for n, l, v in sng.prometheus())
            for i in ("d_file#0", "d_ff#0", "d_se#0")), 30), sng.ctl("stats", "prometheus"))
        metrics = sng.prometheus()

        def of(driver_id):
            return [(n, l, v) for n, l, v in metrics if l.get("id") == driver_id]

        def one(driver_id, name, **labels):
            found = [(l, v) for n, l, v in of(driver_id)
                     if n == name and all(l.get(k) == x for k, x in labels.items())]
            self.assertEqual(len(found), 1, (driver_id, name, labels, of(driver_id)))
            return found[0]

        # fast-file() as file(): driver and filename labels, the same label names per metric
        for d_id, driver, path in (("d_file#0", "file", w + "/file.log"), ("d_ff#0", "fast-file", w + "/ff.log")):
            labels, value = one(d_id, "syslogng_output_events_total", result="delivered")
            self.assertEqual(labels, {"driver": driver, "filename": path, "id": d_id, "result": "delivered"})
            self.assertEqual(value, N)
            self.assertEqual(one(d_id, "syslogng_output_events_total", result="dropped")[1], 0)
            labels, value = one(d_id, "syslogng_output_event_bytes_total")
            self.assertEqual(labels, {"driver": driver, "filename": path, "id": d_id})
            # the bytes in the file, counted after each write
            self.assertEqual(value, os.path.getsize(path))

        # structured-event() as http(): driver label first, then what identifies the target
        labels, value = one("d_http#0", "syslogng_output_events_total", result="delivered")
        self.assertEqual(labels, {"driver": "http", "url": "http://127.0.0.1:%d/" % self.server.server_address[1],
                                  "id": "d_http#0", "result": "delivered"})
        labels, value = one("d_se#0", "syslogng_output_events_total", result="delivered")
        self.assertEqual(labels, {"driver": "structured-event", "sink": "journal-export",
                                  "path": w + "/se.export", "id": "d_se#0", "result": "delivered"})
        self.assertEqual(value, N)
        self.assertEqual(one("d_se#0", "syslogng_output_event_bytes_total")[1], os.path.getsize(w + "/se.export"))
        self.assertEqual(one("d_se#0", "syslogng_output_dropped_fields_total")[1], 0)
        self.assertEqual(one("d_se#0", "syslogng_output_memfd_sends_total")[1], 0)

        # every metric a stock threaded destination has, both drivers have (http()'s own left aside)
        http_names = {n for n, l, v in of("d_http#0") if "_http_" not in n}
        self.assertIn("syslogng_output_unreachable", http_names)
        for d_id in ("d_ff#0", "d_se#0"):
            self.assertLessEqual(http_names, {n for n, l, v in of(d_id)}, d_id)
            self.assertEqual(one(d_id, "syslogng_output_unreachable", worker="0")[1], 0)

    def test_seqnum_flags_and_worker_partition_key(self):
        if not fdharness.SYSLOG_NG_4X:
            self.skipTest("flags() and worker-partition-key() of threaded destinations are syslog-ng 4.x options")
        w = self.workdir()
        config = """
source s { unix-stream("%(w)s/in.sock" so-passcred(no)); };
destination d_default { fast-file("%(w)s/default.log" template("${SEQNUM}\\n")); };
destination d_no { fast-file("%(w)s/no.log" template("${SEQNUM}\\n") flags(no-seqnum)); };
destination d_se { structured-event(sink(journal-export) path("%(w)s/se.export") flags(no-seqnum)
                   value-pairs(scope(none) pair("SEQ", "${SEQNUM}"))); };
destination d_part { fast-file("%(w)s/part-${PROGRAM}.log" template("${PROGRAM} ${MSG}\\n")
                     workers(2) worker-partition-key("${PROGRAM}") batch-lines(1)); };
log { source(s); destination(d_default); destination(d_no); destination(d_se); destination(d_part); };
""" % {"w": w}
        with fdharness.SyslogNg(config, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), [line(i, "p%d" % (i % 4)) for i in range(N)])
            self.assertTrue(fdharness.wait_until(
                lambda: all(sng.stat("dst.", d, "written") == N for d in ("d_default", "d_no", "d_se", "d_part")),
                30), sng.stats())
        with open(w + "/default.log") as f:
            self.assertEqual([int(x) for x in f.read().split()], list(range(1, N + 1)))
        # no-seqnum: no sequence number for any message, as on stock threaded destinations
        with open(w + "/no.log") as f:
            self.assertEqual(set(f.read().split("\n")[:-1]), {""})
        with open(w + "/se.export", "rb") as f:
            self.assertEqual(f.read().count(b"\nSEQ=\n"), N)
        # one partition per program: each file in the order sent
        for p in range(4):
            with open(w + "/part-p%d.log" % p) as f:
                self.assertEqual(f.read(), "".join("p%d message %d\n" % (p, i) for i in range(p, N, 4)))


if __name__ == "__main__":
    fdharness.main()
