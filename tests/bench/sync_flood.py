#!/usr/bin/env python3
"""sync_flood.py - another client's pings under a flood of syncs of
games nobody has, from one address (issue 26, item 1: 4,000 a second,
each a read on the event loop, pushed another client's ping from 0.4 ms
to a 45 ms median and a 236 ms maximum):

    python3 tests/bench/sync_flood.py BUILD_DIR [RATE] [SECONDS] [PG]

Starts a fresh chess-server (on the PostgreSQL 15 of
tests/cluster/fixture.py when PG is 1, the default; on SQLite when 0),
then for SECONDS (default 10) sends RATE (default 4000) syncs a second
of random unknown games from 200 connections of 127.0.0.1 (20 a second
each: the default msg_rate_per_s), while a client of 127.0.0.2 pings
every 100 ms (within its own message budget). Prints the pings' round trip (p50, p99, max, in ms), the
syncs sent, the store reads the server made (chess_store_reads_total)
and the load and steal of the machine meanwhile. The same script runs
against any build: before issue 26 the reads were the loop's."""
import os
import random
import re
import statistics
import string
import sys
import threading
import time

import benchlib
import wsclient  # (tests/integration, on the path by benchlib)

CONNS = 200


def reads(srv):
    """The store reads of the server (0 for a build without the
    metric)."""
    _, _, body = srv.http("/metrics")
    return sum(int(float(v)) for v in re.findall(
        r'^chess_store_reads_total\{[^}]*\} (\S+)$', body.decode(), re.M))


def gid():
    return "".join(random.choice(string.ascii_letters) for _ in range(16))


def run(folder, harness, rate, seconds):
    srv = benchlib.server(harness, folder, {"max_connections_per_ip": 1000})
    clients = [harness.Client(srv) for _ in range(CONNS)]
    pinger = harness.Client(srv, source="127.0.0.2")
    socks = [c.ws.sock for c in clients]
    stop = threading.Event()
    rtts = []

    drainer = threading.Thread(target=benchlib.drain, args=(socks, stop))
    drainer.start()
    pinger_t = threading.Thread(target=benchlib.ping,
                                args=(pinger, stop, rtts))
    before = reads(srv)
    total0, steal0 = benchlib.cpu_times()
    load0 = os.getloadavg()[0]
    pinger_t.start()
    sent, t0 = 0, time.monotonic()
    tick = 0.01
    while time.monotonic() - t0 < seconds:
        due = int((time.monotonic() - t0) * rate) - sent
        for _ in range(max(0, due)):
            s = socks[sent % CONNS]
            data = wsclient.frame(wsclient.OP_TEXT, (
                '{"t":"sync","game":"%s"}' % gid()).encode())
            try:
                s.send(data)
            except (BlockingIOError, OSError):
                pass
            sent += 1
        time.sleep(tick)
    stop.set()
    pinger_t.join()
    drainer.join()
    total1, steal1 = benchlib.cpu_times()
    took = time.monotonic() - t0
    made = reads(srv) - before
    q = sorted(rtts)
    print("syncs=%d in %.1f s (%.0f/s) reads=%d ping_ms p50=%.2f p99=%.2f "
          "max=%.2f pings=%d loadavg_1m=%.2f steal_pct=%.1f" % (
              sent, took, sent / took, made, statistics.median(q),
              q[int(len(q) * 0.99) - 1], q[-1], len(q), load0,
              100.0 * (steal1 - steal0) / max(1, total1 - total0)))
    harness.close_all(clients + [pinger])
    srv.stop()


def main():
    rate, seconds, pg = benchlib.args(__doc__, 4000, 10, 1)
    if not pg:
        import harness
        benchlib.in_folder("chess-sync-flood-", run, harness, rate, seconds)
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "cluster"))
    os.environ.setdefault("PG_BINDIR", "/usr/lib/postgresql/15/bin")
    from fixture import Servers
    with Servers(redis=False, postgres=True) as s:
        os.environ["CHESS_TEST_POSTGRES"] = s.dsn
        os.environ["CHESS_TEST_PSQL"] = os.path.join(s.bindir, "psql")
        import harness
        benchlib.in_folder("chess-sync-flood-", run, harness, rate, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
