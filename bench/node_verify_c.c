/*
 * The C ABI's side of bench/node_verify.sh: stateless TOTP verification (SHA1, 6 digits,
 * 30 s, window +/-W) with mfa_totp_verify, the right code (the current step) and a wrong
 * code (every step of the window tried), over 64 keys. Prints one line per case:
 * "right <verifications per second>" and "wrong <...>", for one timed run of N calls each.
 *
 *   node_verify_c N W
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_support.h"

enum { KEYS = 64 };

static unsigned char keys[KEYS][20];
static char right[KEYS][MFA_CODE_BUFFER_SIZE], wrong[KEYS][MFA_CODE_BUFFER_SIZE];
static const int64_t when = 1700000000;
static long sink;

static double run(char codes[KEYS][MFA_CODE_BUFFER_SIZE], long n, int window) {
    double start = seconds();
    for (long i = 0; i < n; i++) {
        int k = (int)(i % KEYS);
        sink += mfa_totp_verify(NULL, keys[k], 20, NULL, when, window, codes[k]);
    }
    return n / (seconds() - start);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int window = argc > 2 ? atoi(argv[2]) : 1;
    for (int k = 0; k < KEYS; k++) {
        user_secret(k, keys[k]);
        if (mfa_totp_generate(right[k], sizeof right[k], keys[k], 20, NULL, when) != MFA_OK) return 1;
        for (unsigned c = 0;; c++) { /* a code no step of the window has */
            snprintf(wrong[k], sizeof wrong[k], "%06u", (c * 7919u + 17u) % 1000000u);
            if (mfa_totp_verify(NULL, keys[k], 20, NULL, when, window, wrong[k]) == MFA_ERR_INVALID_VERIFICATION_CODE) break;
        }
    }
    run(right, n / 10, window); /* warm-up */
    printf("right %.0f\n", run(right, n, window));
    printf("wrong %.0f\n", run(wrong, n, window));
    return sink == 42 ? 2 : 0;
}
