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
 * whose row exists and whose factor has no failures, the resolve on the
 * context that signed in (AttemptMemo.swift):
 *   the sign-in read (configuration, user with its consumed column and
 *     failure counts, factors with their failure counts and TOTP rows)
 *   the user's conditional update, in autocommit (last_second_factor_at,
 *     failures cleared, the credential and the code's step added to the
 *     consumed column; only if the epoch, the backoff, the failure counts
 *     and the column are as read)
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
 * makes one); each user's row is created first, as a first sign-in would,
 * and every user signs in once, untimed, before the timed sign-ins.
 * Prints: processes, sign-ins per second in all.
 * Built and run by bench/store.sh.
 */
#include "sqlite_bench_support.h" /* first: it sets _POSIX_C_SOURCE */

#include <string.h>

/* libmfa's own page cache (SQLiteDatabase.swift). */
#define PRAGMAS "PRAGMA cache_size=-16384"

/* The factor's columns but its owner's (the read names the owner). */
#define FACTOR_COLUMNS                                                                                           \
    "f.enrollment_id, f.factor_id, f.display_name, f.enrolled_at, f.key_id, f.sealed, f.locked_until, "        \
    "f.seal_format"

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
    long start; /* the first time, so that a later run claims later steps */
    int consuming, updating;
} run_args;

/* One client process: `signins` sign-ins over its share of the users. */
static void client(long p, void *context) {
    const run_args *args = context;
    long share = args->share;
    sqlite3 *mine = open_db(args->path, PRAGMAS);
    sqlite3_stmt *read = prepare(mine,
        "SELECT d.project, u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, "
        "u.locked_until, " FACTOR_COLUMNS ", u.consumed, u.failures, u.last_failure_at, f.failures, t.algorithm, "
        "t.digits, t.period, t.last_step FROM (SELECT (SELECT document FROM mfa_config WHERE tenant = '') "
        "AS project) d LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? "
        "LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ? "
        "LEFT JOIN mfa_totp_factors t ON t.enrollment_id = f.enrollment_id");
    sqlite3_stmt *account = prepare(mine,
        "UPDATE mfa_users SET last_second_factor_at = ?, failures = 0, locked_until = 0, consumed = ? "
        "WHERE tenant = ? AND uid = ? AND token_epoch = ? AND locked_until <= ? AND failures = ? "
        "AND last_failure_at = ? AND consumed IS NOT DISTINCT FROM ?");
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(p + 1);
    long now = 1800000000 + args->start;
    for (long i = 0; i < args->signins; i++) {
        if (i > 0 && i % share == 0) now += 30;
        long u = p * share + (i * 7919) % share;
        char uid[32], id[64] = {0};
        unsigned char token[16], read_column[1024];
        int read_size;
        long long failures, last_failure;
        snprintf(uid, sizeof uid, "user%07ld", u);
        token_id(&state, token);
        sqlite3_bind_text(read, 1, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 2, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(read, 3, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 4, uid, -1, SQLITE_STATIC);
        if (sqlite3_step(read) != SQLITE_ROW) check(mine, SQLITE_ERROR, "read");
        snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(read, 5));
        /* The consumed column (13) as read, and the user's failure counts (14, 15). */
        read_size = sqlite3_column_bytes(read, 13);
        if (read_size > (int)sizeof read_column) read_size = (int)sizeof read_column;
        if (read_size > 0) memcpy(read_column, sqlite3_column_blob(read, 13), (size_t)read_size);
        int column_null = sqlite3_column_type(read, 13) == SQLITE_NULL;
        failures = sqlite3_column_int64(read, 14);
        last_failure = sqlite3_column_int64(read, 15);
        step_all(mine, read, "read");
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
            sqlite3_bind_int64(account, 5, 0);
            sqlite3_bind_int64(account, 6, now);
            sqlite3_bind_int64(account, 7, failures);
            sqlite3_bind_int64(account, 8, last_failure);
            if (column_null) sqlite3_bind_null(account, 9);
            else sqlite3_bind_blob(account, 9, read_column, read_size, SQLITE_STATIC);
            step_all(mine, account, "account");
            if (sqlite3_changes(mine) != 1) check(mine, SQLITE_ERROR, "account: the checks did not hold");
        }
    }
    close_db(mine);
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
    close_db(db);

    /* Every user signs in once first, untimed: the timed run finds the rows
     * as a running store has them (a credential and a step recorded), not
     * as imported. */
    run_args warm = {path, users, users, 0, consuming, updating};
    run_processes(1, client, &warm);
    run_args args = {path, signins, users / processes, 1000000, consuming, updating};
    double elapsed = run_processes(processes, client, &args);
    printf("%ld %.0f\n", processes, processes * signins / elapsed);
    return 0;
}
