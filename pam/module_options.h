/*
 * module_options.h: the options of pam_mfa.so, as written on its line in
 * /etc/pam.d/ (name=value words and flags), shared with mfa-enroll, which
 * takes the same store=, key_file=, key_id=, tenant= and hsm_* words.
 */
#ifndef MFA_PAM_MODULE_OPTIONS_H
#define MFA_PAM_MODULE_OPTIONS_H

#include <stddef.h>

/** Where the store is unless store= says otherwise. */
#define MFA_PAM_DEFAULT_STORE "/var/lib/libmfa/pam.sqlite"
/** Where the master key file is unless key_file= says otherwise. */
#define MFA_PAM_DEFAULT_KEY_FILE "/etc/libmfa/pam.key"
/** The id of a key written without one, unless key_id= says otherwise. */
#define MFA_PAM_DEFAULT_KEY_ID "pam"
/** The question asked for the code. */
#define MFA_PAM_DEFAULT_PROMPT "Verification code: "
/** The question asked for the password and the code together (forward_pass). */
#define MFA_PAM_DEFAULT_FORWARD_PROMPT "Password & verification code: "

/** The module's settings. Strings point into the words parsed (PAM's argv). */
typedef struct mfa_pam_options {
    /** SQLite file (absolute path) or postgres:// URL. */
    const char *store;
    /** The master key file. */
    const char *key_file;
    /** 1 if key_file= was given (it excludes hsm_module=). */
    int key_file_given;
    /** The PKCS#11 module of the HSM holding the key that wraps the store's data keys, or NULL (key file). */
    const char *hsm_module;
    /** The HSM token's label, or NULL to name it by hsm_slot. */
    const char *hsm_token;
    /** The HSM token's slot id when hsm_token is NULL; -1 for none. */
    long long hsm_slot;
    /** The label of the HSM's AES key. */
    const char *hsm_key;
    /** The file (root's alone) whose first line is the token's PIN. */
    const char *hsm_pin_file;
    /** The id of a key that the file gives without one. */
    const char *key_id;
    /** The libmfa tenant, or NULL for the project. */
    const char *tenant;
    /** The question for the code, or NULL for the default. */
    const char *prompt;
    /** Users with no second factor pass. */
    int nullok;
    /** Password and code come on one line; the password goes on to the next module as PAM_AUTHTOK. */
    int forward_pass;
    /** forward_pass: how many digits the TOTP code at the end of the line has (6 to 8; 6 unless digits= is given). */
    int digits;
    /** With forward_pass: judge nothing here; keep the code for a later use_deferred_code line. */
    int defer_code;
    /** Judge the code a forward_pass defer_code line kept (after the password's module); ask nothing. */
    int use_deferred_code;
    /** Show the code as it is typed. */
    int echo_code;
    /** Log each step to syslog (never a code, a key or a token). */
    int debug;
} mfa_pam_options;

/** Sets the defaults. */
void mfa_pam_options_init(mfa_pam_options *options);

/**
 * Reads one word of the module's line ("store=/x", "nullok", ...). With
 * `store_only` set, only store=, key_file=, key_id=, tenant= and the
 * hsm_* words are accepted (mfa-enroll). Returns 0, or -1 with the reason in `why`.
 */
int mfa_pam_option(mfa_pam_options *options, const char *word, int store_only, char *why, size_t why_size);

/**
 * Checks the words that go together once the line is read: with
 * hsm_module=, hsm_key=, hsm_pin_file= and one of hsm_token= or hsm_slot=
 * are needed and key_file= is refused; without it, no other hsm_* word.
 * Returns 0, or -1 with the reason in `why`.
 */
int mfa_pam_options_check(const mfa_pam_options *options, char *why, size_t why_size);

/** 1 if the store is a PostgreSQL URL, else 0 (an SQLite file). */
int mfa_pam_store_is_postgres(const char *store);

#endif
