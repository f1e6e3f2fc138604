#!/usr/bin/env python3
"""board_bench.py - what the analysis board's HTTP routes cost the
server (PROTOCOL.md section 9, POST /api/board/fen and /api/board/pgn;
docs/performance.md):

    python3 tests/bench/board_bench.py BUILD_DIR [FENS] [PGNS]

FENS (default 2000) requests for a middlegame position's legal moves
(Kiwipete: 48 moves, each with its SAN and FEN), then PGNS (default 300)
requests of the worst PGN the body's limit allows: 4,079 bytes of knight
moves (644 plies, one line: about the most moves per byte). One client,
one request at a time on a kept-alive connection. Prints for each the
requests a second, the round trip (p50, p99) and the server's CPU per
request (its /proc/PID/stat, less an idle spell of the same length just
before), with the machine's load and steal.

A fresh chess-server on SQLite, its HTTP rate limit raised for the
figures."""
import http.client
import os
import statistics
import time

import benchlib

CONFIG = {"http_rate_per_s": 100000, "http_burst": 100000}
KIWIPETE = ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R "
            "w KQkq - 0 1")


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def long_pgn():
    text, n = "", 1
    while True:
        move = "%d. Nf3 Nf6 %d. Ng1 Ng8 " % (n, n + 1)
        if len(text) + len(move) + 1 > 4095:
            return text + "*"
        text += move
        n += 2


def measure(srv, path, body, count):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    headers = {"Content-Type": "text/plain"}
    conn.request("POST", path, body=body, headers=headers)
    r = conn.getresponse()
    size = len(r.read())
    assert r.status == 200, r.status
    rtts = []
    time.sleep(1.0)
    idle0 = proc_cpu(srv.proc.pid)
    time.sleep(1.0)
    idle = proc_cpu(srv.proc.pid) - idle0
    load = os.getloadavg()[0]
    total0, steal0 = benchlib.cpu_times()
    cpu0, t0 = proc_cpu(srv.proc.pid), time.monotonic()
    for _ in range(count):
        s = time.monotonic()
        conn.request("POST", path, body=body, headers=headers)
        r = conn.getresponse()
        r.read()
        rtts.append((time.monotonic() - s) * 1000)
    wall = time.monotonic() - t0
    cpu = proc_cpu(srv.proc.pid) - cpu0 - idle * wall
    total1, steal1 = benchlib.cpu_times()
    conn.close()
    rtts.sort()
    print("%s: %d requests of %d bytes, answers of %d bytes: %.0f a "
          "second, round trip p50 %.2f ms p99 %.2f ms, server CPU %.0f us "
          "a request (load %.1f, steal %.1f %%)" %
          (path, count, len(body), size, count / wall,
           statistics.median(rtts), rtts[int(len(rtts) * 0.99)],
           cpu / count * 1e6, load,
           100.0 * (steal1 - steal0) / max(1, total1 - total0)))


def run(folder, harness, fens, pgns):
    srv = benchlib.server(harness, folder, CONFIG)
    try:
        measure(srv, "/api/board/fen", KIWIPETE.encode(), fens)
        measure(srv, "/api/board/pgn", long_pgn().encode(), pgns)
    finally:
        srv.stop()


def main():
    a = benchlib.args(__doc__, 2000, 300)
    import harness
    benchlib.in_folder("chess-board-bench-", run, harness, *a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
