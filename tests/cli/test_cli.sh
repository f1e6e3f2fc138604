#!/bin/sh
# The chess-cli output contract: perft (with --divide), moves and status on
# the command line and from standard input, and bad input.
# usage: test_cli.sh PATH/TO/chess-cli [TESTS/DATA]
set -u
cli=$1
data=${2:-$(dirname "$0")/../data}
fails=0 passes=0
check() { # name, expected, actual
    if [ "$2" = "$3" ]; then
        passes=$((passes + 1))
    else
        fails=$((fails + 1))
        printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"
    fi
}
start="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

check "perft last line" 8902 "$("$cli" perft "$start" 3 | tail -n 1)"
check "perft depth 0" 1 "$("$cli" perft "$start" 0)"
out=$("$cli" perft --divide "$start" 2)
check "divide lines" 21 "$(printf '%s\n' "$out" | wc -l | tr -d ' ')"
check "divide entry" "e2e4: 20" "$(printf '%s\n' "$out" | grep '^e2e4:')"
check "divide total" 400 "$(printf '%s\n' "$out" | tail -n 1)"

check "moves sorted" \
    "a2a3 a2a4 b1a3 b1c3 b2b3 b2b4 c2c3 c2c4 d2d3 d2d4 e2e3 e2e4 f2f3 f2f4 g1f3 g1h3 g2g3 g2g4 h2h3 h2h4" \
    "$("$cli" moves "$start")"
check "moves none (mate)" "" \
    "$("$cli" moves "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")"
check "status mate" \
    '{"check":true,"checkmate":true,"stalemate":false,"dead":false,"white_can_mate":false,"black_can_mate":true,"white_proof":{"kind":"game_over","why":"White cannot checkmate: the game is over on the board."},"black_proof":null}' \
    "$("$cli" status "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")"
check "status dead" \
    '{"check":false,"checkmate":false,"stalemate":false,"dead":true,"white_can_mate":false,"black_can_mate":false,"white_proof":{"kind":"material","why":"White cannot checkmate: insufficient material."},"black_proof":{"kind":"material","why":"Black cannot checkmate: insufficient material."}}' \
    "$("$cli" status "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1")"
# Locked pawns: each proof names the pawns that never move and the squares
# each side's king and pieces can reach.
ranks() { # the squares of ranks $1..$2, a1 order
    r=$1 out=
    while [ "$r" -le "$2" ]; do
        for f in a b c d e f g h; do out="$out $f$r"; done
        r=$((r + 1))
    done
    echo "${out# }"
}
locked='{"kind":"locked","why":"SIDE cannot checkmate: the pawns are locked; these never move: a4 c4 e4 g4 a5 c5 e5 g5; White'"'"'s king and pieces can only reach '"$(ranks 1 3)"'; and Black'"'"'s king and pieces can only reach '"$(ranks 6 8)"'."}'
check "status locked" \
    '{"check":false,"checkmate":false,"stalemate":false,"dead":true,"white_can_mate":false,"black_can_mate":false,"white_proof":'"$(echo "$locked" | sed s/SIDE/White/)"',"black_proof":'"$(echo "$locked" | sed s/SIDE/Black/)"'}' \
    "$("$cli" status "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1")"
# Black must take the queen: only the search proves that White cannot mate.
check "status search" \
    '{"check":true,"checkmate":false,"stalemate":false,"dead":true,"white_can_mate":false,"black_can_mate":false,"white_proof":{"kind":"search","why":"White cannot checkmate: a search of every position reachable from here (2 examined) found no checkmate by White."},"black_proof":{"kind":"material","why":"Black cannot checkmate: insufficient material."}}' \
    "$("$cli" status "8/6B1/kQ5K/8/8/8/8/8 b - - 0 40")"

# Locked pawns, but Black can take en passant (f4xe3) and promote: not dead.
check "status locked but en passant" \
    '{"check":false,"checkmate":false,"stalemate":false,"dead":false,"white_can_mate":true,"black_can_mate":true,"white_proof":null,"black_proof":null}' \
    "$("$cli" status "4k3/8/8/p1p1p3/P1P1Pp1p/1B3P1P/8/4K3 b - e3 0 1")"

# Opening names (common/openings): a position, a line, a transposition
# (D31 is written 1. d4 d5 2. c4 e6 3. Nc3), UCI moves, and none.
check "opening line" "C60 Ruy Lopez" "$("$cli" opening 1. e4 e5 2. Nf3 Nc6 3. Bb5)"
check "opening one argument" "C60 Ruy Lopez: Bulgarian Variation" "$("$cli" opening "e4 e5 Nf3 Nc6 Bb5 a5?? h3")"
check "opening transposition" "D31 Queen's Gambit Declined: Queen's Knight Variation" \
    "$("$cli" opening c4 e6 Nc3 d5 d4)"
check "opening uci" "B00 King's Pawn Game" "$("$cli" opening e2e4)"
check "opening fen" "C20 King's Pawn Game" \
    "$("$cli" opening "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")"
check "opening none" "-" "$("$cli" opening "$start")"
"$cli" opening e4 Ke7 >/dev/null 2>&1
check "opening illegal move exit" 1 "$?"

# Standard input: one answer per line, an error line for a bad FEN.
out=$(printf '%s\nnot a fen\n4k3/8/8/8/8/8/8/4K3 b - - 0 1\n' "$start" | "$cli" moves)
check "stdin lines" 3 "$(printf '%s\n' "$out" | wc -l | tr -d ' ')"
check "stdin error line" '{"error":"a FEN has six space-separated fields","fen":"not a fen"}' \
    "$(printf '%s\n' "$out" | sed -n 2p)"
check "stdin third" "e8d7 e8d8 e8e7 e8f7 e8f8" "$(printf '%s\n' "$out" | sed -n 3p)"

# Bad FEN on the command line: message on stderr, non-zero exit.
err=$("$cli" moves "8/8/8/8/8/8/8/8 w - - 0 1" 2>&1 >/dev/null); rc=$?
check "bad fen exit" 1 "$rc"
case "$err" in *"exactly one king"*) passes=$((passes + 1)) ;;
*) fails=$((fails + 1)); echo "FAIL bad fen message: $err" ;; esac
"$cli" perft "$start" x >/dev/null 2>&1
check "bad depth exit" 2 "$?"
"$cli" frobnicate >/dev/null 2>&1
check "unknown command exit" 2 "$?"

# The most legal moves a reachable position has (218); a composed one with
# more (263, 26 queens) is refused with the reason, not played.
max218="R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
check "218 moves" 218 "$("$cli" moves "$max218" | wc -w | tr -d ' ')"
check "218 perft 1" 218 "$("$cli" perft "$max218" 1)"
queens="QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1"
err=$("$cli" moves "$queens" 2>&1 >/dev/null); rc=$?
check "impossible material exit" 1 "$rc"
case "$err" in *"impossible material"*) passes=$((passes + 1)) ;;
*) fails=$((fails + 1)); echo "FAIL impossible material message: $err" ;; esac
check "impossible material stdin" \
    '{"error":"impossible material: a side has at most 16 pieces and 8 pawns, and each queen beyond 1, rook or knight beyond 2, or bishop beyond 1 per square colour needs a missing pawn","fen":"'"$queens"'"}' \
    "$(printf '%s\n' "$queens" | "$cli" status)"
# --composed takes it (a dead-position test vector with seven bishops).
check "composed moves" 263 "$("$cli" moves --composed "$queens" | wc -w | tr -d ' ')"
check "composed status dead" '"dead":true' \
    "$("$cli" status --composed "k6B/1b4B1/5B2/4B3/3B4/1pB1B3/pP1B4/K7 w - - 0 1" | grep -o '"dead":true')"
"$cli" status --composed a b >/dev/null 2>&1
check "composed extra argument exit" 2 "$?"

# pair: the -p format of JaVaFo and bbpPairings on tests/data/swiss/.
for case in bbp-2025-c5 bbp-2025-c9 round1-even round1-odd-black1 \
    round2-colours round2-transposition round2-remainder \
    round2-no-repeat-float; do
    check "pair $case" "$(cat "$data/swiss/$case.pairs")" \
        "$("$cli" pair "$data/swiss/$case.trf")"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Two players who already met: no round 2 meets C1.
line() { # number, points, opponent, colour, result
    printf '001 %4d      %-33s %4s %3s %11s %10s %4s %4s  %4d %s %s\n' \
        "$1" "Player $1" "" "" "" "" "$2" "" "$3" "$4" "$5"
}
{ line 1 1.0 2 w 1; line 2 0.0 1 b 0; echo "XXR 3"; } > "$tmp/met.trf"
err=$("$cli" pair "$tmp/met.trf" 2>&1 >/dev/null); rc=$?
check "unpairable exit" 1 "$rc"
case "$err" in *"round 2 cannot be paired"*) passes=$((passes + 1)) ;;
*) fails=$((fails + 1)); echo "FAIL unpairable message: $err" ;; esac
sed 's/ 2 w 1/ 2 x 1/' "$tmp/met.trf" > "$tmp/bad.trf"
err=$("$cli" pair "$tmp/bad.trf" 2>&1 >/dev/null); rc=$?
check "malformed exit" 2 "$rc"
check "malformed message" \
    "chess-cli: $tmp/bad.trf:1:97: round 1: colour 'x' is not w, b or -" "$err"
# Forbidden pairs (XXP, bbpPairings' record): round1-even's 1-4 is
# forbidden, and the pairing avoids it; two players forbidden to meet
# cannot be paired, and the message says the forbidden pairs did it.
{ cat "$data/swiss/round1-even.trf"; echo "XXP 1 4"; } > "$tmp/xxp.trf"
got=$("$cli" pair "$tmp/xxp.trf"); rc=$?
check "forbidden pair exit" 0 "$rc"
check "forbidden pair boards" 3 "$(printf '%s\n' "$got" | head -1)"
case "$got" in *"1 4"*|*"4 1"*|"$(cat "$data/swiss/round1-even.pairs")")
    fails=$((fails + 1)); echo "FAIL forbidden pair paired: $got" ;;
*) passes=$((passes + 1)) ;; esac
{ line 1 0.0 0 - Z; line 2 0.0 0 - Z; echo "XXR 3"; echo "XXP 1 2"; } \
    > "$tmp/xxp2.trf"
err=$("$cli" pair "$tmp/xxp2.trf" 2>&1 >/dev/null); rc=$?
check "forbidden unpairable exit" 1 "$rc"
case "$err" in *"round 2 cannot be paired: the forbidden pairs (XXP)"*)
    passes=$((passes + 1)) ;;
*) fails=$((fails + 1)); echo "FAIL forbidden unpairable message: $err" ;;
esac
{ cat "$data/swiss/round1-even.trf"; echo "XXP 1 9"; } > "$tmp/xxp3.trf"
err=$("$cli" pair "$tmp/xxp3.trf" 2>&1 >/dev/null); rc=$?
check "forbidden pair malformed exit" 2 "$rc"
check "forbidden pair malformed message" \
    "chess-cli: $tmp/xxp3.trf:9:7: XXP: player 9 is not in the file (6 players)" \
    "$err"
sed 's/XXR 3/XXR 1/' "$tmp/met.trf" > "$tmp/over.trf"
"$cli" pair "$tmp/over.trf" >/dev/null 2>&1
check "all rounds played exit" 2 "$?"
"$cli" pair "$tmp/missing.trf" >/dev/null 2>&1
check "missing file exit" 2 "$?"
"$cli" pair >/dev/null 2>&1
check "pair usage exit" 2 "$?"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
