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

"""One functional scenario per driver with the stock syslog-ng under valgrind
(memcheck): no invalid access and no definite leak.  syslog-ng's own
start-up leaks are suppressed by tests/valgrind.supp, whose entries match
only syslog-ng/GLib frames next to the allocation, so a leak or invalid
access in our modules still fails.  Run by `tests/run --valgrind`."""

import os
import re
import shlex
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import faultlib  # noqa: E402
from faultlib import fdharness, seq_lines, read_seqs, send_chunked  # noqa: E402
import se_journald  # noqa: E402

SUPP = os.path.join(HERE, "..", "valgrind.supp")
OUR_OBJECTS = ("libfastfile.so", "libstructured-event.so")


class ValgrindCase(fdharness.TestCase):
    def setUp(self):
        if not os.path.exists("/usr/bin/valgrind"):
            self.skipTest("valgrind not installed")
        self.w = self.workdir()
        self.vlog = os.path.join(self.w, "valgrind.%p.log")
        wrapper = ["valgrind", "--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite",
                   "--show-leak-kinds=definite", "--num-callers=40", "--suppressions=" + os.path.abspath(SUPP),
                   "--gen-suppressions=all", "--log-file=" + self.vlog]
        self._saved = os.environ.get("FASTDEST_SYSLOG_NG_WRAPPER")
        os.environ["FASTDEST_SYSLOG_NG_WRAPPER"] = " ".join(shlex.quote(x) for x in wrapper)
        os.environ.setdefault("FASTDEST_START_TIMEOUT", "180")

    def tearDown(self):
        if self._saved is None:
            os.environ.pop("FASTDEST_SYSLOG_NG_WRAPPER", None)
        else:
            os.environ["FASTDEST_SYSLOG_NG_WRAPPER"] = self._saved

    def valgrind_report(self):
        text = ""
        for name in sorted(os.listdir(self.w)):
            if name.startswith("valgrind.") and name.endswith(".log"):
                with open(os.path.join(self.w, name), errors="replace") as f:
                    text += f.read()
        return text

    def assert_clean(self, sng):
        rc = sng.stop(timeout=120)
        report = self.valgrind_report()
        summary = re.findall(r"ERROR SUMMARY: (\d+) errors", report)
        ours = [b for b in report.split("\n==") if any(o in b for o in OUR_OBJECTS)]
        sys.stderr.write("valgrind: exit %s, %s\n" % (rc, "; ".join(re.findall(r"ERROR SUMMARY: .*", report))))
        self.assertTrue(summary, "no valgrind summary:\n" + report[-3000:])
        self.assertEqual((rc, summary[-1]), (0, "0"), "valgrind found errors (frames in our modules: %d):\n%s"
                         % (len(ours), report[-12000:]))


class TestFastFileUnderValgrind(ValgrindCase):
    def test_templated_names_encoding_reopen_reload(self):
        w = self.w
        cfg = """
options { stats-level(1); keep-hostname(yes); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname) log-iw-size(5000)); };
destination d_fast { fast-file("%(w)s/out/${HOST}.log" template("${HOST} ${MSG}\\n") create-dirs(yes)
                     max-open-files(4) encoding("UTF-16LE") line-ending(crlf) bom(yes) batch-lines(50)); };
destination d_single { fast-file("%(w)s/single.log" template("${MSG}\\n")); };
destination d_spurious { fast-file("%(w)s/out/${PROGRAM}/x.log" create-dirs(yes)); };
# file()'s writer options (issue 17): the lines the destination writes itself, reshaped records, symlinks
destination d_opts { fast-file("%(w)s/opts/${HOST}.log" create-dirs(yes) max-open-files(4)
                     suppress(30) mark-mode(periodical) mark-freq(1) flags(syslog-protocol, no-multi-line)
                     truncate-size(100) pad-size(90) symlink-as("%(w)s/opts-current") overwrite-if-older(3600)); };
# issue 16: rotation and both codecs, a BOM member, a torn unit cut at the first open
destination d_zstd { fast-file("%(w)s/z/${HOST}.log.zst" create-dirs(yes) max-open-files(4) compression(zstd)
                     logrotate(enable(yes) size(2048) rotations(3))); };
destination d_gzip { fast-file("%(w)s/torn.log.gz" compression(gzip) compression-level(1) bom(yes)
                     encoding("UTF-16LE") logrotate(enable(yes) size(8192) rotations(100))); };
log { source(s_in); destination(d_fast); destination(d_single); destination(d_spurious); destination(d_opts);
      destination(d_zstd); destination(d_gzip); flags(flow-control); };
""" % {"w": w}
        # a gzip member cut short, as a crash mid-write leaves it
        import gzip
        with open(os.path.join(w, "torn.log.gz"), "wb") as f:
            f.write(gzip.compress(b"whole\n"))
            f.write(gzip.compress(b"cut short " * 100)[:-6])
        n = 2000
        lines = [b"<13>Nov 30 05:00:00 h%02d %s[1]: seq=%08d \xc3\xa9 x"
                 % (i % 12, b".." if i % 100 == 0 else b"prog", i) for i in range(n)]
        # repeats for suppress(), one file each
        lines[10:10] = [lines[9]] * 20
        sng = fdharness.SyslogNg(cfg, workdir=w)
        sng.start()
        try:
            send_chunked(os.path.join(w, "in.sock"), lines[:n // 2])
            self.assertTrue(fdharness.wait_until(lambda: (sng.stat("dst.", "d_single", "written") or 0) >= n // 2, 120))
            sng.reopen()
            sng.reload()
            send_chunked(os.path.join(w, "in.sock"), lines[n // 2:])
            self.assertTrue(fdharness.wait_until(lambda: (sng.stat("dst.", "d_single", "written") or 0) >= n, 120))
            self.assertTrue(fdharness.wait_until(lambda: (sng.stat("dst.", "d_fast", "written") or 0) >= n // 2, 60))
        finally:
            self.assert_clean(sng)
        seqs, torn = read_seqs(w + "/single.log")
        self.assertEqual((len(set(seqs)), torn), (n, []))
        # the compressed, rotated files read whole with the stock readers; the torn member was cut
        import subprocess
        zst = [os.path.join(w, "z", name) for name in os.listdir(os.path.join(w, "z"))]
        self.assertGreater(len(zst), 12, "the zstd files did not rotate")
        for path in zst:
            subprocess.run(["zstdcat", "-q", path], stdout=subprocess.DEVNULL, check=True)
        chain = sorted((name for name in os.listdir(w) if name.startswith("torn.log.gz.")),
                       key=lambda name: -int(name.rsplit(".", 1)[1])) + ["torn.log.gz"]
        self.assertGreater(len(chain), 1, "the gzip file did not rotate")
        texts = [subprocess.run(["zcat", os.path.join(w, name)], stdout=subprocess.PIPE, check=True).stdout
                 for name in chain]
        # the oldest: the whole member, then records; every later file: a BOM member first
        self.assertTrue(texts[0].startswith(b"whole\n") and b"cut short" not in texts[0], texts[0][:40])
        self.assertTrue(all(t.startswith(b"\xff\xfe") for t in texts[1:]))


class TestStructuredEventUnderValgrind(ValgrindCase):
    def test_journald_and_export(self):
        w = self.w
        jd = None
        target = ""
        if se_journald.available():
            jd = se_journald.Journald()
            self.addCleanup(jd.cleanup)
            jd.start()
            target = """
destination d_jd { structured-event(namespace("%s") message-id("${kv.rule}") max-fields(20)
                   value-pairs(scope(nv-pairs) exclude("HOST*") exclude("SOURCE"))); };
log { source(s); parser(p); destination(d_jd); };""" % jd.name
        cfg = """
options { stats_level(1); };
source s { unix-stream("%(w)s/in.sock" so-passcred(no) log-msg-size(400000)); };
parser p { kv-parser(prefix("kv.")); };
destination d_exp { structured-event(sink(journal-export) path("%(w)s/${PROGRAM}.export") batch-lines(20)
                    value-pairs(scope(nv-pairs) exclude("HOST*") exclude("SOURCE"))); };
log { source(s); parser(p); destination(d_exp); };
%(target)s
""" % {"w": w, "target": target}
        n = 600
        lines = []
        for i in range(n):
            extra = b" " + b" ".join(b"f%d=v%d" % (k, k) for k in range(30)) if i % 50 == 0 else b""
            big = b" big=" + b"B" * 300000 if i == 7 else b""
            lines.append(b"<13>Nov 30 05:00:00 app%d[%d]: seq=%d rule=r%d bin=a\xffb%s%s"
                         % (i % 3, i, i, i % 5, extra, big))
        sng = fdharness.SyslogNg(cfg, workdir=w)
        sng.start()
        try:
            send_chunked(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(
                lambda: (sng.stat("dst.structured-event", "d_exp", "written") or 0) >= n, 180), sng.stats())
            if jd:
                self.assertTrue(fdharness.wait_until(
                    lambda: (sng.stat("dst.structured-event", "d_jd", "written") or 0) >= n, 180))
            sng.reload()
        finally:
            self.assert_clean(sng)
        total = 0
        for k in range(3):
            with open(os.path.join(w, "app%d.export" % k), "rb") as f:
                total += len(faultlib.parse_export(f.read()))
        self.assertEqual(total, n)
        if jd:
            self.assertEqual(len(jd.wait_entries("app0", n // 3 + (n % 3 > 0))), n // 3 + (n % 3 > 0))

    def test_https_export(self):
        """url("https://...") into journal-remote --listen-https (a CA made by openssl): libcurl and
        OpenSSL in the worker, a reload in the middle"""
        from test_structured_event_https import Pki, OPENSSL, start_remote_https, free_port, read_journal, REMOTE
        if not OPENSSL or not os.path.exists(REMOTE):
            self.skipTest("openssl or systemd-journal-remote not installed")
        w = self.w
        pki = Pki()
        self.addCleanup(pki.cleanup)
        port = free_port()
        out = os.path.join(w, "remote.journal")
        remote = start_remote_https(self, port, out, pki.server)
        cfg = """
options { stats_level(1); };
source s { unix-stream("%(w)s/in.sock" so-passcred(no)); };
parser p { kv-parser(prefix("kv.")); };
destination d_https { structured-event(sink(journal-export) url("https://127.0.0.1:%(port)d")
                      tls(ca-file("%(ca)s")) batch-lines(20) timeout(60)
                      value-pairs(scope(nv-pairs) exclude("HOST*") exclude("SOURCE"))); };
log { source(s); parser(p); destination(d_https); };
""" % {"w": w, "port": port, "ca": pki.ca}
        n = 300
        lines = [b"<13>Nov 30 05:00:00 app[%d]: seq=%d bin=a\xffb" % (i, i) for i in range(n)]
        sng = fdharness.SyslogNg(cfg, workdir=w)
        sng.start()
        try:
            send_chunked(os.path.join(w, "in.sock"), lines[:n // 2])
            self.assertTrue(fdharness.wait_until(
                lambda: (sng.stat("dst.structured-event", "d_https", "written") or 0) >= n // 2, 180), sng.stats())
            sng.reload()
            send_chunked(os.path.join(w, "in.sock"), lines[n // 2:])
            # acknowledged means stored: journal-remote's file holds them all
            self.assertTrue(fdharness.wait_until(lambda: len(read_journal(out)) >= n, 180, 0.5), sng.stats())
        finally:
            self.assert_clean(sng)
        remote.send_signal(signal.SIGTERM)
        remote.wait(20)
        self.assertEqual(sorted({int(e["KV_SEQ"]) for e in read_journal(out)}), list(range(n)))


if __name__ == "__main__":
    fdharness.main()
