#!/bin/sh
# deploy/deps.sh - install the Debian 12 packages this project needs that are
# missing. Usage: deploy/deps.sh build|cluster|test (cluster: the build's and
# what deploy/run-cluster.sh starts). Runs apt-get only when something
# is missing (as root, or through sudo when it exists).
set -eu

# libhiredis-dev and libpq-dev: the cluster's clients of Redis and
# PostgreSQL (docs/cluster.md). stockfish: the engine the computer plays
# with, a dependency of the running server (its setting engine_path,
# /usr/games/stockfish; the levels are calibrated on Debian 12's 15.1),
# and so of the tests too (the test list has the build's).
build_pkgs="build-essential pkg-config meson ninja-build libwebsockets-dev
libjansson-dev libsqlite3-dev libssl-dev libargon2-dev libhiredis-dev
libpq-dev zlib1g-dev stockfish"
# nginx and systemd (systemd-analyze): tests/integration/test_deploy checks
# deploy/nginx.conf and the unit with them (Debian's nginx package starts
# its default site where services may start; the tests run their own).
# clang-format: tools/check-format.sh (the meson test `format`).
# prometheus: its promtool checks and tests deploy/prometheus-alerts.yml
# (tests/deploy, the meson test `monitoring`). Debian's package also
# installs a Prometheus service, enabled where services may start; no
# test uses it.
# redis-server and postgresql-15: the cluster tests (suite `cluster`,
# tests/cluster) start their own Redis and PostgreSQL in a temporary
# folder (Debian's packages start a system instance where services may
# start; the tests use their own).
test_pkgs="check python3 openssl sqlite3 valgrind clang libclang-rt-14-dev chromium
nginx systemd clang-format redis-server postgresql-15 prometheus"

# deploy/run-cluster.sh: PostgreSQL, Redis and nginx in front of the nodes.
cluster_pkgs="postgresql-15 redis-server nginx"

case "${1:-build}" in
build) want="$build_pkgs" ;;
cluster) want="$build_pkgs $cluster_pkgs" ;;
test) want="$build_pkgs $test_pkgs" ;;
*) echo "usage: $0 build|cluster|test" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
# Node.js and npm for the browser tests: use what is on PATH, else Debian's.
node=""
if [ "${1:-build}" = test ] && ! command -v npm >/dev/null 2>&1; then
    node="nodejs npm"
fi

if [ -n "$missing$node" ]; then
    echo "deps: installing$missing${node:+ $node}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q
    # (env: sudo would drop a DEBIAN_FRONTEND set before it)
    # shellcheck disable=SC2086
    if [ -n "$missing" ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends $missing
    fi
    # shellcheck disable=SC2086
    if [ -n "$node" ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $node
    fi
fi
