# Sourced by the probes that run the floor or time a process from inside
# (callgrind.sh, floor.sh, split.sh), after scripts/env.sh and
# scripts/build.sh: builds the store benchmarks' programs
# (bench/store_programs.sh) and the probes' own into $CMAKE_BUILD/bench.
. "$ROOT/bench/store_programs.sh"
cc -O2 -std=c99 -Wall -I"$ROOT/bench" "$ROOT/bench/probes/sqlite_floor.c" -lsqlite3 -lsodium -lnettle \
    -o "$out/sqlite_floor"
# Preloaded by split.sh: where each program's time goes.
cc -O2 -std=c99 -Wall -Wextra -shared -fPIC -I"$ROOT/include" "$ROOT/bench/probes/split_timer.c" -ldl \
    -o "$out/split_timer.so"
