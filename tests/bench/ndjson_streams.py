#!/usr/bin/env python3
"""ndjson_streams.py - the server's memory per open NDJSON stream of the
lichess Bot and Board API, and N event streams held by one node
(issue 27):

    python3 tests/bench/ndjson_streams.py BUILD_DIR [N]

Starts a fresh chess-server, registers N/8 accounts (8 streams per
account at most: LIMIT_STREAMS_PER_ACCOUNT) with 8 tokens each, then
opens N event streams (GET /api/stream/event, default 1000), each from
its own source address among 127.0.3.x (12 per address at most:
LIMIT_STREAMS_PER_IP), and prints the server's RSS (VmRSS) before and
after and the difference per stream; then waits for every stream's
keep-alive line (7 s of silence) and prints how long the last one took
and chess_api_streams; then the server's CPU per thread over 10 s of
holding them (the tokens' re-read, a read of N tokens a second, runs
on the store's reader thread)."""
import os
import re
import socket
import sys
import time

import benchlib

PER_ACCOUNT, PER_ADDR = 8, 12


def open_stream(port, token, source):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    s.sendall(("GET /api/stream/event HTTP/1.1\r\nHost: x\r\n"
               "Authorization: Bearer %s\r\n\r\n" % token).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        got = s.recv(4096)
        if not got:
            raise RuntimeError("closed")
        head += got
    status = int(head.split()[1])
    if status != 200:
        raise RuntimeError("status %d" % status)
    return s, head.split(b"\r\n\r\n", 1)[1]


def thread_cpu(pid):
    """The CPU time (user + system, ms) of each thread of pid."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) * 1000.0 / tick
    return out


def run(folder, harness, n):
    srv = benchlib.server(harness, folder, {
        "max_connections": n + 1000, "max_connections_per_ip": n + 1000,
        "registers_per_ip_per_min": 100000})
    clients, streams, tokens = [], [], []
    try:
        for a in range((n + PER_ACCOUNT - 1) // PER_ACCOUNT):
            c = harness.Client(srv)
            clients.append(c)
            c.request({"t": "register", "username": "bench%d" % a,
                       "password": "correct horse battery"}, "registered")
            for _ in range(PER_ACCOUNT):
                tokens.append(c.request({"t": "token_create",
                                         "scopes": ["bot:play"]},
                                        "token_created")["token"])
        time.sleep(0.5)
        before = benchlib.rss_kb(srv.proc.pid)
        t0 = time.monotonic()
        for i in range(n):
            source = "127.0.3.%d" % (i // PER_ADDR + 1)
            streams.append(open_stream(srv.port, tokens[i], source))
        opened_s = time.monotonic() - t0
        time.sleep(1)
        after = benchlib.rss_kb(srv.proc.pid)
        text = srv.http("/metrics")[2].decode()
        held = int(re.search(r"^chess_api_streams (\d+)", text,
                             re.M).group(1))
        print("streams=%d opened_in_s=%.2f rss_before_kb=%d rss_after_kb=%d "
              "bytes_per_stream=%d chess_api_streams=%d"
              % (n, opened_s, before, after, (after - before) * 1024 // n,
                 held))
        # every stream's keep-alives: an empty line (a chunk
        # "1\r\n\n\r\n") at the opening, then one after 7 s of silence
        last = 0.0
        for s, rest in streams:
            while rest.count(b"1\r\n\n\r\n") < 2:
                rest += s.recv(4096)
            last = time.monotonic() - t0
        print("second_keepalive_all_received_s_after_first_open=%.2f "
              "(7 s of silence each)" % last)
        # the tokens' re-read (botapi_tokens.c): every second one read
        # of the N tokens, on the store's reader thread; the server's CPU
        # per thread over 10 s of holding them (the loop is the thread
        # whose id is the process's)
        t0, cpu0 = time.monotonic(), thread_cpu(srv.proc.pid)
        time.sleep(10)
        took, cpu1 = time.monotonic() - t0, thread_cpu(srv.proc.pid)
        busy = sorted(((cpu1[t] - cpu0.get(t, 0)) / took, t) for t in cpu1)
        print("cpu_ms_per_s holding %d streams: loop=%.1f others=%s"
              % (n, (cpu1[srv.proc.pid] - cpu0[srv.proc.pid]) / took,
                 ",".join("%.1f" % ms for ms, t in busy
                          if t != srv.proc.pid and ms > 0.05) or "0"))
    finally:
        for s, _ in streams:
            s.close()
        harness.close_all(clients)
        srv.stop()


def main():
    (n,) = benchlib.args(__doc__, 1000)
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "integration"))
    import harness
    benchlib.in_folder("chess-ndjson-", run, harness, n)


if __name__ == "__main__":
    main()
