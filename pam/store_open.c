/* store_open.c: the libmfa context of pam_mfa.so and mfa-enroll (see store_open.h). */
#define _GNU_SOURCE
#include "store_open.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "key_file.h"

/* Owned by root and writable by nobody else; 0 or -1 with a reason. */
static int check_owner(const char *what, const char *path, const struct stat *st, char *why, size_t why_size) {
    if (st->st_uid != 0) {
        snprintf(why, why_size, "%s %s must be owned by root (it is owned by uid %lu)", what, path,
                 (unsigned long)st->st_uid);
        return -1;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, why_size, "%s %s must not be writable by group or others (mode %04o)", what, path,
                 (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

/* An SQLite store: its folder and (if it exists) its file are root's alone to write. */
static int check_sqlite_store(const char *path, char *why, size_t why_size) {
    char folder[4096];
    struct stat st;
    if (strlen(path) >= sizeof folder) {
        snprintf(why, why_size, "store path too long");
        return -1;
    }
    strcpy(folder, path);
    const char *parent = dirname(folder);
    if (stat(parent, &st) != 0) {
        snprintf(why, why_size, "store folder %s: %s", parent, strerror(errno));
        return -1;
    }
    if (check_owner("store folder", parent, &st, why, why_size) != 0) return -1;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(why, why_size, "store %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "store %s is not a regular file", path);
        return -1;
    }
    return check_owner("store", path, &st, why, why_size);
}

/* Replaces each occurrence of secret[0..len) in text by "***" (cut at `size`). */
static void redact_one(char *text, size_t size, const char *secret, size_t len) {
    static const char mask[] = "***";
    const size_t mask_len = sizeof mask - 1;
    if (len == 0) return;
    char *at = text;
    while ((at = memmem(at, strlen(at), secret, len)) != NULL) {
        size_t offset = (size_t)(at - text);
        size_t tail = strlen(at + len);
        if (offset + mask_len >= size) {
            *at = '\0';
            return;
        }
        if (offset + mask_len + tail >= size) tail = size - 1 - offset - mask_len;
        memmove(at + mask_len, at + len, tail);
        memcpy(at, mask, mask_len);
        at[mask_len + tail] = '\0';
        at += mask_len;
    }
}

void mfa_pam_redact(char *text, size_t size, const char *store) {
    if (!text || !store || !mfa_pam_store_is_postgres(store) || size < 8) return;
    const char *authority = strstr(store, "://") + 3;
    size_t end = strcspn(authority, "/?#");
    const char *at = memchr(authority, '@', end);
    if (at) {
        const char *colon = memchr(authority, ':', (size_t)(at - authority));
        if (colon) redact_one(text, size, colon + 1, (size_t)(at - colon - 1));
    }
    for (const char *p = strstr(store, "password="); p; p = strstr(p + 1, "password=")) {
        if (p != store && p[-1] != '?' && p[-1] != '&') continue;
        const char *value = p + 9;
        redact_one(text, size, value, strcspn(value, "&#"));
    }
}

/* The PIN file: a regular file owned by root that nobody else can read or write. */
static int check_pin_file(const char *path, char *why, size_t why_size) {
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "PIN file %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "PIN file %s is not a regular file", path);
        return -1;
    }
    if (st.st_uid != 0 || (st.st_mode & 077)) {
        snprintf(why, why_size, "PIN file %s must be root's alone (owner uid %lu, mode %04o; want root, 0600 or 0400)",
                 path, (unsigned long)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* 1 for the statuses of a key provider (the HSM) that cannot give the key. */
static int key_provider_failed(int32_t rc) {
    return rc == MFA_ERR_KEY_PROVIDER_UNAVAILABLE || rc == MFA_ERR_KEY_PROVIDER_LOGIN ||
           rc == MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND;
}

int mfa_pam_open_store(mfa_ctx **out, const mfa_pam_options *options, char *why, size_t why_size, int32_t *status) {
    *out = NULL;
    if (status) *status = MFA_OK;
    int postgres = mfa_pam_store_is_postgres(options->store);
    if (!postgres && check_sqlite_store(options->store, why, why_size) != 0) return MFA_PAM_MISCONFIGURED;

    if (mfa_pam_options_check(options, why, why_size) != 0) return MFA_PAM_MISCONFIGURED;

    mfa_pam_keys keys;
    memset(&keys, 0, sizeof keys);
    mfa_options o = MFA_OPTIONS_INIT;
    o.store = options->store;
    if (options->hsm_module) {
        if (check_pin_file(options->hsm_pin_file, why, why_size) != 0) return MFA_PAM_MISCONFIGURED;
        o.hsm_module = options->hsm_module;
        o.hsm_token = options->hsm_token;
        o.hsm_slot = options->hsm_slot;
        o.hsm_key = options->hsm_key;
        o.hsm_pin_file = options->hsm_pin_file;
    } else {
        if (mfa_pam_keys_load(&keys, options->key_file, options->key_id, why, why_size) != 0)
            return MFA_PAM_MISCONFIGURED;
        o.master_key = keys.keys[0];
        o.previous_keys = keys.count > 1 ? &keys.keys[1] : NULL;
        o.previous_key_count = keys.count - 1;
    }
    char *err = NULL;
    /* A new SQLite file (and its -wal and -shm files, which take its mode) is root's alone. */
    mode_t saved = umask(077);
    int32_t rc = mfa_open(out, &o, &err);
    umask(saved);
    if (!options->hsm_module) mfa_pam_keys_wipe(&keys);
    if (status) *status = rc;
    if (rc == MFA_OK) {
        mfa_free(err);
        return MFA_PAM_OPENED;
    }
    *out = NULL;
    if (key_provider_failed(rc)) {
        /* libmfa's message names the module, token or key label, never the PIN. */
        snprintf(why, why_size, "the HSM cannot give the store's key: %s: %s", mfa_status_name(rc),
                 err ? err : mfa_errstr(rc));
    } else if (rc == MFA_ERR_KEY_MISMATCH && options->hsm_module) {
        snprintf(why, why_size,
                 "the HSM key %s does not unwrap this store's data keys (KEY_MISMATCH: %s); nothing was read "
                 "or written",
                 options->hsm_key, err ? err : mfa_errstr(rc));
    } else if (rc == MFA_ERR_KEY_MISMATCH) {
        /* Plain words first: the operator's fix is the key file, not the store. */
        snprintf(why, why_size,
                 "the key file %s is not the master key this store was written with (KEY_MISMATCH: %s); "
                 "nothing was read or written: give every server and mfa-enroll the key file the store was "
                 "made with",
                 options->key_file, err ? err : mfa_errstr(rc));
    } else {
        snprintf(why, why_size, "cannot open the store: %s: %s", mfa_status_name(rc), err ? err : mfa_errstr(rc));
    }
    mfa_pam_redact(why, why_size, options->store);
    mfa_free(err);
    return rc == MFA_ERR_STORAGE_ERROR || rc == MFA_ERR_CRYPTO || key_provider_failed(rc) ? MFA_PAM_UNAVAILABLE
                                                                                         : MFA_PAM_MISCONFIGURED;
}
