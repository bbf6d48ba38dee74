#!/bin/sh
# Installs the CMake build into a scratch prefix, then builds the C example
# against it twice, as users would: with find_package(mfa) and with
# pkg-config. Both programs must run, and both files name the licence.
# usage: check_install.sh <cmake build dir> <source dir>
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
libdir=$(dirname "$(find "$prefix" -name 'libmfa.so.0' | head -n 1)")
test -L "$libdir/libmfa.so" && test -L "$libdir/libmfa.so.0"
test -f "$prefix/include/mfa.h" && test -f "$prefix/include/mfa_types.h"
readelf -d "$libdir/libmfa.so.0" | grep -q 'SONAME.*\[libmfa\.so\.0\]'
test ! -e "$prefix/libmfa"   # the wheel's component is not part of a plain install

cmake -S "$src/Tests/c/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/consumer.log"
cmake --build "$tmp/consumer" >> "$tmp/consumer.log"
LD_LIBRARY_PATH=$libdir "$tmp/consumer/consumer" | grep -q '^verified: time step'

grep -qx 'License: Apache-2.0' "$libdir/pkgconfig/mfa.pc"
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs mfa)
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -pedantic -Werror "$src/examples/c/totp_demo.c" $flags -o "$tmp/pc_demo"
LD_LIBRARY_PATH=$libdir "$tmp/pc_demo" | grep -q '^verified: time step'
echo "installed: find_package(mfa) and pkg-config both build and run against $prefix"
