/*
 * The fixtures the engine's flow tests share (test_engine_*.c): an injected
 * clock and random source, a recording SMS sender and app verifier, an audit
 * log that checks every event for numbers and codes, contexts with all of
 * them, users, and each factor kind enrolled and signed in with.
 *
 *   clock          g_now, read by every context the fixture opens
 *   random         test_rng: a deterministic stream (splitmix64) that can be
 *                  told to fail
 *   SMS            g_sms keeps every message sent (number, text, time) and
 *                  can be told to fail; sms_code() reads the code of the last
 *                  message to a number, as the user reads it on the phone
 *   app verifier   g_verifier accepts GOOD_CRED only and records what it was asked
 *   audit          g_audit keeps the events since reset_recorders(); an event
 *                  that holds a phone number or an SMS code the sender saw, or
 *                  a NULL string, is counted in g_audit.leaks
 *   contexts       open_engine(config): in memory, with all of the above;
 *                  fixture_options() for a store of the test's choosing
 *   TOTP           enroll() / ENROLL_OK (session, secret, mfa_enroll with the
 *                  app's code), resolve() (mfa_resolve_totp), SIGN_IN_OK
 *   phone          start_enroll(), finish_enroll() (mfa_phone_enroll),
 *                  enroll_phone() / ENROLL_PHONE_OK, start_sign_in(),
 *                  resolve_phone() (mfa_resolve_phone), sign_in_phone()
 *   recovery codes generate_codes() (mfa_recovery_codes_generate), resolve_code()
 *                  (mfa_resolve with a recovery-code assertion)
 *
 * Header-only (static inline functions and one set of globals), for tests
 * that are each one translation unit, built at -std=c99 -Wall -Wextra
 * -pedantic -Werror. Define _POSIX_C_SOURCE 200809L before any include.
 * Helpers that take `line` report their checks at the caller's line.
 */
#ifndef TEST_ENGINE_FIXTURE_H
#define TEST_ENGINE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mfa.h"
#include "test_support.h"

#define GOOD_CRED "good-token"
#define BAD_CRED "forged-token"
#define SMS_SUFFIX " is your verification code."

/* Configurations most tests start from. */
#define ENABLE_TOTP "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}"
#define PHONE_ON "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"}}"
#define PHONE_TOTP_ON "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"}}"
#define ALL_KINDS_ON \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\",\"recovery\":\"ENABLED\"}}"

/* The injected clock of every context the fixture opens. */
static int64_t g_now = START_TIME;

/* A directory of the test's own for store files (make_temp_dir, remove_temp_dir). */
static char temp_dir[256];

static inline void make_temp_dir(const char *prefix) {
    CHECK(test_temp_dir(temp_dir, sizeof temp_dir, prefix) == 0);
}

static inline void remove_temp_dir(void) {
    rmdir(temp_dir);
}

/* ------------------------------------------------------------------ */
/* An injected random source                                            */
/* ------------------------------------------------------------------ */

/* A deterministic random source (splitmix64) that can be told to fail. */
typedef struct test_rng {
    uint64_t state;
    int fail;
    unsigned long calls;
} test_rng;

static inline int rng_fill(void *context, uint8_t *out, size_t len) {
    test_rng *rng = context;
    rng->calls++;
    if (rng->fail) return -1;
    for (size_t i = 0; i < len; i++) {
        uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        out[i] = (uint8_t)(z ^ (z >> 31));
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* What must never appear in an audit event: numbers and codes          */
/* ------------------------------------------------------------------ */

#define SECRET_NUMBERS 512
#define SECRET_CODES 64
static char g_numbers[SECRET_NUMBERS][24]; /* digits only, no '+' */
static size_t g_number_count;
static char g_codes[SECRET_CODES][8];
static unsigned long g_code_count;
#define SECRET_ADDRESSES 256
static char g_addresses[SECRET_ADDRESSES][80]; /* email addresses, in lower case */
static size_t g_address_count;

static inline void note_address(const char *address) {
    char lower[80];
    size_t i;
    for (i = 0; address[i] && i + 1 < sizeof lower; i++) {
        lower[i] = (char)(address[i] >= 'A' && address[i] <= 'Z' ? address[i] + 32 : address[i]);
    }
    lower[i] = '\0';
    for (size_t j = 0; j < g_address_count; j++) {
        if (strcmp(g_addresses[j], lower) == 0) return;
    }
    if (g_address_count < SECRET_ADDRESSES) snprintf(g_addresses[g_address_count++], 80, "%s", lower);
}

static inline void note_number(const char *number) {
    const char *digits = number[0] == '+' ? number + 1 : number;
    for (size_t i = 0; i < g_number_count; i++) {
        if (strcmp(g_numbers[i], digits) == 0) return;
    }
    if (g_number_count < SECRET_NUMBERS) snprintf(g_numbers[g_number_count++], 24, "%s", digits);
}

static inline void note_code(const char *code) {
    snprintf(g_codes[g_code_count++ % SECRET_CODES], 8, "%s", code);
}

/* Which number or code `text` reveals, or NULL. */
static inline const char *leak_in(const char *text) {
    static char what[64];
    for (const char *p = text; *p; p++) {
        if (p[0] == '+' && p[1] >= '0' && p[1] <= '9') return "an E.164 number";
    }
    for (size_t i = 0; i < g_number_count; i++) {
        size_t n = strlen(g_numbers[i]);
        if (contains(text, g_numbers[i]) || (n > 7 && contains(text, g_numbers[i] + n - 7))) {
            snprintf(what, sizeof what, "the digits of +%s", g_numbers[i]);
            return what;
        }
    }
    for (size_t i = 0; i < g_address_count; i++) {
        char lower[1024];
        size_t n;
        for (n = 0; text[n] && n + 1 < sizeof lower; n++) {
            lower[n] = (char)(text[n] >= 'A' && text[n] <= 'Z' ? text[n] + 32 : text[n]);
        }
        lower[n] = '\0';
        if (contains(lower, g_addresses[i])) {
            snprintf(what, sizeof what, "an email address (%.40s)", g_addresses[i]);
            return what;
        }
    }
    for (unsigned long i = 0; i < g_code_count && i < SECRET_CODES; i++) {
        if (contains_code(text, g_codes[i])) {
            snprintf(what, sizeof what, "the code %s", g_codes[i]);
            return what;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Recording SMS sender                                                 */
/* ------------------------------------------------------------------ */

#define SMS_RING 512
typedef struct sms_message {
    char to[40];
    char message[160];
    int64_t time;
} sms_message;

typedef struct sms_box {
    int fail;            /* non-zero: the gateway is down */
    unsigned long calls; /* every call, failed or not */
    unsigned long sent;  /* messages delivered */
    sms_message ring[SMS_RING];
} sms_box;

static sms_box g_sms;

/* The code of an SMS as libmfa writes it ("123456 is your verification code."); 0 if it is not one. */
static inline int parse_sms(const char *message, char code[MFA_CODE_BUFFER_SIZE]) {
    code[0] = '\0';
    if (strlen(message) != 6 + strlen(SMS_SUFFIX)) return 0;
    for (int i = 0; i < 6; i++) {
        if (message[i] < '0' || message[i] > '9') return 0;
    }
    if (strcmp(message + 6, SMS_SUFFIX) != 0) return 0;
    memcpy(code, message, 6);
    code[6] = '\0';
    return 1;
}

static inline int sms_record(void *context, const char *to, const char *message) {
    sms_box *box = context;
    sms_message *m;
    char code[MFA_CODE_BUFFER_SIZE];
    box->calls++;
    if (to) note_number(to);
    if (message && parse_sms(message, code)) note_code(code);
    if (box->fail) return 1;
    m = &box->ring[box->sent % SMS_RING];
    snprintf(m->to, sizeof m->to, "%s", to ? to : "<NULL>");
    snprintf(m->message, sizeof m->message, "%s", message ? message : "<NULL>");
    m->time = g_now;
    box->sent++;
    return 0;
}

/* The code of the last SMS sent to `number`. */
static inline int sms_code_at(const char *number, char code[MFA_CODE_BUFFER_SIZE], int line) {
    code[0] = '\0';
    for (unsigned long i = g_sms.sent; i > 0 && g_sms.sent - i < SMS_RING; i--) {
        const sms_message *m = &g_sms.ring[(i - 1) % SMS_RING];
        if (strcmp(m->to, number) == 0) {
            int ok = parse_sms(m->message, code);
            if (!ok) fprintf(stderr, "%s:%d: malformed SMS to %s: \"%s\"\n", TEST_FILE, line, number, m->message);
            CHECK_AT(ok, line);
            return ok;
        }
    }
    fprintf(stderr, "%s:%d: no SMS was sent to %s\n", TEST_FILE, line, number);
    CHECK_AT(!"an SMS was sent", line);
    return 0;
}
#define sms_code(number, code) sms_code_at(number, code, __LINE__)

static inline const sms_message *last_sms(void) {
    return g_sms.sent ? &g_sms.ring[(g_sms.sent - 1) % SMS_RING] : NULL;
}

/* A code that is certainly not the SMS code `code`: its last digit changed. */
static inline void wrong_sms_code(char out[MFA_CODE_BUFFER_SIZE], const char *code) {
    snprintf(out, MFA_CODE_BUFFER_SIZE, "%s", code);
    if (strlen(out) == 6) out[5] = (char)('0' + (out[5] - '0' + 1) % 10);
}

/* ------------------------------------------------------------------ */
/* Recording mailer                                                     */
/* ------------------------------------------------------------------ */

#define MAIL_RING 256
typedef struct mail_message {
    char to[260];
    char code[8];
    int32_t purpose;
    int64_t time;
} mail_message;

typedef struct mail_box {
    int fail;            /* non-zero: the mail server is down */
    unsigned long calls; /* every call, failed or not */
    unsigned long sent;  /* messages delivered */
    mail_message ring[MAIL_RING];
} mail_box;

static mail_box g_mail;

/* Records an email; its body must start with its code, which must be six digits. */
static inline int mail_record(void *context, const mfa_email_message *message) {
    mail_box *box = context;
    mail_message *m;
    box->calls++;
    if (!message || !message->to || !message->subject || !message->body || !message->code) return 1;
    note_address(message->to);
    if (strlen(message->code) != 6 || strncmp(message->body, message->code, 6) != 0) return 1;
    note_code(message->code);
    if (box->fail) return 1;
    m = &box->ring[box->sent % MAIL_RING];
    snprintf(m->to, sizeof m->to, "%s", message->to);
    snprintf(m->code, sizeof m->code, "%s", message->code);
    m->purpose = message->purpose;
    m->time = g_now;
    box->sent++;
    return 0;
}

/* The code of the last email sent to `address` (exactly as libmfa wrote it). */
static inline int mail_code_at(const char *address, char code[MFA_CODE_BUFFER_SIZE], int line) {
    code[0] = '\0';
    for (unsigned long i = g_mail.sent; i > 0 && g_mail.sent - i < MAIL_RING; i--) {
        const mail_message *m = &g_mail.ring[(i - 1) % MAIL_RING];
        if (strcmp(m->to, address) == 0) {
            snprintf(code, MFA_CODE_BUFFER_SIZE, "%s", m->code);
            return 1;
        }
    }
    fprintf(stderr, "%s:%d: no email was sent to %s\n", TEST_FILE, line, address);
    CHECK_AT(!"an email was sent", line);
    return 0;
}
#define mail_code(address, code) mail_code_at(address, code, __LINE__)

/* ------------------------------------------------------------------ */
/* App verifier                                                         */
/* ------------------------------------------------------------------ */

typedef struct verifier_state {
    unsigned long calls;
    int32_t last_action;
    char last_credential[64];
} verifier_state;

static verifier_state g_verifier;

static inline int verify_app(void *context, const char *credential, int32_t action) {
    verifier_state *state = context;
    state->calls++;
    state->last_action = action;
    snprintf(state->last_credential, sizeof state->last_credential, "%s", credential ? credential : "<NULL>");
    return credential && strcmp(credential, GOOD_CRED) == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* Audit log                                                            */
/* ------------------------------------------------------------------ */

#define AUDIT_MAX 1024
typedef struct audit_log {
    size_t count;  /* events since the last reset (only the first AUDIT_MAX are kept) */
    size_t dropped; /* events past AUDIT_MAX since the last reset */
    unsigned long total;
    unsigned long leaks;
    audit_record events[AUDIT_MAX];
} audit_log;

static audit_log g_audit;

static inline void audit_callback(void *context, const mfa_audit_event *event) {
    audit_log *log = context;
    char all[1024];
    const char *leak;
    log->total++;
    snprintf(all, sizeof all, "%s|%s|%s|%s|%s|%s|%s", event->kind_name ? event->kind_name : "",
             event->tenant ? event->tenant : "", event->uid ? event->uid : "",
             event->factor_id ? event->factor_id : "", event->enrollment_id ? event->enrollment_id : "",
             event->detail ? event->detail : "", event->actor ? event->actor : "");
    if ((leak = leak_in(all)) != NULL) {
        if (log->leaks++ < 5) fprintf(stderr, "audit event reveals %s: %s\n", leak, all);
    }
    if (!event->kind_name || !event->tenant || !event->uid || !event->factor_id || !event->enrollment_id ||
        !event->detail || !event->actor) {
        log->leaks++;
        fprintf(stderr, "audit event with a NULL string: %s\n", all);
    }
    if (log->count < AUDIT_MAX) audit_record_copy(&log->events[log->count], event);
    else log->dropped++;
    log->count++;
}

/* The name each audit kind must carry. */
static inline const char *audit_kind_name(int32_t kind) {
    switch (kind) {
    case MFA_AUDIT_ENROLL: return "ENROLL";
    case MFA_AUDIT_UNENROLL: return "UNENROLL";
    case MFA_AUDIT_SIGN_IN_SUCCESS: return "SIGN_IN_SUCCESS";
    case MFA_AUDIT_SIGN_IN_FAILURE: return "SIGN_IN_FAILURE";
    case MFA_AUDIT_BACKOFF: return "BACKOFF";
    case MFA_AUDIT_CONFIG_CHANGE: return "CONFIG_CHANGE";
    case MFA_AUDIT_SMS_SENT: return "SMS_SENT";
    case MFA_AUDIT_INTEGRITY_FAILURE: return "INTEGRITY_FAILURE";
    case MFA_AUDIT_TOKENS_REVOKED: return "TOKENS_REVOKED";
    case MFA_AUDIT_FACTOR_RENAMED: return "FACTOR_RENAMED";
    case MFA_AUDIT_USER_RESET: return "USER_RESET";
    case MFA_AUDIT_USER_DELETED: return "USER_DELETED";
    case MFA_AUDIT_KEYS_ROTATED: return "KEYS_ROTATED";
    case MFA_AUDIT_DEVICE_REMEMBERED: return "DEVICE_REMEMBERED";
    case MFA_AUDIT_DEVICE_REFUSED: return "DEVICE_REFUSED";
    case MFA_AUDIT_DEVICE_REVOKED: return "DEVICE_REVOKED";
    case MFA_AUDIT_EMAIL_SENT: return "EMAIL_SENT";
    case MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS: return "PASSKEY_SIGN_IN_SUCCESS";
    case MFA_AUDIT_PASSKEY_SIGN_IN_FAILURE: return "PASSKEY_SIGN_IN_FAILURE";
    default: return "?";
    }
}

/* The first event of `kind` at or after index `from` that matches the fields given (NULL = any). */
static inline const audit_record *audit_find(size_t from, int32_t kind, const char *tenant, const char *uid,
                                             const char *eid, const char *detail) {
    for (size_t i = from; i < g_audit.count && i < AUDIT_MAX; i++) {
        const audit_record *e = &g_audit.events[i];
        if (e->kind != kind) continue;
        if (tenant && strcmp(e->tenant, tenant) != 0) continue;
        if (uid && strcmp(e->uid, uid) != 0) continue;
        if (eid && strcmp(e->enrollment_id, eid) != 0) continue;
        if (detail && strcmp(e->detail, detail) != 0) continue;
        return e;
    }
    return NULL;
}

/* How many events of `kind` (with `detail`, unless NULL) there are at or after index `from`. */
static inline size_t audit_count(size_t from, int32_t kind, const char *detail) {
    size_t n = 0;
    for (size_t i = from; i < g_audit.count && i < AUDIT_MAX; i++) {
        n += g_audit.events[i].kind == kind && (!detail || strcmp(g_audit.events[i].detail, detail) == 0);
    }
    return n;
}

/* The last event of `kind` (any kind for -1), or NULL. */
static inline const audit_record *audit_last(int32_t kind) {
    for (size_t i = g_audit.count < AUDIT_MAX ? g_audit.count : AUDIT_MAX; i > 0; i--) {
        if (kind < 0 || g_audit.events[i - 1].kind == kind) return &g_audit.events[i - 1];
    }
    return NULL;
}

/* The test's report, after checking that no audit event of the whole program held a
 * number, a code or a NULL string. The exit status of main. */
static inline int engine_report(void) {
    CHECK(g_audit.leaks == 0);
    return test_report();
}

/* Empties the SMS box, the verifier's record and the audit log (the leak count stays). */
static inline void reset_recorders(void) {
    memset(&g_sms, 0, sizeof g_sms);
    memset(&g_mail, 0, sizeof g_mail);
    memset(&g_verifier, 0, sizeof g_verifier);
    g_audit.count = 0;
    g_audit.dropped = 0;
}

/* ------------------------------------------------------------------ */
/* Contexts and users                                                   */
/* ------------------------------------------------------------------ */

/* Options for `store` under master key k1 (K1): the injected clock, the recording
 * SMS sender and mailer, the verifier and the audit log (the system's random source). */
static inline void fixture_options(mfa_options *options, const char *store) {
    test_options(options, store, &g_now);
    options->sms_sender = sms_record;
    options->sms_sender_context = &g_sms;
    options->email_sender = mail_record;
    options->email_sender_context = &g_mail;
    options->app_verifier = verify_app;
    options->app_verifier_context = &g_verifier;
    options->audit = audit_callback;
    options->audit_context = &g_audit;
}

/* A fresh in-memory context with the recorders and `config` (if not NULL) for the project. */
static inline mfa_ctx *open_engine_at(const char *config, int line) {
    mfa_options options;
    mfa_ctx *ctx;
    fixture_options(&options, ":memory:");
    ctx = open_with_at(&options, line);
    if (ctx && config) set_config_at(ctx, NULL, config, line);
    return ctx;
}
#define open_engine(config) open_engine_at(config, __LINE__)
/* TOTP enabled for the project. */
#define open_project() open_engine_at(ENABLE_TOTP, __LINE__)

/* A user who passed the first factor (a password) now, with a verified email. */
static inline void user_make(mfa_user *user, const char *uid, const char *tenant) {
    CHECK_STATUS(test_user(user, uid, tenant, "user@example.com", g_now), MFA_OK);
    user->provider = "password";
}

/* Checks the shape of an answer (`out` was `sentinel` before the call): on MFA_OK a
 * result and no message, otherwise no result and a message. Whether there is a result. */
static inline int answer_ok_at(int status, const void *out, const void *sentinel, const char *err, int line) {
    if (status != MFA_OK) {
        CHECK_AT(out == NULL, line);
        CHECK_AT(err != NULL, line);
        return 0;
    }
    CHECK_AT(out != NULL && out != sentinel, line);
    CHECK_AT(err == NULL, line);
    return out && out != sentinel;
}

/* ------------------------------------------------------------------ */
/* Factors of every kind                                                */
/* ------------------------------------------------------------------ */

#define RECOVERY_MAX 16
/* An enrolled factor and what proves it. */
typedef struct factor {
    int32_t kind;
    char eid[64];
    char key[128];                    /* TOTP: the base32 secret */
    char number[24];                  /* phone: the full number */
    char address[96];                 /* email: the address, as enrolled */
    char codes[RECOVERY_MAX][16];     /* recovery codes: the set */
    size_t code_count;
    int64_t enrolled_at;
} factor;

/* An mfa_assertion of `kind`, every field empty. */
static inline mfa_assertion assertion_of(int32_t kind) {
    mfa_assertion a = MFA_ASSERTION_INIT;
    a.kind = kind;
    return a;
}

/* A six-digit code that matches no time step within +/- MFA_WINDOW_MAX of `when`. */
static uint32_t wrong_state = 2463534242u;
static inline void wrong_totp_code(char out[MFA_CODE_BUFFER_SIZE], const char *base32, int64_t when) {
    uint8_t *key = NULL;
    size_t len = 0;
    CHECK_STATUS(mfa_base32_decode(&key, &len, base32), MFA_OK);
    for (;;) {
        wrong_state ^= wrong_state << 13;
        wrong_state ^= wrong_state >> 17;
        wrong_state ^= wrong_state << 5;
        snprintf(out, MFA_CODE_BUFFER_SIZE, "%06u", (unsigned)(wrong_state % 1000000u));
        if (!key) break;
        if (mfa_totp_verify(NULL, key, len, NULL, when, MFA_WINDOW_MAX, out) == MFA_ERR_INVALID_VERIFICATION_CODE) {
            break;
        }
    }
    mfa_free(key);
}

/* TOTP: session, secret, the app's code at g_now, mfa_enroll. Returns the enroll status;
 * on MFA_OK `f` holds the enrollment id and the base32 key. */
static inline int enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *display_name, factor *f, int line) {
    mfa_user fresh = *user;
    char *session = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    mfa_assertion assertion = assertion_of(MFA_FACTOR_TOTP);
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
    memset(f, 0, sizeof *f);
    f->kind = MFA_FACTOR_TOTP;
    fresh.auth_time = g_now;
    status = mfa_session_new(ctx, &session, &fresh, &err);
    mfa_free(err);
    err = NULL;
    if (status != MFA_OK) return status;
    status = mfa_totp_generate_secret(ctx, &secret, session, &err);
    mfa_free(err);
    err = NULL;
    mfa_free(session);
    if (status != MFA_OK) return status;
    code_at(code, secret->shared_secret_key, g_now);
    assertion.session_info = secret->session_info;
    assertion.code = code;
    status = mfa_enroll(ctx, &info, &fresh, &assertion, display_name, &err);
    if (status == MFA_OK) {
        CHECK_AT(info != NULL, line);
        if (info) {
            snprintf(f->eid, sizeof f->eid, "%s", info->uid);
            CHECK_AT(info->kind == MFA_FACTOR_TOTP && info->remaining_codes == -1, line);
            CHECK_AT(info->hint && strcmp(info->hint, "authenticator app") == 0, line);
        }
        snprintf(f->key, sizeof f->key, "%s", secret->shared_secret_key);
        f->enrolled_at = g_now;
    }
    mfa_free(err);
    mfa_factor_info_free(info);
    mfa_totp_secret_free(secret);
    return status;
}
#define enroll(ctx, user, name, f) enroll_at(ctx, user, name, f, __LINE__)
#define ENROLL_OK(ctx, user, name, f) CHECK_STATUS(enroll(ctx, user, name, f), MFA_OK)

/* mfa_resolve_totp: checks that a result comes exactly with MFA_OK and a message without. */
static inline int resolve_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *eid, const char *code,
                             int line) {
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    int status = mfa_resolve_totp(ctx, &result, cred, tenant, eid, code, &err);
    CHECK_AT((status == MFA_OK) == (result != NULL), line);
    CHECK_AT((status == MFA_OK) == (err == NULL), line);
    mfa_sign_in_result_free(result);
    mfa_free(err);
    return status;
}
#define resolve(ctx, cred, tenant, eid, code) resolve_at(ctx, cred, tenant, eid, code, __LINE__)

/* Sign in with the TOTP factor `f` and the right code at g_now: the whole second step. */
#define SIGN_IN_OK(ctx, user, f)                                                   \
    do {                                                                           \
        char cred_[TOKEN_MAX];                                                     \
        char code_[MFA_CODE_BUFFER_SIZE];                                          \
        SIGN_IN_REQUIRED(ctx, user, cred_);                                        \
        code_at(code_, (f)->key, g_now);                                           \
        CHECK_STATUS(resolve(ctx, cred_, (user)->tenant, (f)->eid, code_), MFA_OK); \
    } while (0)

/* mfa_phone_start_enrollment on an existing session. */
static inline int start_with_session_at(mfa_ctx *ctx, const char *session, const char *number, const char *app_cred,
                                        char vid[TOKEN_MAX], int line) {
    char sentinel = 0;
    char *out = &sentinel;
    char *err = NULL;
    int status = mfa_phone_start_enrollment(ctx, &out, session, number, app_cred, &err);
    vid[0] = '\0';
    if (answer_ok_at(status, out, &sentinel, err, line)) {
        CHECK_AT(strlen(out) > 0 && strlen(out) < TOKEN_MAX, line);
        snprintf(vid, TOKEN_MAX, "%s", out);
        mfa_free(out);
    }
    mfa_free(err);
    return status;
}
#define start_with_session(ctx, session, number, cred, vid) start_with_session_at(ctx, session, number, cred, vid, __LINE__)

/* A new session for `user` (first factor passed now), then mfa_phone_start_enrollment. */
static inline int start_enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *number, const char *app_cred,
                                  char vid[TOKEN_MAX], int line) {
    mfa_user fresh = *user;
    char *session = NULL;
    char *err = NULL;
    int status;
    vid[0] = '\0';
    fresh.auth_time = g_now;
    status = mfa_session_new(ctx, &session, &fresh, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "%s:%d: mfa_session_new: %s: %s\n", TEST_FILE, line, mfa_status_name(status), err ? err : "");
        CHECK_AT(status == MFA_OK, line);
        mfa_free(err);
        return status;
    }
    status = start_with_session_at(ctx, session, number, app_cred, vid, line);
    mfa_free(session);
    return status;
}
#define start_enroll(ctx, user, number, cred, vid) start_enroll_at(ctx, user, number, cred, vid, __LINE__)

/* mfa_phone_enroll; on MFA_OK `eid` (if not NULL) receives the enrollment id. */
static inline int finish_enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *vid, const char *code,
                                   const char *display_name, const char *number, char eid[64], int line) {
    mfa_factor_info sentinel;
    mfa_factor_info *info = &sentinel;
    char *err = NULL;
    int status = mfa_phone_enroll(ctx, &info, user, vid, code, display_name, &err);
    if (eid) eid[0] = '\0';
    if (answer_ok_at(status, info, &sentinel, err, line)) {
        CHECK_AT(info->factor_id && strcmp(info->factor_id, "phone") == 0, line);
        CHECK_AT(info->kind == MFA_FACTOR_PHONE && info->remaining_codes == -1, line);
        CHECK_AT(info->uid && strlen(info->uid) == 28, line);
        if (number) CHECK_AT(info->phone_number && strcmp(info->phone_number, number) == 0, line);
        CHECK_AT(info->enrollment_time == g_now, line);
        if (eid && info->uid) snprintf(eid, 64, "%s", info->uid);
        mfa_factor_info_free(info);
    }
    mfa_free(err);
    return status;
}
#define finish_enroll(ctx, user, vid, code, name, number, eid) \
    finish_enroll_at(ctx, user, vid, code, name, number, eid, __LINE__)

/* The whole phone enrollment: session, SMS, the code from the message, mfa_phone_enroll. */
static inline int enroll_phone_at(mfa_ctx *ctx, const mfa_user *user, const char *number, const char *display_name,
                                  char eid[64], int line) {
    char vid[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    int status = start_enroll_at(ctx, user, number, GOOD_CRED, vid, line);
    if (eid) eid[0] = '\0';
    if (status != MFA_OK) return status;
    if (!sms_code_at(number, code, line)) return MFA_ERR_INTERNAL;
    return finish_enroll_at(ctx, user, vid, code, display_name, number, eid, line);
}
#define enroll_phone(ctx, user, number, name, eid) enroll_phone_at(ctx, user, number, name, eid, __LINE__)
#define ENROLL_PHONE_OK(ctx, user, number, name, eid) CHECK_STATUS(enroll_phone(ctx, user, number, name, eid), MFA_OK)

/* mfa_phone_start_sign_in: the verification id in `vid` ("" if none). */
static inline int start_sign_in_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *eid,
                                   const char *app_cred, char vid[TOKEN_MAX], int line) {
    char sentinel = 0;
    char *out = &sentinel;
    char *err = NULL;
    int status = mfa_phone_start_sign_in(ctx, &out, cred, tenant, eid, app_cred, &err);
    vid[0] = '\0';
    if (answer_ok_at(status, out, &sentinel, err, line)) {
        snprintf(vid, TOKEN_MAX, "%s", out);
        mfa_free(out);
    }
    mfa_free(err);
    return status;
}
#define start_sign_in(ctx, cred, tenant, eid, app_cred, vid) \
    start_sign_in_at(ctx, cred, tenant, eid, app_cred, vid, __LINE__)

/* mfa_resolve_phone: a phone result, at g_now, exactly with MFA_OK. */
static inline int resolve_phone_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *vid,
                                   const char *code, int line) {
    mfa_sign_in_result sentinel;
    mfa_sign_in_result *result = &sentinel;
    char *err = NULL;
    int status = mfa_resolve_phone(ctx, &result, cred, tenant, vid, code, &err);
    if (answer_ok_at(status, result, &sentinel, err, line)) {
        CHECK_AT(result->factor_id && strcmp(result->factor_id, "phone") == 0, line);
        CHECK_AT(result->kind == MFA_FACTOR_PHONE, line);
        CHECK_AT(result->time == g_now, line);
        mfa_sign_in_result_free(result);
    }
    mfa_free(err);
    return status;
}
#define resolve_phone(ctx, cred, tenant, vid, code) resolve_phone_at(ctx, cred, tenant, vid, code, __LINE__)

/* The whole second step with the phone factor `eid` whose number is `number`. */
static inline int sign_in_phone_at(mfa_ctx *ctx, const mfa_user *user, const char *eid, const char *number,
                                   int line) {
    char cred[TOKEN_MAX], vid[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    int status = begin_sign_in_at(ctx, user, cred, line);
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) return status;
    status = start_sign_in_at(ctx, cred, user->tenant, eid, GOOD_CRED, vid, line);
    if (status != MFA_OK) return status;
    if (!sms_code_at(number, code, line)) return MFA_ERR_INTERNAL;
    return resolve_phone_at(ctx, cred, user->tenant, vid, code, line);
}
#define sign_in_phone(ctx, user, eid, number) sign_in_phone_at(ctx, user, eid, number, __LINE__)

/* A new recovery-code set for `user` (session now, mfa_recovery_codes_generate): the status;
 * on MFA_OK `f` holds the set's enrollment id and its codes. */
static inline int generate_codes_at(mfa_ctx *ctx, const mfa_user *user, const char *display_name, factor *f,
                                    int line) {
    mfa_user fresh = *user;
    char *session = NULL;
    char *err = NULL;
    mfa_recovery_codes *set = NULL;
    int status;
    memset(f, 0, sizeof *f);
    f->kind = MFA_FACTOR_RECOVERY_CODES;
    fresh.auth_time = g_now;
    status = mfa_session_new(ctx, &session, &fresh, &err);
    mfa_free(err);
    err = NULL;
    if (status != MFA_OK) return status;
    status = mfa_recovery_codes_generate(ctx, &set, session, display_name, &err);
    mfa_free(session);
    CHECK_AT((status == MFA_OK) == (set != NULL), line);
    if (set) {
        CHECK_AT(set->count >= 8 && set->count <= RECOVERY_MAX, line);
        CHECK_AT(set->factor.kind == MFA_FACTOR_RECOVERY_CODES, line);
        CHECK_AT(set->factor.factor_id && strcmp(set->factor.factor_id, "recovery") == 0, line);
        CHECK_AT(set->factor.remaining_codes == (int64_t)set->count, line);
        snprintf(f->eid, sizeof f->eid, "%s", set->factor.uid ? set->factor.uid : "");
        for (size_t i = 0; i < set->count && i < RECOVERY_MAX; i++) {
            snprintf(f->codes[i], sizeof f->codes[i], "%s", set->codes[i]);
            f->code_count++;
        }
        f->enrolled_at = g_now;
    }
    mfa_free(err);
    mfa_recovery_codes_free(set);
    return status;
}
#define generate_codes(ctx, user, name, f) generate_codes_at(ctx, user, name, f, __LINE__)

/* mfa_resolve with a recovery code (and the set's enrollment id, or NULL); on MFA_OK
 * `*remaining` (if not NULL) gets the claim recovery_codes_remaining (-1 if it is missing). */
static inline int resolve_code_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *eid,
                                  const char *code, long *remaining, int line) {
    mfa_assertion assertion = assertion_of(MFA_FACTOR_RECOVERY_CODES);
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    int status;
    assertion.enrollment_id = eid;
    assertion.code = code;
    status = mfa_resolve(ctx, &result, cred, tenant, &assertion, &err);
    CHECK_AT((status == MFA_OK) == (result != NULL), line);
    CHECK_AT((status == MFA_OK) == (err == NULL), line);
    if (remaining) *remaining = -1;
    if (result) {
        CHECK_AT(result->kind == MFA_FACTOR_RECOVERY_CODES, line);
        CHECK_AT(result->factor_id && strcmp(result->factor_id, "recovery") == 0, line);
        for (size_t i = 0; i < result->claim_count; i++) {
            if (remaining && strcmp(result->claims[i].name, "recovery_codes_remaining") == 0) {
                *remaining = atol(result->claims[i].value);
            }
        }
    }
    mfa_sign_in_result_free(result);
    mfa_free(err);
    return status;
}
#define resolve_code(ctx, cred, tenant, eid, code, remaining) \
    resolve_code_at(ctx, cred, tenant, eid, code, remaining, __LINE__)

#endif
