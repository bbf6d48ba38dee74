#!/usr/bin/env bash
# Instructions per complete TOTP sign-in (mfa_sign_in, then
# mfa_resolve_totp), counted by valgrind's callgrind: exact and repeatable
# on a shared machine, where rates are not. For libmfa on SQLite (and on
# PostgreSQL with a URL), only the calls to libmfa's sign-in functions are
# counted (the client side; the server's work is not in it); for the
# bare-SQLite baseline (bench/sqlite_baseline.c) and libmfa's own SQLite
# statements run bare (bench/probes/sqlite_floor.c, also without each of the
# writes it measures, and with libmfa's cryptography), the difference
# between a run of 2N and one of N sign-ins. A benchmark, not a test.
#
#   bench/probes/callgrind.sh [sign-ins] [postgres-url]
#
# With BENCH_SQLITE_MEMSTATUS=0, every program runs with SQLite's memory
# statistics off, as a host may set them (bench/sqlite_host_config.h).
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/probes/programs.sh"
signins=${1:-1000}
url=${2:-}
users=$signins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# total FILE...: the instructions counted in the callgrind outputs FILE...
total() { cat "$@" | sed -n 's/^summary: //p' | awk '{sum += $1} END {print sum}'; }
# signin_instructions STORE: instructions per sign-in of libmfa's sign-in calls
signin_instructions() {
    "$out/store_bench" "$1" "$users" 0 1 > /dev/null
    rm -f "$work"/cg.*
    BENCH_SKIP_IMPORT=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
        --toggle-collect=mfa_sign_in --toggle-collect=mfa_resolve_totp \
        --toggle-collect=mfa_sign_in_result_free --toggle-collect=mfa_resolver_free \
        "$out/store_bench" "$1" "$users" "$signins" 1 > /dev/null 2> "$work/valgrind.log"
    echo $(( $(total "$work"/cg.*) / signins ))
}
# baseline_instructions N: instructions of a run of the baseline with N sign-ins
baseline_instructions() {
    rm -f "$work"/b.sqlite* "$work"/bl.*
    valgrind --tool=callgrind --callgrind-out-file="$work/bl.%p" \
        "$out/sqlite_baseline" "$work/b.sqlite" "$users" "$1" 1 > /dev/null 2> "$work/valgrind.log"
    total "$work"/bl.*
}
# floor_instructions N [WITHOUT] [WITH]: instructions of a run of the floor with N sign-ins
floor_instructions() {
    rm -f "$work"/f.sqlite* "$work"/fl.*
    "$out/store_bench" "$work/f.sqlite" "$users" 0 1 > /dev/null
    FLOOR_WITHOUT=${2:-} FLOOR_WITH=${3:-} valgrind --tool=callgrind --callgrind-out-file="$work/fl.%p" \
        "$out/sqlite_floor" "$work/f.sqlite" "$users" "$1" 1 > /dev/null 2> "$work/valgrind.log"
    total "$work"/fl.*
}

echo "instructions per complete sign-in (callgrind), $signins sign-ins on $users users, $(date -u +%Y-%m-%d)"
printf '%-44s %12s\n' "libmfa, SQLite" "$(signin_instructions "$work/s.sqlite")"
printf '%-44s %12s\n' "bare SQLite (sqlite_baseline.c)" \
    "$(( ($(baseline_instructions $((signins * 2))) - $(baseline_instructions "$signins")) / signins ))"
for without in "" consumed user; do
    printf '%-44s %12s\n' "floor (sqlite_floor.c)${without:+, without $without}" \
        "$(( ($(floor_instructions $((signins * 2)) "$without") - $(floor_instructions "$signins" "$without")) / signins ))"
done
printf '%-44s %12s\n' "floor, with libmfa's cryptography" \
    "$(( ($(floor_instructions $((signins * 2)) "" crypto) - $(floor_instructions "$signins" "" crypto)) / signins ))"
if [ -n "$url" ]; then
    printf '%-44s %12s\n' "libmfa, PostgreSQL (client side)" "$(signin_instructions "$url")"
fi
