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

"""A private journald namespace instance for the structured-event() tests.

journald runs by hand as `systemd-journald NS` (no systemd needed as PID 1),
with /etc/systemd/journald@NS.conf setting Storage=volatile and no rate
limit; it listens on /run/systemd/journal.NS/socket and is read back with
`journalctl --namespace=NS -o json -a`.  An idle instance exits after a
while, so every test starts its own."""

import glob
import json
import os
import shutil
import signal
import subprocess
import time

import fdharness

JOURNALD = "/lib/systemd/systemd-journald"
_counter = [0]


def available():
    return os.path.exists(JOURNALD) and shutil.which("journalctl") is not None and fdharness.is_root()


class Journald:
    def __init__(self, name=None):
        _counter[0] += 1
        self.name = name or "fdse%d_%d" % (os.getpid(), _counter[0])
        self.conf = "/etc/systemd/journald@%s.conf" % self.name
        self.socket = "/run/systemd/journal.%s/socket" % self.name
        self.proc = None
        with open(self.conf, "w") as f:
            f.write("[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\n")

    def start(self):
        self.proc = subprocess.Popen([JOURNALD, self.name], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not fdharness.wait_until(lambda: os.path.exists(self.socket) or self.proc.poll() is not None, 20):
            raise RuntimeError("journald %s did not create %s" % (self.name, self.socket))
        if self.proc.poll() is not None:
            raise RuntimeError("journald %s exited with %d" % (self.name, self.proc.returncode))
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        # a stale socket would make clients think journald is there
        if os.path.exists(self.socket):
            os.unlink(self.socket)

    def cleanup(self):
        self.stop()
        for path in glob.glob("/run/log/journal/*.%s" % self.name):
            shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree("/run/systemd/journal.%s" % self.name, ignore_errors=True)
        if os.path.exists(self.conf):
            os.unlink(self.conf)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()

    def entries(self, identifier=None):
        """All entries as dicts (journalctl -o json -a), optionally only those
        with SYSLOG_IDENTIFIER == identifier."""
        r = subprocess.run(["journalctl", "--namespace=" + self.name, "-o", "json", "-a", "--no-pager"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = []
        for line in r.stdout.decode("utf-8").splitlines():
            if not line.strip():
                continue
            e = json.loads(line)
            if identifier is None or e.get("SYSLOG_IDENTIFIER") == identifier:
                out.append(e)
        return out

    def wait_entries(self, identifier, n, timeout=30):
        got = []

        def enough():
            got[:] = self.entries(identifier)
            return len(got) >= n
        fdharness.wait_until(enough, timeout, 0.2)
        return got


def field_bytes(entry, name):
    """A field's value as bytes: journalctl -o json prints values that are not
    printable UTF-8 as arrays of byte values."""
    v = entry[name]
    if isinstance(v, list):
        return bytes(v)
    return v.encode("utf-8")


def user_fields(entry):
    """The fields a client sent (journald's own start with '_')."""
    return {k: v for k, v in entry.items() if not k.startswith("_")}
