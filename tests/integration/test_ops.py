"""Operations: the config file (--config, --check-config, flags override
it), TLS (https and wss on one port with a throwaway certificate, ALPN
http/1.1, the HTTP-to-HTTPS redirect listener), the Origin allow-list,
connection and rate limits from the config, SIGTERM mid-game and restart
without charging the downtime, SIGHUP log reopen, one server per database,
and the online backup while games are played (and its restore)."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import ssl
import subprocess
import threading
import time
import unittest

from harness import (FISCHER_5_0, POSTGRES, SERVER, WAIT, Client, Closed,
                     not_in_cluster,
                     FreshServerTest, HandshakeError, free_port, sqlite_only,
                     wait_until, write_json)


def make_cert(folder, kind="ec", name="cert"):
    """A self-signed certificate for localhost and 127.0.0.1 made with the
    openssl command, an ECDSA P-256 key (kind "ec") or RSA 2048 ("rsa");
    returns (cert, key) paths (cert.pem and key.pem, or NAME.pem and
    NAME.key.pem)."""
    cert = os.path.join(folder, name + ".pem")
    key = os.path.join(folder, "key.pem" if name == "cert"
                       else name + ".key.pem")
    newkey = (["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
              if kind == "ec" else ["-newkey", "rsa:2048"])
    subprocess.run(
        ["openssl", "req", "-x509"] + newkey + ["-nodes", "-keyout", key,
         "-out", cert, "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30)
    return cert, key


def s_client(port, *args):
    """A TLS handshake with `openssl s_client` and its options args (e.g.
    "-tls1_2", "-cipher", NAME); returns the cipher agreed, or None when
    the server refused."""
    r = subprocess.run(
        ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
         "-servername", "localhost"] + list(args),
        input=b"", capture_output=True, timeout=30)
    out = r.stdout.decode("latin-1")
    m = re.search(r"^New, (\S+), Cipher is (\S+)$", out, re.M)
    if r.returncode != 0 or not m or m.group(2) == "(NONE)":
        return None
    return m.group(2)


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


ROOT = os.path.normpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))


def run(*args, timeout=20):
    """chess-server args, from the source tree (where the default
    web_root, ./web, is)."""
    return subprocess.run([SERVER] + list(args), capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@not_in_cluster("one process's settings, TLS, signals and files")
class OpsTest(FreshServerTest):
    """A temporary folder per test, servers and clients closed after."""

    def launch(self, *args, log=None):
        """chess-server with args and --port on a free port, its stderr in
        a file; waits for the start line in `log` (default: that file).
        A port taken meanwhile is retried. Returns (proc, port, stderr
        path)."""
        for attempt in range(5):
            err = self.path("stderr-%d.txt" % len(self.procs))
            port = free_port()
            with open(err, "wb") as f:
                p = subprocess.Popen([SERVER, "--listen", "127.0.0.1",
                                      "--port", str(port)]
                                     + list(args), stdout=f, stderr=f)
            self.procs.append(p)
            wait_until(lambda: "event=listening" in read(log or err)
                       or p.poll() is not None, "the start")
            if p.poll() is None:
                return p, port, err
            if "(in use?)" not in read(err):
                raise AssertionError("server exited: " + read(err))
        raise AssertionError("no free port")


class ConfigFileTest(OpsTest):
    def test_check_config_good(self):
        cfg = write_json(self.path("good.json"), {
            "port": 9999, "grace_s": 5, "log_level": "debug",
            "allowed_origins": ["https://chess.example.org"],
            "database": self.path("x.db")})
        r = run("--check-config", cfg)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(cfg + ": OK", r.stdout)
        self.assertFalse(os.path.exists(self.path("x.db")))  # not started

    def test_check_config_reaches_postgres_and_redis(self):
        """With postgres or redis set, --check-config connects: SELECT 1,
        PING. One that does not answer fails the check naming the key,
        with status 75 (EX_TEMPFAIL: it may answer later; the units try
        again), and so does a start that cannot reach PostgreSQL; a
        malformed setting is the configuration's fault: 2 (and so is a
        Redis that refuses the node: test_cluster's ClusterTlsTest)."""
        key = self.path("cluster.key")
        with open(key, "w") as f:
            f.write("k" * 32 + "\n")
        cases = [({"postgres": "host=%s port=5432 dbname=chess"
                   % self.path("nopg")}, 75,
                  ["key 'postgres'", "PostgreSQL does not answer",
                   self.path("nopg")]),
                 ({"postgres": "host=/tmp dbname"}, 2,
                  ["key 'postgres'", "not a libpq connection string"]),
                 # a cluster's nodes share their games: redis alone is
                 # refused before anything is reached
                 ({"redis": self.path("no-redis.sock")}, 2,
                  ["key 'redis'", "set 'postgres' too"])]
        if POSTGRES:  # a database that answers, a Redis that does not
            cases += [({"postgres": POSTGRES, "cluster_key_file": key,
                        "redis": self.path("no-redis.sock")}, 75,
                       ["key 'redis'", "does not answer",
                        self.path("no-redis.sock")]),
                      ({"postgres": POSTGRES, "cluster_key_file": key,
                        "redis": "127.0.0.1:%d" % free_port()}, 75,
                       ["key 'redis'", "Connection refused"])]
        for obj, status, words in cases:
            r = run("--check-config", write_json(self.path("c.json"), obj))
            self.assertEqual(r.returncode, status, (obj, r.stdout, r.stderr))
            self.assertNotIn("OK", r.stdout)
            for w in words:
                self.assertIn(w, r.stderr, obj)
        # a start that cannot reach PostgreSQL exits as the check would
        r = run("--config", write_json(self.path("c.json"), cases[0][0]),
                "--listen", "127.0.0.1", "--port", str(free_port()))
        self.assertEqual(r.returncode, 75, r.stderr)
        self.assertIn("event=start_failed", r.stderr)
        self.assertIn("cannot connect to PostgreSQL", r.stderr)
        if not POSTGRES:
            return
        good = {"postgres": POSTGRES}
        if os.environ.get("CHESS_TEST_REDIS"):  # (run.py: its settings)
            good.update(json.loads(os.environ["CHESS_TEST_REDIS"]))
        cfg = write_json(self.path("good.json"), good)
        r = run("--check-config", cfg)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(cfg + ": OK", r.stdout)

    def test_check_config_checks_the_host(self):
        """What the host must have for the settings is the configuration's
        too (status 2): the web client's folder, a folder the database
        can be made in, an address of this host to listen on. Nothing is
        created."""
        with open(self.path("a-file"), "w") as f:
            f.write("not a folder\n")
        cases = [({"web_root": self.path("no-web")},
                  ["key 'web_root'", self.path("no-web"), "No such file"]),
                 ({"web_root": self.path("a-file")},
                  ["key 'web_root'", "is not a folder"]),
                 ({"database": self.path("a-file", "db", "c.db")},
                  ["key 'database'", self.path("a-file")]),
                 ({"listen_address": "192.0.2.1"},  # TEST-NET-1
                  ["key 'listen_address'", "192.0.2.1",
                   "not an address of this host"])]
        for obj, words in cases:
            r = run("--check-config", write_json(self.path("c.json"), obj))
            self.assertEqual(r.returncode, 2, (obj, r.stdout, r.stderr))
            for w in words:
                self.assertIn(w, r.stderr, obj)
        # a database folder not there yet, below one that can hold it
        ok = {"database": self.path("new", "deeper", "c.db"),
              "listen_address": "127.0.0.1", "web_root": self.dir}
        r = run("--check-config", write_json(self.path("ok.json"), ok))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(self.path("new")))

    def test_committed_configs_are_valid(self):
        here = os.path.dirname(os.path.abspath(__file__))
        bench = os.path.join(here, "..", "bench", "bench-config.json")
        if os.path.exists(bench):
            r = run("--check-config", bench)
            self.assertEqual(r.returncode, 0, r.stderr)
        # the TLS example names the certificate's real location on a
        # host; with a generated one in its place it passes
        example = os.path.join(here, "..", "..", "deploy",
                               "config.tls.example.json")
        with open(example) as f:
            obj = json.load(f)
        cert, key = make_cert(self.dir)
        # (its web_root is where the client is installed)
        obj.update(tls_cert=cert, tls_key=key, web_root=self.dir)
        r = run("--check-config", write_json(self.path("ex.json"), obj))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_check_config_bad(self):
        cases = [
            ({"port": 8080, "colour": "blue"}, ["unknown key", "'colour'"]),
            ({"port": "8080"}, ["'port'", "integer", "not a string"]),
            ({"grace_s": 0}, ["'grace_s'", "from 1 to 86400", "not 0"]),
            ({"log_level": "loud"}, ["'log_level'", "'loud'"]),
            ({"allowed_origins": ["example.org"]},
             ["'allowed_origins'", "not an origin"]),
            ({"tls_cert": self.path("nope.pem"),
              "tls_key": self.path("nope.key")},
             ["'tls_cert'", "nope.pem", "No such file"]),
            ({"tls_key": self.path("k")}, ["'tls_key'", "'tls_cert'"]),
            ({"http_redirect_port": 80}, ["'http_redirect_port'", "TLS"]),
        ]
        for obj, words in cases:
            cfg = write_json(self.path("bad.json"), obj)
            r = run("--check-config", cfg)
            self.assertEqual(r.returncode, 2, (obj, r.stdout, r.stderr))
            self.assertNotIn("OK", r.stdout)
            for w in words:
                self.assertIn(w, r.stderr, obj)
        with open(self.path("broken.json"), "w") as f:
            f.write('{"port": 8080,\n "grace_s": }\n')
        r = run("--check-config", self.path("broken.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("broken.json: line 2", r.stderr)
        r = run("--check-config", self.path("missing.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing.json", r.stderr)
        # a flag is checked with the file
        cfg = write_json(self.path("ok.json"), {"port": 8080})
        r = run("--check-config", cfg, "--grace-s", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--grace-s", r.stderr)

    def test_bad_config_stops_the_start(self):
        cfg = write_json(self.path("bad.json"), {
            "database": self.path("db", "c.db"), "max_connections": -5})
        r = run("--config", cfg, "--listen", "127.0.0.1", "--port",
                str(free_port()))
        self.assertEqual(r.returncode, 2)
        self.assertIn("'max_connections'", r.stderr)
        self.assertNotIn("event=listening", r.stderr)
        self.assertFalse(os.path.exists(self.path("db")))

    def test_flags_override_the_file(self):
        file_port = free_port()
        db = self.path("from-file.db")
        cfg = write_json(self.path("c.json"), {
            "port": file_port, "database": db, "web_root": self.path("web"),
            "log_level": "debug"})
        p, flag_port, err = self.launch("--config", cfg, "--log-level",
                                        "info")
        log = read(err)
        self.assertIn("port=%d " % flag_port, log)
        self.assertIn("db=" + db, log)            # the file's, not a flag's
        self.assertIn("log_level=info", log)      # the flag's
        self.assertNotIn(" debug ", log)
        conn = http.client.HTTPConnection("127.0.0.1", flag_port, timeout=5)
        conn.request("GET", "/healthz")
        self.assertEqual(conn.getresponse().status, 200)
        conn.close()
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", file_port), timeout=2)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=WAIT), 0)


class OriginTest(OpsTest):
    def test_origins(self):
        srv = self.server({"allowed_origins": [
            "https://chess.example.org", "http://localhost:8080"]})
        with self.assertRaises(HandshakeError) as e:
            self.client(srv, headers={"Origin": "https://evil.example"})
        self.assertIn("403", e.exception.status)
        with self.assertRaises(HandshakeError) as e:
            self.client(srv, headers={"Origin": "http://chess.example.org"})
        self.assertIn("403", e.exception.status)
        with self.assertRaises(HandshakeError) as e:
            self.client(srv, headers={"Origin": "null"})
        self.assertIn("403", e.exception.status)
        ok = self.client(srv, headers={"Origin": "https://chess.example.org"})
        self.assertTrue(ok.pid)
        ok2 = self.client(srv, headers={"Origin": "HTTP://LOCALHOST:8080"})
        self.assertTrue(ok2.pid)
        # no Origin at all: not a browser, so not a cross-site page
        self.assertTrue(self.client(srv).pid)
        self.assertIn("why=origin", srv.log_text())
        self.assertIn("origin=https://evil.example", srv.log_text())
        status, _, body = srv.http("/metrics")
        self.assertIn(
            'chess_upgrades_refused_total{why="origin"} 3\n', body.decode())

    def test_any_origin_without_a_list(self):
        srv = self.server({})
        c = self.client(srv, headers={"Origin": "https://anywhere.example"})
        self.assertTrue(c.pid)


class LimitsTest(OpsTest):
    def test_total_connections_capped(self):
        srv = self.server({"max_connections": 3})
        for _ in range(3):
            self.client(srv)
        with self.assertRaises(HandshakeError) as e:
            self.client(srv)
        self.assertIn("503", e.exception.status)
        self.assertIn("why=max_connections", srv.log_text())
        self.clients.pop(0).close()
        wait_until(lambda: srv.http_json("/healthz")[1]["connections"] == 2,
                   "the close")
        self.assertTrue(self.client(srv).pid)

    def test_rates_from_the_config(self):
        srv = self.server({"msg_rate_per_s": 1, "msg_burst": 5,
                           "move_rate_per_s": 1, "move_burst": 2})
        c = self.client(srv)  # hello took one token
        for i in range(4):
            c.send({"t": "ping", "id": i})
        for i in range(4):
            c.expect("pong", id=i)
        c.send({"t": "ping", "id": 99})
        c.expect_error("rate_limited")
        w, b, gid = self.start_game(srv)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        w.expect("moved", game=gid, ply=2)
        w.move(gid, "g1f3", 2)
        w.expect("moved", game=gid, ply=3)
        w.move(gid, "f3e5", 3)  # a third move at once: over the burst
        w.expect_error("rate_limited")


class TlsTest(OpsTest):
    def setUp(self):
        super().setUp()
        self.cert, self.key = make_cert(self.dir)
        self.ctx = ssl.create_default_context(cafile=self.cert)

    def test_https_and_wss(self):
        srv = self.server({"tls_cert": self.cert, "tls_key": self.key})
        self.assertIn("tls=on", srv.log_text())
        conn = http.client.HTTPSConnection("127.0.0.1", srv.port, timeout=5,
                                           context=self.ctx)
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        self.assertEqual(json.loads(r.read())["status"], "ok")
        conn.close()
        # each WebSocket its own HTTP/1.1 connection, even when the client
        # offers HTTP/2
        ctx = ssl.create_default_context(cafile=self.cert)
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        w, b, gid = self.start_game(srv, ssl_context=ctx)
        self.assertEqual(w.ws.sock.selected_alpn_protocol(), "http/1.1")
        self.assertEqual(w.ws.sock.version()[:4], "TLSv")
        w.move(gid, "e2e4", 0)
        self.assertEqual(b.expect("moved", game=gid, ply=1)["san"], "e4")
        # verification off also works (a client that does not know the CA)
        loose = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        loose.check_hostname = False
        loose.verify_mode = ssl.CERT_NONE
        self.assertTrue(self.client(srv, ssl_context=loose).pid)
        # plain text on the TLS port gets no WebSocket
        with self.assertRaises((HandshakeError, Closed, OSError)):
            Client(srv).close()

    def test_redirect_listener(self):
        rport = free_port()
        srv = self.server({"tls_cert": self.cert, "tls_key": self.key,
                           "http_redirect_port": rport})
        conn = http.client.HTTPConnection("127.0.0.1", rport, timeout=5)
        conn.request("GET", "/g/SomeGame1", headers={
            "Host": "chess.example.org:%d" % rport})
        r = conn.getresponse()
        self.assertEqual(r.status, 301)
        self.assertEqual(r.getheader("Location"),
                         "https://chess.example.org:%d/g/SomeGame1"
                         % srv.port)
        r.read()
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", rport, timeout=5)
        conn.request("GET", "/", headers={"Host": "evil\"host"})
        self.assertEqual(conn.getresponse().status, 400)
        conn.close()
        # the path and the query as sent, percent-encoding included
        base = "https://chess.example.org:%d" % srv.port

        def redirect(path):
            conn = http.client.HTTPConnection("127.0.0.1", rport, timeout=5)
            conn.request("GET", path, headers={
                "Host": "chess.example.org"})
            r = conn.getresponse()
            r.read()
            conn.close()
            self.assertEqual(r.status, 301, path)
            self.assertEqual(len(r.msg.get_all("Location")), 1, path)
            self.assertIsNone(r.getheader("Set-Cookie"), path)
            return r.getheader("Location")
        for path in ("/g/SomeGame1?x=1&y=a%26b", "/?next=/g/abc&n=%3D",
                     "/a%20b/%C3%A9.html", "/api/players/P1/games?limit=2",
                     "/q?s=%22x%22%20y"):
            self.assertEqual(redirect(path), base + path)
        # an encoded CR LF makes no header of the visitor's (libwebsockets
        # cuts the path there; what is left is encoded again)
        for path in ("/x%0D%0ASet-Cookie:%20evil=1",
                     "/q?a=%0D%0ALocation:%20https://evil.example"):
            loc = redirect(path)
            self.assertTrue(loc.startswith(base + path[:2]), loc)
            self.assertNotRegex(loc, "[\\x00-\\x20\"]")

    def test_check_config_loads_the_certificate(self):
        good = write_json(self.path("good.json"), {
            "tls_cert": self.cert, "tls_key": self.key})
        r = run("--check-config", good)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("junk.pem"), "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nnot base64\n")
        junk = write_json(self.path("junk.json"), {
            "tls_cert": self.path("junk.pem"), "tls_key": self.key})
        r = run("--check-config", junk)
        self.assertEqual(r.returncode, 2)
        self.assertIn("'tls_cert'", r.stderr)
        self.assertIn("junk.pem is not a usable PEM certificate", r.stderr)
        other = os.path.join(self.dir, "other")
        os.mkdir(other)
        _, other_key = make_cert(other)
        mismatch = write_json(self.path("mismatch.json"), {
            "tls_cert": self.cert, "tls_key": other_key})
        r = run("--check-config", mismatch)
        self.assertEqual(r.returncode, 2)
        self.assertIn("'tls_key'", r.stderr)
        self.assertIn(other_key, r.stderr)

    def test_unusable_certificate_stops_the_start(self):
        with open(self.path("junk.pem"), "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nnot base64\n")
        cfg = write_json(self.path("c.json"), {
            "tls_cert": self.path("junk.pem"), "tls_key": self.key,
            "database": self.path("db", "c.db")})
        r = run("--config", cfg, "--listen", "127.0.0.1", "--port",
                str(free_port()))
        self.assertEqual(r.returncode, 2)
        self.assertIn("junk.pem is not a usable PEM certificate", r.stderr)
        self.assertNotIn("event=listening", r.stderr)
        self.assertFalse(os.path.exists(self.path("db")))


class TlsPolicyTest(OpsTest):
    """What the HTTPS port negotiates (tls_min_version, tls_ciphers: by
    default TLS 1.2 with forward-secret AEAD suites only, and TLS 1.3),
    HSTS on its responses, and the certificate reload on SIGHUP."""

    def tls_server(self, kind="ec", **settings):
        cert, key = make_cert(self.dir, kind)
        return self.server(dict({"tls_cert": cert, "tls_key": key},
                                **settings))

    def test_ecdsa_certificate(self):
        srv = self.tls_server("ec")
        for cipher in ("ECDHE-ECDSA-AES128-GCM-SHA256",
                       "ECDHE-ECDSA-AES256-GCM-SHA384",
                       "ECDHE-ECDSA-CHACHA20-POLY1305"):
            self.assertEqual(s_client(srv.port, "-tls1_2", "-cipher",
                                      cipher), cipher)
        # CBC suites, with and without SHA-2
        for cipher in ("ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA",
                       "ECDHE-ECDSA-AES128-SHA256",
                       "ECDHE-ECDSA-AES256-SHA384"):
            self.assertIsNone(s_client(srv.port, "-tls1_2", "-cipher",
                                       cipher), cipher)
        for suite in ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                      "TLS_CHACHA20_POLY1305_SHA256"):
            self.assertEqual(s_client(srv.port, "-tls1_3", "-ciphersuites",
                                      suite), suite)
        # TLS 1.1 and 1.0, offered by a client that allows them
        for version in ("-tls1_1", "-tls1"):
            self.assertIsNone(s_client(srv.port, version, "-cipher",
                                       "ALL@SECLEVEL=0"), version)

    def test_rsa_certificate(self):
        srv = self.tls_server("rsa")
        for cipher in ("ECDHE-RSA-AES128-GCM-SHA256",
                       "ECDHE-RSA-AES256-GCM-SHA384",
                       "ECDHE-RSA-CHACHA20-POLY1305"):
            self.assertEqual(s_client(srv.port, "-tls1_2", "-cipher",
                                      cipher), cipher)
        # RSA key exchange (no forward secrecy), AEAD or CBC; ECDHE with
        # CBC; finite-field DHE
        for cipher in ("AES128-GCM-SHA256", "AES256-GCM-SHA384",
                       "AES128-SHA", "AES256-SHA256",
                       "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384",
                       "DHE-RSA-AES128-GCM-SHA256"):
            self.assertIsNone(s_client(srv.port, "-tls1_2", "-cipher",
                                       cipher), cipher)
        self.assertEqual(s_client(srv.port, "-tls1_3"),
                         "TLS_AES_256_GCM_SHA384")
        self.assertIsNone(s_client(srv.port, "-tls1_1", "-cipher",
                                   "ALL@SECLEVEL=0"))

    def test_settings(self):
        srv = self.tls_server("ec", tls_min_version="1.3",
                              tls_ciphers="ECDHE-ECDSA-CHACHA20-POLY1305")
        self.assertIsNone(s_client(srv.port, "-tls1_2"))
        self.assertEqual(s_client(srv.port, "-tls1_3"),
                         "TLS_AES_256_GCM_SHA384")
        srv.stop()
        self.servers.remove(srv)
        srv = self.tls_server("ec",
                              tls_ciphers="ECDHE-ECDSA-CHACHA20-POLY1305")
        self.assertEqual(s_client(srv.port, "-tls1_2"),
                         "ECDHE-ECDSA-CHACHA20-POLY1305")
        self.assertIsNone(s_client(srv.port, "-tls1_2", "-cipher",
                                   "ECDHE-ECDSA-AES128-GCM-SHA256"))
        # a list OpenSSL selects nothing from, a version it is not given
        cert, key = make_cert(self.dir)
        for bad, words in (({"tls_ciphers": "NO-SUCH-CIPHER"},
                            ["'tls_ciphers'", "NO-SUCH-CIPHER"]),
                           ({"tls_ciphers": "AES128 SHA"},
                            ["'tls_ciphers'", "cipher list"]),
                           ({"tls_min_version": "1.1"},
                            ["'tls_min_version'", "'1.1'"]),
                           ({"hsts_max_age_s": -1}, ["'hsts_max_age_s'"])):
            cfg = write_json(self.path("bad.json"), dict(
                {"tls_cert": cert, "tls_key": key}, **bad))
            r = run("--check-config", cfg)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            for w in words:
                self.assertIn(w, r.stderr, bad)

    def https_headers(self, srv, path):
        """(status, Strict-Transport-Security) of GET path over https."""
        ctx = ssl.create_default_context(cafile=self.path("cert.pem"))
        conn = http.client.HTTPSConnection("127.0.0.1", srv.port,
                                           timeout=5, context=ctx)
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        conn.close()
        return r.status, r.getheader("Strict-Transport-Security")

    def test_hsts(self):
        rport = free_port()
        srv = self.tls_server("ec", http_redirect_port=rport)
        for path, status in (("/", 200), ("/healthz", 200),
                             ("/api/games/nosuchgame", 404),
                             ("/nope.html", 404), ("/metrics", 200)):
            self.assertEqual(self.https_headers(srv, path),
                             (status, "max-age=31536000"), path)
        # not over plain HTTP (the redirect listener)
        conn = http.client.HTTPConnection("127.0.0.1", rport, timeout=5)
        conn.request("GET", "/", headers={"Host": "localhost"})
        r = conn.getresponse()
        self.assertEqual(r.status, 301)
        self.assertIsNone(r.getheader("Strict-Transport-Security"))
        # the headers of every answer, on both listeners
        self.assertIsNotNone(r.getheader("Date"))
        self.assertEqual(r.getheader("X-Frame-Options"), "deny")
        conn.close()
        ctx = ssl.create_default_context(cafile=self.path("cert.pem"))
        conn = http.client.HTTPSConnection("127.0.0.1", srv.port,
                                           timeout=5, context=ctx)
        conn.request("GET", "/")
        r = conn.getresponse()
        r.read()
        self.assertIsNotNone(r.getheader("Date"))
        self.assertIn("connect-src 'self';",
                      r.getheader("Content-Security-Policy"))
        conn.close()
        srv.stop()
        self.servers.remove(srv)
        srv = self.tls_server("ec", hsts_max_age_s=600)
        self.assertEqual(self.https_headers(srv, "/"),
                         (200, "max-age=600"))
        srv.stop()
        self.servers.remove(srv)
        srv = self.tls_server("ec", hsts_max_age_s=0)
        self.assertEqual(self.https_headers(srv, "/"), (200, None))

    def served_cert(self, srv, *versions):
        """The DER certificate a new handshake presents, for each TLS
        version in versions."""
        ders = set()
        for v in versions:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.minimum_version = ctx.maximum_version = v
            with socket.create_connection(("127.0.0.1", srv.port),
                                          timeout=5) as raw:
                with ctx.wrap_socket(raw) as tls:
                    ders.add(tls.getpeercert(binary_form=True))
        self.assertEqual(len(ders), 1)
        return ders.pop()

    def test_sighup_reloads_the_certificate(self):
        cert, key = make_cert(self.dir, "rsa")
        srv = self.server({"tls_cert": cert, "tls_key": key})
        both = (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3)
        old = self.served_cert(srv, *both)
        with open(cert, "rb") as f:
            self.assertEqual(old, ssl.PEM_cert_to_DER_cert(f.read().decode()))
        loose = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        loose.check_hostname = False
        loose.verify_mode = ssl.CERT_NONE
        w, b, gid = self.start_game(srv, ssl_context=loose)
        # renewed in place, as certbot does (and RSA to ECDSA)
        new_cert, new_key = make_cert(self.dir, "ec", "new")
        os.replace(new_cert, cert)
        os.replace(new_key, key)
        srv.proc.send_signal(signal.SIGHUP)
        wait_until(lambda: "event=tls_reloaded" in srv.log_text(),
                   "the reload")
        with open(cert, "rb") as f:
            want = ssl.PEM_cert_to_DER_cert(f.read().decode())
        self.assertNotEqual(want, old)
        self.assertEqual(self.served_cert(srv, *both), want)
        # the game's WebSockets stayed open through it
        w.move(gid, "e2e4", 0)
        self.assertEqual(b.expect("moved", game=gid, ply=1)["san"], "e4")
        b.move(gid, "e7e5", 1)
        w.expect("moved", game=gid, ply=2)
        self.assertEqual(w.ws.sock.getpeercert(binary_form=True), old)
        # a new wss client verifies against the new certificate
        ctx = ssl.create_default_context(cafile=cert)
        self.assertTrue(self.client(srv, ssl_context=ctx).pid)
        # a broken pair is refused and the last good one kept
        with open(key, "w") as f:
            f.write("not a key\n")
        srv.proc.send_signal(signal.SIGHUP)
        wait_until(lambda: "event=tls_reload_failed" in srv.log_text(),
                   "the failed reload")
        self.assertIn("'tls_key'", srv.log_text())
        self.assertEqual(self.served_cert(srv, *both), want)
        self.assertTrue(self.client(srv, ssl_context=ctx).pid)


class LifecycleTest(OpsTest):
    def test_a_migration_logs_a_line_of_its_own(self):
        """The first start migrates the new database from 0 and says so
        (from, to, how long); the next finds nothing to migrate."""
        srv = self.server()
        m = re.search(r"info event=store_migrated backend=(sqlite|postgres) "
                      r"from=0 to=(\d+) duration_ms=(\d+)", srv.log_text())
        self.assertTrue(m, srv.log_text())
        self.assertIn("schema=%s " % m.group(2), srv.log_text())
        self.assertEqual(srv.terminate(), 0)
        srv2 = self.server()
        self.assertNotIn("event=store_migrated", srv2.log_text())

    def test_sigterm_mid_game_then_resume_without_charging_downtime(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        for ply, uci in enumerate("e2e4 e7e5 g1f3".split()):
            (w if ply % 2 == 0 else b).move(gid, uci, ply)
            w.expect("moved", game=gid, ply=ply + 1)
            b.expect("moved", game=gid, ply=ply + 1)
        t_moved = time.monotonic()  # black's clock runs from about here
        before = w.request({"t": "sync", "game": gid}, "state")["clocks"]
        t0 = time.monotonic()
        self.assertEqual(srv.terminate(), 0)
        stop_s = time.monotonic() - t0
        self.assertLess(stop_s, 5.0)  # bounded
        for c in (w, b):
            c.expect("shutdown")
            self.assertEqual(c.ws.recv_close(), 1001)
        log = srv.log_text()
        self.assertIn("event=shutdown_begin connections=2", log)
        self.assertIn("event=stopped", log)
        charged_before_stop_ms = (time.monotonic() - t_moved) * 1000
        time.sleep(2.0)  # downtime
        srv2 = self.server()
        self.assertIn("event=restored games=1", srv2.log_text())
        w2 = self.client(srv2, token=w.token)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "g1f3"])
        self.assertIsNone(st["clocks"]["running"])
        self.assertEqual(before["running"], "black")
        self.assertEqual(st["clocks"]["white_ms"], before["white_ms"])
        charged = before["black_ms"] - st["clocks"]["black_ms"]
        # the live clock reads the monotonic clock, the restore the wall
        # clock of the last heartbeat: each truncated to milliseconds
        self.assertGreaterEqual(charged, -2)
        # black was charged at most the time it really had before the
        # stop: never the two seconds the server was down
        self.assertLess(charged, charged_before_stop_ms + 300)
        self.assertLess(charged, 2000)
        b2 = self.client(srv2, token=b.token)
        w2.expect("opponent_back", game=gid, color="black")
        b2.move(gid, "b8c6", 3)
        self.assertEqual(w2.expect("moved", game=gid, ply=4)["san"], "Nc6")

    def test_a_game_logs_a_line_per_event_at_the_default_level(self):
        # at info, a game is a handful of lines; libwebsockets' chatter
        # (its libev glue writes a notice on every change of a socket's
        # events, several per message) stays at debug
        srv = self.server()
        w, b, gid = self.start_game(srv)
        for ply, (c, o, uci) in enumerate(((w, b, "e2e4"), (b, w, "e7e5"),
                                          (w, b, "g1f3"))):
            c.move(gid, uci, ply)
            o.expect("moved", game=gid, ply=ply + 1)
        b.send({"t": "resign", "game": gid})
        for c in (w, b):
            c.expect("game_end", game=gid)
        self.assertEqual(srv.http("/")[0], 200)
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        text = srv.log_text()
        self.assertNotIn("event=lws ", text)
        self.assertIn("event=game_end", text)
        self.assertLess(len(text.splitlines()), 15, text)

    def test_sighup_reopens_the_log_file(self):
        logf = self.path("chess.log")
        cfg = write_json(self.path("c.json"), {
            "database": self.path("c.db"), "log_file": logf,
            "web_root": self.path("web")})
        p, port, err = self.launch("--config", cfg, log=logf)
        self.assertEqual(read(err), "")  # everything went to the file
        os.rename(logf, logf + ".1")
        p.send_signal(signal.SIGHUP)
        wait_until(lambda: "event=log_reopened" in read(logf), "the reopen")
        srv = type("S", (), {"port": port})()
        c = self.client(srv)
        wait_until(lambda: "player=" + c.pid in read(logf), "a new line")
        old = read(logf + ".1")
        self.assertIn("event=listening", old)
        self.assertNotIn("player=" + c.pid, old)
        self.assertNotIn("event=listening", read(logf))
        for line in read(logf).splitlines():
            self.assertRegex(
                line, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "
                r"(error|warn|info|debug) event=\w+")
        c.close()
        self.clients.remove(c)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=WAIT), 0)
        self.assertIn("event=stopped", read(logf))

    @sqlite_only("one server per SQLite file (nodes share PostgreSQL)")
    def test_second_instance_refused(self):
        logf = self.path("chess.log")
        cfg = write_json(self.path("c.json"), {
            "database": self.path("db", "c.db"), "log_file": logf,
            "web_root": self.path("web")})
        p, port, err = self.launch("--config", cfg, log=logf)
        r = run("--config", cfg, "--listen", "127.0.0.1", "--port",
                str(free_port()))
        self.assertEqual(r.returncode, 1)
        self.assertIn("in use by another chess-server", r.stderr)
        self.assertIn(self.path("db", "c.db"), r.stderr)
        self.assertIn("event=start_failed", read(logf))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/healthz")
        self.assertEqual(conn.getresponse().status, 200)  # first one fine
        conn.close()
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=WAIT), 0)


    @sqlite_only("one server per SQLite file (nodes share PostgreSQL)")
    def test_second_instance_refused_without_the_lock_file(self):
        """The lock is the database file's own: deleting <db>.lock (or
        any file beside it) does not let a second server in."""
        db = self.path("db", "c.db")
        srv = self.server(extra=["--db", db])
        for name in os.listdir(self.path("db")):
            if name.endswith(".lock"):
                os.remove(self.path("db", name))
        r = run("--db", db, "--listen", "127.0.0.1", "--port",
                str(free_port()), "--web", self.path("web"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("in use by another chess-server", r.stderr)
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        # once the first has stopped, the lock is free again
        self.assertEqual(srv.terminate(), 0)
        self.servers.remove(srv)
        srv2 = self.server(extra=["--db", db])
        self.assertEqual(srv2.http_json("/healthz")[0], 200)


@sqlite_only("SQLite's files: a `sqlite3 .dump` restored, a damaged file")
class DatabaseStartTest(OpsTest):
    """What the server opens at start: a database restored from a
    `sqlite3 .dump`, and one that is damaged."""

    def finished_game(self, srv):
        w, b, gid = self.start_game(srv)
        for ply, uci in enumerate("f2f3 e7e5 g2g4 d8h4".split()):
            (w if ply % 2 == 0 else b).move(gid, uci, ply)
            b.expect("moved", game=gid, ply=ply + 1)
        b.expect("game_end", game=gid)
        return gid

    def sqlite3(self, db, script):
        r = subprocess.run(["sqlite3", db], input=script, text=True,
                           capture_output=True, timeout=60)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        return r.stdout

    def schema_1_dump(self, dump):
        """The rows of a dump in a database of schema 1 (migration 0001
        alone, no schema_version in meta), dumped."""
        new, v1 = (os.path.join(self.dir, n) for n in ("new.db", "v1.db"))
        for path in (new, v1):
            if os.path.exists(path):
                os.remove(path)
        self.sqlite3(new, dump)
        with open(os.path.join(os.path.dirname(__file__), "..", "..",
                               "migrations", "0001_init.sql")) as f:
            schema = f.read()
        con = sqlite3.connect(v1)
        con.executescript(schema)
        cols = {t: [r[1] for r in con.execute("PRAGMA table_info(%s)" % t)]
                for t in ("players", "games", "moves", "meta")}
        con.execute("ATTACH ? AS n", (new,))
        for t, c in cols.items():
            con.execute("INSERT INTO %s SELECT %s FROM n.%s%s" % (
                t, ", ".join(c), t,
                " WHERE key != 'schema_version'" if t == "meta" else ""))
        con.commit()
        con.close()
        return self.sqlite3(v1, ".dump\n")

    def test_restore_from_a_dump(self):
        srv = self.server()
        gid = self.finished_game(srv)
        newest = re.search(r" schema=(\d+) ", srv.log_text()).group(1)
        self.assertEqual(srv.terminate(), 0)
        self.servers.remove(srv)
        dump = self.sqlite3(srv.db, ".dump\n")
        # as docs/operator.md says: a new file from the dump, then start
        for old in (False, True):
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(srv.db + suffix):
                    os.remove(srv.db + suffix)
            # old: a dump of a database that no server of this version
            # has opened (its schema version only in user_version): one
            # of schema 1, the only one servers before that knew
            self.sqlite3(srv.db, self.schema_1_dump(dump) if old else dump)
            self.assertEqual(self.sqlite3(srv.db, "PRAGMA user_version;"),
                             "0\n")
            srv = self.server()
            self.assertIn("schema=" + newest + " ", srv.log_text())
            status, g = srv.http_json("/api/games/" + gid)
            self.assertEqual((status, g["reason"]), (200, "checkmate"))
            self.finished_game(srv)
            self.assertEqual(srv.terminate(), 0)
            self.servers.remove(srv)
            self.assertEqual(self.sqlite3(srv.db, "PRAGMA user_version;"),
                             newest + "\n")

    def test_damaged_database_is_refused(self):
        srv = self.server()
        for _ in range(3):
            self.finished_game(srv)
        self.assertEqual(srv.terminate(), 0)
        self.servers.remove(srv)
        self.sqlite3(srv.db, "PRAGMA wal_checkpoint(TRUNCATE);")
        # a page of the players table (read by nothing at start) made
        # garbage
        con = sqlite3.connect(srv.db)
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        root = con.execute("SELECT rootpage FROM sqlite_schema WHERE name "
                           "= 'players'").fetchone()[0]
        con.close()
        with open(srv.db, "r+b") as f:
            f.seek((root - 1) * page_size)
            f.write(b"\xa5" * 64)
        r = run("--db", srv.db, "--listen", "127.0.0.1", "--port",
                str(free_port()), "--web", self.path("web"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("is damaged", r.stderr)
        self.assertIn("quick_check", r.stderr)
        self.assertIn("restore", r.stderr)
        self.assertNotIn("event=listening", r.stderr)


class HealthTest(OpsTest):
    def test_probes_log_no_warning(self):
        """A load balancer's TCP probe (a connect and close, a stray
        newline, a line that is no request) is no news for the operator:
        no warning in the log (lws's "Missing URI in HTTP request" is
        debug)."""
        srv = self.server()
        for payload in (b"", b"\r\n\r\n", b"GET\r\n\r\n",
                        b"garbage\r\n\r\n"):
            s = socket.create_connection(("127.0.0.1", srv.port))
            if payload:
                s.sendall(payload)
            try:
                s.settimeout(2)
                s.recv(100)
            except OSError:
                pass
            s.close()
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        log = srv.log_text()
        self.assertNotIn("Missing URI", log)
        self.assertNotRegex(log, r" warn event=lws ")

    def test_healthz_fails_while_the_database_refuses_writes(self):
        srv = self.server()
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        # another process holds a lock the writer needs: the writer's
        # heartbeat cannot commit, reads still work
        lock = srv.hold_writer()
        try:
            t0 = time.monotonic()
            wait_until(lambda: srv.http_json("/healthz")[0] == 503,
                       "a failing health check", timeout=20)
            self.assertGreater(time.monotonic() - t0, 5)  # not at once
            status, body = srv.http_json("/healthz")
            self.assertEqual(body["status"], "fail")
            self.assertEqual(srv.http_json("/readyz"), (
                503, {"status": "not_ready", "why": "store"}))
        finally:
            lock.release()
        wait_until(lambda: srv.http_json("/healthz")[0] == 200,
                   "a passing health check again", timeout=10)
        wait_until(lambda: srv.http_json("/readyz")[0] == 200,
                   "ready again", timeout=2)


class ReadinessTest(OpsTest):
    """/readyz apart from /healthz, the drain on SIGTERM, and systemd's
    notify protocol (READY=1, WATCHDOG=1, STOPPING=1) over a unix
    datagram socket of the test's own."""

    def notify_socket(self, abstract):
        """A unix datagram socket as systemd's: (socket, NOTIFY_SOCKET)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(s.close)
        if abstract:
            name = "chess-notify-%d-%d" % (os.getpid(), id(s))
            s.bind("\0" + name)
            return s, "@" + name
        path = self.path("notify.sock")
        s.bind(path)
        return s, path

    @staticmethod
    def notices(s, until, timeout=WAIT):
        """The datagrams on s (one string each, lines kept) until one has
        the line `until`."""
        got = []
        deadline = time.monotonic() + timeout
        while not any(until in m.split("\n") for m in got):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no %s; got %r" % (until, got))
            s.settimeout(left)
            got.append(s.recv(4096).decode())
        return got

    def test_readyz_turns_503_while_draining_before_the_listener_goes(self):
        srv = self.server(extra=["--drain-s", "2"])
        self.assertEqual(srv.http_json("/readyz"), (200, {"status": "ready"}))
        srv.proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        wait_until(lambda: srv.http_json("/readyz")[0] == 503, "not ready",
                   timeout=2)
        self.assertEqual(srv.http_json("/readyz")[1],
                         {"status": "not_ready", "why": "draining"})
        # alive and serving meanwhile: liveness holds, players play
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        w, b, gid = self.start_game(srv)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)

        def gone():
            try:
                socket.create_connection(("127.0.0.1", srv.port), 1).close()
                return False
            except OSError:
                return True
        wait_until(gone, "the listener gone", timeout=10)
        self.assertGreater(time.monotonic() - t0, 1.5)  # the drain's 2 s
        self.assertEqual(srv.proc.wait(timeout=WAIT), 0)
        log = srv.log_text()
        self.assertLess(log.index("event=drain_begin drain_ms=2000"),
                        log.index("event=shutdown_begin"))

    def test_a_second_signal_cuts_the_drain_short(self):
        srv = self.server(extra=["--drain-s", "60"])
        srv.proc.send_signal(signal.SIGTERM)
        wait_until(lambda: srv.http_json("/readyz")[0] == 503, "not ready",
                   timeout=2)
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGINT)
        self.assertEqual(srv.proc.wait(timeout=5), 0)
        self.assertLess(time.monotonic() - t0, 3)

    def test_sd_notify_ready_watchdog_stopping(self):
        for abstract in (False, True):
            s, name = self.notify_socket(abstract)
            srv = self.server(env={"NOTIFY_SOCKET": name,
                                   "WATCHDOG_USEC": "600000"})
            got = self.notices(s, "READY=1")
            self.assertEqual(srv.http_json("/readyz")[0], 200)
            got += self.notices(s, "WATCHDOG=1", timeout=2)
            got += self.notices(s, "WATCHDOG=1", timeout=2)  # again
            self.assertEqual(srv.terminate(), 0)
            got += self.notices(s, "STOPPING=1", timeout=2)
            self.assertIn("STATUS=ready", got[got.index(
                next(m for m in got if "READY=1" in m))].split("\n"))
            self.assertLess(got.index(next(m for m in got
                                           if "READY=1" in m)),
                            got.index("STOPPING=1"))

    @unittest.skipUnless(POSTGRES, "a cluster node needs PostgreSQL")
    def test_a_node_that_never_reaches_redis_is_not_ready(self):
        """A Redis that does not answer at start is no fault of the
        settings: the node starts (cluster_redis_unreachable), alive but
        not ready."""
        dead = self.path("no-redis.sock")
        key = self.path("cluster.key")
        with open(key, "w") as f:
            f.write("k" * 32 + "\n")
        srv = self.server(extra=["--redis", dead, "--node-id", "lonely",
                                 "--cluster-key-file", key])
        self.assertIn("event=cluster_redis_unreachable", srv.log_text())
        self.assertEqual(srv.http_json("/healthz")[0], 200)  # alive
        self.assertEqual(srv.http_json("/readyz"),
                         (503, {"status": "not_ready", "why": "cluster"}))
        wait_until(lambda: "event=not_ready why=cluster" in srv.log_text(),
                   "the log says why", timeout=10)


@sqlite_only("the SQLite file deleted or replaced under the server")
class DatabaseFileTest(OpsTest):
    def test_deleted_database_fails_health_and_a_restart_refuses(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        marker = srv.db + ".created"
        self.assertTrue(os.path.exists(marker))
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        os.remove(srv.db)  # the server still has it open
        wait_until(lambda: srv.http_json("/healthz")[0] == 503,
                   "a failing health check")
        self.assertEqual(srv.http_json("/healthz")[1]["status"], "fail")
        self.assertRegex(srv.log_text(),
                         r"error event=store_file_lost db=\S+ why=deleted")
        self.assertIn("chess_database_file_lost 1",
                      srv.http("/metrics")[2].decode())
        self.assertEqual(srv.terminate(), 0)
        # a restart finds the marker and no database: it refuses rather
        # than starting over with an empty one
        r = run("--listen", "127.0.0.1", "--port", str(free_port()),
                "--db", srv.db, "--web", srv.web)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("event=start_failed", r.stderr)
        self.assertIn("is missing or empty", r.stderr)
        self.assertIn("restore it from a backup", r.stderr)
        self.assertFalse(os.path.exists(srv.db))
        # starting over on purpose: delete the marker too
        os.remove(marker)
        srv2 = self.server()
        self.assertEqual(srv2.http_json("/healthz")[0], 200)
        self.assertTrue(os.path.exists(marker))

    def test_replaced_database_fails_health(self):
        srv = self.server()
        shutil.copyfile(srv.db, srv.db + ".copy")
        os.replace(srv.db + ".copy", srv.db)
        wait_until(lambda: srv.http_json("/healthz")[0] == 503,
                   "a failing health check")
        self.assertIn("why=replaced", srv.log_text())


class BackupTest(OpsTest):
    def finished_games(self, db):
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            self.assertEqual(con.execute("PRAGMA integrity_check")
                             .fetchone()[0], "ok")
            return {r[0]: r[1] for r in con.execute(
                "SELECT gid, reason FROM games WHERE status = 'ended'")}
        finally:
            con.close()

    @sqlite_only("SQLite's online backup (PostgreSQL: pg_dump)")
    def test_backup_while_games_are_played_and_restore(self):
        # games back to back are faster than a person: raise the rates
        srv = self.server({"msg_rate_per_s": 10000, "msg_burst": 10000,
                           "move_rate_per_s": 10000, "move_burst": 10000})
        finished = []       # gids whose game_end a player received
        errors = []
        stop = threading.Event()

        def play():
            try:
                w, b = Client(srv), Client(srv)
                while not stop.is_set():
                    gid = w.request({"t": "invite", "clock": FISCHER_5_0,
                                     "color": "white"}, "invited")["game"]
                    b.send({"t": "join", "game": gid})
                    b.expect("game_start", game=gid)
                    ply = 0
                    for uci in "f2f3 e7e5 g2g4 d8h4".split():
                        (w if ply % 2 == 0 else b).move(gid, uci, ply)
                        ply += 1
                        w.expect("moved", game=gid, ply=ply)
                    w.expect("game_end", game=gid)
                    finished.append(gid)
                w.close()
                b.close()
            except Exception as e:  # reported below
                errors.append(e)

        t = threading.Thread(target=play)
        t.start()
        try:
            wait_until(lambda: len(finished) >= 5 or errors, "some games",
                       timeout=4 * WAIT)
            done_before = list(finished)
            dest = self.path("backup.db")
            r = run("backup", dest, "--db", srv.db)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("backed up", r.stdout)
            wait_until(lambda: len(finished) >= len(done_before) + 3
                       or errors, "games after the backup",
                       timeout=4 * WAIT)
        finally:
            stop.set()
            t.join(timeout=4 * WAIT)
        self.assertEqual(errors, [])
        self.assertFalse(os.path.exists(dest + ".partial"))
        self.assertEqual(os.stat(dest).st_mode & 0o077, 0)
        games = self.finished_games(dest)
        for gid in done_before:
            self.assertEqual(games.get(gid), "checkmate", gid)
        # a second backup through the config file, after the games
        cfg = write_json(self.path("c.json"), {"database": srv.db})
        dest2 = self.path("backup2.db")
        r = run("backup", dest2, "--config", cfg)
        self.assertEqual(r.returncode, 0, r.stderr)
        games2 = self.finished_games(dest2)
        for gid in finished:
            self.assertIn(gid, games2)
        # an existing destination is never overwritten
        r = run("backup", dest, "--db", srv.db)
        self.assertEqual(r.returncode, 1)
        self.assertIn("exists", r.stderr)
        self.assertEqual(self.finished_games(dest), games)

        # restore: stop, put the copy in place of the database, start
        self.assertEqual(srv.terminate(), 0)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(srv.db + suffix):
                os.remove(srv.db + suffix)
        shutil.copyfile(dest, srv.db)
        srv2 = self.server()
        for gid in done_before:
            status, g = srv2.http_json("/api/games/" + gid)
            self.assertEqual((status, g["reason"]), (200, "checkmate"))

    def test_backup_usage_errors(self):
        r = run("backup", self.path("b.db"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("--db PATH | --config PATH", r.stderr)
        r = run("backup", self.path("b.db"), "--db", self.path("none.db"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no database", r.stderr)
        self.assertFalse(os.path.exists(self.path("b.db")))
        bad = write_json(self.path("bad.json"), {"databse": "x"})
        r = run("backup", self.path("b.db"), "--config", bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn("'databse'", r.stderr)
        # a PostgreSQL database is pg_dump's to back up
        pg = write_json(self.path("pg.json"), {
            "postgres": "host=%s dbname=chess" % self.path("nopg")})
        r = run("backup", self.path("b.db"), "--config", pg)
        self.assertEqual(r.returncode, 2)
        self.assertIn("PostgreSQL (key 'postgres'): back it up with pg_dump",
                      r.stderr)
        self.assertFalse(os.path.exists(self.path("b.db")))
