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

"""Functional-test harness: runs the stock syslog-ng with our modules.

Python 3 standard library only.  Tests are plain unittest files next to this
one (tests/functional/test_*.py) that end with ``fdharness.main()``.

Environment (set by ``make check`` through AM_TESTS_ENVIRONMENT, all optional
when a test is run by hand):
  SYSLOG_NG_BIN          syslog-ng binary (default /usr/sbin/syslog-ng)
  FASTDEST_MODULE_PATH   our freshly built module dirs, ':'-separated
  FASTDEST_SRCDIR        top source dir
  FASTDEST_BUILDDIR      top build dir
  FASTDEST_SYSLOG_NG_WRAPPER  command prefix for syslog-ng, e.g. "valgrind -q"
  FASTDEST_START_TIMEOUT seconds to wait for the control socket (default 30)
  FASTDEST_KEEP_WORKDIR  set to 1 to keep every work directory
"""

import atexit
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest


def _syslog_ng_release():
    """The stock syslog-ng's release, e.g. (3, 38, 1), from the first line of
    `syslog-ng --version` ("syslog-ng 4 (4.8.1)")."""
    binary = os.environ.get("SYSLOG_NG_BIN") or shutil.which("syslog-ng") or "/usr/sbin/syslog-ng"
    try:
        out = subprocess.run([binary, "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=30).stdout
        m = re.search(r"\((\d+)\.(\d+)\.(\d+)", out.splitlines()[0] if out else "")
        if m:
            return tuple(int(x) for x in m.groups())
    except (OSError, subprocess.SubprocessError):
        pass
    return (3, 38, 0)


SYSLOG_NG_RELEASE = _syslog_ng_release()
# the @version every test config gets (the series running: 3.38 or 4.8)
SYSLOG_NG_VERSION = "%d.%d" % SYSLOG_NG_RELEASE[:2]
SYSLOG_NG_4X = SYSLOG_NG_RELEASE >= (4, 0)
# options { ...; } for per-driver counters: 4.x calls stats-level() obsolete
STATS_LEVEL1 = "stats(level(1))" if SYSLOG_NG_4X else "stats-level(1)"
DEFAULT_MODULEDIR = "/usr/lib/syslog-ng/" + SYSLOG_NG_VERSION
STATS_KEY_COLUMNS = ("SourceName", "SourceId", "SourceInstance", "State", "Type")

# every syslog-ng we started and did not stop yet, so none outlives the test
_running = {}


class SyslogNgError(RuntimeError):
    """syslog-ng or syslog-ng-ctl did not do what was asked."""


class SyslogNgStartError(SyslogNgError):
    """syslog-ng exited or never answered on its control socket."""


class LoggenError(RuntimeError):
    """loggen failed."""


def _env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def syslog_ng_bin():
    return os.environ.get("SYSLOG_NG_BIN") or shutil.which("syslog-ng") or "/usr/sbin/syslog-ng"


def syslog_ng_ctl_bin():
    found = shutil.which("syslog-ng-ctl")
    if found:
        return found
    # next to the daemon: /usr/sbin on Debian
    return os.path.join(os.path.dirname(syslog_ng_bin()), "syslog-ng-ctl")


def loggen_bin():
    """Stock loggen: on PATH (Debian: /usr/bin/loggen) or syslog-ng's libexec dir."""
    candidates = [shutil.which("loggen"), "/usr/bin/loggen",
                  "/usr/lib/syslog-ng/%s/loggen" % SYSLOG_NG_VERSION]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise LoggenError("loggen not found (install syslog-ng-core)")


def syslog_ng_moduledir():
    try:
        out = subprocess.run(["pkg-config", "--variable=moduledir", "syslog-ng"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, check=True).stdout.strip()
        if out:
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    return DEFAULT_MODULEDIR


def full_module_path(extra=None):
    """Our build tree first, then syslog-ng's own modules."""
    if extra is None:
        extra = os.environ.get("FASTDEST_MODULE_PATH", "")
    parts = [p for p in extra.split(":") if p]
    parts.append(syslog_ng_moduledir())
    return ":".join(parts)


def _with_version(config):
    if "@version" in config:
        return config
    return "@version: %s\n%s" % (SYSLOG_NG_VERSION, config)


def make_workdir(prefix="fdtest-"):
    return tempfile.mkdtemp(prefix=prefix, dir="/tmp")


def _tail(text, lines=60):
    return "\n".join(text.splitlines()[-lines:])


class SyslogNg:
    """One stock syslog-ng process, run in the foreground with private state files.

    with SyslogNg(config) as sng:   # started; W = sng.workdir
        ...
    # stopped; the workdir is removed if this object created it and the block
    # raised nothing, kept (and its path printed) otherwise.
    """

    def __init__(self, config, workdir=None, module_path=None, extra_args=(), env=None):
        self.config = config
        # set in the daemon's environment on top of this process's (an LD_PRELOAD, say)
        self.env = dict(env or {})
        self._own_workdir = workdir is None
        self.workdir = workdir if workdir is not None else make_workdir()
        os.makedirs(self.workdir, exist_ok=True)
        self.module_path = full_module_path(module_path)
        self.extra_args = tuple(extra_args)
        self.config_path = os.path.join(self.workdir, "syslog-ng.conf")
        self.persist_path = os.path.join(self.workdir, "persist")
        self.pid_path = os.path.join(self.workdir, "pid")
        self.ctl_path = os.path.join(self.workdir, "ctl")
        self.output_path = os.path.join(self.workdir, "syslog-ng.out")
        self.proc = None
        self.pid = None
        self.returncode = None

    # -- life cycle ------------------------------------------------------

    def command(self):
        wrapper = shlex.split(os.environ.get("FASTDEST_SYSLOG_NG_WRAPPER", ""))
        return wrapper + [syslog_ng_bin(), "-F", "-e", "--no-caps",
                          "--persist-file", self.persist_path,
                          "--pidfile", self.pid_path,
                          "--control", self.ctl_path,
                          "--module-path=" + self.module_path,
                          "-f", self.config_path] + list(self.extra_args)

    def start(self, timeout=None):
        if timeout is None:
            timeout = _env_float("FASTDEST_START_TIMEOUT", 30)
        with open(self.config_path, "w", encoding="utf-8") as f:
            f.write(_with_version(self.config))
        out = open(self.output_path, "ab")
        try:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=subprocess.STDOUT,
                                         close_fds=True, env={**os.environ, **self.env})
        finally:
            out.close()
        self.pid = self.proc.pid
        self.returncode = None
        _running[self.pid] = self
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                self._reap()
                raise SyslogNgStartError(
                    "syslog-ng exited with %d during start-up (workdir %s); its output:\n%s"
                    % (self.returncode, self.workdir, self.output()))
            if os.path.exists(self.ctl_path) and self._ctl_answers():
                return self
            if time.monotonic() > deadline:
                self.stop()
                raise SyslogNgStartError(
                    "syslog-ng did not answer on %s within %gs (workdir %s); its output:\n%s"
                    % (self.ctl_path, timeout, self.workdir, self.output()))
            time.sleep(0.05)

    def _ctl_answers(self):
        try:
            r = subprocess.run([syslog_ng_ctl_bin(), "stats", "-c", self.ctl_path],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=10)
            return r.returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def _reap(self):
        self.returncode = self.proc.returncode
        _running.pop(self.pid, None)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30):
        """SIGTERM, wait, SIGKILL after timeout seconds; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                sys.stderr.write("syslog-ng pid %d ignored SIGTERM for %gs: SIGKILL\n" % (self.pid, timeout))
                self.proc.kill()
                self.proc.wait()
        self._reap()
        return self.returncode

    def kill9(self):
        """SIGKILL (a crash for the purpose of the test); returns the exit code."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reap()
        return self.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        if exc_type is not None:
            sys.stderr.write("syslog-ng output (%s):\n%s\n" % (self.output_path, _tail(self.output())))
            if self._own_workdir:
                sys.stderr.write("kept workdir: %s\n" % self.workdir)
        elif self._own_workdir and not os.environ.get("FASTDEST_KEEP_WORKDIR"):
            shutil.rmtree(self.workdir, ignore_errors=True)
        return False

    # -- inspection ------------------------------------------------------

    def output(self):
        """syslog-ng's stdout+stderr so far (internal messages included: -e)."""
        try:
            with open(self.output_path, "rb") as f:
                return f.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def _ctl(self, args, timeout):
        r = subprocess.run([syslog_ng_ctl_bin()] + list(args) + ["-c", self.ctl_path],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        text = r.stdout.decode("utf-8", errors="replace") + r.stderr.decode("utf-8", errors="replace")
        return r.returncode, text

    def ctl(self, *args, check=True, timeout=60):
        """Run syslog-ng-ctl ARGS -c CTL; returns its stdout (stderr appended).
        With check, a non-zero exit raises SyslogNgError."""
        rc, text = self._ctl(args, timeout)
        if check and rc != 0:
            raise SyslogNgError("syslog-ng-ctl %s failed (%d): %s" % (" ".join(args), rc, text))
        return text

    def stats(self):
        """{"SourceName;SourceId;SourceInstance;State;Type": int} from syslog-ng-ctl stats."""
        result = {}
        for line in self.ctl("stats").splitlines():
            if not line or line.startswith("SourceName;"):
                continue
            key, sep, number = line.rpartition(";")
            if not sep:
                continue
            try:
                result[key] = int(number)
            except ValueError:
                continue
        return result

    def stat(self, component_prefix, id_substring, type):
        """Sum of the counters whose SourceName starts with component_prefix, whose
        SourceId contains id_substring and whose Type is type; None if there is none.
        E.g. stat("dst.file", "d_out", "written")."""
        total = None
        for key, value in self.stats().items():
            cols = key.split(";")
            if len(cols) < 5:
                continue
            # SourceInstance (a file name) may itself contain ';'
            name, source_id, state, typ = cols[0], cols[1], cols[-2], cols[-1]
            del state
            if name.startswith(component_prefix) and id_substring in source_id and typ == type:
                total = value if total is None else total + value
        return total

    def prometheus(self):
        """syslog-ng 4.x: `syslog-ng-ctl stats prometheus` as [(metric name, {label: value}, number)]."""
        out = []
        for line in self.ctl("stats", "prometheus").splitlines():
            m = re.match(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
            if not m:
                continue
            labels = {k: v.encode("latin-1", "backslashreplace").decode("unicode_escape")
                      for k, v in re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(2) or "")}
            out.append((m.group(1), labels, float(m.group(3))))
        return out

    def reload(self, config=None, check=True, timeout=60):
        """With config, first replace W/syslog-ng.conf with it.  syslog-ng-ctl reload (3.38 answers once the new config is applied or
        reverted: "Config reload successful" / "Config reload failed, reverted
        to previous config"), then wait until the control socket answers again.
        Returns the reply; with check, a failed reload raises SyslogNgError."""
        if config is not None:
            self.config = config
            with open(self.config_path, "w", encoding="utf-8") as f:
                f.write(_with_version(config))
        rc, reply = self._ctl(["reload"], timeout)
        if not wait_until(lambda: not self.running() or self._ctl_answers(), timeout):
            raise SyslogNgError("syslog-ng does not answer after reload:\n" + self.output())
        if not self.running():
            raise SyslogNgError("syslog-ng died on reload:\n" + self.output())
        if check and rc != 0:
            raise SyslogNgError("reload failed (%d): %s\n%s" % (rc, reply, _tail(self.output())))
        return reply

    def reopen(self):
        return self.ctl("reopen")

    def fd_count(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def rss_kb(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None


def check_config(config, module_path=None):
    """syslog-ng -s on config; returns (returncode, stdout+stderr text).

    Note: syslog-ng 3.38 prints the excerpt around a syntax error only when the
    file has more lines after the offending one."""
    workdir = make_workdir("fdcheck-")
    try:
        path = os.path.join(workdir, "syslog-ng.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write(_with_version(config))
        r = subprocess.run([syslog_ng_bin(), "-s", "--module-path=" + full_module_path(module_path),
                            "-f", path],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=120)
        return r.returncode, r.stdout.decode("utf-8", errors="replace")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def loggen(target, count, size=None, rate=None, extra=()):
    """Send count messages with stock loggen over a stream socket; returns loggen's output.

    target: a unix-stream socket path, or "host:port" (TCP).  rate defaults to
    as fast as loggen goes (its own default is 1000 msg/s)."""
    cmd = [loggen_bin(), "-S", "-Q", "-n", str(count),
           "-r", str(rate if rate is not None else 10000000),
           # loggen stops after --interval seconds (default 10) even before count
           "-I", "100000"]
    if size is not None:
        cmd += ["-s", str(size)]
    cmd += list(extra)
    if not target.startswith("/") and ":" in target:
        host, port = target.rsplit(":", 1)
        cmd += ["-i", host, port]
    else:
        cmd += ["-x", target]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = r.stdout.decode("utf-8", errors="replace")
    if r.returncode != 0:
        raise LoggenError("%s failed (%d): %s" % (" ".join(cmd), r.returncode, text))
    return text


def send_lines(unix_stream_path, lines):
    """Write raw lines (bytes) into a unix-stream socket, adding '\\n' where missing."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(unix_stream_path)
        for line in lines:
            if not isinstance(line, (bytes, bytearray)):
                raise TypeError("send_lines takes bytes, got %r" % type(line))
            s.sendall(line if line.endswith(b"\n") else line + b"\n")
        s.shutdown(socket.SHUT_WR)


def wait_until(predicate, timeout=30, interval=0.05):
    """Poll predicate until it is true (returns True) or timeout seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def count_lines(path):
    """Number of '\\n' bytes in path; 0 if it does not exist."""
    n = 0
    try:
        with open(path, "rb") as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    return n
                n += chunk.count(b"\n")
    except FileNotFoundError:
        return 0


def wait_for_lines(path, n, timeout=30):
    """True once path holds at least n lines, False on timeout."""
    return wait_until(lambda: count_lines(path) >= n, timeout, 0.05)


def open_fds_under(pid, prefix):
    """How many of process pid's open file descriptors point below prefix."""
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            n += os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith(prefix)
        except OSError:
            pass
    return n


class PeakFds:
    """A thread counting pid's descriptors below prefix every `interval` seconds, from start() (or the
    with-block's start) to stop() (or its end); .peak is the most it saw (a bound such as
    max-open-files() must hold at every moment), .samples how many counts it made."""

    def __init__(self, pid, prefix, interval=0.001):
        self.pid, self.prefix, self.interval = pid, prefix, interval
        self.peak = self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, open_fds_under(self.pid, self.prefix))
                self.samples += 1
            except OSError:
                pass
            time.sleep(self.interval)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.peak

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


def is_root():
    return os.geteuid() == 0


def _loud_skip_message(what):
    msg = "SKIPPED (needs root): %s" % what
    sys.stderr.write("\n*** %s ***\n" % msg)
    sys.stderr.flush()
    return msg


def skip_unless_root(testcase):
    """Skip loudly when not root.  Either call it inside a test with the
    TestCase (skip_unless_root(self)) or use it as a decorator on a test
    method or TestCase class."""
    if isinstance(testcase, unittest.TestCase):
        if not is_root():
            testcase.skipTest(_loud_skip_message(testcase.id()))
        return None
    if isinstance(testcase, type):
        orig_setup = testcase.setUp

        def setUp(self):
            skip_unless_root(self)
            orig_setup(self)
        testcase.setUp = setUp
        return testcase

    func = testcase

    def wrapper(self, *args, **kwargs):
        skip_unless_root(self)
        return func(self, *args, **kwargs)
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


class TestCase(unittest.TestCase):
    """unittest.TestCase with self.workdir(): a /tmp dir removed when the test
    passes and kept (path printed) when it fails."""

    def workdir(self):
        path = make_workdir()
        self._fd_workdirs.append(path)
        return path

    def mount_small_tmpfs(self, w, free, size=1024 * 1024):
        """A tmpfs of size bytes at w/mnt (root only), unmounted after the test, filled but for about
        free bytes by w/mnt/filler (unlink it to free the space); returns (mnt, filler)"""
        mnt = os.path.join(w, "mnt")
        os.mkdir(mnt)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % size, "fastdest-test", mnt], check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", mnt])
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:
            f.write(b"\0" * (size - free))
        return mnt, filler

    def run(self, result=None):
        self._fd_workdirs = []
        if result is None:
            return super().run(result)
        before = len(result.failures) + len(result.errors)
        try:
            return super().run(result)
        finally:
            failed = len(result.failures) + len(result.errors) > before
            for path in self._fd_workdirs:
                if failed or os.environ.get("FASTDEST_KEEP_WORKDIR"):
                    sys.stderr.write("kept workdir: %s\n" % path)
                else:
                    shutil.rmtree(path, ignore_errors=True)


@atexit.register
def _stop_leftovers():
    for sng in list(_running.values()):
        sys.stderr.write("stopping leftover syslog-ng pid %d\n" % sng.pid)
        sng.stop(timeout=10)


def main():
    """Run the calling module's tests with verbosity 2.  Exit 0 on success,
    77 (automake SKIP) when every test was skipped, 1 on any failure."""
    prog = unittest.main(module="__main__", verbosity=2, exit=False)
    result = prog.result
    _stop_leftovers()
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun > 0 and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0)
