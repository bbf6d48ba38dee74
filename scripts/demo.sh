#!/usr/bin/env bash
# The README's first command: set up, build, and run the demo on the embedded
# SQLite store (examples/c/mfa_demo.c), then the stateless OTP examples.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh"
step build "$ROOT/scripts/build.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo
echo "== The MFA flow on an SQLite store: examples/c/mfa_demo.c"
"$CMAKE_BUILD/mfa_demo" "$work/mfa-demo.sqlite" "$work/mfa-demo-outbox.jsonl"
echo
echo "== Stateless TOTP from C: examples/c/totp_demo.c"
"$CMAKE_BUILD/totp_demo"
echo
echo "== Stateless TOTP from Python: examples/python/totp_demo.py"
python3 "$ROOT/examples/python/totp_demo.py"
