#!/bin/sh
# Installs the mfactl component of the CMake build into a scratch prefix and
# checks that the program runs from there, with no Swift toolchain library
# on its path, and that its man page is installed.
# usage: check_install.sh <cmake build dir>
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component mfactl > "$tmp/install.log"
test -x "$tmp/prefix/bin/mfactl"
test -s "$tmp/prefix/share/man/man1/mfactl.1"
grep -q '^\.SS mfactl import google\\-authenticator' "$tmp/prefix/share/man/man1/mfactl.1"
if ldd "$tmp/prefix/bin/mfactl" | grep -q 'libswift'; then
    echo "mfactl needs the Swift runtime's shared libraries" >&2
    exit 1
fi
# mfactl's version and the library's, both the header's (MFA_VERSION_STRING).
version=$(sed -n 's/^#define MFA_VERSION_STRING "\(.*\)"$/\1/p' "$(dirname "$0")/../../include/mfa_types.h")
env -i PATH=/usr/bin:/bin "$tmp/prefix/bin/mfactl" --version > "$tmp/version"
printf 'mfactl %s\nlibmfa %s\n' "$version" "$version" | cmp -s - "$tmp/version"
env -i PATH=/usr/bin:/bin "$tmp/prefix/bin/mfactl" import csv --help | grep -q 'uid,secret,issuer,digits,period,algorithm'
echo "installed: $tmp/prefix/bin/mfactl runs, mfactl.1 is in share/man/man1"
