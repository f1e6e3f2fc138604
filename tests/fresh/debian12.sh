#!/bin/sh
# tests/fresh/debian12.sh [--ci] - the README's two commands on a fresh
# Debian 12 machine: a `debootstrap --variant=minbase bookworm` chroot, a
# clone of this repository's HEAD (committed work only) in /root/chess, and
#  - `sh deploy/run.sh --port $FRESH_PORT` until /healthz answers 200 and /
#    serves the client page, then docs/operator.md's operations commands
#    (--check-config, backup) with only the build packages installed, a
#    planned shutdown (SIGTERM, exit 0), and the guide's install (meson
#    setup without options, ninja install to a staging folder);
#  - with --ci (or FRESH_CI=1), in a second fresh copy, `CI=true bash
#    .ci/run` (deploy/deps.sh test, every test suite): its last line.
# Runs as root on a Debian host with debootstrap, git and python3; downloads
# from the Debian mirror. Takes minutes (--ci: an hour or more on 2 cores).
#
# Environment:
#   FRESH_WORK     folder for the chroots (default: a new one in /var/tmp,
#                  removed at the end unless FRESH_KEEP=1)
#   FRESH_BASE     an existing minbase bookworm root to copy instead of
#                  running debootstrap (it is only read)
#   FRESH_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   FRESH_PORT     port for deploy/run.sh's server (default 18080)
#   FRESH_TIMEOUT  seconds deploy/run.sh may take to answer (default 1800)
#   FRESH_CA       certificates (PEM) that npm in the chroots must trust,
#                  for a host behind a TLS-intercepting proxy (default:
#                  $NODE_EXTRA_CA_CERTS when set; the open internet needs
#                  none); given to the chroots as NODE_EXTRA_CA_CERTS
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
ci=${FRESH_CI:-0}
[ "${1:-}" = --ci ] && ci=1
port=${FRESH_PORT:-18080}
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
timeout=${FRESH_TIMEOUT:-1800}
ca=${FRESH_CA:-${NODE_EXTRA_CA_CERTS:-}}

say() { echo "fresh: $*"; }
die() { echo "fresh: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, mount)"
for p in git python3; do
    command -v $p >/dev/null || die "needs $p"
done
[ -n "${FRESH_BASE:-}" ] || command -v debootstrap >/dev/null ||
    die "needs debootstrap (apt-get install debootstrap) or FRESH_BASE"
if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
    say "note: uncommitted changes are not tested (the chroot gets HEAD)"
fi

if [ -n "${FRESH_WORK:-}" ]; then
    work=$FRESH_WORK
    mkdir -p "$work"
else
    work=$(mktemp -d /var/tmp/chess-fresh.XXXXXX)
fi
roots="" server=""

# Unmounts every root (and removes the work folder) unless something is
# still mounted in it: never rm -rf over a bind mount of /dev.
cleanup() {
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server" 2>/dev/null || true
        sleep 2
        kill -KILL "$server" 2>/dev/null || true
    fi
    for r in $roots; do
        # Whatever still runs inside this root was started here.
        for p in /proc/[0-9]*; do
            if [ "$(readlink "$p/root" 2>/dev/null)" = "$r" ]; then
                kill -KILL "${p#/proc/}" 2>/dev/null || true
            fi
        done
        for m in dev/shm dev/pts dev sys proc; do
            if mountpoint -q "$r/$m"; then
                umount -R "$r/$m" || umount -R -l "$r/$m" || true
            fi
        done
    done
    if [ "${FRESH_KEEP:-0}" != 1 ] && [ -z "${FRESH_WORK:-}" ]; then
        if grep -q " $work/" /proc/self/mounts; then
            echo "fresh: $work still has mounts; not removed" >&2
        else
            rm -rf --one-file-system "$work"
        fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A minbase bookworm root, made once, copied for each run.
base=${FRESH_BASE:-$work/base}
if [ -z "${FRESH_BASE:-}" ] && [ ! -x "$base/bin/sh" ]; then
    say "debootstrap --variant=minbase bookworm ($mirror)"
    debootstrap --variant=minbase bookworm "$base" "$mirror" \
        >"$work/debootstrap.log" 2>&1 ||
        { tail -n 20 "$work/debootstrap.log"; die "debootstrap failed"; }
fi
[ -x "$base/bin/sh" ] || die "$base is not a root file system"

# make_root NAME: a fresh copy of the base with /proc, /sys, /dev, /dev/pts,
# /dev/shm (chromium's), the host's DNS, no service starts, and the clone.
make_root() {
    r=$work/$1
    [ ! -e "$r" ] || die "$r exists"
    cp -a "$base" "$r"
    roots="$roots $r"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    [ -z "$ca" ] || cp "$ca" "$r/etc/fresh-extra-ca.pem"
    printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
    chmod 755 "$r/usr/sbin/policy-rc.d"
    mount -t proc proc "$r/proc"
    mount -t sysfs sysfs "$r/sys"
    mount --bind /dev "$r/dev"
    mount --bind /dev/pts "$r/dev/pts"
    mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
    git clone -q "$src" "$r/root/chess"
}

# in_root NAME COMMAND: COMMAND in the chroot with a clean environment.
clean_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/root LANG=C.UTF-8 TERM=dumb"
[ -z "$ca" ] || clean_env="$clean_env NODE_EXTRA_CA_CERTS=/etc/fresh-extra-ca.pem"
in_root() {
    # shellcheck disable=SC2086
    env -i $clean_env chroot "$work/$1" sh -c "$2"
}

# get URL: prints "STATUS CONTENT-TYPE" and the body.
get() {
    python3 - "$1" <<'PY'
import sys, urllib.error, urllib.request
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10)
except urllib.error.HTTPError as e:
    r = e
except OSError as e:
    print("000 -")
    sys.exit(0)
try:
    print(r.status, r.headers.get("Content-Type"))
    sys.stdout.write(r.read().decode("utf-8", "replace"))
    sys.stdout.flush()
except BrokenPipeError:  # the caller read only the status line
    sys.stdout = None
PY
}

# ---- deploy/run.sh -------------------------------------------------------
if get "http://127.0.0.1:$port/healthz" | head -n 1 | grep -qv '^000'; then
    die "something already answers on port $port (set FRESH_PORT)"
fi
make_root run
say "deploy/run.sh --port $port in $work/run (log: $work/run.log)"
# One process from env to chess-server (each execs the next): $! is the
# server's.
# shellcheck disable=SC2086
env -i $clean_env chroot "$work/run" \
    sh -c "cd /root/chess && exec sh deploy/run.sh --port $port" \
    >"$work/run.log" 2>&1 &
server=$!
waited=0
while :; do
    status=$(get "http://127.0.0.1:$port/healthz" | head -n 1)
    case $status in 200*) break ;; esac
    if ! kill -0 "$server" 2>/dev/null; then
        tail -n 20 "$work/run.log"
        die "deploy/run.sh exited before /healthz answered"
    fi
    [ "$waited" -lt "$timeout" ] ||
        { tail -n 20 "$work/run.log"; die "no /healthz after ${timeout}s"; }
    sleep 5
    waited=$((waited + 5))
done
say "/healthz: $(get "http://127.0.0.1:$port/healthz" | tr '\n' ' ') (after ${waited}s)"
page=$(get "http://127.0.0.1:$port/")
case $page in
"200 text/html"*'<script type="module" src="/app.js">'*) ;;
*) printf '%s\n' "$page" | head -n 5; die "/ is not the client page" ;;
esac
say "/: $(printf '%s\n' "$page" | head -n 1), $(printf '%s\n' "$page" | grep -o '<title>[^<]*</title>')"
js=$(get "http://127.0.0.1:$port/app.js" | head -n 1)
case $js in
"200 "*javascript*) say "/app.js: $js" ;;
*) die "/app.js: $js" ;;
esac

# Only the build packages: the test packages are not installed.
for p in check openssl valgrind; do
    if in_root run "dpkg-query -W -f='\${Status}' $p 2>/dev/null" |
        grep -q "ok installed"; then
        die "$p is installed in the deploy root: not a build-only machine"
    fi
done
say "not installed in the deploy root: check openssl valgrind"

# docs/operator.md's operations commands, beside the running server.
in_root run 'printf "{\"port\": 18099, \"database\": \"/tmp/ops/chess.db\"}\n" >/tmp/ops.json'
out=$(in_root run 'cd /root/chess && build-release/server/chess-server --check-config /tmp/ops.json' 2>&1) ||
    die "--check-config: $out"
say "--check-config: $out"
out=$(in_root run 'cd /root/chess && build-release/server/chess-server backup /tmp/backup.db --db data/chess.db && test -s /tmp/backup.db' 2>&1) ||
    die "backup: $out"
say "backup: $out"

kill -TERM "$server"
rc=0
wait "$server" || rc=$?
server=""
[ "$rc" -eq 0 ] || { tail -n 5 "$work/run.log"; die "the server exited $rc on SIGTERM"; }
say "deploy: OK (stopped by SIGTERM, exit 0)"

# docs/operator.md's install (meson's default -Dtests=auto) with the same
# packages: the tests are left out, chess-server and the client install.
say "operator.md install: meson setup build-install (log: $work/install.log)"
in_root run 'cd /root/chess &&
    meson setup build-install --buildtype=release --prefix=/usr/local &&
    ninja -C build-install && DESTDIR=/tmp/stage ninja -C build-install install &&
    test -x /tmp/stage/usr/local/bin/chess-server &&
    test -f /tmp/stage/usr/local/share/chess-server/web/index.html' \
    >"$work/install.log" 2>&1 ||
    { tail -n 20 "$work/install.log"; die "operator.md's install failed"; }
grep -q 'tests left out' "$work/install.log" ||
    die "operator.md's install did not say the tests are left out"
say "operator.md install: OK ($(grep -o 'tests left out[^,]*' "$work/install.log"))"

# ---- CI=true bash .ci/run ----------------------------------------------
if [ "$ci" = 1 ]; then
    make_root ci
    say "CI=true bash .ci/run in $work/ci (log: $work/ci.log)"
    rc=0
    in_root ci "cd /root/chess && CI=true bash .ci/run" >"$work/ci.log" 2>&1 ||
        rc=$?
    say "ci: $(tail -n 1 "$work/ci.log") (exit $rc)"
    [ "$rc" -eq 0 ] || { tail -n 30 "$work/ci.log"; die "CI failed"; }
fi
say "OK"
