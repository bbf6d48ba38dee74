#!/usr/bin/env bash
# Stateless TOTP verification (SHA1, 6 digits, 30 s, +/-5 steps) in one
# process: libmfa's C ABI from a C loop (cc -O2), the Rust binding
# (mfa::Totp::verify) and totp-rs 3 (Debian's librust-totp-rs-dev), right and
# wrong codes. Prints rates and the binding's ratios to C and to totp-rs.
# A benchmark, not a test.
#
#   bench/rust_verify.sh [iterations]
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
# Cargo reads bindings/rust/.cargo/config.toml (Debian's registry) from the folder it runs in.
cd "$ROOT/bindings/rust/bench"
"$CARGO" build --offline --release --quiet
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "toolchain: $("${RUSTC:-rustc}" --version); totp-rs $(sed -n 's/^version = "\(.*\)"/\1/p' /usr/share/cargo/registry/totp-rs-*/Cargo.toml | head -n 1)"
echo
"$CARGO_TARGET_DIR/release/mfa-bench" "${1:-50000}"
# The same loops counted in instructions (callgrind, one loop per run): what a
# machine shared with other work cannot blur.
if command -v valgrind > /dev/null; then
    echo
    printf '%-28s %12s %14s %12s %10s %12s\n' "instructions per verification" "C ABI" "Rust binding" "totp-rs" \
        "binding/C" "binding/totp-rs"
    n=2000
    for case in wrong right; do
        declare -A per
        for who in c binding totp-rs; do
            function=run_c
            [ "$who" = binding ] && function=run_binding
            [ "$who" = totp-rs ] && function=run_peer
            total=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="mfa_bench::$function" \
                "$CARGO_TARGET_DIR/release/mfa-bench" count "$who" "$case" "$n" 2>&1 |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
            per[$who]=$((total / n))
        done
        label="wrong code (11 steps)"
        [ "$case" = right ] && label="right code (current step)"
        awk -v l="$label" -v c="${per[c]}" -v b="${per[binding]}" -v p="${per[totp-rs]}" \
            'BEGIN { printf "%-28s %12d %14d %12d %9.2fx %11.2fx\n", l, c, b, p, c / b, p / b }'
    done
fi
