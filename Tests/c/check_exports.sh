#!/bin/sh
# Checks that libmfa.so exports exactly the functions include/mfa.h declares,
# and that it needs no Swift runtime library.
# usage: check_exports.sh path/to/libmfa.so path/to/include/mfa.h
set -eu
lib=$1
header=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Global symbols the library defines (upper-case types), minus the linker's own.
nm -D --defined-only "$lib" | awk '$2 ~ /^[A-Z]$/ { print $3 }' \
    | grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort > "$tmp/exported"
# Function names declared in the header: the identifier before "(" on
# declaration lines (they start with a type, never with "//" or "#").
grep -E '^[a-z].*\bmfa_[a-z0-9_]+\(' "$header" | grep -v '^#' \
    | sed -E 's/^.*\b(mfa_[a-z0-9_]+)\(.*$/\1/' | sort -u > "$tmp/declared"

if ! diff -u "$tmp/declared" "$tmp/exported"; then
    echo "FAIL: exported symbols (+) differ from declared functions (-)" >&2
    exit 1
fi
echo "exports match the header: $(wc -l < "$tmp/declared") functions"

if ldd "$lib" | grep -i swift; then
    echo "FAIL: libmfa.so needs a Swift runtime library" >&2
    exit 1
fi
echo "no Swift runtime library needed"
