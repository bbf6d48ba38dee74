/*
 * key_file.h: reads the master key file of pam_mfa.so and mfa-enroll.
 *
 * The file must be a regular file (not a symlink), owned by root, with no
 * permission bits for group or others (mode 0600 or 0400). It holds either
 * exactly 32 raw bytes, or text: one key per line, as 64 hexadecimal
 * characters, optionally preceded by a key id and a space or tab
 * ("2026-11 00112233...") or by a key id and a colon ("2026-11:00112233...",
 * as mfactl writes it). Lines end in LF or CRLF; empty lines and lines
 * starting with '#' are skipped. The first key is the current one; the
 * others are earlier keys kept for rotation. A key without an id gets the
 * default id (the option key_id=, "pam" unless set). mfactl reads the same
 * forms (Tools/mfactl/Sources/mfactl/KeyFile.swift), so one file serves
 * every tool.
 */
#ifndef MFA_PAM_KEY_FILE_H
#define MFA_PAM_KEY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "mfa.h"

/** Most keys one file may hold (the current one and earlier ones). */
#define MFA_PAM_MAX_KEYS 16
/** Longest key id, in bytes (libmfa's limit). */
#define MFA_PAM_KEY_ID_MAX 64

/** The keys of a key file, ready for mfa_options. Wipe it with mfa_pam_keys_wipe(). */
typedef struct mfa_pam_keys {
    /** Number of keys read (1 to MFA_PAM_MAX_KEYS). */
    size_t count;
    /** Their ids, NUL-terminated. */
    char ids[MFA_PAM_MAX_KEYS][MFA_PAM_KEY_ID_MAX + 1];
    /** Their bytes. */
    uint8_t bytes[MFA_PAM_MAX_KEYS][MFA_MASTER_KEY_BYTES];
    /** keys[0] is the current key, keys[1..count-1] the earlier ones. */
    mfa_master_key keys[MFA_PAM_MAX_KEYS];
} mfa_pam_keys;

/**
 * Reads and checks the key file at `path`. Keys without an id get
 * `default_id`. Returns 0, or -1 with a reason in `why` (never key material).
 */
int mfa_pam_keys_load(mfa_pam_keys *out, const char *path, const char *default_id, char *why, size_t why_size);

/**
 * The keys of a key file's bytes (`len` of them at `data`), by the rules
 * above; what mfa_pam_keys_load() does once it has read and checked the
 * file. Returns 0, or -1 with a reason in `why` (never key material) and
 * `*out` wiped.
 */
int mfa_pam_keys_parse(mfa_pam_keys *out, const char *data, size_t len, const char *default_id, char *why,
                       size_t why_size);

/** Wipes the key bytes. */
void mfa_pam_keys_wipe(mfa_pam_keys *keys);

#endif
