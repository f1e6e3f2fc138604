#!/bin/sh
# tests/run.sh - install what is missing, build, and run every test:
# unit (Check), integration (on SQLite and, suite integration-pg, on
# PostgreSQL) and cluster tests in a -Werror build, the same but the
# integration modules on PostgreSQL under AddressSanitizer +
# UndefinedBehaviorSanitizer, the unit tests and the
# cluster suite's C tests under valgrind memcheck (those that need
# PostgreSQL inside its fixture: suite valgrind-pg), the browser
# tests (chromium via playwright-core), and a minute of libFuzzer per fuzz
# target.
set -eu
cd "$(dirname "$0")/.."

sh deploy/deps.sh test
if [ -f tests/browser/package.json ]; then
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi

setup() { # dir, options...
    dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@"
    else
        meson setup "$dir" "$@"
    fi
}

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1

# -Dtests=enabled: a missing test package is an error, never a skip.
setup build-test --werror --buildtype=debugoptimized -Dtests=enabled
ninja -C build-test
meson test -C build-test --print-errorlogs --num-processes 2 \
    --no-suite valgrind-pg
meson test -C build-test --print-errorlogs --num-processes 2 \
    --setup valgrind --suite unit --suite cluster --no-suite slow \
    --no-suite cluster-py
# the C tests inside fixture.py's PostgreSQL, valgrind around the binary
meson test -C build-test --print-errorlogs --num-processes 2 \
    --suite valgrind-pg --logbase testlog-valgrind-pg

setup build-asan --werror --buildtype=debug -Dtests=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-asan
# (the integration modules on SQLite; on PostgreSQL they run in build-test,
# and the PostgreSQL store's C tests, suite cluster, run here)
meson test -C build-asan --print-errorlogs --num-processes 2 \
    --suite unit --suite integration --suite cluster --no-suite valgrind-pg \
    --no-suite integration-pg

# libFuzzer: each target for a bounded time (longer by hand: see
# tests/fuzz/README.md); a crash fails the run.
sh tests/fuzz/run.sh 60

# One summary line over every run above.
passed=0 failed=0

# CHESS_FRESH_DEBIAN=1: also the README's run command on a fresh Debian 12
# minbase chroot (tests/fresh/debian12.sh: debootstrap, the Debian mirror,
# minutes); =ci: and this whole run inside a second one (an hour or more).
case ${CHESS_FRESH_DEBIAN:-} in
"") ;;
ci) if sh tests/fresh/debian12.sh --ci; then passed=$((passed + 1));
    else failed=$((failed + 1)); fi ;;
*) if sh tests/fresh/debian12.sh; then passed=$((passed + 1));
   else failed=$((failed + 1)); fi ;;
esac
for log in build-test/meson-logs/testlog.json \
           build-test/meson-logs/testlog-valgrind.json \
           build-test/meson-logs/testlog-valgrind-pg.json \
           build-asan/meson-logs/testlog.json; do
    [ -f "$log" ] || continue
    p=$(grep -c '"result": "OK"' "$log" || true)
    f=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
