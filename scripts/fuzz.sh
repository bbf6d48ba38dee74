#!/usr/bin/env bash
# Short fuzz runs, as the test command makes them: each fuzz target (fuzz/,
# built into build-sanitize/ by scripts/sanitize.sh build) first replays its
# whole committed corpus (fuzz/corpus/TARGET: the seeds and every regression
# input), then fuzzes for SECONDS, two targets at a time. Fails if any input
# crashes or breaks an invariant; the input is kept in
# build-sanitize/fuzz-short/TARGET/crash-* (make it a regression input with
# bench/fuzz.sh --keep FILE TARGET). New inputs go to a scratch folder, never
# to the committed corpus. Prints executions, executions per second and
# edges covered per target.
# usage: scripts/fuzz.sh [SECONDS [TARGET...]]   (default: 20 s, every target)
set -euo pipefail
. "$(dirname "$0")/env.sh"
SAN_BUILD=$ROOT/build-sanitize
OUT=$SAN_BUILD/fuzz-short
seconds=${1:-20}
shift || true
if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for source in "$ROOT"/fuzz/fuzz_*.c; do
        name=$(basename "$source" .c)
        targets+=("${name#fuzz_}")
    done
fi

run_target() {
    local target=$1 dir=$OUT/$1
    rm -rf "$dir"
    mkdir -p "$dir/new"
    # -detect_leaks: LeakSanitizer after inputs that allocate more than they free.
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
        "$SAN_BUILD/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$dir/" "$dir/new" "$ROOT/fuzz/corpus/$target" \
        > "$dir/log" 2>&1
}

summary() {
    local target=$1 log=$OUT/$1/log
    awk -v t="$target" '
        /^#[0-9]+.*(INITED|DONE|pulse|NEW|REDUCE)/ { for (i = 1; i <= NF; i++) if ($i == "cov:") cov = $(i + 1) }
        /^INFO: Loaded .* inline 8-bit counters/ { counters = 0; for (i = 1; i <= NF; i++) if ($i ~ /^\(/) { counters = substr($i, 2) } }
        /stat::number_of_executed_units:/ { runs = $2 }
        /stat::average_exec_per_sec:/ { speed = $2 }
        END { printf "%-8s %10s runs %8s/s  cov: %s of %s edges\n", t, runs, speed, cov, counters }
    ' "$log"
}

mkdir -p "$OUT"
status=0
failures=""
running=()
for target in "${targets[@]}"; do
    [ -x "$SAN_BUILD/fuzz_$target" ] || { echo "fuzz: no $SAN_BUILD/fuzz_$target (scripts/sanitize.sh build)" >&2; exit 2; }
    run_target "$target" &
    running+=("$!:$target")
    if [ ${#running[@]} -ge 2 ]; then
        job=${running[0]}
        running=("${running[@]:1}")
        wait "${job%%:*}" || { status=1; failures+="FAILED: fuzz_${job#*:} (log: $OUT/${job#*:}/log)"$'\n'; }
    fi
done
for job in "${running[@]}"; do
    wait "${job%%:*}" || { status=1; failures+="FAILED: fuzz_${job#*:} (log: $OUT/${job#*:}/log)"$'\n'; }
done
printf "%s" "$failures"
for target in "${targets[@]}"; do
    summary "$target"
    # Any one kind of finding is enough (ls of all four patterns fails when one matches nothing).
    findings=$(find "$OUT/$target" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) | sort)
    if [ -n "$findings" ]; then
        status=1
        grep -E "invariant broken|ERROR: |SUMMARY: " "$OUT/$target/log" | head -5
        while read -r input; do
            echo "  $(basename "$input") (base64): $(head -c 600 "$input" | base64 -w0)"
        done <<< "$findings"
    elif grep -q "^FAILED:.*fuzz_$target " <<< "$failures"; then
        # Ended badly with no input saved (killed, or a finding outside any input): the log says how.
        echo "  fuzz_$target ended without an input saved; the end of its log:"
        tail -n 25 "$OUT/$target/log" | sed 's/^/  | /'
    fi
done
exit $status
