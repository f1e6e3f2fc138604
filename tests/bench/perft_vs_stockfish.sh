#!/bin/sh
# Perft speed of chess-cli against Stockfish's `go perft` (Threads 1) on the
# same positions, single-threaded, one after the other on this machine.
# usage: tests/bench/perft_vs_stockfish.sh [BUILD_DIR]
# Needs /usr/games/stockfish (Debian package stockfish).
set -eu
build=${1:-build-release}
cli="$build/common/cli/chess-cli"
sf=/usr/games/stockfish
[ -x "$cli" ] || { echo "no $cli: build first (meson setup $build --buildtype=release)" >&2; exit 2; }
[ -x "$sf" ] || { echo "no $sf: apt-get install stockfish" >&2; exit 2; }

now() { date +%s.%N; }

run() { # label fen depth
    label=$1 fen=$2 depth=$3
    t0=$(now)
    ours=$("$cli" perft "$fen" "$depth" | tail -n 1)
    t1=$(now)
    sf_out=$(printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$fen" "$depth" | "$sf" 2>/dev/null)
    t2=$(now)
    # Stockfish's start-up (NNUE load) is measured with depth 1 and taken off.
    printf 'setoption name Threads value 1\nposition fen %s\ngo perft 1\nquit\n' "$fen" | "$sf" >/dev/null 2>&1
    t3=$(now)
    theirs=$(printf '%s\n' "$sf_out" | sed -n 's/^Nodes searched: //p')
    awk -v l="$label" -v d="$depth" -v o="$ours" -v s="$theirs" \
        -v a="$t0" -v b="$t1" -v c="$t2" -v e="$t3" 'BEGIN {
        ot = b - a; st = (c - b) - (e - c); if (st <= 0) st = c - b;
        printf "%s depth=%d nodes=%s stockfish_nodes=%s ours_s=%.3f stockfish_s=%.3f ours_mnps=%.1f stockfish_mnps=%.1f speed_ratio=%.2f%s\n",
            l, d, o, s, ot, st, o / ot / 1e6, s / st / 1e6, st / ot,
            (o == s) ? "" : " MISMATCH"
    }'
}

run startpos "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" 6
run kiwipete "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" 5
