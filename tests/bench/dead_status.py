#!/usr/bin/env python3
"""dead_status.py - `chess-cli status --composed` on every row of the
dead-position files (tests/data/dead-positions.tsv and
dead-positions-2.tsv), against their sources' verdicts.

    tests/bench/dead_status.py BUILD_DIR [TSV...]

For each file it prints the rows, the unsound verdicts ("cannot mate"
where the source found a mate: must be 0), how many of CHA's "cannot mate"
verdicts chess-cli recognises and with which kind of proof, the ones it
misses, and the time per position (the answer to each row is awaited
before the next row is sent: p50, p99, max, in ms). CHA's verdicts that
are wrong (tests/unit/test_dead.c's errata, where a helpmate is replayed)
are left out of its count and must be answered "can mate". Exits 1 when a
verdict is unsound, a CHA "cannot mate" is missed, or one comes without a
proof.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

# (FEN, side) where CHA says "cannot mate" and a mate exists
# (tests/unit/test_dead.c, cha_errata).
ERRATA = {
    ("b7/2p5/p1Pp4/p1kPp3/Pp2Pp1p/1P3PpP/2K3P1/6B1 b - e3 0 40", "black"),
}


def pct(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * q))]


def check(cli, path):
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    proc = subprocess.Popen([cli, "status", "--composed"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    unsound, missed, no_proof, errata = [], [], [], 0
    cha_total = cha_seen = 0
    kinds = {}
    times = []
    for fen, _dead, wcm, bcm, source in rows:
        t0 = time.perf_counter()
        proc.stdin.write(fen + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        times.append((time.perf_counter() - t0) * 1000)
        if "error" in answer:
            sys.exit(f"{path}: {fen}: {answer['error']}")
        cha = "D3-Chess" in source or "CHA " in source
        for side, want in (("white", wcm), ("black", bcm)):
            can = answer[f"{side}_can_mate"]
            proof = answer[f"{side}_proof"]
            if want == "1" and not can:
                unsound.append((fen, side))
            if not can and not (proof and proof.get("why")):
                no_proof.append((fen, side))
            if want != "0" or not cha:
                continue
            if (fen, side) in ERRATA:
                errata += 1
                if not can:
                    unsound.append((fen, side))
                continue
            cha_total += 1
            if can:
                missed.append((fen, side))
            else:
                cha_seen += 1
                kinds[proof["kind"]] = kinds.get(proof["kind"], 0) + 1
    proc.stdin.close()
    proc.wait()
    times.sort()
    name = os.path.basename(path)
    print(f"{name}: rows={len(rows)} unsound={len(unsound)} "
          f"cha_cannot_recognised={cha_seen}/{cha_total} "
          f"errata={errata} without_proof={len(no_proof)} proofs="
          + ",".join(f"{k}:{v}" for k, v in sorted(kinds.items())))
    print(f"{name}: ms_per_position p50={pct(times, .5):.3f} "
          f"p99={pct(times, .99):.2f} max={times[-1]:.1f} "
          f"total_s={sum(times) / 1000:.1f}")
    for fen, side in unsound[:10]:
        print(f"  unsound: {side} cannot mate: {fen}")
    for fen, side in missed[:10]:
        print(f"  missed: {side} cannot mate: {fen}")
    return not unsound and not missed and not no_proof


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = os.path.join(sys.argv[1], "common", "cli", "chess-cli")
    files = sys.argv[2:] or [os.path.join(DATA, "dead-positions.tsv"),
                             os.path.join(DATA, "dead-positions-2.tsv")]
    ok = all([check(cli, p) for p in files])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
