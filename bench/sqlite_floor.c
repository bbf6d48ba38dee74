/*
 * The floor of a TOTP sign-in on SQLite: libmfa's own statements, in the
 * order libmfa runs them, written straight against SQLite with nothing else
 * (no tokens, no sealing, no code check, no Swift): what libmfa would cost
 * if everything but the database took no time. Between it and
 * bench/sqlite_baseline.c is what libmfa's guarantees cost the database:
 * the configuration and the user's record read with the factors, and the
 * user's row written instead of the factor's: the step-up time, the
 * pending credential's single use and the code's step (both recorded in
 * the row's `consumed` column, see ConsumedTokens.swift and UsedStep.swift).
 *
 * Per sign-in, as MFAStore.signInSnapshot and MFAStore.resolveAttempt
 * (Sources/MFA/Store/MFAStore+Attempts.swift) run them for a project user
 * whose row exists and whose factor has no failures:
 *   the sign-in read (configuration, user, factors)
 *   BEGIN IMMEDIATE
 *   the attempt read (user with its consumed credentials, mfa_consumed,
 *     configuration, factor, TOTP row with the step it was stored with)
 *   the user's update (last_second_factor_at, failures cleared, the
 *     credential and the code's step added to the consumed column)
 *   COMMIT
 * in WAL mode with synchronous=NORMAL and libmfa's 16 MiB page cache,
 * statements prepared once. Keep it in step with those files.
 *
 * FLOOR_WITHOUT=consumed|user measures what a guarantee costs: without
 * recording the credential's use (the step only), or without the user's
 * update at all (no write: neither the credential nor the step is used up).
 * Neither is libmfa: each drops a guarantee libmfa keeps.
 *
 * usage: sqlite_floor FILE USERS SIGNINS_PER_PROCESS PROCESSES
 * FILE is a libmfa store holding USERS TOTP users (store_bench FILE USERS 0 1
 * makes one); each user's row is created first, as a first sign-in would.
 * Prints: processes, sign-ins per second in all.
 * Built and run by bench/store.sh.
 */
#include "sqlite_bench_support.h" /* first: it sets _POSIX_C_SOURCE */

#include <string.h>

/* libmfa's own page cache (SQLiteDatabase.swift). */
#define PRAGMAS "PRAGMA cache_size=-16384"

#define FACTOR_COLUMNS                                                                                           \
    "f.enrollment_id, f.tenant, f.uid, f.factor_id, f.display_name, f.enrolled_at, f.key_id, f.sealed, "       \
    "f.locked_until, f.seal_format, CASE f.factor_id WHEN 'recoveryCodes' THEN (SELECT COUNT(*) FROM "         \
    "mfa_recovery_codes c WHERE c.enrollment_id = f.enrollment_id AND c.used_at = 0) WHEN 'webauthn' THEN "    \
    "(SELECT c.authenticator_kind FROM mfa_webauthn_credentials c WHERE c.enrollment_id = f.enrollment_id) END"

/* Runs a statement to its end. */
static void step_all(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    int status;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {}
    check(db, status, what);
    sqlite3_reset(statement);
}

/* A token id: 16 bytes from a xorshift generator (a benchmark, not a secret). */
static void token_id(unsigned long long *state, unsigned char out[16]) {
    for (int i = 0; i < 16; i++) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        out[i] = (unsigned char)(*state >> 24);
    }
}

/* What each client process needs. */
typedef struct run_args {
    const char *path;
    long signins, share;
    int consuming, updating;
} run_args;

/* One client process: `signins` sign-ins over its share of the users. */
static void client(long p, void *context) {
    const run_args *args = context;
    long share = args->share;
    sqlite3 *mine = open_db(args->path, PRAGMAS);
    sqlite3_stmt *read = prepare(mine,
        "SELECT d.project, d.tenant_document, u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, "
        "u.locked_until, " FACTOR_COLUMNS " FROM (SELECT (SELECT document FROM mfa_config WHERE tenant = '') "
        "AS project, NULL AS tenant_document) d LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? "
        "LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ?");
    sqlite3_stmt *begin = prepare(mine, "BEGIN IMMEDIATE");
    sqlite3_stmt *view = prepare(mine,
        "SELECT u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, u.locked_until, "
        "(SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), "
        "(SELECT document FROM mfa_config WHERE tenant = ''), NULL, f.failures, u.consumed, " FACTOR_COLUMNS
        ", t.algorithm, t.digits, t.period, t.last_step FROM (SELECT 1 AS one) o LEFT JOIN mfa_users u ON u.tenant = ? "
        "AND u.uid = ? LEFT JOIN mfa_factors f ON f.enrollment_id = ? "
        "LEFT JOIN mfa_totp_factors t ON t.enrollment_id = f.enrollment_id");
    sqlite3_stmt *account = prepare(mine, "UPDATE mfa_users SET last_second_factor_at = ?, failures = 0, "
                                          "locked_until = 0, consumed = ? WHERE tenant = ? AND uid = ?");
    sqlite3_stmt *commit = prepare(mine, "COMMIT");
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(p + 1);
    long now = 1800000000;
    for (long i = 0; i < args->signins; i++) {
        if (i > 0 && i % share == 0) now += 30;
        long u = p * share + (i * 7919) % share;
        char uid[32], id[64] = {0};
        unsigned char token[16];
        snprintf(uid, sizeof uid, "user%07ld", u);
        token_id(&state, token);
        sqlite3_bind_text(read, 1, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 2, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(read, 3, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 4, uid, -1, SQLITE_STATIC);
        if (sqlite3_step(read) != SQLITE_ROW) check(mine, SQLITE_ERROR, "read");
        snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(read, 6));
        step_all(mine, read, "read");
        step_all(mine, begin, "begin");
        sqlite3_bind_blob(view, 1, token, sizeof token, SQLITE_STATIC);
        sqlite3_bind_text(view, 2, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(view, 3, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(view, 4, id, -1, SQLITE_STATIC);
        step_all(mine, view, "view");
        if (args->updating) {
            /* The column: a generation, the credential's entry (the user's only
             * live one: its id, then until when), the factor's step entry (a
             * key, then the step's complement). */
            unsigned char column[8 + 24 + 24];
            size_t size = 0;
            long long generation = i + 1, until = now + 960, step = ~(long long)(now / 30);
            for (int b = 0; b < 8; b++) column[size++] = (unsigned char)(generation >> (56 - 8 * b));
            if (args->consuming) {
                memcpy(column + size, token, sizeof token);
                size += sizeof token;
                for (int b = 0; b < 8; b++) column[size++] = (unsigned char)(until >> (56 - 8 * b));
            }
            memcpy(column + size, id, 16); /* the key: 16 bytes standing in for the enrollment id's hash */
            size += 16;
            for (int b = 0; b < 8; b++) column[size++] = (unsigned char)((unsigned long long)step >> (56 - 8 * b));
            sqlite3_bind_int64(account, 1, now);
            sqlite3_bind_blob(account, 2, column, (int)size, SQLITE_TRANSIENT);
            sqlite3_bind_text(account, 3, "", 0, SQLITE_STATIC);
            sqlite3_bind_text(account, 4, uid, -1, SQLITE_STATIC);
            step_all(mine, account, "account");
        }
        step_all(mine, commit, "commit");
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE USERS SIGNINS_PER_PROCESS PROCESSES\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    long users = atol(argv[2]), signins = atol(argv[3]), processes = atol(argv[4]);
    sqlite3 *db = open_db(path, PRAGMAS);
    check(db, sqlite3_exec(db, "INSERT INTO mfa_users (tenant, uid) SELECT tenant, uid FROM mfa_factors WHERE true "
                               "ON CONFLICT (tenant, uid) DO NOTHING", NULL, NULL, NULL), "users");
    const char *without = getenv("FLOOR_WITHOUT");
    without = without ? without : "";
    int consuming = strcmp(without, "consumed") != 0, updating = strcmp(without, "user") != 0;
    sqlite3_close(db);

    run_args args = {path, signins, users / processes, consuming, updating};
    double elapsed = run_processes(processes, client, &args);
    printf("%ld %.0f\n", processes, processes * signins / elapsed);
    return 0;
}
