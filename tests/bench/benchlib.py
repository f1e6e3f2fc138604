"""benchlib.py - what the Python benchmarks of tests/bench share: the
command line (BUILD_DIR, then integer arguments with defaults), the
server binary for tests/integration/harness.py (CHESS_SERVER, set before
harness is imported: it reads it once), a temporary folder, and a fresh
server in it with a config file, the machine's CPU times, and a drain of
many clients' sockets."""
import json
import os
import selectors
import shutil
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))


def args(doc, *defaults):
    """Sets CHESS_SERVER to BUILD_DIR's server (prints doc and exits 2
    without one); the integer arguments after it, defaults[i] for each
    one not given."""
    if len(sys.argv) < 2:
        print(doc.strip(), file=sys.stderr)
        sys.exit(2)
    os.environ["CHESS_SERVER"] = os.path.abspath(
        os.path.join(sys.argv[1], "server", "chess-server"))
    return [int(sys.argv[2 + i]) if len(sys.argv) > 2 + i else d
            for i, d in enumerate(defaults)]


def in_folder(prefix, fn, *a):
    """fn(folder, *a) in a new temporary folder, removed after."""
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        return fn(folder, *a)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def server(harness, folder, config):
    """A fresh chess-server on folder with config (a dict) as its
    --config file."""
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return harness.Server(datadir=folder, extra=["--config", path])


def rss_kb(pid):
    """The resident memory of process pid in kB (VmRSS)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_times():
    """The machine's CPU time and its steal so far (/proc/stat, ticks)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[7] if len(v) > 7 else 0


def drain(socks, stop, needle=None, count=None):
    """Reads what socks receive until stop is set; with needle, adds to
    count[0] how many times it occurs in what was read."""
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.05):
            try:
                data = key.fileobj.recv(65536)
            except (BlockingIOError, OSError):
                continue
            if needle:
                count[0] += data.count(needle)


def ping(client, stop, rtts):
    """Pings through client every 100 ms until stop is set, each round
    trip (ms) into rtts."""
    while not stop.is_set():
        t = time.monotonic()
        client.request({"t": "ping"}, "pong")
        rtts.append((time.monotonic() - t) * 1000)
        time.sleep(0.1)
