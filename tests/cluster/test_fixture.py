#!/usr/bin/env python3
"""test_fixture.py - fixture.py itself: both servers answer (psql over
libpq, Redis over its socket), and both are stopped and the folder
removed when the test body fails, when the test process gets SIGTERM
(meson's timeout), and, by the kernel, when it is killed with SIGKILL."""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fixture import Servers  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures += 1


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead too (its parent, the child below, may be gone)
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def gone_within(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


# A child process holds the servers: prints the pids and the folder,
# then fails, waits for a signal, or finishes.
CHILD = r"""
import sys, time
sys.path.insert(0, %r)
from fixture import Servers
with Servers() as s:
    print(" ".join(map(str, s.pids())), s.dir, flush=True)
    if sys.argv[1] == "fail":
        raise RuntimeError("the test body failed")
    time.sleep(60)
"""


def child(mode):
    p = subprocess.Popen([sys.executable, "-c", CHILD % HERE, mode],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stdout.readline().split()
    if len(line) != 3:
        p.kill()
        raise SystemExit("child: " + p.stderr.read())
    return p, [int(line[0]), int(line[1])], line[2]


def main():
    with Servers() as s:
        check(s.psql("SHOW server_version_num").startswith("15"),
              "PostgreSQL 15 answers psql (libpq)")
        check(s.psql("SELECT current_database()") == "chess",
              "the database chess exists")
        check(s.redis_command("PING") == "PONG", "redis-server answers")
        check(s.redis_command("CONFIG", "GET", "save") is not None,
              "redis-server takes commands")
        check(s.redis_command("SET", "k", "v") == "OK" and
              s.redis_command("GET", "k") == "v", "redis-server keeps data")
        try:
            s.psql("SELECT * FROM missing")
            check(False, "a failing statement raises")
        except RuntimeError as e:
            check("missing" in str(e), "a failing statement raises")
        if os.geteuid() == 0:
            owner = subprocess.run(["ps", "-o", "user=", "-p",
                                    str(s.pg_proc.pid)],
                                   capture_output=True,
                                   text=True).stdout.strip()
            check(owner == "nobody", "as root, postgres runs as nobody")
        pids, folder = s.pids(), s.dir
    check(gone_within(pids, 1), "both stopped after the with block")
    check(not os.path.exists(folder), "the folder removed")

    p, pids, folder = child("fail")
    err = p.communicate()[1]
    check(p.returncode != 0 and "the test body failed" in err,
          "a failing body fails the test")
    check(gone_within(pids, 1), "a failing body still stops both")
    check(not os.path.exists(folder), "and removes the folder")

    p, pids, folder = child("wait")
    p.send_signal(signal.SIGTERM)
    p.communicate()
    check(p.returncode != 0, "SIGTERM ends the test")
    check(gone_within(pids, 1), "SIGTERM stops both")
    check(not os.path.exists(folder), "SIGTERM removes the folder")

    p, pids, folder = child("wait")
    p.kill()
    p.communicate()
    check(gone_within(pids, 20), "SIGKILL of the test: the kernel stops both")
    subprocess.run(["rm", "-rf", folder])

    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
