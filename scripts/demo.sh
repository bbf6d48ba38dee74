#!/usr/bin/env bash
# The README's first command: set up, build, run the demo.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh"
step build "$ROOT/scripts/build.sh"
echo
echo "== C: examples/c/totp_demo.c"
"$CMAKE_BUILD/totp_demo"
echo
echo "== Python: examples/python/totp_demo.py"
python3 "$ROOT/examples/python/totp_demo.py"
