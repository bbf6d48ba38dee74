#!/usr/bin/env bash
# Builds libmfa.so with CMake (Ninja, Release) into build/, with the examples
# and the C tests. (swift build builds the same library into .build/.)
set -euo pipefail
. "$(dirname "$0")/env.sh"
cmake -S "$ROOT" -B "$CMAKE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$CMAKE_BUILD"
