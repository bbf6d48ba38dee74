#!/usr/bin/env bash
# The README's second command: set up, build with SwiftPM and CMake, start a
# private PostgreSQL server on loopback, and run every test against SQLite
# and PostgreSQL: Swift (swift test), C (CTest: gcc and clang, header,
# exports, install, races, crashes), a failover from a primary to its
# streaming standby and the suites behind PgBouncer (Tests/ha, servers of
# their own), sanitizers, valgrind and short fuzz runs, Python (pytest,
# mfactl end to end, and mypy --strict on the package), the example web
# application (Tests/web: in headless Chromium); then the code blocks of the
# README and of the documentation site (Tests/readme), the site with its API
# references in strict mode (scripts/docs.sh) and opened in headless Chromium
# (Tests/docs), and the Python wheel built from
# the checkout, installed into a new venv and used there (scripts/wheel.sh,
# Tests/wheel); the PAM module with pamtester, valgrind and real SSH logins
# (pam/tests, as root); the FreeRADIUS module in real freeradius servers with
# radclient and radtest (radius/tests, as root); the Rust, Go and Node.js bindings
# (bindings/rust/test.sh, bindings/go/test.sh, bindings/node/scripts/test.sh).
# Logs go to build/logs/.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh"
cd "$ROOT"

step postgres-start "$ROOT/scripts/pg.sh" start
MFA_TEST_POSTGRES_URL=$(tail -n 1 "$LOGS/postgres-start.log")
export MFA_TEST_POSTGRES_URL
trap 'step_stop_all; "$ROOT/scripts/pg.sh" stop > /dev/null 2>&1 || true' EXIT

TAIL_LINES=1 step swift-test swift test
no_warnings "$LOGS/swift-test.log"

# swift test has built every product of Package.swift, libmfa.so among them (in debug):
# what the SwiftPM library exports and links is checked on that build. The release
# build of the same sources, with warnings as errors, is CMake's below.
step swiftpm-exports Tests/c/check_exports.sh .build/debug/libmfa.so include/mfa.h
step swiftpm-no-libpq Tests/c/check_no_libpq.sh .build/debug/libmfa.so

# mfactl is built in debug for the tests: a third of a release build's time
# (cmake/Mfactl.cmake); an install from scripts/build.sh gets the release build.
export MFA_MFACTL_CONFIGURATION=debug
step cmake-build "$ROOT/scripts/build.sh"
no_warnings "$LOGS/cmake-build.log"
# Two tests at a time (one per core here): the tests keep to their own files, schemas and
# server ports, and the longest ones wait on PostgreSQL as much as they compute.
TAIL_LINES=4 step ctest ctest --test-dir "$CMAKE_BUILD" --output-on-failure --parallel "$(nproc)"
TAIL_LINES=3 step failover "$ROOT/Tests/ha/failover.sh"
TAIL_LINES=4 step pgbouncer "$ROOT/Tests/ha/pgbouncer.sh"

# The sanitizer build compiles libmfa again on one core, mostly: it runs beside the
# Python and PAM suites, which use about one.
step_start sanitize-build "$ROOT/scripts/sanitize.sh" build

# The mfactl tests (Tests/python/test_mfactl_*.py) run build/mfactl and must not skip.
export MFA_REQUIRE_MFACTL=1
# mfactl rotates 100,000 factors on SQLite; the PostgreSQL run proves the same on 20,000 (set
# MFA_PG_ROTATION_FACTORS=100000 for the full count; it costs about 40 s more).
export MFA_PG_ROTATION_FACTORS=${MFA_PG_ROTATION_FACTORS:-20000}
TAIL_LINES=1 step pytest python3 -m pytest -q "$ROOT/Tests/python"
TAIL_LINES=1 step mypy python3 -m mypy --strict --cache-dir "$CMAKE_BUILD/mypy-cache" "$ROOT/python/libmfa"
TAIL_LINES=1 step pam python3 -m pytest -q "$ROOT/pam/tests"
# rlm_mfa (radius/): freeradius servers of its own on loopback (ports MFA_PG_PORT_BASE + 41 to + 79,
# PostgreSQL on + 40), radclient and radtest, one server under valgrind: 30 to 40 s.
TAIL_LINES=1 step radius python3 -m pytest -q "$ROOT/radius/tests"
# The Rust binding (bindings/rust): cargo test --offline with Debian's rustc 1.63, on SQLite
# and PostgreSQL; a two-process race, 5 s of load from 8 threads (bench/rust_load.sh runs 60 s).
TAIL_LINES=1 step rust "$ROOT/bindings/rust/test.sh"
# The Go binding (bindings/go/test.sh): go vet, and go test with GODEBUG=cgocheck=2 on SQLite
# and PostgreSQL, a two-process race, 10 s of mixed load from 8 goroutines; the example
# server and the bench's build. About 20 s, 60 s with an empty Go build cache.
TAIL_LINES=2 step go "$ROOT/bindings/go/test.sh"
# The Node.js binding (bindings/node): its addon built with node-gyp, then node --test: the
# flow contract on SQLite and PostgreSQL, a two-process race, callbacks, bad input, tsc on
# index.d.ts, an 8-second load (bench/node_load.sh runs the 60-second one).
TAIL_LINES=8 step node-binding "$ROOT/bindings/node/scripts/test.sh"

# Sanitizers and fuzzing (README: "Fuzzing and sanitizers"): the fast C tests and the
# demos under ASan/UBSan/LSan, the C demos under valgrind, a short run of every fuzz target.
TAIL_LINES=1 step_wait sanitize-build
TAIL_LINES=4 step sanitize-test "$ROOT/scripts/sanitize.sh" test
TAIL_LINES=1 step valgrind "$ROOT/scripts/sanitize.sh" valgrind
TAIL_LINES=40 step fuzz "$ROOT/scripts/fuzz.sh" 20

# The wheel's build (libmfa once more, on one core) runs beside the web suite. Its CMake
# build folder is kept in build/ so that a second run is incremental.
step_start wheel env MFA_WHEEL_BUILD_DIR="$CMAKE_BUILD/wheel-build" "$ROOT/scripts/wheel.sh" "$CMAKE_BUILD/dist"
# The example web application (examples/web): its safety through Flask's test client, then
# end to end in headless Chromium (security keys and passkeys through its virtual
# authenticator), started by scripts/web.sh on SQLite and on PostgreSQL, on ports from
# MFA_PG_PORT_BASE + 13; screenshots in build/web-artifacts/. Prometheus (Debian's, on
# a free loopback port picked at random) scrapes its /metrics and the test reads the values back
# (Tests/web/test_metrics_prometheus.py).
TAIL_LINES=1 step web-mypy env MYPYPATH="$ROOT/python:$ROOT/examples/web" \
    python3 -m mypy --strict --cache-dir "$CMAKE_BUILD/mypy-cache" -p mfa_web
TAIL_LINES=1 step web python3 -m pytest -q "$ROOT/Tests/web"

# The runnable code blocks of README.md and docs/ (C, Python, and Swift built once).
TAIL_LINES=1 step readme python3 "$ROOT/Tests/readme/run_readme.py" "$LIBMFA_LIBRARY"
# The API references and the site (mkdocs build --strict), then the site in headless
# Chromium on port MFA_PG_PORT_BASE + 20: screenshots in build/docs-artifacts/.
TAIL_LINES=1 step docs "$ROOT/scripts/docs.sh"
TAIL_LINES=1 step docs-site python3 -m pytest -q "$ROOT/Tests/docs"
TAIL_LINES=1 step_wait wheel
TAIL_LINES=1 step wheel-venv "$ROOT/Tests/wheel/check_wheel.sh" "$(tail -n 1 "$LOGS/wheel.log")"
echo "== all tests passed in $SECONDS s"
