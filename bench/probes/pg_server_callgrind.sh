#!/usr/bin/env bash
# The PostgreSQL server's instructions per complete TOTP sign-in
# (mfa_sign_in, then mfa_resolve_totp) and per pgbench -N transaction,
# counted by valgrind's callgrind in the server's backends: exact and
# repeatable on a shared machine, where rates are not. The server runs
# under callgrind on loopback (started here, fsync on, synchronous_commit
# off, autovacuum off so that no worker lands in the count); each side runs
# N and then 2N operations over one connection, and the difference of the
# two backends' counts divided by N is the cost of one operation, without
# the connection's start. The client's own instructions are in
# bench/probes/callgrind.sh. A benchmark, not a test.
#
#   bench/probes/pg_server_callgrind.sh [operations]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
n=${1:-300}
users=10000
port=$((${MFA_PG_PORT_BASE:-25432} + 9))
. "$ROOT/bench/probes/pg_callgrind_server.sh"
"$out/store_bench" "$url" "$users" 0 1 > /dev/null
# From here on every new backend runs under callgrind.
under_callgrind

# count COMMAND...: instructions of the backends that COMMAND started (written when they exit)
count() { started "$@" | instructions; }
per_op() { echo $(( ($2 - $1) / n )); }
pgbench_n() { as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -n -N -M prepared -c 1 -j 1 -t "$1" libmfa; }
signins() { BENCH_TIME_OFFSET=$2 BENCH_SKIP_IMPORT=1 "$out/store_bench" "$url" "$users" "$1" 1; }

echo "PostgreSQL server instructions per operation (callgrind, $(basename "$(dirname "$bin")")), $n and $((2 * n)) operations, $(date -u +%Y-%m-%d)"
# The first backends after the start build the server's catalog caches: a run of each first.
count pgbench_n 10 > /dev/null
count signins 10 50000 > /dev/null
peer=$(per_op "$(count pgbench_n "$n")" "$(count pgbench_n $((2 * n)))")
mine=$(per_op "$(count signins "$n" 100000)" "$(count signins $((2 * n)) 200000)")
printf '%-52s %10s\n' "pgbench -N -M prepared, one transaction" "$peer" \
    "libmfa, one complete TOTP sign-in" "$mine"
echo "ratio (libmfa / pgbench): $(awk -v a="$mine" -v b="$peer" 'BEGIN {printf "%.2f", a / b}')"
