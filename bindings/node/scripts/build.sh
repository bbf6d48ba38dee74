#!/usr/bin/env bash
# Builds the Node.js addon (build/Release/mfa.node) with node-gyp against the headers of the
# installed Node.js (/usr/include/node), offline: --nodedir points node-gyp at them, so it
# downloads nothing. node-gyp is Debian's (/usr/bin/node-gyp, package node-gyp) or, with a
# Node.js that ships npm (NodeSource's nodejs package), the copy inside npm.
#
#   bindings/node/scripts/build.sh            # finds libmfa: LIBMFA_LIBRARY, ../../build/libmfa.so, pkg-config mfa
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gyp=""
for candidate in "$(command -v node-gyp || true)" /usr/share/nodejs/node-gyp/bin/node-gyp.js \
    /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then gyp=$candidate; break; fi
done
[ -n "$gyp" ] || { echo "build.sh: node-gyp not found (scripts/setup.sh installs it)" >&2; exit 1; }
nodedir=${LIBMFA_NODEDIR:-/usr}
[ -f "$nodedir/include/node/node_api.h" ] || { echo "build.sh: no Node.js headers in $nodedir/include/node" >&2; exit 1; }
cd "$here"
case "$gyp" in
    *.js) node "$gyp" rebuild --nodedir="$nodedir" --jobs=2 ;;
    *) "$gyp" rebuild --nodedir="$nodedir" --jobs=2 ;;
esac
