/*
 * The C side of bench/rust_verify.sh: n verifications through libmfa's C
 * ABI, as a C host makes them (mfa_totp_verify with the defaults, window
 * +/-5), over `count` samples of a 20-byte key and a code each. Built with
 * cc -O2 by build.rs and linked into the benchmark, so that C, the Rust
 * binding and totp-rs run in one process.
 */
#include <stddef.h>
#include <stdint.h>

#include "mfa.h"

long mfa_bench_c_verify(const uint8_t *keys, const char *codes, size_t count, long n, int64_t when, int32_t window) {
    long accepted = 0;
    for (long i = 0; i < n; i++) {
        size_t k = (size_t)i % count;
        accepted += mfa_totp_verify(NULL, keys + 20 * k, 20, NULL, when, window, codes + 16 * k) == MFA_OK;
    }
    return accepted;
}
