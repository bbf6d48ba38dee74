/*
 * The bare-SQLite baseline of a TOTP sign-in: the database work a sign-in
 * cannot do without, written straight against SQLite, with nothing of
 * libmfa. Per sign-in: one read (the user's factor, as mfa_sign_in reads
 * it), then BEGIN IMMEDIATE, a read (the factor's code parameters and last
 * step), an update (the step claimed) and COMMIT; WAL mode with
 * synchronous=NORMAL, statements prepared once. The schema has the shape of
 * libmfa's (a factor row with a sealed blob, keyed by its owner and unique by
 * enrollment id; a TOTP row keyed by enrollment id), USERS users. (Keyed by
 * enrollment id with an index on the owner, as libmfa's factors were before
 * core schema 5, this baseline runs at the same rate: its sequential ids
 * keep the index and the table in the same order.) Every user signs in
 * once, untimed, before the timed sign-ins (as in bench/store.sh's libmfa
 * runs).
 *
 * usage: sqlite_baseline FILE USERS SIGNINS_PER_PROCESS PROCESSES
 * Prints: processes, sign-ins per second in all.
 * Built and run by bench/store.sh.
 */
#include "sqlite_bench_support.h" /* first: it sets _POSIX_C_SOURCE */

/* What each client process needs. */
typedef struct run_args {
    const char *path;
    long signins, share;
    long start; /* the first time step, so that a later run claims later steps */
} run_args;

/* One client process: `signins` sign-ins over its share of the users. */
static void client(long p, void *context) {
    const run_args *args = context;
    sqlite3 *mine = open_db(args->path, NULL);
    sqlite3_stmt *read = prepare(mine, "SELECT enrollment_id, factor_id, display_name, enrolled_at, key_id, "
                                       "sealed, locked_until FROM factors WHERE tenant = '' AND uid = ?");
    sqlite3_stmt *begin = prepare(mine, "BEGIN IMMEDIATE");
    sqlite3_stmt *step = prepare(mine, "SELECT algorithm, digits, period, last_step FROM totp "
                                       "WHERE enrollment_id = ?");
    sqlite3_stmt *claim = prepare(mine, "UPDATE totp SET last_step = ? WHERE enrollment_id = ? "
                                        "AND last_step < ?");
    sqlite3_stmt *commit = prepare(mine, "COMMIT");
    long now = 60000000 + args->start, share = args->share;
    for (long i = 0; i < args->signins; i++) {
        if (i > 0 && i % share == 0) now++;
        long u = p * share + (i * 7919) % share;
        char uid[32], id[32];
        snprintf(uid, sizeof uid, "user%07ld", u);
        sqlite3_bind_text(read, 1, uid, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(read) != SQLITE_ROW) check(mine, SQLITE_ERROR, "read");
        snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(read, 0));
        sqlite3_reset(read);
        check(mine, sqlite3_step(begin), "begin");
        sqlite3_reset(begin);
        sqlite3_bind_text(step, 1, id, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(step) != SQLITE_ROW) check(mine, SQLITE_ERROR, "step");
        sqlite3_reset(step);
        sqlite3_bind_int64(claim, 1, now);
        sqlite3_bind_text(claim, 2, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(claim, 3, now);
        check(mine, sqlite3_step(claim), "claim");
        if (sqlite3_changes(mine) != 1) check(mine, SQLITE_ERROR, "claim");
        sqlite3_reset(claim);
        check(mine, sqlite3_step(commit), "commit");
        sqlite3_reset(commit);
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
    bench_sqlite_host_config();
    sqlite3 *db = open_db(path, NULL);
    exec_sql(db, "CREATE TABLE factors (enrollment_id TEXT NOT NULL, tenant TEXT NOT NULL, uid TEXT NOT NULL, "
            "factor_id TEXT NOT NULL, display_name TEXT, enrolled_at INTEGER NOT NULL, key_id TEXT NOT NULL, "
            "sealed BLOB NOT NULL, locked_until INTEGER NOT NULL DEFAULT 0, "
            "PRIMARY KEY (tenant, uid, enrollment_id)) WITHOUT ROWID");
    exec_sql(db, "CREATE UNIQUE INDEX factors_id ON factors (enrollment_id)");
    exec_sql(db, "CREATE TABLE totp (enrollment_id TEXT PRIMARY KEY, algorithm INTEGER NOT NULL, digits INTEGER NOT NULL, "
            "period INTEGER NOT NULL, last_step INTEGER NOT NULL DEFAULT -1) WITHOUT ROWID");
    exec_sql(db, "BEGIN");
    sqlite3_stmt *factor = prepare(db, "INSERT INTO factors VALUES (?, '', ?, 'totp', NULL, 0, 'k', ?, 0)");
    sqlite3_stmt *totp = prepare(db, "INSERT INTO totp VALUES (?, 1, 6, 30, -1)");
    unsigned char sealed[60] = {1};
    for (long u = 0; u < users; u++) {
        char id[32], uid[32];
        snprintf(id, sizeof id, "enrollment%07ld", u);
        snprintf(uid, sizeof uid, "user%07ld", u);
        sqlite3_bind_text(factor, 1, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(factor, 2, uid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob(factor, 3, sealed, sizeof sealed, SQLITE_STATIC);
        check(db, sqlite3_step(factor), "insert factor");
        sqlite3_reset(factor);
        sqlite3_bind_text(totp, 1, id, -1, SQLITE_TRANSIENT);
        check(db, sqlite3_step(totp), "insert totp");
        sqlite3_reset(totp);
    }
    exec_sql(db, "COMMIT");
    close_db(db);

    /* Every user signs in once first, untimed: the timed run finds the rows
     * as a running store has them (a step already claimed), not as loaded. */
    run_args warm = {path, users, users, 0};
    run_processes(1, client, &warm);
    run_args args = {path, signins, users / processes, 1000000};
    double elapsed = run_processes(processes, client, &args);
    printf("%ld %.0f\n", processes, processes * signins / elapsed);
    return 0;
}
