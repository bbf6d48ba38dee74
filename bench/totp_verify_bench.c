/*
 * Stateless TOTP verification: libmfa's C ABI against liboath, in one run.
 * SHA1, 6 digits, 30 s, window +/-5 (11 steps). Two cases: the right code for
 * the current step, and a wrong code (every step is tried).
 *
 * Prints verifications per second for each and the ratio libmfa / liboath.
 * Built and run by bench/totp_verify.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <liboath/oath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_support.h"

enum { KEYS = 64, WINDOW = 5 };

typedef struct {
    unsigned char key[20];
    char right[MFA_CODE_BUFFER_SIZE];
    char wrong[MFA_CODE_BUFFER_SIZE];
} sample;

static sample samples[KEYS];
static const time_t when = 1700000000;

/* A code that matches none of the 11 steps. */
static void make_wrong(sample *s) {
    for (unsigned candidate = 0;; candidate++) {
        snprintf(s->wrong, sizeof s->wrong, "%06u", (candidate * 7919u) % 1000000u);
        int64_t step;
        if (mfa_totp_verify(&step, s->key, 20, NULL, when, WINDOW, s->wrong) != MFA_OK) return;
    }
}

static long sink;

static double run_mfa(int right, long n) {
    double start = seconds();
    for (long i = 0; i < n; i++) {
        const sample *s = &samples[i % KEYS];
        int64_t step = 0;
        sink += mfa_totp_verify(&step, s->key, 20, NULL, when, WINDOW, right ? s->right : s->wrong);
    }
    return n / (seconds() - start);
}

static double run_oath(int right, long n) {
    double start = seconds();
    for (long i = 0; i < n; i++) {
        const sample *s = &samples[i % KEYS];
        sink += oath_totp_validate((const char *)s->key, 20, when, 30, 0, WINDOW, right ? s->right : s->wrong);
    }
    return n / (seconds() - start);
}

/* Best of several rounds of each, the two libraries taking turns, so that
 * both meet the same machine (frequency, neighbours) as far as possible. */
static void best_pair(int right, long n, double *mine, double *theirs) {
    *mine = *theirs = 0;
    for (int round = 0; round < 7; round++) {
        double a = run_mfa(right, n), b = run_oath(right, n);
        if (a > *mine) *mine = a;
        if (b > *theirs) *theirs = b;
    }
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (oath_init() != OATH_OK) return 1;
    for (int k = 0; k < KEYS; k++) {
        if (mfa_random_secret(samples[k].key, 20) != MFA_OK) return 1;
        if (mfa_totp_generate(samples[k].right, sizeof samples[k].right, samples[k].key, 20, NULL, when) != MFA_OK)
            return 1;
        make_wrong(&samples[k]);
        /* both libraries must agree before they are timed */
        if (oath_totp_validate((const char *)samples[k].key, 20, when, 30, 0, WINDOW, samples[k].right) != 0 ||
            oath_totp_validate((const char *)samples[k].key, 20, when, 30, 0, WINDOW, samples[k].wrong) >= 0) {
            fprintf(stderr, "liboath disagrees with libmfa\n");
            return 1;
        }
    }
    printf("%-28s %14s %14s %8s\n", "case (SHA1, 6 digits, +/-5)", "libmfa /s", "liboath /s", "ratio");
    const char *names[2] = {"wrong code (11 steps)", "right code (current step)"};
    for (int right = 0; right < 2; right++) {
        double mine, theirs;
        best_pair(right, n, &mine, &theirs);
        printf("%-28s %14.0f %14.0f %7.2fx\n", names[right], mine, theirs, mine / theirs);
    }
    oath_done();
    return sink == 42 ? 2 : 0;
}
