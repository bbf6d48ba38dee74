/*
 * Store locations for the C tests that run on either backend.
 *
 * A test takes an optional location argument:
 *   (none)          a new SQLite file in a temporary directory (removed at the end)
 *   env:NAME        the value of the environment variable NAME (CTest passes
 *                   the fixture's server this way), then as below
 *   postgres://...  a PostgreSQL server: the test gets a schema of its own,
 *                   t_<random>, created through libpq, and opens
 *                   URL?options=-csearch_path%3Dt_<random>; the schema is
 *                   dropped at the end
 *   anything else   an SQLite file path, used as is
 *
 * Header-only (static functions), for the tests built at
 * -std=c99 -Wall -Wextra -pedantic -Werror. Link with -lpq.
 * Also: test_pg_query and WAITING_ON_ME, for a test's own connection.
 */
#ifndef TEST_PG_STORE_H
#define TEST_PG_STORE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "test_support.h"

typedef struct test_store {
    int postgres;        /* 1 on PostgreSQL */
    char location[1200]; /* what mfa_open gets */
    char server[1024];   /* PostgreSQL: the server's URL, without the schema */
    char schema[40];     /* PostgreSQL: t_<random> */
    char dir[256];       /* SQLite, temporary: the directory */
    char file[512];      /* SQLite, temporary: the file */
} test_store;

static int test_pg_is_url(const char *location) {
    return strncmp(location, "postgres://", 11) == 0 || strncmp(location, "postgresql://", 13) == 0;
}

static void test_pg_quiet(void *context, const char *message) {
    (void)context;
    (void)message;
}

/* Runs one statement on the server at `url`; 0 on success. */
static int test_pg_exec(const char *url, const char *sql) {
    PGconn *conn = PQconnectdb(url);
    PGresult *result;
    int ok;
    if (PQstatus(conn) != CONNECTION_OK) {
        fprintf(stderr, "libpq: cannot connect to %s: %s", url, PQerrorMessage(conn));
        PQfinish(conn);
        return -1;
    }
    PQsetNoticeProcessor(conn, test_pg_quiet, NULL); /* "drop cascades to ..." */
    result = PQexec(conn, sql);
    ok = PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK;
    if (!ok) fprintf(stderr, "libpq: %s: %s", sql, PQerrorMessage(conn));
    PQclear(result);
    PQfinish(conn);
    return ok ? 0 : -1;
}

/* `out` = `url` with a search_path of `schema` (libpq's options parameter). */
static void test_pg_schema_url(char *out, size_t size, const char *url, const char *schema) {
    snprintf(out, size, "%s%coptions=-csearch_path%%3D%s", url, strchr(url, '?') ? '&' : '?', schema);
}

/* A name no other run uses: t_ and 16 hex digits from /dev/urandom. */
static int test_pg_schema_name(char *out, size_t size) {
    unsigned char bytes[8];
    int fd = open("/dev/urandom", O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, bytes, sizeof bytes) : -1;
    if (fd >= 0) close(fd);
    if (got != (ssize_t)sizeof bytes) {
        perror("/dev/urandom");
        return -1;
    }
    snprintf(out, size, "t_%02x%02x%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3], bytes[4],
             bytes[5], bytes[6], bytes[7]);
    return 0;
}

/* Makes the store `argument` names (see the top of this file); 0 on success. */
static int test_store_make(test_store *store, const char *argument, const char *prefix) {
    const char *location = argument;
    memset(store, 0, sizeof *store);
    if (location && strncmp(location, "env:", 4) == 0) {
        location = getenv(location + 4);
        if (!location || !*location) {
            fprintf(stderr, "%s: the environment variable %s is not set\n", prefix, argument + 4);
            return -1;
        }
    }
    if (location && test_pg_is_url(location)) {
        char sql[80];
        store->postgres = 1;
        snprintf(store->server, sizeof store->server, "%s", location);
        if (test_pg_schema_name(store->schema, sizeof store->schema) != 0) return -1;
        snprintf(sql, sizeof sql, "CREATE SCHEMA %s", store->schema);
        if (test_pg_exec(store->server, sql) != 0) return -1;
        test_pg_schema_url(store->location, sizeof store->location, store->server, store->schema);
        return 0;
    }
    if (location) {
        snprintf(store->location, sizeof store->location, "%s", location);
        return 0;
    }
    if (test_temp_dir(store->dir, sizeof store->dir, prefix) != 0) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(store->file, sizeof store->file, "%s/store.db", store->dir);
    snprintf(store->location, sizeof store->location, "%s", store->file);
    return 0;
}

/* Removes what test_store_make made: the schema, or the temporary file. */
static void test_store_remove(test_store *store) {
    if (store->postgres) {
        char sql[80];
        snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", store->schema);
        if (test_pg_exec(store->server, sql) != 0) fprintf(stderr, "could not drop schema %s\n", store->schema);
    } else if (store->file[0]) {
        test_remove_sqlite(store->file);
        rmdir(store->dir);
    }
}

/* Runs `sql` with `count` text parameters on the test's own connection: the first
 * column of the first row as a number (0 if none), 0 for a command, -1 on failure. */
static inline long test_pg_query(PGconn *conn, const char *sql, int count, const char *const *params) {
    PGresult *result = PQexecParams(conn, sql, count, NULL, params, NULL, NULL, 0);
    long value = -1;
    if (PQresultStatus(result) == PGRES_COMMAND_OK) value = 0;
    else if (PQresultStatus(result) == PGRES_TUPLES_OK)
        value = PQntuples(result) > 0 && !PQgetisnull(result, 0, 0) ? atol(PQgetvalue(result, 0, 0)) : 0;
    else fprintf(stderr, "libpq: %s: %s", sql, PQerrorMessage(conn));
    PQclear(result);
    return value;
}

/* Backends that wait for a lock this connection (or its transaction) holds. pg_locks,
 * which is live; pg_stat_activity is a snapshot taken once per transaction. */
#define WAITING_ON_ME \
    "SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))"

#endif
