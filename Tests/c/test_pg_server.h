/*
 * A private PostgreSQL server for the C tests that stop it, restart it or
 * freeze it (test_pg_restart.c, test_pg_freeze.c): scripts/pg.sh run on a
 * port of the test's own, and a monotonic clock.
 *
 * Header-only (static functions), for the tests built at
 * -std=c99 -Wall -Wextra -pedantic -Werror with _POSIX_C_SOURCE 200809L.
 */
#ifndef TEST_PG_SERVER_H
#define TEST_PG_SERVER_H

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double test_mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs `pg.sh ACTION PORT` (stop, halt, ...), its output discarded; 0 on success. */
static inline int test_pg_server(const char *script, const char *action, int port) {
    char command[1400];
    int rc;
    snprintf(command, sizeof command, "'%s' %s %d > /dev/null", script, action, port);
    rc = system(command);
    if (rc != 0) fprintf(stderr, "%s gave %d\n", command, rc);
    return rc == 0 ? 0 : -1;
}

/* Starts the server (pg.sh start PORT); `url` gets the URL pg.sh prints. 0 on success. */
static inline int test_pg_server_start(const char *script, int port, char *url, size_t size) {
    char command[1400];
    FILE *out;
    int ok;
    snprintf(command, sizeof command, "'%s' start %d", script, port);
    out = popen(command, "r");
    if (!out) return -1;
    ok = fgets(url, (int)size, out) != NULL;
    if (pclose(out) != 0) ok = 0;
    if (ok) url[strcspn(url, "\r\n")] = '\0';
    if (!ok) fprintf(stderr, "%s failed\n", command);
    return ok ? 0 : -1;
}

#endif
