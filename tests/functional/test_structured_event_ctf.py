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
"""structured-event(sink(ctf)): CTF traces read back with babeltrace2 and python3-bt2."""

import json
import os
import shutil
import struct
import subprocess
import threading
import time

import fdharness

BABELTRACE = shutil.which("babeltrace2") or "/usr/bin/babeltrace2"
SYSTEM_PYTHON = "/usr/bin/python3"

CONFIG = """
options { stats_level(1); keep_hostname(yes); };
source s { unix-stream("%(dir)s/in.sock" flags(syslog-protocol) so-passcred(no));
           unix-dgram("%(dir)s/dg.sock" flags(syslog-protocol) so-passcred(no)); };
parser p_json { json-parser(prefix("j.")); };
destination d_ctf { structured-event(sink(ctf) path("%(dir)s/trace") message-id("${j.id}")
                    value-pairs(scope(nv-pairs sdata) exclude("HOST*") exclude("SOURCE") exclude("MSGID")
                                exclude("LEGACY_MSGHDR") exclude("TRANSPORT") exclude("MSGFORMAT") exclude(".SDATA.meta*") %(pairs)s)
                    packet-size(%(packet_size)d) time-reopen(1) %(extra)s); };
log { source(s); if { parser(p_json); }; destination(d_ctf); };
"""

# dumps every message of the trace as JSON lines: events with payload field names, bt2 field
# class names and values (bytes as lists, strings with invalid UTF-8 kept via surrogateescape)
BT2_DUMP = r'''
import bt2, json, sys

def conv(f):
    # babeltrace2 2.1 (trixie) calls the dynamic array class of 2.0 (bookworm) _DynamicArrayFieldWithLengthFieldConst
    name = type(f).__name__.replace("WithLengthField", "")
    if isinstance(f, bt2._StringFieldConst):
        v = str(f).encode("utf-8", "surrogateescape").hex()
    elif isinstance(f, bt2._StructureFieldConst):
        v = [[k, conv(x)] for k, x in f.items()]
    elif isinstance(f, bt2._ArrayFieldConst):
        v = [conv(x) for x in f]
    elif isinstance(f, bt2._VariantFieldConst):
        v = [f.selected_option_index, conv(f.selected_option)]
    elif isinstance(f, bt2._EnumerationFieldConst):
        v = [int(f), list(f.labels)]
    elif isinstance(f, bt2._RealFieldConst):
        v = float(f)
    else:
        v = int(f)
    return [name, v]

for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst:
        print(json.dumps({"kind": "event", "name": m.event.name, "clock": m.default_clock_snapshot.value,
                          "stream": m.event.stream.id, "payload": conv(m.event.payload_field)}))
    elif type(m) is bt2._PacketBeginningMessageConst:
        print(json.dumps({"kind": "packet", "stream": m.packet.stream.id}))
    elif type(m) is bt2._DiscardedEventsMessageConst:
        print(json.dumps({"kind": "discarded", "count": m.count}))
'''

BASE_NS = 1700000000123456000
FIXED = ["time_ns", "priority", "facility", "message_id", "host", "program", "message", "pairs_length", "pairs"]


def rfc5424(ts_ns, host, body, sdata=b"-", pri=13):
    secs, ns = divmod(ts_ns, 1000000000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%06dZ" % (ns // 1000)
    return ("<%d>1 %s %s app 99 - " % (pri, stamp, host)).encode() + sdata + b" " + body


def babeltrace(trace):
    return subprocess.run([BABELTRACE, trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def bt2_dump(trace):
    r = subprocess.run([SYSTEM_PYTHON, "-c", BT2_DUMP, trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise AssertionError("bt2 failed: %s" % r.stderr.decode(errors="replace"))
    return [json.loads(line) for line in r.stdout.decode().splitlines()]


def events(dump):
    return [m for m in dump if m["kind"] == "event"]


def payload(event):
    """{name: (bt2 class, value)} and the field order"""
    fields = event["payload"][1]
    return {k: v for k, v in fields}, [k for k, _ in fields]


def pairs(fields):
    """[(name, type label, bt2 class of the value, value)]"""
    out = []
    for _, p in fields["pairs"][1]:
        d = {k: v for k, v in p}
        option_index, (cls, value) = d["value"][1]
        label = d["type"][1][1][0]
        out.append((bytes.fromhex(d["name"][1]).decode(), label, cls, value, option_index))
    return out


def text(field):
    cls, value = field
    assert cls == "_StringFieldConst", cls
    return bytes.fromhex(value)


def walk_packets(path):
    """(whole packets, bytes they take, file size) of one stream file, from the packet contexts"""
    with open(path, "rb") as f:
        data = f.read()
    pos = n = 0
    while pos + 56 <= len(data):
        magic, = struct.unpack_from("<I", data, pos)
        size_bits, = struct.unpack_from("<Q", data, pos + 32)
        if magic != 0xC1FC1FC1 or pos + size_bits // 8 > len(data):
            break
        pos += size_bits // 8
        n += 1
    return n, pos, len(data)


class TestCtf(fdharness.TestCase):
    def setUp(self):
        if not os.path.exists(BABELTRACE):
            self.skipTest("babeltrace2 not installed")
        r = subprocess.run([SYSTEM_PYTHON, "-c", "import bt2"], stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            self.skipTest("python3-bt2 not installed")

    def config(self, wd, packet_size=65536, pairs="", extra=""):
        return CONFIG % {"dir": wd, "packet_size": packet_size, "pairs": pairs, "extra": extra}

    def wait_written(self, sng, n, timeout=60):
        self.assertTrue(fdharness.wait_until(
            lambda: sng.stat("dst.structured-event", "d_ctf", "written") == n, timeout), sng.stats())

    def test_every_field_typed_and_exact(self):
        wd = self.workdir()
        trace = os.path.join(wd, "trace")
        n = 300
        # typed by json-parser (integers, doubles, booleans, null) and by template type hints
        sng = fdharness.SyslogNg(self.config(wd, packet_size=4096,
                                             pairs='pair("T", datetime("1700000000.5")) pair("H_INT", int64("${j.seq}"))'
                                                   ' pair("H_DBL", double("${j.ratio}"))'
                                                   ' pair("TU", datetime("1700000000.123456"))'), workdir=wd)
        with sng:
            lines = []
            for i in range(n):
                doc = {"seq": i, "neg": -i - 2 ** 40, "ratio": i / 4.0, "ok": i % 2 == 0, "none": None,
                       "text": "héllo ✓ %d \"q\"" % i, "id": "ev-%d" % (i % 3)}
                lines.append(rfc5424(BASE_NS + i * 1000, "host%d" % (i % 2), json.dumps(doc).encode(),
                                     pri=8 * (i % 4) + i % 8))
            fdharness.send_lines(os.path.join(wd, "in.sock"), lines)
            self.wait_written(sng, n)
            # a datagram keeps NUL bytes: in the message and in an SD parameter
            import socket
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect(os.path.join(wd, "dg.sock"))
                s.send(rfc5424(BASE_NS, "hostz", b"raw\x00nul\xe9", sdata=b'[m@1 k="v\x00w\xc3\xa9"]'))
            self.wait_written(sng, n + 1)
            self.assertEqual(sng.stat("dst.structured-event", "d_ctf", "dropped"), 0)

        r = babeltrace(trace)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        out = r.stdout.decode("utf-8", errors="replace").splitlines()
        self.assertEqual(len(out), n + 1)
        self.assertTrue(all(" syslog: { time_ns = " in line for line in out), out[:3])
        self.assertIn('name = "J_RATIO", type = ( "double" : container = 2 ), value = { 0.25 }', out[1])

        evs = events(bt2_dump(trace))
        self.assertEqual(len(evs), n + 1)
        self.assertEqual({e["name"] for e in evs}, {"syslog"})
        # write-time clock: non-decreasing, and after the messages' own (2023) times
        clocks = [e["clock"] for e in evs]
        self.assertEqual(clocks, sorted(clocks))
        self.assertGreater(clocks[0], BASE_NS + 10 ** 18 // 1000)

        for i, e in enumerate(evs[:n]):
            fields, order = payload(e)
            self.assertEqual(order, FIXED)
            self.assertEqual(fields["time_ns"], ["_SignedIntegerFieldConst", BASE_NS + i * 1000])
            self.assertEqual(fields["priority"], ["_UnsignedIntegerFieldConst", i % 8])
            self.assertEqual(fields["facility"], ["_UnsignedIntegerFieldConst", i % 4])
            self.assertEqual(text(fields["host"]), b"host%d" % (i % 2))
            self.assertEqual(text(fields["program"]), b"app")
            self.assertEqual(len(text(fields["message_id"])), 32)
            self.assertEqual(fields["pairs_length"][1], 11)
            got = sorted(pairs(fields))
            self.assertEqual(got, sorted([
                ("H_DBL", "double", "_DoublePrecisionRealFieldConst", i / 4.0, 2),
                ("H_INT", "int64", "_SignedIntegerFieldConst", i, 1),
                ("J_ID", "string", "_StringFieldConst", ("ev-%d" % (i % 3)).encode().hex(), 0),
                ("J_NONE", "null", "_StructureFieldConst", [], 6),
                ("J_NEG", "int64", "_SignedIntegerFieldConst", -i - 2 ** 40, 1),
                ("J_OK", "bool", "_UnsignedEnumerationFieldConst", [int(i % 2 == 0), ["true" if i % 2 == 0 else "false"]], 3),
                ("J_RATIO", "double", "_DoublePrecisionRealFieldConst", i / 4.0, 2),
                ("J_SEQ", "int64", "_SignedIntegerFieldConst", i, 1),
                ("J_TEXT", "string", "_StringFieldConst", ("héllo ✓ %d \"q\"" % i).encode().hex(), 0),
                ("T", "timestamp", "_SignedIntegerFieldConst", 1700000000500000000, 4),
                # syslog-ng 4.x keeps a datetime's microseconds, 3.38's cast stops at milliseconds
                ("TU", "timestamp", "_SignedIntegerFieldConst",
                 1700000000123456000 if fdharness.SYSLOG_NG_4X else 1700000000123000000, 4),
            ]))
        # the same message id for the same input
        ids = {}
        for i, e in enumerate(evs[:n]):
            ids.setdefault(i % 3, set()).add(text(payload(e)[0]["message_id"]))
        self.assertEqual([len(v) for v in ids.values()], [1, 1, 1])
        self.assertEqual(len(set().union(*ids.values())), 3)

        fields, _ = payload(evs[n])
        self.assertEqual(text(fields["host"]), b"hostz")
        # a CTF string ends at NUL: the message is cut there and kept whole as a bytes pair
        self.assertEqual(text(fields["message"]), b"raw")
        got = {p[0]: p[1:] for p in pairs(fields)}
        bytes_value = lambda raw: [["length", ["_UnsignedIntegerFieldConst", len(raw)]],
                                   ["data", ["_DynamicArrayFieldConst",
                                             [["_UnsignedIntegerFieldConst", b] for b in raw]]]]
        self.assertEqual(got["MESSAGE"], ("bytes", "_StructureFieldConst", bytes_value(b"raw\x00nul\xe9"), 5))
        self.assertEqual(got["SDATA_M_1_K"], ("bytes", "_StructureFieldConst", bytes_value(b"v\x00w\xc3\xa9"), 5))

    def test_kill9_mid_stream(self):
        wd = self.workdir()
        trace = os.path.join(wd, "trace")
        sng = fdharness.SyslogNg(self.config(wd, packet_size=4096, extra="batch-lines(1000)"), workdir=wd)
        total = 200000
        with sng:
            lines = [rfc5424(BASE_NS + i, "h", json.dumps({"seq": i}).encode()) for i in range(total)]
            sender = threading.Thread(target=lambda: self.send_quietly(os.path.join(wd, "in.sock"), lines))
            sender.start()
            self.assertTrue(fdharness.wait_until(
                lambda: (sng.stat("dst.structured-event", "d_ctf", "written") or 0) > 20000, 60))
            sng.kill9()
            sender.join()
        streams = sorted(f for f in os.listdir(trace) if f.startswith("stream_"))
        self.assertEqual(streams, ["stream_0_0"])
        packets, whole_bytes, size = walk_packets(os.path.join(trace, streams[0]))
        if whole_bytes != size:
            # the kill landed inside a write(): babeltrace2 cannot read a partial packet;
            # the next start trims it (test_restart_trims_partial_packet below covers it)
            os.truncate(os.path.join(trace, streams[0]), whole_bytes)

        r = babeltrace(trace)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        dump = bt2_dump(trace)
        evs = events(dump)
        self.assertEqual(len([m for m in dump if m["kind"] == "packet"]), packets)
        self.assertEqual(len(r.stdout.splitlines()), len(evs))
        # every completed packet is there, in order, nothing missing in between
        seqs = [pairs(payload(e)[0])[0] for e in evs]
        self.assertEqual({p[0] for p in seqs}, {"J_SEQ"})
        self.assertEqual([p[3] for p in seqs], list(range(len(evs))))
        self.assertGreater(len(evs), 20000)
        self.assertLess(len(evs), total)

        # a restart writes a new stream file and the trace stays readable
        sng2 = fdharness.SyslogNg(self.config(wd, packet_size=4096), workdir=wd)
        with sng2:
            fdharness.send_lines(os.path.join(wd, "in.sock"), lines[:10])
            self.wait_written(sng2, 10)
        self.assertEqual(sorted(f for f in os.listdir(trace) if f.startswith("stream_")),
                         ["stream_0_0", "stream_0_1"])
        self.assertEqual(len(events(bt2_dump(trace))), len(evs) + 10)

    @staticmethod
    def send_quietly(path, lines):
        try:
            fdharness.send_lines(path, lines)
        except OSError:
            pass  # syslog-ng was killed

    def test_restart_trims_partial_packet(self):
        wd = self.workdir()
        trace = os.path.join(wd, "trace")
        sng = fdharness.SyslogNg(self.config(wd, packet_size=4096), workdir=wd)
        with sng:
            fdharness.send_lines(os.path.join(wd, "in.sock"),
                                 [rfc5424(BASE_NS + i, "h", json.dumps({"seq": i}).encode()) for i in range(100)])
            self.wait_written(sng, 100)
        path = os.path.join(trace, "stream_0_0")
        whole = os.path.getsize(path)
        # what a kill -9 inside write() leaves: the first bytes of a packet
        with open(path, "ab") as f:
            f.write(b"\xc1\x1f\xfc\xc1\x00\x00\x00\x00\x01\x02\x03")
        self.assertNotEqual(babeltrace(trace).returncode, 0)
        sng = fdharness.SyslogNg(self.config(wd, packet_size=4096), workdir=wd)
        with sng:
            self.assertTrue(fdharness.wait_until(lambda: os.path.getsize(path) == whole, 30))
            fdharness.send_lines(os.path.join(wd, "in.sock"),
                                 [rfc5424(BASE_NS + i, "h", json.dumps({"seq": i}).encode()) for i in range(5)])
            self.wait_written(sng, 5)
            self.assertIn("removed a partial packet", sng.output())
        r = babeltrace(trace)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        self.assertEqual(len(r.stdout.splitlines()), 105)

    def test_drops_are_discarded_events(self):
        wd = self.workdir()
        trace = os.path.join(wd, "trace")
        sng = fdharness.SyslogNg(self.config(wd, packet_size=4096, extra="batch-lines(1)"), workdir=wd)
        small = lambda i: rfc5424(BASE_NS + i, "h", json.dumps({"seq": i}).encode())
        huge = lambda i: rfc5424(BASE_NS + i, "h", json.dumps({"seq": i, "pad": "x" * 5000}).encode())
        with sng:
            sock = os.path.join(wd, "in.sock")
            fdharness.send_lines(sock, [small(i) for i in range(10)])
            self.wait_written(sng, 10)
            # events larger than packet-size() are dropped (and counted)
            fdharness.send_lines(sock, [huge(i) for i in range(10, 13)])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_ctf", "dropped") == 3, 60), sng.stats())
            fdharness.send_lines(sock, [small(i) for i in range(13, 23)])
            self.wait_written(sng, 20)
            self.assertIn("does not fit in a CTF packet", sng.output())

        r = babeltrace(trace)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        self.assertEqual(len(r.stdout.splitlines()), 20)
        self.assertIn(b"WARNING: Tracer discarded 3 events", r.stderr)
        dump = bt2_dump(trace)
        self.assertEqual([m["count"] for m in dump if m["kind"] == "discarded"], [3])
        self.assertEqual(len(events(dump)), 20)

    def test_event_larger_than_packet_dropped_alone(self):
        """an event larger than packet-size() is dropped alone, at once: the events around it are
        written within 2 s (time-reopen() at its 60 s default), the drop counted and logged"""
        wd = self.workdir()
        trace = os.path.join(wd, "trace")
        config = self.config(wd).replace("time-reopen(1)", "").replace(
            'flags(syslog-protocol) so-passcred(no));', 'flags(syslog-protocol) so-passcred(no) log-msg-size(200000));', 1)
        small = lambda i: rfc5424(BASE_NS + i, "h", json.dumps({"seq": i}).encode())
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            lines = [small(i) for i in range(5)] + [rfc5424(BASE_NS + 5, "h", b"x" * 70000)] + \
                [small(i) for i in range(6, 11)]
            fdharness.send_lines(os.path.join(wd, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_ctf", "written") == 10, 2), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_ctf", "dropped"), 1)
            drops = [line for line in sng.output().splitlines() if "does not fit in a CTF packet" in line]
        self.assertEqual(len(drops), 1)
        self.assertRegex(drops[0], r"driver='d_ctf(#\d+)?'.*location='[^']*syslog-ng.conf:\d+:\d+'")
        dump = bt2_dump(trace)
        self.assertEqual([json.loads(text(payload(e)[0]["message"]))["seq"] for e in events(dump)],
                         list(range(5)) + list(range(6, 11)))
        self.assertEqual([m["count"] for m in dump if m["kind"] == "discarded"], [1])

    def test_perm_owner_group_of_trace_files_and_directories(self):
        """perm(), owner(), group() and dir-*() as file(): on the trace directory and its
        missing parents, the metadata and the stream files; babeltrace2 still reads it"""
        fdharness.skip_unless_root(self)
        wd = self.workdir()
        trace = os.path.join(wd, "a", "trace")
        extra = 'perm(0640) owner("nobody") group("nogroup") dir-perm(0750) dir-owner("nobody") dir-group("nogroup")'
        config = self.config(wd, extra=extra).replace('path("%s/trace")' % wd, 'path("%s")' % trace)
        n = 20
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            fdharness.send_lines(os.path.join(wd, "in.sock"),
                                 [rfc5424(BASE_NS + i, "h", b'{"id": "p"}') for i in range(n)])
            self.wait_written(sng, n)
        nobody, nogroup = 65534, 65534
        for d in (os.path.join(wd, "a"), trace):
            st = os.stat(d)
            self.assertEqual((oct(st.st_mode & 0o7777), st.st_uid, st.st_gid), (oct(0o750), nobody, nogroup), d)
        files = sorted(os.listdir(trace))
        self.assertIn("metadata", files)
        self.assertTrue([f for f in files if f.startswith("stream_")], files)
        for f in files:
            st = os.stat(os.path.join(trace, f))
            self.assertEqual((oct(st.st_mode & 0o7777), st.st_uid, st.st_gid), (oct(0o640), nobody, nogroup), f)
        self.assertEqual(len(events(bt2_dump(trace))), n)

    def test_config_errors_name_the_option(self):
        wd = self.workdir()
        cases = [
            ('sink(ctf) path("%s") packet-size(1000)' % wd, "packet-size(1000)"),
            ('sink(ctf) path("%s") packet-size(65537)' % wd, "packet-size(65537)"),
            ('sink(ctf) path("%s") max-stream-size(100)' % wd, "max-stream-size(100)"),
            ('sink(ctf) path("%s") packet-size(65536) max-stream-size(8192)' % wd, "max-stream-size(8192)"),
            ('sink(ctf) path("%s/${HOST}")' % wd, "without macros"),
            ("sink(ctf)", "needs path()"),
            ('sink(ctf) path("%s") host("127.0.0.1")' % wd, "host()"),
            ('sink(journald) packet-size(65536)', "packet-size() cannot be used with sink(journald)"),
            ("sink(journald) perm(0600)", "apply to what path() creates"),
            ('sink(journal-export) host("127.0.0.1") create-dirs(yes)', "apply to what path() creates"),
            ('sink(journal-export) host("127.0.0.1") dir-owner("root")', "apply to what path() creates"),
        ]
        for options, expected in cases:
            rc, out = fdharness.check_config(
                "source s { unix-stream(\"%s/x.sock\"); };\ndestination d { structured-event(%s); };\n"
                "log { source(s); destination(d); };\n" % (wd, options))
            self.assertNotEqual(rc, 0, options)
            self.assertIn(expected, out, options)
        rc, out = fdharness.check_config(
            "source s { unix-stream(\"%s/x.sock\"); };\n"
            "destination d { structured-event(sink(ctf) path(\"%s/t\") packet-size(4096) max-stream-size(1073741824)); };\n"
            "log { source(s); destination(d); };\n" % (wd, wd))
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    fdharness.main()
