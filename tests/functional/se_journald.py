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
while, so every test starts its own.

With hold_socket=True the test owns the native socket, as
systemd-journald@NS.socket does: it binds /run/systemd/journal.NS/socket
itself and hands it to each journald it starts as an inherited fd
(LISTEN_FDS=1, LISTEN_PID: socket activation, fd 3), so datagrams queued
while journald is down wait in the socket for the next instance."""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import fdharness

JOURNALD = "/lib/systemd/systemd-journald"
_counter = [0]


def available():
    return os.path.exists(JOURNALD) and shutil.which("journalctl") is not None and fdharness.is_root()


class Journald:
    def __init__(self, name=None, hold_socket=False):
        _counter[0] += 1
        self.name = name or "fdse%d_%d" % (os.getpid(), _counter[0])
        self.conf = "/etc/systemd/journald@%s.conf" % self.name
        self.socket = "/run/systemd/journal.%s/socket" % self.name
        self.proc = None
        self.held = None
        if hold_socket:
            os.makedirs(os.path.dirname(self.socket), exist_ok=True)
            if os.path.exists(self.socket):
                os.unlink(self.socket)
            self.held = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self.held.bind(self.socket)
            os.chmod(self.socket, 0o666)
        with open(self.conf, "w") as f:
            f.write("[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\n")

    def start(self):
        cmd, fds = [JOURNALD, self.name], ()
        if self.held:
            # sd_listen_fds(): the socket as fd 3, LISTEN_PID = journald's pid (exec keeps bash's)
            fd = self.held.fileno()
            cmd = ["/bin/bash", "-c", ("" if fd == 3 else "exec 3<&%d %d<&-; " % (fd, fd))
                   + 'export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" "$@"'] + cmd
            fds = (fd,)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, pass_fds=fds,
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
        # a stale socket would make clients think journald is there (a held one stays)
        if not self.held and os.path.exists(self.socket):
            os.unlink(self.socket)

    def cleanup(self):
        self.stop()
        if self.held:
            self.held.close()
            self.held = None
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
