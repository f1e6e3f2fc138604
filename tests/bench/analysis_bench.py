#!/usr/bin/env python3
"""The computer analysis's speed (docs/performance.md, "Computer
analysis"): a chess-server of its own with ENGINES engines (0: its
default, one per core) at its default analysis_nodes, a 40-move game
(80 plies of seeded random legal moves, then a resignation) played over
the protocol, its analysis asked for and timed from `analyse` to the
`analysis` that is done.

Usage: CHESS_SERVER=build/server/chess-server \\
       tests/bench/analysis_bench.py [ENGINES] [GAMES]

Prints one line per game: engines=E positions=N seconds=S
positions_per_s=R per_engine=R/E, and the machine's load and steal; and
the loop's latency for another player meanwhile: a third client's pings
(one each 100 ms) while the pool analyses, beside its pings for as long
before, with the engines idle (ping_idle_ms and ping_busy_ms: p50/p99/max).
"""
import os
import random
import json
import sys
import tempfile
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))
from harness import Client, Server  # noqa: E402
from benchlib import cpu_times, ping  # noqa: E402

CLOCK = {"type": "fischer", "initial_s": 3600, "increment_s": 0}
PLIES = 80


def game(srv, seed):
    """A finished game of PLIES random plies (another seed when one ends
    sooner); returns (white's client, gid)."""
    rng = random.Random(seed)
    w, b = Client(srv), Client(srv)
    gid = w.request({"t": "invite", "clock": CLOCK, "color": "white"},
                    "invited")["game"]
    b.send({"t": "join", "game": gid})
    legal = b.expect("state", game=gid)["legal"]
    w.expect("state", game=gid)
    for ply in range(PLIES):
        mover = (w, b)[ply % 2]
        mover.move(gid, rng.choice(legal), ply)
        m = w.expect("moved", game=gid, ply=ply + 1)
        b.expect("moved", game=gid, ply=ply + 1)
        legal = m["legal"]
        if not legal:
            return None, None
    w.send({"t": "resign", "game": gid})
    w.expect("game_end", game=gid)
    return w, gid


def pinged(client, work):
    """Runs work() while client pings; returns the round trips' p50, p99
    and maximum (ms) as text."""
    rtts, stop = [], threading.Event()
    t = threading.Thread(target=ping, args=(client, stop, rtts))
    t.start()
    try:
        work()
    finally:
        stop.set()
        t.join()
    rtts.sort()
    return "%.1f/%.1f/%.1f" % (rtts[len(rtts) // 2],
                               rtts[min(len(rtts) - 1, len(rtts) * 99 // 100)],
                               rtts[-1])


def main():
    engines = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    conf = os.path.join(tempfile.mkdtemp(prefix="chess-bench-"), "c.json")
    with open(conf, "w") as f:  # (the game's moves come at once)
        json.dump({"move_rate_per_s": 1000, "move_burst": 1000}, f)
    extra = ["--config", conf] + (["--engines", str(engines)] if engines
                                  else [])
    srv = Server(extra=extra)
    try:
        if not engines:
            engines = os.cpu_count() or 1
        seed = 1
        for _ in range(games):
            w, gid = None, None
            while not gid:
                w, gid = game(srv, seed)
                seed += 1
            other = Client(srv)
            idle = pinged(other, lambda: time.sleep(10))
            cpu0, steal0 = cpu_times()
            t0 = time.monotonic()
            w.send({"t": "analyse", "game": gid})
            box = []
            busy = pinged(other, lambda: box.append(w.expect(
                "analysis", game=gid, status="done", timeout=600)))
            a = box[0]
            s = time.monotonic() - t0
            cpu1, steal1 = cpu_times()
            n = a["total"] - sum(1 for p in a["positions"] if "checkmate" in p)
            print("engines=%d positions=%d seconds=%.2f positions_per_s=%.2f "
                  "per_engine=%.2f nodes=%d engine=%r ping_idle_ms=%s "
                  "ping_busy_ms=%s load=%s steal=%.1f%%" % (
                      engines, n, s, n / s, n / s / engines, a["nodes"],
                      a["engine"], idle, busy, os.getloadavg(),
                      100.0 * (steal1 - steal0) / max(1, cpu1 - cpu0)),
                  flush=True)
            w.close()
            other.close()
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
