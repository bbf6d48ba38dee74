/*
 * mfa_types.h: the hand-written part of libmfa's C interface.
 *
 * It holds the version macros, the status codes, the algorithm and limit
 * constants and the plain C structs that the functions in mfa.h take and
 * return. mfa.h includes it; C programs include mfa.h only.
 *
 * Thread safety: every type here is plain data; a struct is safe to share
 * between threads as long as nobody writes to it.
 *
 * Versioned structs. The structs a caller fills and passes in (mfa_options,
 * mfa_user, mfa_totp_params, mfa_key_uri) start with a `uint32_t version`
 * and have a version macro (MFA_OPTIONS_VERSION, ...), an init function and
 * a static initializer:
 *
 *     mfa_options o;                                 mfa_options o = MFA_OPTIONS_INIT;
 *     mfa_options_init(&o, MFA_OPTIONS_VERSION);
 *
 * Both set `version` to the version of the header the program is compiled
 * against, and every other field to its default. A struct only ever grows
 * at its end, and each addition bumps its version. libmfa reads (and the
 * init functions write) only the fields of the version a struct names, so a
 * program built against an older header keeps working with a newer library:
 * the fields it does not know keep their defaults. A version 0, or one newer
 * than the loaded library knows, is MFA_ERR_INVALID_ARGUMENT. Never set
 * `version` by hand.
 */
#ifndef MFA_TYPES_H
#define MFA_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ------------------------------------------------------------------ */
/* Version                                                             */
/* ------------------------------------------------------------------ */

/** Major version: changes when the ABI breaks (it is the SONAME's number). */
#define MFA_VERSION_MAJOR 0
/** Minor version: new functions, same ABI (while MAJOR is 0, a minor version may change the ABI). */
#define MFA_VERSION_MINOR 2
/** Patch version: fixes only. */
#define MFA_VERSION_PATCH 0
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define MFA_VERSION_STRING "0.2.0"
/** The version as one number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define MFA_VERSION_NUMBER \
    (MFA_VERSION_MAJOR * 10000 + MFA_VERSION_MINOR * 100 + MFA_VERSION_PATCH)

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/**
 * What every libmfa function that can fail returns: MFA_OK (0) or a negative
 * code with a stable name. mfa_status_name() gives the name ("INVALID_SESSION"),
 * mfa_errstr() a short human message. The numbers never change meaning.
 */
typedef enum mfa_status {
    /** Success. */
    MFA_OK = 0,
    /** A NULL pointer, a length or value out of range, invalid UTF-8, an overlong string. */
    MFA_ERR_INVALID_ARGUMENT = -1,
    /** MFA, or the factor asked for, is disabled in the project or tenant config. */
    MFA_ERR_OPERATION_NOT_ALLOWED = -2,
    /** The user's email address is not verified; enrolling needs a verified email. */
    MFA_ERR_UNVERIFIED_EMAIL = -3,
    /** The first factor (phone, anonymous, custom token, Game Center) cannot carry MFA. */
    MFA_ERR_UNSUPPORTED_FIRST_FACTOR = -4,
    /** The user must have authenticated recently for this operation. */
    MFA_ERR_REQUIRES_RECENT_LOGIN = -5,
    /** The phone number is not strict E.164. */
    MFA_ERR_INVALID_PHONE_NUMBER = -6,
    /** The user already has this second factor. */
    MFA_ERR_SECOND_FACTOR_EXISTS = -7,
    /** The user has the maximum number of second factors. */
    MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED = -8,
    /** App verification needs a credential and none was given. */
    MFA_ERR_MISSING_APP_CREDENTIAL = -9,
    /** The app verifier rejected the credential. */
    MFA_ERR_INVALID_APP_CREDENTIAL = -10,
    /** The one-time code is wrong (or malformed). */
    MFA_ERR_INVALID_VERIFICATION_CODE = -11,
    /** The code or the secret being enrolled has expired. */
    MFA_ERR_CODE_EXPIRED = -12,
    /** A session, pending credential or verification id is missing, tampered, expired or used. */
    MFA_ERR_INVALID_SESSION = -13,
    /** No enrolled factor has this id. */
    MFA_ERR_MFA_ENROLLMENT_NOT_FOUND = -14,
    /** The first factor passed; a second factor is required (a resolver is returned). */
    MFA_ERR_SECOND_FACTOR_REQUIRED = -15,
    /** MFA is MANDATORY and the user has no factor: the user must enroll. */
    MFA_ERR_ENROLLMENT_REQUIRED = -16,
    /** Too many failed attempts: wait for the backoff to expire. */
    MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER = -17,
    /** A sending quota (per number, user or tenant) is used up. */
    MFA_ERR_QUOTA_EXCEEDED = -18,
    /** The user's credential was issued before its tokens were revoked. */
    MFA_ERR_USER_TOKEN_EXPIRED = -19,
    /** The token belongs to another tenant. */
    MFA_ERR_TENANT_MISMATCH = -20,
    /** The store failed (I/O, lost connection, corruption); nothing was half-written. */
    MFA_ERR_STORAGE_ERROR = -21,
    /** A character outside the RFC 4648 base32 alphabet, or a malformed length or padding. */
    MFA_ERR_INVALID_BASE32 = -22,
    /** The text is not a valid otpauth:// key URI. */
    MFA_ERR_INVALID_URI = -23,
    /** The caller's output buffer is too small. */
    MFA_ERR_BUFFER_TOO_SMALL = -24,
    /** An allocation failed. */
    MFA_ERR_OUT_OF_MEMORY = -25,
    /** A cryptographic primitive failed (libsodium could not start, decryption failed). */
    MFA_ERR_CRYPTO = -26,
    /** A bug in libmfa: please report it. */
    MFA_ERR_INTERNAL = -27,
    /** The SMS sender failed, or none is configured; no attempt or quota was used. */
    MFA_ERR_SMS_SEND_FAILED = -28,
    /** WebAuthn: the response was made on a page whose origin the configuration (webauthn.origins) does not allow, or in a cross-origin frame. */
    MFA_ERR_ORIGIN_MISMATCH = -29,
    /** WebAuthn: the authenticator scoped the response to another relying party id than webauthn.rpId. */
    MFA_ERR_RP_ID_MISMATCH = -30,
    /** WebAuthn: the signature counter did not increase: the authenticator may have been cloned (audited; the sign-in is refused). */
    MFA_ERR_CREDENTIAL_CLONED = -31,
    /** WebAuthn: the attestation is not trusted by the configured roots (webauthn.attestationRoots) or the host's trust callback. */
    MFA_ERR_ATTESTATION_NOT_TRUSTED = -32,
    /** WebAuthn: the configuration requires user verification (PIN, biometrics) and the authenticator did not verify the user. */
    MFA_ERR_USER_VERIFICATION_REQUIRED = -33,
    /** mfa_open: the store knows a key by this id (its key check value) and the key given under that id is another one; the message names the id. Nothing was written. */
    MFA_ERR_KEY_MISMATCH = -34,
    /** The email address is not one libmfa takes: `local@domain` in ASCII, at most 254 bytes, no display name. */
    MFA_ERR_INVALID_EMAIL = -35,
    /** The email sender failed, or none is configured; no attempt or quota was used. */
    MFA_ERR_EMAIL_SEND_FAILED = -36,
    /** No remembered device of this user has this id. */
    MFA_ERR_DEVICE_NOT_FOUND = -37,
    /** Hardware tokens: no unassigned token of this tenant has this serial (or public id). */
    MFA_ERR_TOKEN_NOT_FOUND = -38,
    /** PSKC: the file is not a PSKC 1.0 key container libmfa reads, or it holds a DTD, an entity or an external reference (refused unread). */
    MFA_ERR_INVALID_PSKC = -39,
    /** PSKC: the file's values are encrypted and no key or password was given, or the one given does not open them. */
    MFA_ERR_PSKC_KEY_MISMATCH = -40,
    /** mfa_open, mfa_keys_rewrap: the key provider cannot be reached or used (the PKCS#11 module does not load, the token is not found, the HSM or the host's callback failed); the message names the module, token or label, never the PIN. */
    MFA_ERR_KEY_PROVIDER_UNAVAILABLE = -45,
    /** mfa_open, mfa_keys_rewrap: the key provider refused the PIN (wrong, locked, or none given). */
    MFA_ERR_KEY_PROVIDER_LOGIN = -46,
    /** mfa_open, mfa_keys_rewrap: the token holds no secret key under the label the store's data keys are wrapped with (deleted), or under the label to wrap with; the message names the label. */
    MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND = -47
} mfa_status;

/* ------------------------------------------------------------------ */
/* One-time passwords                                                  */
/* ------------------------------------------------------------------ */

/** HMAC-SHA1, the default and what every authenticator app supports. */
#define MFA_ALG_SHA1 1
/** HMAC-SHA256. */
#define MFA_ALG_SHA256 2
/** HMAC-SHA512. */
#define MFA_ALG_SHA512 3

/** Time-based one-time password (RFC 6238). */
#define MFA_OTP_TOTP 1
/** Counter-based one-time password (RFC 4226). */
#define MFA_OTP_HOTP 2

/** Fewest digits in a code. */
#define MFA_DIGITS_MIN 6
/** Most digits in a code. */
#define MFA_DIGITS_MAX 8
/** Default number of digits. */
#define MFA_DIGITS_DEFAULT 6
/** Default TOTP period in seconds. */
#define MFA_PERIOD_DEFAULT 30
/** Longest TOTP period accepted, in seconds (one year). */
#define MFA_PERIOD_MAX 31536000
/** Largest verification window: +/- this many time steps (or counters ahead for HOTP). */
#define MFA_WINDOW_MAX 10
/** Size of a buffer that holds any code plus its NUL terminator. */
#define MFA_CODE_BUFFER_SIZE 16
/** Longest HMAC key accepted, in bytes. */
#define MFA_KEY_MAX_BYTES 1024
/** Length in bytes of a secret made by mfa_random_secret() when asked for the default. */
#define MFA_SECRET_DEFAULT_BYTES 20
/** Shortest secret mfa_random_secret() makes (RFC 4226: at least 128 bits). */
#define MFA_SECRET_MIN_BYTES 16
/** Longest secret mfa_random_secret() makes. */
#define MFA_SECRET_MAX_BYTES 128
/** Longest string argument, in bytes, that any function reads (longer is INVALID_ARGUMENT). */
#define MFA_STRING_MAX_BYTES 65536

/** mfa_base32_encode() flag: leave out the '=' padding. */
#define MFA_BASE32_NO_PADDING 1

/** Version of mfa_totp_params understood by this header. */
#define MFA_TOTP_PARAMS_VERSION 1

/**
 * How a TOTP code is computed. Fill it with mfa_totp_params_init() or
 * MFA_TOTP_PARAMS_INIT and change what differs; functions that take it accept
 * NULL for the defaults (SHA1, 6 digits, 30 s, T0 = 0).
 */
typedef struct mfa_totp_params {
    /** The struct version, set by mfa_totp_params_init() or MFA_TOTP_PARAMS_INIT (1 to MFA_TOTP_PARAMS_VERSION). */
    uint32_t version;
    /** MFA_ALG_SHA1, MFA_ALG_SHA256 or MFA_ALG_SHA512. */
    int32_t algorithm;
    /** 6 to 8. */
    int32_t digits;
    /** Time step in seconds, 1 to MFA_PERIOD_MAX. */
    int64_t period;
    /** Unix time at which step 0 starts (RFC 6238's T0), usually 0. */
    int64_t t0;
} mfa_totp_params;

/** A static initializer for mfa_totp_params: the same as mfa_totp_params_init(&p, MFA_TOTP_PARAMS_VERSION). */
#define MFA_TOTP_PARAMS_INIT \
    { MFA_TOTP_PARAMS_VERSION, MFA_ALG_SHA1, MFA_DIGITS_DEFAULT, MFA_PERIOD_DEFAULT, 0 }

/** Version of mfa_key_uri understood by this header. */
#define MFA_KEY_URI_VERSION 1

/**
 * An otpauth:// key URI (the Google Authenticator key URI format), as plain
 * fields. Filled by the caller for mfa_key_uri_build() (start from
 * mfa_key_uri_init() or MFA_KEY_URI_INIT), or returned by mfa_key_uri_parse(),
 * in which case every pointer points into the same allocation, released by
 * mfa_key_uri_free().
 */
typedef struct mfa_key_uri {
    /** The struct version, set by mfa_key_uri_init() or MFA_KEY_URI_INIT (1 to MFA_KEY_URI_VERSION). */
    uint32_t version;
    /** MFA_OTP_TOTP or MFA_OTP_HOTP. */
    int32_t type;
    /** The service's name, UTF-8, or NULL for none. */
    const char *issuer;
    /** The account name (usually an email address), UTF-8, not empty. */
    const char *account;
    /** The raw shared secret. */
    const uint8_t *secret;
    /** Length of secret in bytes, 1 to MFA_KEY_MAX_BYTES. */
    size_t secret_len;
    /** MFA_ALG_SHA1, MFA_ALG_SHA256 or MFA_ALG_SHA512. */
    int32_t algorithm;
    /** 6 to 8. */
    int32_t digits;
    /** TOTP period in seconds (ignored for HOTP). */
    int64_t period;
    /** HOTP initial counter (ignored for TOTP). */
    uint64_t counter;
} mfa_key_uri;

/** A static initializer for mfa_key_uri: the same as mfa_key_uri_init(&u, MFA_KEY_URI_VERSION). */
#define MFA_KEY_URI_INIT \
    { MFA_KEY_URI_VERSION, MFA_OTP_TOTP, NULL, NULL, NULL, 0, MFA_ALG_SHA1, MFA_DIGITS_DEFAULT, MFA_PERIOD_DEFAULT, 0 }

/* ------------------------------------------------------------------ */
/* The engine: context, users, factors, sign-in                        */
/* ------------------------------------------------------------------ */

/**
 * The MFA engine on one store. An opaque handle: only pointers returned by
 * mfa_open() are valid; never allocate, copy or read one.
 * Thread-safe: one context may be shared by every thread of a process.
 */
typedef struct mfa_ctx {
    /** Not for use. */
    unsigned char opaque_reserved_;
} mfa_ctx;

/** Audit event: a second factor was enrolled. */
#define MFA_AUDIT_ENROLL 1
/** Audit event: a second factor was removed. */
#define MFA_AUDIT_UNENROLL 2
/** Audit event: a sign-in finished with a second factor. */
#define MFA_AUDIT_SIGN_IN_SUCCESS 3
/** Audit event: a second-factor attempt failed. */
#define MFA_AUDIT_SIGN_IN_FAILURE 4
/** Audit event: failures put a factor or user into backoff. */
#define MFA_AUDIT_BACKOFF 5
/** Audit event: a project or tenant configuration changed. */
#define MFA_AUDIT_CONFIG_CHANGE 6
/** Audit event: an SMS code was sent. */
#define MFA_AUDIT_SMS_SENT 7
/** Audit event: a stored value failed its integrity check (a factor row altered, or moved to another user). */
#define MFA_AUDIT_INTEGRITY_FAILURE 8
/** Audit event: the host revoked a user's credentials and tokens (mfa_revoke_tokens()). */
#define MFA_AUDIT_TOKENS_REVOKED 9
/** Audit event: an operator renamed a factor (mfa_admin_rename()). */
#define MFA_AUDIT_FACTOR_RENAMED 10
/** Audit event: an operator reset a user: every factor removed, tokens revoked (mfa_admin_reset_user()). */
#define MFA_AUDIT_USER_RESET 11
/** Audit event: an operator deleted everything stored about a user (mfa_admin_delete_user()). */
#define MFA_AUDIT_USER_DELETED 12
/** Audit event: stored secrets were re-encrypted under the current master key (mfa_rotate_keys_batched()). */
#define MFA_AUDIT_KEYS_ROTATED 13
/** Audit event: a device was remembered (mfa_device_remember()); factor_id "remembered_device", enrollment_id the device's id. */
#define MFA_AUDIT_DEVICE_REMEMBERED 16
/** Audit event: a device token given at sign-in was ignored; detail says why: DISABLED, MALFORMED, UNKNOWN, FOREIGN, TAMPERED, EXPIRED or REVOKED. */
#define MFA_AUDIT_DEVICE_REFUSED 17
/** Audit event: a remembered device was forgotten; detail says by what: OK (the user's call), ADMIN, LIMIT, TOKENS_REVOKED, LAST_FACTOR_REMOVED, USER_RESET, USER_DELETED. */
#define MFA_AUDIT_DEVICE_REVOKED 18
/** Audit event: an email code was sent (detail EMAIL_SEND_FAILED when the sender failed). */
#define MFA_AUDIT_EMAIL_SENT 19
/** Audit event: a hardware token was imported unassigned (mfa_import_pskc(), MFA_IMPORT_YUBIKEY_CSV); `detail` names its serial. */
#define MFA_AUDIT_TOKEN_IMPORTED 20
/** Audit event: a hardware token became a user's factor: assigned by an operator (mfa_admin_token_assign()) or claimed by its user (mfa_enroll() with a serial). */
#define MFA_AUDIT_TOKEN_ASSIGNED 21
/** Audit event: an HOTP token's counter was brought forward by two consecutive codes (at sign-in, or mfa_admin_hotp_resync()). */
#define MFA_AUDIT_TOKEN_RESYNCED 22
/** Audit event: an operator removed an unassigned hardware token (mfa_admin_token_remove()). */
#define MFA_AUDIT_TOKEN_REMOVED 23
/** Audit event: a user signed in with a passkey alone, both factors at once (mfa_passkey_sign_in()). */
#define MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS 24
/** Audit event: a passkey sign-in was refused (uid is "" when no credential of the tenant answered, or none that signs in). */
#define MFA_AUDIT_PASSKEY_SIGN_IN_FAILURE 25

/**
 * One audit event, passed to the host's mfa_audit_fn. Every string is
 * borrowed for the duration of the call only; none is NULL; none holds a
 * secret, a code or a token. libmfa fills it: fields are only ever added at
 * its end, so a program built against an older header reads the fields it
 * knows.
 */
typedef struct mfa_audit_event {
    /** MFA_AUDIT_*. */
    int32_t kind;
    /** The kind's name: "ENROLL", "UNENROLL", "SIGN_IN_SUCCESS", "SIGN_IN_FAILURE", "BACKOFF", "CONFIG_CHANGE", "SMS_SENT", "INTEGRITY_FAILURE", "TOKENS_REVOKED", "FACTOR_RENAMED", "USER_RESET", "USER_DELETED", "KEYS_ROTATED", "DEVICE_REMEMBERED", "DEVICE_REFUSED", "DEVICE_REVOKED", "EMAIL_SENT", "TOKEN_IMPORTED", "TOKEN_ASSIGNED", "TOKEN_RESYNCED", "TOKEN_REMOVED", "PASSKEY_SIGN_IN_SUCCESS", "PASSKEY_SIGN_IN_FAILURE". */
    const char *kind_name;
    /** The tenant, "" for the project. */
    const char *tenant;
    /** The user, or "". */
    const char *uid;
    /** The factor id ("totp", "phone", "recovery", "webauthn", "email"), "remembered_device" for a device's events, or "". */
    const char *factor_id;
    /** The factor's enrollment id (a remembered device's id), or "". */
    const char *enrollment_id;
    /** Unix time of the event. */
    int64_t time;
    /** The outcome's status name ("OK", "INVALID_VERIFICATION_CODE", ...) or other detail ("ADMIN", "IMPORTED"). */
    const char *detail;
    /** Who did it, for the administrative calls (the `actor` they were given, such as an operator's name); "" for the user's own actions. */
    const char *actor;
} mfa_audit_event;

/** Returns the current Unix time in seconds. */
typedef int64_t (*mfa_clock_fn)(void *context);
/** Fills `len` bytes at `out` with random bytes; returns 0, or non-zero on failure. */
typedef int (*mfa_random_fn)(void *context, uint8_t *out, size_t len);
/** Receives an audit event; it runs on the calling thread and must not call back into libmfa. */
typedef void (*mfa_audit_fn)(void *context, const mfa_audit_event *event);

/** Sends `message` to `phone_number` (strict E.164); returns 0 when sent, non-zero on failure (no attempt or quota is used). */
typedef int (*mfa_sms_sender_fn)(void *context, const char *phone_number, const char *message);

/** mfa_email_message purpose: proving an address being enrolled. */
#define MFA_EMAIL_ENROLLMENT 1
/** mfa_email_message purpose: signing in with an enrolled address. */
#define MFA_EMAIL_SIGN_IN 2

/**
 * An email libmfa asks the host to send (mfa_email_sender_fn). Every string
 * is borrowed for the duration of the call only. libmfa fills it: fields
 * are only ever added at its end.
 */
typedef struct mfa_email_message {
    /** The address (as enrolled: the domain in lower case). */
    const char *to;
    /** A subject line. */
    const char *subject;
    /** A plain-text body that holds the code. */
    const char *body;
    /** The code alone (six digits), for a host that writes its own message. */
    const char *code;
    /** MFA_EMAIL_ENROLLMENT or MFA_EMAIL_SIGN_IN. */
    int32_t purpose;
} mfa_email_message;

/** Sends an email code; returns 0 when sent, non-zero on failure (no attempt or quota is used). */
typedef int (*mfa_email_sender_fn)(void *context, const mfa_email_message *message);

/** App verification action: enrolling a phone number (reCAPTCHA action mfaSmsEnrollment). */
#define MFA_APP_ACTION_ENROLLMENT 1
/** App verification action: signing in with a phone factor (reCAPTCHA action mfaSmsSignIn). */
#define MFA_APP_ACTION_SIGN_IN 2
/** Checks the app credential a client sent with an SMS request; returns 0 if it is genuine, non-zero to reject it. */
typedef int (*mfa_app_verifier_fn)(void *context, const char *app_credential, int32_t action);

/** Length of a master key in bytes. */
#define MFA_MASTER_KEY_BYTES 32

/** A master key and its id (1 to 64 printable ASCII characters). */
typedef struct mfa_master_key {
    /** The key id stored beside what the key encrypts. */
    const char *id;
    /** MFA_MASTER_KEY_BYTES secret bytes. */
    const uint8_t *key;
} mfa_master_key;

/**
 * A WebAuthn attestation, as the host's mfa_webauthn_trust_fn sees it at a
 * registration, after its signature checked out. Every pointer is borrowed
 * for the duration of the call only.
 */
typedef struct mfa_webauthn_attestation {
    /** The statement format: "none", "packed", "fido-u2f", "tpm", "android-key", "apple", or another the authenticator wrote (kind "unverified"). */
    const char *format;
    /** How it was made: "none", "self" (the credential's own key), "basic" (a certificate chain: packed, fido-u2f, android-key), "attca" (a TPM's attestation CA), "anonca" (Apple's anonymization CA) or "unverified" (a format libmfa does not verify, under webauthn.attestation "none"). */
    const char *kind;
    /** The authenticator model's AAGUID, 16 bytes (zeros from U2F keys and when not attested). */
    const uint8_t *aaguid;
    /** Number of certificates (0 unless kind is "basic", "attca" or "anonca"). */
    size_t certificate_count;
    /** The certificate chain, leaf first, each DER. */
    const uint8_t *const *certificates;
    /** The length of each certificate. */
    const size_t *certificate_lengths;
    /** Non-zero if the chain leads to one of the configured webauthn.attestationRoots. */
    int32_t chain_trusted;
    /** The tenant, "" for the project. */
    const char *tenant;
    /** The user enrolling. */
    const char *uid;
} mfa_webauthn_attestation;

/**
 * Decides whether a WebAuthn attestation is trusted: returns 0 to accept the
 * credential, non-zero to refuse it (MFA_ERR_ATTESTATION_NOT_TRUSTED). It
 * runs on the calling thread and must not call back into libmfa.
 */
typedef int (*mfa_webauthn_trust_fn)(void *context, const mfa_webauthn_attestation *attestation);

/**
 * A host key provider's wrap function: wraps the data key `key` (`key_len`
 * = 32 bytes) under the host's key `label` (a cloud KMS key, a Vault transit
 * key), bound to `aad` (the data key's id), and writes at most `out_cap`
 * (4096) bytes to `out` and their number to `*out_len`. Returns MFA_OK, or
 * MFA_ERR_KEY_PROVIDER_UNAVAILABLE, MFA_ERR_KEY_PROVIDER_LOGIN or
 * MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND (any other value counts as
 * MFA_ERR_KEY_PROVIDER_UNAVAILABLE). Called by mfa_open() for a store's
 * first data key and by mfa_keys_rewrap(); it must not call back into libmfa.
 */
typedef int32_t (*mfa_key_wrap_fn)(void *context, const char *label, const uint8_t *key, size_t key_len,
                                   const uint8_t *aad, size_t aad_len, uint8_t *out, size_t out_cap,
                                   size_t *out_len);

/**
 * A host key provider's unwrap function: unwraps `wrapped` (made by the wrap
 * function under `label` with `aad`) and writes the `key_len` (32) key bytes
 * to `key`, libmfa's guarded memory. Returns as mfa_key_wrap_fn; a key that
 * does not unwrap (replaced) is MFA_ERR_KEY_MISMATCH. Called by mfa_open()
 * once per data key.
 */
typedef int32_t (*mfa_key_unwrap_fn)(void *context, const char *label, const uint8_t *wrapped,
                                     size_t wrapped_len, const uint8_t *aad, size_t aad_len, uint8_t *key,
                                     size_t key_len);

/** mfa_options.metrics: keep metrics, without a tenant label (the default). */
#define MFA_METRICS_ON 0
/** mfa_options.metrics: keep no metrics (mfa_metrics_snapshot() returns no family). */
#define MFA_METRICS_OFF 1
/** mfa_options.metrics: keep metrics, the counters labelled by tenant for at most mfa_options.metrics_tenants tenants. */
#define MFA_METRICS_BY_TENANT 2
/** mfa_options.metrics_tenants by default. */
#define MFA_METRICS_TENANTS_DEFAULT 100
/** Most tenants mfa_options.metrics_tenants may name. */
#define MFA_METRICS_TENANTS_MAX 10000

/** Version of mfa_options understood by this header (2 added webauthn_trust, 3 the metrics, audit_chain, the key provider and the email sender). */
#define MFA_OPTIONS_VERSION 3

/**
 * How to open a context. Fill with mfa_options_init() or MFA_OPTIONS_INIT,
 * then set the store and the master key. The strings and keys are copied by
 * mfa_open().
 */
typedef struct mfa_options {
    /** The struct version, set by mfa_options_init() or MFA_OPTIONS_INIT (1 to MFA_OPTIONS_VERSION). */
    uint32_t version;
    /**
     * Where the state lives: an SQLite file path, ":memory:" for a private
     * in-memory store, or a "postgres://" (or "postgresql://") URL for a
     * store shared by many servers. A PostgreSQL URL is libpq's, plus
     * libmfa's "mfa_deadline_ms" (100 to 600000, default 5000): how long a
     * call waits for the server, when connecting and for each statement,
     * before it fails with MFA_ERR_STORAGE_ERROR and drops the connection
     * (nothing half-written; the next call connects afresh); out of range or
     * not a whole number is MFA_ERR_INVALID_ARGUMENT. libpq (libpq.so.5, or
     * the file the environment variable LIBMFA_LIBPQ names) is loaded when
     * the first such store is opened; if it cannot be, mfa_open() is
     * MFA_ERR_STORAGE_ERROR naming it. A location meant for another
     * database is MFA_ERR_INVALID_ARGUMENT, never an SQLite file of that
     * name: a URL of a scheme other than "file:" ("mysql://",
     * "POSTGRES://") and a libpq keyword/value string ("host=db1,db2
     * dbname=mfa": give PostgreSQL as a URL).
     */
    const char *store;
    /** The key new secrets and tokens are protected with. */
    mfa_master_key master_key;
    /** Earlier keys, still needed to read records not yet rotated (may be NULL). */
    const mfa_master_key *previous_keys;
    /** Number of previous_keys, 0 to 64. */
    size_t previous_key_count;
    /** The clock, or NULL for the system clock. */
    mfa_clock_fn clock;
    /** Passed to clock. */
    void *clock_context;
    /** The random source for secrets, ids and codes, or NULL for libsodium's. */
    mfa_random_fn random;
    /** Passed to random. */
    void *random_context;
    /** The audit callback, or NULL. */
    mfa_audit_fn audit;
    /** Passed to audit. */
    void *audit_context;
    /** The SMS gateway, or NULL. */
    mfa_sms_sender_fn sms_sender;
    /** Passed to sms_sender. */
    void *sms_sender_context;
    /** Instead of sms_sender, a file to append each SMS to as a JSON line (development and tests), or NULL. */
    const char *sms_outbox;
    /** The app verifier for SMS requests, or NULL (then the configuration must set phone.appVerification to DISABLED). */
    mfa_app_verifier_fn app_verifier;
    /** Passed to app_verifier. */
    void *app_verifier_context;
    /**
     * Version 2. Decides which WebAuthn attestations are trusted, or NULL.
     * With it, it decides at every registration; without it, the
     * configuration does (webauthn.attestation "none" accepts every
     * statement, the others only chains that lead to webauthn.attestationRoots).
     */
    mfa_webauthn_trust_fn webauthn_trust;
    /** Version 2. Passed to webauthn_trust. */
    void *webauthn_trust_context;
    /**
     * Version 3. Which metrics the context keeps (see "Metrics" below):
     * MFA_METRICS_ON (the default), MFA_METRICS_OFF or MFA_METRICS_BY_TENANT;
     * anything else is MFA_ERR_INVALID_ARGUMENT.
     */
    int32_t metrics;
    /**
     * Version 3. With MFA_METRICS_BY_TENANT, how many tenants get series of
     * their own, 1 to MFA_METRICS_TENANTS_MAX (MFA_METRICS_TENANTS_DEFAULT);
     * the events of later tenants share the series tenant="(other)".
     * Ignored otherwise.
     */
    uint32_t metrics_tenants;
    /**
     * Version 3. The chain of the stored audit trail this context appends
     * to, when the configuration keeps the trail (auditTrail.store): 1 to 64
     * letters, digits and . _ - :, or NULL for "main". Appends to one chain
     * wait for each other (one verifiable order); servers that write many
     * events to one PostgreSQL store may each name their own.
     */
    const char *audit_chain;
    /**
     * Version 3. The PKCS#11 module of an HSM holding the key that wraps the
     * store's data keys (such as "/usr/lib/softhsm/libsofthsm2.so"), or NULL.
     * With it (or with key_wrap), master_key and previous_keys stay unset:
     * the data keys are generated by libmfa, kept wrapped in the store, and
     * unwrapped at open (docs/guides/hsm.md).
     */
    const char *hsm_module;
    /** Version 3. The label of the HSM's token, or NULL to name it by hsm_slot. */
    const char *hsm_token;
    /** Version 3. The slot id of the HSM's token when hsm_token is NULL; -1 (the default) for none. */
    int64_t hsm_slot;
    /** Version 3. The label of the AES key (in the token, or the host's) new data keys are wrapped with. */
    const char *hsm_key;
    /** Version 3. The token's user PIN, or NULL to read it from hsm_pin_file or hsm_pin_env (set one of the three). */
    const char *hsm_pin;
    /** Version 3. A file whose first line is the PIN, or NULL. */
    const char *hsm_pin_file;
    /** Version 3. An environment variable holding the PIN (read with secure_getenv), or NULL. */
    const char *hsm_pin_env;
    /** Version 3. A host key provider's wrap function (with key_unwrap and hsm_key as its label), or NULL. */
    mfa_key_wrap_fn key_wrap;
    /** Version 3. A host key provider's unwrap function, or NULL. */
    mfa_key_unwrap_fn key_unwrap;
    /** Version 3. Passed to key_wrap and key_unwrap. */
    void *key_provider_context;
    /** Version 3. The mail gateway for email codes, or NULL. */
    mfa_email_sender_fn email_sender;
    /** Version 3. Passed to email_sender. */
    void *email_sender_context;
    /** Version 3. Instead of email_sender, a file to append each email to as a JSON line (development and tests), or NULL. */
    const char *email_outbox;
} mfa_options;

/** A static initializer for mfa_options: the same as mfa_options_init(&o, MFA_OPTIONS_VERSION). */
#define MFA_OPTIONS_INIT \
    { MFA_OPTIONS_VERSION, NULL, { NULL, NULL }, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
      NULL, NULL, MFA_METRICS_ON, MFA_METRICS_TENANTS_DEFAULT, NULL, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL, \
      NULL, NULL, NULL, NULL, NULL }

/** Version of mfa_user understood by this header. */
#define MFA_USER_VERSION 1

/**
 * A user as the host knows them after the first factor. Fill with
 * mfa_user_init() or MFA_USER_INIT. Strings are borrowed for the call.
 */
typedef struct mfa_user {
    /** The struct version, set by mfa_user_init() or MFA_USER_INIT (1 to MFA_USER_VERSION). */
    uint32_t version;
    /** The user's id, 1 to 128 bytes without a control character (C0, DEL, C1, U+2028/2029, bidi overrides, U+FEFF). */
    const char *uid;
    /** The tenant, or NULL for the project; 1 to 128 bytes without a control character, as a uid. */
    const char *tenant;
    /** The email address, or NULL. */
    const char *email;
    /** Non-zero if the email address is verified. */
    int32_t email_verified;
    /** First-factor provider id: "password", "emailLink", "google.com", ... or "phone", "anonymous", "custom", "gc.apple.com". */
    const char *provider;
    /** When the user passed the first factor (Unix seconds). */
    int64_t auth_time;
} mfa_user;

/** A static initializer for mfa_user: the same as mfa_user_init(&u, MFA_USER_VERSION). */
#define MFA_USER_INIT { MFA_USER_VERSION, NULL, NULL, NULL, 0, "password", 0 }

/* ------------------------------------------------------------------ */
/* Second factors                                                      */
/* ------------------------------------------------------------------ */

/** Factor kind: a TOTP authenticator app (factor id "totp"). */
#define MFA_FACTOR_TOTP 1
/** Factor kind: SMS codes to a phone number (factor id "phone"). */
#define MFA_FACTOR_PHONE 2
/** Factor kind: a set of single-use recovery codes (factor id "recovery"). */
#define MFA_FACTOR_RECOVERY_CODES 3
/** Factor kind: a WebAuthn credential, a security key or a passkey (factor id "webauthn"). */
#define MFA_FACTOR_WEBAUTHN 4
/** Factor kind: codes sent by email to an address (factor id "email"). */
#define MFA_FACTOR_EMAIL 5
/** Factor kind: an event-based OATH token, RFC 4226 HOTP (factor id "hotp"): a button and a 6- to 8-digit code. */
#define MFA_FACTOR_HOTP 6
/** Factor kind: a YubiKey typing a Yubico OTP (factor id "yubico_otp"), checked locally with its AES key. */
#define MFA_FACTOR_YUBICO_OTP 7

/** Longest HOTP resynchronization search: two consecutive codes are looked for this many counters ahead at most. */
#define MFA_HOTP_RESYNC_MAX 10000
/** Length of the OTP a YubiKey types with the usual 12-character public id (a Yubico OTP is 32 to 64 modhex characters). */
#define MFA_YUBICO_OTP_LENGTH 44

/**
 * One enrolled second factor, of any kind. Strings are owned by the object
 * that holds this struct.
 */
typedef struct mfa_factor_info {
    /** The enrollment id (28 URL-safe characters). */
    const char *uid;
    /** The factor id: "totp", "phone", "recovery", "webauthn", "email", "hotp" or "yubico_otp". */
    const char *factor_id;
    /** The user's name for the factor, or NULL. */
    const char *display_name;
    /** Unix time of the enrollment. */
    int64_t enrollment_time;
    /** For phone factors the number (masked in hints, e.g. "+1******1234"), else NULL. */
    const char *phone_number;
    /** The kind: MFA_FACTOR_*. */
    int32_t kind;
    /** What identifies the factor to its user, filled for every kind and never secret: "authenticator app", a masked number, "7 codes left", an email factor's address (masked in hints: `j***@e******.com`). */
    const char *hint;
    /** For a recovery-code set, how many codes are left; -1 for other kinds. */
    int64_t remaining_codes;
} mfa_factor_info;

/** A list of factors, in one allocation: free with mfa_factor_list_free(). */
typedef struct mfa_factor_list {
    /** Number of items. */
    size_t count;
    /** The factors, oldest first. */
    const mfa_factor_info *items;
} mfa_factor_list;

/** A fresh TOTP secret waiting for enrollment: free with mfa_totp_secret_free(). */
typedef struct mfa_totp_secret {
    /** The secret in base32 (no padding), to show or put in a QR code. */
    const char *shared_secret_key;
    /** MFA_ALG_SHA1. */
    int32_t algorithm;
    /** Code length (6). */
    int32_t digits;
    /** Time step in seconds (30). */
    int64_t period;
    /** Unix time by which the enrollment must be finished. */
    int64_t deadline;
    /** Opaque token naming this pending enrollment; pass it to mfa_totp_enroll(). */
    const char *session_info;
} mfa_totp_secret;

/**
 * The answer to a first-factor sign-in of a user with second factors
 * (MFA_ERR_SECOND_FACTOR_REQUIRED): free with mfa_resolver_free().
 */
typedef struct mfa_resolver {
    /** The pending credential: opaque, expiring, single-use. Hand it to the client. */
    const char *session;
    /** The user signing in. */
    const char *uid;
    /** The tenant, or NULL. */
    const char *tenant;
    /** Number of hints. */
    size_t hint_count;
    /** The user's factors (phone numbers masked). */
    const mfa_factor_info *hints;
} mfa_resolver;

/** One claim of a sign-in result: a name and its value. */
typedef struct mfa_claim {
    /** The claim's name ("sign_in_second_factor", ...). */
    const char *name;
    /** Its value. */
    const char *value;
} mfa_claim;

/**
 * A finished sign-in: free with mfa_sign_in_result_free(). factor_id and
 * enrollment_id are the values of the claims sign_in_second_factor and
 * second_factor_identifier; `claims` lists those two and any the factor kind
 * adds (a recovery code adds recovery_codes_remaining, so the host can warn
 * the user and offer a new set).
 */
typedef struct mfa_sign_in_result {
    /** The user. */
    const char *uid;
    /** The tenant, or NULL. */
    const char *tenant;
    /** The factor used: "totp", "phone", "recovery", "webauthn", "email", or "remembered_device" when a remembered device stood in for it (mfa_sign_in_remembered()); NULL when no second factor was needed. */
    const char *factor_id;
    /** The enrollment id of the factor used (the device's id for "remembered_device"), or NULL. */
    const char *enrollment_id;
    /** Unix time of the sign-in. */
    int64_t time;
    /** The kind of the factor used: MFA_FACTOR_* (0 for "remembered_device" and when none was needed). */
    int32_t kind;
    /** Number of claims. */
    size_t claim_count;
    /** The claims to put in the credential the host issues. */
    const mfa_claim *claims;
} mfa_sign_in_result;

/** Version of mfa_assertion understood by this header (2 added `credential`, 3 `serial` and `next_code`). */
#define MFA_ASSERTION_VERSION 3

/**
 * Proof of a second factor, of any kind, for mfa_enroll() and mfa_resolve().
 * Fill with mfa_assertion_init() or MFA_ASSERTION_INIT, set `kind`, and the
 * fields that kind reads (the others are ignored). Strings are borrowed for
 * the call.
 *
 *   kind                         enroll (mfa_enroll)           sign in (mfa_resolve)
 *   MFA_FACTOR_TOTP              session_info, code            enrollment_id, code
 *   MFA_FACTOR_PHONE             verification_id, code         verification_id, code
 *   MFA_FACTOR_RECOVERY_CODES    (generated: mfa_recovery_codes_generate)   code, enrollment_id or NULL
 *   MFA_FACTOR_WEBAUTHN          credential                    credential, enrollment_id or NULL
 *   MFA_FACTOR_EMAIL             verification_id, code         verification_id, code
 *   MFA_FACTOR_HOTP              session_info, serial, code    enrollment_id, code
 *   MFA_FACTOR_YUBICO_OTP        session_info, code            code, enrollment_id or NULL
 *
 * An email factor may also be enrolled without a code, from the user's
 * sign-in address that the host says is verified (mfa_user.email and
 * email_verified), when the configuration sets
 * email.enrollVerifiedSignInEmail: kind MFA_FACTOR_EMAIL, session_info an
 * enrollment session (mfa_session_new()), verification_id NULL.
 *
 * Hardware tokens an operator imported unassigned are claimed by their user
 * with a code: `session_info` is then the enrollment session itself
 * (mfa_session_new()), `serial` the number printed on the token (an
 * MFA_FACTOR_TOTP assertion with a serial claims a TOTP token), `code` what
 * it shows; a YubiKey's OTP names the key itself, so it needs no serial. An
 * HOTP token pressed many times away from the server is brought back by two
 * consecutive codes, `code` then `next_code`, at sign-in or when claimed.
 */
typedef struct mfa_assertion {
    /** The struct version, set by mfa_assertion_init() or MFA_ASSERTION_INIT (1 to MFA_ASSERTION_VERSION). */
    uint32_t version;
    /** MFA_FACTOR_*. */
    int32_t kind;
    /** The factor signed in with (TOTP, HOTP; a recovery set or a YubiKey, optional). */
    const char *enrollment_id;
    /** The session_info of a TOTP secret being enrolled (mfa_totp_generate_secret()); to claim a hardware token or to enroll an email factor from the verified sign-in address, the enrollment session. */
    const char *session_info;
    /** The verification id of an SMS or email code (mfa_phone_start_enrollment(), mfa_phone_start_sign_in(), mfa_email_start_enrollment(), mfa_email_start_sign_in()). */
    const char *verification_id;
    /** The code: from the authenticator app, the SMS, the email, a hardware token, the OTP a YubiKey typed, or a recovery code as the user typed it. */
    const char *code;
    /**
     * Version 2. WebAuthn: the browser's PublicKeyCredential as JSON
     * (credential.toJSON()), from navigator.credentials.create() to enroll
     * or navigator.credentials.get() to sign in.
     */
    const char *credential;
    /** Version 3. The serial number of a hardware token an operator imported unassigned, to claim it (HOTP, TOTP). */
    const char *serial;
    /** Version 3. HOTP: the code that follows `code` on the token, to resynchronize a token pressed beyond the look-ahead window; NULL otherwise. */
    const char *next_code;
} mfa_assertion;

/** An mfa_assertion with every field empty, for `mfa_assertion a = MFA_ASSERTION_INIT;`. */
#define MFA_ASSERTION_INIT { MFA_ASSERTION_VERSION, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/**
 * A freshly generated recovery-code set: show the codes to the user once
 * (libmfa keeps only their hashes). Free with mfa_recovery_codes_free(),
 * which wipes them.
 */
typedef struct mfa_recovery_codes {
    /** Number of codes (8 to 16; 10 by default). */
    size_t count;
    /** The codes, "xxxx-xxxx-xx". */
    const char *const *codes;
    /** The set as a factor (its hint says how many codes are left). */
    mfa_factor_info factor;
} mfa_recovery_codes;

/** WebAuthn authenticator data flag: the user was present (UP). */
#define MFA_WEBAUTHN_FLAG_UP 1
/** WebAuthn authenticator data flag: the user was verified (UV). */
#define MFA_WEBAUTHN_FLAG_UV 4
/** WebAuthn authenticator data flag: the credential may be backed up, a synced passkey (BE). */
#define MFA_WEBAUTHN_FLAG_BE 8
/** WebAuthn authenticator data flag: the credential is backed up (BS). */
#define MFA_WEBAUTHN_FLAG_BS 16

/**
 * A registration verified by mfa_webauthn_verify_registration(): the new
 * credential and its attestation. One allocation: free with mfa_free().
 */
typedef struct mfa_webauthn_credential {
    /** The credential id. */
    const uint8_t *credential_id;
    /** Its length (1 to 1023). */
    size_t credential_id_len;
    /** The public key as a COSE_Key (CBOR), to keep for mfa_webauthn_verify_assertion(). */
    const uint8_t *public_key;
    /** Its length. */
    size_t public_key_len;
    /** The key's COSE algorithm: MFA_COSE_ES256, _EDDSA, _RS256, _ES384, _ES512 or _PS256. */
    int32_t algorithm;
    /** The signature counter at registration. */
    uint32_t sign_count;
    /** The authenticator data flags (MFA_WEBAUTHN_FLAG_*). */
    uint32_t flags;
    /** The AAGUID, 16 bytes. */
    const uint8_t *aaguid;
    /** The attestation format: "none", "packed", "fido-u2f", "tpm", "android-key" or "apple". */
    const char *format;
    /** How it was attested: "none", "self", "basic", "attca" (tpm) or "anonca" (apple). */
    const char *attestation_kind;
    /** Number of certificates of a "basic", "attca" or "anonca" attestation. */
    size_t certificate_count;
    /** The chain, leaf first, each DER (not checked against any root here). */
    const uint8_t *const *certificates;
    /** The length of each certificate. */
    const size_t *certificate_lengths;
} mfa_webauthn_credential;

/** The factor id of a sign-in that a remembered device finished (mfa_sign_in_result.factor_id, claim sign_in_second_factor). */
#define MFA_REMEMBERED_DEVICE_FACTOR_ID "remembered_device"

/**
 * A remembered device: a device where its user passed a second factor and
 * asked to be remembered (mfa_device_remember()). Strings are owned by the
 * object that holds this struct.
 */
typedef struct mfa_remembered_device {
    /** The device's id (22 URL-safe characters; not secret: the token is). */
    const char *device_id;
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** The user. */
    const char *uid;
    /** The host's name for the device ("Firefox on Linux"), or NULL. */
    const char *label;
    /** Unix time it was remembered. */
    int64_t created_at;
    /** Unix time its token last stood in for a second factor (created_at until then). */
    int64_t last_used_at;
    /** Unix time it stops being remembered, unless used before (sliding) or revoked. */
    int64_t expires_at;
} mfa_remembered_device;

/** A user's remembered devices, in one allocation: free with mfa_remembered_device_list_free(). */
typedef struct mfa_remembered_device_list {
    /** Number of devices. */
    size_t count;
    /** The devices, the most recently used first. */
    const mfa_remembered_device *items;
} mfa_remembered_device_list;

/**
 * A device token and the device it names (mfa_device_remember()), in one
 * allocation: free with mfa_device_token_free(), which wipes the token.
 */
typedef struct mfa_device_token {
    /** The token: opaque, secret, long-lived. Hand it to the device alone (an HttpOnly cookie, a keychain). */
    const char *token;
    /** The device. */
    mfa_remembered_device device;
} mfa_device_token;

/** COSE algorithm: ECDSA P-256 with SHA-256, what nearly every authenticator makes. */
#define MFA_COSE_ES256 (-7)
/** COSE algorithm: EdDSA with Ed25519. */
#define MFA_COSE_EDDSA (-8)
/** COSE algorithm: RSASSA-PKCS1-v1_5 with SHA-256 (Windows Hello). */
#define MFA_COSE_RS256 (-257)
/** COSE algorithm: ECDSA P-384 with SHA-384. */
#define MFA_COSE_ES384 (-35)
/** COSE algorithm: ECDSA P-521 with SHA-512. */
#define MFA_COSE_ES512 (-36)
/** COSE algorithm: RSASSA-PSS with SHA-256. */
#define MFA_COSE_PS256 (-37)
/** The most algorithms an mfa_webauthn_options lists. */
#define MFA_WEBAUTHN_ALGORITHMS_MAX 6

/** Version of mfa_webauthn_options understood by this header. */
#define MFA_WEBAUTHN_OPTIONS_VERSION 1

/**
 * What a relying party asks of the authenticator for one ceremony, over the
 * configuration's webauthn section: the fields WebAuthn lets a page choose
 * per call. Fill with mfa_webauthn_options_init() or
 * MFA_WEBAUTHN_OPTIONS_INIT (every field "as configured"), then set what
 * differs. Strings are borrowed for the call.
 *
 * User verification only ever tightens: when the configuration requires
 * it, a call cannot ask for less. What a registration asked for is sealed
 * in its challenge and checked when it finishes (the UV flag, a
 * discoverable credential, an offered algorithm).
 */
typedef struct mfa_webauthn_options {
    /** The struct version, set by mfa_webauthn_options_init() or MFA_WEBAUTHN_OPTIONS_INIT (1 to MFA_WEBAUTHN_OPTIONS_VERSION). */
    uint32_t version;
    /** Registration: "platform" (built into the device) or "cross-platform" (a security key, a phone), or NULL for any. */
    const char *authenticator_attachment;
    /** "required", "preferred" or "discouraged", or NULL for webauthn.userVerification. */
    const char *user_verification;
    /** Registration: "required" (a passkey), "preferred" or "discouraged", or NULL for webauthn.residentKey. */
    const char *resident_key;
    /** WebAuthn Level 3 hints, comma-separated, most likely first: "security-key", "client-device", "hybrid"; NULL or "" for none. */
    const char *hints;
    /** Registration: the COSE algorithms offered (MFA_COSE_*), most preferred first, or NULL for all of them. */
    const int32_t *algorithms;
    /** Number of algorithms, 1 to MFA_WEBAUTHN_ALGORITHMS_MAX when algorithms is not NULL. */
    size_t algorithm_count;
} mfa_webauthn_options;

/** A static initializer for mfa_webauthn_options: the same as mfa_webauthn_options_init(&o, MFA_WEBAUTHN_OPTIONS_VERSION). */
#define MFA_WEBAUTHN_OPTIONS_INIT { MFA_WEBAUTHN_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0 }

/**
 * One WebAuthn credential of a user (mfa_webauthn_credentials_list()):
 * whether it is a passkey that signs in without a password, whether it is
 * synced, how it was attested.
 */
typedef struct mfa_webauthn_credential_info {
    /** The factor's enrollment id. */
    const char *enrollment_id;
    /** The user's name for it, or NULL. */
    const char *display_name;
    /** Unix time of the registration. */
    int64_t enrollment_time;
    /** The credential id. */
    const uint8_t *credential_id;
    /** Its length. */
    size_t credential_id_len;
    /** Its COSE algorithm (MFA_COSE_*). */
    int32_t algorithm;
    /** The AAGUID, 16 bytes (zeros when not attested). */
    const uint8_t *aaguid;
    /** The transports the browser reported, comma-separated ("usb,nfc", "internal,hybrid"), or "". */
    const char *transports;
    /** 1 if discoverable (credProps.rk), 0 if not, -1 when the browser did not say. */
    int32_t discoverable;
    /** Non-zero if the authenticator verified the user at registration. */
    int32_t user_verified;
    /** The authenticator data flags as last seen: MFA_WEBAUTHN_FLAG_BE and MFA_WEBAUTHN_FLAG_BS. */
    uint32_t backup_flags;
    /** Non-zero for a passkey that signs in without a password: discoverable and registered with user verification. */
    int32_t passkey;
    /** What the backup flags say: "synced passkey" (BE) or "device-bound key". */
    const char *backup;
    /** The signature counter as last seen. */
    int64_t sign_count;
    /** The attestation format ("none", "packed", "tpm", ...). */
    const char *attestation_format;
    /** How it was attested ("none", "self", "basic", "attca", "anonca", "unverified"). */
    const char *attestation_kind;
    /** Unix time of its last sign-in, 0 if never. */
    int64_t last_used_at;
} mfa_webauthn_credential_info;

/** A user's WebAuthn credentials, in one allocation: free with mfa_free(). */
typedef struct mfa_webauthn_credential_list {
    /** Number of items. */
    size_t count;
    /** The credentials, oldest first. */
    const mfa_webauthn_credential_info *items;
} mfa_webauthn_credential_list;

/** mfa_qr_encode() format: a PNG image. */
#define MFA_QR_PNG 1
/** mfa_qr_encode() format: an SVG document (UTF-8 text). */
#define MFA_QR_SVG 2
/** mfa_qr_encode() format: UTF-8 half-block text for a terminal. */
#define MFA_QR_TEXT 3

/* ------------------------------------------------------------------ */
/* Administration: users, factors, imports, keys                       */
/* ------------------------------------------------------------------ */

/**
 * Longest `actor` of an administrative call, in bytes. The operator's calls
 * (mfa_admin_*, mfa_import*, mfa_rotate_keys_batched, mfa_check_seals) need
 * no user sign-in: the host decides who may make them. Each one that changes
 * something takes an `actor`, 1 to MFA_ACTOR_MAX_BYTES bytes (such as an
 * operator's name), that its audit events carry (mfa_audit_event.actor).
 */
#define MFA_ACTOR_MAX_BYTES 256
/** Most users on one page of mfa_admin_list_users(). */
#define MFA_ADMIN_PAGE_MAX 1000
/** mfa_admin_user_factors() and mfa_admin_factor_get() flag: show phone numbers and email addresses in full (masked by default, as in hints). */
#define MFA_ADMIN_SHOW_PHONE_NUMBERS 1

/** How many factors of one kind a user, or a tenant, has. */
typedef struct mfa_factor_count {
    /** The factor id: "totp", "phone" or "recovery". */
    const char *factor_id;
    /** The kind: MFA_FACTOR_*. */
    int32_t kind;
    /** How many. */
    int64_t count;
} mfa_factor_count;

/** A user who has second factors, as mfa_admin_list_users() lists them. */
typedef struct mfa_admin_user {
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** The user's id. */
    const char *uid;
    /** Every factor of the user, of any kind. */
    int64_t factor_total;
    /** Number of kinds. */
    size_t kind_count;
    /** The user's factors counted per kind, in factor-id order. */
    const mfa_factor_count *kinds;
} mfa_admin_user;

/** One page of users, in one allocation: free with mfa_admin_user_page_free(). */
typedef struct mfa_admin_user_page {
    /** Number of users. */
    size_t count;
    /** The users, ordered by tenant (the project first) then uid. */
    const mfa_admin_user *users;
    /** Pass it to mfa_admin_list_users() for the next page; NULL when this page is the last. */
    const char *next_cursor;
} mfa_admin_user_page;

/** A factor and who has it, in one allocation: free with mfa_admin_factor_free(). */
typedef struct mfa_admin_factor {
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** The user who has the factor. */
    const char *uid;
    /** The factor (its phone number masked unless MFA_ADMIN_SHOW_PHONE_NUMBERS was given). */
    mfa_factor_info info;
} mfa_admin_factor;

/** One tenant's count of one factor kind (mfa_admin_stats). */
typedef struct mfa_admin_stats_row {
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** The factor id. */
    const char *factor_id;
    /** The kind: MFA_FACTOR_*. */
    int32_t kind;
    /** Factors of this kind in this tenant. */
    int64_t factors;
    /** Users with at least one factor of this kind in this tenant. */
    int64_t users;
} mfa_admin_stats_row;

/** One tenant's users with factors (mfa_admin_stats). */
typedef struct mfa_admin_tenant_users {
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** Users with at least one factor. */
    int64_t users;
} mfa_admin_tenant_users;

/** What the store holds, counted per tenant and kind, in one allocation: free with mfa_admin_stats_free(). */
typedef struct mfa_admin_stats {
    /** Number of rows. */
    size_t row_count;
    /** Per tenant (the project first) and factor id. */
    const mfa_admin_stats_row *rows;
    /** Number of tenants. */
    size_t tenant_count;
    /** Users with factors per tenant (the project first). */
    const mfa_admin_tenant_users *tenants;
    /** Users with at least one factor, over every tenant. */
    int64_t total_users;
    /** Factors, over every tenant and kind. */
    int64_t total_factors;
} mfa_admin_stats;

/** mfa_import() format: `otpauth://totp/...` key URIs, one per line; the account name is the uid, the issuer the factor's name. */
#define MFA_IMPORT_OTPAUTH 1
/** mfa_import() format: a pam_oath / liboath users file (`HOTP/T30/6 alice - <hex secret>`). */
#define MFA_IMPORT_USERS_FILE 2
/** mfa_import() format: CSV `uid,secret,issuer,digits,period,algorithm,email` (base32 secret; a header line, blank fields and quoted fields allowed; an email field imports the address as an email factor, beside the secret or alone). */
#define MFA_IMPORT_CSV 3
/**
 * mfa_import() format: the CSV lines YubiKeys are programmed with, stored
 * as unassigned Yubico OTP tokens: the YubiKey Manager's (`ykman otp yubiotp
 * --config-output`: serial, public id, private id, AES key, access code, time)
 * and the YubiKey Personalization Tool's log (`Yubico OTP,time,slot,public
 * id,private id,AES key,...`, whose tokens are known by their public id).
 */
#define MFA_IMPORT_YUBIKEY_CSV 4

/** Import outcome: a factor (or a recovery code) was stored. */
#define MFA_IMPORT_IMPORTED 1
/** Import outcome: the user already has a factor with this secret (a re-run); nothing was stored. */
#define MFA_IMPORT_ALREADY_IMPORTED 2
/** Import outcome: the line is valid but names something libmfa does not do (a key of an unknown algorithm); nothing was stored. */
#define MFA_IMPORT_UNSUPPORTED 3
/** Import outcome: the line is malformed or was refused (the reason says why); nothing was stored. */
#define MFA_IMPORT_FAILED 4
/** Import outcome: how a setting maps onto libmfa (a google-authenticator option line). */
#define MFA_IMPORT_NOTE 5

/** Longest text an import reads, in bytes (1 GiB). */
#define MFA_IMPORT_MAX_BYTES 1073741824
/** Lines per transaction of an import, by default. */
#define MFA_IMPORT_BATCH_DEFAULT 500
/** Most lines per transaction of an import. */
#define MFA_IMPORT_BATCH_MAX 1000

/**
 * What an import did with one line, passed to the host's mfa_import_report_fn.
 * Every string is borrowed for the duration of the call only. Nothing secret
 * is in it: no secret, no code, not the line's text.
 */
typedef struct mfa_import_line {
    /** The line number, from 1. */
    int64_t line;
    /** The user the line is about, or NULL when it could not be read or may be a secret (a swapped column). */
    const char *uid;
    /** MFA_IMPORT_IMPORTED, _ALREADY_IMPORTED, _UNSUPPORTED, _FAILED or _NOTE. */
    int32_t outcome;
    /** The outcome's name: "IMPORTED", "ALREADY_IMPORTED", "UNSUPPORTED", "FAILED", "NOTE". */
    const char *outcome_name;
    /** Why, in words, for people (never NULL). */
    const char *reason;
    /** The factor stored or found, or NULL. */
    const char *enrollment_id;
    /** The serial number of the hardware token the line is about (stored unassigned, or assigned to `uid`), or NULL. */
    const char *serial;
} mfa_import_line;

/** Receives the report of one line of an import, in line order; it runs on the calling thread and must not call back into libmfa. */
typedef void (*mfa_import_report_fn)(void *context, const mfa_import_line *line);
/** Receives the progress of a long call after each batch: `done` of `total` (lines, or records); returns 0 to go on, non-zero to stop before the next batch. It runs on the calling thread and must not call back into libmfa. */
typedef int (*mfa_progress_fn)(void *context, int64_t done, int64_t total);

/** Version of mfa_import_options understood by this header. */
#define MFA_IMPORT_OPTIONS_VERSION 1

/**
 * How to import (mfa_import(), mfa_import_google_authenticator()). Fill with
 * mfa_import_options_init() or MFA_IMPORT_OPTIONS_INIT, then set `actor`.
 * Strings are borrowed for the call.
 */
typedef struct mfa_import_options {
    /** The struct version, set by mfa_import_options_init() or MFA_IMPORT_OPTIONS_INIT (1 to MFA_IMPORT_OPTIONS_VERSION). */
    uint32_t version;
    /** Who runs the import, for the audit events: 1 to MFA_ACTOR_MAX_BYTES bytes (required). */
    const char *actor;
    /** The tenant of every user in the text, or NULL for the project. */
    const char *tenant;
    /** Lines per transaction, 1 to MFA_IMPORT_BATCH_MAX (MFA_IMPORT_BATCH_DEFAULT). */
    int32_t batch_size;
    /** Called for each line that has something to report (every line but blank lines, comments and a CSV header), or NULL. */
    mfa_import_report_fn report;
    /** Passed to report. */
    void *report_context;
    /** Called after each batch with the lines done and the lines in all (not for google-authenticator files), or NULL. */
    mfa_progress_fn progress;
    /** Passed to progress. */
    void *progress_context;
} mfa_import_options;

/** A static initializer for mfa_import_options: the same as mfa_import_options_init(&o, MFA_IMPORT_OPTIONS_VERSION). */
#define MFA_IMPORT_OPTIONS_INIT \
    { MFA_IMPORT_OPTIONS_VERSION, NULL, NULL, MFA_IMPORT_BATCH_DEFAULT, NULL, NULL, NULL, NULL }

/** The totals of an import, filled by mfa_import() and mfa_import_google_authenticator(). */
typedef struct mfa_import_summary {
    /** Lines read (blank lines and comments included). */
    int64_t lines;
    /** Factors stored, and hardware tokens stored unassigned. */
    int64_t imported;
    /** Lines whose factor the user already had. */
    int64_t already_imported;
    /** Lines naming something libmfa does not do. */
    int64_t unsupported;
    /** Malformed or refused lines. */
    int64_t failed;
    /** Recovery codes stored (google-authenticator scratch codes). */
    int64_t recovery_codes;
    /** Whether the progress callback stopped the import (the batches before are stored; run it again to go on). */
    bool stopped;
} mfa_import_summary;

/** Longest key mfa_import_pskc() takes for a file encrypted with a pre-shared key, in bytes (AES-256). */
#define MFA_PSKC_KEY_MAX_BYTES 32

/** Version of mfa_token_seed understood by this header. */
#define MFA_TOKEN_SEED_VERSION 1

/**
 * One hardware token's seed, for mfa_token_import(). Fill with
 * mfa_token_seed_init() or MFA_TOKEN_SEED_INIT, set `kind` and the fields
 * that kind reads. Pointers are borrowed for the call.
 */
typedef struct mfa_token_seed {
    /** The struct version, set by mfa_token_seed_init() or MFA_TOKEN_SEED_INIT (1 to MFA_TOKEN_SEED_VERSION). */
    uint32_t version;
    /** MFA_FACTOR_HOTP, MFA_FACTOR_TOTP or MFA_FACTOR_YUBICO_OTP. */
    int32_t kind;
    /** HOTP and TOTP: the HMAC key (10 to 128 bytes); Yubico OTP: the AES-128 key (16 bytes). */
    const uint8_t *secret;
    /** Length of secret in bytes. */
    size_t secret_len;
    /** HOTP and TOTP: MFA_ALG_SHA1, MFA_ALG_SHA256 or MFA_ALG_SHA512. */
    int32_t algorithm;
    /** HOTP and TOTP: 6 to 8. */
    int32_t digits;
    /** TOTP: the time step in seconds, 1 to MFA_PERIOD_MAX. */
    int64_t period;
    /** HOTP: the counter of the token's next code (0 for a new token). */
    uint64_t counter;
    /** The token's own window (TOTP: +/- steps, HOTP: look-ahead), 0 to MFA_WINDOW_MAX, or -1 for the default. */
    int32_t window;
    /** The serial number (1 to 64 printable ASCII characters, no space), or NULL; needed to import it unassigned. */
    const char *serial;
    /** Yubico OTP: the public id, modhex (2 to 32 characters). */
    const char *public_id;
    /** Yubico OTP: the private id (6 bytes). */
    const uint8_t *private_id;
    /** Length of private_id in bytes. */
    size_t private_id_len;
} mfa_token_seed;

/** A static initializer for mfa_token_seed: the same as mfa_token_seed_init(&s, MFA_TOKEN_SEED_VERSION). */
#define MFA_TOKEN_SEED_INIT \
    { MFA_TOKEN_SEED_VERSION, 0, NULL, 0, MFA_ALG_SHA1, MFA_DIGITS_DEFAULT, MFA_PERIOD_DEFAULT, 0, -1, NULL, NULL, NULL, 0 }

/** mfa_import_pskc() flag: store every key unassigned, whatever its UserId says. */
#define MFA_PSKC_IGNORE_USERS 1

/** A hardware token as mfa_admin_tokens_list() lists it. */
typedef struct mfa_token {
    /** The serial number (a Yubico OTP token without one: its public id). */
    const char *serial;
    /** What it makes: "hotp", "totp" or "yubico_otp". */
    const char *factor_id;
    /** The kind: MFA_FACTOR_*. */
    int32_t kind;
    /** The tenant, or NULL for the project. */
    const char *tenant;
    /** A Yubico OTP token's public id (modhex), else NULL. */
    const char *public_id;
    /** The issuer or manufacturer the import named, or NULL. */
    const char *issuer;
    /** The user who has it as a factor, or NULL while it is unassigned. */
    const char *uid;
    /** The factor it became, or NULL while it is unassigned. */
    const char *enrollment_id;
    /** Unix time of the import (unassigned) or of the enrollment (assigned). */
    int64_t time;
} mfa_token;

/** One page of tokens, in one allocation: free with mfa_token_list_free(). */
typedef struct mfa_token_list {
    /** Number of tokens. */
    size_t count;
    /** The tokens, by tenant (the project first) then serial. */
    const mfa_token *items;
    /** Pass it to mfa_admin_tokens_list() for the next page; NULL when this page is the last. */
    const char *next_cursor;
} mfa_token_list;

/** mfa_admin_tokens_list() flag: list the tokens that are users' factors too (by default only the unassigned). */
#define MFA_TOKENS_ASSIGNED 1

/** Most records per batch of mfa_rotate_keys_batched() and mfa_check_seals(). */
#define MFA_ROTATION_BATCH_MAX 10000

/** How a batched key rotation ended (mfa_rotate_keys_batched()). */
typedef struct mfa_rotation_result {
    /** Records re-encrypted by this run. */
    int64_t rotated;
    /** Records still not under the current key (0 when it finished; after a stop, what the next run will do). */
    int64_t remaining;
    /** Whether the progress callback stopped the run before the end. */
    bool stopped;
} mfa_rotation_result;

/** What mfa_check_seals() found, in one allocation: free with mfa_seal_check_free(). */
typedef struct mfa_seal_check {
    /** Sealed records read. */
    int64_t checked;
    /** Records that did not open with the keys given (their key is missing, or they were altered or moved). */
    int64_t failed;
    /** Number of failed_ids (at most 100). */
    size_t failed_id_count;
    /** The ids of the first records that did not open. */
    const char *const *failed_ids;
    /** Whether the progress callback stopped the check before the end. */
    bool stopped;
} mfa_seal_check;

/* ------------------------------------------------------------------ */
/* The stored audit trail                                              */
/* ------------------------------------------------------------------ */

/** Most records one mfa_trail_read() returns. */
#define MFA_TRAIL_READ_MAX 10000
/** Version of mfa_trail_query understood by this header. */
#define MFA_TRAIL_QUERY_VERSION 1

/**
 * Which stored audit events mfa_trail_read() reads. Fill with
 * mfa_trail_query_init() or MFA_TRAIL_QUERY_INIT (every event, the earliest
 * 100), then set the filters wanted. Strings are borrowed for the call.
 */
typedef struct mfa_trail_query {
    /** The struct version, set by mfa_trail_query_init() or MFA_TRAIL_QUERY_INIT (1 to MFA_TRAIL_QUERY_VERSION). */
    uint32_t version;
    /** Only this tenant's events ("" for the project's), or NULL for every tenant. */
    const char *tenant;
    /** Only events about this user, or NULL. */
    const char *uid;
    /** Only events of this kind (MFA_AUDIT_*), or 0 for every kind. */
    int32_t kind;
    /** Only events of this kind name ("SIGN_IN_FAILURE"; for kinds newer than this header), or NULL. */
    const char *kind_name;
    /** Only events at or after this Unix time (INT64_MIN: no bound). */
    int64_t since;
    /** Only events before this Unix time (INT64_MAX: no bound). */
    int64_t until;
    /** Only this chain's events, in the order of their numbers, or NULL for every chain (by time, chain, number). */
    const char *chain;
    /** With `chain`: only events numbered after this one (0: from the first). Without: with after_chain, the number of the last event of the previous page. */
    int64_t after_seq;
    /** Without `chain`: the time of the last event of the previous page (with after_chain). */
    int64_t after_time;
    /** Without `chain`: the chain of the last event of the previous page, or NULL for the first page. */
    const char *after_chain;
    /** At most this many records, 1 to MFA_TRAIL_READ_MAX (100). */
    int32_t limit;
    /** Non-zero: the latest `limit` events instead of the earliest (still returned oldest first). */
    int32_t latest;
} mfa_trail_query;

/** A static initializer for mfa_trail_query: the same as mfa_trail_query_init(&q, MFA_TRAIL_QUERY_VERSION). */
#define MFA_TRAIL_QUERY_INIT \
    { MFA_TRAIL_QUERY_VERSION, NULL, NULL, 0, NULL, INT64_MIN, INT64_MAX, NULL, 0, 0, NULL, 100, 0 }

/** One stored audit event. */
typedef struct mfa_trail_record {
    /** The chain it is in. */
    const char *chain;
    /** Its number in the chain, from 1. */
    int64_t seq;
    /** The id of the master key its MAC was made with. */
    const char *key_id;
    /** The event; `kind` is 0 for a kind this library does not know (`kind_name` names it). */
    mfa_audit_event event;
} mfa_trail_record;

/** Stored audit events, oldest first, in one allocation: free with mfa_trail_record_list_free(). */
typedef struct mfa_trail_record_list {
    /** Number of records. */
    size_t count;
    /** The records. */
    const mfa_trail_record *records;
} mfa_trail_record_list;

/** What mfa_trail_verify() found in one chain. */
typedef struct mfa_trail_chain_report {
    /** The chain's name. */
    const char *chain;
    /** The first event kept (the anchor, after purges). */
    int64_t anchor_seq;
    /** The last event, as the chain's head says. */
    int64_t head_seq;
    /** Events whose MAC and link were checked. */
    int64_t verified;
    /** Events not checked: their key is not among the context's keys. */
    int64_t unchecked;
    /** Number of missing_keys. */
    size_t missing_key_count;
    /** The ids of the keys the unchecked events (or the head) were MACed with. */
    const char *const *missing_keys;
    /** Whether the chain breaks. */
    bool broken;
    /** Where it breaks: the first event missing, altered, inserted or out of place (0 if whole). */
    int64_t broken_at;
    /** What is wrong there, or NULL if whole. */
    const char *problem;
} mfa_trail_chain_report;

/** What mfa_trail_verify() found, in one allocation: free with mfa_trail_verification_free(). */
typedef struct mfa_trail_verification {
    /** Whether every chain is whole. */
    bool intact;
    /** Events checked, over every chain. */
    int64_t verified;
    /** Events not checked for want of their key, over every chain. */
    int64_t unchecked;
    /** Number of chains. */
    size_t chain_count;
    /** Each chain, by name. */
    const mfa_trail_chain_report *chains;
} mfa_trail_verification;

/* ------------------------------------------------------------------ */
/* Metrics                                                             */
/* ------------------------------------------------------------------ */

/**
 * mfa_metric_family.type: a counter (mfa_metric_sample.value only goes up).
 * A context keeps counters and latency histograms of its sign-ins,
 * enrollments, code sends, backoffs and store operations (unless opened
 * with MFA_METRICS_OFF), counted with atomic additions from the context's
 * opening. mfa_metrics_snapshot() reads them as structs;
 * mfa_metrics_prometheus() writes them in Prometheus' text exposition
 * format, for a /metrics endpoint. The metrics, their labels and what to
 * alert on are in the documentation's metrics guide.
 */
#define MFA_METRIC_COUNTER 1
/** mfa_metric_family.type: a histogram (value is the count, with sum and buckets). */
#define MFA_METRIC_HISTOGRAM 2

/** One label of a series: a name and its value. */
typedef struct mfa_metric_label {
    /** The label's name: "kind", "outcome", "tenant", ... */
    const char *name;
    /** Its value. */
    const char *value;
} mfa_metric_label;

/** One bucket of a histogram series. */
typedef struct mfa_metric_bucket {
    /** The upper bound, in seconds; the last bucket's is INFINITY ("+Inf"). */
    double upper_bound;
    /** Observations at most upper_bound (cumulative). */
    uint64_t count;
} mfa_metric_bucket;

/** One series of a metric family. */
typedef struct mfa_metric_sample {
    /** Number of labels. */
    size_t label_count;
    /** The labels, in a fixed order. */
    const mfa_metric_label *labels;
    /** A counter's value; a histogram's count of observations. */
    uint64_t value;
    /** A histogram's sum of observations, in seconds; 0 for a counter. */
    double sum;
    /** Number of buckets (0 for a counter). */
    size_t bucket_count;
    /** A histogram's buckets, by upper bound, the last one +Inf. */
    const mfa_metric_bucket *buckets;
} mfa_metric_sample;

/** One metric: a name, a help text, a type and its series. */
typedef struct mfa_metric_family {
    /** The name, "libmfa_..." (a counter's ends in _total, a duration's in _seconds). */
    const char *name;
    /** What it counts, in one sentence. */
    const char *help;
    /** MFA_METRIC_COUNTER or MFA_METRIC_HISTOGRAM. */
    int32_t type;
    /** Number of series. */
    size_t sample_count;
    /** The series. */
    const mfa_metric_sample *samples;
} mfa_metric_family;

/** A context's metrics at one moment, in one allocation: free with mfa_metrics_free(). */
typedef struct mfa_metrics {
    /** Number of families (0 when the context keeps no metrics). */
    size_t family_count;
    /** The families, in a fixed order. */
    const mfa_metric_family *families;
} mfa_metrics;

#endif /* MFA_TYPES_H */
