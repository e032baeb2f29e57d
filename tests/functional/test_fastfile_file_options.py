# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 17: every option of file() (syslog-ng 3.38) in fast-file(), each
against the stock file() in the same syslog-ng: the same input through both,
the outputs compared byte for byte (time stamps only where the destination
makes a line itself at a time of its own, MARK and suppression summaries)."""

import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

STREAM_SOURCE = 'source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };'


def free_tcp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pair_config(w, file_args, fast_args, source=STREAM_SOURCE, options="", extra="", log_extra=""):
    """file() and fast-file() side by side; *_args is the whole argument list (name and options)"""
    return """
options { keep-hostname(yes); stats-level(1); %(options)s };
%(source)s
%(extra)s
destination d_file { file(%(file_args)s); };
destination d_fast { fast-file(%(fast_args)s); };
log { source(s_in); %(log_extra)s destination(d_file); destination(d_fast); };
""" % {"w": w, "file_args": file_args % {"w": w}, "fast_args": fast_args % {"w": w},
       "source": source % {"w": w}, "options": options, "extra": extra, "log_extra": log_extra}


def stat(sng, typ):
    return sng.stat("dst.fast-file", "d_fast", typ) or 0


def tree(root):
    """{relative path: bytes} of every regular file under root"""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = f.read()
    return out


def settle(paths, timeout=30):
    """wait until the total size of the files under paths has not changed for half a second"""
    def size():
        total = 0
        for p in paths:
            if os.path.isdir(p):
                total += sum(len(v) for v in tree(p).values())
            elif os.path.exists(p):
                total += os.path.getsize(p)
        return total
    sizes = []
    fdharness.wait_until(lambda: sizes.append(size()) or (len(sizes) > 10 and sizes[-1] == sizes[-11]), timeout, 0.05)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def short(data, limit=300):
    return repr(data[:limit]) + ("... (%d bytes)" % len(data) if len(data) > limit else "")


def first_difference(stock, fast):
    sl, fl = stock.split(b"\n"), fast.split(b"\n")
    for i, (a, b) in enumerate(zip(sl, fl)):
        if a != b:
            return "first difference at line %d:\n file():      %r\n fast-file(): %r" % (i, a, b)
    return "lengths differ: file() %d bytes (%d lines), fast-file() %d bytes (%d lines)" % (
        len(stock), len(sl), len(fast), len(fl))


def stream_lines(n, prefix="message", programs=5, hosts=3, stamp="Nov 30 05:%02d:%02d"):
    return [("<%d>%s host%d prog%d[%d]: %s %d"
             % (8 + i % 160, stamp % ((i // 60) % 60, i % 60), i % hosts, i % programs, 1000 + i % 7, prefix, i)
             ).encode() for i in range(n)]


class Differential(fdharness.TestCase):
    """one syslog-ng, file() and fast-file() fed the same messages"""

    def assert_has(self, needle, data):
        self.assertTrue(needle in data, "%r not in %s" % (needle, short(data)))

    def assert_lacks(self, needle, data):
        self.assertFalse(needle in data, "%r in %s" % (needle, short(data)))

    def assert_same(self, stock, fast, min_len=1):
        self.assertGreaterEqual(len(stock), min_len, "file() wrote too little: %r" % stock[:200])
        if stock != fast:
            self.fail(first_difference(stock, fast))

    def run_pair(self, file_args, fast_args, lines=(), outputs=("file.out", "fast.out"), expect_processed=None,
                 send=None, **config_args):
        """send lines to in.sock (or call send(sng, workdir), which returns how many messages it sent),
        wait until fast-file() has processed them and both outputs settled; returns the workdir"""
        w = self.workdir()
        with fdharness.SyslogNg(pair_config(w, file_args, fast_args, **config_args), workdir=w) as sng:
            if send:
                n = send(sng, w)
            else:
                fdharness.send_lines(os.path.join(w, "in.sock"), list(lines))
                n = len(lines)
            want = n if expect_processed is None else expect_processed
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "processed") >= want, 30),
                            "fast-file() processed %d of %d\n%s" % (stat(sng, "processed"), want, sng.output()))
            settle([os.path.join(w, o) for o in outputs])
            self.output = sng.output()
            self.stats = {t: stat(sng, t) for t in ("processed", "written", "dropped", "queued", "suppressed",
                                                    "truncated_count", "truncated_bytes")}
        return w

    def pair_outputs(self, w, names=("file.out", "fast.out")):
        return tuple(read(os.path.join(w, n)) for n in names)


class TestFileNameTimeZone(Differential):
    def test_file_name_macros_use_local_time_zone(self):
        """file() expands the file name in local-time-zone(), records in time-zone() (send)"""
        lines = [b"<13>2026-11-30T23:30:00+00:00 h p: late", b"<13>2026-12-01T00:30:00+00:00 h p: early"]
        opts = 'template("${ISODATE} ${MSG}\\n") create-dirs(yes) time-zone("Asia/Tokyo")'
        for local in ("", ' local-time-zone("America/New_York")'):
            w = self.run_pair('"%(w)s/file/${YEAR}${MONTH}${DAY}-${HOUR}.log" ' + opts + local,
                              '"%(w)s/fast/${YEAR}${MONTH}${DAY}-${HOUR}.log" ' + opts + local,
                              lines, outputs=("file", "fast"))
            stock, fast = tree(os.path.join(w, "file")), tree(os.path.join(w, "fast"))
            self.assertEqual(len(stock), 2, stock)
            self.assertEqual(stock, fast)


class TestTemplateEscape(Differential):
    def test_escape_only_for_an_inline_template(self):
        """template-escape() escapes an inline template only, as file()'s; a named template (or the
        global file-template()) is shared with other destinations and stays as it is.  On 4.x it is
        a template option of the destination, as for file(): its output of any template is escaped,
        the other destinations' is not"""
        lines = [b"<13>Nov 30 05:00:00 h p: it's \"quoted\""]
        extra = 'template t_shared { template("${MSG} \'${PROGRAM}\'\\n"); };\n' \
                'destination d_other { file("%(w)s/other.out" template(t_shared)); };' % {"w": "%(w)s"}
        w = self.workdir()
        config = pair_config(w, '"%(w)s/file.out" template(t_shared) template-escape(yes)',
                             '"%(w)s/fast.out" template(t_shared) template-escape(yes)',
                             extra=extra % {"w": w}, log_extra="destination(d_other);")
        with fdharness.SyslogNg(config, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == 1, 20))
            settle([os.path.join(w, n) for n in ("file.out", "fast.out", "other.out")])
            output = sng.output()
        plain = b"it's \"quoted\" 'p'\n"
        self.assertEqual(read(os.path.join(w, "other.out")), plain)
        self.assert_same(read(os.path.join(w, "file.out")), read(os.path.join(w, "fast.out")))
        if fdharness.SYSLOG_NG_4X:
            # the value of ${MSG} is escaped, not the template's own text
            self.assertEqual(read(os.path.join(w, "fast.out")), b"it\\'s \\\"quoted\\\" 'p'\n")
            self.assertEqual(output.count("Macro escaping can only be specified for inline templates"), 0, output)
        else:
            self.assertEqual(read(os.path.join(w, "fast.out")), plain)
            self.assertEqual(output.count("Macro escaping can only be specified for inline templates"), 2, output)
        # inline: escaped by both
        w = self.run_pair('"%(w)s/file.out" template("${MSG}\\n") template-escape(yes)',
                          '"%(w)s/fast.out" template("${MSG}\\n") template-escape(yes)', lines)
        self.assertEqual(read(os.path.join(w, "fast.out")), b"it\\'s \\\"quoted\\\"\n")
        self.assert_same(read(os.path.join(w, "file.out")), read(os.path.join(w, "fast.out")))

    def test_named_template_keeps_its_own_escape(self):
        lines = [b"<13>Nov 30 05:00:00 h p: it's \"quoted\""]
        extra = 'template t_esc { template("${MSG}\\n"); template-escape(yes); };'
        w = self.run_pair('"%(w)s/file.out" template(t_esc)', '"%(w)s/fast.out" template(t_esc)', lines, extra=extra)
        self.assertEqual(read(os.path.join(w, "fast.out")), b"it\\'s \\\"quoted\\\"\n")
        self.assert_same(read(os.path.join(w, "file.out")), read(os.path.join(w, "fast.out")))

    def test_escape_without_template_leaves_file_template_alone(self):
        lines = [b"<13>Nov 30 05:00:00 h p: it's \"quoted\""]
        w = self.workdir()
        options = 'file-template(t_global);'
        extra = ('template t_global { template("${MSG}\\n"); };\n'
                 'destination d_other { file("%s/other.out"); };' % w)
        config = pair_config(w, '"%(w)s/file.out" template-escape(yes)', '"%(w)s/fast.out" template-escape(yes)',
                             options=options, extra=extra, log_extra="destination(d_other);")
        with fdharness.SyslogNg(config, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == 1, 20))
            settle([os.path.join(w, n) for n in ("file.out", "fast.out", "other.out")])
        self.assertEqual(read(os.path.join(w, "other.out")), b"it's \"quoted\"\n")
        self.assert_same(read(os.path.join(w, "file.out")), read(os.path.join(w, "fast.out")))


RFC5424 = [
    b'<165>1 2026-11-30T05:00:00.123456+01:00 host1 app1 123 ID47 [exampleSDID@32473 iut="3" eventSource="App"] one',
    b"<14>1 2026-11-30T05:00:01Z - - - - -",
    b'<14>1 2026-11-30T05:00:02+02:00 host2 app2 - - [meta sequenceId="42"][x@1 a="b\\"c\\]d"] \xef\xbb\xbfbom',
    b'<13>1 2026-11-30T05:00:03Z host3 app3 77 - [meta x="1"] meta without a sequenceId',
    b"<13>1 2026-11-30T05:00:04Z host4 app4 - - - SPACEPROGRAM program with a space",
    b"<13>1 2026-11-30T05:00:05Z host5 app5 - - - MULTILINE and more",
    b"<13>1 2026-11-30T05:00:06Z host6 app6 - - - \xef\xbb\xbf",
] + [("<%d>1 2026-11-30T06:%02d:%02dZ h%d p%d %d m%d - body %d" % (i % 192, i // 60, i % 60, i % 3, i % 4, i, i % 5, i)
      ).encode() for i in range(200)]

RFC5424_SOURCES = """
source s_in {
  unix-stream("%(w)s/in.sock" flags(syslog-protocol));
  network(ip("127.0.0.1") port(%(port)d) transport(tcp) flags(syslog-protocol));
};
rewrite r_shape {
  set("my prog" value("PROGRAM") condition(match("SPACEPROGRAM" value("MSG"))));
  set("${MSG}\\nsecond\\r\\nthird" value("MSG") condition(match("MULTILINE" value("MSG"))));
};
"""


def send_local_then_remote(lines, port):
    """lines through the local unix-stream source, then through TCP (not local: no meta sequenceId of
    ours), one after the other so that both destinations see one order"""
    def send(sng, w):
        fdharness.send_lines(os.path.join(w, "in.sock"), lines)
        fdharness.wait_until(lambda: stat(sng, "processed") >= len(lines), 30)
        with socket.create_connection(("127.0.0.1", port)) as c:
            c.sendall(b"".join(line + b"\n" for line in lines))
        return 2 * len(lines)
    return send


class TestSyslogProtocol(Differential):
    def run_rfc5424(self, opts, options=""):
        port = free_tcp_port()
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts,
                          send=send_local_then_remote(RFC5424, port),
                          source=RFC5424_SOURCES.replace("%(port)d", str(port)), log_extra="rewrite(r_shape);",
                          options=options)
        return self.pair_outputs(w)

    def test_rfc5424_lines(self):
        stock, fast = self.run_rfc5424("flags(syslog-protocol)")
        self.assert_has(b'[meta sequenceId="1"]', stock)
        self.assert_has(b'[meta sequenceId="4" x="1"]', stock)
        self.assert_has(b'[meta sequenceId="42"]', stock)
        self.assert_has(b" my ", stock)
        self.assert_has(b"\xef\xbb\xbfbom", stock)
        self.assert_same(stock, fast)

    def test_template_is_the_message_part_and_file_template_is_not_used(self):
        stock, fast = self.run_rfc5424(
            'flags(syslog-protocol) template("${PROGRAM}/${SEQNUM}: ${MSG}\\n") frac-digits(3) time-zone("Asia/Tokyo")')
        self.assert_has(b"+09:00", stock)
        self.assert_same(stock, fast)
        # the global file-template() is file()'s format for records, not the message part of RFC 5424
        stock, fast = self.run_rfc5424("flags(syslog-protocol)",
                                       options='file-template(t_file);\n};\ntemplate t_file { template("X ${MSG}\\n");')
        self.assert_lacks(b"X ", stock)
        self.assert_same(stock, fast)

    def test_seqnum_of_a_remote_message_is_its_meta_sequence_id(self):
        stock, fast = self.run_rfc5424('template("${SEQNUM} ${MSG}\\n")')
        self.assert_has(b"\n42 bom\n", stock)
        self.assert_same(stock, fast)


MULTILINE_STREAM = """
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
rewrite r_ml {
  set("${MSG}\\nsecond line\\r\\n  third\\r" value("MSG") condition(match("MULTILINE" value("MSG"))));
};
"""


def multiline_lines(n=300):
    return [("<13>Nov 30 05:%02d:%02d host%d prog%d[%d]: %s %d" % (i // 60 % 60, i % 60, i % 3, i % 4, i,
                                                                  "MULTILINE" if i % 7 == 0 else "plain", i)).encode()
            for i in range(n)]


def sized_lines(sizes):
    """messages whose default-format records (with their newline) are about the given sizes"""
    out = []
    for i, size in enumerate(sizes):
        head = "<13>Nov 30 05:00:%02d h p: " % (i % 60)
        out.append((head + ("%d " % i) + "x" * max(0, size)).encode())
    return out


class TestSeqnumRead(Differential):
    """fast-file() steps its sequence number only when its output reads it (a ${SEQNUM} macro, a template
    function, the RFC 5424 sequenceId); each way of reading it numbers the local messages as file() does"""

    def check_numbered(self, opts, pattern):
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, stream_lines(30))
        stock, fast = self.pair_outputs(w)
        self.assertEqual(re.findall(pattern, stock, re.M)[:3], [b"1", b"2", b"3"], stock[:300])
        self.assert_same(stock, fast)

    def test_template_function_reads_seqnum(self):
        self.check_numbered('template("$(echo ${SEQNUM}) ${MSG}\\n")', rb"^(\d+) message")

    def test_macro_reads_seqnum(self):
        self.check_numbered('template("${MSG} #${SEQNUM}\\n")', rb"#(\d+)$")


class TestNoMultiLine(Differential):
    def test_default_format_and_templates(self):
        for opts in ("flags(no-multi-line)", 'flags(no-multi-line) template("${MSG}|${PROGRAM}\\n")',
                     "flags(no-multi-line, syslog-protocol)"):
            w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, multiline_lines(),
                              source=MULTILINE_STREAM, log_extra="rewrite(r_ml);")
            stock, fast = self.pair_outputs(w)
            self.assert_has(b"second line  " if "syslog" not in opts else b"second line", stock)
            self.assertEqual(stock.count(b"\n"), 300, opts)
            self.assert_same(stock, fast)


class TestTruncateSize(Differential):
    def test_records_cut_as_file_cuts_them(self):
        lines = sized_lines([i % 90 for i in range(400)])
        for opts in ("truncate-size(60)", 'truncate-size(40) template("${MSG}\\n")',
                     "truncate-size(70) flags(syslog-protocol)", "truncate-size(50) flags(no-multi-line)"):
            w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, lines,
                              source=MULTILINE_STREAM, log_extra="rewrite(r_ml);")
            stock, fast = self.pair_outputs(w)
            self.assertLess(stock.count(b"\n"), 400, "nothing was cut: " + opts)
            self.assert_same(stock, fast)
            self.assertGreater(self.stats["truncated_count"], 0, opts)
            self.assertGreater(self.stats["truncated_bytes"], self.stats["truncated_count"], opts)

    def test_truncate_size_zero_writes_nothing(self):
        w = self.run_pair('"%(w)s/file.out" truncate-size(0)', '"%(w)s/fast.out" truncate-size(0)', sized_lines([10] * 5))
        # file() opens its file for the first message; fast-file() when it has bytes to write
        self.assertEqual(read(os.path.join(w, "file.out")), b"")
        self.assertFalse(os.path.exists(os.path.join(w, "fast.out")))
        self.assertEqual(self.stats["truncated_count"], 5)


class TestPadSize(Differential):
    def compare_blocks(self, stock, fast, size):
        """file() leaves the last byte of a padded record unset (whatever its buffer held): every
        record is `size` bytes, equal but for that byte, which fast-file() sets to NUL"""
        self.assertEqual(len(stock) % size, 0)
        self.assertEqual(len(stock), len(fast), first_difference(stock, fast))
        padded = 0
        for i in range(0, len(stock), size):
            a, b = stock[i:i + size], fast[i:i + size]
            # no message here has a NUL: fast-file()'s NUL at the end is its padding
            if b[-1:] == b"\0":
                padded += 1
                a, b = a[:-1], b[:-1]
            self.assertEqual(a, b, "record %d" % (i // size))
        self.assertGreater(padded, 0)

    def test_records_padded_with_nul_or_cut(self):
        lines = sized_lines([i % 80 for i in range(300)])
        for opts, size in (("pad-size(64)", 64), ("pad-size(96) flags(syslog-protocol)", 96),
                           ("pad-size(64) flags(no-multi-line)", 64)):
            w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, lines)
            stock, fast = self.pair_outputs(w)
            self.assertEqual(len(stock), 300 * size, opts)
            self.compare_blocks(stock, fast, size)
            # file() warns for every record that does not fit; fast-file() the same words, at most once a second
            self.assertIn("Padding is too small to hold the full message", self.output)
            self.assertRegex(self.output, r"Padding is too small to hold the full message;.*driver='d_fast#0'")

    def test_template_is_not_padded(self):
        lines = sized_lines([5, 50, 100])
        opts = 'pad-size(64) template("${MSG}\\n")'
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, lines)
        stock, fast = self.pair_outputs(w)
        self.assertEqual(stock.count(b"\n"), 3)
        self.assert_same(stock, fast)


class TestAcceptedAsFile(Differential):
    def test_threaded_optional_flush_timeout(self):
        """flags("threaded") (fast-file() always is), optional() and the obsolete flush-timeout() change
        nothing, as for file(); flush-timeout() gets the lexer's warning in both"""
        opts = 'flags("threaded") optional(yes) flush-timeout(100)'
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts, stream_lines(500))
        self.assert_same(*self.pair_outputs(w))
        # the lexer warns once per keyword and process
        self.assertIn("keyword='flush_timeout'", self.output)


class TestSeqnumFlags4x(Differential):
    """4.x's flags(seqnum), flags(no-seqnum), flags(seqnum-all), flags(no-seqnum-all) (issue 17): which
    messages get ${SEQNUM} and the RFC 5424 sequenceId, local ones (the default), none or all; the
    remote ones carry their meta sequenceId otherwise.  Each flag is set or cleared as file() does it
    (one flags() after the other; within one, last to first); with writer flags in the same flags()."""

    def setUp(self):
        super().setUp()
        if not fdharness.SYSLOG_NG_4X:
            self.skipTest("flags(seqnum...) are syslog-ng 4.x options of file()")

    def run_seqnum(self, opts):
        port = free_tcp_port()
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts,
                          send=send_local_then_remote(RFC5424, port),
                          source=RFC5424_SOURCES.replace("%(port)d", str(port)), log_extra="rewrite(r_shape);")
        return self.pair_outputs(w)

    def test_template_seqnum(self):
        n = len(RFC5424)
        template = 'template("${SEQNUM} ${MSG}\\n")'
        # ${SEQNUM} of the third message (meta sequenceId="42"), sent locally and then remotely
        for flags, expected in (("", [b"3", b"42"]), ("flags(seqnum)", [b"3", b"42"]),
                                ("flags(no-seqnum)", [b"", b""]),
                                ("flags(seqnum-all)", [b"3", str(n + 3).encode()]),
                                # file()'s grammar applies the flags of one flags() last to first
                                ("flags(seqnum-all no-seqnum-all)", [b"3", str(n + 3).encode()]),
                                ("flags(no-seqnum-all seqnum-all)", [b"3", b"42"]),
                                ("flags(seqnum-all) flags(no-seqnum-all)", [b"3", b"42"]),
                                ("flags(seqnum-all) flags(no-seqnum)", [b"", b""])):
            with self.subTest(flags=flags):
                stock, fast = self.run_seqnum(template + " " + flags)
                self.assertEqual(re.findall(rb"^(\d*) bom$", stock, re.M), expected, flags)
                self.assert_same(stock, fast)

    def test_syslog_protocol_sequence_id(self):
        for flags in ("flags(syslog-protocol no-seqnum)", "flags(syslog-protocol seqnum-all)",
                      "flags(seqnum-all) flags(syslog-protocol)"):
            with self.subTest(flags=flags):
                stock, fast = self.run_seqnum(flags)
                self.assert_same(stock, fast)
                if "no-seqnum" in flags:
                    self.assert_lacks(b'[meta sequenceId="1"]', stock)
                else:
                    self.assert_has(b'[meta sequenceId="1"]', stock)

class TestWriterCountersPrometheus4x(Differential):
    """4.x: suppress()'s and truncate-size()'s counters named as file() names them: suppressed is
    syslogng_output_events_total{result="suppressed"} with the driver's labels, truncated_count and
    truncated_bytes legacy rows only; the same values for both"""

    def setUp(self):
        super().setUp()
        if not fdharness.SYSLOG_NG_4X:
            self.skipTest("syslog-ng %s has no `syslog-ng-ctl stats prometheus`" % fdharness.SYSLOG_NG_VERSION)

    def test_suppressed_and_truncated(self):
        w = self.workdir()
        opts = " suppress(30) truncate-size(40)"
        config = pair_config(w, '"%(w)s/file.out"' + opts, '"%(w)s/fast.out"' + opts).replace(
            "stats-level(1);", "stats(level(1));")
        lines = [b"<13>Nov 30 05:00:00 h p: same line, long enough to be cut at forty bytes"] * 5 + \
            [b"<13>Nov 30 05:00:01 h p: other"]
        with fdharness.SyslogNg(config, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "suppressed") == 4, 30), sng.stats())
            settle([w + "/file.out", w + "/fast.out"])
            metrics = sng.prometheus()
            stats = sng.stats()
        self.assert_same(*self.pair_outputs(w))
        for d_id, driver, path in (("d_file#0", "file", w + "/file.out"), ("d_fast#0", "fast-file", w + "/fast.out")):
            found = [(l, v) for n, l, v in metrics if n == "syslogng_output_events_total"
                     and l.get("id") == d_id and l.get("result") == "suppressed"]
            self.assertEqual(found, [({"driver": driver, "filename": path, "id": d_id, "result": "suppressed"}, 4)],
                             (d_id, [m for m in metrics if m[1].get("id") == d_id]))
            self.assertFalse([n for n, l, v in metrics if "truncated" in n], metrics)
        for typ in ("suppressed", "truncated_count", "truncated_bytes"):
            self.assertEqual(stats.get("dst.file;d_file#0;%s/file.out;a;%s" % (w, typ)),
                             stats.get("dst.fast-file;d_fast#0;%s/fast.out;a;%s" % (w, typ)), (typ, stats))
        self.assertGreater(stats.get("dst.fast-file;d_fast#0;%s/fast.out;a;truncated_count" % w), 0, stats)


class TestUnknownFlag(fdharness.TestCase):
    def check(self, flag):
        rc, out = fdharness.check_config('destination d { fast-file("/tmp/x" flags(%s)); };\n'
                                         'log { source { internal(); }; destination(d); };\n' % flag)
        self.assertNotEqual(rc, 0, out)
        return out

    def test_unknown_flag_names_the_flags_of_the_series(self):
        expected = "expected syslog-protocol, no-multi-line, threaded, ignore-errors"
        out = self.check("seqnums")
        if fdharness.SYSLOG_NG_4X:
            self.assertIn("unknown flag seqnums in flags(), %s, seqnum, no-seqnum, seqnum-all, no-seqnum-all"
                          % expected, out)
        else:
            # 3.38 has no seqnum flags: flags(seqnum) is refused as any unknown flag
            self.assertIn("unknown flag seqnums in flags(), %s in " % expected, out)
            self.assertIn("unknown flag seqnum in flags(), %s in " % expected, self.check("seqnum"))


class TestInternal4x(Differential):
    """4.x's internal(yes) (issue 17): the destination's counters move to stats level 3, as file()'s;
    internal(no) keeps them where they are; what is written does not change"""

    def setUp(self):
        super().setUp()
        if not fdharness.SYSLOG_NG_4X:
            self.skipTest("internal() is a syslog-ng 4.x driver option")

    def rows(self, internal, level):
        w = self.workdir()
        opts = " internal(%s) suppress(5)" % internal
        config = pair_config(w, '"%(w)s/file.out"' + opts, '"%(w)s/fast.out"' + opts).replace(
            "stats-level(1);", "stats(level(%d));" % level)
        lines = stream_lines(50)
        with fdharness.SyslogNg(config, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            settle([w + "/file.out", w + "/fast.out"])
            self.assertTrue(fdharness.wait_until(lambda: read(w + "/fast.out").count(b"\n") == len(lines), 30))
            stats = sng.stats()
        self.assert_same(*self.pair_outputs(w))

        def of(driver, d_id):
            return sorted(k.split(";")[-1] for k in stats if k.startswith("dst.%s;%s" % (driver, d_id)))
        return of("file", "d_file"), of("fast-file", "d_fast")

    def test_counters_at_level_3(self):
        stock, fast = self.rows("yes", 1)
        self.assertEqual(stock, [])
        self.assertEqual(fast, [])
        stock, fast = self.rows("yes", 3)
        for typ in ("written", "dropped", "processed", "suppressed", "truncated_count", "truncated_bytes"):
            self.assertIn(typ, stock)
            self.assertIn(typ, fast)
        stock, fast = self.rows("no", 1)
        for typ in ("written", "processed", "suppressed", "truncated_count", "truncated_bytes"):
            self.assertIn(typ, stock)
            self.assertIn(typ, fast)


class TestIgnoreErrors(fdharness.TestCase):
    def test_failed_write_drops_at_once(self):
        """flags(ignore-errors): the records of a write that fails are dropped (counted, logged) at the
        first failure, not held for retries() x time-reopen()"""
        w = self.workdir()
        cfg = """
options { stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_fast { fast-file("/dev/full" flags(ignore-errors) retries(5) time-reopen(60)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w}
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), stream_lines(50))
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "dropped") == 50, 15),
                            "dropped %d\n%s" % (stat(sng, "dropped"), sng.output()))
            self.assertEqual(stat(sng, "written"), 0)
            self.assertIn("No space left on device", sng.output())


class TestOverwriteIfOlder(Differential):
    def test_old_file_is_overwritten_recent_one_appended(self):
        """overwrite-if-older(): a file last modified longer ago is started anew when it is opened, a
        newer one is appended to; ${WEEKDAY} names from the message time stamps"""
        def prepare(w):
            for side in ("file", "fast"):
                os.makedirs(os.path.join(w, side))
                for day, age in (("Mon", 8 * 86400), ("Tue", 3600)):
                    path = os.path.join(w, side, "messages-%s" % day)
                    with open(path, "wb") as f:
                        f.write(b"from before\n")
                    os.utime(path, (time.time() - age, time.time() - age))

        def send(sng, w):
            lines = [b"<13>2026-11-30T05:00:00+00:00 h p: monday", b"<13>2026-12-01T05:00:00+00:00 h p: tuesday"]
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            return len(lines)
        opts = ' overwrite-if-older(86400)'
        w = self.workdir()
        prepare(w)
        config = pair_config(w, '"%(w)s/file/messages-${WEEKDAY}"' + opts, '"%(w)s/fast/messages-${WEEKDAY}"' + opts)
        with fdharness.SyslogNg(config, workdir=w) as sng:
            send(sng, w)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == 2, 20))
            settle([os.path.join(w, "file"), os.path.join(w, "fast")])
        stock, fast = tree(os.path.join(w, "file")), tree(os.path.join(w, "fast"))
        self.assertEqual(stock["messages-Mon"], b"Nov 30 05:00:00 h p: monday\n")
        self.assertEqual(stock["messages-Tue"], b"from before\nDec  1 05:00:00 h p: tuesday\n")
        self.assertEqual(stock, fast)

    def test_remove_if_older_is_the_obsolete_name(self):
        rc, out = fdharness.check_config('destination d { fast-file("/tmp/x" remove-if-older(10)); };\n'
                                         'log { source { internal(); }; destination(d); };\n')
        self.assertEqual(rc, 0, out)
        self.assertIn("keyword='remove_if_older', change='overwrite_if_older'", out)


class TestSymlinkAs(Differential):
    def test_link_follows_the_day(self):
        """symlink-as() points at the file opened last: a day's file when its first message comes
        (the day from the message time stamp), not back at an older one for a late message"""
        days = [[b"<13>2026-11-29T23:59:58+00:00 h p: sunday %d" % i for i in range(3)],
                [b"<13>2026-11-30T00:00:01+00:00 h p: monday %d" % i for i in range(3)],
                [b"<13>2026-11-29T23:59:59+00:00 h p: late sunday"],
                [b"<13>2026-12-01T00:00:00+00:00 h p: tuesday"]]
        expected = ["20261129", "20261130", "20261130", "20261201"]
        w = self.workdir()
        opts = '"%(w)s/{side}/${{YEAR}}${{MONTH}}${{DAY}}.log" create-dirs(yes) symlink-as("%(w)s/links/{side}-today.log")'
        config = pair_config(w, opts.format(side="file"), opts.format(side="fast"))
        sent = 0
        with fdharness.SyslogNg(config, workdir=w) as sng:
            for batch, day in zip(days, expected):
                fdharness.send_lines(os.path.join(w, "in.sock"), batch)
                sent += len(batch)
                self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") == sent, 20))
                settle([os.path.join(w, "file"), os.path.join(w, "fast")])
                for side in ("file", "fast"):
                    link = os.path.join(w, "links", "%s-today.log" % side)
                    self.assertEqual(os.readlink(link), os.path.join(w, side, day + ".log"), side)
        self.assertEqual(tree(os.path.join(w, "file")), tree(os.path.join(w, "fast")))


STAMP_RE = re.compile(rb"^[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}")


def normalise_own_lines(data):
    """the time stamp of the lines a destination makes itself at a time of its own (MARK, suppression
    summaries) replaced by a placeholder"""
    out = []
    for line in data.split(b"\n"):
        if line.endswith(b"-- MARK --") or b"suppressed by syslog-ng on" in line:
            line = STAMP_RE.sub(b"<STAMP>", line)
        out.append(line)
    return b"\n".join(out)


def wait_for_fraction(lo, hi):
    """sleep until the monotonic clock (syslog-ng's timers run on it) is between lo and hi into a second"""
    while not lo <= time.monotonic() % 1 < hi:
        time.sleep(0.01)


def floods():
    """runs of repeats (hosts interleaved, a different pid, a longer text, an empty text) and singles"""
    lines = []
    for run in range(20):
        for host in ("a", "b"):
            for _ in range(run % 5 + 1):
                lines.append(b"<13>Nov 30 05:00:%02d %s prog[7]: same old %d" % (run % 60, host.encode(), run // 4))
        lines.append(b"<13>Nov 30 05:00:00 a prog[8]: same old %d" % (run // 4))
        lines.append(b"<13>Nov 30 05:00:00 a prog[7]: %s" % (b"x" * (run % 3)))
    lines.append(b"<13>Nov 30 05:00:00 a prog[7]: the end")
    lines.append(b"<13>Nov 30 05:00:00 b prog[7]: the end")
    return lines


class TestSuppress(Differential):
    def test_runs_of_repeats(self):
        """suppress(60) in one file and per file (\${HOST}); the direct path and the queued one
        (throttle() sends every message through the queue)"""
        lines = floods()
        for name, extra in (("%(w)s/{}.out", ""), ("%(w)s/{}/${{HOST}}.log", " create-dirs(yes)"),
                            ("%(w)s/{}.out", " throttle(1000000)")):
            file_args = '"%s" suppress(60)%s' % (name.format("file"), extra.replace(" throttle(1000000)", ""))
            fast_args = '"%s" suppress(60)%s' % (name.format("fast"), extra)
            outputs = ("file.out", "fast.out") if name.endswith(".out") else ("file", "fast")
            w = self.run_pair(file_args, fast_args, lines, outputs=outputs)
            if name.endswith(".out"):
                stock, fast = self.pair_outputs(w)
                self.assert_same(normalise_own_lines(stock), normalise_own_lines(fast))
            else:
                stock, fast = tree(os.path.join(w, "file")), tree(os.path.join(w, "fast"))
                self.assertEqual(sorted(stock), ["a.log", "b.log"])
                for f in stock:
                    self.assert_same(normalise_own_lines(stock[f]), normalise_own_lines(fast[f]))
                fast = b"".join(fast.values())
            counts = [int(n) for n in re.findall(rb"Last message '[^']*' repeated (\d+) times, suppressed by syslog-ng on ",
                                                 fast)]
            self.assertGreater(len(counts), 5, short(fast))
            # a repeat is acked, counted in suppressed, not written; a summary is a message written
            self.assertEqual(self.stats["suppressed"], sum(counts))
            self.assertEqual(self.stats["processed"], len(lines) + len(counts))
            self.assertEqual(self.stats["written"], len(lines) - sum(counts) + len(counts))
            self.assertEqual(self.stats["queued"], 0)

    def test_summary_when_the_time_is_up(self):
        """without another message the summary comes suppress() seconds after the first repeat, and
        the next repeat after it is written as a new first"""
        def send(sng, w):
            sock = os.path.join(w, "in.sock")
            wait_for_fraction(0.2, 0.4)
            fdharness.send_lines(sock, [b"<13>Nov 30 05:00:00 h p[1]: again"] * 6)
            time.sleep(3.5)
            fdharness.send_lines(sock, [b"<13>Nov 30 05:00:00 h p[1]: again"] * 2)
            return 8
        w = self.run_pair('"%(w)s/file.out" suppress(2)', '"%(w)s/fast.out" suppress(2)', send=send)
        stock, fast = self.pair_outputs(w)
        self.assertEqual(stock.count(b"repeated 5 times"), 1, short(stock))
        self.assertEqual(stock.count(b": again\n"), 2, short(stock))
        self.assert_same(normalise_own_lines(stock), normalise_own_lines(fast))


def paced(plan, sock="in.sock", port=None):
    """send(sng, w) for run_pair: plan is [(lines, seconds to the next step, via)], via "unix" or "tcp";
    the first step 0.35 s into a second of the monotonic clock (syslog-ng's timers fire on whole
    seconds of it), every later one a whole number of seconds after it, so that no message comes
    near a MARK's second"""
    def send(sng, w):
        wait_for_fraction(0.3, 0.4)
        start, n, at = time.monotonic(), 0, 0.0
        for lines, pause, via in plan:
            delay = start + at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if via == "tcp":
                with socket.create_connection(("127.0.0.1", port)) as c:
                    c.sendall(b"".join(line + b"\n" for line in lines))
            else:
                fdharness.send_lines(os.path.join(w, sock), lines)
            n += len(lines)
            at += pause
        delay = start + at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        return n
    return send


def marks(data):
    return data.count(b"-- MARK --\n")


END = b"the end"


def end_line(host="h"):
    return b"<13>Nov 30 05:00:00 %s p[1]: %s" % (host.encode(), END)


def up_to_the_end(data):
    """the output up to the last line of the test's own: what comes later (MARKs while the outputs
    settle and syslog-ng stops) depends on when each destination stopped"""
    cut = data.rfind(END + b"\n")
    return data if cut < 0 else data[:cut + len(END) + 1]


class TestMark(Differential):
    def run_marks(self, opts, plan, expect_marks, **config_args):
        w = self.run_pair('"%(w)s/file.out" ' + opts, '"%(w)s/fast.out" ' + opts,
                          send=paced(plan + [([end_line()], 0, "unix")], port=config_args.pop("port", None)),
                          **config_args)
        stock, fast = (up_to_the_end(data) for data in self.pair_outputs(w))
        # the comparison is the test; the count says the plan's pauses did what they should (a
        # machine slow enough to move a message across a whole second may shift one MARK)
        self.assertLessEqual(abs(marks(stock) - expect_marks), 1, short(stock, 3000))
        self.assert_same(normalise_own_lines(stock), normalise_own_lines(fast))
        return stock, fast

    def test_dst_idle(self):
        """a MARK each mark-freq() seconds of silence, none while messages come"""
        burst = stream_lines(20)
        stock, _ = self.run_marks("mark-mode(dst-idle) mark-freq(1)",
                                  [(burst, 3, "unix"), (burst, 1, "unix"), (burst, 2, "unix")], 3 + 1 + 2)
        # file()'s MARK: the local host, no program
        self.assertRegex(stock.decode(), r"\n[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [^ ]+ -- MARK --\n")

    def test_host_idle_counts_only_remote_messages(self):
        port = free_tcp_port()
        source = ('source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname));\n'
                  '  network(ip("127.0.0.1") port(' + str(port) + ') transport(tcp)); };')
        burst = stream_lines(10)
        self.run_marks("mark-mode(host-idle) mark-freq(1)",
                       [(burst, 2, "unix"), (burst, 2, "tcp"), (burst, 1, "unix")], 0 + 2 + 1,
                       source=source, port=port)

    def test_periodical_whatever_comes(self):
        burst = stream_lines(5)
        self.run_marks("mark-mode(periodical) mark-freq(1)", [(burst, 0.5, "unix")] * 6, 3)

    def test_global_mark_mode_and_freq(self):
        """mark-mode(global) takes options { mark-mode() }, mark-freq() comes from options { } too"""
        burst = stream_lines(5)
        self.run_marks("mark-mode(global)", [(burst, 2, "unix")], 2,
                       options="mark-mode(dst-idle); mark-freq(1);")

    def test_per_file(self):
        """each file its own MARKs, as each file() writer has its own"""
        burst = stream_lines(9, hosts=3)
        ends = [end_line("host%d" % i) for i in range(3)]
        w = self.run_pair('"%(w)s/file/${HOST}.log" create-dirs(yes) mark-mode(dst-idle) mark-freq(1)',
                          '"%(w)s/fast/${HOST}.log" create-dirs(yes) mark-mode(dst-idle) mark-freq(1)',
                          send=paced([(burst, 2, "unix"), (burst[:1], 1, "unix"), (ends, 0, "unix")]),
                          outputs=("file", "fast"))
        stock, fast = tree(os.path.join(w, "file")), tree(os.path.join(w, "fast"))
        self.assertEqual(sorted(stock), ["host0.log", "host1.log", "host2.log"])
        stock = {f: up_to_the_end(data) for f, data in stock.items()}
        fast = {f: up_to_the_end(data) for f, data in fast.items()}
        self.assertTrue(all(abs(marks(stock[f]) - 3) <= 1 for f in stock), [marks(stock[f]) for f in sorted(stock)])
        for f in stock:
            self.assert_same(normalise_own_lines(stock[f]), normalise_own_lines(fast[f]))

    def test_marks_go_on_over_a_reopen(self):
        """syslog-ng-ctl reopen (logrotate) closes the files; file()'s writers keep their MARK timers,
        so the MARKs of an idle templated file go on, into the reopened file"""
        burst = stream_lines(6, hosts=2)

        def send(sng, w):
            n = paced([(burst, 1.5, "unix")])(sng, w)
            sng.reopen()
            time.sleep(2)
            ends = [end_line("host%d" % i) for i in range(2)]
            fdharness.send_lines(os.path.join(w, "in.sock"), ends)
            return n + len(ends)
        w = self.run_pair('"%(w)s/file/${HOST}.log" create-dirs(yes) mark-mode(dst-idle) mark-freq(1)',
                          '"%(w)s/fast/${HOST}.log" create-dirs(yes) mark-mode(dst-idle) mark-freq(1)',
                          send=send, outputs=("file", "fast"))
        stock, fast = tree(os.path.join(w, "file")), tree(os.path.join(w, "fast"))
        self.assertEqual(sorted(stock), ["host0.log", "host1.log"])
        for f in stock:
            a, b = up_to_the_end(stock[f]), up_to_the_end(fast[f])
            self.assertGreaterEqual(marks(a), 3, short(a, 2000))
            self.assert_same(normalise_own_lines(a), normalise_own_lines(b))

    def test_internal_marks_pass_only_with_mark_mode_internal(self):
        """internal() MARK messages (global mark-freq()) are written with mark-mode(internal) and left
        out otherwise (file()'s default is none); the same message objects reach both, so no time
        stamp differs.  A third file() with mark-mode(internal) shows that the MARKs came."""
        source = 'source s_in { internal(); unix-stream("%(w)s/in.sock" flags(expect-hostname)); };'
        template = 'template("${PROGRAM} ${MSG}\\n") '
        for opts, expected in (("mark-mode(internal)", True), ("", False), ("mark-mode(none)", False),
                               ("mark-mode(dst-idle) mark-freq(0)", False)):
            w = self.workdir()
            extra = 'destination d_witness { file("%s/witness.out" %s mark-mode(internal)); };' % (w, template)
            config = pair_config(w, '"%(w)s/file.out" ' + template + opts, '"%(w)s/fast.out" ' + template + opts,
                                 source=source, options="mark-freq(1);", extra=extra,
                                 log_extra="destination(d_witness);")
            witness = os.path.join(w, "witness.out")
            with fdharness.SyslogNg(config, workdir=w) as sng:
                # no local message before the MARKs: each postpones internal()'s MARK, and one that
                # comes just before its timer fires stops its MARKs (syslog-ng 3.38's afinter)
                self.assertTrue(fdharness.wait_until(
                    lambda: os.path.exists(witness) and marks(read(witness)) >= 2, 30), sng.output())
                fdharness.send_lines(os.path.join(w, "in.sock"), stream_lines(3) + [end_line()])
                self.assertTrue(fdharness.wait_until(
                    lambda: all(os.path.exists(os.path.join(w, n)) and END in read(os.path.join(w, n))
                                for n in ("file.out", "fast.out")), 30), sng.output())
            stock, fast = (up_to_the_end(data) for data in self.pair_outputs(w))
            self.assertEqual(b" -- MARK --\n" in stock, expected, opts + ": " + short(stock, 1000))
            self.assert_same(stock, fast)


# Every option of syslog-ng 3.38's file() destination (modules/affile/affile-grammar.ym
# dest_affile_option, lib/cfg-grammar.y dest_writer_option, dest_driver_option, file_perm_option,
# template_option), each in a valid form; the mark-mode() values, flags() and the empty perm forms
# each once.  4.8's additions (flags(seqnum) and others) are not in 3.38.
FILE_OPTIONS_338 = [
    'flags(syslog-protocol, no-multi-line, "threaded", ignore-errors)', "flags(no_multi_line)", "flags()",
    "flush-lines(10)", "flush-timeout(100)", "suppress(10)", 'template("${MSG}\\n")', "template-escape(yes)",
    "pad-size(0)", "truncate-size(100)", "mark-freq(10)",
    "mark-mode(internal)", "mark-mode(dst-idle)", "mark-mode(dst_idle)", "mark-mode(host-idle)",
    "mark-mode(periodical)", "mark-mode(none)", "mark-mode(global)", 'mark-mode("dst-idle")',
    "time-reopen(10)", "ts-format(iso)", "frac-digits(3)", 'time-zone("UTC")', 'send-time-zone("UTC")',
    'local-time-zone("UTC")', 'on-error("fallback-to-string")',
    "log-fifo-size(1000)", "throttle(0)", 'persist-name("every-option")',
    'owner("root")', "owner()", 'group("root")', "group()", "perm(0640)", "perm()",
    'dir-owner("root")', "dir-owner()", 'dir-group("root")', "dir-group()", "dir-perm(0750)", "dir-perm()",
    "optional(yes)", "overwrite-if-older(86400)", "remove-if-older(86400)", 'symlink-as("/tmp/fastdest-current")',
    "fsync(no)", "time-reap(30)", "create-dirs(yes)",
]


class TestEveryFileOption(fdharness.TestCase):
    def check(self, driver, options):
        config = "destination d {\n  %s(\"/tmp/fastdest-every-option/${HOST}.log\"\n    %s\n  );\n};\n" \
                 "log { source { internal(); }; destination(d); };\n" % (driver, "\n    ".join(options))
        return fdharness.check_config(config)

    def test_a_config_that_works_with_file_works_with_fast_file(self):
        """all of file()'s options at once, in both drivers: both accepted, with the same warnings
        (syslog-ng's obsolete-keyword ones for flush-timeout() and remove-if-older())"""
        results = {}
        for driver in ("file", "fast-file"):
            rc, out = self.check(driver, FILE_OPTIONS_338)
            self.assertEqual(rc, 0, "%s() refused file()'s options:\n%s" % (driver, out))
            results[driver] = sorted(re.sub(r"/tmp/fdcheck-[^/]*/", "", re.sub(r"^\[[^]]*\] ", "", line))
                                     for line in out.splitlines() if line.strip())
        self.assertEqual(results["file"], results["fast-file"])
        self.assertTrue(any("flush_timeout" in line for line in results["fast-file"]), results)
        self.assertTrue(any("remove_if_older" in line for line in results["fast-file"]), results)

    def test_each_option_alone(self):
        for option in FILE_OPTIONS_338:
            rc, out = self.check("fast-file", [option])
            self.assertEqual(rc, 0, "fast-file(%s) refused:\n%s" % (option, out))


if __name__ == "__main__":
    fdharness.main()
