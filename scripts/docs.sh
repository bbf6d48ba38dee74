#!/usr/bin/env bash
# Builds the documentation site into build/docs/site/ (or OUT/site), failing
# on any warning: first the API references into build/docs/api/ (or OUT/api),
#
#   c/       Doxygen from include/mfa.h and include/mfa_types.h (docs/Doxyfile)
#   python/  pdoc from the package python/libmfa (it imports the package, so
#            the library must be built: LIBMFA_LIBRARY, build/libmfa.so)
#   swift/   DocC from the symbol graph of the module MFA (swift package
#            dump-symbol-graph) and the catalog docs/MFA.docc, with the
#            toolchain's own `docc`: no package dependency is added
#
# then the pages of docs/ with MkDocs and its Material theme (mkdocs.yml) in
# strict mode: a broken link or anchor, a page missing from the navigation or
# any other warning fails it. The API references become the site's api/
# folder (scripts/mkdocs_hooks.py), so the pages' links to them are checked
# and resolve. The site is made to be served at the root of its address (DocC's
# pages name their scripts by absolute path); MFA_DOCS_BASE_PATH=/some/path
# builds it for a site served under /some/path/ instead.
#
#   scripts/docs.sh [OUT]           build; open OUT/site/index.html
#   scripts/docs.sh --serve [OUT]   build the API references, then serve the
#                                   site on http://localhost:8000/ (MFA_DOCS_PORT),
#                                   rebuilt as the pages change
set -euo pipefail
. "$(dirname "$0")/env.sh"
serve=0
if [ "${1:-}" = --serve ]; then
    serve=1
    shift
fi
out=$(mkdir -p "${1:-$CMAKE_BUILD/docs}" && cd "${1:-$CMAKE_BUILD/docs}" && pwd)
cd "$ROOT"
version=$(sed -n 's/^project(mfa VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
api=$out/api
rm -rf "$api" "$out/c" "$out/python" "$out/swift"
mkdir -p "$api"
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT

echo "== C: Doxygen $(doxygen --version)"
MFA_VERSION=$version MFA_DOCS_OUT=$api/c doxygen docs/Doxyfile

echo "== Python: pdoc"
# pdoc's warnings (a submodule that fails to import, a link it cannot resolve)
# are errors; deprecation notices of the tools' own dependencies are not ours.
PYTHONPATH=$ROOT/python python3 -W error -W ignore::DeprecationWarning -m pdoc --docformat restructuredtext \
    --footer-text "libmfa $version" -o "$api/python" libmfa

echo "== Swift: DocC"
# SwiftPM dumps the graphs of every module; those of the test modules fail when
# the tests have not been built (swift test builds them), which the reference
# does not need: only a failure for another module, or no fresh graph of MFA, stops it.
touch "$graphs/started"
dumped=$(swift package dump-symbol-graph 2>&1) || {
    if echo "$dumped" | grep '^error:' | grep -qv "symbol graph for 'libmfaPackage[A-Za-z]*Tests'"; then
        echo "$dumped"
        exit 1
    fi
}
folder=$(echo "$dumped" | sed -n 's/^Files written to //p' | tail -n 1)
if [ -z "$folder" ] || [ ! "$folder/MFA.symbols.json" -nt "$graphs/started" ]; then
    echo "$dumped"
    echo "docs: swift package dump-symbol-graph wrote no symbol graph of MFA" >&2
    exit 1
fi
rm "$graphs/started"
cp "$folder"/MFA.symbols.json "$graphs"/
cp "$folder"/MFA@*.symbols.json "$graphs"/ 2> /dev/null || true
docc convert docs/MFA.docc --additional-symbol-graph-dir "$graphs" --output-path "$api/swift" \
    --fallback-display-name MFA --fallback-bundle-identifier libmfa.MFA --fallback-bundle-version "$version" \
    --transform-for-static-hosting --hosting-base-path "${MFA_DOCS_BASE_PATH:-}/api/swift" --warnings-as-errors

export MFA_DOCS_API=$api
if [ $serve = 1 ]; then
    echo "== the site, served on http://localhost:${MFA_DOCS_PORT:-8000}/ (Ctrl-C stops)"
    rm -rf "$graphs"  # exec skips the EXIT trap
    NO_MKDOCS_2_WARNING=1 exec python3 -m mkdocs serve --strict -f mkdocs.yml -a "localhost:${MFA_DOCS_PORT:-8000}"
fi
export NO_MKDOCS_2_WARNING=1
echo "== the site: MkDocs $(python3 -c 'import mkdocs; print(mkdocs.__version__)'), strict"
python3 -m mkdocs build --strict --clean -f mkdocs.yml -d "$out/site"
echo "site in $out/site (index.html), API references under $out/site/api/: c/, python/, swift/"
