#!/bin/sh
# tests/fuzz/run.sh SECONDS [TARGET...] - build the libFuzzer targets
# (clang, AddressSanitizer + UndefinedBehaviorSanitizer) if needed and run
# each for SECONDS seconds of wall time, as many at once as there are cores
# (FUZZ_JOBS): fen, notation, proto, dead, trf (all by default; proto only
# when the build has the server's libraries).
#
# Fails when any target crashes, leaks, times out or fails a check; the
# crashing input is left in BUILD/fuzz-work/TARGET/artifacts/. To keep it
# as a regression test: minimise it (the command is printed), copy it to
# tests/fuzz/regressions/TARGET/ and fix the bug; the 'unit' test
# fuzz_TARGET replays it in every build from then on.
#
# Inputs the fuzzer finds are kept between runs in
# BUILD/fuzz-work/TARGET/corpus (the committed seeds are only read).
# BUILD is $FUZZ_BUILD_DIR, default build-fuzz. Needs Debian's clang and
# libclang-rt-14-dev (libFuzzer and the sanitizer runtimes).
set -eu
cd "$(dirname "$0")/../.."

if [ $# -lt 1 ]; then
    echo "usage: $0 SECONDS [fen|notation|proto|dead|trf ...]" >&2
    exit 2
fi
secs=$1
shift
targets=${*:-fen notation proto dead trf}
dir=${FUZZ_BUILD_DIR:-build-fuzz}

if [ ! -f "$dir/build.ninja" ]; then
    CC=clang meson setup "$dir" -Dfuzz=true --buildtype=debugoptimized
elif ! grep -q 'tests/fuzz/fuzz_fen:' "$dir/build.ninja"; then
    meson configure "$dir" -Dfuzz=true
fi

build=""
for t in $targets; do
    if ninja -C "$dir" -t query "tests/fuzz/fuzz_$t" >/dev/null 2>&1; then
        build="$build tests/fuzz/fuzz_$t"
    elif [ "$t" = proto ]; then
        echo "fuzz: proto skipped (built without -Dserver=true)"
    else
        echo "fuzz: no target '$t'" >&2
        exit 2
    fi
done
# shellcheck disable=SC2086
ninja -C "$dir" $build

# One target: its summary to $work/summary, and $work/failed if it failed.
fuzz_one() { # exe
    exe=$1
    t=${exe#tests/fuzz/fuzz_}
    work="$dir/fuzz-work/$t"
    mkdir -p "$work/corpus" "$work/artifacts"
    rm -f "$work/failed"
    case $t in
    fen | dead) max_len=160 dict=fen.dict ;;
    notation) max_len=512 dict=notation.dict ;;
    proto) max_len=4097 dict=proto.dict ;;
    *) max_len=4096 dict="" ;;
    esac
    set -- -max_total_time="$secs" -timeout=30 -rss_limit_mb=2560 \
        -max_len="$max_len" -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/"
    [ -n "$dict" ] && set -- "$@" -dict="tests/fuzz/$dict"
    if "$dir/$exe" "$@" "$work/corpus" "tests/fuzz/corpus/$t" \
        "tests/fuzz/regressions/$t" >"$work/log" 2>&1; then
        done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/log" | tail -n 1)
        rate=$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' \
            "$work/log")
        echo "fuzz: $t ok: ${done_line:-no DONE line}; ${rate:-?} exec/s" \
            >"$work/summary"
    else
        touch "$work/failed"
        {
            echo "fuzz: $t FAILED; end of its log:"
            tail -n 40 "$work/log"
            for a in "$work"/artifacts/*; do
                [ -f "$a" ] || continue
                echo "fuzz: input $a; minimise with:"
                echo "  $dir/$exe -minimize_crash=1 -runs=100000 $a"
            done
        } >"$work/summary"
    fi
}

# Each target is one process: FUZZ_JOBS of them at a time (default: the
# number of cores), each still for SECONDS of its own.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for exe in $build; do
    t=${exe#tests/fuzz/fuzz_}
    echo "fuzz: $t for ${secs}s (log: $dir/fuzz-work/$t/log)"
    fuzz_one "$exe" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
failed=0
for exe in $build; do
    work="$dir/fuzz-work/${exe#tests/fuzz/fuzz_}"
    cat "$work/summary"
    if [ -f "$work/failed" ]; then failed=$((failed + 1)); fi
done
[ "$failed" -eq 0 ]
