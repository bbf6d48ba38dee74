#!/usr/bin/env bash
# A private PostgreSQL server on loopback for the tests and benchmarks.
#
#   scripts/pg.sh start [port]   start it (initialising it the first time; nothing
#                                to do if it runs already); prints its URL
#   scripts/pg.sh stop [port]    stop it and delete its data
#   scripts/pg.sh halt [port]    stop it, keeping its data (`start` brings it back)
#   scripts/pg.sh restart [port] stop and start it again, keeping its data
#
# PostgreSQL refuses to run as root, so the server runs as the `postgres`
# user (created by Debian's postgresql package). Its data lives in
# $TMPDIR/libmfa-pg-PORT; fsync is off (this server holds test data only)
# unless MFA_PG_OPTIONS passes other server settings ("-c fsync=on ...").
set -euo pipefail
action=${1:?usage: pg.sh start|stop|halt|restart [port]}
port=${2:-${MFA_PG_PORT_BASE:-25432}}
dir=${TMPDIR:-/tmp}/libmfa-pg-$port
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/pg_ctl" ] || { echo "pg.sh: PostgreSQL server binaries not found" >&2; exit 1; }
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
url="postgres://postgres@127.0.0.1:$port/libmfa"

start() {
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        mkdir -p "$dir"
        [ "$(id -u)" = 0 ] && chown postgres "$dir"
        as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 > "$dir/initdb.log"
    fi
    local try
    for try in 1 2 3; do
        as_postgres "$bin/pg_ctl" -D "$dir/data" status > /dev/null 2>&1 && break
        as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 ${MFA_PG_OPTIONS:-}" \
            start > /dev/null && break
        # Say why (the server's log goes with its folder), then try again: a port or a
        # socket another server is just giving up is free a moment later.
        echo "pg.sh: the server on port $port did not start (try $try of 3); its log ends:" >&2
        tail -n 5 "$dir/server.log" >&2 2> /dev/null || true
        [ "$try" = 3 ] && return 1
        sleep 2
    done
    as_postgres "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'libmfa'" postgres | grep -q 1 ||
        as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres libmfa
    echo "$url"
}

# wake PID: if the postmaster PID is stopped (a test froze it with SIGSTOP and
# died before it could thaw it), continues it and every process it started;
# a stopped server would never stop.
wake() {
    local pid=$1 line child
    line=$(cat "/proc/$pid/stat" 2> /dev/null) || return 0
    line=${line##*) }
    [ "${line:0:1}" = T ] || return 0
    for child in /proc/[0-9]*; do
        line=$(cat "$child/stat" 2> /dev/null) || continue
        line=${line##*) }
        line=${line#* }
        if [ "${line%% *}" = "$pid" ]; then kill -CONT "${child#/proc/}" 2> /dev/null || true; fi
    done
    kill -CONT "$pid" 2> /dev/null || true
}

stop() {
    if [ -f "$dir/data/postmaster.pid" ]; then
        wake "$(head -n 1 "$dir/data/postmaster.pid")"
        as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null || true
    fi
}

case $action in
    start) start ;;
    stop) stop; rm -rf "$dir" ;;
    halt) stop ;;
    restart) stop; start ;;
    *) echo "usage: pg.sh start|stop|halt|restart [port]" >&2; exit 2 ;;
esac
