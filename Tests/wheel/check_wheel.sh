#!/usr/bin/env bash
# The wheel as a new user gets it: installs a built wheel into a new virtual
# environment in a scratch folder outside the source tree, and, with no
# LIBMFA_LIBRARY and no PYTHONPATH, from that scratch folder:
#   - the wheel is a repaired manylinux one and holds the licence;
#   - `import libmfa` loads the libmfa.so inside the installed package, and the
#     Debian libraries it links come from the wheel (libmfa.libs), not the system;
#   - a TOTP enrollment and a sign-in through the resolver succeed
#     (Tests/python/wheel/flow.py).
# Prints the wheel's name and size.
# usage: check_wheel.sh WHEEL
set -euo pipefail
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_wheel: $*" >&2; exit 1; }

case $(basename "$wheel") in
    libmfa-*-py3-none-manylinux_*_x86_64.whl) ;;
    *) fail "$(basename "$wheel") is not a repaired py3-none-manylinux wheel" ;;
esac
python3 -m zipfile -l "$wheel" > "$tmp/contents"
grep -q 'libmfa/libmfa.so ' "$tmp/contents" || fail "no libmfa/libmfa.so in the wheel"
grep -q 'libmfa/py.typed ' "$tmp/contents" || fail "no libmfa/py.typed (the type-hint marker) in the wheel"
grep -q 'libmfa/engine/recovery_codes.py ' "$tmp/contents" || fail "no libmfa/engine subpackage in the wheel"
grep -q 'dist-info/licenses/LICENSE ' "$tmp/contents" || fail "no LICENSE in the wheel"
python3 -m zipfile -e "$wheel" "$tmp/unpacked"
grep -q '^License-Expression: Apache-2.0$' "$tmp"/unpacked/libmfa-*.dist-info/METADATA || fail "no licence in METADATA"

cp "$here/flow.py" "$tmp/flow.py"
cd "$tmp"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$wheel"
clean_env=(env -u LIBMFA_LIBRARY -u PYTHONPATH -u LD_LIBRARY_PATH)
"${clean_env[@]}" "$tmp/venv/bin/python" flow.py "$tmp/venv"

# Every library libmfa.so needs that the wheel carries is loaded from the wheel.
package=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
ldd "$package/libmfa/libmfa.so" > "$tmp/ldd"
for name in libsodium libnettle libsqlite3 libqrencode; do
    grep -Eq "^\s*$name-[0-9a-f]+\.so\S* => $package/(libmfa/\.\./)?libmfa\.libs/" "$tmp/ldd" ||
        fail "$name does not come from the wheel:$(echo; cat "$tmp/ldd")"
done
if grep -q "not found" "$tmp/ldd"; then fail "unresolved libraries:$(echo; cat "$tmp/ldd")"; fi
echo "wheel $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KB, installs and runs in a new venv"
