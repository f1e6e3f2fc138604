#!/usr/bin/env python3
"""Reference values for tests/unit/test_analysis.c, computed independently
of common/analysis.c from lichess's formulas as lila states them
(github.com/lichess-org/lila: modules/tree/src/main/WinPercent.scala,
modules/analyse/src/main/AccuracyPercent.scala, modules/tree/src/main/
Advice.scala, modules/common/src/main/Maths.scala), written with lila's
list operations (sliding windows, List.fill) rather than the C code's
index arithmetic. Run: python3 tests/unit/analysis_ref.py"""
import math

CEIL = 1000


def winning_chances(cp):
    return max(-1, min(1, 2 / (1 + math.exp(-0.00368208 * cp)) - 1))


def as_cp(e):
    """Eval.forceAsCp: ('cp', n) or ('mate', n) -> a centipawn score."""
    kind, v = e
    if kind == 'cp':
        return v
    return 2**31 - 1 - v if v > 0 else -2**31 - v


def win_percent(e):
    cp = max(-CEIL, min(CEIL, as_cp(e)))
    return 50 + 50 * winning_chances(cp)


def move_accuracy(before, after):
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 *
                                       (before - after)) - 3.166924740191411
    return max(0, min(100, raw + 1))


def sliding(xs, n):
    if len(xs) <= n:
        return [xs]
    return [xs[i:i + n] for i in range(len(xs) - n + 1)]


def stdev(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def game_accuracy(evals, start_white=True):
    wins = [win_percent(('cp', 15))] + [win_percent(e) for e in evals]
    size = max(2, min(8, len(evals) // 10))
    windows = [wins[:size]] * (min(size, len(wins)) - 2) + sliding(wins, size)
    weights = [max(0.5, min(12, stdev(w))) for w in windows]
    per = {'w': [], 'b': []}
    for i, (pair, w) in enumerate(zip(sliding(wins, 2), weights)):
        white = (i % 2 == 0) == start_white
        prev, nxt = pair
        acc = move_accuracy(prev, nxt) if white else move_accuracy(nxt, prev)
        per['w' if white else 'b'].append((acc, w))
    out = []
    for c in 'wb':
        xs = per[c]
        weighted = sum(a * w for a, w in xs) / sum(w for _, w in xs)
        harmonic = len(xs) / sum(1 / max(1, a) for a, _ in xs)
        out.append((weighted + harmonic) / 2)
    return out


def judge(prev, nxt, white):
    """Advice: CpAdvice, else MateAdvice; 0 none .. 3 blunder."""
    if prev[0] == 'cp' and nxt[0] == 'cp':
        d = winning_chances(nxt[1]) - winning_chances(prev[1])
        d = -d if white else d
        for t, j in ((.3, 3), (.2, 2), (.1, 1)):
            if t <= d:
                return j
        return 0
    s = 1 if white else -1
    pm = prev[1] * s if prev[0] == 'mate' else None
    nm = nxt[1] * s if nxt[0] == 'mate' else None
    pcp = prev[1] * s if prev[0] == 'cp' else 0
    ncp = nxt[1] * s if nxt[0] == 'cp' else 0
    if pm is None and nm is not None and nm < 0:
        return 1 if pcp < -999 else 2 if pcp < -700 else 3
    if pm is not None and pm > 0 and (nm is None or nm < 0):
        return 1 if ncp > 999 else 2 if ncp > 700 else 3
    return 0


if __name__ == '__main__':
    for cp in (0, 15, 100, -250, 1000, 5000):
        print(f'win_percent cp {cp}: {win_percent(("cp", cp)):.10f}')
    print(f'win_percent mate 3: {win_percent(("mate", 3)):.10f}')
    for b, a in ((60, 60), (60, 50), (80, 20), (90, 5)):
        print(f'move_accuracy {b} {a}: {move_accuracy(b, a):.10f}')
    cases = [(('cp', 50), ('cp', -300), True), (('cp', 0), ('cp', -120), True),
             (('cp', -20), ('cp', 110), False), (('cp', 30), ('cp', -30), True),
             (('cp', 300), ('mate', -4), True), (('cp', -800), ('mate', -4), True),
             (('mate', 2), ('cp', 800), True), (('mate', -3), ('cp', 50), False),
             (('mate', 2), ('mate', 5), True),
             (('cp', 0), ('cp', -170), True), (('cp', 0), ('cp', -160), True),
             (('cp', 0), ('cp', -110), True), (('cp', 0), ('cp', -54), True),
             (('cp', 0), ('cp', -55), True)]
    for p, n, w in cases:
        print(f'judge {p} {n} {"white" if w else "black"}: {judge(p, n, w)}')
    # a game: tests/unit/test_analysis.c's GAME
    game = [('cp', v) for v in (30, 25, 40, 35, 60, -10, 20, 15, 310, 300,
                                290, 320, 350, 330, -200, -180, -190, -170,
                                -600, -610, -650, -640)] + [('mate', -2)]
    w, b = game_accuracy(game)
    print(f'game accuracy: white {w:.10f} black {b:.10f}')
    w, b = game_accuracy(game[:3], start_white=False)
    print(f'short game from black: white {w:.10f} black {b:.10f}')
