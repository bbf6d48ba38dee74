#!/usr/bin/env bash
# What one user and one sign-in cost the store, for docs/scaling.md: rows
# and bytes per user (TOTP factors imported), and per complete TOTP
# sign-in the round trips, the rows written and the WAL written, on a
# PostgreSQL server on loopback started here; and the SQLite file's bytes
# per user. A benchmark, not a test.
#
#   bench/scaling.sh [users] [sign-ins]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
users=${1:-20000}
signins=${2:-20000}
port=$((${MFA_PG_PORT_BASE:-25432} + 8))
work=$(mktemp -d)
trap '"$ROOT/scripts/pg.sh" stop $port > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(MFA_PG_OPTIONS="-c fsync=on -c synchronous_commit=off -c shared_preload_libraries=pg_stat_statements" \
    "$ROOT/scripts/pg.sh" start $port)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
q() { PGOPTIONS="-c client_min_messages=warning" as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -qAtc "$1" libmfa; }
q "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
tables="'mfa_users','mfa_factors','mfa_consumed','mfa_config','mfa_meta'"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "== PostgreSQL: $users users, each with one TOTP factor (mfa_totp_import)"
"$out/store_bench" "$url" "$users" 0 1 > /dev/null
q "VACUUM ANALYZE"
q "SELECT relname, n_live_tup, pg_total_relation_size(relid), round(pg_total_relation_size(relid)::numeric / $users, 1)
   FROM pg_stat_user_tables WHERE relname IN ('mfa_users','mfa_factors') ORDER BY relname" |
    awk -F'|' 'BEGIN {printf "%-18s %10s %12s %14s\n", "table", "rows", "bytes", "bytes/user"}
               {printf "%-18s %10s %12s %14s\n", $1, $2, $3, $4; total += $4} END {printf "%-18s %38.1f\n", "per user", total}'

echo "== PostgreSQL: $signins complete sign-ins (mfa_sign_in + mfa_resolve_totp), one process"
q "SELECT pg_stat_reset(), pg_stat_statements_reset()" > /dev/null
q "CHECKPOINT"
before_lsn=$(q "SELECT pg_current_wal_lsn()")
before_xact=$(q "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'libmfa'")
BENCH_SKIP_IMPORT=1 "$out/store_bench" "$url" "$users" "$signins" 1 > "$work/rate"
sleep 1 # the statistics collector
after_lsn=$(q "SELECT pg_current_wal_lsn()")
after_xact=$(q "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'libmfa'")
echo "sign-ins per second: $(cut -d' ' -f2 "$work/rate")"
echo "statements (each its own transaction, one round trip) per sign-in: $(( (after_xact - before_xact) / signins ))" \
     "(pg_stat_database, including the benchmark's own few)"
echo "WAL bytes per sign-in (from a checkpoint, so with the full-page images of first touches):" \
     "$(q "SELECT round(pg_wal_lsn_diff('$after_lsn', '$before_lsn') / $signins)")"
q "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ($tables) ORDER BY relname" |
    awk -F'|' -v n="$signins" 'BEGIN {printf "%-18s %14s %14s %14s\n", "table", "inserts/sign-in", "updates/sign-in", "HOT share"}
        {printf "%-18s %14.2f %14.2f %13.0f%%\n", $1, $2 / n, $3 / n, ($3 > 0 ? 100 * $4 / $3 : 0)}'
q "SELECT 'mfa_consumed after the run', count(*), pg_total_relation_size('mfa_consumed'),
          round(pg_total_relation_size('mfa_consumed')::numeric / greatest(count(*), 1), 1) FROM mfa_consumed" |
    awk -F'|' '{printf "%s: %s rows, %s bytes, %s bytes/row (kept until each credential expires, then purged)\n", $1, $2, $3, $4}'
echo "== PostgreSQL: the same, steady state (no checkpoint in between: WAL without full-page images)"
q "ANALYZE" # the statistics of a full mfa_consumed: cached plans are made again
q "SELECT pg_stat_statements_reset()" > /dev/null
before_lsn=$(q "SELECT pg_current_wal_lsn()")
BENCH_TIME_OFFSET=86400 BENCH_SKIP_IMPORT=1 "$out/store_bench" "$url" "$users" "$signins" 1 > /dev/null
after_lsn=$(q "SELECT pg_current_wal_lsn()")
echo "WAL bytes per sign-in, steady: $(q "SELECT round(pg_wal_lsn_diff('$after_lsn', '$before_lsn') / $signins)")"
echo "server time per statement (pg_stat_statements: planning and execution, microseconds a call):"
q "SELECT calls / $signins, round((mean_exec_time + mean_plan_time)::numeric * 1000), left(regexp_replace(query, '\s+', ' ', 'g'), 70)
   FROM pg_stat_statements WHERE calls >= $signins ORDER BY total_exec_time DESC" |
    awk -F'|' '{printf "  %s a sign-in, %5s us: %s...\n", $1, $2, $3}'


echo "== SQLite: $users users"
"$out/store_bench" "$work/s.sqlite" "$users" 0 1 > /dev/null
sqlite_bytes=$(stat -c %s "$work/s.sqlite")
echo "file bytes per user (after import): $(( sqlite_bytes / users ))"
