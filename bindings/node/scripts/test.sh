#!/usr/bin/env bash
# The Node.js binding's suite (the test command's node step): builds the addon, then runs
# node --test over test/*.test.js: the flow contract on SQLite and on PostgreSQL
# (MFA_TEST_POSTGRES_URL), the two-process race, callbacks, bad input, the stateless calls,
# index.d.ts with tsc, an 8-second mixed load. LIBMFA_LIBRARY names the libmfa to test.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
cd "$here"
# Two test files at a time (the load test waits on its clock as much as it computes);
# Node.js 18's runner has no --test-concurrency and runs them one by one.
concurrency=""
node --help | grep -q -- --test-concurrency && concurrency=--test-concurrency=2
exec node --test $concurrency test/*.test.js
