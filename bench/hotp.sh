#!/usr/bin/env bash
# An HOTP sign-in against a TOTP sign-in, in the stored path: instructions per
# complete sign-in (mfa_sign_in, then the resolve: mfa_resolve with an HOTP
# assertion, or mfa_resolve_totp), counted by valgrind's callgrind on the
# same store_bench program (bench/store_bench.c, BENCH_KIND=hotp for the
# HOTP side), each on an SQLite store of its own with the same users, signed
# in once each after the import. Only the bench's sign_in function is counted
# (callgrind's toggle: mfa_sign_in, the resolve and the frees; toggling on the
# mfa_* calls themselves would miss the work after a tail call, as
# mfa_resolve_totp makes one): exact and repeatable on a shared machine, where
# rates are not. Prints both counts
# and the ratio HOTP / TOTP (the goal: at most 1.10). With a PostgreSQL URL,
# the client side on PostgreSQL too. A benchmark, not a test.
#
#   bench/hotp.sh [sign-ins] [postgres-url]
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/../scripts/env.sh"
"$ROOT/scripts/build.sh" > /dev/null
. "$ROOT/bench/store_programs.sh"
signins=${1:-1000}
url=${2:-}
users=$signins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# total FILE...: the instructions counted in the callgrind outputs FILE...
total() { cat "$@" | sed -n 's/^summary: //p' | awk '{sum += $1} END {print sum}'; }
# instructions KIND STORE: instructions per sign-in of libmfa's sign-in calls, KIND totp or hotp
instructions() {
    BENCH_KIND=$1 "$out/store_bench" "$2" "$users" 0 1 > /dev/null
    rm -f "$work"/cg.*
    BENCH_KIND=$1 BENCH_SKIP_IMPORT=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
        --toggle-collect=sign_in \
        "$out/store_bench" "$2" "$users" "$signins" 1 > /dev/null 2> "$work/valgrind.log" \
        || { grep -v '^==' "$work/valgrind.log" >&2; exit 1; }
    echo $(( $(total "$work"/cg.*) / signins ))
}
# fresh_schema URL NAME: URL on a new, empty schema NAME
fresh_schema() {
    psql "$1" -qAtc "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $2 CASCADE; CREATE SCHEMA $2" > /dev/null
    echo "$1$([[ $1 == *\?* ]] && echo '&' || echo '?')options=-csearch_path%3D$2"
}
ratio() { awk -v h="$1" -v t="$2" 'BEGIN { printf "%.3f", h / t }'; }

echo "instructions per complete sign-in (callgrind), $signins sign-ins on $users users, $(date -u +%Y-%m-%d)"
totp=$(instructions totp "$work/totp.sqlite")
hotp=$(instructions hotp "$work/hotp.sqlite")
printf '%-36s %12s\n' "TOTP, SQLite" "$totp" "HOTP, SQLite" "$hotp"
printf '%-36s %12s\n' "HOTP / TOTP, SQLite" "$(ratio "$hotp" "$totp")"
if [ -n "$url" ]; then
    totp=$(instructions totp "$(fresh_schema "$url" bench_hotp_t)")
    hotp=$(instructions hotp "$(fresh_schema "$url" bench_hotp_h)")
    printf '%-36s %12s\n' "TOTP, PostgreSQL (client side)" "$totp" "HOTP, PostgreSQL (client side)" "$hotp"
    printf '%-36s %12s\n' "HOTP / TOTP, PostgreSQL" "$(ratio "$hotp" "$totp")"
    psql "$url" -qAtc "SET client_min_messages = warning; DROP SCHEMA bench_hotp_t CASCADE; DROP SCHEMA bench_hotp_h CASCADE" > /dev/null
fi
