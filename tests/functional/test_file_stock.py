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

"""Proves the harness on syslog-ng's own file() destination: the baseline every
fastdest driver test follows."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402
from fdharness import SyslogNg, SyslogNgStartError, check_config, loggen, send_lines  # noqa: E402

N = 10000


def file_config(w, dest_options="", stats_level=1):
    # per-file dst.file counters exist from stats-level(1) on; at 0 only the
    # "destination;d_out;;a;processed" one
    return """
options {{ stats-level({level}); }};
source s_in {{ unix-stream("{w}/in.sock" so-passcred(no) flags(ignore-aux-data)); }};
destination d_out {{ file("{w}/out.log" {opts}); }};
log {{ source(s_in); destination(d_out); }};
""".format(w=w, opts=dest_options, level=stats_level)


class TestStockFile(fdharness.TestCase):

    def test_loggen_messages_all_written_and_counted(self):
        w = self.workdir()
        out = os.path.join(w, "out.log")
        with SyslogNg(file_config(w), workdir=w) as sng:
            loggen(os.path.join(w, "in.sock"), N, size=200)
            self.assertTrue(fdharness.wait_for_lines(out, N, timeout=60),
                            "only %d of %d lines arrived" % (fdharness.count_lines(out), N))
            self.assertEqual(sng.stat("dst.file", "d_out", "processed"), N)
            self.assertEqual(sng.stat("dst.file", "d_out", "written"), N)
            self.assertEqual(sng.stat("dst.file", "d_out", "dropped"), 0)
            self.assertEqual(sng.stat("src.unix-stream", "s_in", "processed"), N)
            stats = sng.stats()
            self.assertEqual(stats["destination;d_out;;a;processed"], N)
            self.assertEqual(stats["dst.file;d_out#0;%s;a;written" % out], N)
            self.assertIsNone(sng.stat("dst.file", "no_such_destination", "written"))
            self.assertEqual(sng.stop(), 0)
        self.assertEqual(fdharness.count_lines(out), N)
        # every loggen sequence number exactly once: nothing lost, nothing doubled
        with open(out, "rb") as f:
            seqs = [int(m) for m in re.findall(rb"seq: (\d+),", f.read())]
        self.assertEqual(sorted(seqs), list(range(N)))

    def test_send_lines_exact_bytes(self):
        w = self.workdir()
        out = os.path.join(w, "out.log")
        lines = [b"<13>Nov 30 05:16:28 prog[1]: plain ascii",
                 "<13>Nov 30 05:16:28 prog[1]: h\u00e9llo w\u00f6rld \u2603".encode("utf-8"),
                 b"<13>Nov 30 05:16:28 prog[1]: tab\there"]
        with SyslogNg(file_config(w, 'template("${MSG}\\n")'), workdir=w):
            send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_for_lines(out, len(lines), timeout=30))
        with open(out, "rb") as f:
            self.assertEqual(f.read(),
                             b"plain ascii\n" + "h\u00e9llo w\u00f6rld \u2603\n".encode("utf-8") + b"tab\there\n")

    def test_process_inspection(self):
        w = self.workdir()
        with SyslogNg(file_config(w), workdir=w) as sng:
            self.assertTrue(os.path.exists("/proc/%d" % sng.pid))
            with open(os.path.join(w, "pid")) as f:
                self.assertEqual(int(f.read()), sng.pid)
            self.assertGreater(sng.fd_count(), 2)
            self.assertGreater(sng.rss_kb(), 0)
            self.assertIn("syslog-ng starting up", sng.output())
            self.assertIn("Config reload successful", sng.reload())
            sng.reopen()
            # a broken config is refused and the running one stays
            reply = sng.reload(file_config(w, "no-such-option(yes)"), check=False)
            self.assertIn("previous config remained intact", reply)
            self.assertTrue(sng.running())
            with self.assertRaises(fdharness.SyslogNgError):
                sng.reload()
            send_lines(os.path.join(w, "in.sock"), [b"<13>Nov 30 05:16:28 host prog: after reload"])
            self.assertTrue(fdharness.wait_for_lines(os.path.join(w, "out.log"), 1))
            self.assertEqual(sng.kill9(), -9)
            self.assertFalse(sng.running())

    def test_check_config_names_unknown_option(self):
        w = self.workdir()
        rc, output = check_config(file_config(w, "no-such-option(yes)"))
        self.assertNotEqual(rc, 0, output)
        self.assertIn("no-such-option", output)
        rc, output = check_config(file_config(w))
        self.assertEqual(rc, 0, output)

    def test_start_failure_carries_syslog_ng_error(self):
        w = self.workdir()
        missing = os.path.join(w, "no-such-dir", "in.sock")
        config = file_config(w).replace(os.path.join(w, "in.sock"), missing)
        with self.assertRaises(SyslogNgStartError) as cm:
            SyslogNg(config, workdir=w).start()
        message = str(cm.exception)
        self.assertIn("Error binding socket", message)
        self.assertIn(missing, message)

    def test_start_failure_on_syntax_error(self):
        w = self.workdir()
        with self.assertRaises(SyslogNgStartError) as cm:
            SyslogNg(file_config(w, "no-such-option(yes)"), workdir=w).start()
        self.assertIn("syntax error", str(cm.exception))
        self.assertIn("no-such-option", str(cm.exception))


if __name__ == "__main__":
    fdharness.main()
