#!/usr/bin/env bash
# Builds and tests the Rust binding (bindings/rust) against build/libmfa.so:
# `cargo test --offline` with Debian's toolchain (cargo, rustc 1.63: the
# oldest the crates support) when it is installed, else the cargo on PATH.
# Crates come only from Debian's registry (bindings/rust/.cargo/config.toml);
# the binding needs none. PostgreSQL runs use MFA_TEST_POSTGRES_URL.
#
#   bindings/rust/test.sh [cargo test arguments]
#
# Ends with "rust: N passed, N failed", the sum over every test target.
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
if [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ]; then
    CARGO=/usr/bin/cargo
    export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
else
    CARGO=cargo
fi
echo "rust: $("$CARGO" --version), $("${RUSTC:-rustc}" --version)"
export LIBMFA_LIB_DIR="$CMAKE_BUILD"
export LD_LIBRARY_PATH="$CMAKE_BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="$CMAKE_BUILD/rust-target"
cd "$ROOT/bindings/rust"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$CARGO" test --offline "$@" 2>&1 | tee "$log" || status=$?
awk '/^test result: / { for (i = 1; i < NF; i++) { if ($(i + 1) ~ /^passed;/) p += $i; if ($(i + 1) ~ /^failed;/) f += $i } }
     END { printf "rust: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
