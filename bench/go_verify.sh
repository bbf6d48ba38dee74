#!/usr/bin/env bash
# Stateless TOTP verification (SHA1, 6 digits, 30 s, +/-5 steps) in one run:
# libmfa's Go binding against libmfa's C ABI (a C loop in the same process)
# and against github.com/pquerna/otp (Debian's golang-github-pquerna-otp-dev,
# built offline in GOPATH mode from /usr/share/gocode). Prints rates and
# ratios. A benchmark, not a test.
#
#   bench/go_verify.sh [verifications per round]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
"$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
gopath=$CMAKE_BUILD/go-bench-path
mkdir -p "$out" "$gopath/src/libmfa"
ln -sfn "$ROOT/bindings/go" "$gopath/src/libmfa/mfa"
(cd "$ROOT/bench/go" && PKG_CONFIG_PATH="$ROOT/bindings/go/pkgconfig" GO111MODULE=off GOPROXY=off GOFLAGS= \
    GOPATH="$gopath:/usr/share/gocode" go build -o "$out/go_verify_bench" .)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "$(go version); pquerna/otp $(dpkg-query -W -f='${Version}' golang-github-pquerna-otp-dev 2>/dev/null || true)"
echo
"$out/go_verify_bench" "${1:-100000}"
