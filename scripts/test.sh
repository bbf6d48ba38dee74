#!/usr/bin/env bash
# The README's second command: set up, build with SwiftPM and CMake, and run
# every test: Swift (swift test), C (CTest: gcc and clang, header, exports,
# install), Python (pytest). Logs go to build/logs/.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh"
cd "$ROOT"

TAIL_LINES=1 step swift-test swift test
no_warnings "$LOGS/swift-test.log"

TAIL_LINES=1 step swiftpm-release swift build -c release --product mfa
no_warnings "$LOGS/swiftpm-release.log"
step swiftpm-exports Tests/c/check_exports.sh .build/release/libmfa.so include/mfa.h

step cmake-build "$ROOT/scripts/build.sh"
TAIL_LINES=4 step ctest ctest --test-dir "$CMAKE_BUILD" --output-on-failure

TAIL_LINES=1 step pytest python3 -m pytest -q "$ROOT/Tests/python"
echo "== all tests passed"
