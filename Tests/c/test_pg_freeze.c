/*
 * A PostgreSQL server that freezes (SIGSTOP) under calls in flight, through
 * the C ABI: every call gives up at its deadline (mfa_deadline_ms in the
 * store URL) with MFA_ERR_STORAGE_ERROR, nothing is half-written, and the
 * calls after the server thaws (SIGCONT) work.
 *
 * The test runs its own server (scripts/pg.sh start PORT) and works in a
 * schema of its own (test_pg_store.h), with mfa_deadline_ms=1500. "Frozen"
 * means the postmaster and every process it started (backends, checkpointer,
 * ...) are stopped with SIGSTOP: the kernel still accepts connections and
 * data, nothing answers. Found through the test's own backend
 * (pg_backend_pid, then its parent in /proc), so only this server freezes.
 *
 *  1. Two calls wait for the server when it freezes: the test's own
 *     connection locks two users' rows of mfa_users (SELECT ... FOR UPDATE,
 *     open transaction); a sign-in (mfa_resolve_totp) and an enrollment
 *     (mfa_totp_enroll), each from its own thread, wait for those rows at
 *     their last statement, after they have claimed the TOTP step and
 *     consumed the pending credential, or consumed the session and inserted
 *     the factor. Then the server freezes. Both return STORAGE_ERROR, with a
 *     message that names the deadline, within the deadline and a margin.
 *  2. While it is frozen: a call that must connect (the pool was dropped)
 *     fails the same way (libpq's connect never answered); a call on another
 *     context, whose pooled connection sends into the frozen server, too;
 *     closing a third context whose pooled connection is frozen returns.
 *  3. The server thaws. The next call on the same context works at once.
 *     Nothing was half-written: the sign-in caught mid-flight left its
 *     credential unconsumed and its step unclaimed (the same credential and
 *     code resolve now, once); the enrollment left no factor (the same
 *     session and code enroll now, once).
 *
 * Without deadlines each call of step 1 and 2 waits for ever: the test
 * catches a hang with alarm() and thaws the server before it exits.
 *
 * Usage: test_pg_freeze PG_SH PORT
 * Built by CTest with gcc at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "mfa.h"
#include "test_pg_server.h"
#include "test_pg_store.h"
#include "test_support.h"

#define DEADLINE_MS 1500
#define DEADLINE_PARAMETER "mfa_deadline_ms=1500"
#define MARGIN 4.0 /* seconds past the deadline that still count as "at the deadline" */
#define SECRET_BYTES 20
#define MAX_FROZEN 256

static const char *script;
static int port;
static volatile int64_t now_s = 1700000010;
static const char *volatile step = "start";
static char location[1400];

/* The processes stopped by freeze(), for thaw() and for the alarm handler. */
static volatile pid_t frozen[MAX_FROZEN];
static volatile int frozen_count;

static int64_t freeze_clock(void *context) {
    (void)context;
    return now_s;
}

static void thaw(void) {
    for (int i = 0; i < frozen_count; i++) kill(frozen[i], SIGCONT);
    frozen_count = 0;
}

static void on_alarm(int signal_number) {
    static const char message[] = "test_pg_freeze: HANG (alarm) during: ";
    (void)signal_number;
    thaw(); /* kill() is async-signal-safe: never leave a stopped server behind */
    if (write(2, message, sizeof message - 1) < 0 || write(2, step, strlen(step)) < 0 || write(2, "\n", 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

/* ------------------------------------------------------------------ */
/* Freezing the server                                                  */
/* ------------------------------------------------------------------ */

/* Field 3 (state) and 4 (parent) of /proc/PID/stat; 0 on success. */
static int proc_stat(pid_t pid, char *state, pid_t *parent) {
    char path[64], line[1024], *end;
    FILE *file;
    int ok;
    long ppid = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    file = fopen(path, "r");
    if (!file) return -1;
    ok = fgets(line, sizeof line, file) != NULL;
    fclose(file);
    end = ok ? strrchr(line, ')') : NULL; /* the command name may hold anything */
    if (!end || sscanf(end + 1, " %c %ld", state, &ppid) != 2) return -1;
    *parent = (pid_t)ppid;
    return 0;
}

/* Stops `pid` and records it. */
static void stop_process(pid_t pid) {
    if (frozen_count < MAX_FROZEN && kill(pid, SIGSTOP) == 0) frozen[frozen_count++] = pid;
}

/* Stops the postmaster, then every process it started. Returns how many were stopped. */
static int freeze(pid_t postmaster) {
    DIR *proc;
    struct dirent *entry;
    double t0;
    int stopped;
    stop_process(postmaster);
    proc = opendir("/proc");
    if (!proc) return frozen_count;
    while ((entry = readdir(proc)) != NULL) {
        char state;
        pid_t parent;
        if (!isdigit((unsigned char)entry->d_name[0])) continue;
        if (proc_stat((pid_t)atol(entry->d_name), &state, &parent) == 0 && parent == postmaster) {
            stop_process((pid_t)atol(entry->d_name));
        }
    }
    closedir(proc);
    /* SIGSTOP takes effect asynchronously: wait until every process shows 'T'. */
    t0 = test_mono();
    for (;;) {
        stopped = 0;
        for (int i = 0; i < frozen_count; i++) {
            char state = '?';
            pid_t parent;
            stopped += proc_stat(frozen[i], &state, &parent) == 0 && state == 'T';
        }
        if (stopped == frozen_count || test_mono() - t0 > 5) break;
        usleep(1000);
    }
    CHECK(stopped == frozen_count);
    return frozen_count;
}

/* The postmaster of the backend serving `conn`. */
static pid_t postmaster_of(PGconn *conn) {
    char state;
    pid_t parent = 0;
    long backend = test_pg_query(conn, "SELECT pg_backend_pid()", 0, NULL);
    if (backend <= 0 || proc_stat((pid_t)backend, &state, &parent) != 0) return 0;
    return parent;
}

/* ------------------------------------------------------------------ */
/* The library                                                          */
/* ------------------------------------------------------------------ */

static void user_make(mfa_user *user, const char *uid) {
    if (test_user(user, uid, NULL, "freeze@example.com", now_s) != MFA_OK) abort();
}

static mfa_ctx *open_context(void) {
    mfa_options options;
    CHECK_STATUS(mfa_options_init(&options, MFA_OPTIONS_VERSION), MFA_OK);
    options.store = location;
    options.master_key.id = "freeze";
    options.master_key.key = K1;
    options.clock = freeze_clock;
    return open_with(&options);
}

/* Imports a TOTP factor for `uid`: its id in `eid`, its key in `key`. */
static void import_factor(mfa_ctx *ctx, const char *uid, char eid[64], uint8_t key[SECRET_BYTES]) {
    mfa_user user;
    mfa_factor_info *info = NULL;
    user_make(&user, uid);
    CHECK_STATUS(mfa_random_secret(key, SECRET_BYTES), MFA_OK);
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, key, SECRET_BYTES, NULL, "imported", NULL), MFA_OK);
    snprintf(eid, 64, "%s", info ? info->uid : "");
    mfa_factor_info_free(info);
}

static int resolve(mfa_ctx *ctx, const char *cred, const char *eid, const char *code, char **err) {
    mfa_sign_in_result *out = NULL;
    int status = mfa_resolve_totp(ctx, &out, cred, NULL, eid, code, err);
    mfa_sign_in_result_free(out);
    return status;
}

/* A TOTP secret waiting for its enrollment: session_info and the code for now. */
typedef struct waiting_secret {
    char session_info[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
} waiting_secret;

static void new_secret(mfa_ctx *ctx, const char *uid, waiting_secret *out) {
    mfa_user user;
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    user_make(&user, uid);
    out->session_info[0] = '\0';
    out->code[0] = '\0';
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
    if (secret) {
        snprintf(out->session_info, TOKEN_MAX, "%s", secret->session_info);
        code_at(out->code, secret->shared_secret_key, now_s);
    }
    mfa_totp_secret_free(secret);
    mfa_free(session);
}

static int enroll(mfa_ctx *ctx, const char *uid, const waiting_secret *secret, char **err) {
    mfa_user user;
    mfa_factor_info *info = NULL;
    int status;
    user_make(&user, uid);
    status = mfa_totp_enroll(ctx, &info, &user, secret->session_info, secret->code, NULL, err);
    mfa_factor_info_free(info);
    return status;
}

static size_t factors_of(mfa_ctx *ctx, const char *uid) {
    mfa_user user;
    user_make(&user, uid);
    return factor_count(ctx, &user);
}

/* ------------------------------------------------------------------ */
/* Calls that must give up at the deadline                              */
/* ------------------------------------------------------------------ */

/* A call's outcome: STORAGE_ERROR, a message naming the deadline, within the deadline + MARGIN. */
static void expect_deadline(const char *what, int status, char *err, double took) {
    printf("  %s: %s after %.2f s (%s)\n", what, mfa_status_name(status), took, err ? err : "no message");
    if (status != MFA_ERR_STORAGE_ERROR) fprintf(stderr, "%s gave %s\n", what, mfa_status_name(status));
    CHECK(status == MFA_ERR_STORAGE_ERROR);
    CHECK(err && strstr(err, "mfa_deadline_ms"));
    CHECK(took < DEADLINE_MS / 1000.0 + MARGIN);
    mfa_free(err);
}

typedef struct flight {
    mfa_ctx *ctx;
    int kind; /* 0: resolve, 1: enroll */
    const char *uid, *cred, *eid, *code;
    const waiting_secret *secret;
    int status;
    char *err;
    double ended;
} flight;

static void *fly(void *arg) {
    flight *f = arg;
    f->status = f->kind == 0 ? resolve(f->ctx, f->cred, f->eid, f->code, &f->err)
                             : enroll(f->ctx, f->uid, f->secret, &f->err);
    f->ended = test_mono();
    return NULL;
}

int main(int argc, char **argv) {
    static const char *const uids[3] = {"freeze-resolve", "freeze-enroll", "freeze-other"};
    char url[1024], eids[3][64], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    uint8_t keys[3][SECRET_BYTES];
    waiting_secret secret;
    test_store store;
    mfa_ctx *ctx, *other, *closing;
    PGconn *conn;
    pid_t postmaster;
    pthread_t threads[2];
    flight flights[2];
    double started = test_mono(), t0, frozen_at;

    if (argc != 3) {
        fprintf(stderr, "usage: %s PG_SH PORT\n", argv[0]);
        return 2;
    }
    script = argv[1];
    port = atoi(argv[2]);
    signal(SIGALRM, on_alarm);
    alarm(110); /* a hang is a failure (CTest gives 120 s) */

    step = "pg.sh start";
    test_pg_server(script, "stop", port); /* what a run that died may have left on this port */
    if (test_pg_server_start(script, port, url, sizeof url) != 0) return 2;
    if (test_store_make(&store, url, "libmfa-freeze") != 0) {
        test_pg_server(script, "stop", port);
        return 2;
    }
    snprintf(location, sizeof location, "%s&%s", store.location, DEADLINE_PARAMETER);
    printf("store: %s\n", location);
    conn = PQconnectdb(store.location);
    CHECK(PQstatus(conn) == CONNECTION_OK);
    postmaster = postmaster_of(conn);
    CHECK(postmaster > 1);

    step = "setting up";
    ctx = open_context();
    other = open_context();
    closing = open_context();
    if (!ctx || !other || !closing || postmaster <= 1) return test_report();
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}");
    for (int u = 0; u < 3; u++) import_factor(ctx, uids[u], eids[u], keys[u]);
    CHECK(factors_of(other, uids[2]) == 1); /* a pooled connection on `other` */
    CHECK(factors_of(closing, uids[2]) == 1);
    /* A sign-in makes the user's row in mfa_users, which step 1 locks. */
    for (int u = 0; u < 2; u++) {
        mfa_user user;
        user_make(&user, uids[u]);
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, keys[u], SECRET_BYTES, NULL, now_s), MFA_OK);
        CHECK_STATUS(resolve(ctx, cred, eids[u], code, NULL), MFA_OK);
    }
    now_s += 30;
    {
        mfa_user user;
        user_make(&user, uids[0]);
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, keys[0], SECRET_BYTES, NULL, now_s), MFA_OK);
    }
    new_secret(ctx, uids[1], &secret);

    /* 1. Two calls wait for the server when it freezes. */
    printf("1. two calls in flight when the server freezes (mfa_deadline_ms %d)\n", DEADLINE_MS);
    step = "catching two calls mid-flight";
    {
        const char *params[2] = {uids[0], uids[1]};
        CHECK(test_pg_query(conn, "BEGIN", 0, NULL) == 0);
        CHECK(test_pg_query(conn, "SELECT count(*) FROM (SELECT 1 FROM mfa_users WHERE tenant = '' "
                                  "AND uid IN ($1, $2) FOR UPDATE) r", 2, params) == 2);
    }
    memset(flights, 0, sizeof flights);
    flights[0].ctx = ctx;
    flights[0].kind = 0;
    flights[0].cred = cred;
    flights[0].eid = eids[0];
    flights[0].code = code;
    flights[1].ctx = ctx;
    flights[1].kind = 1;
    flights[1].uid = uids[1];
    flights[1].secret = &secret;
    t0 = test_mono();
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&threads[i], NULL, fly, &flights[i]) == 0);
    while (test_pg_query(conn, WAITING_ON_ME, 0, NULL) < 2 && test_mono() - t0 < 10) usleep(1000);
    CHECK(test_pg_query(conn, WAITING_ON_ME, 0, NULL) == 2);
    step = "freezing the server";
    printf("  %d processes stopped, %.2f s after the calls began\n", freeze(postmaster), test_mono() - t0);
    frozen_at = test_mono();
    step = "the calls in flight";
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        expect_deadline(i == 0 ? "mfa_resolve_totp in flight" : "mfa_totp_enroll in flight", flights[i].status,
                        flights[i].err, flights[i].ended - frozen_at);
    }

    /* 2. While it is frozen. */
    printf("2. while the server is frozen\n");
    {
        mfa_factor_list *list = NULL;
        mfa_user user;
        char *err = NULL;
        int status;
        user_make(&user, uids[2]);
        step = "a call that connects";
        t0 = test_mono();
        status = mfa_factors_list(ctx, &list, &user, &err);
        mfa_factor_list_free(list);
        list = NULL;
        expect_deadline("mfa_factors_list, connecting", status, err, test_mono() - t0);
        step = "a call on a pooled connection";
        err = NULL;
        t0 = test_mono();
        status = mfa_factors_list(other, &list, &user, &err);
        mfa_factor_list_free(list);
        expect_deadline("mfa_factors_list, pooled connection", status, err, test_mono() - t0);
        step = "closing a context";
        t0 = test_mono();
        mfa_close(closing);
        printf("  mfa_close with a pooled connection to the frozen server returned after %.2f s\n",
               test_mono() - t0);
        CHECK(test_mono() - t0 < MARGIN);
    }

    /* 3. The server thaws. */
    printf("3. the server thaws\n");
    step = "thawing";
    thaw();
    CHECK(test_pg_query(conn, "ROLLBACK", 0, NULL) == 0);
    step = "the first call after the thaw";
    {
        mfa_factor_list *list = NULL;
        mfa_user user;
        char *err = NULL;
        user_make(&user, uids[2]);
        CHECK_ERR(mfa_factors_list(ctx, &list, &user, &err), MFA_OK, err);
        mfa_factor_list_free(list);
    }
    step = "nothing half-written";
    CHECK_STATUS(resolve(ctx, cred, eids[0], code, NULL), MFA_OK);
    CHECK_STATUS(resolve(ctx, cred, eids[0], code, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(factors_of(ctx, uids[1]) == 1);
    CHECK_STATUS(enroll(ctx, uids[1], &secret, NULL), MFA_OK);
    CHECK_STATUS(enroll(ctx, uids[1], &secret, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(factors_of(ctx, uids[1]) == 2);
    CHECK(factors_of(other, uids[2]) == 1);
    printf("  the same context works again; the sign-in and the enrollment caught mid-flight left nothing "
           "behind and finish now\n");

    step = "cleaning up";
    mfa_close(other);
    mfa_close(ctx);
    PQfinish(conn);
    test_store_remove(&store);
    test_pg_server(script, "stop", port);
    return test_report_timed(test_mono() - started);
}
