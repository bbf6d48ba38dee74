/*
 * Complete TOTP sign-ins per second on a store shared by several client
 * processes: each process opens its own context on the same store (an
 * SQLite file or a PostgreSQL URL) and signs in its own share of the users,
 * the whole flow each time (mfa_sign_in, then mfa_resolve_totp; both on
 * one context, or with BENCH_RESOLVE_ELSEWHERE=1 the resolve on a second
 * one, which has not seen the sign-in).
 *
 * Each code is made before the clock starts, as the user's authenticator
 * makes it: the rate is the server's work alone (the bare-SQLite baseline
 * makes no code either, and bench/probes/callgrind.sh counts only libmfa's calls).
 *
 * usage: store_bench STORE USERS SIGNINS_PER_PROCESS PROCESSES
 * (with BENCH_SECONDS=S, each process signs in for S seconds instead; codes
 * are made beforehand for its first SIGNINS_PER_PROCESS sign-ins, and in the
 * loop after those)
 * With BENCH_KIND=hotp, each user has an HOTP token instead (imported with
 * mfa_token_import, 6 digits, SHA-1) and resolves with mfa_resolve and the
 * code of its next counter: the same sign-in for a counter-based factor
 * (bench/hotp.sh compares the two).
 * Prints: processes, sign-ins per second in all.
 * With BENCH_AUDIT_TRAIL=1 the configuration keeps the audit trail
 * (auditTrail.store): every sign-in stores its event; with
 * BENCH_AUDIT_CHAINS=1 each process appends to a chain of its own
 * (mfa_options.audit_chain) instead of them all to "main" (bench/audit.sh).
 * With BENCH_METRICS=off|on|tenant, the contexts keep no metrics, metrics
 * (the default), or metrics labelled by tenant; with BENCH_TENANT=T, every
 * user belongs to tenant T (bench/metrics_cost.sh).
 * Built and run by bench/store.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_support.h"
#include "sqlite_host_config.h"

static const uint8_t master[MFA_MASTER_KEY_BYTES] = {42};

/* The audit chain of this process (BENCH_AUDIT_CHAINS=1), or NULL for "main". */
static char chain[32];
/* bench_now when a run starts (bench_support.h), from which HOTP counters count. */
#define BENCH_START 1800000000

/* BENCH_TENANT: the users' tenant, or NULL for the project. */
static const char *bench_tenant(void) {
    const char *tenant = getenv("BENCH_TENANT");
    return tenant && *tenant ? tenant : NULL;
}

static mfa_ctx *open_store(const char *store) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    if ((status = mfa_options_init(&options, MFA_OPTIONS_VERSION)) != MFA_OK) die("options", status, NULL);
    options.store = store;
    options.master_key.id = "bench";
    options.master_key.key = master;
    options.clock = bench_clock;
    if (chain[0]) options.audit_chain = chain;
    const char *metrics = getenv("BENCH_METRICS");
    if (metrics && strcmp(metrics, "off") == 0) options.metrics = MFA_METRICS_OFF;
    else if (metrics && strcmp(metrics, "tenant") == 0) options.metrics = MFA_METRICS_BY_TENANT;
    else if (metrics && strcmp(metrics, "on") != 0) die("BENCH_METRICS must be off, on or tenant", 0, NULL);
    if ((status = mfa_open(&ctx, &options, &err)) != MFA_OK) die("open", status, err);
    return ctx;
}

/* The user of process p's sign-in i: its share of the users, in a scattered order. */
static long user_of(long p, long i, long share) { return p * share + (i * 7919) % share; }

/* BENCH_KIND=hotp: the users have HOTP tokens. */
static int hotp;

/* The code user `u`'s authenticator shows at `now`, into `code` (an HOTP
 * token: the code of counter (now - the bench's start) / 30, one press per
 * pass over the users). */
static void user_code(long u, int64_t now, char code[MFA_CODE_BUFFER_SIZE]) {
    unsigned char secret[20];
    user_secret(u, secret);
    int status = hotp ? mfa_hotp_generate(code, MFA_CODE_BUFFER_SIZE, secret, 20,
                                          (uint64_t)(now - BENCH_START) / 30, 6, MFA_ALG_SHA1)
                      : mfa_totp_generate(code, MFA_CODE_BUFFER_SIZE, secret, 20, NULL, now);
    if (status != MFA_OK) die("code", status, NULL);
}

/* The sign-in of user `u` with `code` on ctx, the resolve on resolving (ctx
 * itself, or another context: another server). Never inlined: bench/hotp.sh
 * counts its instructions under callgrind (--toggle-collect=sign_in), which
 * sees what libmfa does after a tail call too. */
__attribute__((noinline)) static void sign_in(mfa_ctx *ctx, mfa_ctx *resolving, long u, const char *code) {
    char uid[32];
    mfa_user user;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    int status;
    user_name(u, uid);
    if ((status = mfa_user_init(&user, MFA_USER_VERSION)) != MFA_OK) die("user", status, NULL);
    user.uid = uid;
    user.tenant = bench_tenant();
    user.auth_time = bench_now;
    status = mfa_sign_in(ctx, &resolver, &user, NULL);
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) die("sign in", status, NULL);
    if (hotp) {
        mfa_assertion assertion = MFA_ASSERTION_INIT;
        assertion.kind = MFA_FACTOR_HOTP;
        assertion.enrollment_id = resolver->hints[0].uid;
        assertion.code = code;
        status = mfa_resolve(resolving, &result, resolver->session, user.tenant, &assertion, &err);
    } else {
        status = mfa_resolve_totp(resolving, &result, resolver->session, user.tenant, resolver->hints[0].uid, code,
                                  &err);
    }
    if (status != MFA_OK) die("resolve", status, err);
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s STORE USERS SIGNINS_PER_PROCESS PROCESSES\n", argv[0]);
        return 2;
    }
    const char *store = argv[1];
    long users = atol(argv[2]), signins = atol(argv[3]), processes = atol(argv[4]);
    bench_sqlite_host_config();
    const char *kind = getenv("BENCH_KIND");
    hotp = kind && strcmp(kind, "hotp") == 0;
    mfa_ctx *ctx = open_store(store);
    char *err = NULL;
    const char *trail = getenv("BENCH_AUDIT_TRAIL");
    int stored = trail && *trail == '1';
    char config[160];
    snprintf(config, sizeof config,
             "{\"state\":\"ENABLED\",\"providers\":{\"%s\":\"ENABLED\"},\"auditTrail\":{\"store\":%s}}",
             hotp ? "hotp" : "totp", stored ? "true" : "false");
    int status = mfa_config_set_json(ctx, NULL, config, &err);
    if (status != MFA_OK) die("config", status, err);
    /* BENCH_TIME_OFFSET=S: start S seconds later (a second run on the same users needs new time steps). */
    const char *offset = getenv("BENCH_TIME_OFFSET");
    if (offset) bench_now += atol(offset);
    /* BENCH_SKIP_IMPORT=1: the users are in the store already (to measure the sign-ins alone). */
    const char *skip = getenv("BENCH_SKIP_IMPORT");
    for (long u = 0; u < users && !(skip && *skip == '1'); u++) {
        char uid[32];
        unsigned char secret[20];
        mfa_user user;
        mfa_factor_info *info = NULL;
        user_name(u, uid);
        user_secret(u, secret);
        if ((status = mfa_user_init(&user, MFA_USER_VERSION)) != MFA_OK) die("user", status, NULL);
        user.uid = uid;
        user.tenant = bench_tenant();
        if (hotp) {
            mfa_token_seed seed = MFA_TOKEN_SEED_INIT;
            seed.kind = MFA_FACTOR_HOTP;
            seed.secret = secret;
            seed.secret_len = 20;
            status = mfa_token_import(ctx, &info, &seed, &user, user.tenant, NULL, "bench", &err);
        } else {
            status = mfa_totp_import(ctx, &info, &user, secret, 20, NULL, NULL, &err);
        }
        if (status != MFA_OK) die("import", status, err);
        mfa_factor_info_free(info);
    }
    mfa_close(ctx);

    long share = users / processes;
    /* BENCH_SECONDS=S: as pgbench -T S, every process signs in for S seconds,
     * counted from when all of them have opened their store (connection time
     * left out, and no process runs alone at the end); else each does
     * SIGNINS_PER_PROCESS, timed from the first fork to the last exit. */
    const char *timed = getenv("BENCH_SECONDS");
    double duration = timed ? atof(timed) : 0;
    int ready[2], go[2], counts[2];
    if (pipe(ready) != 0 || pipe(go) != 0 || pipe(counts) != 0) die("pipe", 0, NULL);
    /* The code of each sign-in, the clock a step later after each pass over the share. */
    char (*codes)[MFA_CODE_BUFFER_SIZE] = malloc((size_t)(processes * signins + 1) * MFA_CODE_BUFFER_SIZE);
    if (!codes) die("out of memory", 0, NULL);
    for (long p = 0; p < processes; p++)
        for (long i = 0; i < signins; i++)
            user_code(user_of(p, i, share), bench_now + 30 * (i / share), codes[p * signins + i]);
    double start = seconds();
    for (long p = 0; p < processes; p++) {
        pid_t pid = fork();
        if (pid == 0) {
            const char *chains = getenv("BENCH_AUDIT_CHAINS");
            if (chains && *chains == '1') snprintf(chain, sizeof chain, "p%ld", p);
            mfa_ctx *mine = open_store(store);
            /* BENCH_RESOLVE_ELSEWHERE=1: each resolve on a second context, as when another server gets it. */
            const char *elsewhere = getenv("BENCH_RESOLVE_ELSEWHERE");
            mfa_ctx *resolving = elsewhere && *elsewhere == '1' ? open_store(store) : mine;
            char byte = 0;
            if (duration > 0 && (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1)) _exit(1);
            double until = seconds() + duration;
            long done = 0;
            for (long i = 0; duration > 0 ? seconds() < until : i < signins; i++) {
                if (i > 0 && i % share == 0) bench_now += 30;
                long u = user_of(p, i, share);
                char late[MFA_CODE_BUFFER_SIZE];
                if (i >= signins) user_code(u, bench_now, late);
                sign_in(mine, resolving, u, i < signins ? codes[p * signins + i] : late);
                done++;
            }
            if (resolving != mine) mfa_close(resolving);
            mfa_close(mine);
            if (write(counts[1], &done, sizeof done) != sizeof done) _exit(1);
            _exit(0);
        }
        if (pid < 0) die("fork", 0, NULL);
    }
    /* The parent only reads counts and readiness: with its own write ends
     * closed, a client that fails ends the reads instead of hanging them. */
    close(counts[1]);
    close(ready[1]);
    close(go[0]);
    if (duration > 0) {
        char byte = 0;
        for (long p = 0; p < processes; p++)
            if (read(ready[0], &byte, 1) != 1) die("a client process failed", 0, NULL);
        start = seconds();
        for (long p = 0; p < processes; p++)
            if (write(go[1], &byte, 1) != 1) die("pipe", 0, NULL);
    }
    int failed = 0;
    long total = 0;
    for (long p = 0; p < processes; p++) {
        int wstatus = 0;
        long done = 0;
        if (read(counts[0], &done, sizeof done) == sizeof done) total += done;
        wait(&wstatus);
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) failed = 1;
    }
    double elapsed = seconds() - start;
    if (failed) die("a client process failed", 0, NULL);
    printf("%ld %.0f\n", processes, total / elapsed);
    free(codes);
    return 0;
}
