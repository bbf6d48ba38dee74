#!/usr/bin/env bash
# Completes Debian's FreeRADIUS module headers for rlm_mfa (radius/).
#
# Debian 12's libfreeradius-dev (FreeRADIUS 3.2.1) installs radiusd.h, which
# every module includes, but not eight headers that radiusd.h and autoconf.h
# include in turn (automask.h clients.h connection.h listen.h log.h process.h
# tmpl.h xlat.h): FreeRADIUS's own install list (src/include/all.mk, HEADERS)
# leaves them out, so `#include <freeradius/radiusd.h>` fails out of the tree.
# This takes exactly those headers from the Debian source package of the
# installed version, rewritten as `make install` rewrites the others
# (<freeradius-devel/x.h> becomes <freeradius/x.h>), into
# build/freeradius-headers/<version>/freeradius/, where radius/CMakeLists.txt
# looks for them. The installed headers are used as they are.
#
# The source package comes through apt-get with a private list of deb-src
# sources in a scratch folder: the system's apt configuration is not changed.
# Safe to run again: it does nothing when the headers are there.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INCLUDE=/usr/include/freeradius

[ -f "$INCLUDE/radiusd.h" ] || { echo "freeradius_headers: $INCLUDE/radiusd.h is missing (apt-get install libfreeradius-dev)" >&2; exit 1; }
package_version=$(dpkg-query -W -f='${Version}' libfreeradius-dev)
version=$(sed -n 's/^#define RADIUSD_VERSION_STRING "\(.*\)"$/\1/p' "$INCLUDE/features.h")
[ -n "$version" ] || { echo "freeradius_headers: no RADIUSD_VERSION_STRING in $INCLUDE/features.h" >&2; exit 1; }
DEST=${MFA_FREERADIUS_HEADERS:-$ROOT/build/freeradius-headers/$version}
if [ -f "$DEST/complete" ]; then
    exit 0
fi

# The headers the installed ones include and Debian does not ship, found by name.
missing() {
    { cat "$INCLUDE"/*.h; cat "$DEST"/freeradius/*.h 2> /dev/null || true; } \
        | grep -o '<freeradius/[a-z0-9_]*\.h>' | sed 's,<freeradius/,,; s,>,,' | sort -u | while read -r header; do
            [ -f "$INCLUDE/$header" ] || [ -f "$DEST/freeradius/$header" ] || echo "$header"
        done
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
. /etc/os-release
mkdir -p "$scratch/lists/partial" "$scratch/source"
for suite in "$VERSION_CODENAME" "$VERSION_CODENAME-updates"; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
done > "$scratch/sources.list"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $VERSION_CODENAME-security main" \
    >> "$scratch/sources.list"
apt_private=(-o "Dir::Etc::SourceList=$scratch/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$scratch/lists" -o APT::Sandbox::User=root)
echo "freeradius_headers: fetching the headers libfreeradius-dev $package_version leaves out (Debian source package)"
apt-get "${apt_private[@]}" update -qq
(cd "$scratch/source" && apt-get "${apt_private[@]}" source -qq --download-only "freeradius=$package_version" > /dev/null)
tarball=$(ls "$scratch"/source/freeradius_*.orig.tar.*)
tar -x -C "$scratch/source" -f "$tarball" --wildcards '*/src/include/*.h'
tree=$(ls -d "$scratch"/source/freeradius-server-*/src/include)

rm -rf "$DEST"
mkdir -p "$DEST/freeradius"
# A header taken in may include another one that is missing: go on until none is.
for _ in 1 2 3 4 5; do
    headers=$(missing)
    [ -n "$headers" ] || break
    for header in $headers; do
        [ -f "$tree/$header" ] || { echo "freeradius_headers: $header is not in the FreeRADIUS $version source" >&2; exit 1; }
        sed 's,<freeradius-devel/,<freeradius/,g' "$tree/$header" > "$DEST/freeradius/$header"
    done
done
[ -z "$(missing)" ] || { echo "freeradius_headers: still missing: $(missing)" >&2; exit 1; }
echo "$package_version" > "$DEST/complete"
echo "freeradius_headers: $(ls "$DEST/freeradius" | tr '\n' ' ')in $DEST"
