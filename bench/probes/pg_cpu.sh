#!/usr/bin/env bash
# Where the CPU of a PostgreSQL sign-in goes, against pgbench -N: the client
# processes (libmfa's, pgbench's), the server's backends, and the whole
# machine, in CPU microseconds per operation (a complete TOTP sign-in, a
# pgbench -N -M prepared transaction), each side with PROCESSES clients.
#
# bench/store.sh gives the rates; when the machine is saturated (two cores,
# two clients and two backends), each side's rate is the machine's CPU over
# its CPU per operation, and this says which part costs more. Each side
# runs 8 seconds; the kernel's per-process times (utime + stime, so the
# system calls and the network stack a process runs count for it) are read
# 2 and 7 seconds in, when every client has connected and none has ended.
# The server runs on loopback as bench/store.sh starts it (fsync on,
# synchronous_commit off), with the same warm tables. Rounds alternate; the
# median of each figure is printed. A benchmark, not a test.
#
#   bench/probes/pg_cpu.sh [processes] [rounds] [users]
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
processes=${1:-2}
rounds=${2:-5}
users=${3:-10000}
port=$((${MFA_PG_PORT_BASE:-25432} + 10))
work=$(mktemp -d)
trap '"$ROOT/scripts/pg.sh" stop $port > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(MFA_PG_OPTIONS="-c fsync=on -c synchronous_commit=off" "$ROOT/scripts/pg.sh" start $port)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -i -q -s 1 -n libmfa > /dev/null 2>&1
# Warm as bench/store.sh: the users imported, each signed in once, a first run of each side uncounted.
"$out/store_bench" "$url" "$users" 0 1 > /dev/null
BENCH_SKIP_IMPORT=1 "$out/store_bench" "$url" "$users" "$users" 1 > /dev/null
offset=1000000
hz=$(getconf CLK_TCK)

# ticks PATTERN...: CPU ticks (utime + stime) of the processes whose command lines match
ticks() {
    local total=0 pid pattern
    for pattern in "$@"; do
        for pid in $(pgrep -f -- "$pattern" || true); do
            total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2> /dev/null || echo 0)))
        done
    done
    echo "$total"
}
# busy: the machine's busy ticks, summed over its cores
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

# side NAME CLIENT-PATTERN COMMAND...: runs COMMAND (8 s), appends "rate client backend machine" (µs per operation)
side() {
    local name=$1 pattern=$2 c0 b0 m0 c1 b1 m1 rate
    shift 2
    "$@" > "$work/out" 2>&1 &
    local pid=$!
    sleep 2
    c0=$(ticks "$pattern") b0=$(ticks "postgres: postgres libmfa") m0=$(busy)
    sleep 5
    c1=$(ticks "$pattern") b1=$(ticks "postgres: postgres libmfa") m1=$(busy)
    wait "$pid"
    rate=$(sed -n -e 's/^tps = \([0-9.]*\).*/\1/p' -e "s/^$processes \([0-9]*\)$/\1/p" "$work/out" | cut -d. -f1)
    awk -v r="$rate" -v c=$((c1 - c0)) -v b=$((b1 - b0)) -v m=$((m1 - m0)) -v hz="$hz" \
        'BEGIN {n = r * 5; printf "%d %.1f %.1f %.1f\n", r, c / hz * 1e6 / n, b / hz * 1e6 / n, m / hz * 1e6 / n}' \
        >> "$work/$name"
}
pgbench_side() {
    as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -n -N -M prepared -c "$processes" -j "$processes" \
        -T 8 libmfa
}
libmfa_side() {
    BENCH_SECONDS=8 BENCH_SKIP_IMPORT=1 BENCH_TIME_OFFSET=$offset "$out/store_bench" "$url" "$users" 40000 "$processes"
}
pgbench_side > /dev/null 2>&1
libmfa_side > /dev/null
for _ in $(seq "$rounds"); do
    side pgbench "pgbench -h 127.0.0.1" pgbench_side
    offset=$((offset + 1000000))
    side libmfa "$out/store_bench" libmfa_side
done

median() { # median COLUMN FILE
    cut -d' ' -f"$1" "$2" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo "CPU per operation, $processes client process(es), $(nproc) cores, median of $rounds rounds, $(date -u +%Y-%m-%d)"
printf '%-34s %10s %12s %12s %12s\n' side "ops/s" "clients µs" "backends µs" "machine µs"
for name in pgbench libmfa; do
    label=$([ $name = pgbench ] && echo "pgbench -N -M prepared" || echo "libmfa, complete TOTP sign-in")
    printf '%-34s %10s %12s %12s %12s\n' "$label" "$(median 1 "$work/$name")" "$(median 2 "$work/$name")" \
        "$(median 3 "$work/$name")" "$(median 4 "$work/$name")"
done
