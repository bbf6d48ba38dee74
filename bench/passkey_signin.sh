#!/usr/bin/env bash
# Passkey sign-ins (mfa_passkey_sign_in_options + mfa_passkey_sign_in, the
# stored path) per second on the SQLite store, against today's WebAuthn
# second-factor sign-in (mfa_sign_in + mfa_webauthn_authentication_options +
# mfa_resolve), the same users and keys in one run (bench/passkey_bench.c).
# Prints both rates (the best of ROUNDS alternating rounds) and their ratio,
# then the instructions of one sign-in of each kind counted by callgrind
# (exact and repeatable on a shared, noisy machine) and the ratio they give.
# A benchmark, not a test. The target: a ratio of at least 0.9.
#
#   bench/passkey_signin.sh [users] [sign-ins] [rounds] [callgrind sign-ins]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" -I"$ROOT/Tests/c" "$ROOT/bench/passkey_bench.c" -L"$CMAKE_BUILD" -lmfa \
    -lsodium -Wl,-rpath,"$CMAKE_BUILD" -o "$out/passkey_bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
users=${1:-200}
sign_ins=${2:-2000}
rounds=${3:-5}
counted=${4:-200}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
read -r second passkey < <("$out/passkey_bench" "$users" "$sign_ins" "$rounds" "$work")
printf '%-38s %12s\n' "sign-ins per second (best of $rounds)" ""
printf '%-38s %12s\n' "  WebAuthn second factor" "$second"
printf '%-38s %12s\n' "  passkey alone" "$passkey"
awk -v a="$second" -v b="$passkey" 'BEGIN { printf "ratio passkey / second factor (time): %.2f\n", b / a }'

# instructions KIND: what `counted` sign-ins of KIND cost, from callgrind's summary (20 users: the
# enrollments under valgrind are slow, and the table's size hardly matters to one indexed lookup).
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" --toggle-collect="measured_$1" \
        "$out/passkey_bench" 20 "$counted" "cg-$1" "$work" > /dev/null 2> "$work/valgrind.$1.log"
    sed -n 's/^summary: //p' "$work/cg.$1"
}
if command -v valgrind > /dev/null; then
    second_i=$(instructions second)
    passkey_i=$(instructions passkey)
    awk -v a="$second_i" -v b="$passkey_i" -v n="$counted" 'BEGIN {
        printf "instructions per sign-in (callgrind, %d each): second factor %.0f, passkey %.0f\n", n, a / n, b / n
        printf "ratio passkey / second factor (instructions): %.2f\n", a / b }'
fi
