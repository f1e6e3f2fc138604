#!/usr/bin/env python3
"""failover.py - how long a game waits when its host dies or stops, on a
cluster of three nodes (PostgreSQL 15 and Redis 7 of
tests/cluster/fixture.py, the nodes of harness.ClusterServer):

    python3 tests/bench/failover.py BUILD_DIR [TRIALS]

Each trial starts a game with white on the host (node 1) and black on
node 2, past both first moves; then kills the host (kill -9) or stops it
(SIGTERM), white reconnects through node 3 with its token, and black
plays a move at once. The time from the signal to black's `moved` is
what a player waits: for kill -9 the lease (3 s, at a renewal a second)
plus the adoption (the epoch's commit, the journal's read, the restore);
for SIGTERM the handover. Also checks what the issue asks of every
trial: every acknowledged move is there, and the clocks are as at the
signal (the side to move lost at most the time since the host was last
seen alive, never the outage). Prints one line per trial and the
median and maximum per kind (TRIALS of each, default 5)."""
import os
import signal
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))
sys.path.insert(0, os.path.join(here, "..", "cluster"))


def trial(harness, kind):
    srv = harness.ClusterServer(nodes=3)
    clients = []
    try:
        def on(i, **kw):
            srv.pin(i)
            c = harness.Client(srv, **kw)
            clients.append(c)
            srv.pin(None)
            return c
        w, b = on(0), on(1)
        gid = w.request({"t": "invite", "clock": harness.FISCHER_5_0,
                         "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        w.expect("moved", game=gid, ply=2)
        w.move(gid, "g1f3", 2)
        before = b.expect("moved", game=gid, ply=3)["clocks"]
        t0 = time.monotonic()
        if kind == "kill":
            srv.nodes[0].kill()
        else:
            srv.nodes[0].proc.send_signal(signal.SIGTERM)
        w.close()
        w2 = on(2, token=w.token)
        b.move(gid, "b8c6", 3)
        deadline = time.monotonic() + 15
        while True:
            m = b.expect_any(deadline)
            if m.get("t") == "moved" and m.get("ply") == 4:
                break
            if m.get("t") == "error" and m.get("code") == "rate_limited":
                b.move(gid, "b8c6", 3)  # busy while it moved: again
        waited = time.monotonic() - t0
        st = w2.request({"t": "sync", "game": gid}, "state")
        assert st["moves"] == ["e2e4", "e7e5", "g1f3", "b8c6"], st["moves"]
        lost = before["black_ms"] - m["clocks"]["black_ms"]
        assert m["clocks"]["white_ms"] == before["white_ms"], m["clocks"]
        assert 0 <= lost < 1500, (before, m["clocks"])
        return waited, lost
    finally:
        harness.close_all(clients)
        srv.stop()


def main():
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[1])
        return 2
    build = sys.argv[1]
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    os.environ["CHESS_SERVER"] = os.path.abspath(
        os.path.join(build, "server", "chess-server"))
    os.environ["CHESS_TEST_CLUSTER"] = "3"
    os.environ.setdefault("PG_BINDIR", "/usr/lib/postgresql/15/bin")
    from fixture import Servers
    with Servers(redis=False, postgres=True) as s:
        os.environ["CHESS_TEST_POSTGRES"] = s.dsn
        os.environ["CHESS_TEST_PSQL"] = os.path.join(s.bindir, "psql")
        import harness
        for kind in ("kill", "sigterm"):
            waits = []
            for i in range(trials):
                waited, lost = trial(harness, kind)
                waits.append(waited)
                print("%-7s trial %d: black's move answered %.3f s after "
                      "the signal; black's clock lost %d ms (its thinking "
                      "until the host was last seen)"
                      % (kind, i + 1, waited, lost), flush=True)
            print("%-7s median %.3f s, max %.3f s over %d trials"
                  % (kind, statistics.median(waits), max(waits), trials),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
