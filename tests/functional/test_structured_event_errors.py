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
"""structured-event(): every error and warning names its destination (id and config location)."""

import os
import re
import socket

import fdharness

CONFIG = """
options { stats_level(1); time-reopen(1); };
source s { unix-stream("%(w)s/in.sock" flags(syslog-protocol) so-passcred(no)); };
parser p_kv { kv-parser(prefix("kv.")); };
destination d_j1 { structured-event(socket("%(w)s/nobody-1.sock")); };
destination d_j2 { structured-event(socket("%(w)s/nobody-2.sock")); };
destination d_x1 { structured-event(sink(journal-export) host("127.0.0.1") port(%(port1)d)); };
destination d_x2 { structured-event(sink(journal-export) host("127.0.0.1") port(%(port2)d)); };
destination d_c { structured-event(sink(ctf) path("%(w)s/a-file/trace")); };
destination d_f1 { structured-event(sink(journal-export) path("%(w)s/${PROGRAM}/x.export") max-fields(10)); };
destination d_f2 { structured-event(sink(journal-export) path("%(w)s/${PROGRAM}/y.export") max-fields(10)); };
log { source(s); parser(p_kv); destination(d_j1); destination(d_j2); destination(d_x1); destination(d_x2);
      destination(d_c); destination(d_f1); destination(d_f2); };
"""

# an error or warning line's destination: its id (and worker) and the config location it was declared at
NAMES_ITS_DESTINATION = re.compile(r"driver='(d_\w+?)(#\d+)?', location='([^']*)'")


def closed_ports(n):
    """n distinct ports nobody listens on"""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class TestErrorsNameTheDestination(fdharness.TestCase):
    def test_two_destinations_of_each_kind_told_apart(self):
        wd = self.workdir()
        with open(os.path.join(wd, "a-file"), "w"):
            pass
        port1, port2 = closed_ports(2)
        config = CONFIG % {"w": wd, "port1": port1, "port2": port2}
        # where each destination is declared: its line in the file syslog-ng reads (fdharness puts
        # "@version" first)
        declared = {}
        for i, line in enumerate(config.splitlines()):
            m = re.match(r"destination (d_\w+) ", line)
            if m:
                declared[m.group(1)] = i + 1
        pairs = " ".join("k%d=v" % i for i in range(20))
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            # ".." makes a spurious path (dropped); 20 pairs exceed max-fields(10) (a warning)
            fdharness.send_lines(os.path.join(wd, "in.sock"),
                                 [b"<13>1 2023-11-14T22:13:20Z h .. 1 - - " + pairs.encode()] * 3)
            wanted = ["cannot connect to journald", "cannot connect to host()", "cannot write the CTF metadata",
                      "cannot open path()", "more fields than max-fields()"]

            def named(out):
                found = (NAMES_ITS_DESTINATION.search(line) for line in out.splitlines() if "structured-event()" in line)
                return {m.group(1) for m in found if m}

            # each destination works on its own thread: wait for every one of them to have said something
            # (d_f1 and d_f2 log the same two texts; one of them alone satisfies 'wanted')
            self.assertTrue(fdharness.wait_until(lambda: all(w in sng.output() for w in wanted)
                                                 and named(sng.output()) == set(declared), 10),
                            sng.output())
            out = sng.output()
        lines = [line for line in out.splitlines() if "structured-event()" in line]
        seen = set()
        for line in lines:
            m = NAMES_ITS_DESTINATION.search(line)
            self.assertTrue(m, "does not name its destination: " + line)
            driver, location = m.group(1), m.group(3)
            self.assertRegex(location, r"syslog-ng\.conf:%d:\d+$" % (declared[driver] + 1), line)
            seen.add(driver)
        self.assertEqual(seen, set(declared), "\n".join(lines))


if __name__ == "__main__":
    fdharness.main()
