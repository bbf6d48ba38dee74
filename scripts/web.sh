#!/usr/bin/env bash
# The README's command for the example web application (examples/web): set up,
# build libmfa (when its sources changed), and run the application in
# development mode on http://127.0.0.1:5000/, on the embedded SQLite store in
# build/web/. SMS and email go to the development outbox at /dev/outbox.
#
#   MFA_WEB_STORE=postgres://user@host/db ./scripts/web.sh   the same app on PostgreSQL
#   MFA_WEB_PORT=8000 ./scripts/web.sh                        another port
#
# The rest of its settings are in examples/web/mfa_web/settings.py.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh"
# Build unless build/libmfa.so is newer than every source of it (a CMake build
# of this tree recompiles the Swift core each time: a minute saved per start).
if [ ! -f "$LIBMFA_LIBRARY" ] || [ -n "$(find "$ROOT/Sources" "$ROOT/include" "$ROOT/cmake" \
        "$ROOT/CMakeLists.txt" -newer "$LIBMFA_LIBRARY" -print -quit)" ]; then
    step build "$ROOT/scripts/build.sh"
fi
export MFA_WEB_ENV=${MFA_WEB_ENV:-development}
export MFA_WEB_INSTANCE=${MFA_WEB_INSTANCE:-$CMAKE_BUILD/web}
exec python3 "$ROOT/examples/web/run.py"
