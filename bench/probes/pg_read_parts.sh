#!/usr/bin/env bash
# What each part of libmfa's sign-in read costs the PostgreSQL server, in
# instructions per execution counted by valgrind's callgrind: the read as
# libmfa sends it; the same with TOTP's columns read through a join of a
# table of their own, as before TOTP track 3 moved them into the factor's
# row (a copy of them is made for it); the read without the
# configuration's subquery (the stored document as a constant); two other
# ways to read the configuration (its row as the join's first table; a
# sequence's value, as a version check of a kept copy would read it); for
# scale a one-table primary key read (pgbench -N's SELECT); last, the read
# as sent with its text keys compared bytewise (COLLATE "C", as SQLite
# compares them). For the read as sent it also prints how much of it is
# the executor's start (setting up each plan node and each column, on
# every execution of a prepared statement) and its run.
#
# The read is taken from the server's log of a real sign-in (log_statement),
# so that it is the statement this libmfa sends; its tenant parameters
# become '' and its uid parameters a pgbench variable, and each variant runs
# under pgbench -M prepared -f against the server under callgrind, N and
# then 2N times on one connection: the difference of the two backends'
# counts divided by N is one execution, without the connection's start.
# The store is bench/store.sh's (10,000 users, each signed in once, then
# analysed as autovacuum would). The whole sign-in is in
# bench/probes/pg_server_callgrind.sh. A benchmark, not a test.
#
#   bench/probes/pg_read_parts.sh [executions]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
n=${1:-500}
users=10000
port=$((${MFA_PG_PORT_BASE:-25432} + 11))
. "$ROOT/bench/probes/pg_callgrind_server.sh"
psql_at() { as_postgres psql -h 127.0.0.1 -p "$port" -U postgres -qAtc "$1" libmfa; }
"$out/store_bench" "$url" "$users" 0 1 > /dev/null
BENCH_SKIP_IMPORT=1 "$out/store_bench" "$url" "$users" "$users" 1 > /dev/null
psql_at "CREATE SEQUENCE mfa_bench_version"
# TOTP's columns as TOTP track 2 kept them, in a table of their own.
psql_at "CREATE TABLE bench_totp_factors (enrollment_id TEXT PRIMARY KEY, algorithm BIGINT NOT NULL, \
    digits BIGINT NOT NULL, period BIGINT NOT NULL, last_step BIGINT NOT NULL DEFAULT -1)"
psql_at "INSERT INTO bench_totp_factors SELECT enrollment_id, totp_algorithm, totp_digits, totp_period, \
    totp_last_step FROM mfa_factors WHERE factor_id = 'totp'"
psql_at "VACUUM ANALYZE" > /dev/null
# One more sign-in, logged: the read as this libmfa sends it.
psql_at "ALTER SYSTEM SET log_statement = 'all'"
psql_at "SELECT pg_reload_conf()" > /dev/null
BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=1000000 "$out/store_bench" "$url" "$users" 1 1 > /dev/null
psql_at "ALTER SYSTEM RESET log_statement"
psql_at "SELECT pg_reload_conf()" > /dev/null
document=$(psql_at "SELECT document FROM mfa_config WHERE tenant = ''")
uid=$(psql_at "SELECT uid FROM mfa_users ORDER BY uid LIMIT 1 OFFSET $((users / 2))")

# The variants, from the read in the log (python3 checks that every part it
# changes is there: a read of another shape stops the benchmark).
grep -o 'execute mfa_[0-9a-f]*: SELECT d.project, .*' "$work/server.log" | head -n 1 | sed 's/^execute [^:]*: //' \
    > "$work/read.sql"
python3 - "$work" "$document" <<'EOF'
import sys
work, document = sys.argv[1], sys.argv[2]
read = open(f"{work}/read.sql").read().strip()
for number, value in (("$1", "''"), ("$3", "''"), ("$2", ":uid"), ("$4", ":uid")):
    assert read.count(number) == 1, f"the read's parameter {number} is not where this benchmark expects it"
    read = read.replace(number, value)
columns = "f.totp_algorithm, f.totp_digits, f.totp_period, f.totp_last_step"
config = "(SELECT document FROM mfa_config WHERE tenant = '')"
literal = "'" + document.replace("'", "''") + "'::text"
driving = f"FROM (SELECT {config} AS project) d LEFT JOIN"
for part in (columns, config, driving, "SELECT d.project, "):
    assert read.count(part) == 1, f"the read has no {part!r}: its shape changed"
assert " JOIN mfa_totp_factors" not in read
variants = {
    "read": read,
    # TOTP's columns in a table of their own, joined (the layout before TOTP track 3).
    "joined": read.replace(columns, "t.algorithm, t.digits, t.period, t.last_step")
              + " LEFT JOIN bench_totp_factors t ON t.enrollment_id = f.enrollment_id",
    "no_config": read.replace(config, literal),
    # Two ways to keep the configuration that were measured and not taken.
    "config_row": read.replace(driving, "FROM mfa_config c LEFT JOIN")
                      .replace("SELECT d.project, ", "SELECT c.document, ") + " WHERE c.tenant = ''",
    "version": read.replace(config, "pg_sequence_last_value('mfa_bench_version'::regclass)::text"),
    "pk_read": "SELECT abalance FROM pgbench_accounts WHERE aid = 5000",
}
for name, text in variants.items():
    open(f"{work}/{name}.sql", "w").write(text + ";\n")
EOF

# From here on every new backend runs under callgrind.
under_callgrind

# run NAME TIMES: the callgrind files of the backends a pgbench run of NAME.sql started
run() {
    started as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -f "$work/$1.sql" \
        -D "uid=$uid" -t "$2" libmfa
}
# inclusive FUNCTION FILE...: FUNCTION's instructions, callees included, in the files
inclusive() {
    local name=$1 file sum=0 count
    shift
    for file in "$@"; do
        count=$(callgrind_annotate --inclusive=yes "$file" 2> /dev/null |
                awk -v f="$name" '$0 ~ ":" f " " {gsub(",", "", $1); print $1; exit}')
        sum=$((sum + ${count:-0}))
    done
    echo "$sum"
}

echo "PostgreSQL server instructions per execution (callgrind, $(basename "$(dirname "$bin")")), $n and $((2 * n)) executions, $(date -u +%Y-%m-%d)"
# The first backends after the start build the server's catalog caches: a run of each first.
for name in read pk_read; do run "$name" 10 > /dev/null; done
labels=(
    "read:the sign-in read as libmfa sends it"
    "joined:the same, TOTP's columns joined from a table of their own"
    "no_config:the same as sent without the configuration's subquery"
    "config_row:the configuration's row as the first table, not a subquery"
    "version:a sequence's value in the subquery's place (a version check)"
    "pk_read:a one-table primary key read (pgbench -N's SELECT)"
    "collated:the read as sent, its text keys in COLLATE \"C\""
)
for entry in "${labels[@]}"; do
    name=${entry%%:*}
    if [ "$name" = collated ]; then
        # The keys compared bytewise, as SQLite compares them (a database's
        # own locale may be another): every column the read's index searches compare.
        psql_at "ALTER TABLE mfa_users ALTER COLUMN tenant TYPE text COLLATE \"C\", ALTER COLUMN uid TYPE text COLLATE \"C\""
        psql_at "ALTER TABLE mfa_factors ALTER COLUMN tenant TYPE text COLLATE \"C\", ALTER COLUMN uid TYPE text COLLATE \"C\", ALTER COLUMN enrollment_id TYPE text COLLATE \"C\""
        psql_at "ALTER TABLE mfa_config ALTER COLUMN tenant TYPE text COLLATE \"C\""
        psql_at "ANALYZE" > /dev/null
        cp "$work/read.sql" "$work/collated.sql"
        run collated 10 > /dev/null
    fi
    small=$(run "$name" "$n")
    large=$(run "$name" $((2 * n)))
    printf '%-64s %10s\n' "${entry#*:}" $(( ($(echo "$large" | instructions) - $(echo "$small" | instructions)) / n ))
    if [ "$name" = read ]; then
        for part in standard_ExecutorStart standard_ExecutorRun; do
            # shellcheck disable=SC2086
            printf '  %-62s %10s\n' "of which $part" \
                $(( ($(inclusive "$part" $large) - $(inclusive "$part" $small)) / n ))
        done
    fi
done
