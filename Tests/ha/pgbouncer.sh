#!/usr/bin/env bash
# PgBouncer test: libmfa behind Debian's PgBouncer in transaction pooling
# mode, with fewer server connections than clients, so that consecutive
# transactions of one client land on different server connections.
#
# Debian 12's PgBouncer (1.18) does not carry prepared statements from one
# server connection to the next and refuses startup options, so the store
# URL says mfa_prepared=off: unnamed statements, no startup options, and no
# session state of any kind (no SET, no advisory locks; libmfa has none).
#
# Runs, through PgBouncer: the Swift store contract and flow suites (each
# store a database of its own, created on the server), and the C client of
# Tests/ha (two processes signing in, then the checks that no code was
# accepted twice and every accepted code is refused on replay).
#
# Ports: MFA_PG_PORT_BASE + 4 (PostgreSQL) and + 7 (PgBouncer); both run as
# the `postgres` user when started as root. Needs the SwiftPM build of the
# tests (swift build --build-tests) and the CMake build (build/libmfa.so).
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
base=${MFA_PG_PORT_BASE:-25432}
pg_port=$((base + 4))
port=$((base + 7))
users=100
work=$(mktemp -d "${TMPDIR:-/tmp}/libmfa-pgbouncer.XXXXXX")
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
cleanup() {
    [ -f "$work/pgbouncer.pid" ] && kill "$(cat "$work/pgbouncer.pid")" 2> /dev/null || true
    "$ROOT/scripts/pg.sh" stop "$pg_port" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v pgbouncer > /dev/null || { echo "pgbouncer is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

admin=$("$ROOT/scripts/pg.sh" start "$pg_port")
cat > "$work/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$pg_port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $work/userlist.txt
pool_mode = transaction
default_pool_size = 2
max_client_conn = 400
server_reset_query =
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
EOF
echo '"postgres" ""' > "$work/userlist.txt"
[ "$(id -u)" = 0 ] && chown postgres "$work"/*
as_postgres pgbouncer -d -q "$work/pgbouncer.ini"
ready() { as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1" libmfa > /dev/null 2>&1; }
for _ in $(seq 50); do ready && break; sleep 0.2; done
ready || { cat "$work/pgbouncer.log" >&2; exit 1; }
pooled="postgres://postgres@127.0.0.1:$port/libmfa?mfa_prepared=off&mfa_deadline_ms=10000"

echo "== the Swift store contract and flow suites, through PgBouncer"
MFA_TEST_POSTGRES_URL=$pooled MFA_TEST_POSTGRES_ADMIN_URL=$admin swift test --skip-build \
    --filter 'StoreContractTests|FlowContractTests|RecoveryCodeTests|PhoneBurstTests|TOTPReuseRaceTests|SingleUseTests' \
    > "$work/swift.log" 2>&1 || { cat "$work/swift.log"; exit 1; }
grep -E "^✔ Test run|^✘ Test run" "$work/swift.log"
grep -q "✔ Test run" "$work/swift.log"

echo "== two processes signing in through PgBouncer"
cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$ROOT/include" "$ROOT/Tests/ha/ha_client.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$work/ha_client"
"$work/ha_client" setup "$pooled" "$users"
pids=()
for worker in 0 1; do
    "$work/ha_client" work "$pooled" "$users" "$worker" 2 "$work/worker$worker.log" "$work/stop" &
    pids+=($!)
done
enough() { [ "$(grep -c '^OK' "$work/worker0.log" "$work/worker1.log" 2> /dev/null | awk -F: '{s += $2} END {print s + 0}')" -ge 600 ]; }
for _ in $(seq 600); do enough && break; sleep 0.1; done
touch "$work/stop"
for pid in "${pids[@]}"; do wait "$pid"; done
enough || { echo "FAILED: too few sign-ins through PgBouncer" >&2; exit 1; }
"$work/ha_client" verify "$pooled" "$users" "$work/worker0.log" "$work/worker1.log"
echo "pgbouncer: 2 passed, 0 failed"
