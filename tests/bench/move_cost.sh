#!/bin/sh
# move_cost.sh - the event loop's instructions per move in closed loop, a
# figure that other work on the machine does not skew.
#
#   tests/bench/move_cost.sh BUILD_DIR [GAMES] [FROM] [TO] [SEED]
#
# e.g.  meson setup build-prof --buildtype=release -Ddebug=true
#       ninja -C build-prof -j2
#       tests/bench/move_cost.sh build-prof            # 100 20 170 1
#
# chess-server runs twice under valgrind --tool=callgrind (a new database
# each time, tests/bench/bench-config.json), while chess-loadgen plays
# GAMES closed-loop game slots against it with --seed SEED and --plies
# FROM, then --plies TO: each slot plays that many moves in all (its
# choices follow from the seed, so both runs play the same games, the
# second further), then the load generator closes and the server is
# stopped. tests/bench/move_cost.py subtracts the first run's profile of
# the main thread (the loop) from the second's, function by function:
# start-up, the connections, the games' set-up and the shutdown cancel,
# and what is left is GAMES x (TO - FROM) moves (plies FROM+1 to TO of
# every slot), whose count it reads from the profiles (the calls of
# game_move_lag). It prints a line `moves=N ir_total=N ir_per_move=N`, a
# table of the instructions a move costs by group, the functions with
# the most instructions of their own and the inclusive cost of the
# functions of the move path, then both load-generator lines (errors=0
# expected). Runs of the same build agree to well under 1% (how commits
# batch the moves and how many events each epoll_wait returns vary with
# timing). A release build with -Ddebug=true has the same machine code as
# one without (compare their .text): with it the groups follow each
# instruction's source file, inlined code included, without it the
# function's object. The kernel's share of a move (the system calls that
# send and receive its frames) is not counted: callgrind sees user space
# only. MOVE_COST_KEEP=1 keeps the directory with the profiles (its name
# is printed), for callgrind_annotate.
set -eu

if [ $# -lt 1 ]; then
    sed -n '2,37p' "$0"
    exit 2
fi
build=$1
games=${2:-100}
from=${3:-20}
to=${4:-170}
seed=${5:-1}
here=$(cd "$(dirname "$0")" && pwd)
server=$build/server/chess-server
loadgen=$build/tests/bench/chess-loadgen
config=$here/bench-config.json

ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d /tmp/chess-move-cost-XXXXXX)
spid=
cleanup() {
    [ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null || true
    [ -n "$spid" ] && wait "$spid" 2>/dev/null || true
    if [ "${MOVE_COST_KEEP:-0}" = 1 ]; then
        echo "kept $dir" >&2
    else
        rm -rf "$dir"
    fi
}
trap cleanup EXIT INT TERM

# one PLIES NAME: a server under callgrind, GAMES slots of PLIES moves
# each; leaves the main thread's profile in DIR/NAME.prof and the load
# generator's line in DIR/NAME.loadgen
one() {
    run=$dir/$2
    mkdir -p "$run/db" "$run/web"
    echo '<!doctype html><title>bench</title>' > "$run/web/index.html"
    # a port below the ephemeral range, as loadgen_bench.sh
    port=$(python3 -c 'import random; print(random.randrange(20000, 32000))')
    valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$run/cg.%p" \
        "$server" --config "$config" --port "$port" \
        --db "$run/db/chess.db" --web "$run/web" > /dev/null \
        2> "$run/server.log" &
    spid=$!
    tries=0
    until python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 120 ] || ! kill -0 $spid 2>/dev/null; then
            echo "server did not start:" >&2
            cat "$run/server.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    "$loadgen" --url "ws://127.0.0.1:$port/ws" --games "$games" \
        --seed "$seed" --plies "$1" --duration-s 3600 \
        > "$dir/$2.loadgen" 2> "$run/loadgen.err" || true
    sleep 2 # the server handles the closes
    kill -TERM $spid
    wait $spid || true
    spid=
    # the main thread's profile, written at exit: DIR/cg.PID-01
    mv "$run"/cg.*-01 "$dir/$2.prof"
}

one "$from" base
one "$to" full
echo "build=$build games=$games plies=$from..$to seed=$seed" \
    "loadavg=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)"
python3 "$here/move_cost.py" --base "$dir/base.prof" "$dir/full.prof"
echo
echo "loadgen, --plies $from: $(cat "$dir/base.loadgen")"
echo "loadgen, --plies $to: $(cat "$dir/full.loadgen")"
