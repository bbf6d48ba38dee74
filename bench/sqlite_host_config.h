/*
 * What a host process may set in SQLite before anything in it opens a
 * database, applied by every SQLite benchmark program when asked, so that
 * both sides of a comparison run under the same process-wide settings.
 *
 * BENCH_SQLITE_MEMSTATUS=0 turns off SQLite's memory statistics
 * (SQLITE_CONFIG_MEMSTATUS). With them on, as SQLite ships, every SQLite
 * allocation and free takes one process-wide mutex to count it. libmfa
 * leaves the setting alone: it is the host's, and it also switches off
 * sqlite3_memory_used() and the soft heap limit for every other SQLite
 * user in the process. docs/scaling.md has what it saves.
 */
#ifndef MFA_SQLITE_HOST_CONFIG_H
#define MFA_SQLITE_HOST_CONFIG_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Applies the settings the environment asks for; exits if SQLite refuses one. */
static inline void bench_sqlite_host_config(void) {
    const char *memstatus = getenv("BENCH_SQLITE_MEMSTATUS");
    if (!memstatus || strcmp(memstatus, "0") != 0) return;
    if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) {
        fprintf(stderr, "sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) failed: SQLite was already initialized\n");
        exit(1);
    }
}

#endif
