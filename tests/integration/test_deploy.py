"""The files in deploy/ as docs/operator.md tells operators to use them:
the systemd unit (systemd-analyze verify; the server listening as asked under
the unit's RestrictAddressFamilies=; RestartPreventExitStatus= holding the
exit status of a bad config), nginx.conf (`nginx -t` with Debian 12's
nginx 1.22, and a real nginx in front of the server: HTTPS, HSTS, the
WebSocket, /metrics for loopback only, the redirect), and the guide's
--check-config commands run as written against the shipped examples."""
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import types

from harness import (FISCHER_5_0, not_in_cluster, SERVER, WAIT, Client,
                     FreshServerTest, free_port,
                     wait_until, write_json)
from test_listen import accepts
from test_ops import make_cert, read

ROOT = os.path.normpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
RESTRICT_AF = os.environ.get("CHESS_RESTRICT_AF", "")
INSTALLED_BIN = "/usr/local/bin/chess-server"
INSTALLED_CONFIG = "/etc/chess-server/config.json"
# The examples name the installed web client; --check-config checks it is
# there: the source tree's stands in for it.
INSTALLED_WEB = ["--web", os.path.join(ROOT, "web")]


def deploy_text(name):
    with open(os.path.join(DEPLOY, name)) as f:
        return f.read()


def directive(unit, name):
    """The values of an uncommented Name= line of a unit file, in order."""
    return [m.group(1).strip() for m in re.finditer(
        r"^%s=(.*)$" % re.escape(name), unit, re.M)]


def tool(name):
    """A program the test needs (installed by `sh deploy/deps.sh test`)."""
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if not path:
        raise AssertionError("%s is missing: sh deploy/deps.sh test "
                             "installs it" % name)
    return path


@not_in_cluster("the systemd unit of one process")
class UnitTest(FreshServerTest):
    def setUp(self):
        super().setUp()
        self.unit = deploy_text("chess-server.service")

    def test_systemd_analyze_verify(self):
        # the unit as installed, with the binary this build made
        path = self.path("chess-server.service")
        with open(path, "w") as f:
            f.write(self.unit.replace(INSTALLED_BIN, SERVER))
        r = subprocess.run([tool("systemd-analyze"), "verify", path],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("chess-server.service:", r.stdout + r.stderr)
        # a filtered system call fails (the server reports the error)
        # rather than killing the process with SIGSYS
        self.assertEqual(directive(self.unit, "SystemCallErrorNumber"),
                         ["EPERM"])

    def test_template_unit_for_nodes(self):
        """deploy/chess-server@.service: systemd-analyze verify of an
        instance; every node reads the cluster's settings, its node_id is
        the instance name, its port from its own environment file, and
        the settings it names are what --check-config accepts (PostgreSQL
        and Redis aside: their servers are not here)."""
        unit = deploy_text("chess-server@.service")
        path = self.path("chess-server@n1.service")
        with open(path, "w") as f:
            f.write(unit.replace(INSTALLED_BIN, SERVER))
        r = subprocess.run([tool("systemd-analyze"), "verify", path],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("chess-server@n1.service:", r.stdout + r.stderr)
        self.assertEqual(directive(unit, "EnvironmentFile"),
                         ["/etc/chess-server/node-%i.env"])
        args = ("--config /etc/chess-server/cluster.json --node-id %i "
                "--port ${CHESS_PORT}")
        self.assertEqual(directive(unit, "ExecStart"),
                         ["%s %s" % (INSTALLED_BIN, args)])
        self.assertEqual(directive(unit, "ExecStartPre"),
                         ["%s --check-config %s" % (
                             INSTALLED_BIN, args.replace("--config ", ""))])
        env = deploy_text("node.example.env")
        self.assertRegex(env, r"(?m)^CHESS_PORT=\d+$")
        with open(os.path.join(DEPLOY, "cluster.example.json")) as f:
            obj = json.load(f)
        self.assertTrue(obj.pop("postgres"))
        for k in ("redis", "redis_user", "redis_password_file",
                  "cluster_key_file"):
            self.assertTrue(obj.pop(k), k)
        r = subprocess.run([SERVER, "--check-config",
                            write_json(self.path("c.json"), obj),
                            "--node-id", "n1", "--port", "8081"]
                           + INSTALLED_WEB,
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)

    def start_restricted(self, families, address):
        """The server under the unit's address families; returns (proc,
        port, stderr path) once it listens or has exited."""
        self.assertTrue(RESTRICT_AF, "CHESS_RESTRICT_AF not set")
        err = self.path("stderr-%s.txt" % len(self.procs))
        port = free_port()
        with open(err, "wb") as f:
            p = subprocess.Popen(
                [RESTRICT_AF, families, SERVER, "--listen", address,
                 "--port", str(port), "--db", self.path("db", "c.db"),
                 "--web", self.dir], stdout=f, stderr=f)
        self.procs.append(p)
        wait_until(lambda: "event=listening" in read(err)
                   or p.poll() is not None, "the start")
        return p, port, err

    def test_listen_address_honoured_under_the_units_families(self):
        families = directive(self.unit, "RestrictAddressFamilies")
        self.assertEqual(len(families), 1, families)
        families = ",".join(families[0].split())
        for address, other in (("127.0.0.1", "::1"), ("::1", "127.0.0.1")):
            with self.subTest(address=address):
                p, port, err = self.start_restricted(families, address)
                self.assertIsNone(p.poll(), read(err))
                self.assertIn(" address=%s " % address, read(err))
                self.assertTrue(accepts(address, port))
                self.assertFalse(accepts(other, port))
                p.send_signal(signal.SIGTERM)
                self.assertEqual(p.wait(timeout=WAIT), 0, read(err))

    def test_no_restart_after_a_bad_config(self):
        prevent = " ".join(directive(self.unit,
                                     "RestartPreventExitStatus")).split()
        self.assertIn("on-failure", directive(self.unit, "Restart"))
        bad = write_json(self.path("bad.json"), {"prot": 1})
        r = subprocess.run([SERVER, "--config", bad], capture_output=True,
                           text=True, timeout=20)
        self.assertIn("unknown key 'prot'", r.stderr)
        self.assertIn(str(r.returncode), prevent)
        # nor after a listen address that cannot be honoured
        p, _, err = self.start_restricted("AF_INET,AF_INET6,AF_UNIX",
                                          "127.0.0.1")
        p.wait(timeout=WAIT)
        self.assertIn("cannot be honoured", read(err))
        self.assertIn(str(p.returncode), prevent)

    def test_units_notify_and_retry_what_may_come_back(self):
        """Both units: Type=notify with the watchdog (the server speaks
        sd_notify: test_ops's ReadinessTest), and --check-config's status
        for a dependency that does not answer (75) retried without end,
        where 2 (the configuration) is not."""
        for name in ("chess-server.service", "chess-server@.service"):
            unit = deploy_text(name)
            with self.subTest(unit=name):
                self.assertEqual(directive(unit, "Type"), ["notify"])
                self.assertEqual(directive(unit, "NotifyAccess"), ["main"])
                self.assertEqual(len(directive(unit, "WatchdogSec")), 1)
                self.assertEqual(directive(unit, "StartLimitIntervalSec"),
                                 ["0"])
                prevent = " ".join(directive(
                    unit, "RestartPreventExitStatus")).split()
                self.assertEqual(prevent, ["2"])
                self.assertIn("on-failure", directive(unit, "Restart"))
        nodb = write_json(self.path("nodb.json"), {
            "postgres": "host=%s dbname=chess" % self.path("nopg"),
            "web_root": self.dir})
        r = subprocess.run([SERVER, "--check-config", nodb],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 75, r.stderr)
        self.assertIn("does not answer", r.stderr)

    def test_tasks_max_above_the_servers_threads(self):
        tasks_max = directive(self.unit, "TasksMax")
        self.assertEqual(len(tasks_max), 1)
        srv = self.server()
        threads = len(os.listdir("/proc/%d/task" % srv.proc.pid))
        self.assertGreater(int(tasks_max[0]), threads)
        self.assertEqual(len(directive(self.unit, "MemoryMax")), 1)


@not_in_cluster("nginx in front of one process (deploy/nginx.conf)")
class NginxTest(FreshServerTest):
    CERT = "/etc/letsencrypt/live/chess.example.org/fullchain.pem"
    KEY = "/etc/letsencrypt/live/chess.example.org/privkey.pem"

    def setUp(self):
        super().setUp()
        self.nginx = tool("nginx")
        # nginx's workers (nobody, when run as root) reach its files here
        os.chmod(self.dir, 0o755)
        self.cert, self.key = make_cert(self.dir)

    def write_conf(self, replace):
        """deploy/nginx.conf with each (old, new) of replace done exactly
        once, inside a minimal main nginx.conf of this test's folder."""
        conf = deploy_text("nginx.conf")
        for old, new in [(self.CERT, self.cert), (self.KEY, self.key)] \
                + replace:
            self.assertEqual(conf.count(old), 1, old)
            conf = conf.replace(old, new)
        with open(self.path("chess.conf"), "w") as f:
            f.write(conf)
        d = self.dir
        main = self.path("nginx.conf")
        with open(main, "w") as f:
            f.write(
                "daemon off;\nworker_processes 1;\npid %s/nginx.pid;\n"
                "error_log %s/error.log info;\n"
                "events { worker_connections 64; }\n"
                "http {\n  access_log %s/access.log;\n"
                "  client_body_temp_path %s/client_body;\n"
                "  proxy_temp_path %s/proxy;\n"
                "  fastcgi_temp_path %s/fastcgi;\n"
                "  uwsgi_temp_path %s/uwsgi;\n"
                "  scgi_temp_path %s/scgi;\n"
                "  include %s/chess.conf;\n}\n" % ((d,) * 9))
        return main

    def run_nginx(self, *args):
        return subprocess.run(
            [self.nginx, "-p", self.dir, "-e", self.path("error.log")]
            + list(args), capture_output=True, text=True, timeout=30)

    def test_nginx_t(self):
        """The shipped file as it is (only the certificate paths point at a
        throwaway certificate) passes nginx's own check."""
        main = self.write_conf([])
        r = self.run_nginx("-t", "-c", main)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("syntax is ok", r.stderr)
        self.assertIn("test is successful", r.stderr)

    def start_nginx(self, upstream_port):
        """nginx with this conf on unprivileged loopback ports in front of
        the server; returns (https port, http port)."""
        for attempt in range(3):
            sport, hport = free_port(), free_port()
            main = self.write_conf([
                ("listen 80;", "listen 127.0.0.1:%d;" % hport),
                ("listen [::]:80;", "listen [::1]:%d;" % hport),
                ("listen 443 ssl http2;",
                 "listen 127.0.0.1:%d ssl http2;" % sport),
                ("listen [::]:443 ssl http2;",
                 "listen [::1]:%d ssl http2;" % sport),
                ("server 127.0.0.1:8080;",
                 "server 127.0.0.1:%d;" % upstream_port)])
            p = subprocess.Popen(
                [self.nginx, "-p", self.dir, "-e", self.path("error.log"),
                 "-c", main], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            self.addCleanup(self.stop_nginx, p)

            def up():
                try:
                    return accepts("127.0.0.1", sport) \
                        and accepts("127.0.0.1", hport)
                except OSError:
                    return False
            wait_until(lambda: p.poll() is not None or up(), "nginx")
            if p.poll() is None:
                return sport, hport
            if "Address already in use" not in read(self.path("error.log")):
                break
        raise AssertionError("nginx did not start: "
                             + read(self.path("error.log")))

    def stop_nginx(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=WAIT)

    def https(self, port, path, source="127.0.0.1"):
        ctx = ssl.create_default_context(cafile=self.cert)
        conn = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=WAIT, context=ctx,
            source_address=(source, 0))
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.headers, r.read()
        finally:
            conn.close()

    def test_in_front_of_the_server(self):
        srv = self.server()
        sport, hport = self.start_nginx(srv.port)
        # HTTPS to the server, with HSTS
        status, headers, body = self.https(sport, "/healthz")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["status"], "ok")
        self.assertEqual(headers["Strict-Transport-Security"],
                         "max-age=31536000")
        # HTTP/2 offered for the page
        ctx = ssl.create_default_context(cafile=self.cert)
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        with socket.create_connection(("127.0.0.1", sport), WAIT) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                self.assertEqual(tls.selected_alpn_protocol(), "h2")
        # the WebSocket through nginx (HTTP/1.1 upgrade)
        wctx = ssl.create_default_context(cafile=self.cert)
        c = self.client(types.SimpleNamespace(port=sport),
                        ssl_context=wctx)
        self.assertTrue(c.pid)
        wait_until(lambda: srv.http_json("/healthz")[1]["connections"] == 1,
                   "the proxied connection counted")
        # /metrics: loopback only (127.0.0.2 plays another address)
        status, _, body = self.https(sport, "/metrics")
        self.assertEqual(status, 200)
        self.assertIn(b"chess_connections 1", body)
        for path in ("/metrics", "//metrics", "/metrics?x=1",
                     "/%6detrics"):
            status, _, body = self.https(sport, path, source="127.0.0.2")
            self.assertEqual(status, 403, path)
            self.assertNotIn(b"chess_connections", body)
        # other paths from that address are served
        self.assertEqual(self.https(sport, "/healthz",
                                    source="127.0.0.2")[0], 200)
        # plain HTTP is sent to HTTPS
        conn = http.client.HTTPConnection("127.0.0.1", hport, timeout=WAIT)
        conn.request("GET", "/g/SomeGame1",
                     headers={"Host": "chess.example.org"})
        r = conn.getresponse()
        self.assertEqual(r.status, 301)
        self.assertEqual(r.getheader("Location"),
                         "https://chess.example.org/g/SomeGame1")
        conn.close()


class CheckConfigDocsTest(FreshServerTest):
    """docs/operator.md's --check-config commands, as written, on the
    example it tells operators to install."""

    def test_readme_check_config_commands(self):
        with open(os.path.join(ROOT, "docs", "operator.md")) as f:
            readme = f.read()
        installs = re.findall(r"^install -m 644 deploy/(\S+) %s$"
                              % re.escape(INSTALLED_CONFIG), readme, re.M)
        self.assertEqual(len(installs), 1, installs)
        # in code blocks and inline (`chess-server --check-config X`)
        commands = re.findall(r"(?:^|`)chess-server (--check-config [^\s`]+)",
                              readme, re.M)
        self.assertGreaterEqual(len(commands), 3, commands)
        installed = self.path("config.json")
        shutil.copy(os.path.join(DEPLOY, installs[0]), installed)
        unit = deploy_text("chess-server.service")
        pre = directive(unit, "ExecStartPre")
        self.assertEqual(pre, ["%s --check-config %s"
                               % (INSTALLED_BIN, INSTALLED_CONFIG)])
        for command in commands + [pre[0].split(" ", 1)[1]]:
            args = command.split()
            # /etc/chess-server/config.json is the installed copy; other
            # paths are the source tree's
            path = installed if args[1] == INSTALLED_CONFIG else args[1]
            r = subprocess.run([SERVER, args[0], path] + INSTALLED_WEB,
                               cwd=ROOT, capture_output=True, text=True,
                               timeout=20)
            self.assertEqual(r.returncode, 0, command + ": " + r.stderr)
            self.assertEqual(r.stdout, path + ": OK\n")

    def test_tls_example(self):
        """The TLS example names the certificate where the unit's
        LoadCredential= puts it: by hand it fails on exactly that, and
        with the certificate there it passes."""
        example = os.path.join(DEPLOY, "config.tls.example.json")
        r = subprocess.run([SERVER, "--check-config", example],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 2)
        self.assertIn("key 'tls_cert'", r.stderr)
        self.assertIn("/run/credentials/chess-server.service/", r.stderr)
        with open(example) as f:
            obj = json.load(f)
        cert, key = make_cert(self.dir)
        obj.update(tls_cert=cert, tls_key=key)
        r = subprocess.run([SERVER, "--check-config",
                            write_json(self.path("tls.json"), obj)]
                           + INSTALLED_WEB,
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)


def _port_free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


@not_in_cluster("deploy/run-cluster.sh starts a cluster of its own")
class RunClusterTest(FreshServerTest):
    """`sh deploy/run-cluster.sh` as docs/cluster.md gives it (with this
    build's binary, CHESS_SERVER, so that it builds nothing): PostgreSQL,
    Redis, three nodes and nginx in front; a game between players on two
    nodes through nginx; a node killed is started again; SIGTERM stops
    every process it started."""

    def start_cluster(self):
        for _ in range(20):
            port = free_port()
            if all(_port_free(port + i) for i in (1, 2, 3)):
                break
        else:
            raise AssertionError("no four free ports in a row")
        self.cdir = self.path("cluster")
        # PostgreSQL's data in the test's folder, gone with it: as root
        # the script runs it as `nobody`, who must reach the folder (else
        # it goes under /var/tmp, in a folder of its own per CLUSTER_DIR)
        os.chmod(self.dir, 0o711)
        out = open(self.path("run-cluster.out"), "w")
        p = subprocess.Popen(
            ["sh", os.path.join(DEPLOY, "run-cluster.sh")],
            env=dict(os.environ, CHESS_SERVER=SERVER, CLUSTER_DIR=self.cdir,
                     CLUSTER_PORT=str(port)),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        self.procs.append(p)
        self.addCleanup(self.kill_all, p)
        wait_until(lambda: p.poll() is not None or "run-cluster: http://"
                   in read(self.path("run-cluster.out")),
                   "run-cluster.sh ready", timeout=120)
        self.assertIsNone(p.poll(), read(self.path("run-cluster.out")))
        # its database is this test's own, shared with no other clone
        self.assertTrue(os.path.isfile(os.path.join(self.cdir, "pg",
                                                    "PG_VERSION")))
        return p, port

    def pids(self):
        return {f[:-4]: int(read(os.path.join(self.cdir, f)))
                for f in os.listdir(self.cdir) if f.endswith(".pid")}

    def kill_all(self, p):
        """After a failure: nothing the script started is left running."""
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        for pid in self.pids().values() if os.path.isdir(self.cdir) else ():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def node_connections(self, port, n):
        conn = http.client.HTTPConnection("127.0.0.1", port + n,
                                          timeout=WAIT)
        try:
            conn.request("GET", "/healthz")
            return json.loads(conn.getresponse().read())["connections"]
        finally:
            conn.close()

    def test_three_nodes_behind_nginx(self):
        p, port = self.start_cluster()
        front = types.SimpleNamespace(port=port)
        white, black = self.client(front), self.client(front)
        # round robin: the two players sit on two different nodes
        counts = [self.node_connections(port, n) for n in (1, 2, 3)]
        self.assertEqual(sorted(counts), [0, 1, 1], counts)
        gid = white.request({"t": "invite", "clock": FISCHER_5_0,
                             "color": "white"}, "invited")["game"]
        black.send({"t": "join", "game": gid})
        for c in (white, black):
            c.expect("game_start", game=gid)
        for ply, uci in enumerate(["e2e4", "e7e5", "g1f3"]):
            (white, black)[ply % 2].move(gid, uci, ply)
            for c in (white, black):
                self.assertEqual(c.expect("moved", game=gid,
                                          ply=ply + 1)["uci"], uci)
        # the page through nginx, from whichever node
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
        conn.request("GET", "/healthz")
        self.assertEqual(conn.getresponse().status, 200)
        conn.close()
        # a node that dies is started again (same node id)
        before = self.pids()["n2"]
        os.kill(before, signal.SIGKILL)
        wait_until(lambda: self.pids().get("n2", before) != before,
                   "n2 started again", timeout=30)
        wait_until(lambda: read(os.path.join(self.cdir, "n2.log"))
                   .count("event=listening") == 2, "n2 listening again")
        # SIGTERM: everything it started stops, and so does it
        started = self.pids()
        self.assertEqual(set(started), {"n1", "n2", "n3", "nginx", "redis",
                                        "postgres"})
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=60), 143,
                         read(self.path("run-cluster.out")))
        for name, pid in started.items():
            self.assertFalse(os.path.exists("/proc/%d" % pid), name)
        self.assertIn("run-cluster: stopped",
                      read(self.path("run-cluster.out")))


@not_in_cluster("Redis's settings, of no server")
class RedisConfTest(FreshServerTest):
    """deploy/redis-chess.conf with its ACL (deploy/redis-chess.acl, the
    password's hash put in as the conf's comment says) in Debian's
    redis-server 7: the default user is off, and the nodes' user may not
    FLUSHALL, KEYS, CONFIG or DEBUG. The shipped ACL with its placeholder
    left in stops Redis at start."""

    def resp(self, sock, *args):
        sock.sendall(("*%d\r\n" % len(args) + "".join(
            "$%d\r\n%s\r\n" % (len(a), a) for a in args)).encode())
        return sock.recv(4096).decode()

    def start(self, acl):
        path = self.path("redis.sock")
        p = subprocess.Popen(
            [tool("redis-server"), os.path.join(DEPLOY, "redis-chess.conf"),
             "--aclfile", acl, "--port", "0", "--unixsocket", path,
             "--dir", self.dir, "--logfile", self.path("redis.log"),
             "--daemonize", "no"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        def up():
            if p.poll() is not None:
                return True
            with socket.socket(socket.AF_UNIX) as s:
                try:
                    s.connect(path)
                    return True
                except OSError:
                    return False
        wait_until(up, "redis-server up")
        return p, path

    def test_shipped_conf_and_acl(self):
        p, _ = self.start(os.path.join(DEPLOY, "redis-chess.acl"))
        self.assertIsNotNone(p.wait(timeout=WAIT))  # the placeholder
        self.assertIn("password hash", read(self.path("redis.log")))
        password = "a-password-of-the-nodes"
        digest = hashlib.sha256(password.encode()).hexdigest()
        with open(self.path("chess.acl"), "w") as f:
            f.write(deploy_text("redis-chess.acl").replace(
                "#CHESS_PASSWORD_SHA256", "#" + digest))
        p, path = self.start(self.path("chess.acl"))
        self.assertIsNone(p.poll(), read(self.path("redis.log")))
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(WAIT)
            s.connect(path)
            self.assertIn("NOAUTH", self.resp(s, "PING"))  # default: off
            self.assertIn("WRONGPASS", self.resp(s, "AUTH", "x"))
            self.assertEqual(self.resp(s, "AUTH", "chess", password),
                             "+OK\r\n")
            for cmd in (["FLUSHALL"], ["KEYS", "*"], ["CONFIG", "GET", "*"],
                        ["DEBUG", "SLEEP", "0"], ["SET", "x", "1"],
                        ["SUBSCRIBE", "x"]):
                self.assertTrue(self.resp(s, *cmd).startswith("-"), cmd)
            self.assertEqual(self.resp(s, "SET", "node:n1:alive", "i"),
                             "+OK\r\n")
