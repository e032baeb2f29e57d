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
"""The defaults the README reference states, observed in real runs of the stock
syslog-ng, and the structured-event() options no other test configures
(template options, queue options, persist-name()).  journal-export into a
file: no root needed."""

import calendar
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

SOURCE = 'source s { unix-stream("%(w)s/in.sock" so-passcred(no)); };\n'


def msgid(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def parse_export(path):
    """Journal Export Format, text fields only: [{NAME: value}]."""
    with open(path, "rb") as f:
        data = f.read().decode("utf-8")
    return [dict(line.split("=", 1) for line in block.split("\n") if line)
            for block in data.split("\n\n") if block.strip()]


def local(program, msg, stamp="Nov 30 12:00:00"):
    return ("<14>%s %s[5]: %s" % (stamp, program, msg)).encode()


class TestFastFileDefaults(fdharness.TestCase):
    def test_defaults(self):
        w = self.workdir()
        cfg = SOURCE + """
destination d_ff { fast-file("%(w)s/out.log"); };
destination d_stock { file("%(w)s/stock.log"); };
destination d_nodir { fast-file("%(w)s/missing/out.log"); };
destination d_dirs { fast-file("%(w)s/a/b/out.log" create-dirs(yes)); };
log { source(s); destination(d_ff); destination(d_stock); destination(d_nodir); destination(d_dirs); };
"""
        with fdharness.SyslogNg(cfg % {"w": w}, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), [local("app", "hello"), local("app", "world")])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_ff", "written") == 2
                and sng.stat("dst.fast-file", "d_dirs", "written") == 2, 30), sng.stats())
            # create-dirs(no), time-reopen(60), retries(3): the failed open says so
            self.assertTrue(fdharness.wait_until(lambda: "time_reopen='60'" in sng.output(), 10), sng.output())
            self.assertIn("retries='3'", sng.output())
            self.assertFalse(os.path.exists(os.path.join(w, "missing")))
            self.assertEqual(sng.stat("dst.fast-file", "d_nodir", "written"), 0)
        with open(os.path.join(w, "out.log"), "rb") as f:
            data = f.read()
        with open(os.path.join(w, "stock.log"), "rb") as f:
            # file()'s default template, LF endings, no BOM
            self.assertEqual(data, f.read())
        self.assertTrue(data.endswith(b"app[5]: world\n") and b"\r" not in data, data)
        self.assertEqual(oct(os.stat(os.path.join(w, "out.log")).st_mode & 0o777), "0o600")   # perm()
        self.assertEqual(oct(os.stat(os.path.join(w, "a", "b")).st_mode & 0o777), "0o700")    # dir-perm()


class TestStructuredEventDefaults(fdharness.TestCase):
    def run_export(self, options, lines, extra_dest="", expect=None):
        w = self.workdir()
        cfg = SOURCE + """
parser p_kv { kv-parser(prefix("kv.")); };
destination d_se { structured-event(sink(journal-export) path("%(w)s/out.export") %(o)s); };
%(extra)s
log { source(s); parser(p_kv); destination(d_se); };
"""
        cfg = cfg % {"w": w, "o": options, "extra": extra_dest}
        sng = fdharness.SyslogNg(cfg, workdir=w)
        with sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            n = len(lines) if expect is None else expect
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_se", "written") == n, 30), sng.stats())
            self.stats = sng.stats()
        return w, parse_export(os.path.join(w, "out.export"))

    def test_defaults(self):
        w, events = self.run_export("", [local("app", "n=1 word=x")])
        e = events[0]
        self.assertNotIn("MESSAGE_ID", e)                    # message-id(): none
        self.assertEqual(e["KV_N"], "1")                     # value-pairs(): nv-pairs in scope; prefix("")
        self.assertEqual(e["MESSAGE"], "n=1 word=x")
        # the stats instance names the sink and the path
        key = [k for k in self.stats if k.startswith("dst.structured-event;d_se#0;")][0]
        self.assertIn("structured-event,journal-export,%s/out.export" % w, key)
        self.assertEqual(oct(os.stat(os.path.join(w, "out.export")).st_mode & 0o777), "0o600")

    def test_type_hints_default_yes(self):
        # a typed value: json-parser makes int64; without a typed pair there is no SNG_FIELD_TYPES
        w = self.workdir()
        cfg = SOURCE + """
parser p_json { json-parser(prefix("j.")); };
destination d_yes { structured-event(sink(journal-export) path("%(w)s/yes.export")); };
destination d_no { structured-event(sink(journal-export) path("%(w)s/no.export") type-hints(no)); };
log { source(s); parser(p_json); destination(d_yes); destination(d_no); };
"""
        cfg = cfg % {"w": w}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), [local("app", '{"count": 5}')])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_yes", "written") == 1
                and sng.stat("dst.structured-event", "d_no", "written") == 1, 30), sng.stats())
        self.assertIn("J_COUNT:int64", parse_export(os.path.join(w, "yes.export"))[0]["SNG_FIELD_TYPES"].split())
        self.assertNotIn("SNG_FIELD_TYPES", parse_export(os.path.join(w, "no.export"))[0])

    def test_default_port_and_max_fields(self):
        rc, out = fdharness.check_config(
            'destination d { structured-event(sink(journal-export) host("127.0.0.1")); };')
        self.assertEqual(rc, 0, out)
        w = self.workdir()
        cfg = SOURCE + """
destination d_r { structured-event(sink(journal-export) host("127.0.0.1")); };
log { source(s); destination(d_r); };
"""
        with fdharness.SyslogNg(cfg % {"w": w}, workdir=w) as sng:
            self.assertTrue(any(k.startswith("dst.structured-event;d_r#0;structured-event,journal-export,"
                                             "127.0.0.1:19532;") for k in sng.stats()), sng.stats())
        # max-fields() default 1000, the fixed fields included (journal-export's own
        # __REALTIME_TIMESTAMP, _HOSTNAME and _BOOT_ID are not fields of the event)
        pairs = " ".join("k%d=v" % i for i in range(1100))
        _, events = self.run_export('value-pairs(key("kv.*"))', [local("app", pairs)])
        fields = [k for k in events[0] if k not in ("__REALTIME_TIMESTAMP", "_HOSTNAME", "_BOOT_ID")]
        kv = [k for k in fields if k.startswith("KV_")]
        # one place stays reserved for SNG_FIELD_TYPES (type-hints(yes)), used or not
        self.assertEqual(len(fields) + ("SNG_FIELD_TYPES" not in fields), 1000, sorted(set(fields) - set(kv)))
        self.assertEqual(sum(v for k, v in self.stats.items() if k.endswith(";dropped_fields")), 1100 - len(kv))

    def test_template_options_render_message_id(self):
        # ${ISODATE} of "Nov 30 12:00:00" received as UTC, rendered per the template options
        year = time.gmtime().tm_year
        cases = [
            ('time-zone("+02:00") frac-digits(3)', "%d-11-30T14:00:00.000+02:00" % year, "${ISODATE}"),
            ('send-time-zone("-01:00")', "%d-11-30T11:00:00-01:00" % year, "${ISODATE}"),
            # ts-format() applies to ${STAMP}; ${DATE} is always BSD style in syslog-ng 3.38
            ('ts-format(iso) send-time-zone("UTC")', "%d-11-30T12:00:00+00:00" % year, "${STAMP}"),
            ('ts-format(unix)', "%d" % calendar.timegm((year, 11, 30, 12, 0, 0)), "${STAMP}"),
        ]
        for options, expected, macro in cases:
            w = self.workdir()
            cfg = """source s { unix-stream("%(w)s/in.sock" so-passcred(no) time-zone("UTC")); };
destination d_se { structured-event(sink(journal-export) path("%(w)s/out.export") message-id("%(m)s")
                   local-time-zone("UTC") on-error("fallback-to-string") %(o)s); };
log { source(s); destination(d_se); };
""" % {"w": w, "m": macro, "o": options}
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                fdharness.send_lines(os.path.join(w, "in.sock"), [local("app", "x")])
                self.assertTrue(fdharness.wait_until(
                    lambda: sng.stat("dst.structured-event", "d_se", "written") == 1, 30), sng.stats())
            e = parse_export(os.path.join(w, "out.export"))[0]
            self.assertEqual(e["MESSAGE_ID"], msgid(expected), "%s: expected id of %r" % (options, expected))

    def test_queue_options(self):
        # log-fifo-size(5) while the file cannot be opened: 5 wait, the rest is dropped
        w = self.workdir()
        cfg = SOURCE + """
destination d_se { structured-event(sink(journal-export) path("%(w)s/missing/out.export")
                   log-fifo-size(5) batch-lines(1)); };
log { source(s); destination(d_se); };
"""
        with fdharness.SyslogNg(cfg % {"w": w}, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), [local("app", "m%d" % i) for i in range(20)])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_se", "processed") == 20, 30), sng.stats())
            queued = sng.stat("dst.structured-event", "d_se", "queued")
            dropped = sng.stat("dst.structured-event", "d_se", "dropped")
            self.assertEqual(sng.stat("dst.structured-event", "d_se", "written"), 0)
            self.assertLessEqual(queued, 6)
            self.assertEqual(queued + dropped, 20, sng.stats())

    def test_persist_name(self):
        # two destinations on one path: syslog-ng refuses the same automatic
        # persist name twice; persist-name() tells them apart
        two = SOURCE + """
destination d_a { structured-event(sink(journal-export) path("%(w)s/same.export") %(a)s); };
destination d_b { structured-event(sink(journal-export) path("%(w)s/same.export")); };
log { source(s); destination(d_a); destination(d_b); };
"""
        w = self.workdir()
        with self.assertRaises(fdharness.SyslogNgStartError) as cm:
            fdharness.SyslogNg(two % {"w": w, "a": ""}, workdir=w).start()
        self.assertIn("persist", str(cm.exception))
        w = self.workdir()
        with fdharness.SyslogNg(two % {"w": w, "a": 'persist-name("se-a")'}, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), [local("app", "x")])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_a", "written") == 1
                and sng.stat("dst.structured-event", "d_b", "written") == 1, 30), sng.stats())
        self.assertEqual(len(parse_export(os.path.join(w, "same.export"))), 2)

    def test_throttle_and_batch_timeout(self):
        # throttle(20): 40 events need about two seconds; batch-timeout(200) with
        # batch-lines(1000) still delivers a partial batch
        start = time.monotonic()
        _, events = self.run_export("throttle(20) batch-lines(1000) batch-timeout(200)",
                                    [local("app", "m%d" % i) for i in range(40)])
        elapsed = time.monotonic() - start
        self.assertEqual([e["MESSAGE"] for e in events], ["m%d" % i for i in range(40)])
        self.assertGreater(elapsed, 1.2, "throttle(20) let 40 events through in %.2fs" % elapsed)


if __name__ == "__main__":
    fdharness.main()
