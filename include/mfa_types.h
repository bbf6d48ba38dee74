/*
 * mfa_types.h: the hand-written part of libmfa's C interface.
 *
 * It holds the version macros, the status codes, the algorithm and limit
 * constants and the plain C structs that the functions in mfa.h take and
 * return. mfa.h includes it; C programs include mfa.h only.
 *
 * Thread safety: every type here is plain data; a struct is safe to share
 * between threads as long as nobody writes to it.
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
/** Minor version: new functions, same ABI. */
#define MFA_VERSION_MINOR 1
/** Patch version: fixes only. */
#define MFA_VERSION_PATCH 0
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define MFA_VERSION_STRING "0.1.0"
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
    MFA_ERR_INTERNAL = -27
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
 * How a TOTP code is computed. Fill it with mfa_totp_params_init() and change
 * what differs; functions that take it accept NULL for the defaults
 * (SHA1, 6 digits, 30 s, T0 = 0).
 */
typedef struct mfa_totp_params {
    /** Must be MFA_TOTP_PARAMS_VERSION. */
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

/** Version of mfa_key_uri understood by this header. */
#define MFA_KEY_URI_VERSION 1

/**
 * An otpauth:// key URI (the Google Authenticator key URI format), as plain
 * fields. Filled by the caller for mfa_key_uri_build() (start from
 * mfa_key_uri_init()), or returned by mfa_key_uri_parse(), in which case every
 * pointer points into the same allocation, released by mfa_key_uri_free().
 */
typedef struct mfa_key_uri {
    /** Must be MFA_KEY_URI_VERSION. */
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

#endif /* MFA_TYPES_H */
