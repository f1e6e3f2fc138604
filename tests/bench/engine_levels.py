#!/usr/bin/env python3
"""The computer's levels against each other and against Stockfish at a
fixed node count: how levels 1-3 (Skill Level 0 choosing among more
moves, MultiPV, on Debian's Stockfish 15.1, whose Skill Level stops at
0) were calibrated below level 4 (Skill Level 3, as lichess's), and that
every level beats the one below it (docs/players.md, "Playing the computer").

Each level plays with the limits of server/engine/levels.c (read from
that file: Skill Level, move time, depth, MultiPV; no clock), as the
server asks them. Each game starts from 4 random plies (seeded), then
the engines play to the end, colours alternating; the referee is the
rules core (chess-cli status: mate, stalemate, dead position) and this
script (threefold repetition, 50 moves, 300 plies: a draw).

Usage: engine_levels.py [--games N] [--pairs 1:2,2:3,...] [--refs 1:n64,...]
                        [--cli build/common/cli/chess-cli]
                        [--stockfish /usr/games/stockfish] [--seed S]

A pair L:M plays level L against level M; L:nK plays level L against
Stockfish at full strength (Skill Level 20) searching K nodes a move.
Prints each pair's result (the second's points) and the Elo difference
that score means (the second minus the first).
"""
import argparse
import math
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LEVELS_C = os.path.join(ROOT, "server", "engine", "levels.c")
ROW = re.compile(r"\{(\d+),\s*(-?\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\}")


def levels():
    """level -> (skill, movetime_ms, depth, multipv), from levels.c."""
    out = {}
    with open(LEVELS_C) as f:
        for m in ROW.finditer(f.read()):
            lv, _, skill, mt, depth, multipv = map(int, m.groups())
            out[lv] = (skill, mt, depth, multipv)
    if sorted(out) != list(range(1, 9)):
        sys.exit("engine_levels.py: no table of 8 levels in " + LEVELS_C)
    return out


class Engine:
    def __init__(self, path, skill, go):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.go_line = go
        self.say("uci")
        self.wait("uciok")
        self.say("setoption name Skill Level value %d" % skill)
        self.say("isready")
        self.wait("readyok")

    def say(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, word):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine died")
            if line.split()[:1] == [word.split()[0]]:
                return line

    def new_game(self):
        self.say("ucinewgame")
        self.say("isready")
        self.wait("readyok")

    def move(self, moves):
        self.say("position startpos" + (" moves " + " ".join(moves)
                                        if moves else ""))
        self.say(self.go_line)
        return self.wait("bestmove").split()[1]

    def fen(self, moves):
        self.say("position startpos" + (" moves " + " ".join(moves)
                                        if moves else ""))
        self.say("d")
        return self.wait("Fen:").split(" ", 1)[1].strip()

    def close(self):
        self.say("quit")
        self.p.wait(timeout=5)


SPEC = re.compile(r"^s(\d+)(?:m(\d+))?(?:n(\d+))?$")


def player(spec, table, path):
    """An Engine for "L" (a level), "nK" (full strength, K nodes) or
    "sSmMnN" (Skill Level S, MultiPV M, N nodes; a move time of 50 ms and
    depth 5, as level 1: to try a level's settings)."""
    if spec.startswith("n"):
        return Engine(path, 20, "go nodes %d" % int(spec[1:]))
    m = SPEC.match(spec)
    if m:
        e = Engine(path, int(m.group(1)), "go movetime 50 depth 5" +
                   (" nodes " + m.group(3) if m.group(3) else ""))
        if m.group(2):
            e.say("setoption name MultiPV value " + m.group(2))
        return e
    skill, mt, depth, multipv = table[int(spec)]
    e = Engine(path, skill, "go movetime %d depth %d" % (mt, depth))
    e.say("setoption name MultiPV value %d" % multipv)
    return e


class Cli:
    """chess-cli reading one FEN per line (status, moves)."""

    def __init__(self, path, what):
        self.p = subprocess.Popen([path, what], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)

    def ask(self, fen):
        self.p.stdin.write(fen + "\n")
        return self.p.stdout.readline().strip()


def play(white, black, referee, status, legal, rng):
    """One game; white's points (1, 0.5, 0)."""
    moves = []
    for e in (white, black, referee):
        e.new_game()
    for _ in range(4):
        fen = referee.fen(moves)
        options = legal.ask(fen).split()
        moves.append(rng.choice(options))
    seen = {}
    while True:
        fen = referee.fen(moves)
        st = status.ask(fen)
        side = fen.split()[1]
        if '"checkmate":true' in st:
            return 0.0 if side == "w" else 1.0
        if '"stalemate":true' in st or '"dead":true' in st:
            return 0.5
        key = " ".join(fen.split()[:4])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3 or int(fen.split()[4]) >= 100 or len(moves) >= 300:
            return 0.5
        moves.append((white if side == "w" else black).move(moves))


def elo(score):
    if score <= 0:
        return float("-inf")
    if score >= 1:
        return float("inf")
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--pairs", default="1:2,2:3,3:4,4:5,5:6")
    ap.add_argument("--refs", default="")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "common",
                                                  "cli", "chess-cli"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--seed", type=int, default=27)
    a = ap.parse_args()
    table = levels()
    rng = random.Random(a.seed)
    status, legal = Cli(a.cli, "status"), Cli(a.cli, "moves")
    referee = Engine(a.stockfish, 20, "go depth 1")
    pairs = [p.split(":") for p in (a.pairs + "," + a.refs).split(",") if p]
    print("pair        games  W-D-L of the second  its score  Elo diff  s")
    for first, second in pairs:
        t0 = time.monotonic()
        x, y = player(first, table, a.stockfish), \
            player(second, table, a.stockfish)
        w = d = l = 0
        for g in range(a.games):
            if g % 2 == 0:
                r = 1 - play(x, y, referee, status, legal, rng)
            else:
                r = play(y, x, referee, status, legal, rng)
            w += r == 1
            d += r == 0.5
            l += r == 0
        x.close()
        y.close()
        score = (w + d / 2) / a.games
        print("%-5s %-5s %5d  %6d-%d-%-6d        %5.2f  %+8.0f  %4.0f" % (
            first, second, a.games, w, d, l, score, elo(score),
            time.monotonic() - t0), flush=True)
    referee.close()


if __name__ == "__main__":
    main()
