/* lib.c: loading libmfa with dlopen() and filling the function table (lib.h). */
#define _GNU_SOURCE
#include "lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MFA_NODE_DEFAULT_LIBRARY
#define MFA_NODE_DEFAULT_LIBRARY ""
#endif

mfa_node_lib L;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;           /* 1 loaded, -1 failed, 0 not tried */
static char load_error[512]; /* the first failure's message */
static char loaded_path[4096];
static const char *missing[128];

/* dlopen()s one candidate; on failure appends why to `why`. */
static void *try_open(const char *path, char *why, size_t size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        size_t used = strlen(why);
        const char *reason = dlerror();
        snprintf(why + used, size - used, "%s%s", used ? "; " : "", reason ? reason : path);
    }
    return handle;
}

static int load_locked(const char *path) {
    char why[sizeof load_error] = "";
    void *handle = NULL;
    const char *chosen = NULL;
    const char *env = secure_getenv("LIBMFA_LIBRARY");
    if (path && *path) {
        chosen = path;
        handle = try_open(path, why, sizeof why);
    } else if (env && *env) {
        /* When it is set it is the only candidate: a wrong path is an error, never another copy. */
        chosen = env;
        handle = try_open(env, why, sizeof why);
    } else {
        if (MFA_NODE_DEFAULT_LIBRARY[0]) {
            chosen = MFA_NODE_DEFAULT_LIBRARY;
            handle = try_open(chosen, why, sizeof why);
        }
        if (!handle) {
            chosen = "libmfa.so.0";
            handle = try_open(chosen, why, sizeof why);
        }
    }
    if (!handle) {
        snprintf(load_error, sizeof load_error, "libmfa could not be loaded: %s", why);
        return -1;
    }
    size_t count = 0;
#define MFA_NODE_RESOLVE(name)                                                                 \
    *(void **)&L.name = dlsym(handle, #name);                                                  \
    if (!L.name && count + 1 < sizeof missing / sizeof missing[0]) missing[count++] = #name;
    MFA_NODE_FUNCTIONS(MFA_NODE_RESOLVE)
#undef MFA_NODE_RESOLVE
    missing[count] = NULL;
    /* The addon cannot report anything without these. */
    if (!L.mfa_status_name || !L.mfa_errstr || !L.mfa_free || !L.mfa_version) {
        snprintf(load_error, sizeof load_error, "%s is not libmfa (mfa_status_name is missing)", chosen);
        memset(&L, 0, sizeof L);
        dlclose(handle);
        return -1;
    }
    snprintf(loaded_path, sizeof loaded_path, "%s", chosen);
    return 0;
}

int mfa_node_lib_load(const char *path, char *error, size_t size) {
    pthread_mutex_lock(&load_lock);
    if (loaded == 0) loaded = load_locked(path) == 0 ? 1 : -1;
    int result = loaded == 1 ? 0 : -1;
    if (result != 0 && error && size) snprintf(error, size, "%s", load_error);
    pthread_mutex_unlock(&load_lock);
    return result;
}

const char *mfa_node_lib_path(void) {
    return loaded == 1 ? loaded_path : NULL;
}

const char *const *mfa_node_lib_missing(void) {
    return missing;
}
