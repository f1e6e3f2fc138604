#!/usr/bin/env python3
"""pair_same.py - two builds of the Dutch engine give the same pairings
(docs/performance.md, "Swiss pairings"): for a change meant to make it
faster, not different.

    python3 tests/bench/pair_same.py OLD_CLI NEW_CLI [EVENTS] [SEED]  (50 1)
    python3 tests/bench/pair_same.py OLD_CLI NEW_CLI patho [PLAYERS]  (1000)

Random events (4 to 400 players, 3 to 9 rounds, random ratings, results,
draws, forfeits and 3 % absent each round, either first colour) are
paired round after round by NEW_CLI (`chess-cli pair`); the TRF of every
round is paired by OLD_CLI too and the two answers must be the same
bytes. `patho`: the pathological event of the performance page, PLAYERS
players where white loses every game, its rounds 1 to 3 paired by both
with each one's CPU time. Exits 1 at the first difference (the TRF kept
in the temporary folder named)."""
import os
import random
import resource
import subprocess
import sys
import tempfile

POINTS = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "U": 10, "Z": 0}
OTHER = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}


def write_trf(path, ratings, games, absent, rounds, first):
    """A TRF of the players (ratings), their games [(opp, colour,
    result)], those absent from the round to pair (Z)."""
    with open(path, "w") as f:
        f.write("012 pair_same\n")
        for p in range(1, len(ratings) + 1):
            pts = sum(POINTS[r] for _, _, r in games[p])
            line = "001 %4d      %-33.33s %4d %3s %11s %10s %2d.%d %4d" % (
                p, "P%04d" % p, ratings[p - 1], "", "", "", pts // 10,
                pts % 10, p)
            for o, c, r in games[p]:
                line += "  %4d %c %c" % (o, c, r)
            if p in absent:
                line += "  0000 - Z"
            f.write(line + "\n")
        f.write("XXR %d\nXXC %s\n" % (rounds, first))


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def pair(cli, path):
    """(exit status, output, CPU seconds) of `cli pair path`."""
    t = cpu_of_children()
    out = subprocess.run([cli, "pair", path], capture_output=True, text=True)
    return out.returncode, out.stdout, cpu_of_children() - t


def play(games, out, result):
    """Adds the boards of out (chess-cli's answer) with result(rng) for
    each board's white."""
    lines = out.split("\n")
    for line in lines[1:1 + int(lines[0])]:
        w, b = map(int, line.split())
        if b == 0:
            games[w].append((0, "-", "U"))
            continue
        r = result()
        games[w].append((b, "w", r))
        games[b].append((w, "b", OTHER[r]))


def event(old, new, path, rng, n, rounds, patho):
    """Pairs one event's rounds with both: the rounds compared, or None
    at a difference."""
    ratings = [2000 - p if patho else rng.randint(1000, 2600)
               for p in range(1, n + 1)]
    first = "white1" if patho else rng.choice(["white1", "black1"])
    games = {p: [] for p in range(1, n + 1)}
    for k in range(1, rounds + 1):
        absent = set() if patho else {
            p for p in range(1, n + 1) if rng.random() < 0.03}
        write_trf(path, ratings, games, absent, rounds, first)
        a, b = pair(new, path), pair(old, path)
        if patho:
            print("round %d of %d: old %.2f s CPU, new %.2f s CPU" % (
                k, n, b[2], a[2]), flush=True)
        if a[:2] != b[:2]:
            print("DIFFERENT: round %d of %d players: %s" % (k, n, path))
            return None
        if a[0] != 0:
            return k
        for p in absent:
            games[p].append((0, "-", "Z"))
        play(games, a[1], (lambda: "0") if patho else (
            lambda: "+" if rng.random() < 0.02 else rng.choice("10=10")))
    return rounds


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = sys.argv[1], sys.argv[2]
    patho = len(sys.argv) > 3 and sys.argv[3] == "patho"
    folder = tempfile.mkdtemp(prefix="pair-same-")
    path = os.path.join(folder, "round.trf")
    if patho:
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
        return 0 if event(old, new, path, None, n, 3, True) else 1
    events = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    compared = 0
    for _ in range(events):
        n = rng.choice([rng.randint(4, 40), rng.randint(40, 200),
                        rng.randint(200, 400)])
        done = event(old, new, path, rng, n, rng.randint(3, 9), False)
        if done is None:
            return 1
        compared += done
    print("%d events, %d rounds: the same pairings" % (events, compared))
    os.unlink(path)
    os.rmdir(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
