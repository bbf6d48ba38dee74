#!/usr/bin/env bash
# Failover test: a PostgreSQL primary and a streaming standby on loopback
# (synchronous replication), sign-ins from two processes through a
# multi-host URL (target_session_attrs=read-write), the primary killed
# (SIGKILL, every server process) mid-load and the standby promoted.
#
# It must show: libmfa answers STORAGE_ERROR during the switch and carries
# on against the new primary; no factor is lost; no (user, time step) is
# accepted twice; every code accepted, before the failover or after, is
# refused when replayed afterwards.
#
# Ports: MFA_PG_PORT_BASE + 5 (primary) and + 6 (standby). The servers run
# as the `postgres` user when started as root (PostgreSQL refuses root).
# Needs the CMake build (build/libmfa.so).
set -euo pipefail
. "$(dirname "$0")/../../scripts/env.sh"
base=${MFA_PG_PORT_BASE:-25432}
p1=$((base + 5))
p2=$((base + 6))
users=200
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
work=$(mktemp -d "${TMPDIR:-/tmp}/libmfa-failover.XXXXXX")
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
workers=()
cleanup() {
    for pid in "${workers[@]}"; do kill "$pid" 2> /dev/null || true; done
    for dir in "$work/primary" "$work/standby"; do
        [ -f "$dir/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$dir" -m immediate stop > /dev/null 2>&1 || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; for f in "$work"/*.log; do echo "--- $f"; tail -n 20 "$f"; done >&2; exit 1; }
# wait_for SECONDS CONDITION...: polls CONDITION every 0.2 s.
wait_for() {
    local until=$((SECONDS + $1))
    shift
    until "$@"; do
        [ $SECONDS -lt $until ] || return 1
        sleep 0.2
    done
}
oks() { local n; n=$(grep -c '^OK' "$1" 2> /dev/null) || true; echo "${n:-0}"; }

cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$ROOT/include" "$ROOT/Tests/ha/ha_client.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$work/ha_client"

# The primary (synchronous replication is turned on once the standby streams:
# until then a commit would wait for it forever).
as_postgres "$bin/initdb" -D "$work/primary" -U postgres --auth=trust -E UTF8 --no-sync > "$work/initdb.log"
as_postgres "$bin/pg_ctl" -D "$work/primary" -l "$work/primary.log" -w -t 60 -o "-p $p1 -k $work \
    -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=replica -c max_wal_senders=4 \
    -c synchronous_commit=on" start > /dev/null
as_postgres "$bin/createdb" -h 127.0.0.1 -p "$p1" -U postgres libmfa
# The standby: a base backup that follows the primary's WAL as it is written.
as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$p1" -U postgres -D "$work/standby" -R -X stream --no-sync --checkpoint=fast
as_postgres "$bin/pg_ctl" -D "$work/standby" -l "$work/standby.log" -w -t 60 -o "-p $p2 -k $work \
    -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on" start > /dev/null
as_postgres "$bin/psql" -h 127.0.0.1 -p "$p1" -U postgres -qc "ALTER SYSTEM SET synchronous_standby_names = '*'" \
    -c "SELECT pg_reload_conf()" postgres > /dev/null
synchronous() {
    [ "$(as_postgres "$bin/psql" -h 127.0.0.1 -p "$p1" -U postgres -tAc \
        "SELECT sync_state FROM pg_stat_replication" postgres)" = sync ]
}
wait_for 30 synchronous || fail "the standby never became synchronous"

url="postgres://postgres@127.0.0.1:$p1,127.0.0.1:$p2/libmfa?target_session_attrs=read-write&mfa_deadline_ms=1500"
url="$url&connect_timeout=2"
"$work/ha_client" setup "$url" "$users" || fail "setup"

for worker in 0 1; do
    "$work/ha_client" work "$url" "$users" "$worker" 2 "$work/worker$worker.log" "$work/stop" &
    workers+=($!)
done
before() { [ "$(oks "$work/worker0.log")" -ge 150 ] && [ "$(oks "$work/worker1.log")" -ge 150 ]; }
wait_for 120 before || fail "the workers did not get going"

# Kill the primary mid-load: the postmaster and every process it started, at once.
primary=$(head -n 1 "$work/primary/postmaster.pid")
kill -KILL "$primary" $(pgrep -P "$primary") 2> /dev/null || true
rm -f "$work/primary/postmaster.pid"
killed=( "$(oks "$work/worker0.log")" "$(oks "$work/worker1.log")" )
sleep 1
as_postgres "$bin/pg_ctl" -D "$work/standby" -w -t 60 promote > /dev/null
after() {
    [ "$(oks "$work/worker0.log")" -ge $((killed[0] + 150)) ] && [ "$(oks "$work/worker1.log")" -ge $((killed[1] + 150)) ]
}
wait_for 120 after || fail "the workers did not carry on against the new primary"
touch "$work/stop"
for pid in "${workers[@]}"; do wait "$pid" || fail "a worker failed"; done
workers=()

grep -qE '^(DOWN|AMBIGUOUS)' "$work/worker0.log" "$work/worker1.log" || fail "no STORAGE_ERROR during the switch"
"$work/ha_client" verify "$url" "$users" "$work/worker0.log" "$work/worker1.log" > "$work/verify.log" 2>&1 ||
    fail "verify"
cat "$work/verify.log"
echo "failover: 1 passed, 0 failed"
