#!/usr/bin/env bash
# What a context's metrics cost a stored sign-in: instructions per complete
# TOTP sign-in (mfa_sign_in, then mfa_resolve_totp) on SQLite, counted by
# valgrind's callgrind (exact and repeatable on a shared machine, where
# rates are not), with metrics off, on (the default), and labelled by tenant,
# in one run, each on its own copy of the same store; prints each count and
# its ratio to "off". The target is a ratio of at most 1.03. A benchmark,
# not a test.
#
#   bench/metrics_cost.sh [sign-ins]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
signins=${1:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# total FILE...: the instructions counted in the callgrind outputs FILE...
total() { cat "$@" | sed -n 's/^summary: //p' | awk '{sum += $1} END {print sum}'; }
# store NAME TENANT: a store of $signins users (of TENANT, or the project's), made once
store() {
    BENCH_TENANT=$2 "$out/store_bench" "$work/$1.sqlite" "$signins" 0 1 > /dev/null
}
# instructions NAME TENANT MODE: per sign-in, on a fresh copy of store NAME
instructions() {
    local copy="$work/run-$1-$3"
    for file in "$work/$1".sqlite*; do cp "$file" "$copy${file#"$work/$1"}"; done
    rm -f "$work"/cg.*
    BENCH_TENANT=$2 BENCH_METRICS=$3 BENCH_SKIP_IMPORT=1 valgrind --tool=callgrind \
        --callgrind-out-file="$work/cg.%p" \
        --toggle-collect=mfa_sign_in --toggle-collect=mfa_resolve_totp \
        --toggle-collect=mfa_sign_in_result_free --toggle-collect=mfa_resolver_free \
        "$out/store_bench" "$copy.sqlite" "$signins" "$signins" 1 > /dev/null 2> "$work/valgrind.log"
    echo $(( $(total "$work"/cg.*) / signins ))
}
# row LABEL COUNT BASE: a line of the table
row() { awk -v l="$1" -v c="$2" -v b="$3" 'BEGIN { printf "%-46s %12d %8.4f\n", l, c, c / b }'; }

store project ""
store tenant acme
echo "instructions per complete sign-in (callgrind), $signins sign-ins on SQLite, $(date -u +%Y-%m-%d)"
printf '%-46s %12s %8s\n' "" "instructions" "ratio"
off=$(instructions project "" off)
row "project's users, metrics off" "$off" "$off"
row "project's users, metrics on (the default)" "$(instructions project "" on)" "$off"
tenant_off=$(instructions tenant acme off)
row "a tenant's users, metrics off" "$tenant_off" "$tenant_off"
row "a tenant's users, metrics on" "$(instructions tenant acme on)" "$tenant_off"
row "a tenant's users, metrics labelled by tenant" "$(instructions tenant acme tenant)" "$tenant_off"
