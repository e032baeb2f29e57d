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
"""structured-event(sink(journal-export)): files and TCP read by systemd-journal-remote."""

import glob
import json
import os
import signal
import socket
import subprocess
import time

import fdharness

REMOTE = "/lib/systemd/systemd-journal-remote"

CONFIG = """
options { stats_level(1); };
source s { unix-stream("%(sock)s" flags(syslog-protocol) keep-hostname(yes) so-passcred(no)); };
parser p_kv { kv-parser(prefix("kv.")); };
destination d_exp { structured-event(sink(journal-export) %(target)s
                    value-pairs(scope(nv-pairs) exclude("HOST*") exclude("SOURCE") exclude("LEGACY_MSGHDR") exclude("MSGID"))); };
log { source(s); parser(p_kv); destination(d_exp); };
"""


def rfc5424(host, ts_usec, seq, extra=b""):
    secs, usec = divmod(ts_usec, 1000000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%06dZ" % usec
    return ("<13>1 %s %s app 99 - - seq=%d " % (stamp, host, seq)).encode() + extra


def read_journal(path):
    r = subprocess.run(["journalctl", "--file=" + path, "-o", "json", "-a", "--no-pager"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return [json.loads(line) for line in r.stdout.decode().splitlines() if line.strip()]


def field_bytes(entry, name):
    v = entry[name]
    return bytes(v) if isinstance(v, list) else v.encode("utf-8")


BASE_USEC = 1700000000123456
BINARY = b"\xff\xfe\x01bin"


class TestExport(fdharness.TestCase):
    def setUp(self):
        if not os.path.exists(REMOTE):
            self.skipTest("systemd-journal-remote not installed")

    def check_entries(self, entries, hosts, n):
        self.assertEqual(len(entries), n * len(hosts))
        seen = set()
        for e in entries:
            seq = int(e["KV_SEQ"])
            host = e["_HOSTNAME"]
            self.assertIn(host, hosts)
            seen.add((host, seq))
            # the message's own time, not the time it was written
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), BASE_USEC + seq)
            self.assertEqual(field_bytes(e, "KV_BIN"), BINARY)
            self.assertEqual(e["SYSLOG_IDENTIFIER"], "app")
            self.assertEqual(e["PRIORITY"], "5")
        self.assertEqual(len(seen), n * len(hosts))

    def test_files_into_journal_remote_stdin(self):
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        n = 500
        hosts = ["hosta", "hostb"]
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": 'path("%s/${HOST}.export")' % wd}, workdir=wd)
        with sng:
            lines = [rfc5424(hosts[i % 2], BASE_USEC + i // 2, i // 2, b"bin=" + BINARY) for i in range(2 * n)]
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 2 * n, 30),
                sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
        for host in hosts:
            out = os.path.join(wd, "%s.journal" % host)
            with open(os.path.join(wd, "%s.export" % host), "rb") as f:
                subprocess.run([REMOTE, "--output=" + out, "-"], stdin=f, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.check_entries(read_journal(out), [host], n)

    def test_tcp_into_journal_remote_listen_raw(self):
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        out = os.path.join(wd, "remote.journal")
        remote = subprocess.Popen([REMOTE, "--listen-raw=127.0.0.1:%d" % port, "--split-mode=none",
                                   "--output=" + out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: remote.poll() is None and remote.kill())

        def listening():
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return True
            except OSError:
                return False
        self.assertTrue(fdharness.wait_until(listening, 10))

        n = 1000
        hosts = ["hostc", "hostd"]
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": 'host("127.0.0.1") port(%d)' % port},
                                 workdir=wd)
        with sng:
            lines = [rfc5424(hosts[i % 2], BASE_USEC + i // 2, i // 2, b"bin=" + BINARY) for i in range(2 * n)]
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 2 * n, 30), sng.stats())
        time.sleep(0.5)
        remote.send_signal(signal.SIGTERM)
        remote.wait(20)
        self.check_entries(read_journal(out), hosts, n)


if __name__ == "__main__":
    fdharness.main()
