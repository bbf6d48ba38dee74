/*
 * The floor of a TOTP sign-in on SQLite: libmfa's own statements, in the
 * order libmfa runs them, written straight against SQLite with nothing else
 * (no tokens, no sealing, no code check, no Swift): what libmfa would cost
 * if everything but the database took no time. Between it and
 * bench/sqlite_baseline.c is what libmfa's guarantees cost the database:
 * the configuration and the user's record read with the factors, and the
 * user's row written: the step-up time and the pending credential's single
 * use (recorded in the row's `consumed` column, see ConsumedTokens.swift).
 *
 * Per sign-in, as MFAStore.signInSnapshot and MFAStore.resolveAttempt
 * (Sources/MFA/Store/MFAStore+Attempts.swift) and TOTPStore.claim run them
 * for a project user whose row exists and whose factor has no failures:
 *   the sign-in read (configuration, user, factors)
 *   BEGIN IMMEDIATE
 *   the attempt read (user with its consumed credentials, mfa_consumed,
 *     configuration, factor, TOTP row)
 *   the step's claim (UPDATE mfa_totp_factors ... WHERE last_step < ?)
 *   the user's update (last_second_factor_at, failures cleared, the
 *     credential added to the consumed ones)
 *   COMMIT
 * in WAL mode with synchronous=NORMAL and libmfa's 16 MiB page cache,
 * statements prepared once. Keep it in step with those files.
 *
 * FLOOR_WITHOUT=consumed|user measures what one guarantee costs: without
 * recording the credential's use, or without the user's update (not libmfa
 * either way: each is a guarantee libmfa keeps).
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
        ", t.algorithm, t.digits, t.period FROM (SELECT 1 AS one) o LEFT JOIN mfa_users u ON u.tenant = ? "
        "AND u.uid = ? LEFT JOIN mfa_factors f ON f.enrollment_id = ? "
        "LEFT JOIN mfa_totp_factors t ON t.enrollment_id = f.enrollment_id");
    sqlite3_stmt *claim = prepare(mine, "UPDATE mfa_totp_factors SET last_step = ? WHERE "
                                        "(enrollment_id = ? AND last_step < ?)");
    sqlite3_stmt *account = prepare(mine, args->consuming
        ? "UPDATE mfa_users SET last_second_factor_at = ?, failures = 0, locked_until = 0, consumed = ? "
          "WHERE tenant = ? AND uid = ?"
        : "UPDATE mfa_users SET last_second_factor_at = ?1, failures = 0, locked_until = 0 "
          "WHERE tenant = ?3 AND uid = ?4");
    sqlite3_stmt *commit = prepare(mine, "COMMIT");
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(p + 1);
    long now = 1800000000;
    for (long i = 0; i < args->signins; i++) {
        if (i > 0 && i % share == 0) now += 30;
        long u = p * share + (i * 7919) % share;
        char uid[32], id[64];
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
        sqlite3_bind_int64(claim, 1, now / 30);
        sqlite3_bind_text(claim, 2, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(claim, 3, now / 30);
        step_all(mine, claim, "claim");
        if (sqlite3_changes(mine) != 1) check(mine, SQLITE_ERROR, "claim");
        if (args->updating) {
            /* The credential's entry (the user's only live one): its id, then until when. */
            unsigned char entry[24];
            memcpy(entry, token, sizeof token);
            for (int b = 0; b < 8; b++) entry[16 + b] = (unsigned char)((now + 960) >> (56 - 8 * b));
            sqlite3_bind_int64(account, 1, now);
            sqlite3_bind_blob(account, 2, entry, sizeof entry, SQLITE_TRANSIENT);
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
