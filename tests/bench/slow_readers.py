#!/usr/bin/env python3
"""slow_readers.py - what clients that stop reading cost the server's
kernel (issue 25, item 2):

    python3 tests/bench/slow_readers.py BUILD_DIR [N] [SECONDS]

Starts a fresh chess-server with 99 open seeks from 99 addresses
(lobby snapshots of some 20 KB), opens N WebSockets from 127.0.0.1
(default 200) that say hello and never read, and for SECONDS (default
10) has each send lobby_unwatch and lobby_watch pairs (each pair queues a snapshot). Prints the peak of
the kernel's TCP memory (/proc/net/sockstat's "TCP ... mem", in pages,
less what it was before), the peak of the bytes the server's sockets
hold unsent or unacknowledged (tx_queue in /proc/net/tcp), and how many
connections the server cut as slow readers."""
import os
import re
import time

import benchlib


def tcp_mem_bytes():
    with open("/proc/net/sockstat") as f:
        m = re.search(r"^TCP:.* mem (\d+)", f.read(), re.M)
    return int(m.group(1)) * os.sysconf("SC_PAGE_SIZE")


def server_tx_bytes(port):
    total = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.read().splitlines()[1:]:
                p = line.split()
                if int(p[1].rsplit(":", 1)[1], 16) == port:
                    total += int(p[4].split(":")[0], 16)
    return total


def cut_count(srv):
    text = srv.http("/metrics")[1]
    m = re.search(r'^chess_connections_cut_total\{why="slow_reader"\} (\d+)',
                  text, re.M)
    return int(m.group(1)) if m else 0


def run(folder, harness, wsclient, n, seconds):
    srv = benchlib.server(harness, folder, {
        "max_connections": n + 1000, "max_connections_per_ip": n + 1000,
        "msg_rate_per_s": 100000, "msg_burst": 100000})
    seekers, silent = [], []
    try:
        for i in range(99):  # (each from its own address: max_seeks_per_ip)
            c = harness.Client(srv, source="127.0.1.%d" % (i + 1))
            c.request({"t": "seek", "clock": {"type": "fischer",
                                               "initial_s": 300,
                                               "increment_s": 0}},
                      "seeking")
            seekers.append(c)
        time.sleep(0.5)
        mem0 = tcp_mem_bytes()
        for _ in range(n):
            ws = wsclient.WebSocket("127.0.0.1", srv.port)
            ws.send({"t": "hello"})
            silent.append(ws)
        peak_mem, peak_tx = 0, 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for ws in silent:
                try:
                    ws.send({"t": "lobby_unwatch"})
                    ws.send({"t": "lobby_watch"})
                except OSError:
                    pass  # cut
            peak_mem = max(peak_mem, tcp_mem_bytes() - mem0)
            peak_tx = max(peak_tx, server_tx_bytes(srv.port))
        print("connections=%d seconds=%d kernel_tcp_mem_peak_mb=%.1f "
              "server_tx_queue_peak_mb=%.1f cut_slow_reader=%d"
              % (n, seconds, peak_mem / 1e6, peak_tx / 1e6, cut_count(srv)))
    finally:
        for ws in silent:
            ws.sock.close()
        harness.close_all(seekers)
        srv.stop()


def main():
    n, seconds = benchlib.args(__doc__, 200, 10)
    import harness
    import wsclient
    benchlib.in_folder("chess-slow-", run, harness, wsclient, n, seconds)


if __name__ == "__main__":
    main()
