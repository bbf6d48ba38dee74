#!/usr/bin/env bash
# How reading a WebAuthn extension map grows with its size: instructions
# (callgrind, exact and repeatable on a shared machine) of one
# mfa_webauthn_verify_assertion() on an assertion whose extension map has N
# entries, and one of 2N (bench/cbor_scaling.c), and their ratio. A decoder
# linear in its input gives about 2; one that compares each key with every
# key before it, about 4. Also checks that a map with a repeated key is
# INVALID_ARGUMENT and one without reaches the signature check.
#
#   bench/cbor_scaling.sh [N] [--check MAX]
#
# With --check the script fails when the ratio is above MAX (the test
# cbor_duplicate_keys_linear runs it so, on libmfa.so as built). The library
# is $LIBMFA_LIBRARY (default build/libmfa.so; scripts/build.sh makes it).
set -euo pipefail
library=${LIBMFA_LIBRARY:-}
. "$(dirname "$0")/../scripts/env.sh"
library=${library:-$CMAKE_BUILD/libmfa.so}
n=${1:-4000}
max=
if [ "${2:-}" = --check ]; then max=${3:?--check needs a ratio}; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -std=c99 -O2 -Wall -Wextra -I"$ROOT/include" "$ROOT/bench/cbor_scaling.c" -L"$(dirname "$library")" -lmfa \
    -Wl,-rpath,"$(dirname "$library")" -o "$work/cbor_scaling"

status() { LD_LIBRARY_PATH=$(dirname "$library") "$work/cbor_scaling" "$@"; }
got=$(status "$n" dup)
[ "$got" = INVALID_ARGUMENT ] || { echo "a map with a repeated key gave $got, not INVALID_ARGUMENT" >&2; exit 1; }
got=$(status "$n")
[ "$got" = INVALID_VERIFICATION_CODE ] || { echo "a map of $n entries gave $got" >&2; exit 1; }

# instructions N: what measured_call cost with a map of N entries
instructions() {
    LD_LIBRARY_PATH=$(dirname "$library") valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        --toggle-collect=measured_call "$work/cbor_scaling" "$1" > /dev/null 2> "$work/valgrind.log"
    sed -n 's/^summary: //p' "$work/cg.out"
}
one=$(instructions "$n")
two=$(instructions $((n * 2)))
ratio=$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2f", b / a }')
echo "extension map of $n entries: $one instructions; of $((n * 2)): $two; ratio $ratio (linear: about 2)"
if [ -n "$max" ] && awk -v r="$ratio" -v m="$max" 'BEGIN { exit !(r > m) }'; then
    echo "the cost grows faster than linearly (ratio $ratio above $max)" >&2
    exit 1
fi
