# Sourced by the scripts in this folder: puts the Swift toolchain on PATH and
# names the build folders.
if ! command -v swift > /dev/null 2>&1; then
    PATH=/opt/swift/usr/bin:$PATH
    export PATH
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMAKE_BUILD=$ROOT/build
LOGS=$CMAKE_BUILD/logs
export LIBMFA_LIBRARY="$CMAKE_BUILD/libmfa.so"

# step NAME COMMAND...: runs COMMAND with its output in build/logs/NAME.log,
# prints the log's last lines and how long it took, and on failure the whole
# log, then stops.
step() {
    local name=$1
    shift
    mkdir -p "$LOGS"
    echo "== $name"
    local started=$SECONDS
    if "$@" > "$LOGS/$name.log" 2>&1; then
        tail -n "${TAIL_LINES:-3}" "$LOGS/$name.log"
        echo "($name: $((SECONDS - started)) s)"
    else
        cat "$LOGS/$name.log"
        echo "FAILED: $name (log: $LOGS/$name.log)" >&2
        exit 1
    fi
}

# no_warnings LOG: fails if a compiler warning from the project's own sources is in LOG.
no_warnings() {
    if grep -E "^$ROOT/(Sources|Tests|Tools)/.*(warning|error):" "$1"; then
        echo "FAILED: the build has warnings (see above)" >&2
        exit 1
    fi
}
