#!/bin/sh
# tests/fresh/build_deps.sh SOURCE_DIR - a machine with only deploy/deps.sh's
# build packages configures the project: the tests are left out without
# Check (its pkg-config file hidden) and the openssl program (hidden from
# PATH), and -Dtests=enabled is the error that names what is missing (also
# for node, which only the browser tests need).
# The full proof on a real fresh Debian 12 is tests/fresh/debian12.sh.
set -u
src=$(cd "${1:?usage: build_deps.sh SOURCE_DIR}" && pwd)
meson=${MESON:-meson}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# Every pkg-config file but check.pc.
mkdir "$tmp/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
    for f in "$d"/*.pc; do
        [ -f "$f" ] || continue
        name=${f##*/}
        [ "$name" = check.pc ] || [ -e "$tmp/pc/$name" ] ||
            ln -s "$f" "$tmp/pc/$name"
    done
done
# bin_farm DIR NAME: links to every program on PATH but NAME, in DIR.
bin_farm() {
    mkdir "$1"
    for d in $(printf '%s' "$PATH" | tr : ' '); do
        for f in "$d"/*; do
            if [ ! -x "$f" ] || [ -d "$f" ]; then continue; fi
            name=${f##*/}
            [ "$name" = "$2" ] || [ -e "$1/$name" ] || ln -s "$f" "$1/$name"
        done
    done
}
bin_farm "$tmp/bin" openssl
bin_farm "$tmp/bin-nonode" node
if [ ! -e "$tmp/pc/libwebsockets.pc" ]; then
    echo "build_deps: libwebsockets.pc not found; is libwebsockets-dev installed?" >&2
    exit 1
fi

setup() { # dir, options...
    d=$1
    shift
    env PKG_CONFIG_LIBDIR="$tmp/pc" PATH="$tmp/bin" \
        "$meson" setup "$tmp/$d" "$src" "$@" >"$tmp/$d.log" 2>&1
}

# Auto (the default, as in docs/operator.md's install): configures, no tests.
if setup auto --buildtype=release; then
    grep -q 'tests left out' "$tmp/auto.log" ||
        fail "auto: no 'tests left out' message"
    tests=$("$meson" introspect --tests "$tmp/auto")
    case $tests in
    *'"name": "board"'* | *'"name": "test_basic"'*)
        fail "auto: unit or integration tests registered without Check" ;;
    esac
    case $("$meson" introspect --targets "$tmp/auto") in
    *'"name": "chess-server"'*) ;;
    *) fail "auto: no chess-server target" ;;
    esac
else
    fail "auto: meson setup failed:"
    tail -n 5 "$tmp/auto.log"
fi

# Disabled (deploy/run.sh): the same.
setup disabled --buildtype=release -Dtests=disabled ||
    { fail "disabled: meson setup failed:"; tail -n 5 "$tmp/disabled.log"; }

# Enabled (tests/run.sh): an error naming the missing package.
if setup enabled -Dtests=enabled; then
    fail "enabled: meson setup succeeded without Check"
elif ! grep -q 'Dependency "check" not found' "$tmp/enabled.log"; then
    fail "enabled: failed without naming check:"
    tail -n 5 "$tmp/enabled.log"
fi

# Enabled with Check present but no openssl program: names openssl.
if env PATH="$tmp/bin" "$meson" setup "$tmp/noopenssl" "$src" \
    -Dtests=enabled >"$tmp/noopenssl.log" 2>&1; then
    fail "enabled: meson setup succeeded without the openssl program"
elif ! grep -q 'Program .openssl. not found' "$tmp/noopenssl.log"; then
    fail "enabled: failed without naming openssl:"
    tail -n 5 "$tmp/noopenssl.log"
fi

# Node.js missing: auto leaves out only the browser tests, enabled names it.
if env PATH="$tmp/bin-nonode" "$meson" setup "$tmp/nonode" "$src" \
    >"$tmp/nonode.log" 2>&1; then
    case $("$meson" introspect --tests "$tmp/nonode") in
    *'"name": "browser"'*) fail "auto: browser test registered without node" ;;
    *'"name": "board"'*) ;;
    *) fail "auto: without node, the unit tests are left out too" ;;
    esac
else
    fail "auto: meson setup failed without node:"
    tail -n 5 "$tmp/nonode.log"
fi
if env PATH="$tmp/bin-nonode" "$meson" setup "$tmp/nonode-enabled" "$src" \
    -Dtests=enabled >"$tmp/nonode-enabled.log" 2>&1; then
    fail "enabled: meson setup succeeded without node"
elif ! grep -q 'Program .node. not found' "$tmp/nonode-enabled.log"; then
    fail "enabled: failed without naming node:"
    tail -n 5 "$tmp/nonode-enabled.log"
fi

[ "$fails" -eq 0 ] && echo "build_deps: OK"
[ "$fails" -eq 0 ]
