#!/usr/bin/env python3
"""lobbychat_bench.py - the lobby chat room's cost (issue 30, item 1;
docs/performance.md):

    python3 tests/bench/lobbychat_bench.py BUILD_DIR [WATCHERS] [LINES] [RATE]

WATCHERS (default 1000) connections watch the lobby of a fresh
chess-server on SQLite with lobby_chat on; one of them writes LINES
(default 200) lines in the lobby's room, RATE (default 5: the default
chat_room_per_s) a second. Each line's delivery to every watcher is timed
from its send (one machine: one clock). Prints the deliveries, their
p50, p99 and max in ms, and the server's CPU per line and per delivery
(its /proc/PID/stat, less an idle spell of the same length just before),
with the machine's load and steal. The writer's own limits are raised
for the figure (chat_per_min, chat_burst; guests may write)."""
import os
import statistics
import sys
import threading
import time

import benchlib
from chat_bench import collect, pct, proc_cpu

CONFIG = {"lobby_chat": 1, "chat_guests": 1, "chat_per_min": 6000,
          "chat_burst": 1000, "max_connections_per_ip": 5000}


def run(folder, harness, watchers, lines, rate):
    srv = benchlib.server(harness, folder, dict(CONFIG,
                                                chat_room_per_s=rate))
    clients = []
    try:
        for _ in range(watchers):
            c = harness.Client(srv)
            c.send({"t": "lobby_watch"})
            c.expect("lobby")
            clients.append(c)
        time.sleep(1.5)  # every history in
        for c in clients:
            c.backlog.clear()
        pid = srv.proc.pid
        spell = lines / rate
        c0 = proc_cpu(pid)
        time.sleep(spell)  # the idle spell: the server's own ticks
        idle = proc_cpu(pid) - c0
        want, arrivals, stop = {}, [], threading.Event()
        reader = threading.Thread(target=collect,
                                  args=(clients, want, stop, arrivals))
        reader.start()
        total0, steal0 = benchlib.cpu_times()
        load0 = os.getloadavg()[0]
        c0 = proc_cpu(pid)
        for i in range(lines):
            text = "line %d" % i
            want[text] = time.monotonic()
            clients[0].send({"t": "chat", "room": "lobby", "text": text})
            time.sleep(1.0 / rate)
        busy = proc_cpu(pid) - c0
        deadline = time.monotonic() + 10
        while (len(arrivals) < lines * watchers and
               time.monotonic() < deadline):
            time.sleep(0.05)
        stop.set()
        reader.join()
        total1, steal1 = benchlib.cpu_times()
        print("lobby watchers=%d lines=%d delivered=%d ms p50=%.2f "
              "p99=%.2f max=%.2f cpu_s=%.2f idle_cpu_s=%.2f "
              "us_per_line=%.0f us_per_delivery=%.2f loadavg_1m=%.2f "
              "steal_pct=%.1f" % (
                  watchers, lines, len(arrivals),
                  statistics.median(arrivals), pct(arrivals, 0.99),
                  max(arrivals), busy, idle,
                  (busy - idle) * 1e6 / lines,
                  (busy - idle) * 1e6 / max(1, lines * watchers), load0,
                  100.0 * (steal1 - steal0) / max(1, total1 - total0)))
    finally:
        harness.close_all(clients)
        srv.stop()


def main():
    a = benchlib.args(__doc__, 1000, 200, 5)
    import harness
    benchlib.in_folder("chess-lobbychat-bench-", run, harness, *a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
