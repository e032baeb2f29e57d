# Copyright (c) 2026 fastdest authors
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 16: fast-file() compression(gzip|zstd|none) and compression-level(),
read back with the stock zcat / zstdcat: the decompressed bytes are exactly
what the same fast-file() writes uncompressed (encoding and line ending
applied first), the file decompresses at any moment, a unit cut short at the
end is cut at the next open, rotated files decompress too, and the byte
counters add up."""

import os
import re
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

READERS = {"gzip": ["zcat"], "zstd": ["zstdcat"]}


def decompress(kind, path):
    """the stock reader's output; raises on any error or warning (trailing garbage included)"""
    r = subprocess.run(READERS[kind] + [path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0 or r.stderr:
        raise AssertionError("%s %s: exit %d: %s" % (READERS[kind][0], path, r.returncode, r.stderr[:300]))
    return r.stdout


def read(path):
    with open(path, "rb") as f:
        return f.read()


def units(kind, path):
    """how many gzip members or zstd frames the file holds: one per batch written"""
    if kind == "zstd":
        r = subprocess.run(["zstd", "-l", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
        return int(r.stdout.splitlines()[1].split()[0])
    data, n = read(path), 0
    while data:
        d = zlib.decompressobj(wbits=31)
        d.decompress(data)
        data = d.unused_data
        n += 1
    return n


def lines(n, prefix="message"):
    return [("<13>Dec  1 12:%02d:%02d host%d prog%d[%d]: %s %06d caf\u00e9 some repeated text for the ratio"
             % ((i // 60) % 60, i % 60, i % 3, i % 5, 100 + i % 7, prefix, i)).encode() for i in range(n)]


def pair_config(w, options, common="", extra_options=""):
    """the same fast-file() twice, plain and with `options`"""
    return """
options { keep-hostname(yes); stats-level(1); time-reopen(1); %(extra)s };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_plain { fast-file("%(w)s/plain.log" %(common)s); };
destination d_fast { fast-file("%(w)s/out.log" %(common)s %(options)s); };
log { source(s_in); destination(d_plain); destination(d_fast); };
""" % {"w": w, "options": options, "common": common, "extra": extra_options}


def stat(sng, dest, typ):
    return sng.stat("dst.fast-file", dest, typ) or 0


class Compression(fdharness.TestCase):
    def run_pair(self, options, msgs, common="", w=None):
        w = w or self.workdir()
        with fdharness.SyslogNg(pair_config(w, options, common), workdir=w) as sng:
            fdharness.send_lines(os.path.join(w, "in.sock"), msgs)
            self.assertTrue(fdharness.wait_until(
                lambda: stat(sng, "d_fast", "written") >= len(msgs) and stat(sng, "d_plain", "written") >= len(msgs),
                60), sng.output())
            stats = sng.stats()
            output = sng.output()
        return w, stats, output

    def check_same_as_plain(self, kind, level_option="", common=""):
        msgs = lines(5000)
        w, stats, _ = self.run_pair("compression(%s) %s" % (kind, level_option), msgs, common)
        plain = read(os.path.join(w, "plain.log"))
        compressed = read(os.path.join(w, "out.log"))
        self.assertGreater(len(plain), 5000 * 50)
        self.assertEqual(decompress(kind, os.path.join(w, "out.log")), plain)
        self.assertLess(len(compressed), len(plain) / 4, "compression(%s) does not compress" % kind)

        def counter(name):
            return sum(v for k, v in stats.items() if k.startswith("dst.fast-file;d_fast") and k.endswith(";" + name))
        self.assertEqual(counter("uncompressed_bytes"), len(plain), stats)
        self.assertEqual(counter("compressed_bytes"), len(compressed), stats)
        return w

    def test_gzip_reads_back_with_zcat(self):
        self.check_same_as_plain("gzip")

    def test_zstd_reads_back_with_zstdcat(self):
        self.check_same_as_plain("zstd")

    def test_levels(self):
        """two destinations of the same messages in one syslog-ng, levels apart: each writes all of them
        in one batch (batch-timeout() holds it, under the 64 KiB after which a batch goes early), so the
        sizes differ by the level alone (how the lines fell into batches made level 9 the bigger once)"""
        for kind, low, high in (("zstd", 1, 19), ("gzip", 1, 9)):
            w = self.workdir()
            cfg = """
options { keep-hostname(yes); stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_plain { fast-file("%(w)s/plain.log"); };
destination d_low { fast-file("%(w)s/low.log" compression(%(kind)s) compression-level(%(low)d) %(one)s); };
destination d_high { fast-file("%(w)s/high.log" compression(%(kind)s) compression-level(%(high)d) %(one)s); };
log { source(s_in); destination(d_plain); destination(d_low); destination(d_high); };
""" % {"w": w, "kind": kind, "low": low, "high": high,
                "one": "batch-lines(100000) batch-timeout(3000) buffer-size(1048576)"}
            msgs = lines(600)
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                fdharness.send_lines(os.path.join(w, "in.sock"), msgs)
                self.assertTrue(fdharness.wait_until(
                    lambda: all(stat(sng, d, "written") >= len(msgs) for d in ("d_plain", "d_low", "d_high")), 60))
            plain = read(os.path.join(w, "plain.log"))
            self.assertLess(len(plain), 64 * 1024)
            for name in ("low.log", "high.log"):
                self.assertEqual(decompress(kind, os.path.join(w, name)), plain)
                self.assertEqual(units(kind, os.path.join(w, name)), 1, name)
            self.assertLess(os.path.getsize(os.path.join(w, "high.log")), os.path.getsize(os.path.join(w, "low.log")),
                            kind)
            if kind == "gzip":
                # the gzip header's XFL byte: 4 = fastest (level 1), 2 = best (level 9)
                self.assertEqual(read(os.path.join(w, "low.log"))[8], 4)
                self.assertEqual(read(os.path.join(w, "high.log"))[8], 2)

    def test_none_is_plain(self):
        msgs = lines(300)
        w, _, _ = self.run_pair("compression(none)", msgs)
        self.assertEqual(read(os.path.join(w, "out.log")), read(os.path.join(w, "plain.log")))

    def test_encoding_and_line_ending_apply_before_compression(self):
        for kind in ("gzip", "zstd"):
            self.check_same_as_plain(kind, common='encoding("UTF-16LE") line-ending(crlf) bom(yes)')

    def test_decompresses_after_every_batch(self):
        """the file decompresses whole after every write: each batch is complete units, nothing is held back"""
        for kind in ("gzip", "zstd"):
            w = self.workdir()
            msgs = lines(6000)
            chunk = 300
            with fdharness.SyslogNg(pair_config(w, "compression(%s)" % kind), workdir=w) as sng:
                for i in range(0, len(msgs), chunk):
                    fdharness.send_lines(os.path.join(w, "in.sock"), msgs[i:i + chunk])
                    self.assertTrue(fdharness.wait_until(lambda: stat(sng, "d_fast", "written") >= i + chunk, 30))
                    text = decompress(kind, os.path.join(w, "out.log"))
                    self.assertEqual(text.count(b"\n"), i + chunk, "%s after %d messages" % (kind, i + chunk))
            self.assertEqual(decompress(kind, os.path.join(w, "out.log")), read(os.path.join(w, "plain.log")))

    def test_partial_unit_at_the_end_is_cut_at_open(self):
        """a file left with a member/frame cut short (as by kill -9 mid-write) is cut back at the next open"""
        for kind in ("gzip", "zstd"):
            w = self.workdir()
            first, second = lines(200, "first"), lines(200, "second")
            self.run_pair("compression(%s)" % kind, first, w=w)
            good = read(os.path.join(w, "out.log"))
            first_text = decompress(kind, os.path.join(w, "out.log"))
            # a torn unit: the start of a complete one, as a crash mid-write leaves it
            tool = {"gzip": ["gzip", "-c"], "zstd": ["zstd", "-c", "-q"]}[kind]
            unit = subprocess.run(tool, input=b"never acknowledged\n" * 50, stdout=subprocess.PIPE, check=True).stdout
            with open(os.path.join(w, "out.log"), "ab") as f:
                f.write(unit[:len(unit) // 2])
            with self.assertRaises(AssertionError):
                decompress(kind, os.path.join(w, "out.log"))
            os.unlink(os.path.join(w, "plain.log"))
            _, _, output = self.run_pair("compression(%s)" % kind, second, w=w)
            self.assertIn("cut a partly written compressed unit", output)
            data = read(os.path.join(w, "out.log"))
            self.assertTrue(data.startswith(good))
            text = decompress(kind, os.path.join(w, "out.log"))
            self.assertNotIn(b"never acknowledged", text)
            self.assertEqual(text, first_text + read(os.path.join(w, "plain.log")))
            self.assertEqual(text.count(b"\n"), 400)

    def test_foreign_bytes_are_not_cut(self):
        """a plain file where the compressed one goes is not cut: appended after, with a warning"""
        w = self.workdir()
        with open(os.path.join(w, "out.log"), "wb") as f:
            f.write(b"an old plain text log line\n")
        _, _, output = self.run_pair("compression(gzip)", lines(50), w=w)
        self.assertIn("not compression() output", output)
        self.assertTrue(read(os.path.join(w, "out.log")).startswith(b"an old plain text log line\n"))

    def test_rotation_with_compression(self):
        for kind in ("gzip", "zstd"):
            w = self.workdir()
            msgs = lines(20000)
            size = 20000
            _, stats, _ = self.run_pair("compression(%s) logrotate(enable(yes) size(%d) rotations(100))" % (kind, size),
                                        msgs, w=w)
            names = sorted((n for n in os.listdir(w) if re.fullmatch(r"out\.log\.\d+", n)),
                           key=lambda n: -int(n.rsplit(".", 1)[1])) + ["out.log"]
            self.assertGreater(len(names), 3, names)
            text = b""
            for name in names:
                path = os.path.join(w, name)
                self.assertLessEqual(os.path.getsize(path), size, name)
                text += decompress(kind, path)
            self.assertEqual(text, read(os.path.join(w, "plain.log")))
            rotated = sum(v for k, v in stats.items() if k.startswith("dst.fast-file;d_fast") and k.endswith(";rotations"))
            self.assertEqual(rotated, len(names) - 1)


class CompressionOpenFiles(fdharness.TestCase):
    def test_checking_existing_files_keeps_max_open_files(self):
        """every first open of an existing compressed file reads its end (for a torn unit): that read
        counts against max-open-files() too"""
        w = self.workdir()
        nfiles = 600
        msgs = [("<13>Dec  1 12:00:00 host p%04d[1]: message %d" % (i % nfiles, i)).encode() for i in range(nfiles * 2)]
        cfg = """
options { keep-hostname(yes); stats-level(1); };
source s_in { unix-stream("%(w)s/in.sock" flags(expect-hostname)); };
destination d_fast { fast-file("%(w)s/out/${PROGRAM}.log" compression(gzip) max-open-files(16) create-dirs(yes)); };
log { source(s_in); destination(d_fast); };
""" % {"w": w}
        outdir = os.path.join(w, "out") + "/"
        for run in range(2):
            with fdharness.SyslogNg(cfg, workdir=w) as sng:
                with fdharness.PeakFds(sng.pid, outdir, interval=0.0005) as fds:
                    fdharness.send_lines(os.path.join(w, "in.sock"), msgs)
                    ok = fdharness.wait_until(lambda: stat(sng, "d_fast", "written") >= len(msgs), 60)
                self.assertTrue(ok, sng.output())
                self.assertLessEqual(fds.peak, 16, "run %d" % run)
        for i in range(nfiles):
            self.assertEqual(decompress("gzip", os.path.join(w, "out", "p%04d.log" % i)).count(b"\n"), 4)


class CompressionConfig(fdharness.TestCase):
    def check(self, options):
        return fdharness.check_config('destination d { fast-file("/tmp/x.log" %s); };\n'
                                      'log { destination(d); };\n# trailing\n' % options)

    def test_good(self):
        for options in ("compression(gzip)", "compression(zstd) compression-level(1)",
                        "compression-level(9) compression(gzip)", "compression(none)", "compression(zstd) compression-level(-5)"):
            rc, out = self.check(options)
            self.assertEqual(rc, 0, options + ": " + out)

    def test_bad_values_name_the_option(self):
        for options, needle in (("compression(bzip2)", "invalid compression(bzip2)"),
                                ("compression(gzip) compression-level(10)", "compression-level(10) is out of range for compression(gzip): 0 to 9"),
                                ("compression(zstd) compression-level(99)", "compression-level(99) is out of range for compression(zstd)"),
                                ("compression-level(3)", "compression-level(3) needs compression(gzip) or compression(zstd)")):
            rc, out = self.check(options)
            self.assertNotEqual(rc, 0, options)
            self.assertIn(needle, out, options)


if __name__ == "__main__":
    fdharness.main()
