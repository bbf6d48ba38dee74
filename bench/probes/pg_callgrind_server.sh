# Sourced by the benchmarks that count the PostgreSQL server's instructions
# (pg_server_callgrind.sh, pg_read_parts.sh), after scripts/env.sh, with
# `port` set. It starts a private server on loopback in a new folder,
# `work` (fsync on, synchronous_commit off, autovacuum off so that no
# worker lands in a count), with the database libmfa at `url` and pgbench's
# tables loaded; it is stopped and removed when the script exits.
#
#   under_callgrind         restart the server so that every later backend
#                           runs under callgrind, writing $work/cg.PID as it exits
#   started COMMAND...      run COMMAND (its output to $work/started.log; a
#                           failure stops the script) and print the callgrind
#                           files of the backends it started
#   instructions FILE...    the instructions counted in FILE... (one per line on stdin)
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
work=$(mktemp -d)
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
# (the backends under valgrind may still be writing their counts when the server stops)
stop() {
    as_postgres "$bin/pg_ctl" -D "$work/data" -m immediate -w stop > /dev/null 2>&1 || true
    rm -rf "$work" 2> /dev/null || { sleep 3; rm -rf "$work"; }
}
trap stop EXIT
as_postgres "$bin/initdb" -D "$work/data" -U postgres --auth=trust -E UTF8 > /dev/null
settings="-c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=off -c autovacuum=off"
as_postgres "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -t 300 \
    -o "-p $port -k $work $settings" start > /dev/null
as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres libmfa
url="postgres://postgres@127.0.0.1:$port/libmfa"
as_postgres pgbench -h 127.0.0.1 -p "$port" -U postgres -i -q -s 1 -n libmfa > /dev/null 2>&1

under_callgrind() {
    as_postgres "$bin/pg_ctl" -D "$work/data" -m fast -w stop > /dev/null
    # shellcheck disable=SC2086
    as_postgres valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$bin/postgres" -D "$work/data" \
        -p "$port" -k "$work" $settings > "$work/server.log" 2>&1 &
    for _ in $(seq 120); do
        as_postgres "$bin/pg_isready" -h 127.0.0.1 -p "$port" -q && return
        sleep 1
    done
    echo "the server under callgrind did not start" >&2
    exit 1
}

started() {
    local before after
    before=$(ls "$work"/cg.* 2> /dev/null | sort || true)
    "$@" > "$work/started.log" 2>&1 || { cat "$work/started.log" >&2; exit 1; }
    sleep 3
    after=$(ls "$work"/cg.* | sort)
    comm -13 <(echo "$before") <(echo "$after")
}

instructions() { xargs -r grep -h '^summary:' | awk '{s += $2} END {print s + 0}'; }
