#!/usr/bin/env bash
# The Go binding under a mixed load from 8 goroutines for 60 s (the test
# command runs the same test for 10 s): sign-ins, wrong codes, enrollments,
# recovery codes, token checks, lists, admin pages, purges and the stateless
# calls on one Context. Prints the resident set (raw and after malloc_trim),
# the C heap in use and the Go heap once a second, and fails if one grew
# after the warm-up (the first third). A benchmark script, not a test.
#
#   bench/go_load.sh [seconds] [sqlite|postgres]
#
# postgres starts a private server (scripts/pg.sh, port MFA_PG_PORT_BASE or
# 25432) and stops it afterwards.
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
seconds=${1:-60}
store=${2:-sqlite}
if [ "$store" = postgres ]; then
    MFA_TEST_POSTGRES_URL=$("$ROOT/scripts/pg.sh" start | tail -n 1)
    export MFA_TEST_POSTGRES_URL
    trap '"$ROOT/scripts/pg.sh" stop > /dev/null 2>&1 || true' EXIT
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d); $(go version)"
cd "$ROOT/bindings/go"
PKG_CONFIG_PATH="$ROOT/bindings/go/pkgconfig" GOPROXY=off GOFLAGS=-mod=readonly MFA_GO_LOAD_SECONDS=$seconds \
    MFA_GO_LOAD_STORE=$store go test -count=1 -run '^TestMixedLoad$' -v -timeout "$((seconds + 120))s" .
