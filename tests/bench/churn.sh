#!/bin/sh
# churn.sh - connection churn against a fresh chess-server: WARMUP cycles,
# then CYCLES cycles of connect, hello, welcome, close, driven by
# chess-loadgen --mode connect (100 attempts in flight, one source
# address). Measures the server's RSS (VmRSS) and open descriptors after
# the warm-up and at the end, each time once every connection has closed.
#
#   tests/bench/churn.sh BUILD_DIR [CYCLES [WARMUP]]
#
# Defaults: 100,000 cycles after a 20,000-cycle warm-up. The warm-up takes
# the one-time allocations (malloc's arenas, lws's tables, and SQLite's
# page cache, which grows to its 2 MiB default as each guest's hello adds
# a player row: RSS stops growing after about 15,000 cycles). The load
# generator runs for a duration, so it is run in slices until the count
# is reached; the counts printed are the cycles actually made.
# Prints one line of key=value pairs; exits 1 when RSS ends more than 10%
# above its post-warm-up value or a descriptor is left over.
set -eu

if [ $# -lt 1 ]; then
    sed -n '2,17p' "$0"
    exit 2
fi
build=$1
cycles=${2:-100000}
warmup=${3:-20000}
server=$build/server/chess-server
loadgen=${LOADGEN:-$build/tests/bench/chess-loadgen}

ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d /tmp/chess-churn-XXXXXX)
mkdir -p "$dir/web"
echo '<!doctype html><title>churn</title>' > "$dir/web/index.html"
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# A port below the ephemeral range (the load generator's sockets use it).
attempt=0
while :; do
    attempt=$((attempt + 1))
    port=$(python3 -c 'import random; print(random.randrange(20000, 32000))')
    "$server" --listen 127.0.0.1 --port "$port" --db "$dir/db/chess.db" \
        --web "$dir/web" --log-level warn \
        --guests-per-ip-per-min 10000000 2> "$dir/server.log" &
    pid=$!
    tries=0
    while kill -0 "$pid" 2>/dev/null && [ $tries -lt 250 ]; do
        python3 -c "import socket
socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
        tries=$((tries + 1))
        sleep 0.02
    done
    kill -0 "$pid" 2>/dev/null && break
    wait "$pid" 2>/dev/null || true
    pid=
    if [ $attempt -ge 10 ]; then
        echo "server did not start:" >&2
        cat "$dir/server.log" >&2
        exit 1
    fi
done

# idle: waits until the server holds no connection.
idle() {
    python3 - "$port" <<'EOF'
import json, sys, time, urllib.request
url = "http://127.0.0.1:%s/healthz" % sys.argv[1]
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    with urllib.request.urlopen(url, timeout=5) as r:
        if json.load(r)["connections"] == 0:
            sys.exit(0)
    time.sleep(0.05)
sys.exit("connections did not close")
EOF
}
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
fds() { ls "/proc/$pid/fd" | wc -l; }

# run N: about N cycles (at least N, and at most a second's worth more)
# in slices of whole seconds; prints the cycles made and seconds.
run() {
    want=$1
    made=0
    rate=1000000 # unknown: the first slice is one second
    start=$(date +%s.%N)
    while [ "$made" -lt "$want" ]; do
        slice=$(awk -v r="$rate" -v n="$((want - made))" \
            'BEGIN { s = int(n / r + 0.5); if (s < 1) s = 1
                     if (s > 5) s = 5; print s }')
        line=$("$loadgen" --url "ws://127.0.0.1:$port/ws" --mode connect \
            --connections 100 --duration-s "$slice")
        n=$(echo "$line" | tr ' ' '\n' | sed -n 's/^connects=//p')
        bad=$(echo "$line" | tr ' ' '\n' | sed -n 's/^errors=//p')
        if [ -z "$n" ] || [ "$n" -eq 0 ] || [ "${bad:-0}" -ne 0 ]; then
            echo "chess-loadgen failed: $line" >&2
            exit 1
        fi
        made=$((made + n))
        rate=$(echo "$line" | tr ' ' '\n' | sed -n 's/^connects_per_s=//p')
    done
    end=$(date +%s.%N)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    echo "$made $secs"
}

rss_start=$(rss)
fds_start=$(fds)
out=$(run "$warmup") || exit 1
set -- $out
warm_made=$1
idle
rss0=$(rss)
fds0=$(fds)
out=$(run "$cycles") || exit 1
set -- $out
made=$1
secs=$2
idle
rss1=$(rss)
fds1=$(fds)
kill -0 "$pid" || { echo "server died" >&2; exit 1; }

pct=$(awk -v a="$rss0" -v b="$rss1" \
    'BEGIN { printf "%.1f", (b - a) * 100 / a }')
rate=$(awk -v n="$made" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
echo "warmup_cycles=$warm_made cycles=$made seconds=$secs cycles_per_s=$rate" \
     "rss_start_kb=$rss_start rss_after_warmup_kb=$rss0 rss_end_kb=$rss1" \
     "rss_change_pct=$pct fds_start=$fds_start fds_after_warmup=$fds0" \
     "fds_end=$fds1"
ok=$(awk -v a="$rss0" -v b="$rss1" 'BEGIN { print (b <= a * 1.10) ? 1 : 0 }')
[ "$ok" -eq 1 ] || { echo "FAIL: RSS grew more than 10%" >&2; exit 1; }
[ "$fds1" -eq "$fds0" ] || { echo "FAIL: descriptors leaked" >&2; exit 1; }
