# Sourced by the store benchmarks (store.sh, scaling.sh, and the probes in
# probes/), after scripts/env.sh and scripts/build.sh: builds their C
# programs into $CMAKE_BUILD/bench and sets `out` to that folder.
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/store_bench.c" -L"$CMAKE_BUILD" -lmfa -lsqlite3 \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/store_bench"
cc -O2 -std=c99 -Wall "$ROOT/bench/sqlite_baseline.c" -lsqlite3 -o "$out/sqlite_baseline"
