#!/bin/sh
# tools/check-format.sh - fail when clang-format (.clang-format at the top)
# would change a C file under common/, server/, tools/ or tests/; print the
# change it would make. `tools/check-format.sh --fix` formats them instead.
# Runs as the meson test `format` (suite `style`); clang-format is in
# deploy/deps.sh's test packages. Usage: tools/check-format.sh [--fix] [DIR]
# (DIR: the source tree, by default the one this script is in).
set -eu

fix=false
if [ "${1:-}" = --fix ]; then
    fix=true
    shift
fi
cd "${1:-$(dirname "$0")/..}"
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}

bad=0
checked=0
for f in $(find common server tools tests -name node_modules -prune -o \
    -name '*.[ch]' -print | sort); do
    checked=$((checked + 1))
    if $fix; then
        "$CLANG_FORMAT" --style=file -i "$f"
    elif ! out=$("$CLANG_FORMAT" --style=file "$f" | diff -u "$f" -); then
        printf '%s\n' "$out" | sed "2s|^+++ -|+++ $f (formatted)|"
        bad=$((bad + 1))
    fi
done
if [ "$bad" -gt 0 ]; then
    echo "check-format: $bad of $checked files are not formatted" \
        "(tools/check-format.sh --fix formats them)" >&2
    exit 1
fi
echo "check-format: $checked files formatted as .clang-format says"
