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

"""Config abuse (issue 7): one test per option of fast-file() and of
structured-event(), each with a wrong-typed or out-of-range value: `syslog-ng
-s` must fail and its output must name the option, either in the error text
or on the line it marks as the culprit ("N----->").  The bad option sits on a
line of its own with a line after it (syslog-ng 3.38 prints the excerpt only
then), and no other line mentions it."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "functional"))
import fdharness  # noqa: E402

# option -> a bad value (wrong type or out of range).  The options that come
# from syslog-ng's own grammar (file_perm_option, template_option,
# value-pairs) accept any string at -s, as they do for file(): an unknown
# owner only logs "Error resolving user" and carries on, an unknown time
# zone, ts-format or value-pairs scope passes silently.  They get a
# wrong-typed value here; that limit is syslog-ng's and documented in README.

# syslog-ng's threaded-destination and template options, in both drivers
SHARED_BAD = {
    "batch-lines": "-1",
    "batch-timeout": "0",
    "workers": "0",
    "retries": "0",
    "time-reopen": "0",
    "log-fifo-size": "0",
    "throttle": "-1",
    "persist-name": "",
    "ts-format": "42",
    "frac-digits": "-1",
    "time-zone": "3600",
    "send-time-zone": "3600",
    "local-time-zone": "3600",
    "on-error": '"explode"',
}

# syslog-ng's file_perm_option block, in both drivers
FILE_PERM_BAD = {
    "owner": "yes",
    "group": "no",
    "perm": '"rw-r--r--"',
    "dir-owner": "yes",
    "dir-group": "no",
    "dir-perm": '"rwx"',
}

FASTFILE_BAD = {
    "template": '"$(no-such-template-function ${MSG})"',
    "template-escape": "maybe",
    "line-ending": "lfcr",
    "encoding": '"NO-SUCH-CHARSET-42"',
    "bom": "maybe",
    "buffer-size": "-1",
    "fsync": "sometimes",
    "time-reap": "-5",
    "max-open-files": "0",
    "create-dirs": "perhaps",
    "follow-symlinks": "perhaps",
    "flush-lines": "-1",
    # file()'s writer options (issue 17)
    "flags": "no-such-flag",
    "flush-timeout": "0",
    "pad-size": "-1",
    "truncate-size": "-1",
    "optional": "maybe",
    "overwrite-if-older": "-1",
    "remove-if-older": "-1",
    "symlink-as": '""',
    "suppress": "-1",
    "mark-freq": "-1",
    "mark-mode": "sometimes",
    # issue 16
    "logrotate": "size(0)",
    "compression": "bzip2",
    "compression-level": "99",
    **FILE_PERM_BAD,
    **SHARED_BAD,
}

STRUCTURED_EVENT_BAD = {
    "sink": "etw",
    "socket": "42",
    "namespace": '"a/b"',
    "message-id": '"$(no-such-template-function x)"',
    "value-pairs": "scope(42)",
    "prefix": '"lower"',
    "type-hints": "maybe",
    "max-fields": "0",
    "path": '"$(no-such-template-function x)"',
    "host": "",
    "port": "70000",
    "transport": "udp",
    "timeout": "0",
    "url": '"ftp://collector.example"',
    "tls": 'ca-file("/nonexistent/ca.pem")',
    "create-dirs": "perhaps",
    **FILE_PERM_BAD,
    **SHARED_BAD,
}

# what makes the option valid in context (e.g. path() needs sink(journal-export))
SE_CONTEXT = {
    "path": "sink(journal-export)",
    "host": "sink(journal-export)",
    "port": 'sink(journal-export) host("127.0.0.1")',
    "transport": 'sink(journal-export) host("127.0.0.1")',
    "timeout": 'sink(journal-export) host("127.0.0.1")',
    "url": "sink(journal-export)",
    "tls": 'sink(journal-export) url("https://127.0.0.1")',
}
SE_CONTEXT.update({option: 'sink(journal-export) path("/tmp/x.export")'
                   for option in ["create-dirs"] + list(FILE_PERM_BAD)})


def names_option(output, option):
    """The option is named by an error line or on the culprit line of the excerpt."""
    variants = {option, option.replace("-", "_")}
    for line in output.splitlines():
        culprit = re.match(r"^\d+-+>", line)
        error = re.search(r"error|invalid|unknown|must|cannot|expect", line, re.I) and not re.match(r"^\d+\s", line)
        if (culprit or error) and any(v in line for v in variants):
            return True
    return False


def check(tc, driver, head, option, value):
    config = ("destination d {\n  %s(%s\n    %s(%s)\n  );\n};\n"
              "log { source { internal(); }; destination(d); };\n" % (driver, head, option, value))
    rc, out = fdharness.check_config(config)
    tc.assertNotEqual(rc, 0, "%s(%s) was accepted:\n%s" % (option, value, out))
    tc.assertTrue(names_option(out, option), "the output does not name %s():\n%s" % (option, out))


class TestFastFileOptions(fdharness.TestCase):
    pass


class TestStructuredEventOptions(fdharness.TestCase):
    pass


def _add(cls, driver, option, value, head):
    def test(self):
        check(self, driver, head, option, value)
    test.__name__ = "test_" + option.replace("-", "_")
    test.__doc__ = "%s(%s(%s)) fails at syslog-ng -s naming %s()" % (driver, option, value, option)
    setattr(cls, test.__name__, test)


for _opt, _val in FASTFILE_BAD.items():
    _add(TestFastFileOptions, "fast-file", _opt, _val, '"/tmp/fastdest-config-abuse.log"')
for _opt, _val in STRUCTURED_EVENT_BAD.items():
    _add(TestStructuredEventOptions, "structured-event", _opt, _val, SE_CONTEXT.get(_opt, ""))


if __name__ == "__main__":
    fdharness.main()
