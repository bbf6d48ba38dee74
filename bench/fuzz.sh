#!/usr/bin/env bash
# Long fuzzing campaigns (not a test; scripts/fuzz.sh makes the short runs of
# the test command). Each target runs in libFuzzer's fork mode (JOBS worker
# processes, default 2) on the ASan build (build-sanitize/), from its
# committed corpus plus a campaign corpus that persists between campaigns
# (build-sanitize/campaign/TARGET/corpus). A crash, leak, timeout or
# out-of-memory does not stop the campaign: each new one is saved as a
# regression input, fuzz/corpus/TARGET/regress-KIND-HASH, which the test
# command replays from then on (commit it with the fix). At the end:
# executions, executions per second, edges covered, and, with --coverage, the
# lines of Sources/ that the target's corpus reaches (llvm-cov, on a
# coverage build in build-fuzzcov/).
#
#   bench/fuzz.sh [--hours H | --seconds S] [--runs N] [--jobs J] [--coverage] [TARGET...]
#   bench/fuzz.sh --coverage-only [TARGET...]   (the coverage report of the corpora as they are)
#   bench/fuzz.sh --keep FILE TARGET            (save FILE as a regression input of TARGET)
#
# --hours/--seconds is the time per target (default 1 hour); --runs stops a
# target once it has made at least N executions (10^7: --runs 10000000).
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
SAN_BUILD=$ROOT/build-sanitize
COV_BUILD=$ROOT/build-fuzzcov
CLANG=$(dirname "$(command -v swift)")/clang
LLVM_BIN=$(dirname "$CLANG")

seconds=3600
runs=-1
jobs=2
coverage=0
fuzz=1
targets=()

# What a crash input does, in one line: where the invariant broke, or the
# sanitizer's finding and the function it was in ("" if the input runs clean).
signature() {
    local target=$1 file=$2
    ASAN_OPTIONS=detect_leaks=1 timeout 60 "$SAN_BUILD/fuzz_$target" "$file" 2>&1 \
        | grep -m1 -E "invariant broken|^SUMMARY: " \
        | sed -E 's/: invariant broken:.*//; s/^SUMMARY: ([A-Za-z]+Sanitizer: [a-z-]+)[^ ]*( .* in ([^ ]+))?.*/\1 \3/' || true
}

# Copies a crash (or leak, timeout, oom) input into the committed corpus as regress-KIND-HASH, once.
keep() {
    local file=$1 target=$2 kind hash
    case $(basename "$file") in
    leak-* | timeout-* | oom-* | slow-unit-*) kind=$(basename "$file" | sed -E 's/^(leak|timeout|oom|slow-unit)-.*/\1/') ;;
    *) kind=crash ;;
    esac
    hash=$(sha1sum "$file" | cut -c1-12)
    mkdir -p "$ROOT/fuzz/corpus/$target"
    if ! cmp -s "$file" "$ROOT/fuzz/corpus/$target/regress-$kind-$hash" 2> /dev/null; then
        cp "$file" "$ROOT/fuzz/corpus/$target/regress-$kind-$hash"
        echo "  new regression input: fuzz/corpus/$target/regress-$kind-$hash"
    fi
}

while [ $# -gt 0 ]; do
    case $1 in
    --hours) seconds=$(awk -v h="$2" 'BEGIN { printf "%d", h * 3600 }'); shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; seconds=0; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --coverage) coverage=1; shift ;;
    --coverage-only) coverage=1; fuzz=0; shift ;;
    --keep) keep "$2" "$3"; exit 0 ;;
    -*) sed -n '2,21p' "$0" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    for source in "$ROOT"/fuzz/fuzz_*.c; do
        name=$(basename "$source" .c)
        targets+=("${name#fuzz_}")
    done
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
if [ $fuzz = 1 ]; then
    "$ROOT/scripts/sanitize.sh" build > /dev/null
    printf '%-8s %12s %10s %8s %10s %8s\n' target runs "runs/s" cov corpus found
    for target in "${targets[@]}"; do
        dir=$SAN_BUILD/campaign/$target
        rm -rf "$dir/artifacts" "$dir/findings"
        mkdir -p "$dir/corpus" "$dir/artifacts"
        limits=(-max_total_time="$seconds")
        [ "$runs" -ge 0 ] && limits=(-runs="$runs")
        start=$(date +%s)
        ASAN_OPTIONS=detect_leaks=1 "$SAN_BUILD/fuzz_$target" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
            -ignore_ooms=1 "${limits[@]}" -timeout=10 -rss_limit_mb=2560 -max_len=4096 \
            -artifact_prefix="$dir/artifacts/" "$dir/corpus" "$ROOT/fuzz/corpus/$target" > "$dir/log" 2>&1 || true
        elapsed=$(( $(date +%s) - start ))
        # One regression input per distinct finding (the smallest), none for a finding already kept.
        found=0
        known=$'\n'
        for file in "$ROOT/fuzz/corpus/$target"/regress-*; do
            [ -f "$file" ] && known+="$(signature "$target" "$file")"$'\n'
        done
        for file in $(ls -Sr "$dir"/artifacts/ 2> /dev/null); do
            file=$dir/artifacts/$file
            case $(basename "$file") in
            timeout-* | oom-* | slow-unit-*) finding=$(basename "$file" | cut -d- -f1) ;;
            *) finding=$(signature "$target" "$file") ;;
            esac
            [ -n "$finding" ] || finding=$(basename "$file" | cut -d- -f1)
            case $known in *$'\n'"$finding"$'\n'*) continue ;; esac
            known+="$finding"$'\n'
            keep "$file" "$target" > /dev/null
            echo "  $target: $finding" >> "$dir/findings"
            found=$((found + 1))
        done
        # Fork mode's progress lines: "#RUNS: cov: C ft: F corp: N exec/s: E ...".
        last=$(grep -E '^#[0-9]+: cov:' "$dir/log" | tail -n 1)
        total=$(echo "$last" | sed -E 's/^#([0-9]+):.*/\1/')
        printf '%-8s %12s %10s %8s %10s %8s\n' "$target" "${total:-0}" "$(( ${total:-0} / (elapsed > 0 ? elapsed : 1) ))" \
            "$(echo "$last" | sed -E 's/.* cov: ([0-9]+).*/\1/')" "$(echo "$last" | sed -E 's/.* corp: ([0-9]+).*/\1/')" \
            "$found"
        [ "$found" = 0 ] || cat "$dir/findings"
    done
fi

if [ $coverage = 1 ]; then
    cmake -S "$ROOT" -B "$COV_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMFA_BUILD_TESTS=OFF -DMFA_SANITIZE=ON \
        -DMFA_FUZZ_COVERAGE=ON -DCMAKE_C_COMPILER="$CLANG" > /dev/null
    cmake --build "$COV_BUILD" > /dev/null
    for target in "${targets[@]}"; do
        profiles=$COV_BUILD/profiles/$target
        rm -rf "$profiles"
        mkdir -p "$profiles"
        # Every input once, through libFuzzer's merge, which goes on in a new process after
        # an input that crashes; the counters live in the profile files (%c), so none are lost.
        mkdir -p "$profiles/merged"
        dirs=("$ROOT/fuzz/corpus/$target")
        [ -d "$SAN_BUILD/campaign/$target/corpus" ] && dirs+=("$SAN_BUILD/campaign/$target/corpus")
        LLVM_PROFILE_FILE="$profiles/%c%m-%p.profraw" "$COV_BUILD/fuzz_$target" -merge=1 -timeout=10 \
            -artifact_prefix="$profiles/" "$profiles/merged" "${dirs[@]}" > "$profiles/log" 2>&1 || true
        "$LLVM_BIN/llvm-profdata" merge -o "$profiles/all.profdata" "$profiles"/*.profraw
        echo "== coverage of Sources/ by the $target corpus (files it reaches)"
        "$LLVM_BIN/llvm-cov" report "$COV_BUILD/libmfa.so" -instr-profile="$profiles/all.profdata" \
            | awk '/^TOTAL/ || ($1 ~ /\.swift$/ && $9 != $8) { printf "  %-44s lines %6s of %6s  %8s\n", $1, $8 - $9, $8, $10 }'
    done
fi
