/*
 * What the C benchmarks share: a clock the benchmark moves by hand, a
 * monotonic timer, reproducible per-user secrets and names, and a way out.
 * Each benchmark is one translation unit; unused helpers are `static inline`.
 */
#ifndef MFA_BENCH_SUPPORT_H
#define MFA_BENCH_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mfa.h"

/* The time libmfa sees (Unix seconds); benchmarks advance it by whole TOTP steps. */
static int64_t bench_now = 1800000000;

/* An mfa_clock_fn reading bench_now. */
static inline int64_t bench_clock(void *context) {
    (void)context;
    return bench_now;
}

/* A monotonic timer, in seconds. */
static inline double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A distinct, reproducible 20-byte secret per user (a benchmark, not a key). */
static inline void user_secret(long user, unsigned char out[20]) {
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)user * 0xBF58476D1CE4E5B9ull;
    for (int i = 0; i < 20; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out[i] = (unsigned char)(state >> 24);
    }
}

/* The uid of user number `user`. */
static inline void user_name(long user, char out[32]) { snprintf(out, 32, "user%07ld", user); }

/* Prints what failed, with libmfa's status name and message, and exits. */
static inline void die(const char *what, int status, char *err) {
    fprintf(stderr, "%s: %s %s\n", what, mfa_status_name(status), err ? err : "");
    mfa_free(err);
    exit(1);
}

#endif /* MFA_BENCH_SUPPORT_H */
