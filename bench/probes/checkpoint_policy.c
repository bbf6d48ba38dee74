/*
 * libmfa's WAL checkpoint policy against SQLite's own, in the same build,
 * preloaded into a libmfa program (LD_PRELOAD=checkpoint_policy.so).
 *
 * libmfa gives each SQLite connection its policy with sqlite3_wal_hook
 * (Sources/MFA/Store/SQLiteCheckpoints.swift). With CHECKPOINT_POLICY=sqlite
 * this library installs SQLite's policy in its place, as SQLite's default
 * hook runs it: a passive checkpoint after every commit that leaves the WAL
 * at 1,000 frames or more. With anything else libmfa's hook stays.
 *
 * Either way it counts the checkpoints the process runs and the largest WAL
 * a commit left, in frames, and when the process closes a connection that
 * ran any, appends a line to the file CHECKPOINT_OUT names (nothing is
 * written without it): checkpoints, then the largest WAL.
 * Built and run by bench/probes/checkpoints.sh.
 */
#define _GNU_SOURCE
#include "preload_support.h" /* after _GNU_SOURCE, for RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef int (*wal_callback)(void *, sqlite3 *, const char *, int);

#define SQLITE_OK 0
#define SQLITE_CHECKPOINT_PASSIVE 0

/* What this process did since it last reported. */
static long checkpoints, largest;

/* The next definition of `name` after this library's. */
static void *next(const char *name) { return preload_next("checkpoint_policy", name); }

int sqlite3_wal_checkpoint_v2(sqlite3 *db, const char *schema, int mode, int *log, int *done) {
    static int (*real)(sqlite3 *, const char *, int, int *, int *);
    if (!real) real = next("sqlite3_wal_checkpoint_v2");
    checkpoints++;
    return real(db, schema, mode, log, done);
}

/* The hook each connection's program installed, which this library's own
 * calls after noting the WAL's size (a few connections per process). */
static struct installed {
    wal_callback callback;
    void *context;
} installed[16];
static int connections;

static int noting(void *context, sqlite3 *db, const char *schema, int frames) {
    const struct installed *hook = context;
    if (frames > largest) largest = frames;
    return hook->callback ? hook->callback(hook->context, db, schema, frames) : SQLITE_OK;
}

/* SQLite's own policy, as its default hook runs it. */
static int sqlite_policy(void *context, sqlite3 *db, const char *schema, int frames) {
    (void)context;
    if (frames >= 1000) sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

void *sqlite3_wal_hook(sqlite3 *db, wal_callback callback, void *context) {
    static void *(*real)(sqlite3 *, wal_callback, void *);
    if (!real) real = next("sqlite3_wal_hook");
    const char *policy = getenv("CHECKPOINT_POLICY");
    int sqlite = policy && strcmp(policy, "sqlite") == 0;
    struct installed *hook = &installed[connections++ % 16];
    hook->callback = sqlite ? sqlite_policy : callback;
    hook->context = sqlite ? NULL : context;
    return real(db, noting, hook);
}

int sqlite3_close(sqlite3 *db) {
    static int (*real)(sqlite3 *);
    if (!real) real = next("sqlite3_close");
    const char *path = getenv("CHECKPOINT_OUT");
    if (path && checkpoints > 0) {
        FILE *out = fopen(path, "a");
        if (out) {
            fprintf(out, "%ld %ld\n", checkpoints, largest);
            fclose(out);
        }
        checkpoints = 0, largest = 0;
    }
    return real(db);
}
