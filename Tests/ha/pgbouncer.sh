#!/usr/bin/env bash
# PgBouncer test: libmfa behind Debian's PgBouncer in transaction pooling
# mode, with fewer server connections than clients, so that consecutive
# transactions of one client land on different server connections.
#
# The store URLs are plain: libmfa finds the pooler out by itself.
# - PgBouncer as Debian ships it (1.18) refuses startup options and does not
#   carry prepared statements from one server connection to the next:
#   libmfa connects again without the options and sends unnamed statements.
# - The same PgBouncer told to ignore startup options
#   (ignore_startup_parameters = options) takes them, so libmfa starts with
#   named statements; a name missing on the server connection a statement
#   lands on (or taken there by another client) makes libmfa drop names and
#   run the statement or its transaction again. The server's log must show
#   that this happened, so that the path is known to be exercised.
# No session state of any kind either way (no SET, no advisory locks).
#
# Runs through each PgBouncer: Swift store contract and flow suites (each
# store a database of its own, created on the server; all of them through
# the first, the contract and TOTP race suites through the second), and the
# C client of Tests/ha (two processes signing in, then the checks that no
# code was accepted twice and every accepted code is refused on replay).
#
# Ports: MFA_PG_PORT_BASE + 4 (PostgreSQL), + 7 and + 8 (the two PgBouncers);
# all run as the `postgres` user when started as root. Needs the SwiftPM
# build of the tests (swift build --build-tests) and the CMake build
# (build/libmfa.so).
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
base=${MFA_PG_PORT_BASE:-25432}
pg_port=$((base + 4))
users=100
passed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/libmfa-pgbouncer.XXXXXX")
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
cleanup() {
    for pid in "$work"/*/pgbouncer.pid; do [ -f "$pid" ] && kill "$(cat "$pid")" 2> /dev/null || true; done
    "$ROOT/scripts/pg.sh" stop "$pg_port" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v pgbouncer > /dev/null || { echo "pgbouncer is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

admin=$("$ROOT/scripts/pg.sh" start "$pg_port")
server_log="${TMPDIR:-/tmp}/libmfa-pg-$pg_port/server.log"

# bouncer NAME PORT [SETTING]: starts a PgBouncer in transaction mode with two
# server connections, in $work/NAME, with SETTING among its settings.
bouncer() {
    local dir=$work/$1 port=$2
    mkdir -p "$dir"
    printf '%s\n' "[databases]" "* = host=127.0.0.1 port=$pg_port" "[pgbouncer]" "listen_addr = 127.0.0.1" \
        "listen_port = $port" "unix_socket_dir =" "auth_type = trust" "auth_file = $dir/userlist.txt" \
        "pool_mode = transaction" "default_pool_size = 2" "max_client_conn = 400" "server_reset_query =" \
        "logfile = $dir/pgbouncer.log" "pidfile = $dir/pgbouncer.pid" "${3:-}" > "$dir/pgbouncer.ini"
    echo '"postgres" ""' > "$dir/userlist.txt"
    [ "$(id -u)" = 0 ] && chown -R postgres "$dir"
    as_postgres pgbouncer -d -q "$dir/pgbouncer.ini"
    local up=0
    for _ in $(seq 50); do
        as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1" libmfa > /dev/null 2>&1 && { up=1; break; }
        sleep 0.2
    done
    [ "$up" = 1 ] || { cat "$dir/pgbouncer.log" >&2; exit 1; }
}

# suites URL FILTER: the Swift suites FILTER names, through URL.
suites() {
    MFA_TEST_POSTGRES_URL=$1 MFA_TEST_POSTGRES_ADMIN_URL=$admin swift test --skip-build --filter "$2" \
        > "$work/swift.log" 2>&1 || { cat "$work/swift.log"; exit 1; }
    grep -E "^✔ Test run|^✘ Test run" "$work/swift.log"
    grep -q "✔ Test run" "$work/swift.log"
    passed=$((passed + 1))
}

cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$ROOT/include" "$ROOT/Tests/ha/ha_client.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$work/ha_client"

# sign-ins in all, by the two workers
signed_in() { grep -c '^OK' "$work/worker0.log" "$work/worker1.log" 2> /dev/null | awk -F: '{s += $2} END {print s + 0}'; }

# signing_in URL: two processes sign in through URL, then the checks.
signing_in() {
    rm -f "$work"/worker*.log "$work/stop"
    "$work/ha_client" setup "$1" "$users"
    local pids=()
    for worker in 0 1; do
        "$work/ha_client" work "$1" "$users" "$worker" 2 "$work/worker$worker.log" "$work/stop" &
        pids+=($!)
    done
    for _ in $(seq 600); do [ "$(signed_in)" -ge 600 ] && break; sleep 0.1; done
    touch "$work/stop"
    for pid in "${pids[@]}"; do wait "$pid"; done
    [ "$(signed_in)" -ge 600 ] || { echo "FAILED: too few sign-ins through PgBouncer" >&2; exit 1; }
    "$work/ha_client" verify "$1" "$users" "$work/worker0.log" "$work/worker1.log"
    passed=$((passed + 1))
}

# names_lost: how many times the server refused a statement name of libmfa's
names_lost() { grep -cE 'prepared statement "mfa_[0-9a-f]+" (does not exist|already exists)' "$server_log" || true; }

bouncer refusing "$((base + 7))"
plain="postgres://postgres@127.0.0.1:$((base + 7))/libmfa?mfa_deadline_ms=10000"
echo "== through PgBouncer as Debian ships it (it refuses startup options), a plain URL"
MFA_TEST_POOLER=refusing suites "$plain" 'poolerFound|ownOptionsKept'
suites "$plain" 'StoreContractTests|FlowContractTests|RecoveryCodeTests|PhoneBurstTests|TOTPReuseRaceTests|SingleUseTests'
signing_in "$plain"

bouncer ignoring "$((base + 8))" "ignore_startup_parameters = options"
# Users of their own: the first run's users are in the database libmfa.
as_postgres psql -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE libmfa_ignoring" libmfa
ignoring="postgres://postgres@127.0.0.1:$((base + 8))/libmfa_ignoring?mfa_deadline_ms=10000"
echo "== through PgBouncer taking startup options (statement names do not last), a plain URL"
before=$(names_lost)
suites "$ignoring" 'StoreContractTests|TOTPReuseRaceTests'
signing_in "$ignoring"
after=$(names_lost)
echo "statement names the server did not have or had already, recovered from: $((after - before))"
[ "$after" -gt "$before" ] || { echo "FAILED: no statement name was lost: the fallback was not exercised" >&2; exit 1; }
echo "pgbouncer: $passed passed, 0 failed"
