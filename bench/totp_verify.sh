#!/usr/bin/env bash
# Stateless TOTP verification (SHA1, 6 digits, 30 s, +/-5 steps) in one run:
# libmfa's C ABI against liboath's oath_totp_validate, and the Python binding
# against pyotp. Prints rates and ratios. A benchmark, not a test.
#
#   bench/totp_verify.sh [iterations]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -I"$ROOT/include" "$ROOT/bench/totp_verify_bench.c" -L"$CMAKE_BUILD" -lmfa -loath \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/totp_verify_bench"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo
echo "C ABI vs liboath $(dpkg-query -W -f='${Version}' liboath0 2>/dev/null || true)"
"$out/totp_verify_bench" "${1:-200000}"
echo
echo "Python binding vs pyotp $(python3 -c 'import importlib.metadata as m; print(m.version("pyotp"))')"
python3 "$ROOT/bench/python/totp_verify_bench.py"
