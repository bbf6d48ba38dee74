#!/usr/bin/env bash
# The sanitizer checks of the test command (see the README, "Fuzzing and
# sanitizers"):
#   build     libmfa under AddressSanitizer (LeakSanitizer included) with
#             libFuzzer coverage, the fuzz targets (fuzz/), and the fast C
#             tests and demos under ASan + UBSan, into build-sanitize/
#             (CMake, -DMFA_SANITIZE=ON; cmake/MFASanitize.cmake)
#   test      those tests and demos (CTest label "sanitize"), with the
#             positive controls that show the sanitizers see libmfa's memory
#   valgrind  the C demos of the ordinary build (build/, scripts/build.sh)
#             under valgrind's memcheck: zero errors, no definite leaks
# usage: scripts/sanitize.sh build|test|valgrind
set -euo pipefail
. "$(dirname "$0")/env.sh"
SAN_BUILD=$ROOT/build-sanitize
# The Swift toolchain's clang: it has libFuzzer and the sanitizer runtimes.
CLANG=$(dirname "$(command -v swift)")/clang

case "${1:-}" in
build)
    cmake -S "$ROOT" -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMFA_BUILD_TESTS=OFF \
        -DMFA_SANITIZE=ON -DCMAKE_C_COMPILER="$CLANG" > /dev/null
    cmake --build "$SAN_BUILD"
    ;;
test)
    export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(dirname "$CLANG")/llvm-symbolizer}
    ctest --test-dir "$SAN_BUILD" -L sanitize --output-on-failure
    ;;
valgrind)
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    memcheck=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
        --errors-for-leak-kinds=definite --track-origins=yes)
    cd "$scratch"
    "${memcheck[@]}" "$CMAKE_BUILD/totp_demo"
    "${memcheck[@]}" "$CMAKE_BUILD/mfa_demo" "$scratch/demo.sqlite" "$scratch/outbox.jsonl"
    echo "valgrind: the C demos ran with zero errors and no definite leaks"
    ;;
*)
    echo "usage: $0 build|test|valgrind" >&2
    exit 2
    ;;
esac
