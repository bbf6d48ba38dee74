#!/usr/bin/env bash
# Stateless TOTP verification through libmfa's Node.js binding, in one run, against libmfa's
# C ABI and against a verifier on node:crypto written the way npm's otplib checks a token
# (bench/node/verify_bench.js says how). Prints rates and ratios. A benchmark, not a test.
#
#   bench/node_verify.sh [iterations] [rounds]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
cmake -S "$ROOT" -B "$CMAKE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$CMAKE_BUILD" --target mfa > /dev/null
"$ROOT/bindings/node/scripts/build.sh" > /dev/null 2>&1
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -I"$ROOT/include" "$ROOT/bench/node_verify_c.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/node_verify_c"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "Node.js $(node --version), libmfa $(node -p "require('$ROOT/bindings/node').versionString()")"
echo
node "$ROOT/bench/node/verify_bench.js" "$out/node_verify_c" "${1:-300000}" "${2:-5}"
