#!/usr/bin/env bash
# The Go binding's suite, offline: go vet and go test in bindings/go (with
# GODEBUG=cgocheck=2, which checks every pointer passed between Go and C),
# the example server's (examples/go), and a build of bench/go (GOPATH mode,
# pquerna/otp from /usr/share/gocode). libmfa comes from build/ (run
# ./scripts/build.sh first) through bindings/go/pkgconfig/mfa-uninstalled.pc.
# PostgreSQL runs are on MFA_TEST_POSTGRES_URL's server (scripts/test.sh
# starts one); under CI=true it must be set. The mixed load runs 10 s
# (MFA_GO_LOAD_SECONDS; bench/go_load.sh runs 60).
#
#   bindings/go/test.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PKG_CONFIG_PATH="$ROOT/bindings/go/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export GOPROXY=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local
if [ -z "${HOME:-}" ]; then # go keeps its build cache under $HOME by default
    export GOCACHE=${GOCACHE:-$ROOT/build/go-cache} GOPATH=${GOPATH:-$ROOT/build/go-path}
fi
[ -f "$ROOT/build/libmfa.so" ] || { echo "go: build/libmfa.so is missing: run ./scripts/build.sh" >&2; exit 1; }

cd "$ROOT/bindings/go"
go vet ./...
GODEBUG=cgocheck=2 go test -count=1 -timeout 300s ./...

cd "$ROOT/examples/go"
go vet ./...
GODEBUG=cgocheck=2 go test -count=1 -timeout 120s ./...

gopath=$ROOT/build/go-bench-path
mkdir -p "$gopath/src/libmfa"
ln -sfn "$ROOT/bindings/go" "$gopath/src/libmfa/mfa"
cd "$ROOT/bench/go"
GO111MODULE=off GOFLAGS= GOPATH="$gopath:/usr/share/gocode" go vet .
echo "go: bindings/go, examples/go and bench/go passed ($(go version | cut -d' ' -f3))"
