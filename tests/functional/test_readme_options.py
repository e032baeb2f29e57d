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
"""The README's configuration reference and the tests agree:

- every option in the reference tables of "## fast-file()" and
  "## structured-event()" is used in some test's configuration (a test file,
  or an example config that test_examples.py runs, that uses that driver);
- every keyword the driver's own parser defines is in its reference.

No syslog-ng needed: this reads files only."""

import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

SRCDIR = os.environ.get("FASTDEST_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

DRIVERS = {
    # README section, the driver's name in a config, its parser's keyword table
    "fast-file": ("## fast-file()", "modules/fastfile/fastfile-parser.c"),
    "structured-event": ("## structured-event()", "modules/structured-event/structured-event-parser.c"),
}
# a reference row: | `option-name(...)` | ...
ROW_RE = re.compile(r"^\|\s*`([a-z][a-z0-9-]*)\(", re.M)


def read(path):
    with open(os.path.join(SRCDIR, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def readme_section(title):
    text = read("README.md")
    start = text.find("\n" + title + "\n")
    if start < 0:
        raise AssertionError("README.md has no section %r" % title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def reference_options(driver):
    return sorted(set(ROW_RE.findall(readme_section(DRIVERS[driver][0]))))


def parser_keywords(driver):
    """Option keywords of the driver's own parser (not the driver name)."""
    table = read(DRIVERS[driver][1])
    names = re.findall(r'\{\s*"([a-z_]+)"\s*,\s*KW_', table)
    return sorted(n.replace("_", "-") for n in names if n.replace("_", "-") != driver)


def test_sources(driver):
    """(path, text) of every test file and example config that uses driver."""
    paths = glob.glob(os.path.join(SRCDIR, "tests", "functional", "test_*.py")) + \
        glob.glob(os.path.join(SRCDIR, "packaging", "examples", "*.conf"))
    out = []
    for path in sorted(paths):
        if os.path.basename(path) == os.path.basename(__file__):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if driver + "(" in text:
            out.append((os.path.relpath(path, SRCDIR), text))
    return out


def option_used(option, sources):
    spelling = r"(?:%s|%s)" % (re.escape(option), re.escape(option.replace("-", "_")))
    pattern = re.compile(r"(?<![a-z0-9_-])%s\s*\(" % spelling)
    return [path for path, text in sources if pattern.search(text)]


class TestReadmeOptions(unittest.TestCase):
    def test_reference_is_not_empty(self):
        for driver in DRIVERS:
            self.assertGreaterEqual(len(reference_options(driver)), 5, driver)

    def test_every_reference_option_is_exercised(self):
        missing = []
        for driver in DRIVERS:
            sources = test_sources(driver)
            self.assertTrue(sources, driver)
            for option in reference_options(driver):
                if not option_used(option, sources):
                    missing.append("%s: %s()" % (driver, option))
        self.assertEqual(missing, [], "options in the README reference that no test configures")

    def test_every_parser_keyword_is_documented(self):
        undocumented = []
        for driver in DRIVERS:
            documented = set(reference_options(driver))
            undocumented += ["%s: %s()" % (driver, k) for k in parser_keywords(driver) if k not in documented]
        self.assertEqual(undocumented, [], "options the parser accepts that the README reference lacks")


if __name__ == "__main__":
    fdharness.main()
