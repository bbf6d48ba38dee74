#!/usr/bin/env bash
# Complete TOTP sign-ins per second on the SQLite store (mfa_sign_in, then
# mfa_resolve_totp) against liboath's oath_authenticate_usersfile, with 10k
# and 1M enrolled users, in one run. Prints rates, ratios and libmfa's
# slowdown from 10k to 1M users. A benchmark, not a test: the 1M case needs
# a few minutes and about 1 GB of disk in $TMPDIR.
#
#   bench/signin.sh [small_users] [large_users]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/signin_bench.c" -L"$CMAKE_BUILD" -lmfa -loath \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/signin_bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
small=${1:-10000}
large=${2:-1000000}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
printf '%-10s %16s %16s %10s\n' "users" "libmfa /s" "liboath /s" "ratio"
small_line=$("$out/signin_bench" "$small" 30000 2000 "$work")
echo "$small_line"
large_line=$("$out/signin_bench" "$large" 30000 5 "$work")
echo "$large_line"
awk -v a="$small_line" -v b="$large_line" 'BEGIN {
    split(a, x, " +"); split(b, y, " +");
    printf "libmfa slowdown from %s to %s users: %.2fx\n", x[1], y[1], x[2] / y[2] }'
