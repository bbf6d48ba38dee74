#!/bin/sh
# Checks that libmfa.so does not link libpq: it loads libpq.so.5 with dlopen
# only when a postgres:// store is opened, so a program that uses SQLite
# never maps libpq nor what libpq pulls in (Kerberos, LDAP, SASL, GnuTLS).
# usage: check_no_libpq.sh path/to/libmfa.so
set -eu
lib=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

readelf -d "$lib" | awk '/\(NEEDED\)/ { print $NF }' | tr -d '[]' > "$tmp/needed"
ldd "$lib" > "$tmp/ldd"
if [ ! -s "$tmp/needed" ] || ! grep -q '^libc\.so' "$tmp/needed"; then
    echo "FAIL: cannot read the NEEDED entries of $lib" >&2
    exit 1
fi
if grep -E '^libpq\.' "$tmp/needed"; then
    echo "FAIL: libmfa.so has libpq in its NEEDED entries" >&2
    exit 1
fi
if grep -Ei 'libpq\.|krb5|gssapi|ldap|lber|sasl|gnutls' "$tmp/ldd"; then
    echo "FAIL: loading libmfa.so loads libpq or its dependencies (above)" >&2
    exit 1
fi
echo "libmfa.so needs $(wc -l < "$tmp/needed") libraries, libpq none of them; ldd shows no libpq, krb5, ldap, sasl or gnutls"
