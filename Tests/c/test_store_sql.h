/*
 * Raw SQL on a test's store (test_pg_store.h), on either backend: what a
 * store written by an older libmfa, or altered by hand, looks like.
 *
 * Header-only, for the tests built at -std=c99 -Wall -Wextra -pedantic
 * -Werror. Link with -lpq and -lsqlite3.
 */
#ifndef TEST_STORE_SQL_H
#define TEST_STORE_SQL_H

#include <sqlite3.h>

#include "test_pg_store.h"

/* Runs `sql` (no parameters) on the store: the first column of the first row as a
 * number (0 if none), 0 for a command, -1 on failure. */
static inline long test_store_sql(const test_store *store, const char *sql) {
    long value = -1;
    if (store->postgres) {
        PGconn *conn = PQconnectdb(store->location);
        if (PQstatus(conn) == CONNECTION_OK) {
            PQsetNoticeProcessor(conn, test_pg_quiet, NULL);
            value = test_pg_query(conn, sql, 0, NULL);
        } else {
            fprintf(stderr, "libpq: %s", PQerrorMessage(conn));
        }
        PQfinish(conn);
    } else {
        sqlite3 *db = NULL;
        sqlite3_stmt *statement = NULL;
        if (sqlite3_open_v2(store->location, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
            sqlite3_busy_timeout(db, 5000) == SQLITE_OK &&
            sqlite3_prepare_v2(db, sql, -1, &statement, NULL) == SQLITE_OK) {
            int step = sqlite3_step(statement);
            if (step == SQLITE_ROW) value = (long)sqlite3_column_int64(statement, 0);
            else if (step == SQLITE_DONE) value = 0;
        }
        if (value < 0) fprintf(stderr, "sqlite: %s: %s\n", sql, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_finalize(statement);
        sqlite3_close(db);
    }
    return value;
}

#endif
