#!/usr/bin/env bash
# libmfa's WAL checkpoint policy against SQLite's own, on the same build:
# complete TOTP sign-ins on one SQLite file from [processes] processes,
# each round once under either policy, alternately (bench/probes/checkpoint_policy.c
# puts SQLite's policy in place of libmfa's in the sqlite policy's runs).
# The store is prepared as bench/store.sh prepares it (imported, every user
# signed in once). Prints each round's rates, checkpoints and largest WAL
# (in frames of 4 KiB, over the processes), then the medians and their
# ratio. A benchmark, not a test.
#
#   bench/probes/checkpoints.sh [processes] [rounds] [users] [sign-ins per process]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
processes=${1:-2}
rounds=${2:-6}
users=${3:-10000}
signins=${4:-10000}
cc -O2 -std=c99 -Wall -Wextra -shared -fPIC "$ROOT/bench/probes/checkpoint_policy.c" -ldl -o "$out/checkpoint_policy.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run POLICY: one run under POLICY (sqlite or libmfa); prints its rate, checkpoints and largest WAL
run() {
    rm -f "$work"/s.sqlite* "$work/counts"
    "$out/store_bench" "$work/s.sqlite" "$users" 0 1 > /dev/null
    BENCH_SKIP_IMPORT=1 "$out/store_bench" "$work/s.sqlite" "$users" "$users" 1 > /dev/null
    local rate
    rate=$(CHECKPOINT_POLICY=$1 CHECKPOINT_OUT="$work/counts" LD_PRELOAD="$out/checkpoint_policy.so" \
        BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 \
        "$out/store_bench" "$work/s.sqlite" "$users" "$signins" "$processes" | cut -d' ' -f2)
    # Every line: each client process reports as it closes its connection (one that ran no checkpoint reports nothing).
    echo "$rate $(awk '{n += $1; if ($2 > w) w = $2} END {print n + 0, w + 0}' "$work/counts" 2>/dev/null || echo 0 0)"
}
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d); $processes processes, $users users, $signins sign-ins per process"
printf '%5s  %12s %12s %9s  %12s %12s %9s\n' round "sqlite /s" checkpoints "WAL max" "libmfa /s" checkpoints "WAL max"
theirs=() ours=()
for round in $(seq "$rounds"); do
    read -r a ca wa <<< "$(run sqlite)"
    read -r b cb wb <<< "$(run libmfa)"
    theirs+=("$a") ours+=("$b")
    printf '%5s  %12s %12s %9s  %12s %12s %9s\n' "$round" "$a" "$ca" "$wa" "$b" "$cb" "$wb"
done
m1=$(median "${theirs[@]}") m2=$(median "${ours[@]}")
echo "median: SQLite's policy $m1 /s, libmfa's $m2 /s: $(( m2 * 100 / m1 )) %"
