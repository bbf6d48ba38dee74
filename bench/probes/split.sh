#!/usr/bin/env bash
# Where a complete TOTP sign-in's time goes on SQLite, one process: inside
# SQLite's sqlite3_step against the rest, for libmfa (bench/store_bench.c,
# its calls split further into mfa_sign_in and mfa_resolve_totp), for
# libmfa's own statements bare with its cryptography (bench/probes/sqlite_floor.c,
# FLOOR_WITH=crypto) and for the bare-SQLite baseline
# (bench/sqlite_baseline.c), timed in each process by bench/probes/split_timer.c.
#
# The rates of bench/store.sh say how far apart the sides are; this says
# which part differs. When libmfa's steps cost what the floor's cost, the
# database does the same work on both, and the difference between their
# times outside SQLite (the rest) is libmfa's own code: the C ABI, the
# Swift core, its checks and objects (the cryptography is on both sides).
#
# Each side runs [rounds] times, alternately, on a store prepared as
# bench/store.sh prepares it (imported, every user signed in once); the
# median of each figure is printed, in microseconds per sign-in. A
# benchmark, not a test.
#
#   bench/probes/split.sh [users] [sign-ins] [rounds]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/probes/programs.sh"
users=${1:-10000}
signins=${2:-10000}
rounds=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# timed SIDE COMMAND...: runs COMMAND with the timer; appends its client's line to $work/SIDE
timed() {
    local side=$1
    shift
    rm -f "$work/lines"
    SPLIT_TIMER_OUT="$work/lines" LD_PRELOAD="$out/split_timer.so" "$@" > /dev/null
    # The client closes last (a program's set-up closes its connection before the clients run).
    tail -n 1 "$work/lines" >> "$work/$side"
}
for _ in $(seq "$rounds"); do
    rm -f "$work"/s.sqlite* "$work"/f.sqlite* "$work"/b.sqlite*
    "$out/store_bench" "$work/s.sqlite" "$users" 0 1 > /dev/null
    BENCH_SKIP_IMPORT=1 "$out/store_bench" "$work/s.sqlite" "$users" "$users" 1 > /dev/null
    timed libmfa env BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 \
        "$out/store_bench" "$work/s.sqlite" "$users" "$signins" 1
    "$out/store_bench" "$work/f.sqlite" "$users" 0 1 > /dev/null
    timed floor env FLOOR_WITH=crypto "$out/sqlite_floor" "$work/f.sqlite" "$users" "$signins" 1
    timed baseline "$out/sqlite_baseline" "$work/b.sqlite" "$users" "$signins" 1
done

# median SIDE FIELD: the median over the rounds of FIELD (an awk expression
# over a line's fields) per sign-in, in microseconds
median() {
    awk "{ printf \"%.2f\\n\", ($2) / \$1 / 1000 }" "$work/$1" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for side in libmfa floor baseline; do
    if [ "$(awk '{ s += $1 } END { print s }' "$work/$side")" != $((signins * rounds)) ]; then
        echo "split: the $side side did not count $signins sign-ins a round" >&2
        exit 1
    fi
done
echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d); users: $users, sign-ins: $signins, median of $rounds rounds"
echo "microseconds per complete sign-in, one process:"
printf '%-22s %8s %10s %9s\n' side all "in SQLite" "the rest"
for side in libmfa floor baseline; do
    printf '%-22s %8s %10s %9s\n' "$side" "$(median "$side" '$2')" "$(median "$side" '$3')" \
        "$(median "$side" '$2 - $3')"
done
echo "libmfa's calls:"
printf '  %-20s %8s %10s %9s\n' mfa_sign_in "$(median libmfa '$4')" "$(median libmfa '$6')" "$(median libmfa '$4 - $6')"
printf '  %-20s %8s %10s %9s\n' mfa_resolve_totp "$(median libmfa '$5')" "$(median libmfa '$7')" \
    "$(median libmfa '$5 - $7')"
echo "libmfa's own code: libmfa's rest less the floor's (which holds the same cryptography)"
own=$(awk -v m="$(median libmfa '$2 - $3')" -v f="$(median floor '$2 - $3')" 'BEGIN { printf "%.2f", m - f }')
printf '  %-20s %8s\n' "per sign-in" "$own"
