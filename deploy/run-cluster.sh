#!/bin/sh
# deploy/run-cluster.sh - a local three-node cluster for a try: installs
# what is missing (deploy/deps.sh cluster), builds optimised, and starts
# PostgreSQL and Redis on unix sockets in ./data/cluster/, three
# chess-server nodes n1-n3 on 127.0.0.1:8081-8083 and nginx on
# http://localhost:8080 in front of them (deploy/nginx-cluster.conf, round
# robin). Open two browser tabs: the players of a game are often on
# different nodes. Ctrl-C (or SIGTERM) stops it all, the nodes first,
# each handing its games to those still up. PostgreSQL's data stays in
# ./data/cluster/pg for the next try (as root, when `nobody` cannot reach
# that folder, in /var/tmp/chess-run-cluster/KEY/pg, KEY a checksum of the
# folder's path: one per CLUSTER_DIR); Redis starts empty each time.
#
# Arguments go to every node (chess-server --help: --config FILE, say).
# Environment: CHESS_SERVER=PATH runs that binary and builds nothing (the
# tests run it so); CLUSTER_DIR (default ./data/cluster); CLUSTER_PORT
# (default 8080): nginx's port, the nodes on the next three. Try a
# node's death with `kill -9 $(cat ./data/cluster/n2.pid)`: its games
# move to another node once its lease lapses (a few seconds), and this
# script starts n2 again.
#
# As root, PostgreSQL runs as `nobody` (it refuses root), through
# util-linux's setpriv.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
dir=${CLUSTER_DIR:-$root/data/cluster}
port=${CLUSTER_PORT:-8080}
pgbin=/usr/lib/postgresql/15/bin

if [ -z "${CHESS_SERVER:-}" ]; then
    sh deploy/deps.sh cluster
    if [ -f build-release/build.ninja ]; then
        meson setup --reconfigure build-release --buildtype=release \
            -Dtests=disabled
    else
        meson setup build-release --buildtype=release -Dtests=disabled
    fi
    ninja -C build-release
    CHESS_SERVER=$root/build-release/server/chess-server
fi
for p in "$pgbin/initdb" "$pgbin/postgres" /usr/bin/redis-server \
         /usr/sbin/nginx "$CHESS_SERVER"; do
    [ -x "$p" ] || { echo "run-cluster: $p is missing" \
                     "(sh deploy/deps.sh cluster)" >&2; exit 1; }
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pgdir=$dir/pg
as_pg=""
nginx_user=""
if [ "$(id -u)" -eq 0 ]; then
    as_pg="setpriv --reuid=nobody --regid=nogroup --clear-groups"
    nginx_user="user root;" # its workers write temp files in $dir
    # nobody must reach PostgreSQL's folder: not under /root (mode 700).
    # Else a folder of its own under /var/tmp, named after $dir: two
    # clones (or two tests) never share a database (nor its schema).
    if ! $as_pg test -x "$dir"; then
        key=$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
        pgdir=/var/tmp/chess-run-cluster/$key/pg
        mkdir -p "$pgdir"
        chmod 755 /var/tmp/chess-run-cluster "$(dirname "$pgdir")"
    fi
fi
pids=""

stop() {
    trap - INT TERM EXIT
    # the nodes first (SIGTERM: a handover), then what they need
    for n in 1 2 3; do
        [ -f "$dir/n$n.pid" ] && kill -TERM "$(cat "$dir/n$n.pid")" \
            2>/dev/null || true
    done
    wait_gone n1 n2 n3
    for n in nginx redis; do
        [ -f "$dir/$n.pid" ] && kill -TERM "$(cat "$dir/$n.pid")" \
            2>/dev/null || true
    done
    # postgres: a fast shutdown
    [ -f "$dir/postgres.pid" ] && kill -INT "$(cat "$dir/postgres.pid")" \
        2>/dev/null || true
    wait_gone nginx redis postgres
    rm -f "$dir"/*.pid
    echo "run-cluster: stopped"
}

write_pid() { # file pid: a reader never sees it half written (a
    # restart rewrites it while a kill -9 $(cat FILE) or a test reads it)
    echo "$2" >"$1.new" && mv -f "$1.new" "$1"
}

wait_gone() { # names of pid files: waits up to 30 s for each to exit
    for n in "$@"; do
        [ -f "$dir/$n.pid" ] || continue
        pid=$(cat "$dir/$n.pid")
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
}

wait_for() { # what, command...: retries the command for 60 s
    what=$1
    shift
    i=0
    until "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 600 ]; then
            echo "run-cluster: $what did not start (logs in $dir)" >&2
            exit 1
        fi
        sleep 0.1
    done
}

trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# PostgreSQL: its own cluster, on a unix socket only
if [ ! -f "$pgdir/PG_VERSION" ]; then
    mkdir -p "$pgdir"
    [ -z "$as_pg" ] || chown nobody:nogroup "$pgdir"
    chmod 700 "$pgdir"
    (cd / && $as_pg "$pgbin/initdb" -D "$pgdir" -U chess --auth=trust -E UTF8 \
        --locale=C) >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
fi
$as_pg "$pgbin/postgres" -D "$pgdir" -c listen_addresses= \
    -c unix_socket_directories="$pgdir" -c synchronous_commit=on \
    >>"$dir/postgres.log" 2>&1 &
write_pid "$dir/postgres.pid" $!
wait_for PostgreSQL "$pgbin/psql" -X -h "$pgdir" -U chess -d postgres \
    -c "SELECT 1"
"$pgbin/psql" -X -q -h "$pgdir" -U chess -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'chess'" | grep -q 1 ||
    "$pgbin/psql" -X -q -h "$pgdir" -U chess -d postgres \
        -c "CREATE DATABASE chess"
dsn="host=$pgdir user=chess dbname=chess"

# The nodes' secrets (docs/cluster.md, "Who can do what"), made once:
# Redis's password and the key the nodes sign their messages with
secret() { # file: 32 random bytes in hex, unless it exists
    [ -s "$1" ] || (umask 077 && head -c 32 /dev/urandom | od -An -tx1 |
        tr -d ' \n' >"$1")
}
secret "$dir/redis-password"
secret "$dir/cluster.key"
# Redis: on a unix socket, nothing saved (deploy/redis-chess.conf says
# why), under the shipped ACL with that password
hash=$(tr -d '\n' <"$dir/redis-password" | sha256sum | cut -c1-64)
(umask 077 && sed "s/#CHESS_PASSWORD_SHA256/#$hash/" deploy/redis-chess.acl \
    >"$dir/redis.acl")
rm -f "$dir/redis.sock"
redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 \
    --save "" --appendonly no --dir "$dir" --maxmemory-policy noeviction \
    --aclfile "$dir/redis.acl" >"$dir/redis.log" 2>&1 &
write_pid "$dir/redis.pid" $!
wait_for Redis test -S "$dir/redis.sock"

node() { # n: starts node n on port + n, with the script's arguments
    n=$1
    shift
    "$CHESS_SERVER" --listen 127.0.0.1 --port $((port + n)) \
        --node-id "n$n" --postgres "$dsn" --redis "$dir/redis.sock" \
        --redis-user chess --redis-password-file "$dir/redis-password" \
        --cluster-key-file "$dir/cluster.key" \
        --trusted-proxies 127.0.0.1 --web "$root/web" \
        --log-file "$dir/n$n.log" "$@" &
    write_pid "$dir/n$n.pid" $!
}
for i in 1 2 3; do
    node $i "$@"
done
for n in 1 2 3; do
    wait_for "node n$n" grep -q "event=listening" "$dir/n$n.log"
done

# nginx: deploy/nginx-cluster.conf, its ports moved to this run's
mkdir -p "$dir/nginx"
sed -e "s/listen 8080;/listen 127.0.0.1:$port;/" \
    -e "s/127.0.0.1:8081/127.0.0.1:$((port + 1))/" \
    -e "s/127.0.0.1:8082/127.0.0.1:$((port + 2))/" \
    -e "s/127.0.0.1:8083/127.0.0.1:$((port + 3))/" \
    deploy/nginx-cluster.conf >"$dir/nginx/cluster.conf"
cat >"$dir/nginx/nginx.conf" <<EOF
daemon off;
$nginx_user
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/nginx/body;
    proxy_temp_path $dir/nginx/proxy;
    fastcgi_temp_path $dir/nginx/fastcgi;
    uwsgi_temp_path $dir/nginx/uwsgi;
    scgi_temp_path $dir/nginx/scgi;
    include /etc/nginx/mime.types;
    include $dir/nginx/cluster.conf;
}
EOF
/usr/sbin/nginx -p "$dir/nginx" -e "$dir/nginx/error.log" \
    -c "$dir/nginx/nginx.conf" &
write_pid "$dir/nginx.pid" $!
# (nginx writes its pid file once it listens)
wait_for nginx test -s "$dir/nginx/nginx.pid"
echo "run-cluster: http://localhost:$port (nginx) -> nodes n1-n3 on" \
    "127.0.0.1:$((port + 1))-$((port + 3)); PostgreSQL and Redis in $dir;" \
    "logs in $dir/*.log; Ctrl-C stops"

# Keep the nodes up: one that dies (kill -9) is started again.
while :; do
    for n in 1 2 3; do
        if ! kill -0 "$(cat "$dir/n$n.pid")" 2>/dev/null; then
            echo "run-cluster: node n$n is gone; starting it again"
            node $n "$@"
        fi
    done
    sleep 1
done
