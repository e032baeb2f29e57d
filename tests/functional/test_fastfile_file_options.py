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

    def assert_same(self, stock, fast, min_len=1):
        self.assertGreaterEqual(len(stock), min_len, "file() wrote too little: %r" % stock[:200])
        if stock != fast:
            self.fail(first_difference(stock, fast))

    def run_pair(self, file_args, fast_args, lines, outputs=("file.out", "fast.out"), expect_processed=None,
                 between=None, **config_args):
        """send lines (a list of byte lines, or of lists sent one after the other with between() run
        in between), wait until fast-file() has processed them and both outputs settled; returns the
        workdir"""
        w = self.workdir()
        batches = lines if lines and isinstance(lines[0], list) else [lines]
        total = sum(len(b) for b in batches)
        with fdharness.SyslogNg(pair_config(w, file_args, fast_args, **config_args), workdir=w) as sng:
            for i, batch in enumerate(batches):
                if i and between:
                    between(sng, w, i)
                fdharness.send_lines(os.path.join(w, "in.sock"), batch)
            want = total if expect_processed is None else expect_processed
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "processed") >= want, 30),
                            "fast-file() processed %d of %d\n%s" % (stat(sng, "processed"), want, sng.output()))
            settle([os.path.join(w, o) for o in outputs])
            self.output = sng.output()
            self.stats = {t: stat(sng, t) for t in ("processed", "written", "dropped", "queued", "suppressed",
                                                    "truncated_count", "truncated_bytes")}
        return w


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
        global file-template()) is shared with other destinations and stays as it is"""
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


if __name__ == "__main__":
    fdharness.main()
