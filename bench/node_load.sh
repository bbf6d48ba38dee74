#!/usr/bin/env bash
# A mixed load from 8 async tasks on one libmfa context through the Node.js binding, for
# SECONDS (60) on SQLite and on PostgreSQL (a private server on loopback, started and stopped
# here on MFA_PG_PORT_BASE, or the one MFA_TEST_POSTGRES_URL names): rounds per second, and
# the process's RSS after a full garbage collection once a second, after the warm-up (the
# first quarter) and at the end. The test command runs the same load for 8 s on SQLite
# (bindings/node/test/load.test.js). A benchmark, not a test.
#
#   bench/node_load.sh [seconds]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
cmake -S "$ROOT" -B "$CMAKE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$CMAKE_BUILD" --target mfa > /dev/null
"$ROOT/bindings/node/scripts/build.sh" > /dev/null 2>&1
if [ -z "${MFA_TEST_POSTGRES_URL:-}" ]; then
    MFA_TEST_POSTGRES_URL=$("$ROOT/scripts/pg.sh" start | tail -n 1)
    trap '"$ROOT/scripts/pg.sh" stop > /dev/null 2>&1 || true' EXIT
fi
export MFA_TEST_POSTGRES_URL
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d); Node.js $(node --version)"
node "$ROOT/bindings/node/test/load.js" "${1:-60}" sqlite,postgres
