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
"""Every example config in packaging/examples/ passes `syslog-ng -s` and does
what its comments say in a short real run, so the shipped examples never rot.

The examples keep their environment-specific paths in `@define` lines; the
tests point those at a private work directory and run the rest as written."""

import glob
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402
import se_journald  # noqa: E402

SRCDIR = os.environ.get("FASTDEST_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLES = os.path.join(SRCDIR, "packaging", "examples")
REMOTE = "/lib/systemd/systemd-journal-remote"
DEFINE_RE = re.compile(r'^@define\s+(\S+)\s+"([^"]*)"', re.M)

# the examples each test runs; test_every_example_is_run fails on a new one nobody runs
RUN_BY_TESTS = {"quickstart.conf", "logrotate.conf", "windows-utf16.conf", "journald.conf",
                "journal-remote.conf", "size-rotation.conf"}


def example(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read()


def with_defines(text, values):
    """text with each `@define NAME "..."` set to values[NAME]; every define
    must be given a value and every value must match a define."""
    found = set(DEFINE_RE.findall(text) and [m[0] for m in DEFINE_RE.findall(text)])
    if found != set(values):
        raise AssertionError("example defines %s, test sets %s" % (sorted(found), sorted(values)))
    return DEFINE_RE.sub(lambda m: '@define %s "%s"' % (m.group(1), values[m.group(1)]), text)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local(program, pid, msg):
    """A message as syslog(3) sends it to a local socket: no hostname."""
    return ("<14>Nov 30 12:00:00 %s[%d]: %s" % (program, pid, msg)).encode("utf-8")


class TestExamples(fdharness.TestCase):
    def test_every_example_is_run(self):
        shipped = {os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.conf"))}
        self.assertEqual(shipped, RUN_BY_TESTS)

    def test_syntax_of_every_example(self):
        w = self.workdir()
        os.environ["FASTDEST_EXAMPLE_DIR"] = w
        for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.conf"))):
            text = example(os.path.basename(path))
            # paths into the work dir; other values (hosts, ports) as shipped
            values = {name: os.path.join(w, name) if value.startswith("/") else value
                      for name, value in DEFINE_RE.findall(text)}
            rc, out = fdharness.check_config(with_defines(text, values) if values else text)
            self.assertEqual(rc, 0, "%s: %s" % (path, out))

    def test_quickstart_fast_equals_stock(self):
        w = self.workdir()
        os.environ["FASTDEST_EXAMPLE_DIR"] = w
        with open(os.path.join(EXAMPLES, "sample-messages.txt"), "rb") as f:
            lines = [l for l in f.read().splitlines() if l]
        with fdharness.SyslogNg(example("quickstart.conf"), workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "log.sock"), lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_fast", "written") == len(lines), 30), sng.stats())
        fast = sorted(os.listdir(os.path.join(w, "fast")))
        self.assertEqual(fast, sorted(os.listdir(os.path.join(w, "stock"))))
        self.assertIn("sshd.log", fast)
        for name in fast:
            with open(os.path.join(w, "fast", name), "rb") as a, open(os.path.join(w, "stock", name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

    def test_logrotate_with_reopen(self):
        if not shutil.which("logrotate"):
            self.skipTest("logrotate not installed")
        w = self.workdir()
        logdir, sock = os.path.join(w, "log"), os.path.join(w, "in.sock")
        cfg = with_defines(example("logrotate.conf"), {"logdir": logdir, "input": sock})
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(sock, [local("app", 1, "before %d" % i) for i in range(100)])
            app = os.path.join(logdir, "app.log")
            self.assertTrue(fdharness.wait_for_lines(app, 100))
            self.assertEqual(oct(os.stat(logdir).st_mode & 0o777), "0o750")
            self.assertEqual(oct(os.stat(app).st_mode & 0o777), "0o640")
            # the shipped logrotate file, pointed at this log dir and this syslog-ng
            with open(os.path.join(EXAMPLES, "fastdest.logrotate")) as f:
                rot = f.read()
            self.assertIn("/usr/sbin/syslog-ng-ctl reopen", rot)
            rot = rot.replace("/var/log/fastdest/", logdir + "/").replace(
                "syslog-ng-ctl reopen", "syslog-ng-ctl reopen -c " + sng.ctl_path)
            rot_conf = os.path.join(w, "logrotate.conf")
            with open(rot_conf, "w") as f:
                f.write(rot)
            os.chmod(rot_conf, 0o644)
            subprocess.run(["logrotate", "-f", "-s", os.path.join(w, "logrotate.state"), rot_conf], check=True)
            self.assertTrue(os.path.exists(app + ".1"), os.listdir(logdir))
            fdharness.send_lines(sock, [local("app", 1, "after %d" % i) for i in range(50)])
            self.assertTrue(fdharness.wait_for_lines(app, 50), os.listdir(logdir))
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_app", "written") == 150, 30), sng.stats())
        with open(app + ".1", "rb") as f:
            old = f.read().splitlines()
        with open(app, "rb") as f:
            new = f.read().splitlines()
        self.assertEqual([l.split(b": ", 1)[1] for l in old], [b"before %d" % i for i in range(100)])
        self.assertEqual([l.split(b": ", 1)[1] for l in new], [b"after %d" % i for i in range(50)])

    def test_windows_utf16_crlf_bom(self):
        w = self.workdir()
        logdir, sock = os.path.join(w, "log"), os.path.join(w, "in.sock")
        cfg = with_defines(example("windows-utf16.conf"), {"logdir": logdir, "input": sock})
        msgs = ["plain ascii", "caf\u00e9 \u2603 \U0001f600"]
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(sock, [local("svc", 7, m) for m in msgs])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_windows", "written") == 2, 30), sng.stats())
        with open(os.path.join(logdir, "windows", "svc.log"), "rb") as f:
            data = f.read()
        self.assertEqual(data[:2], b"\xff\xfe")   # UTF-16LE byte order mark, once
        text = data[2:].decode("utf-16-le")
        self.assertNotIn("\ufeff", text)
        lines = text.split("\r\n")
        self.assertEqual(lines[-1], "")
        self.assertEqual(len(lines), 3)
        for line, m in zip(lines, msgs):
            self.assertTrue(line.endswith(" svc[7]: " + m), line)
            self.assertNotIn("\n", line)

    def test_size_rotation(self):
        w = self.workdir()
        logdir, sock = os.path.join(w, "log"), os.path.join(w, "in.sock")
        # the example as shipped, with a size small enough to rotate in a short run
        text = example("size-rotation.conf")
        self.assertIn("size(100MiB)", text)
        cfg = with_defines(text.replace("size(100MiB)", "size(4KiB)"), {"logdir": logdir, "input": sock})
        # compressed ~10:1 at most: enough to fill eight files of 4 KiB
        msgs = ["message %04d %s" % (i, os.urandom(24).hex()) for i in range(1500)]
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(sock, [local("svc", 7, m) for m in msgs])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_rotated", "written") == 1500, 30), sng.stats())
        base = os.path.join(logdir, "rotated", "svc.log.zst")
        names = ["%s.%d" % (base, i) for i in range(7, 0, -1)] + [base]
        self.assertFalse(os.path.exists(base + ".8"))
        got = []
        for name in names:
            self.assertLessEqual(os.path.getsize(name), 4096, name)
            # the stock reader, as a user would
            data = subprocess.run(["zstdcat", name], stdout=subprocess.PIPE, check=True).stdout
            self.assertTrue(data.endswith(b"\n"), name)
            got += data.decode().splitlines()
        # the oldest files were deleted: the newest lines remain, whole and in order
        self.assertEqual([line.split(": ", 1)[1] for line in got], msgs[len(msgs) - len(got):])
        self.assertEqual(got[-1].split(": ", 1)[1], msgs[-1])

    @fdharness.skip_unless_root
    def test_journald_field_query(self):
        if not se_journald.available():
            self.skipTest("systemd-journald / journalctl not available")
        jd = se_journald.Journald()
        self.addCleanup(jd.cleanup)
        jd.start()
        w = self.workdir()
        sock = os.path.join(w, "in.sock")
        cfg = with_defines(example("journald.conf"), {"input": sock, "journal": jd.socket})
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(sock, [local("shop", 5, "user=alice action=login result=ok"),
                                        local("shop", 5, "user=bob action=logout result=ok")])
            self.assertEqual(len(jd.wait_entries("shop", 2)), 2)
            self.assertEqual(sng.stat("dst.structured-event", "d_journal", "written"), 2)
        # the query the example's comment promises
        r = subprocess.run(["journalctl", "--namespace=" + jd.name, "-o", "json", "-a", "--no-pager",
                            "APP_USER=alice"], stdout=subprocess.PIPE, check=True)
        entries = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
        self.assertEqual(len(entries), 1, entries)
        e = entries[0]
        self.assertEqual((e["APP_ACTION"], e["APP_RESULT"]), ("login", "ok"))
        self.assertEqual(e["MESSAGE"], "user=alice action=login result=ok")
        self.assertEqual(e["MESSAGE_ID"], hashlib.sha256(b"shop-login").hexdigest()[:32])
        self.assertNotIn("APP_HOST", e)

    def test_relay_to_journal_remote(self):
        if not os.path.exists(REMOTE):
            self.skipTest("systemd-journal-remote not installed")
        w = self.workdir()
        port = free_port()
        out = os.path.join(w, "remote.journal")
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
        sock, logdir = os.path.join(w, "in.sock"), os.path.join(w, "log")
        os.mkdir(logdir)   # path() does not create directories
        cfg = with_defines(example("journal-remote.conf"), {
            "input": sock, "collector": "127.0.0.1", "collector_port": str(port), "logdir": logdir})
        hosts = ["web1", "db1"]
        lines = [("<14>1 2026-11-30T12:00:%02d.000001Z %s app 9 - - hello %d" % (i, hosts[i % 2], i)).encode()
                 for i in range(20)]
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_remote", "written") == 20
                and sng.stat("dst.structured-event", "d_archive", "written") == 20, 30), sng.stats())
        time.sleep(0.5)
        remote.send_signal(signal.SIGTERM)
        remote.wait(20)
        r = subprocess.run(["journalctl", "--file=" + out, "-o", "json", "-a", "--no-pager", "_HOSTNAME=web1"],
                           stdout=subprocess.PIPE, check=True)
        web1 = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
        self.assertEqual(sorted(e["MESSAGE"] for e in web1), sorted("hello %d" % i for i in range(0, 20, 2)))
        for e in web1:
            sec = int(e["MESSAGE"].split()[1])
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), int(time.mktime(
                time.strptime("2026-11-30 12:00:%02d" % sec, "%Y-%m-%d %H:%M:%S")) - time.timezone) * 1000000 + 1)
        self.assertEqual(sorted(os.listdir(logdir)), ["db1.export", "web1.export"])


if __name__ == "__main__":
    fdharness.main()
