/*
 * Where a benchmark process's time goes, preloaded into it
 * (LD_PRELOAD=split_timer.so): the time inside SQLite's sqlite3_step
 * against the rest, and, in a libmfa program, the time inside
 * mfa_sign_in and mfa_resolve_totp with the part of it spent in
 * sqlite3_step. Each sign-in of bench/store_bench.c, bench/probes/sqlite_floor.c
 * and bench/sqlite_baseline.c runs exactly one UPDATE (the accepting one),
 * and nothing else they run is one, so the UPDATEs count the sign-ins.
 *
 * When a process closes a SQLite connection, one line is appended to the
 * file SPLIT_TIMER_OUT names (nothing is written without it) for what the
 * process did since it last reported, if it signed anyone in:
 *   sign-ins, then nanoseconds from its first step to the close, in
 *   sqlite3_step, in mfa_sign_in, in mfa_resolve_totp, in sqlite3_step
 *   within mfa_sign_in, in sqlite3_step within mfa_resolve_totp
 * Clocks are read with CLOCK_MONOTONIC around each call (a few tens of
 * nanoseconds each, on every side alike). Built and run by bench/probes/split.sh.
 */
#define _GNU_SOURCE
#include "preload_support.h" /* after _GNU_SOURCE, for RTLD_NEXT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfa.h"

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

/* What this process did since it last reported. */
static struct {
    long long signins, first, steps, sign_in, resolve;
    long long steps_inside[3]; /* [inside] */
    int inside;                /* 1 in mfa_sign_in, 2 in mfa_resolve_totp, else 0 */
} now_counting;

static long long nanoseconds(void) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    return (long long)at.tv_sec * 1000000000 + at.tv_nsec;
}

/* The next definition of `name` after this library's. */
static void *next(const char *name) { return preload_next("split_timer", name); }

int sqlite3_step(sqlite3_stmt *statement) {
    static int (*real)(sqlite3_stmt *);
    static const char *(*sql)(sqlite3_stmt *);
    if (!real) real = next("sqlite3_step"), sql = next("sqlite3_sql");
    long long start = nanoseconds();
    if (!now_counting.first) now_counting.first = start;
    int status = real(statement);
    long long spent = nanoseconds() - start;
    now_counting.steps += spent;
    now_counting.steps_inside[now_counting.inside] += spent;
    const char *text = sql(statement);
    if (text && strncmp(text, "UPDATE ", 7) == 0) now_counting.signins++;
    return status;
}

int sqlite3_close(sqlite3 *db) {
    static int (*real)(sqlite3 *);
    if (!real) real = next("sqlite3_close");
    long long end = nanoseconds();
    const char *path = getenv("SPLIT_TIMER_OUT");
    if (path && now_counting.signins > 0) {
        FILE *out = fopen(path, "a");
        if (out) {
            fprintf(out, "%lld %lld %lld %lld %lld %lld %lld\n", now_counting.signins, end - now_counting.first,
                    now_counting.steps, now_counting.sign_in, now_counting.resolve, now_counting.steps_inside[1],
                    now_counting.steps_inside[2]);
            fclose(out);
        }
    }
    now_counting.signins = now_counting.first = now_counting.steps = 0;
    now_counting.sign_in = now_counting.resolve = 0;
    now_counting.steps_inside[0] = now_counting.steps_inside[1] = now_counting.steps_inside[2] = 0;
    return real(db);
}

/* Runs a libmfa call as inside: timed, and its steps counted apart. */
#define TIMED(which, total, call)                                                                       \
    do {                                                                                                \
        now_counting.inside = which;                                                                    \
        long long start = nanoseconds();                                                                \
        status = call;                                                                                  \
        total += nanoseconds() - start;                                                                 \
        now_counting.inside = 0;                                                                        \
    } while (0)

int32_t mfa_sign_in(mfa_ctx *ctx, mfa_resolver **out, mfa_user const *user, char **err) {
    static int32_t (*real)(mfa_ctx *, mfa_resolver **, mfa_user const *, char **);
    if (!real) real = (int32_t (*)(mfa_ctx *, mfa_resolver **, mfa_user const *, char **))next("mfa_sign_in");
    int32_t status;
    TIMED(1, now_counting.sign_in, real(ctx, out, user, err));
    return status;
}

int32_t mfa_resolve_totp(mfa_ctx *ctx, mfa_sign_in_result **out, char const *pending_credential, char const *tenant,
                         char const *enrollment_id, char const *otp, char **err) {
    typedef int32_t (*resolve_call)(mfa_ctx *, mfa_sign_in_result **, char const *, char const *, char const *,
                                    char const *, char **);
    static resolve_call real;
    if (!real) real = (resolve_call)next("mfa_resolve_totp");
    int32_t status;
    TIMED(2, now_counting.resolve, real(ctx, out, pending_credential, tenant, enrollment_id, otp, err));
    return status;
}
