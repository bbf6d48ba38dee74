#!/usr/bin/env bash
# The Rust binding under a mixed load from 8 worker threads for 60 s (the
# test bindings/rust/mfa/tests/load.rs, built in release), on SQLite and on
# PostgreSQL: sign-ins per second and the process's RSS after the warm-up
# and at the end. A benchmark run of a test: it fails if RSS grows.
#
#   bench/rust_load.sh [seconds]
# PostgreSQL: the server of MFA_TEST_POSTGRES_URL, else one started here by
# scripts/pg.sh on MFA_PG_PORT_BASE (and stopped at the end).
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
if [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ]; then
    CARGO=/usr/bin/cargo
    export RUSTC=/usr/bin/rustc
else
    CARGO=cargo
fi
export LIBMFA_LIB_DIR="$CMAKE_BUILD" CARGO_TARGET_DIR="$CMAKE_BUILD/rust-target"
export MFA_RUST_LOAD_SECONDS=${1:-60}
if [ -z "${MFA_TEST_POSTGRES_URL:-}" ]; then
    MFA_TEST_POSTGRES_URL=$("$ROOT/scripts/pg.sh" start | tail -n 1)
    export MFA_TEST_POSTGRES_URL
    trap '"$ROOT/scripts/pg.sh" stop > /dev/null 2>&1 || true' EXIT
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
cd "$ROOT/bindings/rust"
for store in sqlite postgres; do
    MFA_RUST_LOAD_STORE=$store "$CARGO" test --offline --release --quiet --test load -- --nocapture 2>&1 |
        grep -E '^load |test result|panicked'
done
