#!/usr/bin/env python3
"""adopt_stall.py - how long the adopting nodes' event loops stall when
a node hosting many games dies (issue 26, item 1: 107 adoptions stalled
a loop 0.25-0.5 s, each adoption's reads on the loop), on a cluster of
three nodes (PostgreSQL 15 and Redis 7 of tests/cluster/fixture.py, the
nodes of harness.ClusterServer):

    python3 tests/bench/adopt_stall.py BUILD_DIR [GAMES]

Starts GAMES games (default 120) hosted on node 1, white there and black
on node 2 or 3, past both first moves. An idle client on each of nodes
2 and 3 pings every 50 ms. Then node 1 is killed (kill -9); once its
lease lapses the others adopt its games. Prints, for nodes 2 and 3, the
games each adopted, the longest ping round trip from the kill until
every game was adopted and a second after, and the largest bucket of
chess_event_loop_lag_seconds (a 100 ms timer's lateness) that gained a
sample meanwhile; with the machine's load."""
import os
import re
import shutil
import sys
import tempfile
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))
sys.path.insert(0, os.path.join(here, "..", "cluster"))


def lag_buckets(node):
    """chess_event_loop_lag_seconds's cumulative buckets: {le: count}."""
    _, _, body = node.http("/metrics")
    return {float(le): int(v) for le, v in re.findall(
        r'^chess_event_loop_lag_seconds_bucket\{le="([^"]+)"\} (\d+)$',
        body.decode().replace('"+Inf"', '"inf"'), re.M)}


def worst_bucket(before, after):
    """The largest bound whose own bucket gained samples (0: none)."""
    bounds = sorted(after)
    worst = 0.0
    for i, le in enumerate(bounds):
        own_after = after[le] - (after[bounds[i - 1]] if i else 0)
        own_before = before.get(le, 0) - (before.get(bounds[i - 1], 0)
                                          if i else 0)
        if own_after > own_before:
            worst = le
    return worst


def run(harness, games):
    folder = tempfile.mkdtemp(prefix="chess-adopt-stall-")
    srv = harness.ClusterServer(nodes=3,
                                extra=["--config", write_config(folder)])
    clients = []
    try:
        def on(i, **kw):
            srv.pin(i)
            c = harness.Client(srv, **kw)
            clients.append(c)
            srv.pin(None)
            return c
        for k in range(games):
            w, b = on(0), on(1 + k % 2)
            gid = w.request({"t": "invite", "clock": harness.FISCHER_5_0,
                             "color": "white"}, "invited")["game"]
            b.send({"t": "join", "game": gid})
            for c in (w, b):
                c.expect("game_start", game=gid)
            w.move(gid, "e2e4", 0)
            b.expect("moved", game=gid, ply=1)
            b.move(gid, "e7e5", 1)
            w.expect("moved", game=gid, ply=2)
        idle = [on(1), on(2)]
        worst = [0.0, 0.0]
        stop = threading.Event()

        def ping(i):
            while not stop.is_set():
                t = time.monotonic()
                idle[i].request({"t": "ping"}, "pong")
                worst[i] = max(worst[i], time.monotonic() - t)
                time.sleep(0.05)
        lag0 = [lag_buckets(srv.nodes[i]) for i in (1, 2)]
        load = os.getloadavg()[0]
        threads = [threading.Thread(target=ping, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        t0 = time.monotonic()
        srv.nodes[0].kill()

        def adopted(i):
            return srv.nodes[i].log_text().count("event=cluster_adopted")
        while adopted(1) + adopted(2) < games and \
                time.monotonic() - t0 < 30:
            time.sleep(0.05)
        took = time.monotonic() - t0
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join()
        for k, i in enumerate((1, 2)):
            print("node %d: adopted=%d ping_max_ms=%.1f loop_lag_bucket_s=%g"
                  % (i + 1, adopted(i), worst[k] * 1000,
                     worst_bucket(lag0[k], lag_buckets(srv.nodes[i]))))
        print("games=%d all adopted %.2f s after the kill; loadavg_1m=%.2f"
              % (games, took, load))
    finally:
        harness.close_all(clients)
        srv.stop()
        shutil.rmtree(folder, ignore_errors=True)


def write_config(folder):
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        f.write('{"max_connections_per_ip": 5000, '
                '"max_invites_per_ip": 5000, "max_games_per_ip": 5000}')
    return path


def main():
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[1])
        return 2
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    os.environ["CHESS_SERVER"] = os.path.abspath(
        os.path.join(sys.argv[1], "server", "chess-server"))
    os.environ["CHESS_TEST_CLUSTER"] = "3"
    os.environ.setdefault("PG_BINDIR", "/usr/lib/postgresql/15/bin")
    from fixture import Servers
    with Servers(redis=False, postgres=True) as s:
        os.environ["CHESS_TEST_POSTGRES"] = s.dsn
        os.environ["CHESS_TEST_PSQL"] = os.path.join(s.bindir, "psql")
        import harness
        run(harness, games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
