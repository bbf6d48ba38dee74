#!/usr/bin/env bash
# rlm_mfa's challenge-response (Access-Request, Access-Challenge, Access-Request with
# the code) in rounds per second, against the same FreeRADIUS with pap alone (the
# floor: Access-Requests per second), on an SQLite store, with radclient sending
# [in flight] requests at once; prints both rates and their ratio. Builds first
# (scripts/build.sh), and runs as root, as the module's tests do (bench/radius_bench.py).
# A benchmark, not a test.
#
#   bench/radius.sh [users (6000)] [rounds (5)] [in flight (32)]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
exec python3 "$ROOT/bench/radius_bench.py" "${1:-6000}" "${2:-5}" "${3:-32}"
