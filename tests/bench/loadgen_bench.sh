#!/bin/sh
# loadgen_bench.sh - the load-generator measurements of
# docs/performance.md, each against a fresh chess-server (new temporary
# database) started with tests/bench/bench-config.json.
#
#   tests/bench/loadgen_bench.sh BUILD_DIR SCENARIO [RUNS]
#
# SCENARIO is one of
#   idle     18,000 players in 9,000 live games, connected and silent
#   open     9,000 games, one move every 2 s per game (4,500 moves/s)
#   closed   1,000 games as fast as they can move; then, in the same run,
#            tests/bench's echo_server over as many connections for as
#            long (chess-loadgen --mode echo), and the ratio of moves a
#            second to echo round trips a second (echo_ratio) and of the
#            two loop threads' CPU time per operation (loop_cost_ratio:
#            echo's per round trip over chess-server's per move); then
#            the same with echo_server --relay (--mode relay: a game's
#            frames, one in and two out, without the game: relay_ratio
#            and its loop_cost_ratio, the share of a move's loop time
#            that is lws and the kernel)
#   connect  connection set-up rate (connect, hello, welcome, close)
# or any other word and chess-loadgen options after --, e.g.
#   tests/bench/loadgen_bench.sh build custom 1 -- --games 10
# Prints each run's summary line, prefixed with the run number, and the
# machine's load average before the run (other work skews the figures).
# Play lines carry the server's journal commit latency over the window
# (commit_p50_us, commit_p99_us, commit_p999_us from /metrics).
# BENCH_SERVER_ARGS adds options to the server's command line, BENCH_CONFIG
# names another server config file; LOADGEN names another chess-loadgen
# binary. BENCH_PERF=FILE records a perf profile of the server (8 s from
# 3 s in, call graphs) into FILE.RUN (the echo server's into
# FILE.RUN.echo); read the loop thread's with
#   perf report -i FILE.1 --tid PID --no-children --sort dso,sym
# (PID: perf report -i FILE.1 --sort pid shows it; it is the first).
# BENCH_TMP=DIR puts each run's server folder (its database) in DIR
# instead of /tmp: /dev/shm takes the disk out of the latencies.
# BENCH_COMPUTER="GAMES LEVEL" keeps that many games against the computer
# at that level going beside the load (tests/bench/computer_players.py,
# from 3 s before the load generator to its end), and prints their line.
# BENCH_DISK_BPS=N (root, cgroup v1 blkio) models a slower disk: every
# write to the block device under /tmp is throttled to N bytes a second
# for the whole machine while the script runs (blkio.throttle.
# write_bps_device of the root cgroup; put back to unlimited at exit).
set -eu

if [ $# -lt 2 ]; then
    sed -n '2,35p' "$0"
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
echo_server=$build/tests/bench/echo_server
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

# field NAME LINE: the value of NAME=... in a summary line.
field() {
    echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# echo_run CHESS_LINE MODE [ECHO_SERVER_ARGS]: echo_server over as many
# connections as the chess run had, for as long, driven by chess-loadgen
# --mode MODE (echo or relay); prints its line and the two ratios.
echo_run() {
    conns=$(field connections "$1")
    secs=$(field duration_s "$1" | awk '{ printf "%.0f", $1 }')
    mode=$2
    shift 2
    attempt=0
    while :; do
        attempt=$((attempt + 1))
        eport=$(pick_port)
        "$echo_server" --port "$eport" "$@" 2> /dev/null &
        epid=$!
        sleep 0.2
        kill -0 $epid 2>/dev/null && break
        wait $epid 2>/dev/null || true
        if [ $attempt -ge 10 ]; then
            echo "echo_server did not start" >&2
            return
        fi
    done
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ -n "${BENCH_PERF:-}" ]; then
        (sleep 3; perf record -q -F 999 --call-graph dwarf,16384 \
            -p $epid -o "$BENCH_PERF.$run.$mode" -- sleep 8 \
            > /dev/null 2>&1) &
        perf_job=$!
    fi
    eline=$("$loadgen" --url "ws://127.0.0.1:$eport/ws" --server-pid $epid \
        --mode "$mode" --connections "${conns:-2000}" \
        --duration-s "${secs:-15}" || true)
    [ -n "${BENCH_PERF:-}" ] && wait $perf_job
    kill -TERM $epid
    wait $epid || true
    ratio=$(awk -v m="$(field moves_per_s "$CHESS_LINE")" \
        -v e="$(field echoes_per_s "$eline")" \
        'BEGIN { if (e > 0) printf "%.3f", m / e; else print "na" }')
    # the same comparison by the loop thread's CPU time per operation,
    # which other work on the machine skews far less than the rates
    cost=$(awk -v m="$(field server_loop_us_per_op "$CHESS_LINE")" \
        -v e="$(field server_loop_us_per_op "$eline")" \
        'BEGIN { if (m > 0) printf "%.3f", e / m; else print "na" }')
    echo "run=$run loadavg_before=$load ${mode}_ratio=$ratio" \
        "loop_cost_ratio=$cost $eline"
}

if [ -n "${BENCH_DISK_BPS:-}" ]; then
    throttle=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
    if [ ! -w "$throttle" ]; then
        echo "BENCH_DISK_BPS needs root and cgroup v1's $throttle" >&2
        exit 2
    fi
    # the whole disk of /tmp's file system (vda1 -> vda)
    disk=$(lsblk -no PKNAME "$(df --output=source /tmp | tail -1)" \
        2>/dev/null || true)
    [ -n "$disk" ] || disk=$(basename "$(df --output=source /tmp | tail -1)")
    dev=$(cat "/sys/class/block/$disk/dev")
    echo "$dev $BENCH_DISK_BPS" > "$throttle"
    trap 'echo "$dev 0" > "$throttle"' EXIT INT TERM
    echo "disk $disk ($dev) writes throttled to $BENCH_DISK_BPS bytes/s"
fi

run=1
while [ "$run" -le "$runs" ]; do
    dir=$(mktemp -d "${BENCH_TMP:-/tmp}/chess-bench-XXXXXX")
    mkdir -p "$dir/web"
    echo '<!doctype html><title>bench</title>' > "$dir/web/index.html"
    start_server "$dir"
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ -n "${BENCH_PERF:-}" ]; then
        # the server's threads, sampled with call graphs from 3 s in
        # for 8 s (past the ramp); the loop thread's id is the pid
        (sleep 3; perf record -q -F 999 --call-graph dwarf,16384 \
            -p $pid -o "$BENCH_PERF.$run" -- sleep 8 > /dev/null 2>&1) &
        perf_job=$!
    fi
    if [ -n "${BENCH_COMPUTER:-}" ]; then
        secs=$(echo "$@" | tr ' ' '\n' | sed -n '/--duration-s/{n;p}' | tail -1)
        # shellcheck disable=SC2086
        python3 "$here/computer_players.py" "$port" $BENCH_COMPUTER \
            $((${secs:-30} + 4)) > "$dir/computer.txt" &
        computer_job=$!
        sleep 3
    fi
    line=$("$loadgen" --url "ws://127.0.0.1:$port/ws" --server-pid $pid \
        --seed "$run" "$@" || true)
    [ -n "${BENCH_PERF:-}" ] && wait $perf_job
    echo "run=$run loadavg_before=$load $line"
    if [ -n "${BENCH_COMPUTER:-}" ]; then
        wait $computer_job || true
        echo "run=$run computer: $(cat "$dir/computer.txt")"
    fi
    kill -TERM $pid
    wait $pid || true
    rm -rf "$dir"
    if [ "$scenario" = closed ]; then
        CHESS_LINE=$line
        echo_run "$line" echo
        # a game's frames without the game: each message in goes back to
        # both players, padded to a `moved` frame's mean size (548 bytes
        # on the wire in closed loop, measured with strace -e sendto)
        echo_run "$line" relay --relay 540
    fi
    run=$((run + 1))
done
