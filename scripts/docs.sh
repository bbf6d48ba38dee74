#!/usr/bin/env bash
# Builds the API reference into build/docs/ (or the folder given), failing on
# any warning:
#
#   c/       Doxygen from include/mfa.h and include/mfa_types.h (docs/Doxyfile)
#   python/  pdoc from the package python/libmfa (it imports the package, so
#            the library must be built: LIBMFA_LIBRARY, build/libmfa.so)
#   swift/   DocC from the symbol graph of the module MFA (swift package
#            dump-symbol-graph) and the catalog docs/MFA.docc, with the
#            toolchain's own `docc`: no package dependency is added
#
# Open c/index.html, python/index.html; swift/ is a static site
# (python3 -m http.server -d build/docs/swift, then /documentation/mfa).
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=$(mkdir -p "${1:-$CMAKE_BUILD/docs}" && cd "${1:-$CMAKE_BUILD/docs}" && pwd)
cd "$ROOT"
version=$(sed -n 's/^project(mfa VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
rm -rf "$out/c" "$out/python" "$out/swift"
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT

echo "== C: Doxygen $(doxygen --version)"
MFA_VERSION=$version MFA_DOCS_OUT=$out/c doxygen docs/Doxyfile

echo "== Python: pdoc"
# pdoc's warnings (a submodule that fails to import, a link it cannot resolve)
# are errors; deprecation notices of the tools' own dependencies are not ours.
PYTHONPATH=$ROOT/python python3 -W error -W ignore::DeprecationWarning -m pdoc --docformat restructuredtext \
    --footer-text "libmfa $version" -o "$out/python" libmfa

echo "== Swift: DocC"
dumped=$(swift package dump-symbol-graph 2>&1) || { echo "$dumped"; exit 1; }
folder=$(echo "$dumped" | sed -n 's/^Files written to //p' | tail -n 1)
cp "$folder"/MFA.symbols.json "$graphs"/
cp "$folder"/MFA@*.symbols.json "$graphs"/ 2> /dev/null || true
docc convert docs/MFA.docc --additional-symbol-graph-dir "$graphs" --output-path "$out/swift" \
    --fallback-display-name MFA --fallback-bundle-identifier libmfa.MFA --fallback-bundle-version "$version" \
    --transform-for-static-hosting --warnings-as-errors

echo "API reference in $out: c/index.html, python/index.html, swift/ (static site)"
