#!/bin/sh
# loadgen_bench.sh - the load-generator measurements of the README, each
# against a fresh chess-server (new temporary database) started with
# tests/bench/bench-config.json.
#
#   tests/bench/loadgen_bench.sh BUILD_DIR SCENARIO [RUNS]
#
# SCENARIO is one of
#   idle     18,000 players in 9,000 live games, connected and silent
#   open     9,000 games, one move every 2 s per game (4,500 moves/s)
#   closed   1,000 games as fast as they can move
#   connect  connection set-up rate (connect, hello, welcome, close)
# or any other word and chess-loadgen options after --, e.g.
#   tests/bench/loadgen_bench.sh build custom 1 -- --games 10
# Prints each run's summary line, prefixed with the run number, and the
# machine's load average before the run (other work skews the figures).
# BENCH_SERVER_ARGS adds options to the server's command line, BENCH_CONFIG
# names another server config file; LOADGEN names another chess-loadgen
# binary.
set -eu

if [ $# -lt 2 ]; then
    sed -n '2,20p' "$0"
    exit 2
fi
build=$1
scenario=$2
runs=${3:-1}
shift 2
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift

here=$(cd "$(dirname "$0")" && pwd)
server=$build/server/chess-server
loadgen=${LOADGEN:-$build/tests/bench/chess-loadgen}
config=${BENCH_CONFIG:-$here/bench-config.json}

# options after -- follow the scenario's (a later option wins)
case $scenario in
idle)    set -- --mode idle --games 9000 --procs 2 --duration-s 10 "$@" ;;
open)    set -- --games 9000 --move-interval-ms 2000 --procs 2 \
                --duration-s 30 "$@" ;;
closed)  set -- --games 1000 --duration-s 15 "$@" ;;
connect) set -- --mode connect --connections 200 --duration-s 10 "$@" ;;
esac

# the server holds 18,000+ sockets; the hard limit is 20,000 here
ulimit -n "$(ulimit -Hn)"

# A port below the ephemeral range (32768-60999): the load generator's
# own sockets use those, and the server binds its port on every address.
pick_port() {
    python3 -c 'import random; print(random.randrange(20000, 32000))'
}

# start_server DIR: starts it on a free port; sets pid and port.
start_server() {
    attempt=0
    while [ $attempt -lt 10 ]; do
        attempt=$((attempt + 1))
        port=$(pick_port)
        # shellcheck disable=SC2086
        "$server" --config "$config" --port "$port" \
            --db "$1/db/chess.db" --web "$1/web" ${BENCH_SERVER_ARGS:-} \
            > /dev/null 2> "$1/server.log" &
        pid=$!
        tries=0
        while kill -0 $pid 2>/dev/null; do
            if python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null; then
                return 0
            fi
            tries=$((tries + 1))
            [ $tries -gt 500 ] && break
            sleep 0.02
        done
        kill $pid 2>/dev/null || true
        wait $pid 2>/dev/null || true
    done
    echo "server did not start:" >&2
    cat "$1/server.log" >&2
    exit 1
}

run=1
while [ "$run" -le "$runs" ]; do
    dir=$(mktemp -d /tmp/chess-bench-XXXXXX)
    mkdir -p "$dir/web"
    echo '<!doctype html><title>bench</title>' > "$dir/web/index.html"
    start_server "$dir"
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$("$loadgen" --url "ws://127.0.0.1:$port/ws" --server-pid $pid \
        --seed "$run" "$@" || true)
    echo "run=$run loadavg_before=$load $line"
    kill -TERM $pid
    wait $pid || true
    rm -rf "$dir"
    run=$((run + 1))
done
