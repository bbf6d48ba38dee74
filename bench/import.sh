#!/usr/bin/env bash
# Import speed: `mfactl import otpauth` (batched, one transaction per 1,000
# lines) against the library's own single-factor import (mfa_totp_import_uri
# called once per URI, one transaction each), on the same otpauth URIs into
# new SQLite stores, in one run. Prints factors per second and the ratio.
# With a PostgreSQL URL, also `mfactl import otpauth` into a new schema on
# that server (dropped after). A benchmark, not a test: 1,000,000 URIs take a
# few minutes and about 1 GB of disk in $TMPDIR.
#
#   bench/import.sh [count] [postgres-url]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/setup.sh" > /dev/null
MFA_MFACTL_CONFIGURATION=release "$ROOT/scripts/build.sh" > /dev/null
out=$CMAKE_BUILD/bench
mkdir -p "$out"
cc -O2 -std=c99 -Wall -I"$ROOT/include" "$ROOT/bench/import_bench.c" -L"$CMAKE_BUILD" -lmfa \
    -Wl,-rpath,"$CMAKE_BUILD" -o "$out/import_bench"
work=$(mktemp -d)
count=${1:-1000000}
url=${2:-}
schema=bench_import_$$
cleanup() {
    rm -rf "$work"
    [ -z "$url" ] || psql "$url" -q -c "DROP SCHEMA IF EXISTS $schema CASCADE" > /dev/null 2>&1 || true
}
trap cleanup EXIT
"$out/import_bench" write "$count" "$work/uris.txt"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | sed 's/^/bench:/' > "$work/key"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "mfactl build: $(grep -m1 MFA_MFACTL_CONFIGURATION "$CMAKE_BUILD/CMakeCache.txt" | cut -d= -f2)"

start=$(date +%s.%N)
"$CMAKE_BUILD/mfactl" import otpauth "$work/uris.txt" --store "$work/mfactl.sqlite" --key-file "$work/key" \
    --batch-size 1000 --actor bench > "$work/mfactl.out"
end=$(date +%s.%N)
tail -n 1 "$work/mfactl.out"
mfactl_rate=$(awk -v n="$count" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')
rm -f "$work"/mfactl.sqlite*

read -r loop_count loop_rate < <("$out/import_bench" loop "$work/uris.txt" "$work/loop.sqlite")
[ "$loop_count" = "$count" ] || { echo "the loop imported $loop_count of $count" >&2; exit 1; }

printf '%-44s %12s\n' "$count otpauth URIs into SQLite" "factors/s"
printf '%-44s %12s\n' "mfactl import otpauth (1,000 per transaction)" "$mfactl_rate"
printf '%-44s %12s\n' "mfa_totp_import_uri in a loop" "$loop_rate"
awk -v a="$mfactl_rate" -v b="$loop_rate" 'BEGIN { printf "ratio: %.1fx\n", a / b }'

if [ -n "$url" ]; then
    psql "$url" -q -c "CREATE SCHEMA $schema"
    case "$url" in *\?*) sep='&' ;; *) sep='?' ;; esac
    start=$(date +%s.%N)
    "$CMAKE_BUILD/mfactl" import otpauth "$work/uris.txt" --store "$url${sep}options=-csearch_path%3D$schema" \
        --key-file "$work/key" --batch-size 1000 --actor bench > "$work/pg.out"
    end=$(date +%s.%N)
    tail -n 1 "$work/pg.out"
    printf '%-44s %12s\n' "$count otpauth URIs into PostgreSQL" "factors/s"
    printf '%-44s %12s\n' "mfactl import otpauth (1,000 per transaction)" \
        "$(awk -v n="$count" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')"
fi
