#!/usr/bin/env python3
"""cluster_bench.py - the cluster's figures side by side, in one run.

    tests/bench/cluster_bench.py BUILD [--runs N] [--setups LIST]
                                 [--scenarios LIST] [--open-games N]
                                 [--closed-games N] [--duration-s S]
                                 [--redis-shards LIST] [--edge-nodes K]

Setups (default all, in this order): `sqlite` (one node on SQLite: the
server as `sh deploy/run.sh` runs it), `pg` (one node on PostgreSQL, no
Redis), `2` and `3` (that many nodes on PostgreSQL and Redis, each game's
two players on two different nodes: chess-loadgen --ports). Scenarios:
`open` (--open-games games, a move every 2 s each) and `closed` (each
side moves as soon as it may). Every run starts from an empty database:
PostgreSQL and Redis are tests/cluster/fixture.py's (a temporary
cluster on unix sockets; PostgreSQL durable: fsync on, synchronous
commit, as deploy/postgresql-chess.conf), the nodes run with
tests/bench/bench-config.json, and the load generator is BUILD's
chess-loadgen.

One line per run: setup, scenario, the load generator's figures (moves
a second, opponent latency p50/p99/p99.9 in microseconds, errors by
code, stalls, `unanswered`: the moves still waiting 5 s or more for
their `moved` as the window ends, which the 20 s stall watchdog has not
counted yet, the games in play when the window opened, the load
average) and the CPU time each component spent per move over the
window: the nodes
together (`node_us_per_move`), redis-server (`redis_us_per_move`) and
PostgreSQL (`pg_us_per_move`: the postmaster and all its processes),
read from /proc every 0.2 s (the window is the load generator's last
duration_s seconds), and PostgreSQL's WAL bytes per move over the same
window (`pg_wal_bytes_per_move`: pg_current_wal_lsn() sampled with the
CPU times, through one psql kept open). `opp_*` of `2`/`3` against `pg`
is what forwarding through Redis adds (the `moved` of a move made on
one node reaches the opponent through the game's host and Redis).

--redis-shards LIST (default 1): the cluster setups run once for each
count K of the list, their games spread over K Redis instances (the
nodes' `redis` lists them: docs/cluster.md, "Shards"); the line then
has `redis_shards=K` and each instance's CPU a move
(`redis_shard_us_per_move`, the first's first), `redis_us_per_move`
their sum.

`warnings` counts the nodes' warn and error lines by event while the
load ran, `stop_warnings` those of the nodes' stop (all of them at once
at the end of a run: with every node stopping, nobody takes the games).
Each line ends with `lost` and `clean`. `lost` is the moves the players
were shown (chess-loadgen --acked: each game's highest ply in a `moved`
or `state`) that the store does not have, read from the database once
the nodes have stopped (tests/bench/acked.py). `clean=yes` when the run
measured what it claims: every game in play when the window opened
(`ramp_games`), and no error, stall, unanswered move, cut connection,
failed connection, game given up, or lost move; else `clean=no` and what was not.

--edge-nodes K (2 or more): the players connect to the first K nodes
only, so the others start empty and the balance hands them games
throughout the run (handovers under moves; with BENCH_NODE_ARGS
`--balance-games-per-s 50` it is 50 a second).

BENCH_KEEP=1 keeps the nodes' folders (their logs) and names them.
BENCH_NODE_ARGS adds options to every node's command line (e.g.
`--cluster-trace 1`: each command's steps in the logs, docs/cluster.md
"Tracing a command").
Everything shares the machine's cores with the load generator: compare
figures of one run with each other, not with another machine's.
"""
import argparse
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))
import fixture  # noqa: E402
import acked  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_s(pid, children=False):
    """utime+stime of pid (and of its reaped children), seconds; 0 when
    gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    t = int(fields[11]) + int(fields[12])
    if children:
        t += int(fields[13]) + int(fields[14])
    return t / TICKS


def children_of(ppid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ppid:
            out.append(int(d))
    return out


def free_port():
    for _ in range(200):
        port = random.randrange(20000, 32000)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise RuntimeError("no free port")


class WalLsn:
    """pg_current_wal_lsn() through one psql kept open (a psql a sample
    would cost PostgreSQL more than what it measures)."""

    def __init__(self, servers):
        self.p = subprocess.Popen(
            fixture.psql_argv(os.path.join(servers.bindir, "psql"),
                              servers.dsn, "postgres"),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def bytes(self):
        """The WAL's current position in bytes."""
        self.p.stdin.write("SELECT pg_current_wal_lsn() - '0/0';\n")
        self.p.stdin.flush()
        return int(float(self.p.stdout.readline()))

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


class Sampler(threading.Thread):
    """CPU seconds of the nodes, each Redis and PostgreSQL, and the WAL's
    position, every 0.2 s."""

    def __init__(self, nodes, redis_pids, pg_pid, wal):
        super().__init__(daemon=True)
        self.nodes, self.redis_pids, self.pg_pid = nodes, redis_pids, pg_pid
        self.wal = wal
        self.samples = []
        self.stop = threading.Event()

    def sample(self):
        node = sum(cpu_s(p) for p in self.nodes)
        redis = tuple(cpu_s(p) for p in self.redis_pids)
        pg = 0.0
        if self.pg_pid:
            pg = cpu_s(self.pg_pid, children=True) + sum(
                cpu_s(p) for p in children_of(self.pg_pid))
        wal = self.wal.bytes() if self.wal else 0
        return (time.monotonic(), node, redis, pg, wal)

    def run(self):
        while not self.stop.is_set():
            self.samples.append(self.sample())
            self.stop.wait(0.2)

    def window(self, t0, t1):
        """CPU seconds of the nodes, of each Redis and of PostgreSQL, and
        the WAL's bytes, between monotonic t0 and t1."""
        def at(t):
            return min(self.samples, key=lambda s: abs(s[0] - t))
        a, b = at(t0), at(t1)
        return (b[1] - a[1], [y - x for x, y in zip(a[2], b[2])],
                b[3] - a[3], b[4] - a[4])


def start_node(server, args, log_path):
    log = open(log_path, "ab")
    p = subprocess.Popen([server] + args, stdout=log, stderr=log)
    log.close()
    deadline = time.monotonic() + 60
    want = "event=cluster_joined" if "--redis" in args else "event=listening"
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise RuntimeError("node exited: " + open(log_path).read()[-2000:])
        with open(log_path, errors="replace") as f:
            if want in f.read():
                return p
        time.sleep(0.05)
    raise RuntimeError("node did not start: " + open(log_path).read()[-2000:])


def run_one(build, servers, shards, setup, scenario, a, run_no, tmp):
    """One run; shards: the Redis instances of a cluster setup (the first
    servers.redis)."""
    server = os.path.join(build, "server", "chess-server")
    loadgen = os.path.join(build, "tests", "bench", "chess-loadgen")
    config = os.path.join(HERE, "bench-config.json")
    folder = tempfile.mkdtemp(prefix="node-", dir=tmp)
    web = os.path.join(folder, "web")
    os.mkdir(web)
    with open(os.path.join(web, "index.html"), "w") as f:
        f.write("<!doctype html><title>bench</title>\n")
    n = {"sqlite": 1, "pg": 1, "2": 2, "3": 3}[setup]
    db = None
    base = ["--config", config, "--log-level", "info", "--listen",
            "127.0.0.1", "--web", web]
    base += os.environ.get("BENCH_NODE_ARGS", "").split()
    if setup == "sqlite":
        base += ["--db", os.path.join(folder, "chess.db")]
    else:
        db = "bench_%d_%s_%s" % (run_no, setup, scenario)
        servers.psql("DROP DATABASE IF EXISTS %s" % db, "postgres")
        servers.psql("CREATE DATABASE %s" % db, "postgres")
        base += ["--postgres", servers.dsn.replace("dbname=chess",
                                                   "dbname=" + db)]
    if setup in ("2", "3"):
        for r in shards:
            r.call("FLUSHALL")
        base += servers.redis.node_args()
        base[base.index("--redis") + 1] = ",".join(r.socket for r in shards)
    nodes, ports = [], []
    try:
        for i in range(n):
            port = free_port()
            args = base + ["--port", str(port), "--node-id", "n%d" % (i + 1)]
            nodes.append(start_node(server, args, os.path.join(
                folder, "n%d.log" % (i + 1))))
            ports.append(port)
        wal = WalLsn(servers) if setup != "sqlite" else None
        sampler = Sampler([p.pid for p in nodes],
                          [r.proc.pid for r in shards] if n > 1 else [],
                          servers.pg_proc.pid if setup != "sqlite" else None,
                          wal)
        sampler.start()
        lg = [loadgen, "--url", "ws://127.0.0.1:%d/ws" % ports[0],
              "--duration-s", str(a.duration_s), "--seed", str(run_no),
              "--server-pid", str(nodes[0].pid)]
        if n > 1:  # (--edge-nodes: the players on the first ones only)
            lg += ["--ports", ",".join(map(str, ports[:a.edge_nodes or n]))]
        if scenario == "open":
            lg += ["--games", str(a.open_games), "--move-interval-ms",
                   "2000", "--procs", "2"]
        else:
            lg += ["--games", str(a.closed_games)]
        acked_path = os.path.join(folder, "acked.txt")
        # (--verbose: what each of the first stalled games waited for,
        # kept with the nodes' logs in loadgen.err)
        lg += ["--acked", acked_path, "--verbose"]
        out = subprocess.run(lg, capture_output=True, text=True,
                             timeout=600)
        with open(os.path.join(folder, "loadgen.err"), "w") as f:
            f.write(out.stderr)
        t1 = time.monotonic()
        ended = log_time()
        sampler.stop.set()
        sampler.join()
        if wal:
            wal.close()
    finally:
        for p in nodes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in nodes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    line = out.stdout.strip().splitlines()[-1] if out.stdout else ""
    got = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    window = float(got.get("duration_s", a.duration_s))
    node_s, redis_s, pg_s, wal_b = sampler.window(t1 - window, t1)
    moves = int(got.get("moves", 0)) or 1
    per = lambda s: "%.1f" % (s * 1e6 / moves)  # noqa: E731
    lost, checked = stored_check(servers, setup, folder, db, acked_path)
    games = a.open_games if scenario == "open" else a.closed_games
    keys = ("moves_per_s", "opp_p50_us", "opp_p99_us", "opp_p999_us",
            "commit_p99_us", "errors", "errors_by_code", "unexpected_closes",
            "connect_failures", "stalls", "unanswered", "resets",
            "ramp_games", "ramp_s",
            "loadavg_1m", "machine_steal_pct")
    during, after = warnings(folder, ended)
    print("setup=%s scenario=%s run=%d nodes=%d redis_shards=%d %s "
          "node_us_per_move=%s redis_us_per_move=%s "
          "redis_shard_us_per_move=%s pg_us_per_move=%s "
          "pg_wal_bytes_per_move=%.0f warnings=%s stop_warnings=%s lost=%d "
          "games_checked=%d clean=%s" % (
              setup, scenario, run_no, n, len(redis_s),
              " ".join("%s=%s" % (k, got.get(k, "na")) for k in keys),
              per(node_s), per(sum(redis_s)),
              ",".join(per(x) for x in redis_s) or "na", per(pg_s),
              wal_b / moves, during, after, lost, checked,
              clean(got, games, lost, out.returncode)), flush=True)
    if out.returncode != 0 or not line:
        print("  loadgen: " + out.stderr[-1000:], flush=True)


def stored_check(servers, setup, folder, db, acked_path):
    """(moves shown to a player and not in the store, games checked); the
    games short of their moves, with their rows, in lost.txt."""
    want = acked.read(acked_path) if os.path.exists(acked_path) else {}

    def query(sql):
        if setup != "sqlite":
            out = servers.psql(sql, db)
            return [ln.split("|") for ln in out.splitlines() if ln]
        con = sqlite3.connect(os.path.join(folder, "chess.db"))
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()
    rows = query(acked.STORED_SQL)
    lost = acked.lost(want, rows)
    if lost:
        with open(os.path.join(folder, "lost.txt"), "w") as f:
            for gid, shown, stored in lost:
                row = query("SELECT status, reason, created_ms, ended_ms "
                            "FROM games WHERE gid = '%s'" % gid)
                f.write("%s shown=%d stored=%d row=%s\n"
                        % (gid, shown, stored, row))
    return acked.moves(want, rows)


def log_time():
    """Now as the nodes' log lines begin (UTC, ISO 8601, ms)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + \
        ".%03dZ" % (int(t * 1000) % 1000)


def warnings(folder, ended):
    """The nodes' warn and error lines, counted by event, until the load
    generator ended and after (the nodes' stop): what to look at when a
    run is not clean."""
    counts = ({}, {})
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(folder, name), errors="replace") as f:
            for ln in f:
                part = ln.split()
                if len(part) > 2 and part[1] in ("warn", "error"):
                    ev = part[2].split("=", 1)[-1]
                    c = counts[part[0] >= ended]
                    c[ev] = c.get(ev, 0) + 1
    return [",".join("%s:%d" % kv for kv in sorted(c.items())) or "none"
            for c in counts]


def clean(got, games, lost, rc):
    """"yes", or "no:" and what the run did not measure as it claims."""
    bad = []
    if rc != 0 or "moves" not in got:
        bad.append("loadgen_failed")
    if got.get("ramp_games") != str(games):
        bad.append("ramp_games")
    for k in ("errors", "unexpected_closes", "connect_failures", "stalls",
              "unanswered", "resets", "failed_procs"):
        if got.get(k, "0") != "0":
            bad.append(k)
    if lost:
        bad.append("lost")
    return "no:" + ",".join(bad) if bad else "yes"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--setups", default="sqlite,pg,2,3")
    ap.add_argument("--scenarios", default="open,closed")
    ap.add_argument("--open-games", type=int, default=3000)
    ap.add_argument("--closed-games", type=int, default=200)
    ap.add_argument("--duration-s", type=int, default=20)
    ap.add_argument("--redis-shards", default="1")
    ap.add_argument("--edge-nodes", type=int, default=0)
    a = ap.parse_args()
    counts = [int(k) for k in a.redis_shards.split(",")]
    tmp = tempfile.mkdtemp(prefix="chess-cluster-bench-")
    os.chmod(tmp, 0o755)
    with fixture.Servers(redis=True, postgres=True, durable=True) as servers:
        more = []
        for k in range(1, max(counts)):  # the other shards' Redis
            folder = os.path.join(tmp, "redis%d" % (k + 1))
            os.mkdir(folder)
            more.append(fixture.Redis(folder, wait=20,
                                      password=servers.redis.password))
        try:
            for run_no in range(1, a.runs + 1):
                for scenario in a.scenarios.split(","):
                    for setup in a.setups.split(","):
                        for k in (counts if setup in ("2", "3") else [1]):
                            run_one(a.build, servers,
                                    [servers.redis] + more[:k - 1], setup,
                                    scenario, a, run_no, tmp)
        finally:
            for r in more:
                r.stop()
    if os.environ.get("BENCH_KEEP"):  # the nodes' logs, for a look
        print("kept " + tmp)
    else:
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
