#!/usr/bin/env bash
# What a program that uses only the SQLite store pays for loading libmfa:
# shared objects mapped, resident memory, and the time of dlopen and of
# mfa_open on an in-memory SQLite store (medians of 20 runs, each a fresh
# process). Given a second
# library (an older build, say), prints both and their ratios. A benchmark,
# not a test.
#
#   bench/load_footprint.sh [libmfa.so] [other-libmfa.so]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/load_footprint.c" -ldl -o "$out/load_footprint"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=20

# measure LIB: "objects rss_kib dlopen_ms open_ms", each the median of $runs runs.
measure() {
    for _ in $(seq $runs); do "$out/load_footprint" "$1" :memory:; done > "$work/runs"
    for column in 1 2 3 4; do
        cut -d' ' -f$column "$work/runs" | sort -n | sed -n "$(((runs + 1) / 2))p"
    done | paste -sd' '
}

lib=${1:-$CMAKE_BUILD/libmfa.so}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
printf '%-40s %8s %9s %10s %10s\n' library objects "RSS KiB" "dlopen ms" "open ms"
read -r objects rss loaded opened < <(measure "$lib")
printf '%-40s %8s %9s %10s %10s\n' "$lib" "$objects" "$rss" "$loaded" "$opened"
if [ $# -ge 2 ]; then
    read -r objects2 rss2 loaded2 opened2 < <(measure "$2")
    printf '%-40s %8s %9s %10s %10s\n' "$2" "$objects2" "$rss2" "$loaded2" "$opened2"
    awk -v a="$objects2 $rss2 $loaded2 $opened2" -v b="$objects $rss $loaded $opened" 'BEGIN {
        split(a, x); split(b, y)
        printf "%-40s %7.2fx %8.2fx %9.2fx %9.2fx\n", "second / first", x[1] / y[1], x[2] / y[2], x[3] / y[3], x[4] / y[4] }'
fi
echo "shared objects of $lib, mapped by a SQLite-only program:"
"$out/load_footprint" "$lib" :memory: list | tail -n +2
