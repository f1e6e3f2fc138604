#!/usr/bin/env python3
"""fixture.py - a real Redis and a real PostgreSQL 15 for the cluster tests.

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
redis-server on a unix socket without persistence (no TCP port), and a
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
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def _pg_bindir():
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


class Servers:
    """Redis and/or PostgreSQL in a temporary folder (see the module)."""

    PG_PORT = 5432  # names the socket file only: there is no TCP port

    def __init__(self, redis=True, postgres=True, durable=False):
        self.want_redis = redis
        self.want_postgres = postgres
        self.durable = durable
        self.dir = None
        self.redis_socket = None
        self.redis_proc = None
        self.pg_proc = None
        self.pg_socket_dir = None
        self.dsn = None
        self.bindir = _pg_bindir()
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
            self._end(self.pg_proc, signal.SIGINT)  # fast shutdown
            self.pg_proc = None
        if self.redis_proc is not None:
            self._end(self.redis_proc, signal.SIGTERM)
            self.redis_proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        self._old_handlers = {}

    @staticmethod
    def _end(proc, sig):
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # ---- Redis ----------------------------------------------------------

    def _start_redis(self):
        prog = os.environ.get("REDIS_SERVER") or "redis-server"
        self.redis_socket = os.path.join(self.dir, "redis.sock")
        log = open(os.path.join(self.dir, "redis.log"), "wb")
        # redis-server runs as root too: it is the test's own user
        self.redis_proc = subprocess.Popen(
            self._wrap([prog, "--port", "0", "--unixsocket",
                        self.redis_socket, "--unixsocketperm", "700",
                        "--save", "", "--appendonly", "no",
                        "--dir", self.dir, "--daemonize", "no"],
                       pdeathsig="KILL", nobody=False),
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 20
        while self.redis_command("PING") != "PONG":
            if self.redis_proc.poll() is not None:
                raise RuntimeError("redis-server exited: " + self._log(
                    "redis.log"))
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server does not answer")
            time.sleep(0.02)

    def redis_command(self, *args):
        """One command over the socket (RESP, standard library only):
        the reply's first line without its type byte, or None when the
        server does not answer."""
        import socket
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(self.redis_socket)
            msg = b"*%d\r\n" % len(args)
            for a in args:
                a = a.encode() if isinstance(a, str) else a
                msg += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(msg)
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    return None
                data += chunk
            line = data.split(b"\r\n", 1)[0].decode()
            if line.startswith("$"):  # a bulk string: the next line
                while data.count(b"\r\n") < 2 and line != "$-1":
                    data += s.recv(4096)
                return None if line == "$-1" else \
                    data.split(b"\r\n")[1].decode()
            return line[1:]
        except OSError:
            return None
        finally:
            s.close()

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
        deadline = time.monotonic() + 60
        while True:
            r = self._psql_run("SELECT 1", "postgres")
            if r.returncode == 0:
                break
            if self.pg_proc.poll() is not None:
                raise RuntimeError("postgres exited: " + self._log("pg.log"))
            if time.monotonic() > deadline:
                raise RuntimeError("postgres does not answer: " + r.stderr)
            time.sleep(0.05)

    def stop_postgres(self):
        """A fast shutdown (SIGINT: connections cut, in-flight
        transactions rolled back), waited for."""
        if self.pg_proc is not None:
            self._end(self.pg_proc, signal.SIGINT)
            self.pg_proc = None

    def _psql_run(self, sql, dbname):
        return subprocess.run(
            [os.path.join(self.bindir, "psql"), "-X", "-q", "-A", "-t",
             "-v", "ON_ERROR_STOP=1", "-h", self.pg_socket_dir,
             "-p", str(self.PG_PORT), "-U", "chess", "-d", dbname,
             "-c", sql],
            capture_output=True, text=True)

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
        try:
            with open(os.path.join(self.dir, name)) as f:
                return f.read()[-2000:]
        except OSError:
            return "(no log)"


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
