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
    local name=$1 started=$SECONDS status=0
    shift
    mkdir -p "$LOGS"
    echo "== $name"
    "$@" > "$LOGS/$name.log" 2>&1 || status=$?
    step_report "$name" "$status" "$((SECONDS - started)) s"
}

# step_report NAME STATUS TOOK: what step prints once NAME ended with STATUS.
step_report() {
    if [ "$2" = 0 ]; then
        tail -n "${TAIL_LINES:-3}" "$LOGS/$1.log"
        echo "($1: $3)"
    else
        cat "$LOGS/$1.log"
        echo "FAILED: $1 (log: $LOGS/$1.log)" >&2
        exit 1
    fi
}

# step_start NAME COMMAND...: runs COMMAND as step does, but in the background, in a
# process group of its own; step_wait NAME then waits for it and reports it as step
# does. The test command overlaps single-core builds with suites that leave a core
# idle this way; step_stop_all (for an EXIT trap) stops any still running.
STEP_JOBS=() # NAME:PID:STARTED
step_start() {
    local name=$1
    shift
    mkdir -p "$LOGS"
    echo "== $name (started in the background)"
    setsid "$@" > "$LOGS/$name.log" 2>&1 < /dev/null &
    STEP_JOBS+=("$name:$!:$SECONDS")
}

step_wait() {
    local name=$1 job pid="" started status=0
    for job in "${STEP_JOBS[@]}"; do
        if [ "${job%%:*}" = "$name" ]; then
            IFS=: read -r _ pid started <<< "$job"
        fi
    done
    [ -n "$pid" ] || { echo "step_wait: no step $name was started" >&2; exit 2; }
    echo "== $name (waited for)"
    wait "$pid" || status=$?
    step_report "$name" "$status" "$((SECONDS - started)) s, in the background"
}

step_stop_all() {
    local job pid
    for job in "${STEP_JOBS[@]}"; do
        pid=${job#*:}
        kill -- "-${pid%%:*}" 2> /dev/null || true
    done
}

# no_warnings LOG: fails if a compiler warning from the project's own sources is in LOG.
no_warnings() {
    if grep -E "^$ROOT/(Sources|Tests|Tools)/.*(warning|error):" "$1"; then
        echo "FAILED: the build has warnings (see above)" >&2
        exit 1
    fi
}
