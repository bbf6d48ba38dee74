/*
 * mfa_deadline_ms bounds a whole call, its retries included, through the C
 * ABI on PostgreSQL (issue 45, item 11).
 *
 * A trigger on the test schema's mfa_users makes every write of a user's
 * row wait 0.8 s and then fail with SQLSTATE 40001 (a serialization
 * failure: libmfa runs the transaction again, up to 12 times). Each try
 * is within the deadline (1000 ms); the call as a whole is not. Then:
 *  - a right code (the accepting write) and a wrong one (the transaction
 *    that counts it) each give up with STORAGE_ERROR, with a message that
 *    names mfa_deadline_ms, in less than three deadlines: the retries are
 *    inside the deadline (they ran all 13 tries, over 10 s, before);
 *  - once the trigger is gone nothing was half-written: the wrong code was
 *    not counted, and the same pending credential and code resolve, once.
 *
 * Usage: test_pg_deadline STORE   (a postgres:// URL, or env:NAME naming one;
 * the test works in a schema of its own, test_pg_store.h).
 * Built by CTest with gcc at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <unistd.h>

#include "test_engine_fixture.h"
#include "test_pg_server.h"
#include "test_pg_store.h"

#define DEADLINE_MS 1000
#define MAX_SECONDS (3.0 * DEADLINE_MS / 1000) /* the bug took 13 tries of 0.8 s */

static test_store store;

static void on_alarm(int signal_number) {
    static const char message[] = "test_pg_deadline: a call did not return in 60 s\n";
    (void)signal_number;
    if (write(2, message, sizeof message - 1) < 0) _exit(3);
    _exit(3);
}

/* Runs `format` (with the schema's name as its %s arguments) on the server. */
static int schema_exec(const char *format) {
    char sql[1024];
    snprintf(sql, sizeof sql, format, store.schema, store.schema, store.schema, store.schema);
    return test_pg_exec(store.server, sql);
}

/* A failure count of the user's row (-1 if it cannot be read). */
static long user_failures(const char *uid) {
    char url[1400];
    const char *params[1] = {uid};
    PGconn *conn;
    long value;
    test_pg_schema_url(url, sizeof url, store.server, store.schema);
    conn = PQconnectdb(url);
    if (PQstatus(conn) != CONNECTION_OK) {
        PQfinish(conn);
        return -1;
    }
    value = test_pg_query(conn, "SELECT COALESCE(MAX(failures), 0) FROM mfa_users WHERE uid = $1", 1, params);
    PQfinish(conn);
    return value;
}

/* mfa_resolve_totp under the trigger: STORAGE_ERROR naming the deadline, within MAX_SECONDS. */
static void expect_deadline(const char *what, mfa_ctx *ctx, const char *cred, const char *eid, const char *code) {
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    double t0 = test_mono(), took;
    int status = mfa_resolve_totp(ctx, &result, cred, NULL, eid, code, &err);
    took = test_mono() - t0;
    printf("%s: %s after %.2f s (%s)\n", what, mfa_status_name(status), took, err ? err : "no message");
    CHECK(status == MFA_ERR_STORAGE_ERROR);
    CHECK(result == NULL);
    CHECK(err && strstr(err, "mfa_deadline_ms"));
    CHECK(took < MAX_SECONDS);
    mfa_free(err);
}

/* The deadline covers the retries of a call (deadline_covers_retries). */
static void test_deadline_covers_retries(void) {
    char location[1500], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    factor f;
    snprintf(location, sizeof location, "%s&mfa_deadline_ms=%d", store.location, DEADLINE_MS);
    fixture_options(&options, location);
    ctx = open_with(&options);
    if (!ctx) return;
    set_config(ctx, NULL, ENABLE_TOTP);
    user_make(&user, "deadline-user", NULL);
    ENROLL_OK(ctx, &user, "app", &f);
    g_now += 30;

    CHECK(schema_exec("CREATE FUNCTION %s.forced_conflict() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                      "PERFORM pg_sleep(0.8); RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; "
                      "END $$; CREATE TRIGGER forced_conflict BEFORE INSERT OR UPDATE ON %s.mfa_users "
                      "FOR EACH ROW EXECUTE FUNCTION %s.forced_conflict()") == 0);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, f.key, g_now);
    snprintf(wrong, sizeof wrong, "%06d", (atoi(code) + 500000) % 1000000);
    expect_deadline("the right code, every try a serialization failure", ctx, cred, f.eid, code);
    expect_deadline("a wrong code, every try a serialization failure", ctx, cred, f.eid, wrong);

    CHECK(schema_exec("DROP TRIGGER forced_conflict ON %s.mfa_users") == 0);
    CHECK(user_failures("deadline-user") == 0);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_OK);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_ERR_INVALID_SESSION);
    mfa_close(ctx);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s STORE   (a postgres:// URL, or env:NAME)\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argv[1], "libmfa-deadline") != 0) return 2;
    if (!store.postgres) {
        fprintf(stderr, "test_pg_deadline needs a PostgreSQL store\n");
        test_store_remove(&store);
        return 2;
    }
    signal(SIGALRM, on_alarm);
    alarm(60);
    test_deadline_covers_retries();
    alarm(0);
    test_store_remove(&store);
    return engine_report();
}
