/*
 * pam_mfa.c: a PAM authentication module for a second factor kept by
 * libmfa, on its public C API only.
 *
 * The user has passed the first factor (the module before this one, usually
 * pam_unix). The module reports that to libmfa (mfa_sign_in, provider
 * "password"), asks for the code through the PAM conversation and resolves
 * the sign-in with it (mfa_resolve): a TOTP code against the user's
 * authenticator apps, an HOTP code against their tokens (two codes apart by a
 * space resynchronize a token pressed away from the server), the OTP a
 * YubiKey types when touched (told apart by its shape: 32 to 64 modhex
 * characters, 44 as YubiKeys ship), or a recovery code (xxxx-xxxx-xx)
 * against their set.
 * libmfa's store gives replay protection across processes and servers, and
 * backoff after failed attempts. Options and return codes: the
 * documentation site's "PAM and sshd" guide, docs/guides/pam.md, and
 * pam_mfa(8).
 *
 * forward_pass judges the code before the next module checks the password,
 * so a wrong password with a guessed code counts toward the user's backoff.
 * With defer_code the forward_pass line only splits the line and keeps the
 * code (pam_set_data); a use_deferred_code line placed after the password's
 * module judges it, so only someone who knows the password is counted.
 */
#define _GNU_SOURCE
#define PAM_SM_AUTH
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "code_input.h"
#include "mfa.h"
#include "module_options.h"
#include "store_open.h"

/* One authentication: the handle, the options and the user. */
typedef struct attempt {
    pam_handle_t *pamh;
    int flags;
    mfa_pam_options options;
    const char *user;
} attempt;

/* The pam_set_data name of the code a defer_code line keeps for a use_deferred_code line. */
#define DEFERRED_CODE "pam_mfa_deferred_code"
/* Longest line kept: a password and a code. */
#define DEFERRED_CODE_MAX 1024

#define DEBUG(a, ...) \
    do { \
        if ((a)->options.debug) pam_syslog((a)->pamh, LOG_DEBUG, __VA_ARGS__); \
    } while (0)

/* Frees a string the user typed, wiping it first. */
static void wipe_free(char *text) {
    if (!text) return;
    explicit_bzero(text, strlen(text));
    free(text);
}

/* Asks through the conversation; *out is the answer, to free with wipe_free. No answer
 * at all (the client gave none) is PAM_CONV_ERR. */
static int ask(attempt *a, const char *prompt, int echo, char **out) {
    char *answer = NULL;
    *out = NULL;
    int rc = pam_prompt(a->pamh, echo ? PAM_PROMPT_ECHO_ON : PAM_PROMPT_ECHO_OFF, &answer, "%s", prompt);
    if (rc != PAM_SUCCESS) {
        wipe_free(answer);
        DEBUG(a, "user %s: the conversation failed: %s", a->user, pam_strerror(a->pamh, rc));
        return rc == PAM_BUF_ERR ? PAM_BUF_ERR : PAM_CONV_ERR;
    }
    if (!answer) {
        DEBUG(a, "user %s: no answer to the prompt", a->user);
        return PAM_CONV_ERR;
    }
    *out = answer;
    return PAM_SUCCESS;
}

/* pam_set_data's cleanup of a kept code. */
static void wipe_deferred(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    wipe_free(data);
}

/* defer_code: keeps `code` for a later use_deferred_code line. */
static int keep_code(attempt *a, const char *code) {
    size_t length = strnlen(code, DEFERRED_CODE_MAX);
    char *copy = malloc(length + 1);
    if (!copy) return PAM_BUF_ERR;
    memcpy(copy, code, length);
    copy[length] = '\0';
    int rc = pam_set_data(a->pamh, DEFERRED_CODE, copy, wipe_deferred);
    if (rc != PAM_SUCCESS) {
        wipe_free(copy);
        return rc;
    }
    DEBUG(a, "user %s: code kept for a use_deferred_code line", a->user);
    return PAM_IGNORE;
}

/* use_deferred_code: takes the code a defer_code line kept into `out` (and forgets it there);
 * 0, or -1 if none was kept. */
static int take_code(attempt *a, char *out, size_t size) {
    const void *data = NULL;
    if (pam_get_data(a->pamh, DEFERRED_CODE, &data) != PAM_SUCCESS || !data) return -1;
    snprintf(out, size, "%s", (const char *)data);
    pam_set_data(a->pamh, DEFERRED_CODE, NULL, NULL);
    return 0;
}

/* forward_pass: asks for password and code on one line (the code is the
 * last digits= characters, a recovery code, or a YubiKey's OTP). The password
 * (the line up to the code, or all of it when `has_code` is 0) becomes
 * PAM_AUTHTOK for the next module; *code points into *line. */
static int ask_forwarded(attempt *a, int has_code, int recovery, int yubikey, char **line, const char **code) {
    const char *prompt = a->options.prompt ? a->options.prompt : MFA_PAM_DEFAULT_FORWARD_PROMPT;
    int rc = ask(a, prompt, 0, line);
    if (rc != PAM_SUCCESS) return rc;
    size_t offset = has_code ? mfa_pam_code_offset(*line, recovery, yubikey, (size_t)a->options.digits)
                             : strlen(*line);
    char *password = strndup(*line, offset);
    if (!password) return PAM_BUF_ERR;
    rc = pam_set_item(a->pamh, PAM_AUTHTOK, password);
    wipe_free(password);
    if (rc != PAM_SUCCESS) return rc;
    *code = *line + offset;
    return PAM_SUCCESS;
}

/* The PAM code for what mfa_resolve answered. */
static int pam_status_of_resolve(int32_t status) {
    switch (status) {
    case MFA_OK: return PAM_SUCCESS;
    case MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER: return PAM_MAXTRIES;
    case MFA_ERR_STORAGE_ERROR:
    case MFA_ERR_CRYPTO: return PAM_AUTHINFO_UNAVAIL;
    case MFA_ERR_OUT_OF_MEMORY: return PAM_BUF_ERR;
    case MFA_ERR_INTERNAL: return PAM_SERVICE_ERR;
    /* A wrong, malformed or replayed code; a pending credential that expired
     * while the user typed; factors or tokens changed meanwhile. */
    default: return PAM_AUTH_ERR;
    }
}

/* Tells the user how many recovery codes are left after using one. */
static void report_recovery(attempt *a, const mfa_sign_in_result *result) {
    for (size_t i = 0; i < result->claim_count; i++)
        if (strcmp(result->claims[i].name, "recovery_codes_remaining") == 0 && !(a->flags & PAM_SILENT))
            pam_info(a->pamh, "Signed in with a recovery code: %s left.", result->claims[i].value);
}

/* The factor id of a kind, for the log. */
static const char *kind_name(int32_t kind) {
    switch (kind) {
    case MFA_FACTOR_TOTP: return "totp";
    case MFA_FACTOR_HOTP: return "hotp";
    case MFA_FACTOR_YUBICO_OTP: return "yubico_otp";
    default: return "recovery";
    }
}

/* One mfa_resolve (`next_code`: an HOTP resynchronization's second code, or NULL); returns libmfa's status,
 * and its message in `reason`. */
static int32_t resolve(attempt *a, mfa_ctx *ctx, const mfa_resolver *r, int32_t kind, const char *enrollment_id,
                       const char *code, const char *next_code, char *reason, size_t reason_size) {
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    assertion.kind = kind;
    assertion.enrollment_id = enrollment_id;
    assertion.code = code;
    assertion.next_code = next_code;
    int32_t status = mfa_resolve(ctx, &result, r->session, a->options.tenant, &assertion, &err);
    DEBUG(a, "user %s: %s factor %s: %s%s%s", a->user, kind_name(kind), enrollment_id ? enrollment_id : "(any)",
          mfa_status_name(status), err ? ": " : "", err ? err : "");
    if (status == MFA_OK && kind == MFA_FACTOR_RECOVERY_CODES) report_recovery(a, result);
    snprintf(reason, reason_size, "%s", err ? err : mfa_errstr(status));
    mfa_sign_in_result_free(result);
    mfa_free(err);
    return status;
}

/* The user has second factors: ask for the code (or take `given`, a kept one) and resolve the
 * sign-in with it. */
static int second_factor(attempt *a, mfa_ctx *ctx, const mfa_resolver *r, const char *given) {
    const char *totp[MFA_WINDOW_MAX + 8];
    const char *hotp[MFA_WINDOW_MAX + 8];
    size_t totp_count = 0, hotp_count = 0;
    const char *recovery = NULL;
    int yubikey = 0;
    for (size_t i = 0; i < r->hint_count; i++) {
        const mfa_factor_info *hint = &r->hints[i];
        if (hint->kind == MFA_FACTOR_TOTP && totp_count < sizeof totp / sizeof totp[0]) totp[totp_count++] = hint->uid;
        if (hint->kind == MFA_FACTOR_HOTP && hotp_count < sizeof hotp / sizeof hotp[0]) hotp[hotp_count++] = hint->uid;
        if (hint->kind == MFA_FACTOR_YUBICO_OTP) yubikey = 1;
        if (hint->kind == MFA_FACTOR_RECOVERY_CODES && hint->remaining_codes != 0) recovery = hint->uid;
    }
    DEBUG(a, "user %s: %zu factors, %zu totp, %zu hotp, yubikey %s, recovery codes %s", a->user, r->hint_count,
          totp_count, hotp_count, yubikey ? "yes" : "no", recovery ? "yes" : "no");
    int usable = totp_count || hotp_count || yubikey || recovery;
    if (!usable) {
        pam_syslog(a->pamh, LOG_NOTICE, "user %s has no second factor this module can check (only phone factors)",
                   a->user);
        /* The conversation goes on as for anyone, so a caller cannot tell. */
    }

    char *line = NULL;
    const char *typed = NULL;
    int rc;
    if (given) {
        rc = PAM_SUCCESS;
        typed = given;
    } else if (a->options.forward_pass) {
        rc = ask_forwarded(a, 1, recovery != NULL, yubikey, &line, &typed);
        if (rc == PAM_SUCCESS && a->options.defer_code) {
            rc = keep_code(a, typed);
            wipe_free(line);
            return rc;
        }
    } else {
        rc = ask(a, a->options.prompt ? a->options.prompt : MFA_PAM_DEFAULT_PROMPT, a->options.echo_code, &line);
        typed = line;
    }
    if (rc != PAM_SUCCESS) {
        wipe_free(line);
        return rc;
    }

    char digits[MFA_CODE_BUFFER_SIZE], next[MFA_CODE_BUFFER_SIZE];
    char reason[512] = "";
    int32_t status = MFA_ERR_INVALID_VERIFICATION_CODE;
    if (!usable) {
        status = MFA_ERR_INVALID_VERIFICATION_CODE;
    } else if (yubikey && mfa_pam_yubikey_shape(typed)) {
        /* A YubiKey's touch: the OTP names the key. */
        status = resolve(a, ctx, r, MFA_FACTOR_YUBICO_OTP, NULL, typed, NULL, reason, sizeof reason);
    } else if (hotp_count && mfa_pam_two_codes(digits, next, sizeof digits, typed)) {
        /* Two presses of an HOTP token: each token in turn, until one takes the pair. */
        for (size_t i = 0; i < hotp_count && status == MFA_ERR_INVALID_VERIFICATION_CODE; i++)
            status = resolve(a, ctx, r, MFA_FACTOR_HOTP, hotp[i], digits, next, reason, sizeof reason);
    } else if ((totp_count || hotp_count) && mfa_pam_totp_code(digits, sizeof digits, typed)) {
        /* Each authenticator app, then each HOTP token, in turn, until one takes the code. */
        for (size_t i = 0; i < totp_count && status == MFA_ERR_INVALID_VERIFICATION_CODE; i++)
            status = resolve(a, ctx, r, MFA_FACTOR_TOTP, totp[i], digits, NULL, reason, sizeof reason);
        for (size_t i = 0; i < hotp_count && status == MFA_ERR_INVALID_VERIFICATION_CODE; i++)
            status = resolve(a, ctx, r, MFA_FACTOR_HOTP, hotp[i], digits, NULL, reason, sizeof reason);
    } else if (recovery && (mfa_pam_recovery_shape(typed) || (!totp_count && !hotp_count && !yubikey))) {
        status = resolve(a, ctx, r, MFA_FACTOR_RECOVERY_CODES, recovery, typed, NULL, reason, sizeof reason);
    } else if (totp_count || hotp_count) {
        /* Not a code of any kind the user has: judged (and counted) as a wrong code of the first. */
        status = resolve(a, ctx, r, totp_count ? MFA_FACTOR_TOTP : MFA_FACTOR_HOTP, totp_count ? totp[0] : hotp[0],
                         typed, NULL, reason, sizeof reason);
    } else {
        /* Only a YubiKey (and perhaps a spent recovery set): judged (and counted) as a wrong OTP. */
        status = resolve(a, ctx, r, MFA_FACTOR_YUBICO_OTP, NULL, typed, NULL, reason, sizeof reason);
    }
    explicit_bzero(digits, sizeof digits);
    explicit_bzero(next, sizeof next);
    wipe_free(line);

    rc = pam_status_of_resolve(status);
    if (rc == PAM_SUCCESS) {
        pam_syslog(a->pamh, LOG_INFO, "second factor accepted for user %s", a->user);
    } else if (rc == PAM_AUTHINFO_UNAVAIL) {
        /* Why (no answer within N ms, locked, refused), never the store URL's password. */
        mfa_pam_redact(reason, sizeof reason, a->options.store);
        pam_syslog(a->pamh, LOG_ERR, "second factor of user %s not checked: %s: %s", a->user,
                   mfa_status_name(status), reason);
    } else {
        pam_syslog(a->pamh, LOG_NOTICE, "second factor refused for user %s: %s", a->user, mfa_status_name(status));
        if (rc == PAM_MAXTRIES && !(a->flags & PAM_SILENT))
            pam_error(a->pamh, "Too many failed attempts: try again later.");
    }
    return rc;
}

/* The user has no second factor: with nullok they pass, else they fail. */
static int no_factor(attempt *a) {
    if (!a->options.nullok) {
        pam_syslog(a->pamh, LOG_NOTICE, "user %s has no second factor enrolled (no nullok)", a->user);
        return PAM_AUTH_ERR;
    }
    DEBUG(a, "user %s has no second factor: passes (nullok)", a->user);
    if (!a->options.forward_pass) return PAM_SUCCESS;
    /* The same question as for everyone; the whole line is the password. */
    char *line = NULL;
    const char *code = NULL;
    int rc = ask_forwarded(a, 0, 0, 0, &line, &code);
    if (rc == PAM_SUCCESS && a->options.defer_code) rc = keep_code(a, "");
    wipe_free(line);
    return rc;
}

static int authenticate(attempt *a, const char *given) {
    char why[1024];
    mfa_ctx *ctx = NULL;
    int32_t status;
    int opened = mfa_pam_open_store(&ctx, &a->options, why, sizeof why, &status);
    if (opened != MFA_PAM_OPENED) {
        pam_syslog(a->pamh, LOG_ERR, "%s", why);
        return opened == MFA_PAM_UNAVAILABLE ? PAM_AUTHINFO_UNAVAIL : PAM_SERVICE_ERR;
    }
    DEBUG(a, "user %s: store opened (%s)", a->user, mfa_pam_store_is_postgres(a->options.store) ? "postgres" : "sqlite");

    mfa_user user = MFA_USER_INIT;
    user.uid = a->user;
    user.tenant = a->options.tenant;
    user.provider = "password";
    user.auth_time = (int64_t)time(NULL);
    mfa_resolver *r = NULL;
    char *err = NULL;
    status = mfa_sign_in(ctx, &r, &user, &err);
    DEBUG(a, "user %s: first factor reported: %s", a->user, mfa_status_name(status));
    int rc;
    switch (status) {
    case MFA_OK: rc = no_factor(a); break;
    case MFA_ERR_SECOND_FACTOR_REQUIRED: rc = second_factor(a, ctx, r, given); break;
    case MFA_ERR_ENROLLMENT_REQUIRED:
        /* The store's configuration is MANDATORY: it overrides nullok. */
        pam_syslog(a->pamh, LOG_NOTICE, "user %s must enroll a second factor (MFA is mandatory)", a->user);
        rc = PAM_AUTH_ERR;
        break;
    case MFA_ERR_INVALID_ARGUMENT:
        /* A name libmfa cannot hold (over 128 bytes, not UTF-8, a control character): no such user in the store. */
        pam_syslog(a->pamh, LOG_NOTICE, "user name refused by libmfa: %s", err ? err : mfa_errstr(status));
        rc = PAM_USER_UNKNOWN;
        break;
    case MFA_ERR_STORAGE_ERROR:
    case MFA_ERR_CRYPTO:
        snprintf(why, sizeof why, "%s", err ? err : mfa_errstr(status));
        mfa_pam_redact(why, sizeof why, a->options.store);
        pam_syslog(a->pamh, LOG_ERR, "second factor of user %s not checked: %s: %s", a->user,
                   mfa_status_name(status), why);
        rc = PAM_AUTHINFO_UNAVAIL;
        break;
    default:
        pam_syslog(a->pamh, LOG_ERR, "sign-in of user %s failed: %s: %s", a->user, mfa_status_name(status),
                   err ? err : mfa_errstr(status));
        rc = status == MFA_ERR_OUT_OF_MEMORY ? PAM_BUF_ERR : PAM_SERVICE_ERR;
        break;
    }
    mfa_free(err);
    mfa_resolver_free(r);
    mfa_close(ctx);
    return rc;
}

/** Checks the user's second factor (see the top of this file). */
PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    attempt a = {.pamh = pamh, .flags = flags};
    char why[256];
    mfa_pam_options_init(&a.options);
    for (int i = 0; i < argc; i++) {
        if (mfa_pam_option(&a.options, argv[i], 0, why, sizeof why) != 0) {
            pam_syslog(pamh, LOG_ERR, "bad module option: %s", why);
            return PAM_SERVICE_ERR;
        }
    }
    int rc = pam_get_user(pamh, &a.user, NULL);
    if (rc != PAM_SUCCESS) {
        DEBUG(&a, "no user name: %s", pam_strerror(pamh, rc));
        return rc == PAM_CONV_AGAIN ? PAM_INCOMPLETE : rc;
    }
    if (!a.user || !*a.user) return PAM_USER_UNKNOWN;
    if (a.options.defer_code && !a.options.forward_pass) {
        pam_syslog(pamh, LOG_ERR, "bad module option: defer_code goes with forward_pass");
        return PAM_SERVICE_ERR;
    }
    if (a.options.use_deferred_code && (a.options.forward_pass || a.options.defer_code)) {
        pam_syslog(pamh, LOG_ERR, "bad module option: use_deferred_code goes on a line of its own, after the "
                                  "password's module, without forward_pass");
        return PAM_SERVICE_ERR;
    }
    if (!a.options.use_deferred_code) return authenticate(&a, NULL);
    char code[DEFERRED_CODE_MAX + 1];
    if (take_code(&a, code, sizeof code) != 0) {
        pam_syslog(pamh, LOG_ERR, "use_deferred_code: no code was kept for user %s by a forward_pass defer_code "
                                  "line before this one", a.user);
        return PAM_SERVICE_ERR;
    }
    rc = authenticate(&a, code);
    explicit_bzero(code, sizeof code);
    return rc;
}

/** Nothing to set: the module grants no credentials. */
PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}
