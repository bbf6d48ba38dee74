/*
 * store_open.h: opens the libmfa context that pam_mfa.so and mfa-enroll work
 * on, from the module's options: the key file is read and checked (or, with
 * hsm_module=, the HSM options passed on and the PIN file checked), an
 * SQLite store must be safe from other users (its folder and file owned by
 * root and writable by nobody else), and a new SQLite file is created
 * readable by root only.
 */
#ifndef MFA_PAM_STORE_OPEN_H
#define MFA_PAM_STORE_OPEN_H

#include <stddef.h>

#include "mfa.h"
#include "module_options.h"

/** The context is open. */
#define MFA_PAM_OPENED 0
/** The set-up is wrong or unsafe (key file, store permissions): an operator must fix it. */
#define MFA_PAM_MISCONFIGURED 1
/** The store cannot be reached or read (MFA_ERR_STORAGE_ERROR, MFA_ERR_CRYPTO), or the HSM cannot give its key (MFA_ERR_KEY_PROVIDER_*). */
#define MFA_PAM_UNAVAILABLE 2

/**
 * Opens the context. Returns MFA_PAM_OPENED with `*out` set (close it with
 * mfa_close()), or another MFA_PAM_* value with the reason in `why` (never
 * a secret) and `*out` NULL; `*status` (if not NULL) gets libmfa's status
 * where libmfa was called, else MFA_OK.
 */
int mfa_pam_open_store(mfa_ctx **out, const mfa_pam_options *options, char *why, size_t why_size, int32_t *status);

/**
 * Replaces in `text` (NUL-terminated, `size` bytes of room) each occurrence
 * of a password the store location carries (postgres://user:PASSWORD@...,
 * or a password= parameter) by "***", so that no log line holds it.
 */
void mfa_pam_redact(char *text, size_t size, const char *store);

#endif
