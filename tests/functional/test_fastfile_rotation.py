# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 16: fast-file()'s logrotate(enable(yes) size(BYTES) rotations(N)),
syslog-ng 4.10 file()'s names and file naming, in the stock syslog-ng 3.38:
no file beyond size() unless one record alone is larger, every line exactly
once and in order across app.log.N ... app.log.1, app.log, the oldest
deleted, templated names rotating on their own, failed renames logged and
retried without holding up other files, syslog-ng-ctl reopen after an
external rotation."""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402


def config(w, name, options, template='"$MSG\\n"', extra_options="", flags="no-parse"):
    return """
options { keep-hostname(yes); stats-level(1); time-reopen(1); %(extra)s };
source s_in { unix-stream("%(w)s/in.sock" flags(%(flags)s)); };
destination d_fast { fast-file("%(w)s/%(name)s" template(%(template)s) %(options)s); };
log { source(s_in); destination(d_fast); };
""" % {"w": w, "name": name, "options": options, "template": template, "extra": extra_options,
                 "flags": flags}


def numbered(n, prefix="line", width=60):
    """lines of about `width` bytes, each naming its number"""
    return [("%s %06d " % (prefix, i)).encode().ljust(width, b"x") for i in range(n)]


def chain(w, base):
    """[base.N, ..., base.1, base]: the rotated files oldest first, then the current one"""
    rotated = []
    for name in os.listdir(w):
        m = re.fullmatch(re.escape(base) + r"\.(\d+)", name)
        if m:
            rotated.append((int(m.group(1)), name))
    names = [name for _, name in sorted(rotated, reverse=True)]
    if os.path.exists(os.path.join(w, base)):
        names.append(base)
    return names


def read(path):
    with open(path, "rb") as f:
        return f.read()


def read_or_empty(path):
    """a rotated name is missing between its rename and the next write"""
    try:
        return read(path)
    except FileNotFoundError:
        return b""


def stat(sng, typ):
    return sng.stat("dst.fast-file", "d_fast", typ) or 0


class Rotation(fdharness.TestCase):
    def run_lines(self, w, cfg, lines, settle_path=None):
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines)
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= len(lines), 60),
                            "written %d of %d\n%s" % (stat(sng, "written"), len(lines), sng.output()))
            return sng.stats(), sng.output()

    def assert_chain(self, w, base, size, lines, rotations):
        """the files hold a suffix of lines (all of them when nothing was deleted), in order, whole,
        each file within size unless it holds one record alone"""
        names = chain(w, base)
        self.assertLessEqual(len(names), rotations + 1, names)
        got = []
        for name in names:
            data = read(os.path.join(w, name))
            file_lines = data.split(b"\n")
            self.assertEqual(file_lines[-1], b"", "%s does not end in a whole line" % name)
            file_lines = file_lines[:-1]
            if len(data) > size:
                self.assertEqual(len(file_lines), 1, "%s is %d bytes, over size(%d), with %d records"
                                 % (name, len(data), size, len(file_lines)))
            got += file_lines
        self.assertEqual(got, lines[len(lines) - len(got):], "lines lost, doubled or out of order")
        return names, got

    def test_rotates_by_size_keeping_every_line_in_order(self):
        w = self.workdir()
        lines = numbered(3000)
        size = 10000
        stats, _ = self.run_lines(w, config(w, "app.log", "logrotate(enable(yes) size(%d) rotations(100))" % size),
                                  lines)
        names, got = self.assert_chain(w, "app.log", size, lines, 100)
        self.assertEqual(got, lines, "with enough rotations every line is kept")
        # 61-byte records: 163 to a file of 10000 bytes
        self.assertEqual(len(names), -(-len(lines) // (size // 61)), names)
        for name in names[:-1]:
            self.assertGreater(os.path.getsize(os.path.join(w, name)), size - 61, "%s rotated early" % name)
        rotated = sum(v for k, v in stats.items() if k.startswith("dst.fast-file;d_fast") and k.endswith(";rotations"))
        self.assertEqual(rotated, len(names) - 1, stats)

    def test_oldest_deleted_beyond_rotations(self):
        w = self.workdir()
        lines = numbered(2000)
        self.run_lines(w, config(w, "app.log", "logrotate(enable(yes) size(5000) rotations(2))"), lines)
        names, got = self.assert_chain(w, "app.log", 5000, lines, 2)
        self.assertEqual(names, ["app.log.2", "app.log.1", "app.log"])
        self.assertEqual(got[-1], lines[-1])
        self.assertFalse(os.path.exists(os.path.join(w, "app.log.3")))

    def test_record_larger_than_size_goes_alone(self):
        w = self.workdir()
        lines = numbered(3, "small") + [b"big " + b"y" * 500] + numbered(3, "after")
        self.run_lines(w, config(w, "app.log", "logrotate(enable(yes) size(200) rotations(10))"), lines)
        names, got = self.assert_chain(w, "app.log", 200, lines, 10)
        self.assertEqual(got, lines)
        big = [name for name in names if b"big " in read(os.path.join(w, name))]
        self.assertEqual(len(big), 1)
        self.assertEqual(read(os.path.join(w, big[0])), lines[3] + b"\n", "the large record shares its file")

    def test_templated_names_rotate_on_their_own(self):
        w = self.workdir()
        hosts = ["a", "b", "c"]
        per_host = {h: numbered(600, "host-" + h) for h in hosts}
        self.run_lines(w, config(w, "host-${PROGRAM}.log", "logrotate(enable(yes) size(4000) rotations(50))",
                                 flags=""),
                       [h.encode() + b": " + per_host[h][i] for i in range(600) for h in hosts])
        for h in hosts:
            names, got = self.assert_chain(w, "host-%s.log" % h, 4000, per_host[h], 50)
            self.assertEqual(got, per_host[h])
            self.assertGreater(len(names), 5)

    def test_rename_failure_is_retried_without_holding_up_other_files(self):
        w = self.workdir()
        # a directory, not empty, where a.log.1 would go: rename(a.log, a.log.1) fails (EISDIR) until it is gone
        os.mkdir(os.path.join(w, "a.log.1"))
        with open(os.path.join(w, "a.log.1", "keep"), "w") as f:
            f.write("not empty")
        cfg = config(w, "${PROGRAM}.log", "logrotate(enable(yes) size(1000) rotations(1))", flags="")
        # 16 of these to a file: a rotates once
        a_lines = numbered(30, "a-line")
        b_lines = numbered(200, "b-line")
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"),
                                 [b"a: " + line for line in a_lines] + [b"b: " + line for line in b_lines])
            # b's files rotate and its last line is written while a waits
            self.assertTrue(fdharness.wait_until(
                lambda: read_or_empty(os.path.join(w, "b.log")).endswith(b_lines[-1] + b"\n"), 30), sng.output())
            self.assertTrue(fdharness.wait_until(lambda: "error rotating file" in sng.output(), 30), sng.output())
            self.assertRegex(sng.output(), r"error rotating file.*new_file='[^']*a\.log\.1'")
            self.assertEqual(read(os.path.join(w, "a.log")), b"".join(line + b"\n" for line in a_lines[:16]))
            shutil.rmtree(os.path.join(w, "a.log.1"))
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= 230, 30),
                            "written %d\n%s" % (stat(sng, "written"), sng.output()))
            self.assertEqual(stat(sng, "dropped"), 0)
        _, got = self.assert_chain(w, "a.log", 1000, a_lines, 1)
        self.assertEqual(got, a_lines)

    def test_external_rotation_and_reopen(self):
        w = self.workdir()
        lines = numbered(600)
        cfg = config(w, "app.log", "logrotate(enable(yes) size(20000) rotations(5))")
        with fdharness.SyslogNg(cfg, workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), lines[:100])
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= 100, 30), sng.output())
            # an external rotation: the file we write is moved away; ours to let go of on reopen
            os.rename(os.path.join(w, "app.log"), os.path.join(w, "moved.log"))
            sng.reopen()
            fdharness.send_lines(os.path.join(w, "in.sock"), lines[100:])
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= 600, 30), sng.output())
        self.assertEqual(read(os.path.join(w, "moved.log")), b"".join(line + b"\n" for line in lines[:100]),
                         "the moved file was rotated or written after reopen")
        _, got = self.assert_chain(w, "app.log", 20000, lines[100:], 5)
        self.assertEqual(got, lines[100:])

    def test_defaults_of_syslog_ng_4_10(self):
        """enable(yes) alone: size(1000000) rotations(1); enable(no) turns a configured rotation off"""
        w = self.workdir()
        lines = numbered(20000, width=99)
        self.run_lines(w, config(w, "app.log", "logrotate(enable(yes))"), lines)
        names, got = self.assert_chain(w, "app.log", 1000000, lines, 1)
        self.assertEqual(names, ["app.log.1", "app.log"])
        self.assertGreater(os.path.getsize(os.path.join(w, "app.log.1")), 1000000 - 100)
        self.assertEqual(got, lines[len(lines) - len(got):])

        w = self.workdir()
        lines = numbered(500)
        self.run_lines(w, config(w, "app.log", "logrotate(enable(no) size(1000) rotations(3))"), lines)
        self.assertEqual(chain(w, "app.log"), ["app.log"])

    def test_workers_share_the_rotation(self):
        """workers(2) append to one file: whichever rotates it, the other lets go of it; every line
        once (their order is not kept across workers, as without rotation)"""
        w = self.workdir()
        lines = numbered(6000)
        rotations = 1000
        with fdharness.SyslogNg(config(w, "app.log", "workers(2) logrotate(enable(yes) size(8000) rotations(%d))"
                                       % rotations), workdir=w) as sng:
            # two connections: two main loop threads deliver, so both workers write
            import threading
            half = len(lines) // 2
            senders = [threading.Thread(target=fdharness.send_lines, args=(os.path.join(w, "in.sock"), part))
                       for part in (lines[:half], lines[half:])]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            self.assertTrue(fdharness.wait_until(lambda: stat(sng, "written") >= len(lines), 60), sng.output())
        got = []
        for name in chain(w, "app.log"):
            data = read(os.path.join(w, name))
            self.assertTrue(data.endswith(b"\n"), name)
            got += data.split(b"\n")[:-1]
        self.assertLess(len(chain(w, "app.log")), rotations, "the oldest name was reached: lines may be deleted")
        self.assertEqual(sorted(got), sorted(lines), "lines lost or doubled")

    def test_no_rotation_without_rotations(self):
        w = self.workdir()
        lines = numbered(500)
        self.run_lines(w, config(w, "app.log", "logrotate(enable(yes) size(1000) rotations(0))"), lines)
        self.assertEqual(chain(w, "app.log"), ["app.log"])
        self.assertEqual(read(os.path.join(w, "app.log")), b"".join(line + b"\n" for line in lines))


class RotationConfig(fdharness.TestCase):
    def check(self, options):
        return fdharness.check_config('destination d { fast-file("/tmp/x.log" %s); };\n'
                                      'log { destination(d); };\n# trailing\n' % options)

    def test_sizes_of_2_gib_and_more_are_accepted(self):
        rc, out = self.check("logrotate(enable(yes) size(3000000000) rotations(4))")
        self.assertEqual(rc, 0, out)
        rc, out = self.check("logrotate(enable(yes) size(8GiB) rotations(4))")
        self.assertEqual(rc, 0, out)

    def test_bad_values_name_the_option(self):
        for options, needle in (("logrotate(size(0))", "logrotate(size(0))"),
                                ("logrotate(size(-5))", "logrotate(size(-5))"),
                                ("logrotate(rotations(-1))", "logrotate(rotations(-1))")):
            rc, out = self.check(options)
            self.assertNotEqual(rc, 0, options)
            self.assertIn(needle, out, options)

    def test_unknown_suboption_is_an_error(self):
        rc, out = self.check("logrotate(enable(yes) sise(100))")
        self.assertNotEqual(rc, 0, out)


if __name__ == "__main__":
    fdharness.main()
