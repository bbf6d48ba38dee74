#!/usr/bin/env bash
# rlm_mfa's challenge-response (Access-Request, Access-Challenge, Access-Request with
# the code) in rounds per second, against the same FreeRADIUS with pap alone (the
# floor: Access-Requests per second), on an SQLite store, with radclient sending
# [in flight] requests at once; prints both rates and their ratio. Needs the build
# (rlm_mfa.so) and runs as root, as the module's tests do (bench/radius_bench.py).
# A benchmark, not a test.
#
#   bench/radius.sh [users] [rounds] [in flight]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
exec python3 "$ROOT/bench/radius_bench.py" "${1:-1000}" "${2:-3}" "${3:-32}"
