#!/usr/bin/env python3
"""arena_watchers.py - what WATCHERS of one arena's standings cost the
server (issue 31, docs/performance.md):

    python3 tests/bench/arena_watchers.py BUILD_DIR [WATCHERS] [PLAYERS] [SECONDS] [PAGE]

A fresh chess-server on SQLite runs one arena of PLAYERS (default 40)
guests who play one-move games (White plays e2e4, Black resigns), so the
standings change all the time and are pushed at most once a second.
For SECONDS (default 10) with no watcher, then for SECONDS with
WATCHERS (default 5000) connections watching (`arena_watch` of the
standings' page PAGE, default 1: 10 players; 0 for no page, the best
200 players with their sheets), it counts
the server's CPU (/proc/PID/stat), the standings pushes each watcher
received and their bytes, and the round trip of a ping client's pings
every 100 ms from another process (p50, p99: what the pushes cost
everyone else's latency),
with the machine's load and steal."""
import json
import multiprocessing
import os
import resource
import statistics
import sys
import threading
import time

import benchlib

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def player(c, event, stop, games):
    """Plays the event's games until stop: White e2e4, Black resigns."""
    while not stop.is_set():
        try:
            gid = c.expect("arena_game", timeout=5, event=event)["game"]
        except Exception:  # noqa: BLE001 (no pairing this time: go on)
            continue
        start = c.expect("game_start", game=gid)
        c.expect("state", game=gid)
        if start["white"]["id"] == c.pid:
            c.move(gid, "e2e4", 0)
        else:
            c.expect("moved", game=gid, ply=1)
            c.send({"t": "resign", "game": gid})
        c.expect("game_end", game=gid, timeout=30)
        games[0] += 1


def pings(port, seconds, out):
    """In a process of its own (the watchers' reading holds this one's
    GIL): a client's ping round trips (ms) every 100 ms for seconds."""
    import harness
    rtts = []
    end = time.monotonic() + seconds
    try:
        t = time.monotonic()
        c = harness.Client(type("S", (), {"port": port})())
        rtts.append((time.monotonic() - t) * 1000)  # the connect's too
        while time.monotonic() < end:
            t = time.monotonic()
            c.request({"t": "ping"}, "pong")
            rtts.append((time.monotonic() - t) * 1000)
            time.sleep(0.1)
    finally:
        out.send(rtts or [float("inf")])


def spell(srv, seconds, socks):
    """CPU, pushes per watcher of one spell, with another process's
    pings."""
    stop = threading.Event()
    count = [0]
    rx, tx = multiprocessing.Pipe(duplex=False)
    pinger = multiprocessing.Process(target=pings,
                                     args=(srv.port, seconds, tx))
    drains = []
    per = max(1, len(socks) // 4) if socks else 1
    for k in range(0, len(socks), per):
        t = threading.Thread(target=benchlib.drain,
                             args=(socks[k:k + per], stop,
                                   b'"arena_standings"', count))
        drains.append(t)
    m0, s0 = benchlib.cpu_times()
    c0 = proc_cpu(srv.proc.pid)
    for t in [pinger] + drains:
        t.start()
    rtts = rx.recv()
    stop.set()
    for t in [pinger] + drains:
        t.join()
    cpu = proc_cpu(srv.proc.pid) - c0
    m1, s1 = benchlib.cpu_times()
    q = sorted(rtts)
    return {"cpu_s": cpu, "pushes_per_watcher":
            count[0] / len(socks) if socks else 0,
            "ping_p50_ms": statistics.median(q),
            "ping_p99_ms": q[min(len(q) - 1, int(len(q) * 0.99))],
            "load": os.getloadavg()[0],
            "steal_pct": 100.0 * (s1 - s0) / max(1, m1 - m0)}


def run(folder, harness, watchers, players, seconds, page):
    srv = benchlib.server(harness, folder, {
        "arena_create": 2, "max_connections": watchers + players + 100,
        "max_connections_per_ip": watchers + players + 100})
    clients = []
    stop = threading.Event()
    try:
        org = harness.Client(srv)
        clients.append(org)
        event = org.request({"t": "arena_create", "name": "Bench",
                             "clock": CLOCK, "duration_s": 3600,
                             "start_in_s": 0}, "arena_created")["arena"]["event"]
        ps = [harness.Client(srv) for _ in range(players)]
        clients += ps
        games = [0]
        for c in ps:
            c.request({"t": "arena_join", "event": event}, "arena_joined")
        threads = [threading.Thread(target=player, args=(c, event, stop,
                                                          games))
                   for c in ps]
        for t in threads:
            t.start()
        time.sleep(2)
        g0 = games[0]
        quiet = spell(srv, seconds, [])
        quiet["games"] = games[0] - g0
        ws = [harness.Client(srv) for _ in range(watchers)]
        clients += ws
        watch = {"t": "arena_watch", "event": event}
        if page:
            watch["page"] = page
        size = len(json.dumps(ws[0].request(watch, "arena_standings")))
        for w in ws[1:]:  # (no answer awaited: drained from here on)
            w.send(watch)
        spell(srv, 3, [w.ws.sock for w in ws])  # what the watch queued
        g0 = games[0]
        busy = spell(srv, seconds, [w.ws.sock for w in ws])
        busy["games"] = games[0] - g0
        pushes = busy["pushes_per_watcher"] * watchers
        extra = busy["cpu_s"] - quiet["cpu_s"]
        print("no watchers: %s" % quiet)
        print("%d watchers: %s" % (watchers, busy))
        print("standings of about %d bytes; pushes delivered: %d; extra "
              "server CPU %.3f s, %.1f us per delivered push" %
              (size, pushes, extra, 1e6 * extra / pushes if pushes else 0))
    finally:
        stop.set()
        harness.close_all(clients)
        srv.stop()


def main():
    watchers, players, seconds, page = benchlib.args(__doc__, 5000, 40, 10,
                                                     1)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    import harness
    benchlib.in_folder("chess-aw-", run, harness, watchers, players, seconds,
                       page)


if __name__ == "__main__":
    main()
