# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""fast-file() against stock file(), both in one stock syslog-ng: same bytes,
encodings and line endings, templated names, and config errors."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

N = 3000


def fixture_lines(n, programs=7, multiline=True):
    lines = []
    for i in range(n):
        body = "message %d with \u00fcn\u00efc\u00f6d\u00e9 \"quotes\" 'single' and \\backslash" % i
        if multiline and i % 97 == 0:
            body += " MULTILINE"
        if i % 211 == 0:
            body = ""
        lines.append(("<%d>Nov 30 05:%02d:%02d host%d prog%d[%d]: %s"
                      % (8 + i % 160, (i // 60) % 60, i % 60, i % 3, i % programs, 1000 + i, body)).encode())
    return lines


def config(workdir, file_opts, fast_opts, extra=""):
    return """
options { keep-hostname(yes); stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
rewrite r_ml { set("${MSG}\\nsecond line\\n  third line" value("MSG") condition(match("MULTILINE" value("MSG")))); };
destination d_file { file("%(w)s/file.out" %(file_opts)s); };
destination d_fast { fast-file("%(w)s/fast.out" %(fast_opts)s); };
%(extra)s
log { source(s_in); rewrite(r_ml); destination(d_file); destination(d_fast); };
""" % {"w": workdir, "file_opts": file_opts, "fast_opts": fast_opts, "extra": extra}


def written(sng, name):
    v = sng.stat("dst.", name, "written")
    return v or 0


def run_pair(tc, file_opts, fast_opts, lines=None):
    w = tc.workdir()
    lines = lines or fixture_lines(N)
    with fdharness.SyslogNg(config(w, file_opts, fast_opts), workdir=w) as sng:
        fdharness.send_lines(os.path.join(w, "in.sock"), lines)
        ok = fdharness.wait_until(lambda: written(sng, "d_fast") >= len(lines)
                                  and os.path.exists(os.path.join(w, "file.out")), 30)
        tc.assertTrue(ok, "fast-file wrote %r of %d; %s" % (written(sng, "d_fast"), len(lines), sng.output()))
        # file() has no ack counter we can trust for byte stability: wait until its size settles
        sizes = []
        fdharness.wait_until(lambda: sizes.append(os.path.getsize(os.path.join(w, "file.out")))
                             or (len(sizes) > 5 and sizes[-1] == sizes[-6]), 30, 0.1)
        tc.assertEqual(sng.stat("dst.", "d_fast", "dropped") or 0, 0)
    with open(os.path.join(w, "file.out"), "rb") as f:
        stock = f.read()
    with open(os.path.join(w, "fast.out"), "rb") as f:
        fast = f.read()
    return stock, fast


class TestDifferential(fdharness.TestCase):
    def assert_same(self, stock, fast):
        self.assertGreater(len(stock), N * 20)
        if stock != fast:
            sl, fl = stock.split(b"\n"), fast.split(b"\n")
            for i, (a, b) in enumerate(zip(sl, fl)):
                if a != b:
                    self.fail("first difference at line %d:\n file(): %r\n fast-file(): %r" % (i, a, b))
            self.fail("lengths differ: file() %d bytes, fast-file() %d bytes" % (len(stock), len(fast)))

    def test_default_template(self):
        self.assert_same(*run_pair(self, "", ""))

    def test_file_style_template(self):
        t = 'template("${ISODATE} ${HOST} ${MSGHDR}${MSG}\\n")'
        self.assert_same(*run_pair(self, t, t))

    def test_macros_and_functions(self):
        t = ('template("${S_ISODATE} ${FACILITY}.${LEVEL} ${PRI} ${HOST}/${PROGRAM}[${PID}] '
             'len=$(length \\"${MSG}\\") $(uppercase ${PROGRAM}) ${MSG}\\n") ts-format(rfc3339) frac-digits(3)')
        self.assert_same(*run_pair(self, t, t))

    def test_template_escape(self):
        t = 'template("\\"${MSG}\\" \'${PROGRAM}\'\\n") template-escape(yes)'
        stock, fast = run_pair(self, t, t)
        self.assertIn(b'\\"quotes\\"', stock)
        self.assert_same(stock, fast)

    def test_time_zone_options(self):
        t = 'template("${ISODATE} ${MSG}\\n") time-zone("Asia/Tokyo") ts-format(iso)'
        self.assert_same(*run_pair(self, t, t))


class TestEncodings(fdharness.TestCase):
    # line-ending() ends records; a newline inside a message is content and stays as it is
    def test_utf16le_crlf_equals_iconv_of_file_output(self):
        stock, fast = run_pair(self, "", 'encoding("UTF-16LE") line-ending(crlf)', fixture_lines(N, multiline=False))
        expected = subprocess.run(["iconv", "-f", "UTF-8", "-t", "UTF-16LE"],
                                  input=stock.replace(b"\n", b"\r\n"), stdout=subprocess.PIPE,
                                  check=True).stdout
        self.assertEqual(len(fast), len(expected))
        self.assertEqual(fast, expected)

    def test_iso8859_2_cr(self):
        stock, fast = run_pair(self, "", 'encoding("ISO-8859-2") line-ending(cr)', fixture_lines(N, multiline=False))
        expected = stock.decode("utf-8").replace("\n", "\r").encode("iso-8859-2", errors="replace")
        self.assertEqual(fast, expected)

    def test_embedded_newlines_are_content(self):
        stock, fast = run_pair(self, 'template("${MSG}\\n")', 'template("${MSG}\\n") line-ending(crlf)')
        self.assertIn(b"MULTILINE\nsecond line\n  third line\r\n", fast)
        self.assertEqual(fast.count(b"\r\n"), N)
        self.assertEqual(fast.replace(b"\r\n", b"\n"), stock)

    def test_line_ending_none_and_template_without_newline(self):
        stock, fast = run_pair(self, 'template("<${MSG}>")', 'template("<${MSG}>") line-ending(none)')
        self.assertEqual(fast, stock)
        # a template without a trailing newline still gets the configured line ending
        stock, fast = run_pair(self, 'template("<${MSG}>\\n")', 'template("<${MSG}>")')
        self.assertEqual(fast, stock)

    def test_bom_only_for_new_empty_file(self):
        w = self.workdir()
        lines = fixture_lines(50)
        cfg = config(w, "", 'encoding("UTF-16LE") bom(yes) line-ending(crlf)')
        for round_ in range(2):
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                fdharness.send_lines(os.path.join(w, "in.sock"), lines)
                self.assertTrue(fdharness.wait_until(lambda: written(sng, "d_fast") >= 50, 20))
        with open(os.path.join(w, "fast.out"), "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"\xff\xfe"))
        self.assertEqual(data.count(b"\xff\xfe"), 1, "a BOM was written into a non-empty file")


class TestTemplatedNames(fdharness.TestCase):
    def test_thousand_files_with_bounded_fds(self):
        w = self.workdir()
        nfiles, per_file = 1200, 5
        lines = fixture_lines(nfiles * per_file, programs=nfiles)
        cfg = """
options { keep-hostname(yes); stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_fast { fast-file("%(w)s/out/${PROGRAM}.log" template("${PROGRAM} ${MSG}\\n")
                     max-open-files(16) create-dirs(yes) batch-lines(500)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w}
        outdir = os.path.join(w, "out") + "/"
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            with fdharness.PeakFds(sng.pid, outdir) as fds:
                fdharness.send_lines(os.path.join(w, "in.sock"), lines)
                ok = fdharness.wait_until(lambda: written(sng, "d_fast") >= len(lines), 60)
            self.assertTrue(ok, sng.output())
            self.assertLessEqual(fds.peak, 16)
            self.assertGreaterEqual(fds.peak, 8, "the sampler never saw the files open")
        names = os.listdir(os.path.join(w, "out"))
        self.assertEqual(len(names), nfiles)
        for name in names:
            prog = name[:-4]
            with open(os.path.join(w, "out", name), "rb") as f:
                content = f.read().split(b"\n")
            self.assertEqual(content[-1], b"")
            self.assertEqual(len(content) - 1, per_file, name)
            for line in content[:-1]:
                self.assertTrue(line.startswith(prog.encode() + b" "), (name, line))

    def test_spurious_path_is_dropped_and_counted(self):
        w = self.workdir()
        cfg = """
options { keep-hostname(yes); stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_fast { fast-file("%(w)s/out/${HOST}/x.log" create-dirs(yes)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w}
        lines = [b"<13>Nov 30 05:00:00 good prog: a", b"<13>Nov 30 05:00:00 .. prog: b",
                 b"<13>Nov 30 05:00:00 good prog: c"]
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(
                lambda: (sng.stat("dst.", "d_fast", "dropped") or 0) == 1 and written(sng, "d_fast") == 2, 20),
                sng.output())
            self.assertIn("Spurious path", sng.output().replace("spurious path", "Spurious path"))
        self.assertEqual(fdharness.count_lines(os.path.join(w, "out", "good", "x.log")), 2)
        self.assertFalse(os.path.exists(os.path.join(w, "x.log")))


class TestConfigErrors(fdharness.TestCase):
    def check(self, options, *expected):
        rc, out = fdharness.check_config("""
destination d { fast-file("/tmp/fastdest-never-written.log" %s); };
log { destination(d); };
""" % options)
        self.assertNotEqual(rc, 0, out)
        for e in expected:
            self.assertIn(e, out)

    def test_bad_line_ending(self):
        self.check('line-ending(foo)', "line-ending(foo)")

    def test_unknown_charset(self):
        self.check('encoding("NO-SUCH-CHARSET")', "NO-SUCH-CHARSET")

    def test_unknown_option(self):
        self.check('no-such-option(1)', "no-such-option")

    def test_wrong_types(self):
        self.check('max-open-files(0)', "max-open-files")
        self.check('bom(maybe)', "bom")
        self.check('buffer-size(-1)', "buffer-size")

    def test_missing_path(self):
        rc, out = fdharness.check_config('destination d { fast-file(); }; log { destination(d); };')
        self.assertNotEqual(rc, 0, out)

    def test_valid_config_with_every_option(self):
        rc, out = fdharness.check_config("""
destination d { fast-file("/tmp/fastdest/${HOST}/${PROGRAM}.log"
    template("${ISODATE} ${HOST} ${MSGHDR}${MSG}\\n") template-escape(no)
    line-ending(lf) encoding("UTF-8") bom(no)
    batch-lines(1000) batch-timeout(100) workers(1) buffer-size(0)
    create-dirs(yes) perm(0640) owner("root") group("root") dir-perm(0750) dir-owner("root") dir-group("root")
    fsync(no) time-reap(60) max-open-files(256) time-reopen(60) retries(3)
    persist-name("app") log-fifo-size(100000) throttle(0) follow-symlinks(yes) flush-lines(10)
    ts-format(iso) frac-digits(3) time-zone("UTC") send-time-zone("UTC") local-time-zone("UTC") on-error("drop-property")); };
log { destination(d); };
""")
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    fdharness.main()
