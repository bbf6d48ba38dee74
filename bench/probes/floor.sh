#!/usr/bin/env bash
# The floor of a TOTP sign-in on SQLite, in sign-ins per second: libmfa's
# own statements with nothing else (sqlite_floor.c), and the same with
# libmfa's cryptography added (FLOOR_WITH=crypto), each against the
# bare-SQLite baseline (bench/sqlite_baseline.c) and beside libmfa itself,
# 1 and 2 processes, best of [rounds] alternating rounds. Prepared and
# measured warm as bench/store.sh does. What lies between the floor and
# libmfa is libmfa's own code around the database. A probe, not a test.
#
#   bench/probes/floor.sh [users] [sign-ins per process] [rounds]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/probes/programs.sh"
users=${1:-10000}
signins=${2:-10000}
rounds=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

best() { printf '%s\n' "$@" | sort -n | tail -n 1; }
libmfa() {
    rm -f "$work"/s.sqlite*
    "$out/store_bench" "$work/s.sqlite" "$users" 0 1 > /dev/null
    BENCH_SKIP_IMPORT=1 "$out/store_bench" "$work/s.sqlite" "$users" "$users" 1 > /dev/null
    BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 "$out/store_bench" "$work/s.sqlite" "$users" "$signins" "$1" |
        cut -d' ' -f2
}
bare() { rm -f "$work"/b.sqlite*; "$out/sqlite_baseline" "$work/b.sqlite" "$users" "$signins" "$1" | cut -d' ' -f2; }
# floor PROCESSES [WITH]: the floor, or with WITH=crypto the floor and libmfa's cryptography
floor() {
    rm -f "$work"/f.sqlite*
    "$out/store_bench" "$work/f.sqlite" "$users" 0 1 > /dev/null
    FLOOR_WITH=${2:-} "$out/sqlite_floor" "$work/f.sqlite" "$users" "$signins" "$1" | cut -d' ' -f2
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-14s %9s %12s %12s %7s %18s\n' side processes "sign-ins/s" "baseline/s" ratio "libmfa at, of it"
for processes in 1 2; do
    mine=() peer=() plain=() crypto=()
    for _ in $(seq "$rounds"); do
        peer+=("$(bare "$processes")")
        plain+=("$(floor "$processes")")
        crypto+=("$(floor "$processes" crypto)")
        mine+=("$(libmfa "$processes")")
    done
    p=$(best "${peer[@]}") m=$(best "${mine[@]}")
    for side in floor +crypto; do
        if [ "$side" = floor ]; then f=$(best "${plain[@]}"); else f=$(best "${crypto[@]}"); fi
        printf '%-14s %9s %12s %12s %6s%% %17s%%\n' "$side" "$processes" "$f" "$p" "$(( f * 100 / p ))" "$(( m * 100 / f ))"
    done
done
