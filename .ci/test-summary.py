#!/usr/bin/python3
# Copyright (c) 2026 fastdest authors; GPL-2.0-or-later (see LICENSE-HEADER.txt).
"""Summarize automake test results: test-summary.py BUILD_DIR TEST...

For every test: its result from the .trs file, then the part of its .log that
matters (CUnit's "Run Summary" block, unittest's per-test lines, loud skips),
and the log's tail when it failed.  A test without a .trs never ran (its build
failed) and counts as failed.  The last line is "N passed, N failed[, N skipped]".
Exit status 1 when anything failed."""

import os
import re
import sys

PASSED = ("PASS", "XFAIL")
SKIPPED = ("SKIP",)
UNITTEST_RE = re.compile(r"^(test\S* \(.*\) \.\.\. .*|ok|FAIL|ERROR|skipped .*|expected failure|unexpected success"
                         r"|Ran \d+ tests? in .*|OK.*|FAILED \(.*\)|.*SKIPPED \(needs root\).*)$")


def base_name(test):
    root, ext = os.path.splitext(test)
    return root if ext in (".py", ".sh") else test


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None


def results(trs_text):
    return [m.group(1) for m in re.finditer(r"^:test-result: (\S+)", trs_text, re.M)]


def cunit_summary(log):
    lines = log.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("Run Summary"):
            for block_line in lines[i:]:
                out.append(block_line)
                if block_line.startswith("Elapsed time"):
                    break
    return out


def unittest_summary(log):
    return [line for line in log.splitlines() if UNITTEST_RE.match(line)]


def main():
    build, tests = sys.argv[1], sys.argv[2:]
    passed = failed = skipped = 0
    for test in tests:
        base = os.path.join(build, base_name(test))
        trs, log = read(base + ".trs"), read(base + ".log")
        if trs is None:
            status = "NOT RUN (not built?)"
            failed += 1
        else:
            rs = results(trs) or ["ERROR"]
            if any(r not in PASSED + SKIPPED for r in rs):
                failed += 1
            elif all(r in SKIPPED for r in rs):
                skipped += 1
            else:
                passed += 1
            status = " ".join(rs)
        print("=== %s: %s" % (test, status))
        if log is None:
            continue
        summary = cunit_summary(log) if "Run Summary" in log else unittest_summary(log)
        for line in summary:
            print("    " + line)
        if trs is not None and status not in ("PASS", "SKIP", "XFAIL"):
            lines = log.splitlines()
            # unittest: from the first failure report on; otherwise the tail
            first = next((i for i, line in enumerate(lines) if line.startswith("=" * 20)), None)
            shown = lines[first:] if first is not None else lines
            print("    --- %s.log ---" % base)
            for line in shown[-120:]:
                print("    | " + line)
    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
