/*
 * Crash safety of the SQLite store: a process killed with SIGKILL at a
 * random moment loses nothing it was told was committed, and leaves a
 * database that passes PRAGMA integrity_check.
 *
 * 20 times: a child opens the store and loops enrolling TOTP factors and
 * signing in with them; after each mfa_totp_enroll() that returns MFA_OK it
 * writes the user, enrollment id and key to a pipe (one write of a fixed
 * record, atomic below PIPE_BUF). The parent kills it with SIGKILL after a
 * random 5 to 50 ms, then checks the file with the sqlite3 C API
 * (integrity_check, and the WAL is recovered), opens it with libmfa, and
 * checks that every reported enrollment is listed by mfa_factors_list and
 * still signs in (its secret decrypts).
 *
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror,
 * linked with -lmfa -lsqlite3.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mfa.h"
#include "test_support.h"

#define ITERATIONS 20

static const uint8_t KEY[MFA_MASTER_KEY_BYTES] = {
    0xc3, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0};

/* What the child reports after a committed enrollment: one pipe write. */
typedef struct record {
    char uid[40];
    char eid[40];
    char key[48];
} record;

static int64_t g_now;

static mfa_ctx *open_store(const char *path) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    if (mfa_options_init(&options, MFA_OPTIONS_VERSION) != MFA_OK) return NULL;
    options.store = path;
    options.master_key.id = "crash";
    options.master_key.key = KEY;
    options.clock = test_clock;
    options.clock_context = &g_now;
    status = mfa_open(&ctx, &options, &err);
    if (status != MFA_OK) fprintf(stderr, "mfa_open: %s: %s\n", mfa_status_name(status), err ? err : "");
    mfa_free(err);
    return ctx;
}

static void user_make(mfa_user *user, const char *uid) {
    if (test_user(user, uid, NULL, "crash@example.com", g_now) != MFA_OK) abort();
}

/* The child: enroll, report, sign in, forever (until killed). */
static void child_main(const char *path, int iteration, int report) {
    mfa_ctx *ctx;
    g_now = 1700000010 + (int64_t)iteration * 10000000;
    ctx = open_store(path);
    if (!ctx) _exit(3);
    for (int i = 0;; i++) {
        record r;
        mfa_user user;
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        mfa_factor_info *info = NULL;
        mfa_resolver *resolver = NULL;
        mfa_sign_in_result *result = NULL;
        char code[MFA_CODE_BUFFER_SIZE];
        int status;

        memset(&r, 0, sizeof r);
        snprintf(r.uid, sizeof r.uid, "crash-%d-%d", iteration, i);
        user_make(&user, r.uid);
        g_now += 30;
        user.auth_time = g_now;
        if (mfa_session_new(ctx, &session, &user, NULL) != MFA_OK) _exit(4);
        if (mfa_totp_generate_secret(ctx, &secret, session, NULL) != MFA_OK) _exit(5);
        if (app_code(code, secret->shared_secret_key, g_now) != MFA_OK) _exit(6);
        status = mfa_totp_enroll(ctx, &info, &user, secret->session_info, code, "crash test", NULL);
        if (status != MFA_OK) _exit(7);
        /* Committed: say so. */
        snprintf(r.eid, sizeof r.eid, "%s", info->uid);
        snprintf(r.key, sizeof r.key, "%s", secret->shared_secret_key);
        if (write(report, &r, sizeof r) != (ssize_t)sizeof r) _exit(8);
        mfa_factor_info_free(info);
        mfa_totp_secret_free(secret);
        mfa_free(session);

        /* A sign-in with the new factor: more writes to interrupt. */
        g_now += 30;
        if (mfa_sign_in(ctx, &resolver, &user, NULL) != MFA_ERR_SECOND_FACTOR_REQUIRED) _exit(9);
        if (app_code(code, r.key, g_now) != MFA_OK) _exit(10);
        if (mfa_resolve_totp(ctx, &result, resolver->session, NULL, r.eid, code, NULL) != MFA_OK) _exit(11);
        mfa_sign_in_result_free(result);
        mfa_resolver_free(resolver);
    }
}

static void sleep_ms(long ms) {
    struct timespec delay;
    delay.tv_sec = ms / 1000;
    delay.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {
    }
}

static int integrity_ok(const char *path) {
    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    int ok = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite3_open_v2: %s\n", db ? sqlite3_errmsg(db) : "?");
        sqlite3_close(db);
        return 0;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, NULL) == SQLITE_OK) {
        int rows = 0;
        while (sqlite3_step(statement) == SQLITE_ROW) {
            const unsigned char *text = sqlite3_column_text(statement, 0);
            rows++;
            if (rows == 1 && text && strcmp((const char *)text, "ok") == 0) ok = 1;
            else {
                ok = 0;
                fprintf(stderr, "integrity_check: %s\n", text ? (const char *)text : "(null)");
            }
        }
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return ok;
}

static int listed(mfa_ctx *ctx, const record *r) {
    mfa_user user;
    mfa_factor_list *list = NULL;
    int found = 0;
    user_make(&user, r->uid);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
    for (size_t i = 0; list && i < list->count; i++) {
        found |= strcmp(list->items[i].uid, r->eid) == 0;
    }
    mfa_factor_list_free(list);
    return found;
}

static int signs_in(mfa_ctx *ctx, const record *r) {
    mfa_user user;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
    user_make(&user, r->uid);
    status = mfa_sign_in(ctx, &resolver, &user, NULL);
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) return status;
    if (app_code(code, r->key, g_now) != MFA_OK) {
        mfa_resolver_free(resolver);
        return MFA_ERR_INTERNAL;
    }
    status = mfa_resolve_totp(ctx, &result, resolver->session, NULL, r->eid, code, NULL);
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    return status;
}

int main(void) {
    char dir[256], path[512];
    size_t total = 0, verified = 0;
    int killed_mid_work = 0;
    mfa_ctx *ctx;

    if (test_temp_dir(dir, sizeof dir, "libmfa-crash") != 0) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(path, sizeof path, "%s/crash.db", dir);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    alarm(120);

    g_now = 1700000000;
    ctx = open_store(path);
    CHECK(ctx != NULL);
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}", NULL),
                 MFA_OK);
    mfa_close(ctx);

    for (int iteration = 0; iteration < ITERATIONS; iteration++) {
        int fds[2];
        pid_t pid;
        int wstatus = 0;
        long delay = 5 + rand() % 46;
        record r;
        size_t reported = 0, found = 0;
        ssize_t got;

        if (pipe(fds) != 0) {
            perror("pipe");
            return 2;
        }
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            close(fds[0]);
            child_main(path, iteration, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        sleep_ms(delay);
        kill(pid, SIGKILL);
        CHECK(waitpid(pid, &wstatus, 0) == pid);
        /* The child must have been killed at work, not have stopped by itself. */
        if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
            killed_mid_work++;
        } else {
            fprintf(stderr, "iteration %d: the child exited by itself (status %d)\n", iteration,
                    WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
            CHECK(!"the child stopped before it was killed");
        }

        /* The database is intact (this also recovers the WAL). */
        CHECK(integrity_ok(path));

        /* Every committed enrollment is there, and its secret still works. */
        g_now = 1700000010 + (int64_t)(iteration + 1) * 10000000 - 1000;
        ctx = open_store(path);
        CHECK(ctx != NULL);
        while ((got = read(fds[0], &r, sizeof r)) == (ssize_t)sizeof r) {
            reported++;
            if (ctx && listed(ctx, &r)) {
                found++;
                if (reported % 7 == 1) {
                    g_now += 30;
                    CHECK_STATUS(signs_in(ctx, &r), MFA_OK);
                    verified++;
                }
            } else {
                fprintf(stderr, "iteration %d: enrollment %s of %s was reported committed but is missing\n",
                        iteration, r.eid, r.uid);
            }
        }
        CHECK(got == 0);
        close(fds[0]);
        CHECK(found == reported);
        total += reported;
        mfa_close(ctx);
        printf("iteration %2d: killed after %2ld ms, %zu committed enrollments, all present: %s\n", iteration, delay,
               reported, found == reported ? "yes" : "NO");
    }
    printf("%zu committed enrollments checked, %zu signed in again, %d children killed mid-work\n", total, verified,
           killed_mid_work);
    CHECK(total > 0);
    CHECK(killed_mid_work == ITERATIONS);

    test_remove_sqlite(path);
    rmdir(dir);
    return test_report();
}
