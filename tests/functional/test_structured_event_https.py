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
"""structured-event(sink(journal-export) url("https://...") tls(...)): HTTPS uploads through libcurl
into the real systemd-journal-remote --listen-https, with a test CA made by openssl at test time.

Bookworm's journal-remote listens on HTTPS but refuses --trust (built without that GnuTLS
support), so it cannot demand a client certificate: the client-certificate tests put socat's
OPENSSL-LISTEN (verify=1: a client certificate signed by the CA is required) in front of
journal-remote --listen-http."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import fdharness
from test_structured_event_export import (CONFIG, BASE_USEC, BINARY, REMOTE, FakeHttpPeer, field_bytes, free_port,
                                          listening, read_journal, read_journals, rfc5424, start_remote, stop_remote)

SOCAT = shutil.which("socat")
OPENSSL = shutil.which("openssl")
PKI = None


class Pki:
    """A test CA and the certificates the tests need, made with openssl in a private directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="fdpki-", dir="/tmp")
        self.ca = self._ca("ca", "fastdest test CA")
        self.other_ca = self._ca("other-ca", "another CA")
        self.server = self._leaf("server", "localhost", "DNS:localhost,IP:127.0.0.1", "serverAuth")
        self.wrong_host = self._leaf("wrong-host", "collector.example", "DNS:collector.example", "serverAuth")
        self.expired = self._leaf("expired", "localhost", "DNS:localhost,IP:127.0.0.1", "serverAuth",
                                  dates=("20200101000000Z", "20200102000000Z"))
        self.client = self._leaf("client", "sender.example", "DNS:sender.example", "clientAuth")

    def path(self, name):
        return os.path.join(self.dir, name)

    def _run(self, *args):
        subprocess.run([OPENSSL] + list(args), cwd=self.dir, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def _ca(self, name, cn):
        self._run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".crt",
                  "-days", "2", "-subj", "/CN=" + cn, "-addext", "basicConstraints=critical,CA:TRUE",
                  "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        return self.path(name + ".crt")

    def _leaf(self, name, cn, san, usage, dates=None):
        """(certificate, key) signed by the test CA; dates: (notBefore, notAfter) through 'openssl ca'"""
        self._run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                  "-subj", "/CN=" + cn)
        with open(self.path(name + ".ext"), "w") as f:
            f.write("subjectAltName=%s\nextendedKeyUsage=%s\n" % (san, usage))
        if dates is None:
            self._run("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial",
                      str(abs(hash(name)) % 100000 + 2), "-days", "2", "-out", name + ".crt", "-extfile", name + ".ext")
        else:
            # 'openssl x509' only counts days from now: 'openssl ca' takes a start and an end date
            os.makedirs(self.path("ca-db"), exist_ok=True)
            open(self.path("ca-db/index.txt"), "w").close()
            with open(self.path("ca.cnf"), "w") as f:
                f.write("[ca]\ndefault_ca = test\n[test]\ndir = %s\ndatabase = $dir/index.txt\n"
                        "new_certs_dir = $dir\nserial = $dir/serial\ndefault_md = sha256\npolicy = any\n"
                        "[any]\ncommonName = supplied\n" % self.path("ca-db"))
            with open(self.path("ca-db/serial"), "w") as f:
                f.write("1000\n")
            self._run("ca", "-batch", "-config", "ca.cnf", "-cert", "ca.crt", "-keyfile", "ca.key",
                      "-startdate", dates[0], "-enddate", dates[1], "-in", name + ".csr", "-out", name + ".crt",
                      "-extfile", name + ".ext", "-notext")
        return self.path(name + ".crt"), self.path(name + ".key")

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def setUpModule():
    global PKI
    if OPENSSL and os.path.exists(REMOTE):
        PKI = Pki()


def tearDownModule():
    if PKI:
        PKI.cleanup()


def start_remote_https(tc, port, out, cert):
    """systemd-journal-remote --listen-https with (certificate, key), stopped at cleanup"""
    remote = subprocess.Popen([REMOTE, "--listen-https=127.0.0.1:%d" % port, "--cert=" + cert[0], "--key=" + cert[1],
                               "--split-mode=none", "--output=" + out],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tc.addCleanup(lambda: remote.poll() is None and (remote.kill(), remote.wait()))
    tc.assertTrue(fdharness.wait_until(lambda: listening(port), 10), "journal-remote does not listen")
    return remote


def start_tls_front(tc, port, backend_port, require_client_cert=True):
    """socat: TLS on port with the server certificate, a client certificate of the test CA required,
    plain TCP to backend_port behind it"""
    listen = "OPENSSL-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork,cert=%s,key=%s,cafile=%s,verify=%d" % (
        port, PKI.server[0], PKI.server[1], PKI.ca, 1 if require_client_cert else 0)
    front = subprocess.Popen([SOCAT, listen, "TCP:127.0.0.1:%d" % backend_port],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tc.addCleanup(lambda: front.poll() is None and (front.kill(), front.wait()))
    tc.assertTrue(fdharness.wait_until(lambda: listening(port), 10), "socat does not listen")
    return front


def lines_for(hosts, n):
    return [rfc5424(hosts[i % len(hosts)], BASE_USEC + i // len(hosts), i // len(hosts), b"bin=" + BINARY)
            for i in range(len(hosts) * n)]


def written(sng):
    return sng.stat("dst.structured-event", "d_exp", "written") or 0


class TestHttps(fdharness.TestCase):
    def setUp(self):
        if not os.path.exists(REMOTE):
            self.skipTest("systemd-journal-remote not installed")
        if not PKI:
            self.skipTest("openssl not installed")

    def check_entries(self, entries, hosts, n):
        """exactly n entries per host, each with its original time and host, the binary value byte-exact"""
        self.assertEqual(len(entries), n * len(hosts))
        seen = set()
        for e in entries:
            seq = int(e["KV_SEQ"])
            self.assertIn(e["_HOSTNAME"], hosts)
            seen.add((e["_HOSTNAME"], seq))
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), BASE_USEC + seq)
            self.assertEqual(field_bytes(e, "KV_BIN"), BINARY)
            self.assertEqual(e["SYSLOG_IDENTIFIER"], "app")
        self.assertEqual(len(seen), n * len(hosts))

    def send_and_wait(self, target, hosts, n, timeout=30):
        """syslog-ng with target: n messages per host sent and acknowledged; returns its stats at the end"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd)
        with sng:
            fdharness.send_lines(sock, lines_for(hosts, n))
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == len(hosts) * n, timeout),
                            "%s\n%s" % (sng.stats(), sng.output()[-2000:]))
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
            return sng.stats()

    def test_https_into_journal_remote(self):
        """url("https://...") with the test CA: journal-remote --listen-https stores every entry with
        its original time and host; the request URL gets journal-remote's /upload path"""
        wd = self.workdir()
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote_https(self, port, out, PKI.server)
        hosts, n = ["web1", "web2"], 500
        target = ('url("https://127.0.0.1:%d") tls(ca-file("%s") peer-verify(yes)) batch-lines(50)'
                  % (port, PKI.ca))
        stats = self.send_and_wait(target, hosts, n)
        stop_remote(remote)
        self.check_entries(read_journal(out), hosts, n)
        self.assertTrue(any(k.startswith("dst.structured-event;d_exp#0;structured-event,journal-export,"
                                         "https://127.0.0.1:%d/upload;" % port) for k in stats), stats)

    def test_https_by_host_name_and_options(self):
        """the certificate's DNS name, ssl-version(), cipher-suite(), ca-dir() with the system store and
        timeout(): accepted together, and entries arrive"""
        wd = self.workdir()
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote_https(self, port, out, PKI.server)
        ca_dir = os.path.join(wd, "ca-dir")
        os.mkdir(ca_dir)
        shutil.copy(PKI.ca, ca_dir)
        subprocess.run([OPENSSL, "rehash", ca_dir], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        target = ('url("https://localhost:%d/upload") timeout(10) tls(ca-dir("%s") use-system-cert-store(yes) '
                  'ssl-version("tlsv1_2") cipher-suite("ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"))'
                  % (port, ca_dir))
        self.send_and_wait(target, ["web3"], 100)
        stop_remote(remote)
        self.check_entries(read_journal(out), ["web3"], 100)

    def test_client_certificate_through_tls_front(self):
        """a TLS front that requires a client certificate of the test CA, journal-remote --listen-http
        behind it: with cert-file() and key-file() every entry arrives"""
        if not SOCAT:
            self.skipTest("socat not installed")
        wd = self.workdir()
        http_port, tls_port = free_port(), free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote(self, "http", http_port, out)
        start_tls_front(self, tls_port, http_port)
        target = ('url("https://127.0.0.1:%d") tls(ca-file("%s") cert-file("%s") key-file("%s")) batch-lines(50)'
                  % (tls_port, PKI.ca, PKI.client[0], PKI.client[1]))
        self.send_and_wait(target, ["web4", "web5"], 300)
        stop_remote(remote)
        self.check_entries(read_journal(out), ["web4", "web5"], 300)

    def refused_until_fixed(self, target, start_peer, cause, fix, fixed_target=None):
        """Messages to a peer whose TLS handshake fails: nothing acknowledged, the cause logged once
        with its reason; fixed (fix(): the peer changed, or a reload with fixed_target), every message
        goes out, exactly once."""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        out = os.path.join(wd, "remote.journal")
        peer = start_peer(out)
        n = 50
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target + " time-reopen(1)"}, workdir=wd)
        with sng:
            fdharness.send_lines(sock, lines_for(["web6"], n))
            self.assertTrue(fdharness.wait_until(lambda: re.search(cause, sng.output()), 15), sng.output()[-3000:])
            # three more attempts (time-reopen(1)): the same cause is not logged again
            time.sleep(3.5)
            out_text = sng.output()
            self.assertEqual(written(sng), 0)
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
            errors = [line for line in out_text.splitlines() if re.search(cause, line)]
            self.assertEqual(len(errors), 1, "\n".join(errors))
            self.assertRegex(errors[0], r"driver='d_exp(#\d+)?'.*location=")
            peer = fix(peer, out) or peer
            if fixed_target:
                sng.reload(CONFIG % {"sock": sock, "target": fixed_target + " time-reopen(1)"})
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 30), sng.output()[-3000:])
            if not fixed_target:
                # the same destination recovers and says so (a reload makes a new one)
                self.assertIn("delivering again", sng.output())
        peer.send_signal(signal.SIGTERM)
        peer.wait(20)
        entries, _ = read_journals(out)
        self.check_entries(entries, ["web6"], n)

    def test_unknown_ca(self):
        port = free_port()
        self.refused_until_fixed(
            'url("https://127.0.0.1:%d") tls(ca-file("%s"))' % (port, PKI.other_ca),
            lambda out: start_remote_https(self, port, out, PKI.server),
            r"unable to get local issuer certificate|self.signed certificate",
            lambda peer, out: None,
            fixed_target='url("https://127.0.0.1:%d") tls(ca-file("%s"))' % (port, PKI.ca))

    def restart_with(self, port, cert):
        def fix(peer, out):
            peer.send_signal(signal.SIGTERM)
            peer.wait(20)
            return start_remote_https(self, port, out, cert)
        return fix

    def test_wrong_host_name(self):
        port = free_port()
        self.refused_until_fixed(
            'url("https://127.0.0.1:%d") tls(ca-file("%s"))' % (port, PKI.ca),
            lambda out: start_remote_https(self, port, out, PKI.wrong_host),
            # curl 7.88 (bookworm) says "host name", 8.14 (trixie) "ipv4 address"
            r"no alternative certificate subject name matches target (host name|ipv4 address)",
            self.restart_with(port, PKI.server))

    def test_expired_certificate(self):
        port = free_port()
        self.refused_until_fixed(
            'url("https://127.0.0.1:%d") tls(ca-file("%s"))' % (port, PKI.ca),
            lambda out: start_remote_https(self, port, out, PKI.expired),
            r"certificate has expired",
            self.restart_with(port, PKI.server))

    def test_missing_client_certificate(self):
        if not SOCAT:
            self.skipTest("socat not installed")
        http_port, tls_port = free_port(), free_port()

        def start(out):
            remote = start_remote(self, "http", http_port, out)
            start_tls_front(self, tls_port, http_port)
            return remote
        self.refused_until_fixed(
            'url("https://127.0.0.1:%d") tls(ca-file("%s"))' % (tls_port, PKI.ca),
            start, r"certificate required|handshake failure|alert",
            lambda peer, out: None,
            fixed_target='url("https://127.0.0.1:%d") tls(ca-file("%s") cert-file("%s") key-file("%s"))'
            % (tls_port, PKI.ca, PKI.client[0], PKI.client[1]))

    def test_https_journal_remote_killed_and_restarted(self):
        """kill -9 of journal-remote --listen-https mid-stream, restarted on the same output file:
        nothing lost; duplicates only from the batch in flight"""
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        port = free_port()
        out = os.path.join(wd, "remote.journal")
        remote = start_remote_https(self, port, out, PKI.server)
        n, batch = 20000, 100
        target = ('url("https://127.0.0.1:%d") tls(ca-file("%s")) time-reopen(1) batch-lines(%d)'
                  % (port, PKI.ca, batch))
        config = CONFIG.replace("so-passcred(no)", "so-passcred(no) max-connections(1) log-iw-size(20000)")
        config = config.replace("destination(d_exp); };", "destination(d_exp); flags(flow-control); };")
        with fdharness.SyslogNg(config % {"sock": sock, "target": target}, workdir=wd) as sng:
            lines = [rfc5424("hosts", BASE_USEC + i, i, b"bin=" + BINARY) for i in range(n)]
            feeder = threading.Thread(target=fdharness.send_lines, args=(sock, lines), daemon=True)
            feeder.start()
            self.assertTrue(fdharness.wait_until(lambda: written(sng) >= 3000, 30), sng.stats())
            remote.send_signal(signal.SIGKILL)
            remote.wait()
            at = written(sng)
            time.sleep(2)
            remote = start_remote_https(self, port, out, PKI.server)
            feeder.join()
            self.assertTrue(fdharness.wait_until(lambda: written(sng) == n, 60), sng.stats())
            self.assertEqual(sng.stat("dst.structured-event", "d_exp", "dropped"), 0)
        stop_remote(remote)
        entries, paths = read_journals(out)
        seqs = [int(e["KV_SEQ"]) for e in entries]
        for e in entries:
            self.assertEqual(int(e["__REALTIME_TIMESTAMP"]), BASE_USEC + int(e["KV_SEQ"]))
            self.assertEqual(e["_HOSTNAME"], "hosts")
        missing = sorted(set(range(n)) - set(seqs))
        duplicated = len(seqs) - len(set(seqs))
        print("\nkill -9 of journal-remote --listen-https at %d written: %d entries in %s, lost %d, duplicated %d"
              % (at, len(seqs), [os.path.basename(p) for p in paths], len(missing), duplicated))
        self.assertEqual(missing, [])
        self.assertLessEqual(duplicated, batch)

    def trickling_tls_peer(self):
        """behind TLS, a peer that answers 'Content-Length: 99999999999' and then a byte every half
        second: every read succeeds, only an overall deadline ends the request"""
        def answer(conn, index):
            conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 99999999999\r\n\r\n")
            while True:
                time.sleep(0.5)
                conn.sendall(b"x")
        peer = FakeHttpPeer(self, answer)
        tls_port = free_port()
        start_tls_front(self, tls_port, peer.port, require_client_cert=False)
        return peer, tls_port

    def test_trickling_tls_peer_costs_at_most_timeout(self):
        """each batch gives up after timeout(2) and goes again after time-reopen(); nothing acknowledged"""
        if not SOCAT:
            self.skipTest("socat not installed")
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        peer, tls_port = self.trickling_tls_peer()
        target = 'url("https://127.0.0.1:%d") tls(ca-file("%s")) time-reopen(1) timeout(2)' % (tls_port, PKI.ca)
        with fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd) as sng:
            fdharness.send_lines(sock, lines_for(["web7"], 3))
            self.assertTrue(fdharness.wait_until(lambda: "timeout() reached" in sng.output(), 6), sng.output())
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 2, 6), "the batch did not go again")
            self.assertEqual(written(sng), 0)

    def test_stop_and_reload_do_not_wait_for_timeout(self):
        """with timeout(60) and a request held by a trickling peer, a reload and a stop each complete
        within 3 s: the request in flight is given up (and sent again by the next configuration)"""
        if not SOCAT:
            self.skipTest("socat not installed")
        wd = self.workdir()
        sock = os.path.join(wd, "in.sock")
        peer, tls_port = self.trickling_tls_peer()
        target = 'url("https://127.0.0.1:%d") tls(ca-file("%s")) timeout(60)' % (tls_port, PKI.ca)
        sng = fdharness.SyslogNg(CONFIG % {"sock": sock, "target": target}, workdir=wd)
        with sng:
            fdharness.send_lines(sock, lines_for(["web8"], 3))
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 1, 6), "no request")
            time.sleep(1)
            t0 = time.monotonic()
            sng.reload()
            self.assertLess(time.monotonic() - t0, 3)
            self.assertTrue(fdharness.wait_until(lambda: peer.requests >= 2, 6), "no request after the reload")
            time.sleep(1)
            t0 = time.monotonic()
            sng.stop()
            self.assertLess(time.monotonic() - t0, 3)
            self.assertEqual(sng.returncode, 0)


class TestTlsOptionErrors(fdharness.TestCase):
    """tls() and url() mistakes fail syslog-ng -s with an error naming the option"""

    def setUp(self):
        if not PKI:
            self.skipTest("openssl or systemd-journal-remote not installed")

    def check(self, options, expected):
        rc, out = fdharness.check_config(
            "destination d { structured-event(sink(journal-export) %s); };\n"
            "log { source { internal(); }; destination(d); };\n" % options)
        self.assertNotEqual(rc, 0, options)
        self.assertIn(expected, out, options)

    def test_errors_name_the_option(self):
        wd = self.workdir()
        not_pem = os.path.join(wd, "not.pem")
        with open(not_pem, "w") as f:
            f.write("hello\n")
        unreadable = os.path.join(wd, "missing.pem")
        https = 'url("https://127.0.0.1:19532") '
        self.check('url("ftp://collector.example")', "url(ftp://collector.example)")
        self.check('url("no url at all")', "url(no url at all)")
        self.check(https + 'host("127.0.0.1")', "url() says where and how to send: not with host()")
        self.check('url("http://127.0.0.1:19532") tls(ca-file("%s"))' % PKI.ca, "tls() needs an https:// url()")
        self.check(https + 'tls(ca-file("%s"))' % unreadable, "ca-file(%s): No such file or directory" % unreadable)
        self.check(https + 'tls(ca-dir("%s"))' % PKI.ca, "ca-dir(%s): Not a directory" % PKI.ca)
        self.check(https + 'tls(cert-file("%s"))' % unreadable, "cert-file(%s)" % unreadable)
        self.check(https + 'tls(key-file("%s") cert-file("%s"))' % (unreadable, PKI.client[0]), "key-file(%s)" % unreadable)
        self.check(https + 'tls(cert-file("%s") key-file("%s"))' % (not_pem, PKI.client[1]),
                   "cert-file(%s): not a PEM certificate" % not_pem)
        self.check(https + 'tls(cert-file("%s") key-file("%s"))' % (PKI.client[0], PKI.server[1]),
                   "is not the key of cert-file(%s)" % PKI.client[0])
        self.check(https + 'tls(key-file("%s"))' % PKI.client[1], "key-file() needs cert-file()")
        self.check(https + 'tls(ssl-version("sslv3"))', "ssl-version(sslv3): expected default, tlsv1")
        self.check(https + 'tls(cipher-suite("NO-SUCH-CIPHER"))', "cipher-suite(NO-SUCH-CIPHER)")
        self.check('path("/tmp/x.export") timeout(5)', "timeout() needs url() or host()")
        # the table of which sink takes which option
        rc, out = fdharness.check_config(
            'destination d { structured-event(sink(ctf) path("/tmp/t") url("https://127.0.0.1")); };\n'
            "log { source { internal(); }; destination(d); };\n")
        self.assertIn("url() cannot be used with sink(ctf), it is an option of sink(journal-export)", out)


if __name__ == "__main__":
    fdharness.main()
