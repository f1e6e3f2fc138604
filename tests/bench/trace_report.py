#!/usr/bin/env python3
"""trace_report.py - what the command trace says about the handovers.

    tests/bench/trace_report.py FOLDER...

Each FOLDER holds the logs (n*.log) of the nodes of one run made with
`cluster_trace` on (cluster_bench.py with BENCH_KEEP=1 and
BENCH_NODE_ARGS="--cluster-trace 1"; docs/cluster.md, "Tracing a
command"). For every command about a game (named by the node and the
connection that sent it, the game, its type and its ply) it finds the
last step the nodes' logs show (the commands that came in once a node
began to stop are left out: the run is over), and prints:

- per run, the commands by their last step: `host_ran` (run by the game's
  host), `local` (run where it came in, the game hosted there),
  `edge_run_here` (run where it came in once adopted there), the
  refusals (`edge_busy`, `adopt_refused`), and any other last step, which
  is a command that went nowhere;
- the balance handovers (`handover_out` to `cluster_adopted` of the
  same game on its new host), the moves of their games that came in
  during one (or up to 0.2 s before), how each ended and the detours
  they took (`host_relay`: sent on by the old host, `host_refused`,
  `host_held`, `edge_retry`, `adopt_pending`/`adopt_start`), and a line
  for each command with no end (`I: lost: ...`).
"""
import collections
import glob
import os
import re
import sys
from datetime import datetime

LINE = re.compile(r"^(\S+) \S+ event=(\S+) (.*)$")
KV = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
DONE = {"host_ran", "local", "edge_run_here", "edge_busy", "adopt_refused"}
# the detours worth counting: sent on by the old host, refused busy,
# held, sent again by the edge, waited for an adoption
PATHS = {"host_relay", "host_refused", "host_held", "edge_retry",
         "adopt_pending", "adopt_start"}


def stamp(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def read(folder):
    """Every trace, handover and adoption line of the folder's nodes,
    in time order: (t, event, fields)."""
    out = []
    for path in glob.glob(os.path.join(folder, "n*.log")):
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.match(line)
                if not m or m.group(2) not in ("cmd_trace", "cluster_adopted",
                                               "shutdown_begin",
                                               "cluster_handed_over"):
                    continue
                kv = dict(KV.findall(m.group(3)))
                out.append((stamp(m.group(1)), m.group(2), kv))
    out.sort(key=lambda e: e[0])
    return out


def report(folder):
    events = read(folder)
    last = {}   # command key -> (t, step, fields)
    first = {}  # command key -> t
    outs = {}   # game -> t of its handover_out (in flight)
    spans = []  # (game, t_out, t_adopted)
    skip = set()
    paths = collections.defaultdict(set)  # the detours each command took
    stop = min([t for t, ev, _ in events if ev == "shutdown_begin"] or [0])
    stop = stop - 3.0 if stop else 0  # (the moves the load's end cut)
    for t, ev, kv in events:
        game = kv.get("game", "-")
        if ev == "cluster_adopted" and kv.get("handover") == "1":
            if game in outs:
                spans.append((game, outs.pop(game), t))
            continue
        if ev == "cluster_handed_over" and kv.get("why") == "balance":
            outs.setdefault(game, t)  # (older traces have no handover_out)
        if ev != "cmd_trace":
            continue
        step = kv["step"]
        if step == "handover_out" and kv.get("why") == "balance":
            outs[game] = t
            continue
        if kv.get("t", "-") in ("-", "ping"):
            continue
        if step.startswith(("host_", "relay_")):
            origin = kv["from"]
        else:
            origin = kv["node"]
        key = (origin, kv["conn"], game, kv["t"], kv["ply"], kv["id"])
        if key not in first and stop and t >= stop:
            skip.add(key)  # (the load is over: the nodes stop)
        if key in skip:
            continue
        first.setdefault(key, t)
        if step in PATHS:
            paths[key].add(step)
        prev = last.get(key)
        # (a refusal by the old host is followed by the edge's busy)
        if prev and prev[1] in DONE and step not in DONE:
            continue
        last[key] = (t, step, kv)
    by = collections.Counter(s for _, s, _ in last.values())
    print("%s: commands=%d %s" % (
        folder, len(last),
        " ".join("%s=%d" % kv for kv in sorted(by.items()))))
    lost = [(k, v) for k, v in last.items() if v[1] not in DONE]
    for k, (t, step, kv) in lost:
        print("I: lost: from=%s conn=%s game=%s t=%s ply=%s last=%s at %s" % (
            k[0], k[1], k[2], k[3], k[4], step,
            datetime.utcfromtimestamp(t).strftime("%H:%M:%S.%f")[:-3]))
    moving, via = collections.Counter(), collections.Counter()
    by_game = collections.defaultdict(list)
    for k, t in first.items():
        if k[3] == "move":
            by_game[k[2]].append((t, k))
    for game, t0, t1 in spans:
        for t, k in by_game.get(game, ()):
            if t0 - 0.2 <= t <= t1:
                moving[last[k][1]] += 1
                for p in paths.get(k, ()):
                    via[p] += 1
    print("  balance handovers=%d moves_in_flight=%d ended: %s; by way of: "
          "%s" % (len(spans), sum(moving.values()),
                  " ".join("%s=%d" % kv for kv in sorted(moving.items())),
                  " ".join("%s=%d" % kv for kv in sorted(via.items()))
                  or "-"))
    return len(lost)


def main():
    lost = sum(report(f) for f in sys.argv[1:])
    sys.exit(1 if lost else 0)


if __name__ == "__main__":
    main()
