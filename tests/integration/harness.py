"""Integration-test harness: starts the real chess-server on a free port
with a temporary database and talks to it over real WebSockets.

The server binary comes from the CHESS_SERVER environment variable (meson
passes it). Every wait is bounded; nothing sleeps for a fixed time where a
message can be awaited instead.

The database. By default each server folder holds a SQLite file
(Server.db). With CHESS_TEST_POSTGRES set to a libpq connection string
(run.py --postgres sets it to a PostgreSQL of tests/cluster/fixture.py),
every server runs on PostgreSQL instead (the setting `postgres`): each
server folder gets a database of its own (CREATE DATABASE, named after
the folder, dropped with it), so that tests stay independent and a
restart on the same folder finds its data. Server.sql and
Server.hold_writer reach either database behind the server's back; tests
about SQLite's files are marked sqlite_only with the reason.
"""
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from wsclient import Closed, HandshakeError, WebSocket  # noqa: F401

# tests/cluster/fixture.py: the Redis of a cluster (one starter of
# redis-server for every Python test) and the helpers for processes
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cluster"))
from fixture import (Redis, end_process, pg_bindir, psql_argv,  # noqa: E402
                     redis_call, wait_for)

SERVER = os.environ.get("CHESS_SERVER", "")
# e.g. "valgrind --error-exitcode=99 --leak-check=full" to run the server
# under a checker; waits grow accordingly
WRAPPED = bool(os.environ.get("CHESS_SERVER_WRAPPER"))
WAIT = 30.0 if WRAPPED else 5.0  # the longest any expected message takes


def sanitized():
    """True when the server under test is an AddressSanitizer build."""
    try:
        with open(SERVER, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False

FISCHER_5_0 = {"type": "fischer", "initial_s": 300, "increment_s": 0}

# ---- the database: SQLite, or PostgreSQL with CHESS_TEST_POSTGRES ------

POSTGRES = os.environ.get("CHESS_TEST_POSTGRES", "")
PSQL = os.environ.get("CHESS_TEST_PSQL") or (
    os.path.join(pg_bindir(), "psql") if POSTGRES else "psql")


def sqlite_only(reason):
    """Skips a test (or class) on PostgreSQL, naming why it is SQLite's
    alone."""
    return unittest.skipIf(bool(POSTGRES), "SQLite only: " + reason)


def pg_database(folder):
    """The PostgreSQL database of a server folder."""
    return "it_" + hashlib.sha1(
        os.path.realpath(folder).encode()).hexdigest()[:20]


def _psql(dbname, sql, stdin=None):
    r = subprocess.run(psql_argv(PSQL, POSTGRES, dbname) +
                       ["-F", "\x1f", "-c", sql],
                       capture_output=True, text=True, input=stdin,
                       timeout=WAIT * 4)
    if r.returncode != 0:
        raise AssertionError("psql: %s: %s" % (sql, r.stderr.strip()))
    return r.stdout


def pg_create(folder):
    """Creates the folder's database unless it exists."""
    name = pg_database(folder)
    if not _psql("postgres", "SELECT 1 FROM pg_database WHERE datname = "
                 "'%s'" % name).strip():
        _psql("postgres", "CREATE DATABASE %s" % name)


def pg_drop(folder):
    if POSTGRES:
        _psql("postgres", "DROP DATABASE IF EXISTS %s WITH (FORCE)"
              % pg_database(folder))


def db_args(folder, db_path):
    """The flags that put a server of this folder on its database."""
    if POSTGRES:
        pg_create(folder)
        return ["--postgres", POSTGRES + " dbname=" + pg_database(folder)]
    return ["--db", db_path]


def _literal(v):
    """A value as PostgreSQL SQL text (the tests' own values)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (bytes, bytearray)):
        return "'\\x%s'::bytea" % bytes(v).hex()
    return "'" + str(v).replace("'", "''") + "'"


def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _ephemeral_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A free TCP port of 127.0.0.1 below the kernel's ephemeral range:
    client sockets (a load generator opening thousands) take their ports
    from that range, so none can grab this one between this call and the
    server's bind."""
    top = max(_ephemeral_start() - 1, 20000)
    for _ in range(500):
        port = random.randint(10000, top)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            s.close()
        return port
    raise RuntimeError("no free port below the ephemeral range")


class Server:
    # Tests create a new guest per client, hundreds a second from
    # 127.0.0.1: far more than the server lets one address create (its
    # guests_per_ip_per_min); tests of that limit pass their own.
    GUESTS_PER_IP_PER_MIN = 10000000

    def __init__(self, grace_s=60, first_move_s=30, datadir=None,
                 extra=(), guests_per_ip_per_min=GUESTS_PER_IP_PER_MIN,
                 name="server", env=None):
        self.own_dir = datadir is None
        self.dir = datadir or tempfile.mkdtemp(prefix="chess-it-")
        self.name = name
        self.env = env
        self.db = os.path.join(self.dir, "db", "chess.db")
        self.web = os.path.join(self.dir, "web")
        os.makedirs(self.web, exist_ok=True)
        with open(os.path.join(self.web, "index.html"), "w") as f:
            f.write("<!doctype html><title>chess test page</title>\n")
        self.grace_s, self.first_move_s = grace_s, first_move_s
        self.guests_per_ip_per_min = guests_per_ip_per_min
        self.extra = list(extra)
        self.proc = None
        self.pg = pg_database(self.dir) if POSTGRES else None
        self.start()

    def start(self, port=None):
        """Starts the server on a free port of 127.0.0.1 (only: a load
        generator's client sockets on other 127.x addresses cannot then
        collide with it); a port taken between free_port() and the
        server's bind (the race every such helper has) is retried with
        another. port: that port (a node restarted where its clients
        know it), retried for a while when still taken."""
        for attempt in range(50 if port else 5):
            if self._start_once(port):
                return
            self.log.close()
            if port:
                time.sleep(0.1)
        raise RuntimeError("no free port: " + self.log_text())

    def _start_once(self, port=None):
        self.port = port or free_port()
        self.log = open(os.path.join(self.dir, self.name + ".log"), "ab")
        self.log_start = self.log.tell()
        wrapper = os.environ.get("CHESS_SERVER_WRAPPER", "").split()
        # CHESS_TEST_LOG_LEVEL=debug: the server logs every connection
        # (for a failure that only shows under load)
        level = os.environ.get("CHESS_TEST_LOG_LEVEL")
        self.proc = subprocess.Popen(
            wrapper + [SERVER, "--listen", "127.0.0.1",
             "--port", str(self.port)] + db_args(self.dir, self.db) +
            ["--web", self.web, "--grace-s", str(self.grace_s),
             "--first-move-s", str(self.first_move_s),
             "--guests-per-ip-per-min", str(self.guests_per_ip_per_min)]
            + (["--log-level", level] if level else [])
            + self.extra,
            stdout=self.log, stderr=self.log,
            env=dict(os.environ, **self.env) if self.env else None)
        try:
            wait_for(lambda: "event=listening" in self.log_text(), WAIT,
                     lambda why: RuntimeError("server %s: %s" % (
                         why, self.log_text())), proc=self.proc)
        except RuntimeError:
            if self.proc.poll() is not None and \
                    "(in use?)" in self.log_text():
                return False
            raise
        return True

    def client_port(self):
        """The port a new client connects to (one node's: Cluster)."""
        return self.port

    def log_text(self):
        with open(os.path.join(self.dir, self.name + ".log"), "rb") as f:
            f.seek(self.log_start)
            return f.read().decode("utf-8", "replace")

    def terminate(self):
        """SIGTERM and wait; returns the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=WAIT)
        self.log.close()
        return rc

    def kill(self):
        end_process(self.proc, signal.SIGKILL, WAIT)
        self.log.close()

    def stop(self):
        """Stops the server (SIGTERM, so that sanitizers report at exit)
        and fails when it crashed or a sanitizer complained."""
        if self.proc:
            end_process(self.proc, signal.SIGTERM, WAIT)
        if not self.log.closed:
            self.log.close()
        text = self.log_text()
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            pg_drop(self.dir)
        if self.proc.returncode not in (0, -signal.SIGKILL):
            raise AssertionError("server exit %s: %s" % (
                self.proc.returncode, text[-4000:]))
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:",
                    "definitely lost", "Invalid read", "Invalid write"):
            if bad in text:
                raise AssertionError("server log: " + text[-4000:])

    def sql(self, statement, *params):
        """Runs one SQL statement on the server's database behind its
        back, `?` standing for each of params; returns the rows as tuples
        (SQLite's values; PostgreSQL's as int, float or text)."""
        if not self.pg:
            import sqlite3
            con = sqlite3.connect(self.db, timeout=WAIT)
            try:
                with con:
                    return [tuple(r) for r in
                            con.execute(statement, params).fetchall()]
            finally:
                con.close()
        parts = statement.split("?")
        assert len(parts) == len(params) + 1, statement
        text = parts[0] + "".join(_literal(p) + s
                                  for p, s in zip(params, parts[1:]))
        out = _psql(self.pg, text)
        return [tuple(_value(c) for c in line.split("\x1f"))
                for line in out.splitlines() if line]

    def hold_writer(self):
        """A lock the server's writer needs, taken from another
        connection until release() of what this returns: SQLite's write
        lock (BEGIN IMMEDIATE), PostgreSQL's on meta, which every batch
        writes first. The writer's transaction waits 5 s for it (SQLite's
        busy timeout, PostgreSQL's lock_timeout), fails and is retried."""
        return _Hold(self)

    def http(self, path):
        """(status, content type, body bytes) of GET path."""
        url = "http://127.0.0.1:%d%s" % (self.port, path)
        try:
            with urllib.request.urlopen(url, timeout=WAIT) as r:
                return r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read()

    def http_json(self, path):
        status, _, body = self.http(path)
        return status, json.loads(body)


SingleServer = Server  # one process (ClusterServer's nodes)

# CHESS_TEST_CLUSTER=N (with CHESS_TEST_POSTGRES: run.py --cluster N):
# every Server is a cluster of N nodes (ClusterServer) sharing one
# PostgreSQL database and one Redis of its own, and each new client
# connects to the next node in turn: the two players of a test's game on
# different nodes, a third client (a spectator) on the third.
CLUSTER = int(os.environ.get("CHESS_TEST_CLUSTER", "0") or "0")
# CHESS_TEST_REDIS_SHARDS=K (run.py --redis-shards K): every cluster's
# games spread over K Redis instances (docs/cluster.md, "Shards").
SHARDS = int(os.environ.get("CHESS_TEST_REDIS_SHARDS", "1") or "1")


def shard_of(key, shards):
    """The shard of a game's id: bus_shard's FNV-1a (server/cluster/bus.c)."""
    h = 2166136261
    for b in key.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h % shards if shards > 1 else 0


class ClusterServer:
    """CLUSTER nodes of chess-server on one database and one Redis (or
    `shards` of them, SHARDS by default: redises, the first also redis),
    with Server's interface: port, http and the rest are the first
    node's, log_text all nodes' logs, and client_port hands out the
    nodes' ports in turn. pin(i) sends every new client to node i until
    pin(None)."""

    def __init__(self, grace_s=60, first_move_s=30, datadir=None,
                 extra=(), guests_per_ip_per_min=Server.GUESTS_PER_IP_PER_MIN,
                 nodes=None, tls=False, shards=None, env=None,
                 node_extra=None):
        # env: every node's environment; node_extra: node i's own flags
        # (node_extra[i], after extra)
        self.own_dir = datadir is None
        self.dir = datadir or tempfile.mkdtemp(prefix="chess-cl-")
        self.db = os.path.join(self.dir, "db", "chess.db")
        self.web = os.path.join(self.dir, "web")
        # tls: the nodes reach Redis over TLS (fixture.Redis)
        self.redis = Redis(self.dir, wait=WAIT, tls=tls)
        self.redises = [self.redis]
        for k in range(1, shards or SHARDS):
            folder = os.path.join(self.dir, "redis%d" % (k + 1))
            os.makedirs(folder, exist_ok=True)
            self.redises.append(Redis(folder, wait=WAIT, tls=tls,
                                      password=self.redis.password,
                                      certs_from=self.dir))
        self.forgeries_expected = False
        self.turn = 0
        self.pinned = None
        self.nodes = []
        if not POSTGRES:
            raise RuntimeError("a cluster needs CHESS_TEST_POSTGRES")
        for i in range(nodes or CLUSTER):
            node = "n%d" % (i + 1)
            self.nodes.append(SingleServer(
                grace_s=grace_s, first_move_s=first_move_s,
                datadir=self.dir, name=node,
                extra=self.redis_args() + ["--node-id", node] +
                list(extra) + list((node_extra or {}).get(i, ())),
                guests_per_ip_per_min=guests_per_ip_per_min, env=env))
        self.pg = self.nodes[0].pg
        self.wait_ready()

    def redis_args(self):
        """The nodes' flags for Redis: every shard's address, in order."""
        args = self.redis.node_args()
        args[args.index("--redis") + 1] = ",".join(
            r.node_settings()["redis"] for r in self.redises)
        return args

    def redis_of(self, gid):
        """The Redis of game gid's shard (its keys and cmd:G)."""
        return self.redises[shard_of(gid, len(self.redises))]

    def wait_ready(self):
        """Every node holds its lease (each has logged cluster_joined)."""
        deadline = time.monotonic() + WAIT
        for n in self.nodes:
            self._joined(n, deadline - time.monotonic())

    @staticmethod
    def _joined(n, timeout=WAIT):
        """Waits until node n has logged cluster_joined."""
        wait_for(lambda: "event=cluster_joined" in n.log_text(), timeout,
                 lambda why: RuntimeError("node did not join: " +
                                          n.log_text()))

    @property
    def port(self):
        return self.nodes[0].port

    @property
    def proc(self):
        return self.nodes[0].proc

    def pin(self, i):
        self.pinned = i

    def client_port(self):
        if PIN is not None:
            return self.nodes[PIN].port
        if self.pinned is not None:
            return self.nodes[self.pinned].port
        live = [n for n in self.nodes if n.proc.poll() is None]
        port = live[self.turn % len(live)].port
        self.turn += 1
        return port

    def node_of_port(self, port):
        return next(i for i, n in enumerate(self.nodes) if n.port == port)

    def host_of(self, gid):
        """The index of the node that hosts gid (Redis's game:{G}:host,
        on the game's shard)."""
        name = redis_call(self.redis_of(gid).socket, "GET",
                          "game:{%s}:host" % gid, timeout=WAIT)
        return next((i for i, n in enumerate(self.nodes) if n.name == name),
                    None)

    def restart_node(self, i, same_port=False):
        """Starts node i again (after a kill or a terminate), on a new
        port (same_port: on its last one), and waits until it has
        joined."""
        n = self.nodes[i]
        n.start(n.port if same_port else None)  # (log_text: this run's)
        self._joined(n)

    def log_text(self):
        return "".join("[%s]\n%s" % (n.name, n.log_text())
                       for n in self.nodes)

    def stop_nodes(self):
        """Every node SIGTERMed (as stop), without the folder going."""
        for n in self.nodes:
            if n.proc.poll() is None:
                n.terminate()

    def terminate(self):
        """Every node SIGTERMed, then Redis stopped (the cluster is down:
        a new ClusterServer on the same folder starts one again)."""
        rc = 0
        for n in self.nodes:
            if n.proc.poll() is None:
                rc = n.terminate() or rc
        for r in self.redises:
            r.stop()
        return rc

    def kill(self):
        for n in self.nodes:
            if n.proc.poll() is None:
                n.kill()
        for r in self.redises:
            r.stop(signal.SIGKILL)

    def stop(self):
        try:
            for n in self.nodes:
                n.stop()
            # a node refuses no message of another (sign.h) unless a test
            # forged or replayed one (and says so)
            if not self.forgeries_expected:
                for n in self.nodes:
                    if "event=cluster_message_refused" in n.log_text():
                        raise AssertionError(
                            "a node refused a message: " + n.log_text())
        finally:
            for r in self.redises:
                r.stop()
            if self.own_dir:
                pg_drop(self.dir)
                shutil.rmtree(self.dir, ignore_errors=True)

    def http(self, path):
        return self.nodes[0].http(path)

    def http_json(self, path):
        return self.nodes[0].http_json(path)

    def sql(self, statement, *params):
        return self.nodes[0].sql(statement, *params)

    def hold_writer(self):
        return self.nodes[0].hold_writer()
class _Hold:
    def __init__(self, server):
        self.con = self.proc = None
        if not server.pg:
            import sqlite3
            self.con = sqlite3.connect(server.db, timeout=WAIT,
                                       isolation_level=None)
            self.con.execute("BEGIN IMMEDIATE")
            return
        self.proc = subprocess.Popen(
            psql_argv(PSQL, POSTGRES, server.pg),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.proc.stdin.write("BEGIN; LOCK TABLE meta IN EXCLUSIVE MODE; "
                              "SELECT 'locked';\n")
        self.proc.stdin.flush()
        if self.proc.stdout.readline().strip() != "locked":
            self.release()
            raise AssertionError("psql did not take the lock")

    def release(self):
        if self.con is not None:
            self.con.execute("ROLLBACK")
            self.con.close()
            self.con = None
        if self.proc is not None:
            self.proc.communicate("ROLLBACK;\n", timeout=WAIT)
            self.proc = None


class Client:
    """A protocol client: sends JSON, waits for messages by type and fields
    (keeping unmatched ones for later waits, in order)."""

    def __init__(self, server, hello=True, name=None, token=None, **kw):
        self.server = server
        # (a server-like object with only a port: nginx in front of one)
        self.port = (server.client_port() if hasattr(server, "client_port")
                     else server.port)
        self.ws = WebSocket("127.0.0.1", self.port, **kw)
        self.backlog = []
        self.player = self.token = None
        self.games = []
        if hello:
            msg = {"t": "hello"}
            if name:
                msg["name"] = name
            if token:
                msg["token"] = token
            self.send(msg)
            w = self.expect("welcome")
            self.player, self.token = w["player"], w["token"]
            self.games = w["games"]

    def _log_tail(self, lines=12):
        try:
            return "\n".join(self.server.log_text().splitlines()[-lines:])
        except (OSError, AttributeError, ValueError):
            return "(unreadable)"

    @property
    def pid(self):
        return self.player["id"]

    def send(self, obj):
        self.ws.send(obj)

    def _next(self, timeout):
        self.ws.sock.settimeout(timeout)
        text = self.ws.recv_message()
        return json.loads(text)

    def expect(self, t, timeout=WAIT, **fields):
        """The first message (backlog first) of type t whose fields match."""
        def match(m):
            return m.get("t") == t and all(
                m.get(k) == v for k, v in fields.items())
        for i, m in enumerate(self.backlog):
            if match(m):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no %s %r; backlog: %r; server log "
                                     "ends: %s" % (
                    t, fields, self.backlog[-8:], self._log_tail()))
            try:
                m = self._next(left)
            except socket.timeout:
                continue
            if match(m):
                return m
            self.backlog.append(m)

    def expect_error(self, code, timeout=WAIT):
        return self.expect("error", timeout=timeout, code=code)

    def next(self, timeout=WAIT):
        """The very next message (backlog first)."""
        if self.backlog:
            return self.backlog.pop(0)
        return self._next(timeout)

    def quiet(self, timeout=0.2):
        """Asserts nothing arrives within timeout (used sparingly)."""
        if self.backlog:
            raise AssertionError("unexpected: %r" % self.backlog)
        try:
            m = self._next(timeout)
        except socket.timeout:
            return
        raise AssertionError("unexpected message: %r" % m)

    def request(self, msg, reply):
        """Sends msg with a fresh id and returns the reply of type reply
        echoing it (an error raises)."""
        Client._ids = getattr(Client, "_ids", 0) + 1
        msg = dict(msg, id=Client._ids)
        self.send(msg)
        deadline = time.monotonic() + WAIT
        while True:
            m = self.expect_any(deadline)
            if m.get("id") == msg["id"]:
                if m["t"] == "error" and reply != "error":
                    raise AssertionError("error reply: %r" % m)
                assert m["t"] == reply, m
                return m
            self.backlog.append(m)

    def expect_any(self, deadline):
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no reply; backlog %r" % self.backlog)
            try:
                return self._next(left)
            except socket.timeout:
                continue

    def move(self, game, uci, ply):
        self.send({"t": "move", "game": game, "uci": uci, "ply": ply})

    def close(self):
        self.ws.close()


def close_all(clients):
    """Closes every client, whatever state its connection is in."""
    for c in clients:
        try:
            c.close()
        except OSError:
            pass


if CLUSTER:
    import atexit
    atexit.register(Redis.stop_all)
    Server = ClusterServer  # noqa: F811 (every test's server is a cluster)

PIN = None  # one_node: every client of a cluster on this node


def not_in_cluster(why):
    """A test of one process's own life that a cluster has no counterpart
    of (the cluster's are test_cluster's): skipped in a cluster, saying
    why."""
    return unittest.skipIf(CLUSTER, "one process: " + why)


def one_node(test):
    """A test of one process's own behaviour (its metrics, its per-address
    limits, its keepalive): in a cluster, all its clients connect to the
    first node (the others still host and forward as they would)."""
    def run(*args, **kw):
        global PIN
        PIN = 0 if CLUSTER else None
        try:
            return test(*args, **kw)
        finally:
            PIN = None
    run.__name__, run.__doc__ = test.__name__, test.__doc__
    return run


class ServerTest(unittest.TestCase):
    """Base: one server per test class, started fresh (milliseconds)."""
    server_args = {}

    @classmethod
    def setUpClass(cls):
        if not SERVER:
            raise unittest.SkipTest("CHESS_SERVER not set")
        cls.server = Server(**cls.server_args)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.clients = []

    def tearDown(self):
        close_all(self.clients)

    def client(self, **kw):
        c = Client(self.server, **kw)
        self.clients.append(c)
        return c

    def invite_game(self, clock=None, fen=None, color="white"):
        """Two players in a started game from an invitation; returns
        (white, black, gid)."""
        a, b = self.client(), self.client()
        msg = {"t": "invite", "clock": clock or FISCHER_5_0, "color": color}
        if fen:
            msg["fen"] = fen
        gid = a.request(msg, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (a, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        return (a, b, gid) if color == "white" else (b, a, gid)

    def play(self, white, black, gid, moves, start_ply=0):
        """Plays UCI moves alternately, starting with white at an even
        start_ply; each is confirmed by moved to both."""
        ply = start_ply
        players = [white, black]
        side = start_ply % 2
        for uci in moves.split():
            players[side].move(gid, uci, ply)
            ply += 1
            for c in players:
                m = c.expect("moved", game=gid, ply=ply)
                self.assertEqual(m["uci"], uci)
            side = 1 - side
        return ply


def wait_until(pred, what, timeout=WAIT):
    """Polls pred until it holds; fails naming `what` after timeout."""
    wait_for(pred, timeout,
             lambda why: AssertionError("timed out waiting for " + what),
             step=0.01)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


class FreshServerTest(unittest.TestCase):
    """Base: servers of its own per test, in a temporary folder; clients,
    servers and other processes (self.procs) closed after."""

    def setUp(self):
        if not SERVER:
            raise unittest.SkipTest("CHESS_SERVER not set")
        self.dir = tempfile.mkdtemp(prefix="chess-it-")
        self.servers, self.clients, self.procs = [], [], []

    def tearDown(self):
        close_all(self.clients)
        for p in self.procs:
            end_process(p, signal.SIGKILL, WAIT)
        for s in self.servers:
            s.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        pg_drop(self.dir)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def server(self, config=None, **kw):
        """A server on this test's folder; config (a dict) becomes its
        --config file."""
        extra = list(kw.pop("extra", []))
        if config is not None:
            extra += ["--config", write_json(self.path("config.json"),
                                             config)]
        s = Server(datadir=self.dir, extra=extra, **kw)
        self.servers.append(s)
        return s

    def client(self, server, **kw):
        c = Client(server, **kw)
        self.clients.append(c)
        return c

    def mod(self, srv, *args):
        """chess-server mod ARGS beside srv (its database by a config):
        (exit code, stdout, stderr)."""
        if not hasattr(self, "_mod_cfg"):
            where = db_args(self.dir, srv.db)
            self._mod_cfg = write_json(
                self.path("mod.json"),
                {where[0][2:].replace("db", "database"): where[1]})
        p = subprocess.run([SERVER, "mod"] + list(args) +
                           ["--config", self._mod_cfg],
                           capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout, p.stderr

    def start_game(self, srv, clock=FISCHER_5_0, **kw):
        """Two players in a started game from an invitation, both past
        game_start and its state; returns (white, black, gid)."""
        w, b = self.client(srv, **kw), self.client(srv, **kw)
        gid = w.request({"t": "invite", "clock": clock, "color": "white"},
                        "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        return w, b, gid
