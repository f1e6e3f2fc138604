#!/bin/sh
# Every count of tests/data/perft.epd, all depths (the unit test stops at
# 20M nodes per count). usage: tests/bench/perft_deep.sh [BUILD_DIR]
set -eu
build=${1:-build-release}
cli="$build/common/cli/chess-cli"
data="$(dirname "$0")/../data/perft.epd"
# One "FEN<TAB>DEPTH<TAB>COUNT" line per count.
awk -F ' ;' '{ for (i = 2; i <= NF; i++) { split($i, p, " ");
    printf "%s\t%s\t%s\n", $1, substr(p[1], 2), p[2] } }' "$data" |
{
    fail=0 n=0
    while IFS="$(printf '\t')" read -r fen depth want; do
        got=$("$cli" perft "$fen" "$depth" | tail -n 1)
        n=$((n + 1))
        if [ "$got" != "$want" ]; then
            echo "MISMATCH $fen depth $depth: got $got want $want"
            fail=1
        fi
    done
    echo "perft counts checked: $n, mismatches: $fail"
    exit $fail
}
