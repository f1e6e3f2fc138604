#!/bin/sh
# deploy/run.sh - install what is missing, build optimised, and start the
# server on http://localhost:8080 with its SQLite database in ./data/.
# Extra arguments go to chess-server (see chess-server --help). Needs only
# deploy/deps.sh's build packages: the tests are not built here.
set -eu
cd "$(dirname "$0")/.."
sh deploy/deps.sh build
if [ -f build-release/build.ninja ]; then
    meson setup --reconfigure build-release --buildtype=release -Dtests=disabled
else
    meson setup build-release --buildtype=release -Dtests=disabled
fi
ninja -C build-release
exec ./build-release/server/chess-server --port 8080 --db ./data/chess.db \
    --web ./web "$@"
