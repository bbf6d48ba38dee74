/*
 * What the bare-SQLite benchmarks (sqlite_baseline.c, sqlite_floor.c)
 * share: fail on any SQLite error, prepare once, open a file the way
 * libmfa does (WAL, synchronous=NORMAL), and run a body in N processes at
 * once, timed. They do not link libmfa, so they do not use bench_support.h.
 */
#ifndef MFA_SQLITE_BENCH_SUPPORT_H
#define MFA_SQLITE_BENCH_SUPPORT_H

#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sqlite_host_config.h"

/* Exits with SQLite's message unless `status` is OK, DONE or ROW. */
static inline void check(sqlite3 *db, int status, const char *what) {
    if (status == SQLITE_OK || status == SQLITE_DONE || status == SQLITE_ROW) return;
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

/* Runs SQL text (no results). */
static inline void exec_sql(sqlite3 *db, const char *sql) { check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql); }

/* A statement prepared once, for the whole run. */
static inline sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement = NULL;
    check(db, sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL), sql);
    return statement;
}

/* Opens `path` in WAL mode with synchronous=NORMAL, then runs `pragmas` (or nothing if NULL). */
static inline sqlite3 *open_db(const char *path, const char *pragmas) {
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "open %s failed\n", path);
        exit(1);
    }
    sqlite3_busy_timeout(db, 10000);
    exec_sql(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
    if (pragmas) exec_sql(db, pragmas);
    return db;
}

/* Closes `db` as libmfa's mfa_close closes its store: its statements
 * finalized, then the connection, which (the last one on the file)
 * checkpoints the WAL into the database and removes it. A client process
 * closes before it exits, so that every side of a comparison pays for its
 * closing. */
static inline void close_db(sqlite3 *db) {
    sqlite3_stmt *statement;
    while ((statement = sqlite3_next_stmt(db, NULL)) != NULL) sqlite3_finalize(statement);
    check(db, sqlite3_close(db), "close");
}

/* Runs body(p, context) in `processes` forked processes at once (p = 0 ..
 * processes - 1); returns the seconds they took in all, or exits if one failed. */
static inline double run_processes(long processes, void (*body)(long p, void *context), void *context) {
    struct timespec start, end;
    int failed = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long p = 0; p < processes; p++) {
        pid_t pid = fork();
        if (pid == 0) {
            body(p, context);
            _exit(0);
        }
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
    }
    for (long p = 0; p < processes; p++) {
        int wstatus = 0;
        wait(&wstatus);
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) failed = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (failed) {
        fprintf(stderr, "a client process failed\n");
        exit(1);
    }
    return (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
}

#endif
