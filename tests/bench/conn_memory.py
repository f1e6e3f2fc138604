#!/usr/bin/env python3
"""conn_memory.py - the server's memory per open WebSocket, plain and
with TLS (for sizing MemoryMax in deploy/chess-server.service):

    python3 tests/bench/conn_memory.py BUILD_DIR [N]

Starts a fresh chess-server (temporary folder; for TLS a throwaway
certificate made with the openssl command), opens 200 connections as a
warm-up, then N more (default 3000), each past hello/welcome (a guest
player, no game), and prints the server's RSS (VmRSS) before and after
and the difference per connection, for each of plain and TLS."""
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def measure(harness, folder, tls, n):
    cfg = {"max_connections": n + 1000, "max_connections_per_ip": n + 1000}
    kw = {}
    if tls:
        cert, key = (os.path.join(folder, x) for x in ("cert.pem", "key.pem"))
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
             "-out", cert, "-days", "2", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=IP:127.0.0.1"],
            check=True, capture_output=True)
        cfg.update(tls_cert=cert, tls_key=key)
        kw["ssl_context"] = ssl.create_default_context(cafile=cert)
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    srv = harness.Server(datadir=folder, extra=["--config", path])
    clients = []
    try:
        clients += [harness.Client(srv, **kw) for _ in range(200)]
        time.sleep(0.5)
        before = rss_kb(srv.proc.pid)
        clients += [harness.Client(srv, **kw) for _ in range(n)]
        time.sleep(1)
        after = rss_kb(srv.proc.pid)
    finally:
        harness.close_all(clients)
        srv.stop()
    print("%s connections=%d rss_before_kb=%d rss_after_kb=%d "
          "bytes_per_connection=%d" % ("tls" if tls else "plain", n, before,
                                       after, (after - before) * 1024 // n))


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    os.environ["CHESS_SERVER"] = os.path.abspath(
        os.path.join(sys.argv[1], "server", "chess-server"))
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    import harness
    for tls in (False, True):
        folder = tempfile.mkdtemp(prefix="chess-mem-")
        try:
            measure(harness, folder, tls, n)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
