#!/usr/bin/env bash
# Complete TOTP sign-ins per second with client processes sharing one store:
# the embedded SQLite file and a PostgreSQL server on loopback (started here,
# with fsync on and synchronous_commit off, which, like SQLite's WAL with
# synchronous=NORMAL, survives a crash of any process but may lose the
# last commits on power loss). A benchmark, not a test.
#
#   bench/store.sh [users] [sign-ins per process]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/store_bench.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/store_bench"
users=${1:-10000}
signins=${2:-10000}
port=55499
work=$(mktemp -d)
trap '"$ROOT/scripts/pg.sh" stop $port > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(MFA_PG_OPTIONS="-c fsync=on -c synchronous_commit=off" "$ROOT/scripts/pg.sh" start $port)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
printf '%-12s %10s %16s\n' "store" "processes" "sign-ins /s"
for processes in 1 2; do
    line=$("$out/store_bench" "$work/bench-$processes.sqlite" "$users" "$signins" "$processes")
    printf '%-12s %10s %16s\n' sqlite $line
    psql "$url" -qc "DROP SCHEMA public CASCADE; CREATE SCHEMA public" > /dev/null 2>&1 ||
        runuser -u postgres -- psql "$url" -qc "DROP SCHEMA public CASCADE; CREATE SCHEMA public" > /dev/null
    line=$("$out/store_bench" "$url" "$users" "$signins" "$processes")
    printf '%-12s %10s %16s\n' postgresql $line
done
