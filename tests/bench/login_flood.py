#!/usr/bin/env python3
"""login_flood.py - a real user's logins under a flood of logins with
made-up usernames (issue 25, item 5):

    python3 tests/bench/login_flood.py BUILD_DIR [ADDRESSES] [SECONDS]

Starts a fresh chess-server, registers real_user from 127.0.0.1, then
for SECONDS (default 20) has each of ADDRESSES connections (default 120,
from 127.0.0.2 on) send logins with made-up usernames, four at a time,
the next four when those are answered. Meanwhile, once a second, real_user logs in on
a new connection from its own address (127.0.0.1, "home") and from one
it never used (127.0.0.250, "away"). Prints the flood's answers by code
and, for each of home and away, how many logins were answered welcome
and their time from send to answer (p50, max). logins_per_user_per_min
is raised to 1000 so that real_user's own name bucket is not what is
measured; every other setting is the default."""
import json
import threading
import time

import benchlib
import wsclient  # (tests/integration, on the path by benchlib)

PASSWORD = "correct horse"
PIPELINE = 4  # logins a flood connection sends before reading answers


def flooder(harness, srv, source, stop, codes, lock):
    """Logins with made-up names from source, PIPELINE at a time."""
    c, n = None, 0
    while not stop.is_set():
        got = []
        try:
            if c is None:
                c = harness.Client(srv, hello=False, source=source)
            for _ in range(PIPELINE):
                n += 1
                c.send({"t": "login", "password": PASSWORD,
                        "username": "made_up_%s_%d" % (
                            source.rsplit(".", 1)[1], n)})
            for _ in range(PIPELINE):
                got.append(c.expect("error", timeout=60)["code"])
        except (OSError, AssertionError, ValueError, wsclient.Closed):
            got.append("closed")
            c = None
        with lock:
            for code in got:
                codes[code] = codes.get(code, 0) + 1


def real_logins(harness, srv, source, stop, out):
    while not stop.is_set():
        start = time.monotonic()
        try:
            c = harness.Client(srv, hello=False, source=source)
            c.send({"t": "login", "username": "real_user",
                    "password": PASSWORD})
            while True:
                m = c.next(timeout=60)
                if m["t"] in ("welcome", "error"):
                    break
            out.append((m["t"] if m["t"] == "welcome" else m["code"],
                        time.monotonic() - start))
            c.close()
        except (OSError, AssertionError, ValueError, wsclient.Closed):
            out.append(("closed", time.monotonic() - start))
        stop.wait(max(0.0, 1.0 - (time.monotonic() - start)))


def summary(name, out):
    ok = sorted(t for code, t in out if code == "welcome")
    other = {}
    for code, _ in out:
        if code != "welcome":
            other[code] = other.get(code, 0) + 1
    p50 = ok[len(ok) // 2] * 1000 if ok else float("nan")
    worst = ok[-1] * 1000 if ok else float("nan")
    return ("%s_logins=%d %s_welcome=%d %s_p50_ms=%.0f %s_max_ms=%.0f "
            "%s_other=%s" % (name, len(out), name, len(ok), name, p50, name,
                             worst, name, json.dumps(other, sort_keys=True)
                             .replace(" ", "")))


def run(folder, harness, addresses, seconds):
    srv = benchlib.server(harness, folder, {"logins_per_user_per_min": 1000})
    try:
        c = harness.Client(srv)
        c.request({"t": "register", "username": "real_user",
                   "password": PASSWORD}, "registered")
        c.close()
        stop, lock, codes = threading.Event(), threading.Lock(), {}
        home, away = [], []
        threads = [threading.Thread(target=flooder, args=(
            harness, srv, "127.0.0.%d" % (2 + i), stop, codes, lock))
            for i in range(addresses)]
        threads += [threading.Thread(target=real_logins, args=(
            harness, srv, src, stop, out))
            for src, out in (("127.0.0.1", home), ("127.0.0.250", away))]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        print("addresses=%d seconds=%d flood_answers=%d flood=%s %s %s" % (
            addresses, seconds, sum(codes.values()),
            json.dumps(codes, sort_keys=True).replace(" ", ""),
            summary("home", home), summary("away", away)))
    finally:
        srv.stop()


def main():
    addresses, seconds = benchlib.args(__doc__, 120, 20)
    import harness
    benchlib.in_folder("chess-logins-", run, harness, addresses, seconds)


if __name__ == "__main__":
    main()
