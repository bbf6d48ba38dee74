/*
 * A PostgreSQL store whose server stops and starts again under a context
 * that stays open, through the C ABI.
 *
 * The test runs its own server (scripts/pg.sh start PORT; `halt` stops it
 * keeping its data, `start` brings it back, `stop` removes it at the end)
 * and works in a schema of its own (test_pg_store.h). One context is opened
 * and kept for the whole run. Users get 1 to 3 TOTP factors each
 * (mfa_totp_import) and sign in once. Then, three times:
 *
 *  - Tokens are minted and left in flight: a pending credential (with its
 *    code), an enrollment session, a TOTP secret waiting to be enrolled.
 *  - Two calls are caught mid-flight: the test's own libpq connection locks
 *    two users' rows of mfa_users (SELECT ... FOR UPDATE, open transaction);
 *    a sign-in of the first (mfa_resolve_totp) and an enrollment of the
 *    second (mfa_totp_enroll), each from its own thread, wait for that row
 *    at their last statement, after they have claimed the TOTP step and
 *    consumed the pending credential (the sign-in), or consumed the session,
 *    deleted the pending secret and inserted the factor (the enrollment).
 *  - The server stops (pg.sh halt, a fast shutdown). The two calls in
 *    flight fail with MFA_ERR_STORAGE_ERROR, within a few seconds.
 *  - Cycles 1 and 2: while the server is down, every call that needs the
 *    store, twice over, fails with MFA_ERR_STORAGE_ERROR within a few
 *    seconds (never a crash, never a hang), including a resolve of the
 *    pending credential, an enrollment of the waiting secret and an
 *    unenroll. Cycle 3 makes no call while the server is down, after four
 *    threads have filled the context's connection pool.
 *  - The server starts again (pg.sh start). The same context works again:
 *    at most one call fails (the one that finds its connection broken), as
 *    the store documents ("the next call connects afresh").
 *  - Nothing was lost and nothing half-written: every user's factors are
 *    exactly the ones enrolled; the pending credential from before the stop
 *    (and its resolve that failed while the server was down) resolves now;
 *    the sign-in caught mid-flight left its credential unconsumed and its
 *    step unclaimed (the same credential and code resolve now); the
 *    enrollment caught mid-flight left no factor, and its session and secret
 *    finish it now; the secret from before the stop enrolls now; the
 *    configuration is intact; every user signs in.
 *
 * Usage: test_pg_restart PG_SH PORT
 * Built by CTest with gcc at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"
#include "test_pg_server.h"
#include "test_pg_store.h"
#include "test_support.h"

#define USERS 12
#define MAX_FACTORS 5
#define CYCLES 3
#define SECRET_BYTES 20
#define SLOW 5.0 /* seconds: a call that takes longer is a hang */
#define POOL_THREADS 4

/* Users with roles in every cycle (each starts with one factor: 1 + i % 3). */
#define U_PENDING 0 /* a pending credential across the stop */
#define U_MID 1     /* a sign-in caught mid-flight */
#define U_ENROLL 3  /* an enrollment caught mid-flight */
#define U_ACROSS 6  /* a TOTP secret across the stop */
#define POOL_USER 8 /* POOL_THREADS users from here fill the pool */

static const uint8_t KEY[MFA_MASTER_KEY_BYTES] = {
    0x5a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0};

typedef struct factor {
    char eid[64];
    uint8_t key[SECRET_BYTES];
} factor;

typedef struct user_state {
    char uid[64];
    factor factors[MAX_FACTORS];
    int count;
} user_state;

static user_state users[USERS];
static test_store store;
static const char *script;
static int port;
static volatile int64_t now_s = 1700000010;
static const char *volatile step = "start";
static double slowest; /* the slowest call while the server was down */
static int printed_message;

static int64_t restart_clock(void *context) {
    (void)context;
    return now_s;
}

static void on_alarm(int signal_number) {
    static const char message[] = "test_pg_restart: HANG (alarm) during: ";
    (void)signal_number;
    if (write(2, message, sizeof message - 1) < 0 || write(2, step, strlen(step)) < 0 || write(2, "\n", 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

/* ------------------------------------------------------------------ */
/* The server                                                           */
/* ------------------------------------------------------------------ */

static int server(const char *action) {
    return test_pg_server(script, action, port);
}

/* Starts the server; `url` gets the URL pg.sh prints. */
static int server_start(char *url, size_t size) {
    return test_pg_server_start(script, port, url, size);
}

/* ------------------------------------------------------------------ */
/* The library                                                          */
/* ------------------------------------------------------------------ */

static void user_make(mfa_user *user, const char *uid) {
    if (test_user(user, uid, NULL, "restart@example.com", now_s) != MFA_OK) abort();
}

static void code_raw(char out[MFA_CODE_BUFFER_SIZE], const uint8_t *key, size_t len) {
    out[0] = '\0';
    CHECK_STATUS(mfa_totp_generate(out, MFA_CODE_BUFFER_SIZE, key, len, NULL, now_s), MFA_OK);
}

/* The user `uid` passes the first factor: the status; the pending credential in `cred`. */
static int sign_in_as(mfa_ctx *ctx, const char *uid, char cred[TOKEN_MAX]) {
    mfa_user user;
    user_make(&user, uid);
    return sign_in_for(ctx, &user, cred, NULL, NULL);
}

static int resolve(mfa_ctx *ctx, const char *cred, const char *eid, const char *code) {
    mfa_sign_in_result *out = NULL;
    int status = mfa_resolve_totp(ctx, &out, cred, NULL, eid, code, NULL);
    mfa_sign_in_result_free(out);
    return status;
}

/* A TOTP secret waiting for its enrollment: session_info and the code for now. */
typedef struct waiting_secret {
    char session_info[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
} waiting_secret;

static int new_secret(mfa_ctx *ctx, const char *uid, waiting_secret *out) {
    mfa_user user;
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    int status;
    user_make(&user, uid);
    out->session_info[0] = '\0';
    out->code[0] = '\0';
    status = mfa_session_new(ctx, &session, &user, NULL);
    if (status == MFA_OK) status = mfa_totp_generate_secret(ctx, &secret, session, NULL);
    if (status == MFA_OK) {
        snprintf(out->session_info, TOKEN_MAX, "%s", secret->session_info);
        code_at(out->code, secret->shared_secret_key, now_s);
    }
    mfa_totp_secret_free(secret);
    mfa_free(session);
    return status;
}

static int enroll(mfa_ctx *ctx, const char *uid, const waiting_secret *secret, char eid[64]) {
    mfa_user user;
    mfa_factor_info *info = NULL;
    int status;
    user_make(&user, uid);
    status = mfa_totp_enroll(ctx, &info, &user, secret->session_info, secret->code, NULL, NULL);
    eid[0] = '\0';
    if (info) snprintf(eid, 64, "%s", info->uid);
    mfa_factor_info_free(info);
    return status;
}

/* Records a factor enrolled through the API (its key is not known here: only its id). */
static void remember(int u, const char *eid) {
    if (users[u].count < MAX_FACTORS) {
        memset(&users[u].factors[users[u].count], 0, sizeof(factor));
        snprintf(users[u].factors[users[u].count].eid, 64, "%s", eid);
        users[u].count++;
    }
}

/* Every user's factors are exactly the ones recorded. */
static void check_factors(mfa_ctx *ctx, const char *when) {
    int bad = 0;
    for (int u = 0; u < USERS; u++) {
        mfa_user user;
        mfa_factor_list *list = NULL;
        int status, match = 0;
        user_make(&user, users[u].uid);
        status = mfa_factors_list(ctx, &list, &user, NULL);
        CHECK_STATUS(status, MFA_OK);
        if (!list) continue;
        for (int i = 0; i < users[u].count; i++) {
            for (size_t j = 0; j < list->count; j++) match += strcmp(list->items[j].uid, users[u].factors[i].eid) == 0;
        }
        if ((int)list->count != users[u].count || match != users[u].count) {
            fprintf(stderr, "%s: %s has %zu factors (%d of them known), want %d\n", when, users[u].uid, list->count,
                    match, users[u].count);
            bad++;
        }
        mfa_factor_list_free(list);
    }
    CHECK(bad == 0);
}

/* Every user signs in with one of the imported factors. */
static void sign_in_everyone(mfa_ctx *ctx, int which) {
    int ok = 0;
    now_s += 30;
    for (int u = 0; u < USERS; u++) {
        char cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
        int imported = 1 + u % 3;
        const factor *f = &users[u].factors[which % imported];
        CHECK_STATUS(sign_in_as(ctx, users[u].uid, cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        code_raw(code, f->key, SECRET_BYTES);
        ok += resolve(ctx, cred, f->eid, code) == MFA_OK;
    }
    CHECK(ok == USERS);
    if (ok != USERS) fprintf(stderr, "only %d of %d users signed in\n", ok, USERS);
}

/* ------------------------------------------------------------------ */
/* Calls in flight                                                      */
/* ------------------------------------------------------------------ */

typedef struct flight {
    mfa_ctx *ctx;
    int kind; /* 0: resolve, 1: enroll */
    const char *uid;
    const char *cred;
    const char *eid;
    const char *code;
    const waiting_secret *secret;
    int status;
    double ended;
} flight;

static void *fly(void *arg) {
    flight *f = arg;
    if (f->kind == 0) {
        f->status = resolve(f->ctx, f->cred, f->eid, f->code);
    } else if (f->kind == 1) {
        char eid[64];
        f->status = enroll(f->ctx, f->uid, f->secret, eid);
    }
    f->ended = test_mono();
    return NULL;
}

/* ------------------------------------------------------------------ */
/* While the server is down                                             */
/* ------------------------------------------------------------------ */

typedef struct in_flight {
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    char session[TOKEN_MAX];
    waiting_secret across;
} in_flight;

#define DOWN(name, expr)                                                                               \
    do {                                                                                               \
        double t0_ = test_mono(), took_;                                                               \
        int got_;                                                                                      \
        step = name;                                                                                   \
        got_ = (expr);                                                                                 \
        took_ = test_mono() - t0_;                                                                     \
        if (took_ > slowest) slowest = took_;                                                          \
        checks += 2;                                                                                   \
        if (got_ != MFA_ERR_STORAGE_ERROR) {                                                           \
            failures++;                                                                                \
            fprintf(stderr, "server down: %s gave %s, want STORAGE_ERROR\n", name, mfa_status_name(got_)); \
        }                                                                                              \
        if (took_ > SLOW) {                                                                            \
            failures++;                                                                                \
            fprintf(stderr, "server down: %s took %.1f s\n", name, took_);                             \
        }                                                                                              \
        calls++;                                                                                       \
    } while (0)

/* Every call that needs the store; returns how many were made. */
static int calls_while_down(mfa_ctx *ctx, const in_flight *fl) {
    mfa_user user;
    mfa_resolver *resolver = NULL;
    mfa_factor_list *list = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    mfa_sign_in_result *result = NULL;
    char *text = NULL, *err = NULL;
    uint8_t key[SECRET_BYTES];
    bool recent = false;
    size_t rotated = 0;
    int calls = 0;
    user_make(&user, users[U_PENDING].uid);
    CHECK_STATUS(mfa_random_secret(key, sizeof key), MFA_OK);
    DOWN("mfa_sign_in", mfa_sign_in(ctx, &resolver, &user, &err));
    if (err && !printed_message) {
        printf("  (the message: %.*s)\n", (int)strcspn(err, "\n"), err);
        printed_message = 1;
    }
    mfa_free(err);
    mfa_resolver_free(resolver);
    resolver = NULL;
    DOWN("mfa_resolve_totp", mfa_resolve_totp(ctx, &result, fl->cred, NULL, users[U_PENDING].factors[0].eid,
                                              fl->code, NULL));
    mfa_sign_in_result_free(result);
    DOWN("mfa_resolver_load", mfa_resolver_load(ctx, &resolver, fl->cred, NULL, NULL));
    mfa_resolver_free(resolver);
    DOWN("mfa_factors_list", mfa_factors_list(ctx, &list, &user, NULL));
    mfa_factor_list_free(list);
    DOWN("mfa_session_new", mfa_session_new(ctx, &text, &user, NULL));
    mfa_free(text);
    text = NULL;
    DOWN("mfa_totp_generate_secret", mfa_totp_generate_secret(ctx, &secret, fl->session, NULL));
    mfa_totp_secret_free(secret);
    {
        mfa_user across;
        user_make(&across, users[U_ACROSS].uid);
        DOWN("mfa_totp_enroll", mfa_totp_enroll(ctx, &info, &across, fl->across.session_info, fl->across.code, NULL,
                                                NULL));
        mfa_factor_info_free(info);
        info = NULL;
    }
    DOWN("mfa_totp_import", mfa_totp_import(ctx, &info, &user, key, sizeof key, NULL, NULL, NULL));
    mfa_factor_info_free(info);
    DOWN("mfa_unenroll", mfa_unenroll(ctx, &user, users[U_PENDING].factors[0].eid, NULL));
    DOWN("mfa_config_set_json", mfa_config_set_json(ctx, "tenant-down", "{\"state\":\"ENABLED\"}", NULL));
    DOWN("mfa_config_get_json", mfa_config_get_json(ctx, &text, NULL, NULL));
    mfa_free(text);
    DOWN("mfa_purge_expired", mfa_purge_expired(ctx, NULL));
    DOWN("mfa_token_check", mfa_token_check(ctx, NULL, users[U_PENDING].uid, now_s));
    DOWN("mfa_step_up_check", mfa_step_up_check(ctx, &recent, NULL, users[U_PENDING].uid, 3600));
    DOWN("mfa_rotate_keys", mfa_rotate_keys(ctx, &rotated, NULL));
    return calls;
}

/* ------------------------------------------------------------------ */
/* One stop/start cycle                                                 */
/* ------------------------------------------------------------------ */

static void cycle(mfa_ctx *ctx, int n) {
    int silent = n == CYCLES - 1;
    in_flight fl;
    waiting_secret mid_secret;
    char mid_cred[TOKEN_MAX], mid_code[MFA_CODE_BUFFER_SIZE], url[1024], eid[64];
    const char *lock_params[2];
    flight flights[2], pool[POOL_THREADS];
    pthread_t threads[2], pool_threads[POOL_THREADS];
    PGconn *conn;
    double halt_started, halt_took, t0;
    int failed_after = 0, calls = 0, before_failures = failures;
    char *config = NULL, prepared[80];

    printf("cycle %d%s\n", n + 1, silent ? " (no call while the server is down; a full connection pool)" : "");
    now_s += 30;
    step = "tokens in flight";
    /* In flight across the stop. */
    CHECK_STATUS(sign_in_as(ctx, users[U_PENDING].uid, fl.cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
    code_raw(fl.code, users[U_PENDING].factors[0].key, SECRET_BYTES);
    {
        mfa_user user;
        char *session = NULL;
        user_make(&user, users[U_PENDING].uid);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        snprintf(fl.session, TOKEN_MAX, "%s", session ? session : "");
        mfa_free(session);
    }
    CHECK_STATUS(new_secret(ctx, users[U_ACROSS].uid, &fl.across), MFA_OK);
    /* To be caught mid-flight. */
    CHECK_STATUS(sign_in_as(ctx, users[U_MID].uid, mid_cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
    code_raw(mid_code, users[U_MID].factors[0].key, SECRET_BYTES);
    CHECK_STATUS(new_secret(ctx, users[U_ENROLL].uid, &mid_secret), MFA_OK);

    /* Catch two calls mid-flight: they wait for rows this connection holds. */
    step = "catching two calls mid-flight";
    conn = PQconnectdb(store.location);
    lock_params[0] = users[U_MID].uid;
    lock_params[1] = users[U_ENROLL].uid;
    CHECK(PQstatus(conn) == CONNECTION_OK);
    CHECK(test_pg_query(conn, "BEGIN", 0, NULL) == 0);
    CHECK(test_pg_query(conn, "SELECT count(*) FROM (SELECT 1 FROM mfa_users WHERE tenant = '' AND uid IN ($1, $2) "
                              "FOR UPDATE) r", 2, lock_params) == 2);
    memset(flights, 0, sizeof flights);
    flights[0].ctx = ctx;
    flights[0].kind = 0;
    flights[0].cred = mid_cred;
    flights[0].eid = users[U_MID].factors[0].eid;
    flights[0].code = mid_code;
    flights[1].ctx = ctx;
    flights[1].kind = 1;
    flights[1].uid = users[U_ENROLL].uid;
    flights[1].secret = &mid_secret;
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&threads[i], NULL, fly, &flights[i]) == 0);
    t0 = test_mono();
    while (test_pg_query(conn, WAITING_ON_ME, 0, NULL) < 2 && test_mono() - t0 < 10) usleep(2000);
    CHECK(test_pg_query(conn, WAITING_ON_ME, 0, NULL) == 2);
    /* Hand the row locks to a prepared transaction: it outlives the stop, so the
     * two calls cannot get the rows before the server ends them. */
    snprintf(prepared, sizeof prepared, "PREPARE TRANSACTION 'libmfa_restart_%d'", n);
    CHECK(test_pg_query(conn, prepared, 0, NULL) == 0);
    PQfinish(conn);

    if (silent) {
        /* Fill the context's pool with POOL_THREADS more connections: as many sign-ins at
         * once, each held at a row of mfa_users until all are waiting, then let go. They
         * end idle in the pool, and are all broken by the stop. */
        const char *params[POOL_THREADS];
        char creds[POOL_THREADS][TOKEN_MAX], codes[POOL_THREADS][MFA_CODE_BUFFER_SIZE];
        step = "filling the pool";
        conn = PQconnectdb(store.location);
        CHECK(PQstatus(conn) == CONNECTION_OK);
        for (int i = 0; i < POOL_THREADS; i++) params[i] = users[POOL_USER + i].uid;
        CHECK(test_pg_query(conn, "BEGIN", 0, NULL) == 0);
        CHECK(test_pg_query(conn, "SELECT count(*) FROM (SELECT 1 FROM mfa_users WHERE tenant = '' "
                                  "AND uid IN ($1, $2, $3, $4) FOR UPDATE) r", POOL_THREADS, params) == POOL_THREADS);
        for (int i = 0; i < POOL_THREADS; i++) {
            const factor *f = &users[POOL_USER + i].factors[0];
            CHECK_STATUS(sign_in_as(ctx, users[POOL_USER + i].uid, creds[i]), MFA_ERR_SECOND_FACTOR_REQUIRED);
            code_raw(codes[i], f->key, SECRET_BYTES);
            memset(&pool[i], 0, sizeof pool[i]);
            pool[i].ctx = ctx;
            pool[i].kind = 0;
            pool[i].cred = creds[i];
            pool[i].eid = f->eid;
            pool[i].code = codes[i];
            CHECK(pthread_create(&pool_threads[i], NULL, fly, &pool[i]) == 0);
        }
        t0 = test_mono();
        while (test_pg_query(conn, WAITING_ON_ME, 0, NULL) < POOL_THREADS && test_mono() - t0 < 10) usleep(2000);
        CHECK(test_pg_query(conn, WAITING_ON_ME, 0, NULL) == POOL_THREADS);
        CHECK(test_pg_query(conn, "ROLLBACK", 0, NULL) == 0);
        PQfinish(conn);
        for (int i = 0; i < POOL_THREADS; i++) {
            CHECK(pthread_join(pool_threads[i], NULL) == 0);
            CHECK_STATUS(pool[i].status, MFA_OK);
        }
    }

    /* Stop the server. */
    step = "pg.sh halt";
    halt_started = test_mono();
    CHECK(server("halt") == 0);
    halt_took = test_mono() - halt_started;
    step = "the calls in flight";
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK_STATUS(flights[i].status, MFA_ERR_STORAGE_ERROR);
        CHECK(flights[i].ended - halt_started < SLOW);
    }
    printf("  pg.sh halt took %.2f s; the sign-in and the enrollment in flight failed with %s and %s, %.2f and "
           "%.2f s after the stop began\n", halt_took, mfa_status_name(flights[0].status),
           mfa_status_name(flights[1].status), flights[0].ended - halt_started, flights[1].ended - halt_started);

    if (!silent) {
        slowest = 0;
        calls = calls_while_down(ctx, &fl);
        calls += calls_while_down(ctx, &fl);
        printf("  server down: %d calls, each STORAGE_ERROR expected; the slowest took %.3f s\n", calls, slowest);
    }

    /* Start it again: the same context works again. */
    step = "pg.sh start";
    CHECK(server_start(url, sizeof url) == 0);
    step = "the first calls after the start";
    for (int attempt = 0; attempt < 10; attempt++) {
        mfa_factor_list *list = NULL;
        mfa_user user;
        int status;
        user_make(&user, users[U_PENDING].uid);
        status = mfa_factors_list(ctx, &list, &user, NULL);
        mfa_factor_list_free(list);
        if (status == MFA_OK) break;
        CHECK_STATUS(status, MFA_ERR_STORAGE_ERROR);
        failed_after++;
    }
    printf("  after pg.sh start: %d call(s) failed before one succeeded on the same context\n", failed_after);
    /* Let go of the rows the two calls waited for. */
    conn = PQconnectdb(store.location);
    snprintf(prepared, sizeof prepared, "ROLLBACK PREPARED 'libmfa_restart_%d'", n);
    CHECK(PQstatus(conn) == CONNECTION_OK);
    CHECK(test_pg_query(conn, prepared, 0, NULL) == 0);
    PQfinish(conn);
    if (failed_after > 1) {
        fprintf(stderr, "cycle %d: after the server came back, %d calls in a row failed on the same context; the "
                        "store documents one (\"a connection that breaks ... is dropped; the next call connects "
                        "afresh\"), but each idle connection of the pool fails one call before it is dropped\n",
                n + 1, failed_after);
    }
    CHECK(failed_after <= 1);

    /* Nothing lost, nothing half-written. */
    step = "checking the store";
    check_factors(ctx, "after the restart");
    CHECK_STATUS(resolve(ctx, fl.cred, users[U_PENDING].factors[0].eid, fl.code), MFA_OK);
    CHECK_STATUS(resolve(ctx, fl.cred, users[U_PENDING].factors[0].eid, fl.code), MFA_ERR_INVALID_SESSION);
    /* The sign-in caught mid-flight: credential unconsumed, step unclaimed. */
    CHECK_STATUS(resolve(ctx, mid_cred, users[U_MID].factors[0].eid, mid_code), MFA_OK);
    /* The enrollment caught mid-flight: no factor (check_factors), and it finishes now. */
    CHECK_STATUS(enroll(ctx, users[U_ENROLL].uid, &mid_secret, eid), MFA_OK);
    if (eid[0]) remember(U_ENROLL, eid);
    CHECK_STATUS(enroll(ctx, users[U_ENROLL].uid, &mid_secret, eid), MFA_ERR_INVALID_SESSION);
    /* The secret from before the stop (whose enrollment failed while the server was down). */
    CHECK_STATUS(enroll(ctx, users[U_ACROSS].uid, &fl.across, eid), MFA_OK);
    if (eid[0]) remember(U_ACROSS, eid);
    /* The session from before the stop still makes a secret. */
    {
        mfa_totp_secret *secret = NULL;
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, fl.session, NULL), MFA_OK);
        mfa_totp_secret_free(secret);
    }
    CHECK_STATUS(mfa_config_get_json(ctx, &config, NULL, NULL), MFA_OK);
    CHECK(config && strstr(config, "ENABLED"));
    mfa_free(config);
    check_factors(ctx, "after the in-flight work was finished");
    sign_in_everyone(ctx, n);
    printf("  every factor there, the pending credential and the secret from before the stop used now, the calls "
           "caught mid-flight left nothing behind%s\n", failures == before_failures ? "" : " (FAILED)");
}

int main(int argc, char **argv) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char url[1024], *err = NULL;
    int status, total = 0;
    double started = test_mono();

    if (argc != 3) {
        fprintf(stderr, "usage: %s PG_SH PORT\n", argv[0]);
        return 2;
    }
    script = argv[1];
    port = atoi(argv[2]);
    {
        /* Prepared transactions hold the rows the calls in flight wait for, across the stop. */
        const char *extra = getenv("MFA_PG_OPTIONS");
        char options_env[512];
        snprintf(options_env, sizeof options_env, "%s -c max_prepared_transactions=4", extra ? extra : "");
        setenv("MFA_PG_OPTIONS", options_env, 1);
    }
    signal(SIGALRM, on_alarm);
    alarm(170); /* a hang is a failure (CTest gives 180 s) */

    step = "pg.sh start";
    server("stop"); /* what a run that died may have left on this port */
    if (server_start(url, sizeof url) != 0) return 2;
    if (test_store_make(&store, url, "libmfa-restart") != 0) {
        server("stop");
        return 2;
    }
    printf("store: %s\n", store.location);

    CHECK_STATUS(mfa_options_init(&options, MFA_OPTIONS_VERSION), MFA_OK);
    options.store = store.location;
    options.master_key.id = "restart";
    options.master_key.key = KEY;
    options.clock = restart_clock;
    status = mfa_open(&ctx, &options, &err);
    if (status != MFA_OK) fprintf(stderr, "mfa_open: %s: %s\n", mfa_status_name(status), err ? err : "");
    mfa_free(err);
    CHECK(ctx != NULL);
    if (ctx) {
        CHECK_STATUS(mfa_config_set_json(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}",
                                         NULL), MFA_OK);
        step = "importing factors";
        for (int u = 0; u < USERS; u++) {
            mfa_user user;
            snprintf(users[u].uid, sizeof users[u].uid, "restart-user-%d", u);
            user_make(&user, users[u].uid);
            for (int i = 0; i < 1 + u % 3; i++) {
                mfa_factor_info *info = NULL;
                factor *f = &users[u].factors[users[u].count];
                CHECK_STATUS(mfa_random_secret(f->key, SECRET_BYTES), MFA_OK);
                CHECK_STATUS(mfa_totp_import(ctx, &info, &user, f->key, SECRET_BYTES, NULL, "imported", NULL), MFA_OK);
                if (info) {
                    snprintf(f->eid, sizeof f->eid, "%s", info->uid);
                    users[u].count++;
                    total++;
                }
                mfa_factor_info_free(info);
            }
        }
        printf("%d users, %d factors imported\n", USERS, total);
        sign_in_everyone(ctx, 0);
        for (int n = 0; n < CYCLES; n++) cycle(ctx, n);
        check_factors(ctx, "at the end");
    }
    mfa_close(ctx);
    step = "cleaning up";
    test_store_remove(&store);
    server("stop");
    return test_report_timed(test_mono() - started);
}
