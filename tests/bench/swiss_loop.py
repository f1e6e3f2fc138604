#!/usr/bin/env python3
"""swiss_loop.py - a large Swiss event over the real protocol
(docs/performance.md, "Swiss pairings"):

    python3 tests/bench/swiss_loop.py BUILD_DIR [PLAYERS] [ROUNDS]   (1000 3)

PLAYERS guests join one Swiss event of ROUNDS rounds; each round, once
paired, every white resigns, and the next round is paired. Prints per
round the pairing's time on the director's worker (the server's
event=swiss_paired line) and, while the round was being paired, the
round trip of a ping sent every 20 ms by other clients: what the event
loop's latency was meanwhile (a pairing on the loop would stall every
ping by its whole time). Then kill -9 and a restart: the rounds replay
from the journal (a round of 1,000 players is more than one journal row)
with the same pairings. With the machine's load average.

A fresh chess-server on SQLite, guests allowed to create (arena_create 2),
swiss_players PLAYERS."""
import os
import re
import statistics
import sys
import threading
import time

import benchlib

PLAYERS, ROUNDS = benchlib.args(__doc__, 1000, 3)
import harness  # noqa: E402  (after benchlib.args set CHESS_SERVER)

CLOCK = {"type": "fischer", "initial_s": 600, "increment_s": 0}
CONFIG = {"arena_create": 2, "swiss_players": PLAYERS,
          "max_connections_per_ip": PLAYERS + 100,
          "max_games_per_ip": 100000, "max_invites_per_ip": 100000}


def pinger(clients, stop, out):
    """(time, round trip in ms) every 20 ms until stop is set, by each
    client in turn (one connection's message rate allows 10 a second)."""
    i = 0
    while not stop.is_set():
        t = time.monotonic()
        clients[i % len(clients)].request({"t": "ping"}, "pong")
        i += 1
        out.append((t, (time.monotonic() - t) * 1000))
        time.sleep(0.02)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else 0.0


def pairs(st):
    return sorted((b["white"], b["black"]) for b in st["pairings"])


def wait_round(w, ev, rnd):
    while True:
        st = w.expect("swiss_standings", timeout=120, event=ev)
        if st["round"] >= rnd and st["status"] != "open":
            return st


def run(folder):
    srv = benchlib.server(harness, folder, CONFIG)
    org = harness.Client(srv)
    ev = org.request({"t": "swiss_create", "name": "Big", "clock": CLOCK,
                      "rounds": ROUNDS}, "swiss_created")["swiss"]["event"]
    t0 = time.monotonic()
    ps = {}
    for _ in range(PLAYERS):
        c = harness.Client(srv)
        c.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        ps[c.pid] = c
    print("%d players joined in %.1f s" % (PLAYERS, time.monotonic() - t0))
    w = harness.Client(srv)
    pc = [harness.Client(srv) for _ in range(6)]
    w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
    rtts, stop = [], threading.Event()
    th = threading.Thread(target=pinger, args=(pc, stop, rtts))
    th.start()
    time.sleep(2)
    base = [r for _, r in rtts]
    print("idle pings: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d)" % (
        pct(base, .5), pct(base, .99), max(base), len(base)))
    seen = {}
    try:
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        for rnd in range(1, ROUNDS + 1):
            t_ask = time.monotonic()
            st = wait_round(w, ev, rnd)
            t_got = time.monotonic()
            seen[rnd] = pairs(st)
            m = re.findall(r"event=swiss_paired swiss=%s round=%d "
                           r"players=(\d+) ms=(\d+) used=1" % (ev, rnd),
                           srv.log_text())
            during = [r for t, r in rtts if t_ask <= t <= t_got]
            print("round %d: %d boards, paired in %s ms on the worker; "
                  "pings meanwhile (%d): p50 %.1f ms, p99 %.1f ms, "
                  "max %.1f ms" % (
                      rnd, len(st["pairings"]), m[-1][1] if m else "?",
                      len(during), pct(during, .5), pct(during, .99),
                      max(during) if during else 0))
            if rnd < ROUNDS:
                for b in st["pairings"]:
                    if b["black"] and b["game"]:
                        ps[b["white"]].send({"t": "resign",
                                             "game": b["game"]})
    finally:
        stop.set()
        th.join()
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]))
    srv.kill()
    srv = benchlib.server(harness, folder, CONFIG)
    w = harness.Client(srv)
    st = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
    same = st["round"] == ROUNDS and pairs(st) == seen[ROUNDS]
    print("after kill -9: round %d, the same pairings: %s" % (
        st["round"], same))
    srv.stop()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(benchlib.in_folder("swiss-loop-", run))
