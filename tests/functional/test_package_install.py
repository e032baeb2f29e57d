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
"""The Debian package end to end: build it (packaging/build-deb, with lintian),
`apt-get install ./x.deb`, run the stock syslog-ng with no --module-path on
both drivers, check `syslog-ng --module-registry`, `apt-get remove` and check
no file of the package is left.

Root only, and it changes the system's package set for its duration, so it is
not part of `make check`: `make check-package` (and .ci/run) runs it.
FASTDEST_DEB=/path/x.deb uses a package built before instead of building one."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdharness  # noqa: E402

SRCDIR = os.environ.get("FASTDEST_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PACKAGE = "syslog-ng-mod-fastdest"
APT = ["apt-get", "-y", "-o", "DPkg::Lock::Timeout=300"]
ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")

CONFIG = """@version: %(version)s
options { stats-level(1); };
source s { unix-stream("%(w)s/in.sock" so-passcred(no)); };
destination d_ff { fast-file("%(w)s/ff/${PROGRAM}.log" template("${PROGRAM}: ${MSG}\\n") create-dirs(yes)); };
destination d_se { structured-event(sink(journal-export) path("%(w)s/events.export")); };
log { source(s); destination(d_ff); destination(d_se); };
"""


class SystemSyslogNg(fdharness.SyslogNg):
    """The harness's syslog-ng without --module-path: only what is installed."""

    def command(self):
        return [a for a in super().command() if not a.startswith("--module-path")]


def run(cmd, **kwargs):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=ENV, text=True, **kwargs)


def installed():
    r = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", PACKAGE])
    return r.returncode == 0 and r.stdout.startswith("ii")


def parse_export(data):
    """Journal Export Format, text fields only: [{NAME: value}]."""
    entries = []
    for block in data.decode("utf-8").split("\n\n"):
        if block.strip():
            entries.append(dict(line.split("=", 1) for line in block.split("\n") if line))
    return entries


@fdharness.skip_unless_root
class TestPackageInstall(fdharness.TestCase):
    def build_deb(self):
        given = os.environ.get("FASTDEST_DEB")
        if given:
            return os.path.abspath(given)
        out = self.workdir()
        r = run([os.path.join(SRCDIR, "packaging", "build-deb"), "--lintian", out])
        self.assertEqual(r.returncode, 0, "packaging/build-deb failed:\n" + r.stdout[-6000:])
        debs = glob.glob(os.path.join(out, PACKAGE + "_*.deb"))
        self.assertEqual(len(debs), 1, debs)
        # the lintian verdict, in the test log
        sys.stderr.write("\n".join(l for l in r.stdout.splitlines() if l.startswith(("E:", "W:", "I:", "N:")))
                         + "\n")
        return debs[0]

    def test_install_run_remove(self):
        deb = self.build_deb()
        # bound to the syslog-ng series it was built against: >= that release, << the next series
        release = run(["dpkg-query", "-W", "-f=${Version}", "syslog-ng-core"], check=True).stdout.split("-")[0]
        major, minor = fdharness.SYSLOG_NG_RELEASE[:2]
        depends = run(["dpkg-deb", "-f", deb, "Depends"], check=True).stdout
        self.assertIn("syslog-ng-core (>= %s)" % release, depends)
        self.assertIn("syslog-ng-core (<< %d.%d~)" % (major, minor + 1), depends)
        if installed():
            # left over from an interrupted run: start from a clean system
            self.assertEqual(run(APT + ["remove", PACKAGE]).returncode, 0)
        self.addCleanup(lambda: installed() and run(APT + ["remove", PACKAGE]))

        r = run(APT + ["install", deb if deb.startswith("/") else "./" + deb])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertTrue(installed())

        files = [p for p in run(["dpkg", "-L", PACKAGE], check=True).stdout.splitlines() if p.strip()]
        moduledir = fdharness.syslog_ng_moduledir()
        doc = "/usr/share/doc/" + PACKAGE
        for path in [moduledir + "/libfastfile.so", moduledir + "/libstructured-event.so",
                     doc + "/README.md.gz" if doc + "/README.md.gz" in files else doc + "/README.md",
                     doc + "/copyright", doc + "/examples/journald.conf", doc + "/examples/fastdest.logrotate"]:
            self.assertIn(path, files)
            self.assertTrue(os.path.exists(path), path)
        self.assertFalse([p for p in files if p.endswith(".la")], "libtool archives shipped")

        # the stock syslog-ng finds the modules on its own
        r = run([fdharness.syslog_ng_bin(), "--module-registry"])
        self.assertEqual(r.returncode, 0, r.stdout)
        for module, plugin in (("fastfile", "fast-file"), ("structured-event", "structured-event")):
            block = r.stdout.split("Module: %s\n" % module, 1)
            self.assertEqual(len(block), 2, "module %s not in --module-registry" % module)
            self.assertIn("Status: ok", block[1].split("\n\n")[0])
            self.assertIn("destination     %s" % plugin, block[1].split("\n\n")[0])

        w = self.workdir()
        config = CONFIG % {"w": w, "version": fdharness.SYSLOG_NG_VERSION}
        conf_path = os.path.join(w, "check.conf")
        with open(conf_path, "w") as f:
            f.write(config)
        r = run([fdharness.syslog_ng_bin(), "-s", "-f", conf_path])
        self.assertEqual(r.returncode, 0, r.stdout)

        n = 50
        with SystemSyslogNg(config, workdir=w) as sng:
            self.assertNotIn("--module-path", " ".join(sng.command()))
            fdharness.send_lines(os.path.join(w, "in.sock"),
                                 [b"<14>Nov 30 12:00:00 pkgtest[7]: line %d" % i for i in range(n)])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.fast-file", "d_ff", "written") == n
                and sng.stat("dst.structured-event", "d_se", "written") == n, 30), sng.stats())
        with open(os.path.join(w, "ff", "pkgtest.log"), "rb") as f:
            self.assertEqual(f.read(), b"".join(b"pkgtest: line %d\n" % i for i in range(n)))
        with open(os.path.join(w, "events.export"), "rb") as f:
            events = parse_export(f.read())
        self.assertEqual([e["MESSAGE"] for e in events], ["line %d" % i for i in range(n)])
        self.assertTrue(all(e["SYSLOG_IDENTIFIER"] == "pkgtest" and e["PRIORITY"] == "6" for e in events))

        r = run(APT + ["remove", PACKAGE])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertFalse(installed())
        left = [p for p in files if os.path.lexists(p) and not os.path.isdir(p)]
        self.assertEqual(left, [], "files of the package left after apt-get remove")
        self.assertFalse(os.path.exists(doc), doc)
        r = run([fdharness.syslog_ng_bin(), "--module-registry"])
        self.assertNotIn("Module: fastfile\n", r.stdout)


if __name__ == "__main__":
    fdharness.main()
