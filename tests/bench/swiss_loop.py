#!/usr/bin/env python3
"""swiss_loop.py - a large Swiss event over the real protocol
(docs/performance.md, "Swiss pairings"):

    python3 tests/bench/swiss_loop.py BUILD_DIR [PLAYERS] [ROUNDS] [SEED]
                                                         (1000 3 1)

PLAYERS guests join one Swiss event of ROUNDS rounds; each round, once
paired, one player of each game resigns (white or black, at random by
SEED), and the next round is paired. Prints per
round the pairing's time on the director's worker (the server's
event=swiss_paired line) and, while the round was being paired, the
round trip of a ping sent every 5 ms by other clients: what the event
loop's latency was meanwhile (a pairing on the loop would stall every
ping by its whole time), and in the 2 s after (the round journaled, its
games started, the standings pushed: the worst ping there is about the
loop's longest stall of the round's start). Then kill -9 and a restart:
the rounds replay from the journal (a round of 1,000 players is more
than one journal row) with the same pairings. Before the kill, the time
of GET /api/swiss/EID/trf (the TRF is written on the loop). With the machine's load
average and CPU steal over the run.

A fresh chess-server on SQLite, guests allowed to create (arena_create 2),
swiss_players PLAYERS."""
import calendar
import random
import re
import statistics
import sys
import threading
import time

import benchlib

PLAYERS, ROUNDS, SEED = benchlib.args(__doc__, 1000, 3, 1)
import harness  # noqa: E402  (after benchlib.args set CHESS_SERVER)

CLOCK = {"type": "fischer", "initial_s": 600, "increment_s": 0}
CONFIG = {"arena_create": 2, "swiss_players": PLAYERS,
          "max_connections_per_ip": PLAYERS + 100,
          "max_games_per_ip": 100000, "max_invites_per_ip": 100000}


def pinger(clients, stop, out):
    """(time, round trip in ms) every 5 ms until stop is set, by each
    client in turn (one connection's message rate allows 10 a second:
    30 clients, each pings about 6 times a second)."""
    i = 0
    while not stop.is_set():
        t, wall = time.monotonic(), time.time()
        clients[i % len(clients)].request({"t": "ping"}, "pong")
        i += 1
        out.append((wall, (time.monotonic() - t) * 1000))
        time.sleep(0.005)


def paired_at(log, ev, rnd):
    """The used pairing of round rnd in the server's log: (its end as
    Unix seconds, its ms on the worker, its CPU ms), or None."""
    m = re.findall(r"^(\S+)Z info event=swiss_paired swiss=%s round=%d "
                   r"players=\d+ ms=(\d+) cpu_ms=(\d+) used=1" % (ev, rnd),
                   log, re.M)
    if not m:
        return None
    end = calendar.timegm(time.strptime(m[-1][0][:19], "%Y-%m-%dT%H:%M:%S"))
    return end + float("0" + m[-1][0][19:]), int(m[-1][1]), int(m[-1][2])


def started_at(log, ev, rnd):
    """The turns of the loop that started round rnd's games and the
    longest, in ms (the server's event=swiss_round_started line), or
    None."""
    m = re.findall(r"event=swiss_round_started swiss=%s round=%d turns=(\d+) "
                   r"max_turn_us=(\d+)" % (ev, rnd), log)
    return (int(m[-1][0]), int(m[-1][1]) / 1000) if m else None


def stats(v):
    return "(%d) p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (
        len(v), pct(v, .5), pct(v, .99), max(v) if v else 0.0)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else 0.0


def pairs(st):
    return sorted((b["white"], b["black"]) for b in st["pairings"])


def wait_round(w, ev, rnd, started=False):
    """The first standings of round rnd; started: the first with every
    game of the round started (they start over a few turns of the
    loop)."""
    while True:
        st = w.expect("swiss_standings", timeout=120, event=ev)
        if st["round"] >= rnd and st["status"] != "open" and (
                not started or all(b["game"] for b in st["pairings"]
                                   if b["black"])):
            return st


def run(folder):
    srv = benchlib.server(harness, folder, CONFIG)
    try:
        return measure(folder, srv)
    except BaseException:
        srv.kill()  # (no server left running when the bench fails)
        raise


def measure(folder, srv):
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
    pc = [harness.Client(srv) for _ in range(30)]
    w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
    rtts, stop = [], threading.Event()
    th = threading.Thread(target=pinger, args=(pc, stop, rtts))
    th.start()
    time.sleep(2)
    base = [r for _, r in rtts]
    print("idle pings:", stats(base))
    seen = {}
    rng = random.Random(SEED)
    cpu0, steal0 = benchlib.cpu_times()
    try:
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        for rnd in range(1, ROUNDS + 1):
            st = wait_round(w, ev, rnd)
            seen[rnd] = pairs(st)
            time.sleep(2)  # (the pings while its games start)
            end, ms, cpu = paired_at(srv.log_text(), ev, rnd)
            pairing = [r for t, r in rtts if end - ms / 1000 <= t < end]
            after = [r for t, r in rtts if end <= t < end + 2]
            turns = started_at(srv.log_text(), ev, rnd)
            print("round %d: %d boards, paired in %d ms on the worker "
                  "(%d ms of its CPU); "
                  "pings while it paired %s; in the 2 s after (the "
                  "round journaled, its games started) %s; %s" % (
                      rnd, len(st["pairings"]), ms, cpu, stats(pairing),
                      stats(after), "started in %d turns of the loop, the "
                      "longest %.1f ms" % turns if turns else
                      "(no swiss_round_started line)"))
            if rnd < ROUNDS:
                if not all(b["game"] for b in st["pairings"] if b["black"]):
                    st = wait_round(w, ev, rnd, started=True)
                for b in st["pairings"]:
                    if b["black"] and b["game"]:
                        loser = b[rng.choice(("white", "black"))]
                        ps[loser].send({"t": "resign", "game": b["game"]})
    finally:
        stop.set()
        th.join()
    trf_ms = []
    for _ in range(5):  # (written on the loop: the event's TRF export)
        t = time.monotonic()
        status, _, body = srv.http("/api/swiss/%s/trf" % ev)
        trf_ms.append((time.monotonic() - t) * 1000)
    print("GET /api/swiss/%s/trf (%d bytes, status %d): mean %.1f ms, "
          "max %.1f ms" % (ev, len(body), status, statistics.mean(trf_ms),
                           max(trf_ms)))
    cpu1, steal1 = benchlib.cpu_times()
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]),
              "steal: %.1f%%" % (100.0 * (steal1 - steal0) /
                                 max(1, cpu1 - cpu0)))
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
