#!/usr/bin/env python3
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
"""bench/run's result files: a later run of the day never overwrites an
earlier one's, and a run's .md, .png and raw .json share one name (runs
renamed by hand had .md files linking to another run's chart).  And what
bench/run measures besides time: the page faults it counts are the
kernel's, and --glibc-tunables reaches the syslog-ng it starts."""

import datetime
import importlib.machinery
import importlib.util
import mmap
import os
import platform
import shutil
import statistics
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

SRCDIR = Path(os.environ.get("FASTDEST_SRCDIR") or Path(__file__).resolve().parent.parent.parent)


def load_bench():
    loader = importlib.machinery.SourceFileLoader("bench_run", str(SRCDIR / "bench" / "run"))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class TestBenchResultNames(fdharness.TestCase):
    def setUp(self):
        self.bench = load_bench()
        self.dir = Path(tempfile.mkdtemp(prefix="fdtest-bench-"))
        self.addCleanup(shutil.rmtree, self.dir)
        self.day = f"{datetime.date.today().isoformat()}-{platform.node() or 'host'}"

    def test_later_runs_of_the_day_get_their_own_name(self):
        self.bench.SYSLOG_NG_SERIES = "3.38"
        first = self.bench.results_stem(self.dir)
        self.assertEqual(first, self.day)
        (self.dir / f"{first}.md").write_text("run 1")
        second = self.bench.results_stem(self.dir)
        self.assertEqual(second, f"{self.day}-2")
        (self.dir / f"{second}.md").write_text("run 2")
        self.assertEqual(self.bench.results_stem(self.dir), f"{self.day}-3")
        self.assertEqual((self.dir / f"{first}.md").read_text(), "run 1")

    def test_release_and_kind_are_in_the_name(self):
        self.bench.SYSLOG_NG_SERIES = "4.8"
        stem = self.bench.results_stem(self.dir, "callgrind")
        self.assertEqual(stem, f"{self.day}-syslog-ng-4.8-callgrind")
        (self.dir / f"{stem}.md").write_text("x")
        self.assertEqual(self.bench.results_stem(self.dir, "callgrind"), f"{self.day}-syslog-ng-4.8-callgrind-2")
        # another kind of run the same day starts its own count
        self.assertEqual(self.bench.results_stem(self.dir), f"{self.day}-syslog-ng-4.8")


class TestBenchMeasures(fdharness.TestCase):
    def setUp(self):
        self.bench = load_bench()
        self.dir = Path(tempfile.mkdtemp(prefix="fdtest-bench-"))
        self.addCleanup(shutil.rmtree, self.dir)

    def test_page_faults_count_fresh_pages(self):
        # a mapping of its own: fresh pages, zeroed by the kernel page by page as they are written (a
        # bytearray may come from heap memory an earlier test of this process already faulted in)
        touched = mmap.mmap(-1, 64 * 1024 * 1024)
        self.addCleanup(touched.close)
        before = self.bench.proc_minflt(os.getpid())
        for i in range(0, len(touched), 4096):
            touched[i] = 1
        after = self.bench.proc_minflt(os.getpid())
        # 16384 pages of 4 KiB (fewer where the kernel hands out huge pages: at least one fault per 2 MiB)
        self.assertGreaterEqual(after - before, 32)
        self.assertIsNone(self.bench.proc_minflt(2 ** 22 + 1))

    def test_speed_probe_measures_each_piece(self):
        """bench/speed-probe's four measures reach bench/run in one record: the arithmetic's pieces, the cache
        line's round trips between two CPUs (n/a, so none, on a machine of one CPU), the fresh pages' cost and the
        dependent loads through 8 MiB; and a size's table summarises each"""
        builddir = Path(os.environ.get("FASTDEST_BUILDDIR") or SRCDIR / "_build")
        tools = {"probe": builddir / "bench" / "speed-probe"}
        if not tools["probe"].exists():
            self.skipTest("bench/speed-probe not built")
        probe = self.bench.speed_probe(tools, 0.1, 0.05, 2, 0.2)
        self.assertTrue(probe["speed"] and all(0 < x < 10_000 for x in probe["speed"]), probe)
        if len(os.sched_getaffinity(0)) > 1:
            self.assertTrue(probe["pingpong"] and all(0 < x < 1_000_000 for x in probe["pingpong"]), probe)
        self.assertEqual(len(probe["fresh"]), 2)
        self.assertTrue(all(0 < x < 10_000 for x in probe["fresh"]), probe)
        # a load from memory takes more than a nanosecond and less than a microsecond on any machine
        self.assertTrue(probe["chase"] and all(1 < x < 1_000 for x in probe["chase"]), probe)
        only_bounce = self.bench.speed_probe(tools, 0, 0.05, 0, 0)
        self.assertEqual((only_bounce["speed"], only_bounce["fresh"], only_bounce["chase"]), ([], [], []))

        both = self.bench.merged_probes(probe, self.bench.speed_probe(tools, 0.1, 0.05, 2, 0.2))
        self.assertEqual(len(both["fresh"]), 4)
        nz = self.bench.table_noise({}, both)
        self.assertAlmostEqual(nz["fresh_page_us"], statistics.median(both["fresh"]))
        self.assertAlmostEqual(nz["chase"]["median"], statistics.median(both["chase"]))
        self.assertAlmostEqual(nz["speed"]["median"], statistics.median(both["speed"]))
        line = self.bench.noise_line(nz, (0.1, 0.2, 0.3))
        self.assertIn(f"through 8 MiB (bench/speed-probe, 1 s before and after): {nz['chase']['p10']:.0f} / "
                      f"{nz['chase']['median']:.0f} / {nz['chase']['p90']:.0f} ns", line)
        self.assertIn(f"took {nz['fresh_page_us']:.2f} µs (median)", line)

        around = self.bench.run_probe(tools)
        self.assertTrue(1 < around["chase"] < 1_000, around)

    def test_rounds_table_shows_each_run_beside_its_probes(self):
        """a round's rate as % of the same round's ceiling, then the round trip and the dependent load measured
        just before / after that run"""
        by_case = {"a": [{"run": 0, "msgs_per_s": 1000}, {"run": 1, "msgs_per_s": 2000}],
                   "d": [{"run": 0, "msgs_per_s": 700, "pingpong_ns": [396, 424], "chase_ns": [25, 140]},
                         {"run": 1, "msgs_per_s": 1500, "pingpong_ns": [None, 90], "chase_ns": []}]}
        table = self.bench.rounds_table(300, by_case)
        self.assertIn("| 1 | 70% · 396/424 · 25/140 |", table)
        self.assertIn("| 2 | 75% · 90 |", table)

    def test_memory_line_names_page_reporting(self):
        on = {"order": 9, "reported_kib": 1000}
        line = self.bench.memory_line(on, {"order": 9, "reported_kib": 1000 + 3 * 1024}, None)
        self.assertIn("free page reporting on (page_reporting_order 9: free blocks of 2048 KiB", line)
        self.assertIn("3 MiB handed back during the run", line)
        off = self.bench.memory_line({"order": 11, "reported_kib": 5}, {"order": 11, "reported_kib": 5}, "done")
        self.assertIn("free page reporting off (page_reporting_order 11), 0 MiB handed back", off)
        self.assertTrue(off.endswith("; --warm-memory: done"))
        self.assertIn("no free page reporting", self.bench.memory_line(None, None, None))

    def test_glibc_tunables_reach_the_daemon(self):
        seen = self.dir / "env"
        self.bench.GLIBC_TUNABLES = "glibc.malloc.trim_threshold=268435456"
        # the wrapper runs in place of syslog-ng: it writes down the environment it was given
        daemon = self.bench.Daemon(self.dir, self.dir / "unused.conf", self.dir,
                                   wrapper=["sh", "-c", f'printf %s "$GLIBC_TUNABLES" > {seen}', "sh"])
        self.assertEqual(daemon.proc.wait(30), 0)
        daemon.logf.close()
        self.assertEqual(seen.read_text(), "glibc.malloc.trim_threshold=268435456")


def _rounds(size, ceilings, fast=0.9, check="PASS"):
    """A size's interleaved rounds of (a) and (d): (a) at each given rate, (d) at fast times it."""
    return [{"case": key, "size": size, "n": 10, "run": i, "msgs_per_s": rate * factor, "check": check,
             "detail": "" if check == "PASS" else "line 3 differs"}
            for i, rate in enumerate(ceilings) for key, factor in (("a", 1.0), ("d", fast))]


class TestBenchRetryNoisy(fdharness.TestCase):
    """--retry-noisy N: a size whose table came out NOISY is measured again, up to N more times; the tables and
    targets show its last attempt, and every attempt set aside stays in the results with why it was NOISY"""

    def setUp(self):
        self.bench = load_bench()

    def attempts_of(self, tables, retries):
        calls = []

        def run_attempt(attempt):
            calls.append(attempt)
            return tables[attempt - 1], {}
        got = self.bench.measure_size(run_attempt, retries)
        return calls, got

    def test_a_noisy_size_runs_again_until_quiet(self):
        noisy, quiet = _rounds(100, [1000, 1800, 1000]), _rounds(100, [1000, 1050, 1100], fast=0.8)
        calls, attempts = self.attempts_of([noisy, quiet, _rounds(100, [1, 2, 3])], retries=3)
        self.assertEqual(calls, [1, 2])
        self.assertEqual([a["attempt"] for a in attempts], [1, 2])
        self.assertTrue(attempts[0]["noise"]["ceiling_noisy"])
        self.assertFalse(attempts[1]["noise"]["noisy"])
        self.assertIs(attempts[1]["results"], quiet)

    def test_retries_stop_at_the_limit_and_keep_the_last(self):
        tables = [_rounds(300, [1000, 1800]), _rounds(300, [1000, 2000]), _rounds(300, [1000, 1000])]
        calls, attempts = self.attempts_of(tables, retries=1)
        self.assertEqual(calls, [1, 2])
        self.assertTrue(attempts[-1]["noise"]["noisy"])
        calls, attempts = self.attempts_of(tables, retries=0)
        self.assertEqual(calls, [1])

    def test_a_quiet_first_attempt_is_the_only_one(self):
        calls, attempts = self.attempts_of([_rounds(100, [1000, 1010])], retries=5)
        self.assertEqual(calls, [1])

    def test_set_aside_attempts_are_reported_and_their_outputs_still_count(self):
        noisy = _rounds(100, [1000, 1800, 1000], fast=0.5, check="FAIL")
        calls, attempts = self.attempts_of([noisy, _rounds(100, [1000, 1050])], retries=2)
        text = self.bench.set_aside_section({100: attempts}, {}, [])
        self.assertIn("### Set aside: 100 B attempt 1 of 2", text)
        self.assertIn("the ceiling (a) moved 1.80x", text)
        # its own rows: (d) at half the ceiling, and its wrong output
        self.assertIn("| (d) fast-file() | 500 (500–900) |", text)
        self.assertIn("**FAIL** 3/3: line 3 differs", text)
        self.assertIn("Attempt 2 of this size (--retry-noisy); attempt 1 was NOISY",
                      self.bench.attempt_line(attempts))
        self.assertEqual(self.bench.attempt_line(attempts[:1]), "")
        kept, aside = self.bench.split_attempts({100: attempts})
        self.assertEqual(len(kept), 4)
        self.assertEqual(len(aside), 6)
        self.assertTrue(all(r["set_aside"] and r["attempt"] == 1 for r in aside))
        wrong = [r for r in kept + aside if r.get("check") != "PASS"]
        self.assertEqual(len(wrong), 6)


class TestBenchTargetBounds(fdharness.TestCase):
    """1.3x stock at 100 B shows what the least destinations reached in the same rounds, as 85% of the
    ceiling does: on a machine where stock file() runs close to the ceiling, the bar can be beyond them,
    and a reader must see that in the run, not in a profile elsewhere"""

    def test_one_connection_against_stock_names_the_least_destinations(self):
        bench = load_bench()
        rates = {"a": 1000, "b": 640, "d": 780, "r": 930, "u": 820, "y": 810, "x": 800}
        by_case = {k: [{"case": k, "size": 100, "n": 10, "run": i, "msgs_per_s": v * (1 + i / 100), "check": "PASS",
                        "cpu_us_per_msg": 1.0, "rss_mb": 10.0, "allocs_per_msg": 1.0}
                       for i in range(3)] for k, v in rates.items()}
        text = bench.targets_table([100], {100: by_case}, {100: {"noisy": False, "ceiling_noisy": False,
                                                                 "noisy_runs": {}}}, {})
        row = next(line for line in text.splitlines() if line.startswith("| (d) msgs/s >= 1.3x"))
        self.assertIn("handing over, reading and acking only (u) is 1.28x (b): the bar is **out of reach**", row)
        self.assertIn("the least a destination writing on its own thread does (y) is 1.27x (b)", row)
        self.assertIn("the least a destination writing there does (x) is 1.25x (b)", row)
        self.assertIn("**FAIL** (limit)", row)
        self.assertIn("no design measured reaches the bar, the best is (u) at 1.28x, (d) 0.95x of it", row)
        self.assertIn("1 of them where no design the bench measures reaches the bar either", text)

    def _targets(self, rates, size=100):
        by_case = {k: [{"case": k, "size": size, "n": 10, "run": i, "msgs_per_s": v * (1 + i / 100),
                        "check": "PASS", "cpu_us_per_msg": 1.0, "rss_mb": 10.0, "allocs_per_msg": 1.0}
                       for i in range(3)] for k, v in rates.items()}
        return load_bench().targets_table([size], {size: by_case}, {size: {"noisy": False, "ceiling_noisy": False,
                                                                           "noisy_runs": {}}}, {})

    def test_a_miss_where_a_design_reaches_the_bar_is_no_limit(self):
        # (y) reaches 1.31x: the bar is within a design's reach, so (d)'s miss is its own
        text = self._targets({"a": 1000, "b": 640, "d": 780, "r": 930, "u": 850, "y": 840, "x": 800})
        row = next(line for line in text.splitlines() if line.startswith("| (d) msgs/s >= 1.3x"))
        self.assertIn("**FAIL** |", row)
        self.assertNotIn("(limit)", row)
        self.assertNotIn("no design measured", row)
        self.assertNotIn("of them where no design", text)

    def test_a_file_per_host_miss_is_judged_against_the_least_file_destination(self):
        rates = {"m": 1000, "n": 1400, "o": 2000, "s": 1900, "v": 1450}
        text = self._targets(rates)
        row = next(line for line in text.splitlines() if "a file per host: fast-file (n)" in line)
        self.assertIn("**FAIL** (limit)", row)
        self.assertIn("the best is (v) at 1.45x, (n) 0.97x of it: the measured limit", row)
        rates["v"] = 1650
        row = next(line for line in self._targets(rates).splitlines() if "a file per host: fast-file (n)" in line)
        self.assertNotIn("(limit)", row)
        self.assertIn("**FAIL**", row)


if __name__ == "__main__":
    fdharness.main()
