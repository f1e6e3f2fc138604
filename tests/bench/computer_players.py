#!/usr/bin/env python3
"""Keeps N games against the computer going on a running chess-server, a
thread per player: each player moves at random (seeded) as soon as it is
its turn, so the engines think all the time; a game that ends is
replaced at once. For the load of docs/performance.md ("The computer's
games"): tests/bench/loadgen_bench.sh runs it beside chess-loadgen when
BENCH_COMPUTER is set.

Usage: computer_players.py PORT GAMES LEVEL SECONDS

Prints one line: games=N level=L seconds=S computer_moves=M
computer_moves_per_s=R reply_p50_ms=... reply_p99_ms=... (a reply: from
the player's move written to the computer's `moved`), ended=K.
"""
import os
import random
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))
from wsclient import WebSocket  # noqa: E402
import json  # noqa: E402

CLOCK = {"type": "fischer", "initial_s": 600, "increment_s": 5}


class Player:
    def __init__(self, port):
        self.ws = WebSocket("127.0.0.1", port)
        self.send({"t": "hello"})
        while self.recv()["t"] != "welcome":
            pass

    def send(self, msg):
        self.ws.send(msg)

    def recv(self, timeout=30):
        self.ws.sock.settimeout(timeout)
        return json.loads(self.ws.recv_message())


def play(port, level, until, seed, out):
    rng = random.Random(seed)
    p = Player(port)
    while time.monotonic() < until:
        color = rng.choice(("white", "black"))
        p.send({"t": "computer", "level": level, "clock": CLOCK,
                "color": color})
        gid = None
        ply = legal = None
        sent_at = None
        while time.monotonic() < until:
            m = p.recv()
            if m["t"] == "error":
                out["errors"].append(m["code"])
                time.sleep(1)
                break
            if m["t"] == "game_start":
                gid = m["game"]
                continue
            if m.get("game") != gid:
                continue
            if m["t"] == "state":
                ply, legal = m["ply"], m["legal"]
                mine = m["to_move"] == color
            elif m["t"] == "moved":
                ply, legal = m["ply"], m["legal"]
                mine = (ply % 2 == 0) == (color == "white")
                if mine:  # (the computer's move)
                    out["moves"] += 1
                    if sent_at is not None:
                        out["replies"].append(time.monotonic() - sent_at)
            elif m["t"] == "game_end":
                out["ended"] += 1
                break
            else:
                continue
            if mine and legal:
                p.send({"t": "move", "game": gid, "uci": rng.choice(legal),
                        "ply": ply})
                sent_at = time.monotonic()
                legal = None
        if gid and time.monotonic() >= until:
            p.send({"t": "resign", "game": gid})
    p.ws.close()


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] * 1000 if v else 0


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    port, games, level, secs = map(int, sys.argv[1:])
    out = {"moves": 0, "replies": [], "ended": 0, "errors": []}
    until = time.monotonic() + secs
    threads = [threading.Thread(target=play,
                                args=(port, level, until, i, out))
               for i in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("games=%d level=%d seconds=%d computer_moves=%d "
          "computer_moves_per_s=%.1f reply_p50_ms=%.0f reply_p99_ms=%.0f "
          "ended=%d errors=%s" % (
              games, level, secs, out["moves"], out["moves"] / secs,
              pct(out["replies"], 0.5), pct(out["replies"], 0.99),
              out["ended"], ",".join(out["errors"]) or "none"))


if __name__ == "__main__":
    main()
