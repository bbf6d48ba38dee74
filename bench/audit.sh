#!/usr/bin/env bash
# What storing the audit trail costs a complete TOTP sign-in (mfa_sign_in,
# then mfa_resolve_totp): the same sign-ins with the configuration's
# auditTrail.store off and on, in one run.
#
#   instructions  valgrind's callgrind count of libmfa's sign-in calls per
#                 sign-in (exact and repeatable on a shared machine), on
#                 SQLite, and on PostgreSQL for the client side
#   rates         sign-ins per second on SQLite (1 process) and on a
#                 PostgreSQL server on loopback (1 and 8 client processes, 5
#                 seconds each after they connected): off, on with every
#                 process appending to the one chain "main", and on with a
#                 chain per process (mfa_options.audit_chain)
#
# Each rate is the best of [rounds] runs, the sides alternating (the
# machine is shared and noisy). A benchmark, not a test.
#
#   bench/audit.sh [users] [sign-ins] [rounds]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
users=${1:-2000}
signins=${2:-2000}
rounds=${3:-3}
port=$((${MFA_PG_PORT_BASE:-25432} + 9))
work=$(mktemp -d)
chmod 755 "$work"
trap '"$ROOT/scripts/pg.sh" stop $port > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(MFA_PG_OPTIONS="-c fsync=on -c synchronous_commit=off" "$ROOT/scripts/pg.sh" start $port)

best() { printf '%s\n' "$@" | sort -n | tail -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
total() { cat "$@" | sed -n 's/^summary: //p' | awk '{sum += $1} END {print sum}'; }
# A PostgreSQL store of its own for each side: schema NAME, the users imported and warm.
pg_store() {
    local schema=$1
    as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
    PGOPTIONS="-c client_min_messages=warning" as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -qAtc \
        "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" libmfa > /dev/null
    echo "$url?options=-csearch_path%3D$schema"
}
# import_warm STORE TRAIL: the users imported, each signed in once, untimed.
import_warm() {
    BENCH_AUDIT_TRAIL=$2 "$out/store_bench" "$1" "$users" 0 1 > /dev/null
    BENCH_AUDIT_TRAIL=$2 BENCH_SKIP_IMPORT=1 "$out/store_bench" "$1" "$users" "$users" 1 > /dev/null
}
# instructions STORE TRAIL: callgrind's count per sign-in of libmfa's sign-in calls.
instructions() {
    import_warm "$1" "$2"
    rm -f "$work"/cg.*
    BENCH_AUDIT_TRAIL=$2 BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 \
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
        --toggle-collect=mfa_sign_in --toggle-collect=mfa_resolve_totp \
        --toggle-collect=mfa_sign_in_result_free --toggle-collect=mfa_resolver_free \
        "$out/store_bench" "$1" "$users" "$signins" 1 > /dev/null 2> "$work/valgrind.log"
    echo $(( $(total "$work"/cg.*) / signins ))
}

echo "the stored audit trail's cost to a complete TOTP sign-in, $users users, $(date -u +%Y-%m-%d)"
rm -f "$work"/*.sqlite*
off=$(instructions "$work/off.sqlite" 0)
on=$(instructions "$work/on.sqlite" 1)
printf '%-46s %12s %12s %7s\n' "instructions per sign-in (callgrind)" "off" "on" "on/off"
printf '%-46s %12s %12s %7s\n' "SQLite" "$off" "$on" "$(ratio "$on" "$off")"
off=$(instructions "$(pg_store cg_off)" 0)
on=$(instructions "$(pg_store cg_on)" 1)
printf '%-46s %12s %12s %7s\n' "PostgreSQL, client side" "$off" "$on" "$(ratio "$on" "$off")"

# SQLite rates: a fresh warm store per run, each run on new time steps.
sqlite_rate() { # TRAIL ROUND
    rm -f "$work"/r.sqlite*
    import_warm "$work/r.sqlite" "$1"
    BENCH_AUDIT_TRAIL=$1 BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=$((1000000 * $2)) \
        "$out/store_bench" "$work/r.sqlite" "$users" "$signins" 1 | cut -d' ' -f2
}
declare -a s_off s_on
for round in $(seq "$rounds"); do
    s_off+=("$(sqlite_rate 0 "$round")")
    s_on+=("$(sqlite_rate 1 "$round")")
done
echo
printf '%-46s %12s %12s %7s\n' "sign-ins per second (best of $rounds)" "off" "on" "on/off"
printf '%-46s %12s %12s %7s\n' "SQLite, 1 process" "$(best "${s_off[@]}")" "$(best "${s_on[@]}")" \
    "$(ratio "$(best "${s_on[@]}")" "$(best "${s_off[@]}")")"

# PostgreSQL rates: one warm store per side, runs on time steps of their own.
store_off=$(pg_store r_off); import_warm "$store_off" 0
store_on=$(pg_store r_on); import_warm "$store_on" 1
pg_rate() { # STORE TRAIL CHAINS PROCESSES OFFSET
    BENCH_SECONDS=5 BENCH_SKIP_IMPORT=1 BENCH_AUDIT_TRAIL=$2 BENCH_AUDIT_CHAINS=$3 BENCH_TIME_OFFSET=$5 \
        "$out/store_bench" "$1" "$users" 20000 "$4" | cut -d' ' -f2
}
offset=1000000
for processes in 1 8; do
    declare -a p_off=() p_one=() p_each=()
    for round in $(seq "$rounds"); do
        offset=$((offset + 1000000)); p_off+=("$(pg_rate "$store_off" 0 0 "$processes" "$offset")")
        offset=$((offset + 1000000)); p_one+=("$(pg_rate "$store_on" 1 0 "$processes" "$offset")")
        offset=$((offset + 1000000)); p_each+=("$(pg_rate "$store_on" 1 1 "$processes" "$offset")")
    done
    o=$(best "${p_off[@]}"); a=$(best "${p_one[@]}"); e=$(best "${p_each[@]}")
    printf '%-46s %12s %12s %7s\n' "PostgreSQL, $processes processes, one chain" "$o" "$a" "$(ratio "$a" "$o")"
    printf '%-46s %12s %12s %7s\n' "PostgreSQL, $processes processes, a chain each" "$o" "$e" "$(ratio "$e" "$o")"
done
