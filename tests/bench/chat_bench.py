#!/usr/bin/env python3
"""chat_bench.py - chat's two figures of issue 30 (docs/performance.md):

    python3 tests/bench/chat_bench.py BUILD_DIR [SPECTATORS] [LINES] [GAMES] [RATE] [SECONDS]

1. Fan-out: one game with SPECTATORS (default 200) watching; a spectator
   writes LINES (default 40) lines in the spectators' room, 4 a second;
   each line's delivery to every spectator is timed from its send (all
   on this machine: one clock). Prints p50, p99 and max in ms.
2. Loop cost: GAMES (default 100) games, their players writing RATE
   (default 1000) lines a second in all for SECONDS (default 10) in their
   players' rooms, while a client of 127.0.0.2 pings every 100 ms.
   Prints the lines sent and delivered, the server's CPU per line (its
   /proc/PID/stat, less an idle spell of the same length just before)
   and the pings' round trip (p50, p99), with the machine's load and
   steal.

A fresh chess-server on SQLite, its chat limits raised for the figures
(chat_per_min, chat_burst, chat_room_per_s, guests allowed)."""
import os
import selectors
import statistics
import sys
import threading
import time

import benchlib
import wsclient  # (tests/integration, on the path by benchlib)

CONFIG = {"chat_guests": 1, "chat_per_min": 6000, "chat_burst": 1000,
          "chat_room_per_s": 1000, "max_connections_per_ip": 2000,
          "max_games_per_ip": 100000, "max_invites_per_ip": 100000}


def proc_cpu(pid):
    """The process's user + system CPU, seconds."""
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def pct(q, p):
    q = sorted(q)
    return q[min(len(q) - 1, int(len(q) * p))]


def game(harness, srv):
    a, b = harness.Client(srv), harness.Client(srv)
    gid = a.request({"t": "invite", "clock": harness.FISCHER_5_0,
                     "color": "white"}, "invited")["game"]
    b.send({"t": "join", "game": gid})
    for c in (a, b):
        c.expect("state", game=gid)
    return a, b, gid


def collect(clients, want, stop, arrivals):
    """Reads the clients' messages; for each `chat` whose text is in
    want (text -> send time), the delay in ms into arrivals."""
    sel = selectors.DefaultSelector()
    for c in clients:
        c.ws.sock.settimeout(5)
        sel.register(c.ws.sock, selectors.EVENT_READ, c)
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.05):
            m = key.data.ws.recv_message()
            now = time.monotonic()
            if '"t":"chat"' in m:
                for text, t in list(want.items()):
                    if '"text":"%s"' % text in m:
                        arrivals.append((now - t) * 1000)
                        break


def fanout(harness, srv, spectators, lines):
    a, b, gid = game(harness, srv)
    watchers = []
    for _ in range(spectators):
        c = harness.Client(srv)
        c.request({"t": "watch", "game": gid}, "state")
        watchers.append(c)
    time.sleep(1.5)  # the watcher counts settle
    for c in watchers:
        c.backlog.clear()
    want, arrivals, stop = {}, [], threading.Event()
    reader = threading.Thread(target=collect,
                              args=(watchers, want, stop, arrivals))
    reader.start()
    for i in range(lines):
        text = "line %d" % i
        want[text] = time.monotonic()
        watchers[0].send({"t": "chat", "game": gid, "room": "spectator",
                          "text": text})
        time.sleep(0.25)
    deadline = time.monotonic() + 10
    while len(arrivals) < lines * spectators and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    reader.join()
    print("fanout spectators=%d lines=%d delivered=%d ms p50=%.2f p99=%.2f "
          "max=%.2f" % (spectators, lines, len(arrivals),
                        statistics.median(arrivals), pct(arrivals, 0.99),
                        max(arrivals)))
    harness.close_all(watchers + [a, b])


def loop_cost(harness, srv, games, rate, seconds):
    players = []
    for _ in range(games):
        a, b, gid = game(harness, srv)
        players += [(a, gid), (b, gid)]
    pinger = harness.Client(srv, source="127.0.0.2")
    socks = [c.ws.sock for c, _ in players]
    pid = srv.proc.pid
    c0 = proc_cpu(pid)
    time.sleep(seconds)  # the idle spell: the server's own ticks
    idle = proc_cpu(pid) - c0
    stop, got, rtts = threading.Event(), [0], []

    drainer = threading.Thread(target=benchlib.drain,
                               args=(socks, stop, b'"t":"chat"', got))
    pinger_t = threading.Thread(target=benchlib.ping,
                                args=(pinger, stop, rtts))
    drainer.start()
    pinger_t.start()
    total0, steal0 = benchlib.cpu_times()
    load0 = os.getloadavg()[0]
    c0 = proc_cpu(pid)
    sent, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        due = int((time.monotonic() - t0) * rate) - sent
        for _ in range(max(0, due)):
            c, gid = players[sent % len(players)]
            data = wsclient.frame(wsclient.OP_TEXT, (
                '{"t":"chat","game":"%s","room":"player","text":"hello %d"}'
                % (gid, sent)).encode())
            try:
                c.ws.sock.send(data)
            except (BlockingIOError, OSError):
                pass
            sent += 1
        time.sleep(0.01)
    busy = proc_cpu(pid) - c0
    time.sleep(1)
    stop.set()
    pinger_t.join()
    drainer.join()
    total1, steal1 = benchlib.cpu_times()
    took = time.monotonic() - t0
    print("loop games=%d lines=%d in %.1f s (%.0f/s) delivered=%d "
          "cpu_s=%.2f idle_cpu_s=%.2f us_per_line=%.1f ping_ms p50=%.2f "
          "p99=%.2f loadavg_1m=%.2f steal_pct=%.1f" % (
              games, sent, took, sent / took, got[0], busy, idle,
              (busy - idle) * 1e6 / max(1, sent), statistics.median(rtts),
              pct(rtts, 0.99), load0,
              100.0 * (steal1 - steal0) / max(1, total1 - total0)))
    harness.close_all([c for c, _ in players] + [pinger])


def run(folder, harness, spectators, lines, games, rate, seconds):
    srv = benchlib.server(harness, folder, CONFIG)
    try:
        fanout(harness, srv, spectators, lines)
        loop_cost(harness, srv, games, rate, seconds)
    finally:
        srv.stop()


def main():
    a = benchlib.args(__doc__, 200, 40, 100, 1000, 10)
    import harness
    benchlib.in_folder("chess-chat-bench-", run, harness, *a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
