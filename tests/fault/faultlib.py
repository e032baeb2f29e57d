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

"""Helpers of the fault suite (tests/fault/): the result row, a fast chunked
sender, a Journal Export Format decoder, fd sampling.  The syslog-ng runner,
the journald instance and the seq= line fixtures are the functional tests'
(tests/functional/fdharness.py, se_journald.py, test_fastfile_faults.py)."""

import os
import socket
import struct
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTIONAL = os.path.join(HERE, "..", "functional")
if FUNCTIONAL not in sys.path:
    sys.path.insert(0, FUNCTIONAL)

import fdharness  # noqa: E402,F401
from test_fastfile_faults import seq_lines, read_seqs  # noqa: E402,F401


class Row:
    """One line of the fault table.

    written:  distinct messages found at the destination (files read back,
              journal entries read with journalctl), not the stats counter
    dropped:  syslog-ng-ctl stats' dropped counter of the destination
    lost = sent - written - dropped: must be 0
    allow_drops: the case may drop (then dropped must equal what is missing)
    max_dup: duplicates the case's guarantee allows (the last unacked batch
             after kill -9), else 0
    limit:   a known limit, not a guarantee (printed in the second table):
             only such a row may lose up to max_lost; a row of the main
             table fails on any loss or torn record"""

    def __init__(self, driver, case):
        self.driver = driver
        self.case = case
        self.sent = 0
        self.written = 0
        self.dropped = 0
        self.duplicated = 0
        self.torn = 0
        self.allow_drops = False
        self.max_dup = 0
        self.max_lost = 0       # only for a documented limit (noted in the row)
        self.limit = False
        self.note = ""
        self.problems = []      # violated checks specific to the case
        self.skipped = None     # reason
        self.seconds = 0.0

    @property
    def lost(self):
        return self.sent - self.written - self.dropped

    def check(self, condition, text):
        if not condition:
            self.problems.append(text)
        return condition

    def violations(self):
        if self.skipped:
            return []
        v = list(self.problems)
        if self.lost < 0 or self.lost > (self.max_lost if self.limit else 0):
            v.append("lost %d" % self.lost)
        if self.torn:
            v.append("torn %d" % self.torn)
        if self.duplicated > self.max_dup:
            v.append("duplicated %d > allowed %d" % (self.duplicated, self.max_dup))
        if self.dropped and not self.allow_drops:
            v.append("dropped %d, case allows none" % self.dropped)
        return v


LIMITS_TITLE = "Known limits (not guarantees)"


def format_table(rows):
    """The guarantee table (every row 0 lost / 0 torn or FAIL), then the
    known-limit rows in a second table under it."""
    main = _format_rows([r for r in rows if not r.limit])
    limits = [r for r in rows if r.limit]
    if not limits:
        return main
    return main + "\n\n" + LIMITS_TITLE + ":\n\n" + _format_rows(limits)


def _format_rows(rows):
    head = ["driver", "fault or hostile input", "sent", "written", "dropped", "duplicated", "torn",
            "lost", "result", "notes"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for r in rows:
        if r.skipped:
            cells = [r.driver, r.case, "", "", "", "", "", "", "SKIPPED", r.skipped]
        else:
            v = r.violations()
            cells = [r.driver, r.case, str(r.sent), str(r.written), str(r.dropped), str(r.duplicated),
                     str(r.torn), str(r.lost), "FAIL" if v else "ok",
                     "; ".join(([("VIOLATION: " + ", ".join(v))] if v else []) + ([r.note] if r.note else []))]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out)


def send_chunked(path, lines, chunk=256 * 1024):
    """Send lines (bytes, '\\n' added where missing) over one unix-stream
    connection in large writes: a million lines in a few seconds."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        buf = []
        size = 0
        for line in lines:
            if not line.endswith(b"\n"):
                line += b"\n"
            buf.append(line)
            size += len(line)
            if size >= chunk:
                s.sendall(b"".join(buf))
                buf, size = [], 0
        if buf:
            s.sendall(b"".join(buf))
        s.shutdown(socket.SHUT_WR)


def start_thread(target, *args):
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


def parse_export(data):
    """Decode Journal Export Format (systemd's JOURNAL_EXPORT_FORMATS): a list
    of entries, each a list of (name bytes, value bytes) in order.  Text
    fields are NAME=value\\n, binary fields NAME\\n<le64 length><bytes>\\n, an
    empty line ends an entry.  Raises ValueError on anything else."""
    entries, fields, i, n = [], [], 0, len(data)
    while i < n:
        if data[i:i + 1] == b"\n":
            if fields:
                entries.append(fields)
            fields = []
            i += 1
            continue
        nl = data.find(b"\n", i)
        if nl < 0:
            raise ValueError("truncated field at offset %d" % i)
        line = data[i:nl]
        eq = line.find(b"=")
        if eq >= 0:
            fields.append((line[:eq], line[eq + 1:]))
            i = nl + 1
        else:
            if nl + 9 > n:
                raise ValueError("truncated binary length at offset %d" % i)
            (length,) = struct.unpack("<Q", data[nl + 1:nl + 9])
            start = nl + 9
            if start + length + 1 > n or data[start + length:start + length + 1] != b"\n":
                raise ValueError("bad binary field %r at offset %d" % (line[:40], i))
            fields.append((line, data[start:start + length]))
            i = start + length + 1
    if fields:
        raise ValueError("last entry has no terminating empty line (torn)")
    return entries


def walk(top):
    """Every path under top (dirs and files, symlinks not followed)."""
    out = set()
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            out.add(os.path.join(root, name))
    return out
