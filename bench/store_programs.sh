# Sourced by the store benchmarks (store.sh, callgrind.sh, scaling.sh, split.sh), after
# scripts/env.sh and scripts/build.sh: builds their C programs into
# $CMAKE_BUILD/bench and sets `out` to that folder.
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/store_bench.c" -L"$CMAKE_BUILD" -lmfa -lsqlite3 \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/store_bench"
cc -O2 -std=c99 -Wall "$ROOT/bench/sqlite_baseline.c" -lsqlite3 -o "$out/sqlite_baseline"
cc -O2 -std=c99 -Wall "$ROOT/bench/sqlite_floor.c" -lsqlite3 -lsodium -lnettle -o "$out/sqlite_floor"
# Preloaded by bench/split.sh: where each program's time goes.
cc -O2 -std=c99 -Wall -Wextra -shared -fPIC -I"$ROOT/include" "$ROOT/bench/split_timer.c" -ldl -o "$out/split_timer.so"
