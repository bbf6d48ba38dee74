/*
 * What the benchmark libraries preloaded into a program (LD_PRELOAD:
 * split_timer.c, checkpoint_policy.c) share: finding the definition they
 * stand in front of.
 */
#ifndef MFA_PRELOAD_SUPPORT_H
#define MFA_PRELOAD_SUPPORT_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* The next definition of `name` after the calling library's, or the
 * process stops with `library`'s name and the missing one. */
static inline void *preload_next(const char *library, const char *name) {
    void *found = dlsym(RTLD_NEXT, name);
    if (!found) {
        fprintf(stderr, "%s: no %s\n", library, name);
        abort();
    }
    return found;
}

#endif
