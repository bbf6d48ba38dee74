#!/usr/bin/env bash
# Complete TOTP sign-ins per second (mfa_sign_in, then mfa_resolve_totp) on a
# shared store, each against its peer measured in the same run; the resolve
# runs on the context that signed in (which uses what the sign-in read), and
# again on a second context ("elsewhere": another server, which reads):
#
#   SQLite       libmfa vs bench/sqlite_baseline.c, the bare SQLite work of a
#                sign-in (one read; BEGIN IMMEDIATE, a read, an update,
#                COMMIT; WAL, synchronous=NORMAL), 1 and 2 processes
#   PostgreSQL   libmfa vs pgbench's simple-update transaction (-N, prepared
#                statements), 1, 2 and 8 client processes, each side for 5
#                seconds after its clients connected, on a server on
#                loopback started here (fsync on, synchronous_commit off:
#                like SQLite's WAL with synchronous=NORMAL, it survives a
#                crash of any process but may lose the last commits on power
#                loss)
#
# Every SQLite side runs the same number of sign-ins per process, so that
# each process's fixed costs (opening, the first statements, closing)
# weigh the same on every side. Every side is measured warm, as a running
# store is: the libmfa users are imported, then each signs in once,
# untimed, before the counted runs (the first write of each row after an
# import is dearer on both stores: SQLite splits pages as the rows grow,
# PostgreSQL finds no room on the loaded pages for a HOT update);
# bench/sqlite_baseline.c does the same with its rows; pgbench's tables are loaded once and written
# by a first, uncounted run.
#
# The machine is shared and noisy: each pair is run [rounds] times on
# PostgreSQL (5 seconds a run) and [sqlite rounds] times on SQLite (well
# under a second a run), alternately, and the best of each side is kept.
# libmfa's sign-ins use codes made before the clock starts, as a user's
# authenticator makes them (bench/store_bench.c); the peers make none.
# A benchmark, not a test.
#
#   bench/store.sh [users] [sign-ins per process] [rounds] [sqlite rounds]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
users=${1:-10000}
signins=${2:-10000}
rounds=${3:-3}
sqlite_rounds=${4:-5}
port=$((${MFA_PG_PORT_BASE:-25432} + 8))
work=$(mktemp -d)
chmod 755 "$work"
trap '"$ROOT/scripts/pg.sh" stop $port > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(MFA_PG_OPTIONS="-c fsync=on -c synchronous_commit=off" "$ROOT/scripts/pg.sh" start $port)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_do() { PGOPTIONS="-c client_min_messages=warning" as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -qAtc "$1" libmfa > /dev/null; }
psql_do "DROP SCHEMA public CASCADE; CREATE SCHEMA public"
as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -i -q -s 1 -n libmfa > /dev/null 2>&1

best() { # best NUMBER...: the largest
    printf '%s\n' "$@" | sort -n | tail -n 1
}
# import_warm STORE: imports the users, then signs each in once, untimed.
import_warm() {
    "$out/store_bench" "$1" "$users" 0 1 > /dev/null
    BENCH_SKIP_IMPORT=1 "$out/store_bench" "$1" "$users" "$users" 1 > /dev/null
}
# The resolve on the context that signed in (it uses the sign-in's read), or
# with ELSEWHERE=1 on a second context (as when another server gets it).
sqlite_libmfa() {
    rm -f "$work"/s.sqlite*
    import_warm "$work/s.sqlite"
    BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 BENCH_RESOLVE_ELSEWHERE=${ELSEWHERE:-0} \
        "$out/store_bench" "$work/s.sqlite" "$users" "$signins" "$1" | cut -d' ' -f2
}
sqlite_bare() { rm -f "$work"/b.sqlite*; "$out/sqlite_baseline" "$work/b.sqlite" "$users" "$signins" "$1" | cut -d' ' -f2; }
# pg_libmfa PROCESSES OFFSET: on the store imported and warmed below, each
# run on time steps of its own (OFFSET seconds later), as pgbench's runs all
# use the tables it loaded once.
pg_libmfa() {
    # Timed as pgbench -T 5 is: 5 seconds, from when every client has connected; codes made
    # beforehand for each client's first 20,000 sign-ins (more than 5 seconds take).
    BENCH_SECONDS=5 BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=$2 BENCH_RESOLVE_ELSEWHERE=${ELSEWHERE:-0} \
        "$out/store_bench" "$url?options=-csearch_path%3Dmfa" "$users" 20000 "$1" |
        cut -d' ' -f2
}
pg_peer() {
    as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -n -N -M prepared -c "$1" -j "$1" -T 5 libmfa 2>/dev/null |
        sed -n 's/^tps = \([0-9.]*\).*/\1/p' | cut -d. -f1
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "users: $users, sign-ins per process (SQLite): $signins, best of $sqlite_rounds (SQLite) and $rounds (PostgreSQL) alternating rounds"
printf '%-11s %9s %14s %14s %7s %16s %7s\n' store processes "libmfa /s" "peer /s" ratio "elsewhere /s" ratio
row() { # row STORE PROCESSES LIBMFA PEER ELSEWHERE
    printf '%-11s %9s %14s %14s %6s%% %16s %6s%%\n' "$1" "$2" "$3" "$4" "$(( $3 * 100 / $4 ))" "$5" "$(( $5 * 100 / $4 ))"
}
for processes in 1 2; do
    mine=() peer=() apart=()
    for _ in $(seq "$sqlite_rounds"); do
        peer+=("$(sqlite_bare "$processes")")
        mine+=("$(sqlite_libmfa "$processes")")
        apart+=("$(ELSEWHERE=1 sqlite_libmfa "$processes")")
    done
    row sqlite "$processes" "$(best "${mine[@]}")" "$(best "${peer[@]}")" "$(best "${apart[@]}")"
done
# Both sides start warm: the users imported once and each signed in once,
# and a first run of each side, neither counted (as pgbench's own tables
# have been written before its counted runs).
psql_do "DROP SCHEMA IF EXISTS mfa CASCADE; CREATE SCHEMA mfa"
import_warm "$url?options=-csearch_path%3Dmfa"
pg_peer 2 > /dev/null
offset=1000000
pg_libmfa 2 "$offset" > /dev/null
for processes in 1 2 8; do
    mine=() peer=() apart=()
    for _ in $(seq "$rounds"); do
        peer+=("$(pg_peer "$processes")")
        offset=$((offset + 1000000))
        mine+=("$(pg_libmfa "$processes" "$offset")")
        offset=$((offset + 1000000))
        apart+=("$(ELSEWHERE=1 pg_libmfa "$processes" "$offset")")
    done
    row postgresql "$processes" "$(best "${mine[@]}")" "$(best "${peer[@]}")" "$(best "${apart[@]}")"
done
echo "peers: sqlite = bench/sqlite_baseline.c; postgresql = pgbench -N -M prepared, scale 1"
echo "libmfa: the resolve on the context that signed in; elsewhere: on a second context (another server)"
