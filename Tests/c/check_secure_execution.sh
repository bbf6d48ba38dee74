#!/usr/bin/env bash
# A secure-execution process ignores the environment (issue 45, item 1):
#   check_secure_execution.sh library PROGRAM PG_PORT
#   check_secure_execution.sh mfactl MFACTL
# PROGRAM is test_secure_execution (Tests/c/test_secure_execution.c). It runs
# once as a setgid copy (group nogroup: the kernel sets AT_SECURE, as for
# sudo and su, where pam_mfa runs) and once as a plain copy, with
# LIBMFA_LIBPQ and LIBMFA_GNUTLS naming a library whose constructor leaves a
# marker file, and PGPORT naming the test server's port (the store URL has
# none). The plain run shows what the variables do when they are honoured:
# the library is loaded (the marker appears) and, without it, PGPORT
# reaches the server. The setgid run must load neither library, must not
# reach the server through PGPORT (and must have taken PGPORT out of the
# environment), and must load the system's GnuTLS. mfactl is run the same
# two ways with MFA_STORE and MFA_MASTER_KEY set: the setgid
# copy must not open the store they name.
set -euo pipefail
usage="usage: check_secure_execution.sh library PROGRAM PG_PORT | mfactl MFACTL"
case ${1:-} in
    library) program=${2:?$usage}; port=${3:?$usage}; mfactl= ;;
    mfactl) mfactl=${2:?$usage}; program= ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "check_secure_execution.sh: needs root (it makes a setgid copy)" >&2; exit 2; }
group=nogroup
getent group "$group" > /dev/null || group=nobody

dir=$(mktemp -d /tmp/libmfa-secure-XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cat > "$dir/evil.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void leave_marker(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
}
C
failed=0
expect() { # NAME OUTPUT LINE
    if ! grep -qx -- "$3" <<< "$2"; then
        echo "FAIL ($1): expected $3 in:" >&2
        sed 's/^/    /' <<< "$2" >&2
        failed=1
    fi
}

if [ -n "$program" ]; then
    for name in pq tls; do
        cc -shared -fPIC -DMARKER="\"$dir/marker-$name\"" -o "$dir/evil-$name.so" "$dir/evil.c"
    done
    hostile=(LIBMFA_LIBPQ="$dir/evil-pq.so" LIBMFA_GNUTLS="$dir/evil-tls.so" PGPORT="$port")
    cp "$program" "$dir/plain"
    cp "$program" "$dir/setgid"
    chgrp "$group" "$dir/setgid"
    chmod 2755 "$dir/setgid"
    url=postgres://postgres@127.0.0.1/libmfa?mfa_deadline_ms=3000

    # 1. Plain, with the hostile libraries: they are loaded (the test can fail).
    out=$(cd "$dir" && env "${hostile[@]}" ./plain "$url")
    expect "plain run" "$out" "secure=0"
    for name in pq tls; do
        [ -e "$dir/marker-$name" ] || { echo "FAIL (plain run): evil-$name.so was not loaded" >&2; failed=1; }
        rm -f "$dir/marker-$name"
    done

    # 2. Plain, without them: PGPORT reaches the server.
    out=$(cd "$dir" && PGPORT=$port ./plain "$url")
    expect "plain run, libpq's PGPORT" "$out" "postgres=OK"
    expect "plain run, libpq's PGPORT" "$out" "pgport=set"

    # 3. Setgid: nothing the caller set is honoured.
    out=$(cd "$dir" && env "${hostile[@]}" ./setgid "$url")
    expect "setgid run" "$out" "secure=1"
    expect "setgid run: PGPORT ignored" "$out" "postgres=STORAGE_ERROR"
    expect "setgid run: PGPORT taken out of the environment" "$out" "pgport=unset"
    if grep -qx "webauthn=CRYPTO" <<< "$out"; then
        echo "FAIL (setgid run): GnuTLS was not loaded from the system" >&2
        failed=1
    fi
    for name in pq tls; do
        if [ -e "$dir/marker-$name" ]; then
            echo "FAIL (setgid run): evil-$name.so, named in the environment, was loaded" >&2
            failed=1
        fi
    done
fi

if [ -n "$mfactl" ]; then
    cp "$mfactl" "$dir/mfactl-plain"
    cp "$mfactl" "$dir/mfactl-setgid"
    chgrp "$group" "$dir/mfactl-setgid"
    chmod 2755 "$dir/mfactl-setgid"
    key=$(printf '%064d' 7)
    status=0
    (cd "$dir" && MFA_STORE=$dir/plain.sqlite MFA_MASTER_KEY=k1:$key ./mfactl-plain stats > /dev/null) || status=$?
    [ $status = 0 ] && [ -e "$dir/plain.sqlite" ] || { echo "FAIL (mfactl plain): MFA_STORE not opened" >&2; failed=1; }
    status=0
    err=$(cd "$dir" && MFA_STORE=$dir/setgid.sqlite MFA_MASTER_KEY=k1:$key ./mfactl-setgid stats 2>&1 > /dev/null) \
        || status=$?
    if [ $status = 0 ] || [ -e "$dir/setgid.sqlite" ] || ! grep -q "no store" <<< "$err"; then
        echo "FAIL (mfactl setgid): MFA_STORE was honoured (exit $status): $err" >&2
        failed=1
    fi
fi

[ $failed = 0 ] && echo "secure execution: ${1}'s environment ignored under AT_SECURE"
exit $failed
