#!/usr/bin/env python3
"""fixture.py - a real Redis and a real PostgreSQL 15 for the cluster tests,
and what tests/integration/harness.py shares with them: Redis (the one
class that starts redis-server), end_process, wait_for, psql_argv.

    with Servers(redis=True, postgres=True) as s:
        s.redis_socket          # redis-server's unix socket
        s.dsn                   # a libpq connection string
        s.psql("SELECT 1")      # psql's output (raises on an error)
        s.env()                 # REDIS_SOCKET, PGHOST, ..., CHESS_PG_DSN

or, around a command (the meson tests of C programs):

    python3 fixture.py [--redis] [--postgres] -- COMMAND ARG...

which runs COMMAND with s.env() added and exits with its status. There
COMMAND may stop PostgreSQL (SIGUSR1 to $CHESS_FIXTURE_PID: a fast
shutdown, waited for) and start it again on the same data and socket
(SIGUSR2: waited for until it answers), to test a client across a
restart.

Everything lives in one temporary folder (/tmp/chess_cluster_XXXX):
redis-server on a unix socket without persistence (no TCP port:
redis-test.conf, which every Redis of the tests runs with), and a
PostgreSQL cluster made by initdb, listening on a unix socket only
(listen_addresses=''), trust authentication, superuser `chess`,
database `chess`. Without `durable`, fsync is off: the tests check
behaviour, not durability, and a test's cluster dies with the test.

Root. initdb and postgres refuse to run as root, and CI runs the tests
as root: as root, the fixture runs them as the `nobody` user through
util-linux's setpriv (in Debian's essential packages; no PAM, no
password, no sudo), in folders it gives to nobody. As another user it
runs them as that user. redis-server runs as the test's user either
way. Nothing is installed or left behind.

Stopping. Both servers are stopped when the `with` block ends, normally
or by an exception, on SIGTERM or SIGINT of the test process (meson's
timeout), and at interpreter exit; if the test process is killed with
SIGKILL, the kernel stops them (setpriv --pdeathsig: the signal a
process gets when its parent dies). The folder is removed afterwards.

The programs: $REDIS_SERVER (else redis-server on PATH) and $PG_BINDIR
(else `pg_config --bindir`, else /usr/lib/postgresql/15/bin) for
initdb, postgres and psql; the meson tests set both.
"""
import atexit
import hashlib
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def pg_bindir():
    """The folder of initdb, postgres and psql."""
    d = os.environ.get("PG_BINDIR")
    if d:
        return d
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True,
                             text=True, check=True).stdout.strip()
        if os.path.exists(os.path.join(out, "initdb")):
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    return "/usr/lib/postgresql/15/bin"


def end_process(proc, sig=signal.SIGTERM, timeout=20):
    """Sends sig to proc unless it has ended, and waits for it: SIGKILL
    after timeout seconds. Returns its exit status."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def wait_for(ready, timeout, failed, proc=None, step=0.005):
    """Calls ready() every step seconds until it is true. When proc (if
    given) ends first, or timeout seconds pass, raises failed(why), why
    being "exited" or "timed out"."""
    deadline = time.monotonic() + timeout
    while not ready():
        if proc is not None and proc.poll() is not None:
            raise failed("exited")
        if time.monotonic() > deadline:
            raise failed("timed out")
        time.sleep(step)


def psql_argv(psql, conninfo, dbname):
    """psql's command line for statements on dbname (conninfo's other
    settings), unaligned and tuples only, stopping at the first error;
    the caller adds -c or a script on stdin."""
    return [psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-d", conninfo + " dbname=" + dbname]


REDIS_CONF = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "redis-test.conf")
# The ACL every test's Redis runs with: the shipped one (the nodes' user
# `chess`, its commands, keys and channels), its password's SHA-256 put
# in, and the default user left on without a password for the tests'
# own tools (redis_call, redis-cli): the shipped file turns it off.
REDIS_ACL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "deploy", "redis-chess.acl")
REDIS_USER = "chess"


def free_tcp_port():
    """A loopback TCP port free now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certs(folder, prefix=""):
    """With the openssl command, in folder: a CA (PREFIXca.crt) and what
    it signed: Redis's certificate for 127.0.0.1 and localhost
    (PREFIXredis.crt, .key) and a node's (PREFIXclient.crt, .key)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
          "-days", "2"]
    ca, cakey = prefix + "ca.crt", prefix + "ca.key"
    steps = [["-keyout", cakey, "-out", ca, "-subj", "/CN=test-ca"],
             ["-CA", ca, "-CAkey", cakey, "-keyout", prefix + "redis.key",
              "-out", prefix + "redis.crt", "-subj", "/CN=redis", "-addext",
              "subjectAltName=IP:127.0.0.1,DNS:localhost"],
             ["-CA", ca, "-CAkey", cakey, "-keyout", prefix + "client.key",
              "-out", prefix + "client.crt", "-subj", "/CN=node"]]
    for step in steps:
        subprocess.run(["openssl", "req", "-x509"] + ec + step, cwd=folder,
                       check=True, capture_output=True)


def write_secret(path, text):
    """A file only its owner reads, holding text (kept when it exists:
    a cluster started again on its folder has the same secrets)."""
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
    with open(path) as f:
        return f.read().strip()


def test_acl(password, default="user default on nopass ~* &* +@all"):
    """The shipped ACL's text with the nodes' password in and the default
    user's line replaced by `default` (None: as shipped)."""
    with open(REDIS_ACL) as f:
        text = f.read()
    digest = hashlib.sha256(password.encode()).hexdigest()
    assert "#CHESS_PASSWORD_SHA256" in text
    text = text.replace("#CHESS_PASSWORD_SHA256", "#" + digest)
    if default is not None:
        text = re.sub(r"(?m)^user default .*$", default, text)
    return text


def redis_call(socket_path, *args, timeout=5):
    """One command to the Redis at socket_path (RESP over a unix socket):
    its reply as str, int, None or a list (an error reply: a
    RuntimeError, returned). OSError when it does not answer."""
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(timeout)
    try:
        sock.connect(socket_path)
        out = "*%d\r\n" % len(args) + "".join(
            "$%d\r\n%s\r\n" % (len(str(a).encode()), a) for a in args)
        sock.sendall(out.encode())
        f = sock.makefile("rb")
    except OSError:
        sock.close()
        raise

    def read():
        line = f.readline().rstrip(b"\r\n")
        kind, rest = line[:1], line[1:].decode()
        if kind in (b"+", b"-"):
            return rest if kind == b"+" else RuntimeError(rest)
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = f.read(n + 2)[:n]
            return data.decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [read() for _ in range(n)]
        if not line:
            raise ConnectionResetError("redis-server closed the connection")
        raise RuntimeError("bad reply %r" % line)
    try:
        return read()
    finally:
        f.close()
        sock.close()


class Redis:
    """A redis-server of the test's own, with redis-test.conf's settings
    (a unix socket only, no persistence) and the shipped ACL (test_acl):
    its socket folder/redis.sock, its log folder/redis.log. The nodes log
    in as REDIS_USER with the password of folder/redis-password and sign
    with the key of folder/cluster.key (node_args, node_settings). The
    program is $REDIS_SERVER, else redis-server on PATH. It dies with
    the test process (setpriv --pdeathsig); stop_all stops every one
    still running."""
    running = []

    def __init__(self, folder, wait=20, tls=False, password=None,
                 certs_from=None):
        """password: the nodes' (another shard's, which they log in to
        alike), else a new one; certs_from: the folder of that shard,
        whose CA and certificates this one uses too (tls)."""
        self.folder = folder
        self.tls = tls
        self.port = free_tcp_port() if tls else 0
        if tls and certs_from:
            for name in ("ca.crt", "redis.crt", "redis.key", "client.crt",
                         "client.key"):
                shutil.copy(os.path.join(certs_from, name), folder)
        elif tls:
            make_certs(folder)
        self.socket = os.path.join(folder, "redis.sock")
        self.log = os.path.join(folder, "redis.log")
        self.password_file = os.path.join(folder, "redis-password")
        self.key_file = os.path.join(folder, "cluster.key")
        self.acl = os.path.join(folder, "redis-chess.acl")
        self.password = write_secret(self.password_file,
                                     password or secrets.token_hex(16))
        write_secret(self.key_file, secrets.token_hex(32))
        with open(self.acl, "w") as f:
            f.write(test_acl(self.password))
        self.wait = wait
        self.proc = None
        self.start()

    def node_settings(self):
        """A node's settings for this Redis (as a config file's keys):
        over TLS with a client certificate when tls."""
        out = {"redis": self.socket, "redis_user": REDIS_USER,
               "redis_password_file": self.password_file,
               "cluster_key_file": self.key_file}
        if self.tls:
            out.update(redis="127.0.0.1:%d" % self.port,
                       redis_tls_ca_file=os.path.join(self.folder, "ca.crt"),
                       redis_tls_cert_file=os.path.join(self.folder,
                                                        "client.crt"),
                       redis_tls_key_file=os.path.join(self.folder,
                                                       "client.key"))
        return out

    def node_args(self):
        """The same as command-line flags."""
        out = []
        for k, v in self.node_settings().items():
            out += ["--" + k.replace("_", "-"), v]
        return out

    def start(self):
        """Starts it (again, after stop) and waits until it answers."""
        prog = os.environ.get("REDIS_SERVER") or "redis-server"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", prog, REDIS_CONF,
                 "--unixsocket", self.socket, "--dir", self.folder,
                 "--logfile", self.log, "--aclfile", self.acl]
                + self._tls_args(),
                stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT)
        Redis.running.append(self)
        try:
            wait_for(self._pong, self.wait, lambda why: RuntimeError(
                "redis-server %s: %s" % (why, _tail(self.log))),
                proc=self.proc)
        except RuntimeError:
            self.stop(signal.SIGKILL)
            raise

    def _tls_args(self):
        """TLS on a TCP port of its own (the unix socket stays plain, for
        the tests' tools); the nodes show a certificate of its CA."""
        if not self.tls:
            return []
        f = self.folder
        return ["--tls-port", str(self.port),
                "--tls-cert-file", os.path.join(f, "redis.crt"),
                "--tls-key-file", os.path.join(f, "redis.key"),
                "--tls-ca-cert-file", os.path.join(f, "ca.crt"),
                "--tls-auth-clients", "yes"]

    def _pong(self):
        try:
            return redis_call(self.socket, "PING") == "PONG"
        except OSError:
            return False

    def stop(self, sig=signal.SIGTERM):
        """Stops it with sig, waited for (SIGKILL after 20 s)."""
        if self.proc is not None:
            end_process(self.proc, sig)
        if self in Redis.running:
            Redis.running.remove(self)
        if os.path.exists(self.socket):
            os.unlink(self.socket)  # a SIGKILLed server leaves it

    def restart(self):
        """A crash (SIGKILL) and a start on the same socket."""
        self.stop(signal.SIGKILL)
        self.start()

    def call(self, *args):
        """One command (redis_call)."""
        return redis_call(self.socket, *args)

    @staticmethod
    def stop_all():
        for r in list(Redis.running):
            r.stop(signal.SIGKILL)


def _tail(path):
    try:
        with open(path) as f:
            return f.read()[-2000:]
    except OSError:
        return "(no log)"


class Servers:
    """Redis and/or PostgreSQL in a temporary folder (see the module)."""

    PG_PORT = 5432  # names the socket file only: there is no TCP port

    def __init__(self, redis=True, postgres=True, durable=False):
        self.want_redis = redis
        self.want_postgres = postgres
        self.durable = durable
        self.dir = None
        self.redis_socket = None
        self.redis = None
        self.pg_proc = None
        self.pg_socket_dir = None
        self.dsn = None
        self.bindir = pg_bindir()
        self.as_root = os.geteuid() == 0
        self._old_handlers = {}

    # ---- running programs, as nobody when root --------------------------

    def _wrap(self, argv, pdeathsig=None, nobody=True):
        """argv through setpriv: as nobody when root (and nobody), with a
        parent-death signal when asked."""
        pre = []
        if self.as_root and nobody:
            pre = ["setpriv", "--reuid=nobody", "--regid=nogroup",
                   "--clear-groups"]
        if pdeathsig:
            pre = (pre or ["setpriv"]) + ["--pdeathsig", pdeathsig]
        return pre + argv

    def _give(self, path):
        """Makes path the servers' own (nobody's, when root)."""
        if self.as_root:
            pw = pwd.getpwnam("nobody")
            os.chown(path, pw.pw_uid, pw.pw_gid)

    # ---- lifecycle ------------------------------------------------------

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="chess_cluster_")
        os.chmod(self.dir, 0o711)  # nobody must reach its own folders
        atexit.register(self.stop)
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            if self.want_redis:
                self._start_redis()
            if self.want_postgres:
                self._start_postgres()
        except BaseException:
            self.stop()
            raise
        return self

    def _on_signal(self, signum, frame):
        self.stop()
        raise SystemExit(128 + signum)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        """Stops both servers (idempotent) and removes the folder."""
        if self.pg_proc is not None:
            end_process(self.pg_proc, signal.SIGINT)  # fast shutdown
            self.pg_proc = None
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        self._old_handlers = {}

    # ---- Redis ----------------------------------------------------------

    def _start_redis(self):
        # redis-server runs as root too: it is the test's own user
        self.redis = Redis(self.dir, wait=20)
        self.redis_socket = self.redis.socket

    @property
    def redis_proc(self):
        """redis-server's process (None when not running)."""
        return self.redis.proc if self.redis else None

    def redis_command(self, *args):
        """One command (redis_call), or None when the server does not
        answer."""
        try:
            return redis_call(self.redis_socket, *args)
        except OSError:
            return None

    # ---- PostgreSQL -----------------------------------------------------

    def _start_postgres(self):
        data = os.path.join(self.dir, "pg")
        self.pg_socket_dir = os.path.join(self.dir, "pgsock")
        for d in (data, self.pg_socket_dir):
            os.mkdir(d, 0o700)
            self._give(d)
        init = subprocess.run(
            self._wrap([os.path.join(self.bindir, "initdb"), "-D", data,
                        "-U", "chess", "--auth=trust", "-E", "UTF8",
                        "--locale=C", "--no-sync"]),
            cwd=self.dir, capture_output=True, text=True)
        if init.returncode != 0:
            raise RuntimeError("initdb failed: " + init.stdout + init.stderr)
        self.start_postgres()
        self.psql("CREATE DATABASE chess", "postgres")

    def start_postgres(self):
        """Starts postgres on the cluster initdb made (again, after
        stop_postgres) and waits until it answers."""
        data = os.path.join(self.dir, "pg")
        settings = ["-c", "listen_addresses=", "-c",
                    "unix_socket_directories=" + self.pg_socket_dir,
                    "-p", str(self.PG_PORT)]
        if not self.durable:
            settings += ["-c", "fsync=off", "-c", "full_page_writes=off"]
        log_path = os.path.join(self.dir, "pg.log")
        log = open(log_path, "ab")
        self._give(log_path)
        # SIGQUIT on the test's death: postgres's immediate shutdown
        self.pg_proc = subprocess.Popen(
            self._wrap([os.path.join(self.bindir, "postgres"), "-D", data]
                       + settings, pdeathsig="QUIT"),
            cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.dsn = "host=%s port=%d user=chess dbname=chess" % (
            self.pg_socket_dir, self.PG_PORT)
        def answers():
            return self._psql_run("SELECT 1", "postgres").returncode == 0
        wait_for(answers, 60, lambda why: RuntimeError(
            "postgres %s: %s" % (why, self._log("pg.log"))),
            proc=self.pg_proc, step=0.05)

    def stop_postgres(self):
        """A fast shutdown (SIGINT: connections cut, in-flight
        transactions rolled back), waited for."""
        if self.pg_proc is not None:
            end_process(self.pg_proc, signal.SIGINT)
            self.pg_proc = None

    def _psql_run(self, sql, dbname):
        return subprocess.run(
            psql_argv(os.path.join(self.bindir, "psql"), self.dsn, dbname)
            + ["-c", sql], capture_output=True, text=True)

    def psql(self, sql, dbname="chess"):
        """Runs sql through psql (libpq); returns its unaligned output
        without the trailing newline. Raises RuntimeError on an error."""
        r = self._psql_run(sql, dbname)
        if r.returncode != 0:
            raise RuntimeError("psql: " + r.stderr.strip())
        return r.stdout.rstrip("\n")

    # ---- for the programs under test ------------------------------------

    def env(self):
        """The environment that names the servers (libpq reads PG*)."""
        e = {}
        if self.redis_socket:
            e["REDIS_SOCKET"] = self.redis_socket
        if self.dsn:
            e.update(PGHOST=self.pg_socket_dir, PGPORT=str(self.PG_PORT),
                     PGUSER="chess", PGDATABASE="chess",
                     CHESS_PG_DSN=self.dsn)
        return e

    def pids(self):
        """The servers' process ids (for the fixture's own tests)."""
        return [p.pid for p in (self.redis_proc, self.pg_proc) if p]

    def _log(self, name):
        return _tail(os.path.join(self.dir, name))


def main(argv):
    if "--" not in argv:
        print("usage: fixture.py [--redis] [--postgres] -- COMMAND ARG...",
              file=sys.stderr)
        return 2
    i = argv.index("--")
    opts, cmd = argv[:i], argv[i + 1:]
    redis = "--redis" in opts
    postgres = "--postgres" in opts
    with Servers(redis=redis, postgres=postgres) as s:
        env = dict(os.environ)
        env.update(s.env())
        env["CHESS_FIXTURE_PID"] = str(os.getpid())
        if postgres:
            # in the order sent: a signal that comes while another is
            # being handled (its handler runs inside that one) waits
            pending = []

            def on_usr(signum, frame):
                pending.append(signum)
                if len(pending) > 1:
                    return
                while pending:
                    if pending[0] == signal.SIGUSR1:
                        s.stop_postgres()
                    else:
                        s.start_postgres()
                    pending.pop(0)
            signal.signal(signal.SIGUSR1, on_usr)
            signal.signal(signal.SIGUSR2, on_usr)
        return subprocess.run(cmd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
