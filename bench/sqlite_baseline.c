/*
 * The bare-SQLite baseline of a TOTP sign-in: the database work a sign-in
 * cannot do without, written straight against SQLite, with nothing of
 * libmfa. Per sign-in: one read (the user's factor, as mfa_sign_in reads
 * it), then BEGIN IMMEDIATE, a read (the factor's code parameters and last
 * step), an update (the step claimed) and COMMIT; WAL mode with
 * synchronous=NORMAL, statements prepared once. The schema has the shape of
 * libmfa's (a factor row with a sealed blob, a TOTP row keyed by enrollment
 * id), USERS users.
 *
 * usage: sqlite_baseline FILE USERS SIGNINS_PER_PROCESS PROCESSES
 * Prints: processes, sign-ins per second in all.
 * Built and run by bench/store.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(sqlite3 *db, int status, const char *what) {
    if (status == SQLITE_OK || status == SQLITE_DONE || status == SQLITE_ROW) return;
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void run(sqlite3 *db, const char *sql) { check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql); }

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement = NULL;
    check(db, sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL), sql);
    return statement;
}

static sqlite3 *open_db(const char *path) {
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "open %s failed\n", path);
        exit(1);
    }
    sqlite3_busy_timeout(db, 10000);
    run(db, "PRAGMA journal_mode=WAL");
    run(db, "PRAGMA synchronous=NORMAL");
    return db;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE USERS SIGNINS_PER_PROCESS PROCESSES\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    long users = atol(argv[2]), signins = atol(argv[3]), processes = atol(argv[4]);
    sqlite3 *db = open_db(path);
    run(db, "CREATE TABLE factors (enrollment_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, uid TEXT NOT NULL, "
            "factor_id TEXT NOT NULL, display_name TEXT, enrolled_at INTEGER NOT NULL, key_id TEXT NOT NULL, "
            "sealed BLOB NOT NULL, locked_until INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID");
    run(db, "CREATE INDEX factors_user ON factors (tenant, uid)");
    run(db, "CREATE TABLE totp (enrollment_id TEXT PRIMARY KEY, algorithm INTEGER NOT NULL, digits INTEGER NOT NULL, "
            "period INTEGER NOT NULL, last_step INTEGER NOT NULL DEFAULT -1) WITHOUT ROWID");
    run(db, "BEGIN");
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
    sqlite3_finalize(factor);
    sqlite3_finalize(totp);
    run(db, "COMMIT");
    sqlite3_close(db);

    long share = users / processes;
    double start = seconds();
    for (long p = 0; p < processes; p++) {
        pid_t pid = fork();
        if (pid == 0) {
            sqlite3 *mine = open_db(path);
            sqlite3_stmt *read = prepare(mine, "SELECT enrollment_id, factor_id, display_name, enrolled_at, key_id, "
                                               "sealed, locked_until FROM factors WHERE tenant = '' AND uid = ?");
            sqlite3_stmt *begin = prepare(mine, "BEGIN IMMEDIATE");
            sqlite3_stmt *step = prepare(mine, "SELECT algorithm, digits, period, last_step FROM totp "
                                               "WHERE enrollment_id = ?");
            sqlite3_stmt *claim = prepare(mine, "UPDATE totp SET last_step = ? WHERE enrollment_id = ? "
                                                "AND last_step < ?");
            sqlite3_stmt *commit = prepare(mine, "COMMIT");
            long now = 60000000;
            for (long i = 0; i < signins; i++) {
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
            _exit(0);
        }
        if (pid < 0) {
            perror("fork");
            return 1;
        }
    }
    int failed = 0;
    for (long p = 0; p < processes; p++) {
        int wstatus = 0;
        wait(&wstatus);
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) failed = 1;
    }
    double elapsed = seconds() - start;
    if (failed) {
        fprintf(stderr, "a client process failed\n");
        return 1;
    }
    printf("%ld %.0f\n", processes, processes * signins / elapsed);
    return 0;
}
