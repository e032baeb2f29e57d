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
"""structured-event(sink(journal-export)): files, raw TCP and HTTP read by systemd-journal-remote."""

import glob
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time

import fdharness

REMOTE = "/lib/systemd/systemd-journal-remote"

CONFIG = """
options { stats_level(1); };
source s { unix-stream("%(sock)s" flags(syslog-protocol) keep-hostname(yes) so-passcred(no)); };
parser p_kv { kv-parser(prefix("kv.")); };
destination d_exp { structured-event(sink(journal-export) %(target)s
                    value-pairs(scope(nv-pairs) exclude("HOST*") exclude("SOURCE") exclude("LEGACY_MSGHDR") exclude("TRANSPORT") exclude("MSGFORMAT") exclude("MSGID"))); };
log { source(s); parser(p_kv); destination(d_exp); };
"""


def rfc5424(host, ts_usec, seq, extra=b"", program="app"):
    secs, usec = divmod(ts_usec, 1000000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%06dZ" % usec
    return ("<13>1 %s %s %s 99 - - seq=%d " % (stamp, host, program, seq)).encode() + extra


def read_journal(path):
    r = subprocess.run(["journalctl", "--file=" + path, "-o", "json", "-a", "--no-pager"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return [json.loads(line) for line in r.stdout.decode().splitlines() if line.strip()]


def read_journals(out):
    """Entries of out and of the files journal-remote set aside: a journal left
    by a killed journal-remote is renamed to <name>@<id>.journal~ at restart."""
    stem = out[:-len(".journal")]
    paths = sorted(glob.glob(stem + "@*.journal~")) + [out]
    return [e for p in paths if os.path.exists(p) for e in read_journal(p)], paths


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return True
    except OSError:
        return False


def start_remote(tc, listen, port, out):
    """systemd-journal-remote --listen-raw or --listen-http, stopped at cleanup."""
    remote = subprocess.Popen([REMOTE, "--listen-%s=127.0.0.1:%d" % (listen, port), "--split-mode=none",
                               "--output=" + out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tc.addCleanup(lambda: remote.poll() is None and remote.kill())
    tc.assertTrue(fdharness.wait_until(lambda: listening(port), 10), "journal-remote does not listen")
    return remote


def stop_remote(remote):
    remote.send_signal(signal.SIGTERM)
    remote.wait(20)


def written(sng):
    """the written counter of d_exp; None while syslog-ng does not answer (it died)"""
    try:
        return sng.stat("dst.structured-event", "d_exp", "written")
    except fdharness.SyslogNgError:
        return None


def field_bytes(entry, name):
    v = entry[name]
    return bytes(v) if isinstance(v, list) else v.encode("utf-8")


class FakeHttpPeer:
    """A TCP listener on 127.0.0.1 that reads each HTTP request whole (head and
    Content-Length body) and calls answer(conn, index) for it; answer may write
    anything and returns False to close the connection.  Stands in for peers
    that journal-remote never is: broken, hostile or slow."""

    def __init__(self, tc, answer):
        self.answer = answer
        self.requests = 0
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.stopping = False
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()
        tc.addCleanup(self.stop)

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        try:
            while not self.stopping:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                head, buf = buf.split(b"\r\n\r\n", 1)
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
                while len(buf) < length:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                buf = buf[length:]
                self.requests += 1
                if not self.answer(conn, self.requests - 1):
                    return
        except OSError:
            return
        finally:
            conn.close()

    def stop(self):
        self.stopping = True
        self.listener.close()
        for conn in self.conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


BASE_USEC = 1700000000123456


def host_boot_id():
    """The boot id journald records in _BOOT_ID: the kernel's, without dashes."""
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip().replace("-", "")


BINARY = b"\xff\xfe\x01bin"


class TestExport(fdharness.TestCase):
    def setUp(self):
        if not os.path.exists(REMOTE):
            self.skipTest("systemd-journal-remote not installed")

    def check_entries(self, entries, hosts, n):
        self.assertEqual(len(entries), n * len(hosts))
        seen = set()
        for e in entries:
            seq = int(e["KV_SEQ"])
            host = e["_HOSTNAME"]
            self.assertIn(host, hosts)
            seen.add((host, seq))
            # the message's own time, not the time it was written
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), BASE_USEC + seq)
            # systemd-journal-remote 257 (trixie) stores no entry without it; 252 (bookworm) takes either
            self.assertEqual(e["_BOOT_ID"], host_boot_id())
            self.assertEqual(field_bytes(e, "KV_BIN"), BINARY)
            self.assertEqual(e["SYSLOG_IDENTIFIER"], "app")
            self.assertEqual(e["PRIORITY"], "5")
        self.assertEqual(len(seen), n * len(hosts))

    def test_files_into_journal_remote_stdin(self):
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        n = 500
        hosts = ["hosta", "hostb"]
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": 'path("%s/${HOST}.export")' % wd}, workdir=wd)
        with sng:
            lines = [rfc5424(hosts[i % 2], BASE_USEC + i // 2, i // 2, b"bin=" + BINARY) for i in range(2 * n)]
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 2 * n, 30),
                sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
        for host in hosts:
            out = os.path.join(wd, "%s.journal" % host)
            with open(os.path.join(wd, "%s.export" % host), "rb") as f:
                subprocess.run([REMOTE, "--output=" + out, "-"], stdin=f, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.check_entries(read_journal(out), [host], n)

    def test_file_name_that_cannot_be_opened_drops_that_message_only(self):
        """a templated path() that renders a name which can never be opened (a refused '..',
        a component over 255 bytes, a missing directory without create-dirs()) drops that
        message alone, at once, counted and logged naming the destination; the messages for
        other files are written within 2 s (time-reopen() stays at its 60 s default)"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        os.mkdir(os.path.join(wd, "good"))
        config = CONFIG % {"sock": sock, "target": 'path("%s/${PROGRAM}/${HOST}.export")' % wd}
        hostile = [rfc5424("h", BASE_USEC, 0, program=".."),        # W/../h.export: refused
                   rfc5424("x" * 255, BASE_USEC, 1, program="good"),  # ENAMETOOLONG
                   rfc5424("h", BASE_USEC, 2, program="nodir")]      # ENOENT, no create-dirs()
        good = [rfc5424("h", BASE_USEC + i, 10 + i, program="good") for i in range(5)]
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            fdharness.send_lines(sock, [hostile[0], good[0], hostile[1], good[1], good[2], hostile[2]] + good[3:])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 5, 2), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 3)
            out = sng.output()
        with open(os.path.join(wd, "good", "h.export"), "rb") as f:
            self.assertEqual(f.read().count(b"\n\n"), 5)
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(wd), "h.export")))
        # one error for the first drop (rate-limited), naming the destination and the file
        drops = [line for line in out.splitlines() if "cannot open path(), message dropped" in line]
        self.assertTrue(drops, out)
        self.assertRegex(drops[0], r"driver='d_exp(#\d+)?'")
        self.assertRegex(drops[0], r"location='[^']*syslog-ng.conf:\d+:\d+'")
        self.assertIn("%s/../h.export" % wd, drops[0])

    def test_outlier_message_under_memory_limit(self):
        """a 10 MiB message among small ones with batch-lines(1000), syslog-ng under an address
        space limit of 512 MiB above what it uses: the batch buffer is bounded (it reserved
        batch-lines() x the average entry: 10 GB after the outlier) and shrinks after it"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        config = (CONFIG % {"sock": sock, "target": 'path("%s/out.export") batch-lines(1000)' % wd}).replace(
            "so-passcred(no)", "so-passcred(no) log-msg-size(12582912)")
        big = 10 * 1024 * 1024
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            with open("/proc/%d/status" % sng.pid) as f:
                vm = [int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:")][0]
            subprocess.run(["prlimit", "--pid", str(sng.pid), "--as=%d" % (vm + 512 * 1024 * 1024)], check=True)
            sent = 0
            for round_ in range(3):
                # the outlier in a batch of its own (the worst average), then small ones
                batches = [[rfc5424("h", BASE_USEC + 100 * round_, 100 * round_, b"big=" + b"x" * big)],
                           [rfc5424("h", BASE_USEC + 100 * round_ + i, 100 * round_ + i) for i in range(1, 50)]]
                for lines in batches:
                    fdharness.send_lines(sock, lines)
                    sent += len(lines)
                    fdharness.wait_until(lambda: not sng.running() or written(sng) == sent, 30)
                    self.assertTrue(sng.running(), "syslog-ng died:\n" + sng.output()[-3000:])
                    self.assertEqual(written(sng), sent, sng.stats())
        out = os.path.join(wd, "out.journal")
        with open(os.path.join(wd, "out.export"), "rb") as f:
            subprocess.run([REMOTE, "--output=" + out, "-"], stdin=f, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        entries = read_journal(out)
        self.assertEqual(sorted(int(e["KV_SEQ"]) for e in entries), sorted(100 * r + i for r in range(3) for i in range(50)))
        self.assertEqual([len(e["KV_BIG"]) for e in entries if "KV_BIG" in e], [big] * 3)

    def test_path_perm_owner_group(self):
        """create-dirs(), perm(), owner(), group() and dir-*() as file(): on the files and
        the directories path() makes"""
        fdharness.skip_unless_root(self)
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        target = ('path("%s/x/y/${HOST}.export") create-dirs(yes) perm(0640) owner("nobody") group("nogroup") '
                  'dir-perm(0750) dir-owner("nobody") dir-group("nogroup")' % wd)
        config = CONFIG % {"sock": sock, "target": target}
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            fdharness.send_lines(sock, [rfc5424("hosta", BASE_USEC + i, i) for i in range(10)])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 10, 30), sng.stats())
        nobody, nogroup = 65534, 65534
        for path, mode in ((os.path.join(wd, "x"), 0o750), (os.path.join(wd, "x", "y"), 0o750),
                           (os.path.join(wd, "x", "y", "hosta.export"), 0o640)):
            st = os.stat(path)
            self.assertEqual((oct(st.st_mode & 0o7777), st.st_uid, st.st_gid), (oct(mode), nobody, nogroup), path)
        out = os.path.join(wd, "hosta.journal")
        with open(os.path.join(wd, "x", "y", "hosta.export"), "rb") as f:
            subprocess.run([REMOTE, "--output=" + out, "-"], stdin=f, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.assertEqual(len(read_journal(out)), 10)

    def test_tcp_into_journal_remote_listen_raw(self):
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        out = os.path.join(wd, "remote.journal")
        remote = subprocess.Popen([REMOTE, "--listen-raw=127.0.0.1:%d" % port, "--split-mode=none",
                                   "--output=" + out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: remote.poll() is None and remote.kill())

        def listening():
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return True
            except OSError:
                return False
        self.assertTrue(fdharness.wait_until(listening, 10))

        n = 1000
        hosts = ["hostc", "hostd"]
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": 'host("127.0.0.1") port(%d)' % port},
                                 workdir=wd)
        with sng:
            lines = [rfc5424(hosts[i % 2], BASE_USEC + i // 2, i // 2, b"bin=" + BINARY) for i in range(2 * n)]
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 2 * n, 30), sng.stats())
        time.sleep(0.5)
        remote.send_signal(signal.SIGTERM)
        remote.wait(20)
        self.check_entries(read_journal(out), hosts, n)

    def test_http_into_journal_remote_listen_http(self):
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote(self, "http", port, out)

        n = 1000
        hosts = ["hoste", "hostf"]
        target = 'host("127.0.0.1") port(%d) transport(http) batch-lines(50)' % port
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd)
        with sng:
            lines = [rfc5424(hosts[i % 2], BASE_USEC + i // 2, i // 2, b"bin=" + BINARY) for i in range(2 * n)]
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 2 * n, 30), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
            # acknowledged means stored: no waiting for journal-remote here
            entries = read_journal(out)
        stop_remote(remote)
        self.check_entries(entries, hosts, n)

    def test_http_refused_is_dropped_after_retries(self):
        # journal-remote refuses an upload that is not application/vnd.fdo.journal: a
        # plain HTTP server on the port stands in for any non-2xx answer (here 501)
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        port = free_port()
        server = subprocess.Popen(["python3", "-m", "http.server", "--bind", "127.0.0.1", str(port),
                                   "--directory", wd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: server.poll() is None and (server.kill(), server.wait()))
        self.assertTrue(fdharness.wait_until(lambda: listening(port), 10))
        target = 'host("127.0.0.1") port(%d) transport(http) time-reopen(1) retries(2)' % port
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd)
        with sng:
            fdharness.send_lines(sock, [rfc5424("hostg", BASE_USEC + i, i) for i in range(10)])
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "dropped") == 10, 30), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "written"), 0)
            # the batch, its first entry alone and an empty upload are refused: the server refuses everything
            self.assertIn("the server refuses every request", sng.output())
            self.assertIn("answer='501 ", sng.output())

    def test_http_entry_journal_remote_refuses_dropped_alone(self):
        """an entry journal-remote cannot take (more than its 1024 fields: it closes the connection
        without an answer) among good ones: the batch is sent entry by entry, the refused entry
        alone is dropped, the good ones are stored within 2 s (time-reopen() at its default)"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote(self, "http", port, out)
        target = 'host("127.0.0.1") port(%d) transport(http) max-fields(2000) batch-lines(20)' % port
        hostile = rfc5424("hostr", BASE_USEC + 10, 10, b" ".join(b"f%04d=v" % i for i in range(1100)))
        lines = [rfc5424("hostr", BASE_USEC + i, i) for i in range(10)] + [hostile] + \
            [rfc5424("hostr", BASE_USEC + i, i) for i in range(11, 21)]
        with fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd) as sng:
            fdharness.send_lines(sock, lines)
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == 20, 2), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 1)
            drops = [line for line in sng.output().splitlines() if "refuses this entry on its own" in line]
            entries = read_journal(out)
        stop_remote(remote)
        self.assertEqual(len(drops), 1, sng.output())
        self.assertRegex(drops[0], r"driver='d_exp(#\d+)?'.*location='[^']*syslog-ng.conf:\d+:\d+'")
        seqs = [int(e["KV_SEQ"]) for e in entries]
        self.assertEqual(sorted(set(seqs)), [i for i in range(21) if i != 10])
        # journal-remote stored the entries before the refused one from the whole batch: those
        # come twice (at least once: only entries of the refused batch)
        self.assertTrue(all(q < 10 for q in seqs if seqs.count(q) > 1), seqs)

    def test_http_nul_byte_in_answer_head(self):
        """an answer whose head holds a NUL byte (never valid HTTP) is judged at once, as not
        HTTP: nothing acknowledged, the batch sent again after time-reopen(); it does not wait
        for more of a head it cannot find"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")

        def answer(conn, index):
            conn.sendall(b"HTTP/1.1 202 Accepted\r\nX-A: a\0b\r\nContent-Length: 4\r\n\r\nOK.\n")
            return True          # and keep the connection open, as a kept-alive answer does
        peer = FakeHttpPeer(self, answer)
        target = 'host("127.0.0.1") port(%d) transport(http) time-reopen(1)' % peer.port
        with fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd) as sng:
            fdharness.send_lines(sock, [rfc5424("hostn", BASE_USEC + i, i) for i in range(3)])
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 2, 5),
                            "the batch was not sent again within 5 s: %d request(s)\n%s" % (peer.requests, sng.output()))
            self.assertRegex(sng.output(), "not an HTTP answer|Nul byte in header")
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "written"), 0)

    def test_http_trickling_peer_costs_at_most_timeout(self):
        """a peer that answers 'Content-Length: 99999999999' and then a byte every half second
        (each read succeeds, no per-read timeout fires): the batch takes at most timeout(),
        is not acknowledged and goes again; reload and stop complete within timeout()"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")

        def answer(conn, index):
            conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 99999999999\r\n\r\n")
            while True:
                time.sleep(0.5)
                conn.sendall(b"x")
        peer = FakeHttpPeer(self, answer)
        target = 'host("127.0.0.1") port(%d) transport(http) time-reopen(1) timeout(2)' % peer.port
        config = CONFIG % {"sock": sock, "target": target}
        with fdharness.SyslogNg(config, workdir=wd) as sng:
            fdharness.send_lines(sock, [rfc5424("hostt", BASE_USEC + i, i) for i in range(3)])
            self.assertTrue(fdharness.wait_until(lambda: "timeout() reached" in sng.output(), 5), sng.output())
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 2, 5), "the batch did not go again")
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "written"), 0)
            # a batch is on the wire again: reload and stop wait for it at most timeout()
            t0 = time.monotonic()
            sng.reload()
            self.assertLess(time.monotonic() - t0, 2 + 2)
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 3, 5), "no request after the reload")
            t0 = time.monotonic()
            sng.stop()
            self.assertLess(time.monotonic() - t0, 2 + 2)

    def test_http_journal_remote_killed_and_restarted(self):
        """kill -9 of journal-remote mid-stream, restarted on the same output file:
        nothing lost; duplicates only from the batch in flight, reported."""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote(self, "http", port, out)

        n = 20000
        batch = 100
        target = 'host("127.0.0.1") port(%d) transport(http) time-reopen(1) batch-lines(%d)' % (port, batch)
        config = CONFIG.replace("so-passcred(no)", "so-passcred(no) max-connections(1) log-iw-size(20000)")
        config = config.replace("destination(d_exp); };", "destination(d_exp); flags(flow-control); };")
        sng = fdharness.SyslogNg(config % {"sock": sock, "target": target}, workdir=wd)
        with sng:
            lines = [rfc5424("hosth", BASE_USEC + i, i, b"bin=" + BINARY) for i in range(n)]

            # no pauses: a backlog all along, so the kill lands while a request is in flight
            feeder = threading.Thread(target=fdharness.send_lines, args=(sock, lines), daemon=True)
            feeder.start()
            self.assertTrue(fdharness.wait_until(
                lambda: (sng.stat("dst.structured-event", "d_exp", "written") or 0) >= 3000, 30), sng.stats())
            remote.send_signal(signal.SIGKILL)
            remote.wait()
            at = sng.stat("dst.structured-event", "d_exp", "written")
            time.sleep(2)
            remote = start_remote(self, "http", port, out)
            feeder.join()
            self.assertTrue(fdharness.wait_until(
                lambda: sng.stat("dst.structured-event", "d_exp", "written") == n, 60), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
            # the outage is logged: the request in flight got no answer, or the reconnect was refused
            self.assertRegex(sng.output(), "no answer to the batch|cannot connect to host")
        stop_remote(remote)

        entries, paths = read_journals(out)
        self.assertEqual(len(paths), 2, "journal-remote did not set the killed instance's file aside: %s" % paths)
        seqs = [int(e["KV_SEQ"]) for e in entries]
        for e in entries:
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), BASE_USEC + int(e["KV_SEQ"]))
            self.assertEqual(e["_HOSTNAME"], "hosth")
            self.assertEqual(field_bytes(e, "KV_BIN"), BINARY)
        missing = sorted(set(range(n)) - set(seqs))
        duplicated = len(seqs) - len(set(seqs))
        print("\nkill -9 of journal-remote at %d written: %d entries, lost %d, duplicated %d"
              % (at, len(seqs), len(missing), duplicated))
        self.assertEqual(missing, [])
        # at least once: only entries of the one request in flight can arrive twice
        self.assertLessEqual(duplicated, batch)
        seen, dups = set(), set()
        for q in seqs:
            (dups if q in seen else seen).add(q)
        self.assertTrue(not dups or max(dups) - min(dups) < batch, "duplicates span more than one batch")


if __name__ == "__main__":
    fdharness.main()
