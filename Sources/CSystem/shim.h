/*
 * The few glibc calls libmfa needs that Swift's Glibc module leaves out
 * (they are declared only under _GNU_SOURCE): secure_getenv, and whether
 * the process runs in secure-execution mode (the kernel's AT_SECURE: a
 * setuid or setgid program, or one with file capabilities).
 */
#ifndef MFA_CSYSTEM_SHIM_H
#define MFA_CSYSTEM_SHIM_H

#include <sys/auxv.h>

/* glibc 2.17 and later; NULL in a secure-execution process. */
extern char *secure_getenv(const char *name);

/* 1 in a secure-execution process (AT_SECURE), 0 otherwise. */
static inline int mfa_secure_execution(void) {
    return getauxval(AT_SECURE) != 0;
}

#endif
