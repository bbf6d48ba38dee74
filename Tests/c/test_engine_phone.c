/*
 * The SMS second factor through the C ABI, end to end (SPEC.md flows 3 and
 * 5 for phone, and every error they can give).
 *
 * Time is an injected clock (g_now), so expiry, cooldowns, quota windows and
 * backoff are tested without sleeping. SMS messages go to a recording
 * mfa_sms_sender_fn (it keeps the number and the message, and can be told to
 * fail); the code is read back from the recorded message, the way a user
 * reads it from the phone. The app verifier accepts "good-token" only and
 * records what it was asked. Every audit event is checked, as it arrives,
 * for phone numbers and codes.
 *
 *   flow            session, start enrollment, code, enroll, sign in, masked
 *                   hint, start sign-in with the hint's id, resolve
 *   masking         '+', first digit, one star per hidden digit, last four
 *   numbers         strict E.164: what INVALID_PHONE_NUMBER, 7 and 15 digits
 *   app verifier    MISSING/INVALID_APP_CREDENTIAL, OPERATION_NOT_ALLOWED
 *                   (phone disabled; no verifier while the config requires
 *                   one), appVerification DISABLED
 *   codes           SECOND_FACTOR_EXISTS, INVALID_VERIFICATION_CODE,
 *                   CODE_EXPIRED, every INVALID_SESSION
 *   limits          resend cooldown; per number, user and tenant caps, hour
 *                   and day windows, and their reset
 *   sender failure  SMS_SEND_FAILED costs nothing; no sender at all
 *   outbox          sms_outbox JSON lines; sender and outbox together
 *   lookups         MFA_ENROLLMENT_NOT_FOUND, another user's factor, TENANT_MISMATCH
 *   backoff         wrong SMS codes across verification ids at sign-in
 *   mixed           phone and TOTP hints, sign in with either
 *   brute force     10^4 guesses on one verification id, enrollment and sign-in
 *   test numbers    never sent, never counted, fixed code
 *   key rotation    cooldown and per-number cap survive a new master key;
 *                   old codes verify; factors sign in after mfa_rotate_keys
 *   at rest         no code and no number digits in the SQLite file or WAL
 *   audit           SMS_SENT (and SMS_SEND_FAILED), no number or code anywhere
 *   bad input       NULL and malformed arguments of the four phone functions
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

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

static const char *PHONE_ON = "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"}}";
static const char *PHONE_TOTP_ON = "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"}}";

/* The injected clock. */
static int64_t g_now = START_TIME;

/* ------------------------------------------------------------------ */
/* What must never appear in an audit event: numbers and codes          */
/* ------------------------------------------------------------------ */

#define SECRET_NUMBERS 512
#define SECRET_CODES 64
static char g_numbers[SECRET_NUMBERS][24]; /* digits only, no '+' */
static size_t g_number_count;
static char g_codes[SECRET_CODES][8];
static unsigned long g_code_count;

static void note_number(const char *number) {
    const char *digits = number[0] == '+' ? number + 1 : number;
    for (size_t i = 0; i < g_number_count; i++) {
        if (strcmp(g_numbers[i], digits) == 0) return;
    }
    if (g_number_count < SECRET_NUMBERS) snprintf(g_numbers[g_number_count++], 24, "%s", digits);
}

static void note_code(const char *code) {
    snprintf(g_codes[g_code_count++ % SECRET_CODES], 8, "%s", code);
}

/* Which number or code `text` reveals, or NULL. */
static const char *leak_in(const char *text) {
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

static int parse_sms(const char *message, char code[MFA_CODE_BUFFER_SIZE]) {
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

static int sms_record(void *context, const char *to, const char *message) {
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
static int sms_code_at(const char *number, char code[MFA_CODE_BUFFER_SIZE], int line) {
    code[0] = '\0';
    for (unsigned long i = g_sms.sent; i > 0 && g_sms.sent - i < SMS_RING; i--) {
        const sms_message *m = &g_sms.ring[(i - 1) % SMS_RING];
        if (strcmp(m->to, number) == 0) {
            int ok = parse_sms(m->message, code);
            if (!ok) fprintf(stderr, "%s:%d: malformed SMS to %s: \"%s\"\n", __FILE__, line, number, m->message);
            CHECK_AT(ok, line);
            return ok;
        }
    }
    fprintf(stderr, "%s:%d: no SMS was sent to %s\n", __FILE__, line, number);
    CHECK_AT(!"an SMS was sent", line);
    return 0;
}
#define sms_code(number, code) sms_code_at(number, code, __LINE__)

static const sms_message *last_sms(void) {
    return g_sms.sent ? &g_sms.ring[(g_sms.sent - 1) % SMS_RING] : NULL;
}

/* A code that is certainly not `code`: its last digit changed. */
static void wrong_code(char out[MFA_CODE_BUFFER_SIZE], const char *code) {
    snprintf(out, MFA_CODE_BUFFER_SIZE, "%s", code);
    if (strlen(out) == 6) out[5] = (char)('0' + (out[5] - '0' + 1) % 10);
}

/* ------------------------------------------------------------------ */
/* App verifier                                                         */
/* ------------------------------------------------------------------ */

typedef struct verifier_state {
    unsigned long calls;
    int32_t last_action;
    char last_credential[64];
} verifier_state;

static verifier_state g_verifier;

static int verify_app(void *context, const char *credential, int32_t action) {
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
    size_t count; /* events since the last reset (only the first AUDIT_MAX are kept) */
    unsigned long total;
    unsigned long leaks;
    audit_record events[AUDIT_MAX];
} audit_log;

static audit_log g_audit;

static void audit_callback(void *context, const mfa_audit_event *event) {
    audit_log *log = context;
    char all[1024];
    const char *leak;
    log->total++;
    snprintf(all, sizeof all, "%s|%s|%s|%s|%s|%s", event->kind_name ? event->kind_name : "",
             event->tenant ? event->tenant : "", event->uid ? event->uid : "",
             event->factor_id ? event->factor_id : "", event->enrollment_id ? event->enrollment_id : "",
             event->detail ? event->detail : "");
    if ((leak = leak_in(all)) != NULL) {
        if (log->leaks++ < 5) fprintf(stderr, "audit event reveals %s: %s\n", leak, all);
    }
    if (!event->kind_name || !event->tenant || !event->uid || !event->factor_id || !event->enrollment_id ||
        !event->detail) {
        log->leaks++;
        fprintf(stderr, "audit event with a NULL string: %s\n", all);
    }
    if (log->count < AUDIT_MAX) {
        audit_record_copy(&log->events[log->count], event);
    }
    log->count++;
}

static size_t count_events(int32_t kind, const char *detail) {
    size_t n = 0;
    for (size_t i = 0; i < g_audit.count && i < AUDIT_MAX; i++) {
        if (g_audit.events[i].kind == kind && (!detail || strcmp(g_audit.events[i].detail, detail) == 0)) n++;
    }
    return n;
}

static const audit_record *find_event(int32_t kind, const char *uid, const char *detail) {
    for (size_t i = 0; i < g_audit.count && i < AUDIT_MAX; i++) {
        const audit_record *e = &g_audit.events[i];
        if (e->kind == kind && (!uid || strcmp(e->uid, uid) == 0) && (!detail || strcmp(e->detail, detail) == 0)) {
            return e;
        }
    }
    return NULL;
}

static void reset_recorders(void) {
    memset(&g_sms, 0, sizeof g_sms);
    memset(&g_verifier, 0, sizeof g_verifier);
    g_audit.count = 0;
}

/* ------------------------------------------------------------------ */
/* Contexts and users                                                   */
/* ------------------------------------------------------------------ */

static char temp_dir[256];

/* Options with the injected clock, the recording sender, the verifier and the audit log. */
static void phone_options(mfa_options *options, const char *store) {
    test_options(options, store, &g_now);
    options->sms_sender = sms_record;
    options->sms_sender_context = &g_sms;
    options->app_verifier = verify_app;
    options->app_verifier_context = &g_verifier;
    options->audit = audit_callback;
    options->audit_context = &g_audit;
}

/* A fresh in-memory context with the recorders and `config` for the project. */
static mfa_ctx *open_phone_at(const char *config, int line) {
    mfa_options options;
    mfa_ctx *ctx;
    phone_options(&options, ":memory:");
    ctx = open_with_at(&options, line);
    if (ctx && config) set_config_at(ctx, NULL, config, line);
    return ctx;
}
#define open_phone(config) open_phone_at(config, __LINE__)

static void user_make(mfa_user *user, const char *uid, const char *tenant) {
    CHECK_STATUS(test_user(user, uid, tenant, "user@example.com", g_now), MFA_OK);
    user->provider = "password";
}

/* ------------------------------------------------------------------ */
/* The steps of the flows                                               */
/* ------------------------------------------------------------------ */

/* Checks the shape of an answer (`out` was `sentinel` before the call): on MFA_OK a
 * result and no message, otherwise no result and a message. Whether there is a result. */
static int answer_ok_at(int status, const void *out, const void *sentinel, const char *err, int line) {
    if (status != MFA_OK) {
        CHECK_AT(out == NULL, line);
        CHECK_AT(err != NULL, line);
        return 0;
    }
    CHECK_AT(out != NULL && out != sentinel, line);
    CHECK_AT(err == NULL, line);
    return out && out != sentinel;
}

/* mfa_phone_start_enrollment on an existing session. */
static int start_with_session_at(mfa_ctx *ctx, const char *session, const char *number, const char *app_cred,
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
static int start_enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *number, const char *app_cred,
                           char vid[TOKEN_MAX], int line) {
    mfa_user fresh = *user;
    char *session = NULL;
    char *err = NULL;
    int status;
    vid[0] = '\0';
    fresh.auth_time = g_now;
    status = mfa_session_new(ctx, &session, &fresh, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "%s:%d: mfa_session_new: %s: %s\n", __FILE__, line, mfa_status_name(status), err ? err : "");
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
static int finish_enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *vid, const char *code,
                            const char *display_name, const char *number, char eid[64], int line) {
    mfa_factor_info sentinel;
    mfa_factor_info *info = &sentinel;
    char *err = NULL;
    int status = mfa_phone_enroll(ctx, &info, user, vid, code, display_name, &err);
    if (eid) eid[0] = '\0';
    if (answer_ok_at(status, info, &sentinel, err, line)) {
        CHECK_AT(info->factor_id && strcmp(info->factor_id, "phone") == 0, line);
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

/* The whole enrollment: session, SMS, code from the message, enroll. */
static int enroll_phone_at(mfa_ctx *ctx, const mfa_user *user, const char *number, const char *display_name,
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

static int start_sign_in_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *eid, const char *app_cred,
                            char vid[TOKEN_MAX], int line) {
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

static int resolve_phone_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *vid, const char *code,
                            int line) {
    mfa_sign_in_result sentinel;
    mfa_sign_in_result *result = &sentinel;
    char *err = NULL;
    int status = mfa_resolve_phone(ctx, &result, cred, tenant, vid, code, &err);
    if (answer_ok_at(status, result, &sentinel, err, line)) {
        CHECK_AT(result->factor_id && strcmp(result->factor_id, "phone") == 0, line);
        CHECK_AT(result->time == g_now, line);
        mfa_sign_in_result_free(result);
    }
    mfa_free(err);
    return status;
}
#define resolve_phone(ctx, cred, tenant, vid, code) resolve_phone_at(ctx, cred, tenant, vid, code, __LINE__)

/* The whole second step with the phone factor `eid` whose number is `number`. */
static int sign_in_phone_at(mfa_ctx *ctx, const mfa_user *user, const char *eid, const char *number, int line) {
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

/* ------------------------------------------------------------------ */
/* Flows 3 and 5                                                        */
/* ------------------------------------------------------------------ */

static void test_flow(void) {
    mfa_ctx *ctx;
    mfa_user alice;
    char *session = NULL, *err = NULL, *vid = NULL, *vid2 = NULL;
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE];
    char eid[64] = "", cred[TOKEN_MAX];
    mfa_factor_info *info = NULL;
    mfa_factor_list *list = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    const sms_message *sms;
    int64_t enrolled_at;
    bool passed = false;

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&alice, "alice", NULL);

    /* 3. Enroll a phone: session; start verification (app check, SMS); code; enroll. */
    CHECK_ERR(mfa_session_new(ctx, &session, &alice, &err), MFA_OK, err);
    CHECK_ERR(mfa_phone_start_enrollment(ctx, &vid, session, "+15105551234", GOOD_CRED, &err), MFA_OK, err);
    CHECK(vid != NULL && strlen(vid) > 0);
    CHECK(g_verifier.calls == 1);
    CHECK(g_verifier.last_action == MFA_APP_ACTION_ENROLLMENT);
    CHECK(strcmp(g_verifier.last_credential, GOOD_CRED) == 0);
    CHECK(g_sms.sent == 1);
    sms = last_sms();
    CHECK(sms && strcmp(sms->to, "+15105551234") == 0);
    CHECK(sms && parse_sms(sms->message, code));
    if (!sms) return;
    parse_sms(sms->message, code);
    /* The verification id is opaque: neither the number nor the code shows. */
    CHECK(!contains(vid, "5105551234") && !contains(vid, "5551234") && !contains_code(vid, code));
    /* The session is not used up by sending the code. */
    CHECK_ERR(mfa_phone_enroll(ctx, &info, &alice, vid, code, "Work phone", &err), MFA_OK, err);
    CHECK(info != NULL);
    if (info) {
        CHECK(strcmp(info->factor_id, "phone") == 0);
        CHECK(info->phone_number && strcmp(info->phone_number, "+15105551234") == 0);
        CHECK(info->display_name && strcmp(info->display_name, "Work phone") == 0);
        CHECK(strlen(info->uid) == 28);
        CHECK(info->enrollment_time == g_now);
        snprintf(eid, sizeof eid, "%s", info->uid);
    }
    enrolled_at = g_now;
    mfa_factor_info_free(info);
    info = NULL;
    /* Enrollment revokes the credentials issued before it. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "alice", g_now - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "alice", g_now), MFA_OK);
    /* The list shows the number in full. */
    CHECK_STATUS(mfa_factors_list(ctx, &list, &alice, NULL), MFA_OK);
    CHECK(list && list->count == 1);
    if (list && list->count == 1) {
        CHECK(strcmp(list->items[0].uid, eid) == 0);
        CHECK(strcmp(list->items[0].factor_id, "phone") == 0);
        CHECK(list->items[0].phone_number && strcmp(list->items[0].phone_number, "+15105551234") == 0);
    }
    mfa_factor_list_free(list);
    list = NULL;
    /* The same session cannot enroll again, nor the same code. */
    CHECK_ERR(mfa_phone_enroll(ctx, &info, &alice, vid, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(factor_count(ctx, &alice) == 1);

    /* 5. Sign in: first factor; second factor required; hints with the masked number. */
    g_now += 31;
    alice.auth_time = g_now;
    CHECK_ERR(mfa_sign_in(ctx, &resolver, &alice, &err), MFA_ERR_SECOND_FACTOR_REQUIRED, err);
    CHECK(resolver != NULL);
    if (!resolver) {
        mfa_free(vid);
        mfa_free(session);
        mfa_close(ctx);
        return;
    }
    CHECK(strcmp(resolver->uid, "alice") == 0);
    CHECK(resolver->tenant == NULL);
    CHECK(resolver->hint_count == 1);
    if (resolver->hint_count == 1) {
        const mfa_factor_info *hint = &resolver->hints[0];
        CHECK(strcmp(hint->uid, eid) == 0);
        CHECK(strcmp(hint->factor_id, "phone") == 0);
        CHECK(hint->phone_number && strcmp(hint->phone_number, "+1******1234") == 0);
        CHECK(hint->display_name && strcmp(hint->display_name, "Work phone") == 0);
        CHECK(hint->enrollment_time == enrolled_at);
    }
    snprintf(cred, sizeof cred, "%s", resolver->session);
    CHECK(!contains(cred, "5105551234"));
    mfa_resolver_free(resolver);
    resolver = NULL;
    /* The resolver rebuilt from the pending credential masks the same way. */
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_OK, err);
    CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].phone_number &&
          strcmp(resolver->hints[0].phone_number, "+1******1234") == 0);
    mfa_resolver_free(resolver);
    resolver = NULL;
    /* The user picks the hint: an SMS goes to the full number. */
    g_verifier.calls = 0;
    CHECK_ERR(mfa_phone_start_sign_in(ctx, &vid2, cred, NULL, eid, GOOD_CRED, &err), MFA_OK, err);
    CHECK(vid2 != NULL && (!vid || strcmp(vid, vid2) != 0));
    CHECK(g_verifier.calls == 1 && g_verifier.last_action == MFA_APP_ACTION_SIGN_IN);
    CHECK(g_sms.sent == 2);
    sms = last_sms();
    CHECK(sms && strcmp(sms->to, "+15105551234") == 0 && parse_sms(sms->message, code2));
    if (sms) parse_sms(sms->message, code2);
    /* The code + the verification id resolve the sign-in. */
    CHECK_ERR(mfa_resolve_phone(ctx, &result, cred, NULL, vid2, code2, &err), MFA_OK, err);
    CHECK(result != NULL);
    if (result) {
        CHECK(strcmp(result->uid, "alice") == 0);
        CHECK(result->tenant == NULL);
        CHECK(strcmp(result->factor_id, "phone") == 0);
        CHECK(strcmp(result->enrollment_id, eid) == 0);
        CHECK(result->time == g_now);
    }
    mfa_sign_in_result_free(result);
    result = NULL;
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "alice", 0), MFA_OK);
    CHECK(passed);
    /* The code and the pending credential are used up. */
    CHECK_ERR(mfa_resolve_phone(ctx, &result, cred, NULL, vid2, code2, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(result == NULL);
    {
        char again[TOKEN_MAX];
        unsigned long sent = g_sms.sent;
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, again), MFA_ERR_INVALID_SESSION);
        CHECK(g_sms.sent == sent);
    }
    /* Another sign-in, later, works the same way. */
    g_now += 31;
    CHECK_STATUS(sign_in_phone(ctx, &alice, eid, "+15105551234"), MFA_OK);

    mfa_free(vid);
    mfa_free(vid2);
    mfa_free(session);
    mfa_close(ctx);
}

/* Hints show '+', the first digit, one star per hidden digit, the last four digits. */
static void test_masking(void) {
    static const struct {
        const char *number;
        const char *masked;
    } cases[] = {
        {"+15105551234", "+1******1234"},      /* 11 digits */
        {"+447911123456", "+4*******3456"},    /* 12 digits */
        {"+6831234", "+6**1234"},              /* 7 digits, the shortest */
        {"+861234567890123", "+8**********0123"}, /* 15 digits, the longest */
    };
    enum { N = sizeof cases / sizeof cases[0] };
    mfa_ctx *ctx;
    mfa_user user;
    char eids[N][64];
    mfa_resolver *resolver = NULL;

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&user, "masked-user", NULL);
    for (int i = 0; i < N; i++) {
        ENROLL_PHONE_OK(ctx, &user, cases[i].number, NULL, eids[i]);
        g_now += 1;
    }
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == N);
    for (int i = 0; resolver && i < N; i++) {
        int found = 0;
        for (size_t h = 0; h < resolver->hint_count; h++) {
            const mfa_factor_info *hint = &resolver->hints[h];
            if (strcmp(hint->uid, eids[i]) != 0) continue;
            found = 1;
            CHECK(hint->phone_number != NULL);
            if (hint->phone_number && strcmp(hint->phone_number, cases[i].masked) != 0) {
                fprintf(stderr, "hint of %s is %s, want %s\n", cases[i].number, hint->phone_number, cases[i].masked);
                CHECK(!"masked as specified");
            }
        }
        CHECK(found);
    }
    mfa_resolver_free(resolver);
    mfa_close(ctx);
}

/* Strict E.164: '+', then 7 to 15 digits, the first not 0. */
static void test_phone_numbers(void) {
    static const char *invalid[] = {
        "+1 510 555 1234", "+1-510-555-1234", "+1.510.555.1234", "+1(510)5551234", "+1 5105551234",
        "15105551234",     "0015105551234",   "+05105551234",    "+0",             "+123456",
        "+1234567890123456", "+12345678901234567890", "+1510555ABCD", "+1510555123a", "+1510555123x",
        "",                "+",               "++15105551234",   " +15105551234",  "+15105551234 ",
        "+15105551234\n",  "+1510555\t1234",  "tel:+15105551234", "+1510555123\xd9\xa4", /* Arabic-Indic 4 */
        "+\357\274\2215105551234", /* fullwidth 1 (octal escapes stop after 3 digits) */
        "+-15105551234",   "+1/5105551234",   "+1510555123#",
    };
    mfa_ctx *ctx;
    mfa_user user;
    char *session = NULL;
    char vid[TOKEN_MAX];

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&user, "e164-user", NULL);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        int status = start_with_session(ctx, session, invalid[i], GOOD_CRED, vid);
        if (status != MFA_ERR_INVALID_PHONE_NUMBER) {
            fprintf(stderr, "number \"%s\" gave %s, want INVALID_PHONE_NUMBER\n", invalid[i], mfa_status_name(status));
        }
        CHECK(status == MFA_ERR_INVALID_PHONE_NUMBER);
    }
    CHECK(g_sms.calls == 0);
    /* 7 and 15 digits are accepted, and the SMS goes to exactly that number. */
    CHECK_STATUS(start_with_session(ctx, session, "+1234567", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.sent == 1 && strcmp(last_sms()->to, "+1234567") == 0);
    CHECK_STATUS(start_with_session(ctx, session, "+123456789012345", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.sent == 2 && strcmp(last_sms()->to, "+123456789012345") == 0);
    CHECK_STATUS(start_with_session(ctx, session, "+987654321098765", GOOD_CRED, vid), MFA_OK);
    /* And they enroll. */
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+987654321098765", code)) {
            CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+987654321098765", NULL), MFA_OK);
        }
    }
    mfa_free(session);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* App verification and disabled providers                              */
/* ------------------------------------------------------------------ */

static void test_app_verification(void) {
    mfa_ctx *ctx;
    mfa_options options;
    mfa_user user;
    char *session = NULL;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64];
    unsigned long sent;

    /* A verifier, appVerification REQUIRED (the default). */
    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&user, "verified-app", NULL);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_STATUS(start_with_session(ctx, session, "+15105552001", NULL, vid), MFA_ERR_MISSING_APP_CREDENTIAL);
    CHECK_STATUS(start_with_session(ctx, session, "+15105552001", "", vid), MFA_ERR_MISSING_APP_CREDENTIAL);
    g_verifier.calls = 0;
    CHECK_STATUS(start_with_session(ctx, session, "+15105552001", BAD_CRED, vid), MFA_ERR_INVALID_APP_CREDENTIAL);
    CHECK(g_verifier.calls == 1);
    CHECK(g_verifier.last_action == MFA_APP_ACTION_ENROLLMENT);
    CHECK(strcmp(g_verifier.last_credential, BAD_CRED) == 0);
    CHECK(g_sms.calls == 0);
    /* Refusals cost nothing: the good credential sends at once (no cooldown taken). */
    ENROLL_PHONE_OK(ctx, &user, "+15105552001", NULL, eid);
    CHECK(g_sms.sent == 1);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    sent = g_sms.calls;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, NULL, vid), MFA_ERR_MISSING_APP_CREDENTIAL);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, "", vid), MFA_ERR_MISSING_APP_CREDENTIAL);
    g_verifier.calls = 0;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, BAD_CRED, vid), MFA_ERR_INVALID_APP_CREDENTIAL);
    CHECK(g_verifier.calls == 1 && g_verifier.last_action == MFA_APP_ACTION_SIGN_IN);
    CHECK(g_sms.calls == sent);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == sent + 1);
    mfa_free(session);
    session = NULL;
    mfa_close(ctx);

    /* No verifier while the configuration requires one: OPERATION_NOT_ALLOWED. */
    reset_recorders();
    phone_options(&options, ":memory:");
    options.app_verifier = NULL;
    options.app_verifier_context = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, PHONE_ON);
    user_make(&user, "no-verifier", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552002", GOOD_CRED, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552002", NULL, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK(g_sms.calls == 0);
    /* appVerification DISABLED: no verifier needed, no credential needed. */
    set_config(ctx, NULL,
               "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},\"phone\":{\"appVerification\":\"DISABLED\"}}");
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552002", NULL, vid), MFA_OK);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+15105552002", code)) {
            CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105552002", eid), MFA_OK);
        }
    }
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, NULL, vid), MFA_OK);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+15105552002", code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* Back to REQUIRED: sign-in SMS refused too, with any credential. */
    set_config(ctx, NULL, PHONE_ON);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    sent = g_sms.calls;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, NULL, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK(g_sms.calls == sent);
    mfa_close(ctx);

    /* A verifier registered, appVerification DISABLED: a credential it would reject is not needed. */
    reset_recorders();
    ctx = open_phone("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"phone\":{\"appVerification\":\"DISABLED\"}}");
    user_make(&user, "verifier-off", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552003", BAD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552004", NULL, vid), MFA_OK);
    mfa_close(ctx);

    /* The phone provider disabled: OPERATION_NOT_ALLOWED when starting and when finishing. */
    reset_recorders();
    ctx = open_phone(PHONE_TOTP_ON);
    user_make(&user, "phone-off", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105552005", NULL, eid);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552006", GOOD_CRED, vid), MFA_OK);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"DISABLED\"}}");
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+15105552006", code)) {
            CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, NULL, NULL), MFA_ERR_OPERATION_NOT_ALLOWED);
        }
    }
    sent = g_sms.calls;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552007", GOOD_CRED, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK(g_sms.calls == sent);
    /* A factor enrolled before keeps working (README: "Disabling a provider
     * stops new enrollments; factors already enrolled keep working"). */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == sent + 1);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+15105552005", code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* A tenant can disable phone while the project allows it. */
    sent = g_sms.calls;
    set_config(ctx, NULL, PHONE_TOTP_ON);
    set_config(ctx, "tenant-no-phone", "{\"providers\":{\"phone\":\"DISABLED\"}}");
    {
        mfa_user tenant_user;
        user_make(&tenant_user, "phone-off", "tenant-no-phone");
        CHECK_STATUS(start_enroll(ctx, &tenant_user, "+15105552008", GOOD_CRED, vid), MFA_ERR_OPERATION_NOT_ALLOWED);
        CHECK(g_sms.calls == sent);
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Codes: exists, wrong, expired, every invalid session                 */
/* ------------------------------------------------------------------ */

static void test_enrollment_codes(void) {
    mfa_ctx *ctx;
    mfa_user alice, bob;
    char vid[TOKEN_MAX], vid2[TOKEN_MAX], eid[64];
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_phone(PHONE_TOTP_ON);
    user_make(&alice, "codes-alice", NULL);
    user_make(&bob, "codes-bob", NULL);

    /* SECOND_FACTOR_EXISTS when starting: no SMS is sent. */
    ENROLL_PHONE_OK(ctx, &alice, "+15105553001", NULL, eid);
    g_now += 31;
    sent = g_sms.calls;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553001", GOOD_CRED, vid), MFA_ERR_SECOND_FACTOR_EXISTS);
    CHECK(g_sms.calls == sent);
    /* Another user may have the same number. */
    ENROLL_PHONE_OK(ctx, &bob, "+15105553001", NULL, NULL);
    /* SECOND_FACTOR_EXISTS when finishing: two codes for one number, both started before either finished. */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553002", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553002", code);
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553002", GOOD_CRED, vid2), MFA_OK);
    sms_code("+15105553002", code2);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, code, NULL, "+15105553002", NULL), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid2, code2, NULL, NULL, NULL), MFA_ERR_SECOND_FACTOR_EXISTS);
    CHECK(factor_count(ctx, &alice) == 2);

    /* A wrong code is INVALID_VERIFICATION_CODE and the user may retry (malformed ones too). */
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553003", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553003", code);
    wrong_code(wrong, code);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, wrong, NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, "12345", NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, "abcdef", NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, "", NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, code, "retried", "+15105553003", NULL), MFA_OK);
    /* Used: INVALID_SESSION. */
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(factor_count(ctx, &alice) == 3);

    /* Five wrong codes kill the verification id: then even the right code is INVALID_SESSION. */
    CHECK_STATUS(start_enroll(ctx, &bob, "+15105553004", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553004", code);
    wrong_code(wrong, code);
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(finish_enroll(ctx, &bob, vid, wrong, NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    CHECK_STATUS(finish_enroll(ctx, &bob, vid, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(finish_enroll(ctx, &bob, vid, wrong, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    /* A new code for the same number works. */
    g_now += 31;
    ENROLL_PHONE_OK(ctx, &bob, "+15105553004", NULL, NULL);

    /* CODE_EXPIRED: smsCodeLifetime is 300 s. */
    CHECK_STATUS(start_enroll(ctx, &bob, "+15105553005", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553005", code);
    CHECK_STATUS(start_enroll(ctx, &bob, "+15105553006", GOOD_CRED, vid2), MFA_OK);
    sms_code("+15105553006", code2);
    g_now += 299;
    CHECK_STATUS(finish_enroll(ctx, &bob, vid, code, NULL, "+15105553005", NULL), MFA_OK);
    g_now += 2;
    CHECK_STATUS(finish_enroll(ctx, &bob, vid2, code2, NULL, NULL, NULL), MFA_ERR_CODE_EXPIRED);
    CHECK_STATUS(finish_enroll(ctx, &bob, vid2, code2, NULL, NULL, NULL), MFA_ERR_CODE_EXPIRED);
    /* A shorter configured lifetime is honoured. */
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsCodeLifetime\":60}}");
    CHECK_STATUS(start_enroll(ctx, &bob, "+15105553007", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553007", code);
    g_now += 61;
    CHECK_STATUS(finish_enroll(ctx, &bob, vid, code, NULL, NULL, NULL), MFA_ERR_CODE_EXPIRED);
    set_config(ctx, NULL, PHONE_TOTP_ON);

    /* INVALID_SESSION: tampered, truncated, garbage, or another kind of token. */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553008", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553008", code);
    snprintf(vid2, sizeof vid2, "%s", vid);
    tamper(vid2);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid2, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    snprintf(vid2, sizeof vid2, "%s", vid);
    vid2[strlen(vid2) - 1] = '\0';
    CHECK_STATUS(finish_enroll(ctx, &alice, vid2, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(finish_enroll(ctx, &alice, "v1.garbage", code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(finish_enroll(ctx, &alice, "", code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    {
        char *session = NULL;
        char cred[TOKEN_MAX];
        mfa_user fresh = alice;
        fresh.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK);
        CHECK_STATUS(finish_enroll(ctx, &alice, session, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
        mfa_free(session);
        SIGN_IN_REQUIRED(ctx, &alice, cred);
        CHECK_STATUS(finish_enroll(ctx, &alice, cred, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    }
    /* Another user's verification id: INVALID_SESSION, and it is not burnt for its owner. */
    CHECK_STATUS(finish_enroll(ctx, &bob, vid, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, code, NULL, "+15105553008", NULL), MFA_OK);
    CHECK(factor_count(ctx, &bob) == 3);

    /* A sign-in verification id cannot enroll. */
    {
        mfa_user carol;
        char cred[TOKEN_MAX], carol_eid[64];
        user_make(&carol, "codes-carol", NULL);
        ENROLL_PHONE_OK(ctx, &carol, "+15105553009", NULL, carol_eid);
        g_now += 31;
        SIGN_IN_REQUIRED(ctx, &carol, cred);
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
        sms_code("+15105553009", code);
        CHECK_STATUS(finish_enroll(ctx, &carol, vid, code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
        CHECK(factor_count(ctx, &carol) == 1);
        /* ...and the attempt did not use it up for signing in. */
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* An expired session cannot start a verification. */
    {
        char *session = NULL;
        mfa_user fresh = alice;
        fresh.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK);
        g_now += 601;
        sent = g_sms.calls;
        CHECK_STATUS(start_with_session(ctx, session, "+15105553010", GOOD_CRED, vid), MFA_ERR_INVALID_SESSION);
        if (session) tamper(session);
        g_now -= 601;
        CHECK_STATUS(start_with_session(ctx, session, "+15105553010", GOOD_CRED, vid), MFA_ERR_INVALID_SESSION);
        g_now += 601;
        CHECK(g_sms.calls == sent);
        mfa_free(session);
    }
    mfa_close(ctx);
}

static void test_sign_in_codes(void) {
    mfa_ctx *ctx;
    mfa_user carol, dave;
    char carol_eid[64], dave_eid[64];
    char cred[TOKEN_MAX], cred2[TOKEN_MAX], vid[TOKEN_MAX], vid2[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    const char *carol_number = "+15105554001";
    const char *dave_number = "+15105554002";

    reset_recorders();
    /* Codes live 60 s here, pending credentials 300 s: CODE_EXPIRED is reachable.
     * (Many codes go to one number: the per-number and per-user caps are raised.) */
    ctx = open_phone("{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsCodeLifetime\":60,\"smsPerNumberHour\":100,\"smsPerNumberDay\":100,"
                     "\"smsPerUserHour\":100,\"smsPerUserDay\":100}}");
    user_make(&carol, "signin-carol", NULL);
    user_make(&dave, "signin-dave", NULL);
    ENROLL_PHONE_OK(ctx, &carol, carol_number, "carol's", carol_eid);
    ENROLL_PHONE_OK(ctx, &dave, dave_number, NULL, dave_eid);

    /* A wrong code, then the right one. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    wrong_code(wrong, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, "12345"), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    /* Used: INVALID_SESSION. */
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_INVALID_SESSION);

    /* Five wrong codes kill the verification id, even for the right code; the
     * pending credential lives on and a new code works. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    wrong_code(wrong, code);
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);

    /* CODE_EXPIRED: the code is older than smsCodeLifetime, the pending credential is not. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    g_now += 61;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_CODE_EXPIRED);
    /* A fresh code on the same pending credential works. */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    g_now += 59;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    /* An expired pending credential: INVALID_SESSION. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    g_now += 301;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_ERR_INVALID_SESSION);

    /* Tampered verification id and tampered pending credential. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    snprintf(vid2, sizeof vid2, "%s", vid);
    tamper(vid2);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, "v1.garbage", code), MFA_ERR_INVALID_SESSION);
    snprintf(cred2, sizeof cred2, "%s", cred);
    tamper(cred2);
    CHECK_STATUS(resolve_phone(ctx, cred2, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(start_sign_in(ctx, cred2, NULL, carol_eid, GOOD_CRED, vid2), MFA_ERR_INVALID_SESSION);

    /* Another user's verification id (dave's code, carol's sign-in): INVALID_SESSION. */
    SIGN_IN_REQUIRED(ctx, &dave, cred2);
    CHECK_STATUS(start_sign_in(ctx, cred2, NULL, dave_eid, GOOD_CRED, vid2), MFA_OK);
    sms_code(dave_number, code2);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_ERR_INVALID_SESSION);
    /* ...and carol's verification id for dave's sign-in. */
    CHECK_STATUS(resolve_phone(ctx, cred2, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    /* Neither was used up. */
    CHECK_STATUS(resolve_phone(ctx, cred2, NULL, vid2, code2), MFA_OK);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);

    /* A verification id from another sign-in's pending credential (same user): INVALID_SESSION. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    SIGN_IN_REQUIRED(ctx, &carol, cred2);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    CHECK_STATUS(resolve_phone(ctx, cred2, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    /* cred2 was not used up by that, but vid belongs to cred. */
    CHECK_STATUS(resolve_phone(ctx, cred2, NULL, vid, code), MFA_ERR_INVALID_SESSION);

    /* An enrollment verification id cannot resolve a sign-in. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_enroll(ctx, &carol, "+15105554003", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105554003", code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    /* ...nor did that use the enrollment's code up. */
    CHECK_STATUS(finish_enroll(ctx, &carol, vid, code, NULL, "+15105554003", NULL), MFA_OK);

    /* A TOTP resolve cannot use the phone factor. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    {
        mfa_sign_in_result *result = NULL;
        int status = mfa_resolve_totp(ctx, &result, cred, NULL, carol_eid, "123456", NULL);
        CHECK(status != MFA_OK);
        CHECK(result == NULL);
        mfa_sign_in_result_free(result);
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Cooldown and quotas                                                  */
/* ------------------------------------------------------------------ */

/* A fresh user (uid `prefix`-n, `tenant`) asks for a code for `number`. */
static int send_as_at(mfa_ctx *ctx, const char *prefix, int n, const char *tenant, const char *number, int line) {
    mfa_user user;
    char uid[64], vid[TOKEN_MAX];
    snprintf(uid, sizeof uid, "%s-%d", prefix, n);
    user_make(&user, uid, tenant);
    return start_enroll_at(ctx, &user, number, GOOD_CRED, vid, line);
}
#define send_as(ctx, prefix, n, tenant, number) send_as_at(ctx, prefix, n, tenant, number, __LINE__)

static void test_cooldown(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64];
    unsigned long sent;
    int64_t t0;

    reset_recorders();
    ctx = open_phone(PHONE_ON); /* smsResendCooldown 30 s */
    user_make(&user, "cooldown-user", NULL);
    t0 = g_now;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555001", GOOD_CRED, vid), MFA_OK);
    sent = g_sms.calls;
    g_now = t0 + 10;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555001", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now = t0 + 29;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555001", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(g_sms.calls == sent);
    /* The cooldown is per number. */
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555002", GOOD_CRED, vid), MFA_OK);
    g_now = t0 + 31;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555001", GOOD_CRED, vid), MFA_OK);
    /* It counts from the last send, and the refused requests did not restart it. */
    {
        char code[MFA_CODE_BUFFER_SIZE];
        sms_code("+15105555001", code);
        CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105555001", eid), MFA_OK);
    }
    /* At sign-in too. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sent = g_sms.calls;
    g_now += 5;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(g_sms.calls == sent);
    g_now += 26;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        sms_code("+15105555001", code);
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* A configured cooldown. */
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsResendCooldown\":120}}");
    t0 = g_now;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555003", GOOD_CRED, vid), MFA_OK);
    g_now = t0 + 100;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555003", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now = t0 + 121;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105555003", GOOD_CRED, vid), MFA_OK);
    mfa_close(ctx);
}

/* One cap (per number, per user or per tenant): `hour` per hour, `day` per
 * day (hour 2, day 3 in every case); the windows slide and reset. */
enum cap_kind { CAP_NUMBER, CAP_USER, CAP_TENANT };

static void check_cap(enum cap_kind kind) {
    static const char *configs[] = {
        "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
        "\"limits\":{\"smsResendCooldown\":0,\"smsPerNumberHour\":2,\"smsPerNumberDay\":3}}",
        "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
        "\"limits\":{\"smsResendCooldown\":0,\"smsPerUserHour\":2,\"smsPerUserDay\":3}}",
        "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
        "\"limits\":{\"smsResendCooldown\":0,\"smsPerTenantHour\":2,\"smsPerTenantDay\":3}}",
    };
    static const char *names[] = {"per number", "per user", "per tenant"};
    mfa_ctx *ctx;
    int64_t t0 = g_now;
    int n = 0;          /* request counter: a new user or number each time, as the cap allows */
    int next_number = 0;
    char number[32];
    unsigned long sent0;
    const char *capped_number = "+15105556000";
    int failures_before = failures;

    reset_recorders();
    ctx = open_phone(configs[kind]);
    set_config(ctx, "cap-other-tenant", "{}");
#define NEXT_NUMBER() (snprintf(number, sizeof number, "+1510556%04d", 100 + kind * 100 + next_number++), number)
/* A request under the cap being tested: same number (per number), same user
 * (per user) or same tenant (per tenant), everything else new. */
#define REQ()                                                                    \
    send_as(ctx, kind == CAP_USER ? "cap-user" : "cap-users", kind == CAP_USER ? 0 : n++, NULL, \
            kind == CAP_NUMBER ? capped_number : NEXT_NUMBER())
    sent0 = g_sms.sent;
    g_now = t0;
    CHECK_STATUS(REQ(), MFA_OK);
    CHECK_STATUS(REQ(), MFA_OK);
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    CHECK(g_sms.sent == sent0 + 2);
    /* What the cap does not cover still goes through. */
    if (kind == CAP_NUMBER) CHECK_STATUS(send_as(ctx, "cap-users", n++, NULL, NEXT_NUMBER()), MFA_OK);
    if (kind == CAP_USER) CHECK_STATUS(send_as(ctx, "cap-user", 1, NULL, NEXT_NUMBER()), MFA_OK);
    if (kind == CAP_TENANT) CHECK_STATUS(send_as(ctx, "cap-users", n++, "cap-other-tenant", NEXT_NUMBER()), MFA_OK);
    sent0 = g_sms.sent;
    /* Still within the hour. */
    g_now = t0 + 3599;
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    /* The hour has passed: one more, then the day's cap (3). */
    g_now = t0 + 3601;
    CHECK_STATUS(REQ(), MFA_OK);
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    g_now = t0 + 2 * 3601;
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    g_now = t0 + 86399;
    CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
    CHECK(g_sms.sent == sent0 + 1);
    /* A day after the first two: they no longer count. */
    g_now = t0 + 86401;
    {
        /* This one is enrolled, so that a sign-in SMS can be counted against the same cap. */
        mfa_user user;
        char uid[64], vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], code[MFA_CODE_BUFFER_SIZE];
        const char *target = kind == CAP_NUMBER ? capped_number : NEXT_NUMBER();
        char target_copy[32];
        snprintf(target_copy, sizeof target_copy, "%s", target);
        snprintf(uid, sizeof uid, "%s-%d", kind == CAP_USER ? "cap-user" : "cap-users", kind == CAP_USER ? 0 : n++);
        user_make(&user, uid, NULL);
        CHECK_STATUS(start_enroll(ctx, &user, target_copy, GOOD_CRED, vid), MFA_OK);
        CHECK(g_sms.sent == sent0 + 2);
        if (sms_code(target_copy, code)) {
            CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, target_copy, eid), MFA_OK);
        }
        /* Hour: 1 of 2, day: 2 of 3. A sign-in SMS is the hour's second... */
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        /* ...and the next one, sign-in or enrollment, is over the cap. */
        {
            char refused[TOKEN_MAX];
            CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, refused), MFA_ERR_QUOTA_EXCEEDED);
        }
        CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
        CHECK(g_sms.sent == sent0 + 3);
        /* The code that was sent still works. */
        if (sms_code(target_copy, code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
#undef REQ
#undef NEXT_NUMBER
    if (failures > failures_before) fprintf(stderr, "(in the %s cap)\n", names[kind]);
    mfa_close(ctx);
    g_now = t0 + 86401 + 60;
}

static void test_quotas(void) {
    check_cap(CAP_NUMBER);
    check_cap(CAP_USER);
    check_cap(CAP_TENANT);
    /* The defaults: 5 per number per hour, 10 per user per hour. */
    {
        mfa_ctx *ctx;
        mfa_user user;
        char vid[TOKEN_MAX], number[32];
        int ok = 0;
        reset_recorders();
        ctx = open_phone(PHONE_ON);
        for (int i = 0; i < 8; i++) {
            g_now += 31;
            if (send_as(ctx, "default-number", i, NULL, "+15105557000") == MFA_OK) ok++;
        }
        CHECK(ok == 5);
        user_make(&user, "default-user", NULL);
        ok = 0;
        for (int i = 0; i < 13; i++) {
            snprintf(number, sizeof number, "+1510557%04d", 100 + i);
            if (start_enroll(ctx, &user, number, GOOD_CRED, vid) == MFA_OK) ok++;
        }
        CHECK(ok == 10);
        CHECK(g_sms.sent == 15);
        mfa_close(ctx);
    }
}

/* ------------------------------------------------------------------ */
/* The sender fails, or there is none                                   */
/* ------------------------------------------------------------------ */

static void test_send_failure(void) {
    mfa_ctx *ctx;
    mfa_user user, other;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], code[MFA_CODE_BUFFER_SIZE];
    char path[512];
    mfa_options options;

    /* Per-number cap 1 (and the default 30 s cooldown): a failed send must use neither. */
    reset_recorders();
    ctx = open_phone("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsPerNumberHour\":1,\"smsPerNumberDay\":1}}");
    user_make(&user, "send-fail", NULL);
    g_sms.fail = 1;
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(start_enroll(ctx, &user, "+15105558001", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
        CHECK(vid[0] == '\0');
    }
    CHECK(g_sms.calls == 3 && g_sms.sent == 0);
    CHECK(count_events(MFA_AUDIT_SMS_SENT, "SMS_SEND_FAILED") == 3);
    CHECK(count_events(MFA_AUDIT_SMS_SENT, "OK") == 0);
    {
        const audit_record *e = find_event(MFA_AUDIT_SMS_SENT, "send-fail", "SMS_SEND_FAILED");
        CHECK(e && strcmp(e->factor_id, "phone") == 0 && strcmp(e->tenant, "") == 0 && e->time == g_now);
    }
    /* Fixed: the send succeeds at once. */
    g_sms.fail = 0;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558001", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == 4 && g_sms.sent == 1);
    CHECK(count_events(MFA_AUDIT_SMS_SENT, "OK") == 1);
    if (sms_code("+15105558001", code)) {
        CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105558001", eid), MFA_OK);
    }
    /* The successful one is counted: the cap of 1 is used now. */
    g_now += 31;
    user_make(&other, "send-fail-other", NULL);
    CHECK_STATUS(start_enroll(ctx, &other, "+15105558001", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    mfa_close(ctx);

    /* At sign-in: a failed send costs nothing either. */
    reset_recorders();
    ctx = open_phone("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsPerNumberHour\":2,\"smsPerNumberDay\":2}}");
    user_make(&user, "send-fail-signin", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105558002", NULL, eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    g_sms.fail = 1;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    {
        const audit_record *e = find_event(MFA_AUDIT_SMS_SENT, "send-fail-signin", "SMS_SEND_FAILED");
        CHECK(e && strcmp(e->enrollment_id, eid) == 0 && strcmp(e->factor_id, "phone") == 0);
    }
    g_sms.fail = 0;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    if (sms_code("+15105558002", code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    mfa_close(ctx);

    /* No sender and no outbox: SMS_SEND_FAILED, and nothing is counted
     * (a context with a sender on the same store sends at once, cap 1). */
    reset_recorders();
    snprintf(path, sizeof path, "%s/no-sender.db", temp_dir);
    test_remove_sqlite(path);
    phone_options(&options, path);
    options.sms_sender = NULL;
    options.sms_sender_context = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsPerNumberHour\":1,\"smsPerUserHour\":1,\"smsPerTenantHour\":1}}");
    user_make(&user, "no-sender", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558003", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558003", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK(count_events(MFA_AUDIT_SMS_SENT, "SMS_SEND_FAILED") == 2);
    CHECK(g_sms.calls == 0);
    {
        mfa_ctx *with_sender;
        phone_options(&options, path);
        with_sender = open_with(&options);
        CHECK_STATUS(start_enroll(with_sender, &user, "+15105558003", GOOD_CRED, vid), MFA_OK);
        CHECK(g_sms.sent == 1);
        mfa_close(with_sender);
    }
    mfa_close(ctx);
    test_remove_sqlite(path);
}

/* ------------------------------------------------------------------ */
/* The file outbox                                                      */
/* ------------------------------------------------------------------ */

/* Line `index` (0-based) of `text`, without its newline, into `out`. */
static int nth_line(const char *text, int index, char *out, size_t size) {
    const char *start = text;
    for (int i = 0; i < index; i++) {
        start = strchr(start, '\n');
        if (!start) return 0;
        start++;
    }
    const char *end = strchr(start, '\n');
    if (!end) return 0;
    if ((size_t)(end - start) >= size) return 0;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    return 1;
}

static int count_lines(const char *text) {
    int n = 0;
    for (const char *p = text; p && *p; p++) n += *p == '\n';
    return n;
}

/* Checks that `line` is exactly {"time":<when>,"to":"<to>","message":"<code> is your verification code."}
 * and extracts the code. */
static int outbox_line_at(const char *line, int64_t when, const char *to, char code[MFA_CODE_BUFFER_SIZE], int at) {
    const char *m = strstr(line, "\"message\":\"");
    char want[256];
    code[0] = '\0';
    if (!m || strlen(m) < 11 + 6) {
        fprintf(stderr, "%s:%d: outbox line without a message: %s\n", __FILE__, at, line);
        CHECK_AT(0, at);
        return 0;
    }
    memcpy(code, m + 11, 6);
    code[6] = '\0';
    snprintf(want, sizeof want, "{\"time\":%lld,\"to\":\"%s\",\"message\":\"%s" SMS_SUFFIX "\"}", (long long)when, to,
             code);
    if (strcmp(line, want) != 0) {
        fprintf(stderr, "%s:%d: outbox line\n  %s\nwant\n  %s\n", __FILE__, at, line, want);
        CHECK_AT(!"the outbox line is as documented", at);
        return 0;
    }
    for (int i = 0; i < 6; i++) CHECK_AT(code[i] >= '0' && code[i] <= '9', at);
    return 1;
}

static void test_outbox(void) {
    char path[512], line[512], code[MFA_CODE_BUFFER_SIZE];
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64];
    mfa_options options;
    mfa_ctx *ctx = NULL;
    mfa_user user;
    uint8_t *data;
    size_t len;
    char *err = NULL;
    int64_t t_enroll, t_sign_in;
    struct stat st;

    reset_recorders();
    snprintf(path, sizeof path, "%s/outbox.jsonl", temp_dir);
    unlink(path);

    /* sms_sender and sms_outbox together: INVALID_ARGUMENT. */
    phone_options(&options, ":memory:");
    options.sms_outbox = path;
    CHECK_ERR(mfa_open(&ctx, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK(ctx == NULL);
    mfa_close(ctx);

    /* The outbox alone. */
    options.sms_sender = NULL;
    options.sms_sender_context = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, PHONE_ON);
    user_make(&user, "outbox-user", NULL);
    t_enroll = g_now;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105559001", GOOD_CRED, vid), MFA_OK);
    data = test_read_file(path, &len);
    CHECK(data != NULL);
    CHECK(data && count_lines((char *)data) == 1 && data[len - 1] == '\n');
    if (data && nth_line((char *)data, 0, line, sizeof line) &&
        outbox_line_at(line, t_enroll, "+15105559001", code, __LINE__)) {
        CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105559001", eid), MFA_OK);
    }
    free(data);
    /* The outbox holds codes: only its owner may read it. */
    CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0);
    CHECK(g_sms.calls == 0);

    /* Sign-in appends a second line. */
    g_now += 31;
    t_sign_in = g_now;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    data = test_read_file(path, &len);
    CHECK(data && count_lines((char *)data) == 2);
    if (data && nth_line((char *)data, 1, line, sizeof line) &&
        outbox_line_at(line, t_sign_in, "+15105559001", code, __LINE__)) {
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* The first line is unchanged. */
    if (data && nth_line((char *)data, 0, line, sizeof line)) CHECK(outbox_line_at(line, t_enroll, "+15105559001", code, __LINE__));
    free(data);
    mfa_close(ctx);

    /* An outbox that cannot be written: SMS_SEND_FAILED. */
    {
        char bad[600];
        snprintf(bad, sizeof bad, "%s/no-such-dir/outbox.jsonl", temp_dir);
        phone_options(&options, ":memory:");
        options.sms_sender = NULL;
        options.sms_outbox = bad;
        ctx = open_with(&options);
        set_config(ctx, NULL, PHONE_ON);
        CHECK_STATUS(start_enroll(ctx, &user, "+15105559002", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
        mfa_close(ctx);
    }
    unlink(path);
}

/* ------------------------------------------------------------------ */
/* Unknown factors, other users' factors, tenants                       */
/* ------------------------------------------------------------------ */

static void test_lookups_and_tenants(void) {
    mfa_ctx *ctx;
    mfa_user alice, eve, tom, tom_elsewhere;
    char alice_eid[64], eve_eid[64], tom_eid[64];
    char cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    set_config(ctx, "t1", "{}");
    set_config(ctx, "t2", "{}");
    user_make(&alice, "lookup-alice", NULL);
    user_make(&eve, "lookup-eve", NULL);
    ENROLL_PHONE_OK(ctx, &alice, "+15105550401", NULL, alice_eid);
    ENROLL_PHONE_OK(ctx, &eve, "+15105550402", NULL, eve_eid);
    g_now += 31;

    /* An enrollment id nobody has: MFA_ENROLLMENT_NOT_FOUND, no SMS. */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    sent = g_sms.calls;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", GOOD_CRED, vid),
                 MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    /* Another user's enrollment id: refused, and no SMS reaches that user's number. */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eve_eid, GOOD_CRED, vid), MFA_ERR_INVALID_SESSION);
    CHECK(g_sms.calls == sent);

    /* The factor is removed between the SMS and the code: MFA_ENROLLMENT_NOT_FOUND. */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, alice_eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550401", code);
    alice.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &alice, alice_eid, NULL), MFA_OK);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, alice_eid, GOOD_CRED, vid), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    /* Unenroll again: not found. */
    CHECK_STATUS(mfa_unenroll(ctx, &alice, alice_eid, NULL), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);

    /* Tenants. */
    user_make(&tom, "lookup-tom", "t1");
    ENROLL_PHONE_OK(ctx, &tom, "+15105550403", NULL, tom_eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &tom, cred);
    sent = g_sms.calls;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, tom_eid, GOOD_CRED, vid), MFA_ERR_TENANT_MISMATCH);
    CHECK_STATUS(start_sign_in(ctx, cred, "t2", tom_eid, GOOD_CRED, vid), MFA_ERR_TENANT_MISMATCH);
    CHECK(g_sms.calls == sent);
    CHECK_STATUS(start_sign_in(ctx, cred, "t1", tom_eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550403", code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_TENANT_MISMATCH);
    CHECK_STATUS(resolve_phone(ctx, cred, "t2", vid, code), MFA_ERR_TENANT_MISMATCH);
    {
        mfa_sign_in_result *result = NULL;
        char *err = NULL;
        CHECK_ERR(mfa_resolve_phone(ctx, &result, cred, "t1", vid, code, &err), MFA_OK, err);
        CHECK(result && result->tenant && strcmp(result->tenant, "t1") == 0);
        CHECK(result && strcmp(result->uid, "lookup-tom") == 0 && strcmp(result->enrollment_id, tom_eid) == 0);
        mfa_sign_in_result_free(result);
    }
    /* A project user's factor id from a tenant's sign-in: refused. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &tom, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, "t1", eve_eid, GOOD_CRED, vid), MFA_ERR_INVALID_SESSION);

    /* Enrollment: a t1 verification id finished as a user of another tenant, or of the project. */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &tom, "+15105550404", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550404", code);
    user_make(&tom_elsewhere, "lookup-tom", NULL);
    CHECK_STATUS(finish_enroll(ctx, &tom_elsewhere, vid, code, NULL, NULL, NULL), MFA_ERR_TENANT_MISMATCH);
    user_make(&tom_elsewhere, "lookup-tom", "t2");
    CHECK_STATUS(finish_enroll(ctx, &tom_elsewhere, vid, code, NULL, NULL, NULL), MFA_ERR_TENANT_MISMATCH);
    CHECK(factor_count(ctx, &tom_elsewhere) == 0);
    CHECK_STATUS(finish_enroll(ctx, &tom, vid, code, NULL, "+15105550404", NULL), MFA_OK);
    CHECK(factor_count(ctx, &tom) == 2);
    /* Tenant users sign in with the phone factor, masked hints and all. */
    g_now += 31;
    CHECK_STATUS(sign_in_phone(ctx, &tom, tom_eid, "+15105550403"), MFA_OK);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Backoff across verification ids                                      */
/* ------------------------------------------------------------------ */

static void test_sign_in_backoff(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char eid[64], cred[TOKEN_MAX], cred2[TOKEN_MAX], vid[TOKEN_MAX], vid2[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_phone(PHONE_ON); /* freeAttempts 5, backoffBase 1 s, doubling */
    user_make(&user, "backoff-user", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105550501", NULL, eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);

    /* First verification id: five wrong codes (the free attempts); the id is dead. */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550501", code);
    wrong_code(wrong, code);
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    CHECK(count_events(MFA_AUDIT_BACKOFF, NULL) == 0);

    /* Second verification id: the next wrong code starts the backoff. */
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid2), MFA_OK);
    sms_code("+15105550501", code2);
    wrong_code(wrong, code2);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK(count_events(MFA_AUDIT_BACKOFF, NULL) == 1);
    /* During the backoff nothing is evaluated, not even the right code, and no SMS goes out. */
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    sent = g_sms.calls;
    g_now += 31;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE); /* 2 s lock */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* A new pending credential does not escape the backoff. */
    SIGN_IN_REQUIRED(ctx, &user, cred2);
    CHECK_STATUS(start_sign_in(ctx, cred2, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(g_sms.calls == sent);
    g_now += 1;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now += 2;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE); /* 4 s lock */
    g_now += 3;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(count_events(MFA_AUDIT_BACKOFF, NULL) == 3);
    /* After it, the right code of the second id (3 wrong tries, 2 left) signs in and clears the count. */
    g_now += 2;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_OK);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550501", code);
    wrong_code(wrong, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* A phone and a TOTP factor                                            */
/* ------------------------------------------------------------------ */

static void test_mixed_factors(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char phone_eid[64], totp_eid[64] = "", key[128] = "";
    char cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    mfa_resolver *resolver = NULL;
    unsigned long sent;

    reset_recorders();
    ctx = open_phone(PHONE_TOTP_ON);
    user_make(&user, "mixed-user", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105550601", "phone", phone_eid);
    g_now += 30;
    {
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        mfa_factor_info *info = NULL;
        user.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (secret) {
            snprintf(key, sizeof key, "%s", secret->shared_secret_key);
            code_at(code, key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, secret->session_info, code, "app", NULL), MFA_OK);
            if (info) snprintf(totp_eid, sizeof totp_eid, "%s", info->uid);
        }
        mfa_factor_info_free(info);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    CHECK(factor_count(ctx, &user) == 2);

    /* Both hints. */
    g_now += 30;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == 2);
    if (resolver && resolver->hint_count == 2) {
        int phone = 0, totp = 0;
        for (size_t i = 0; i < 2; i++) {
            const mfa_factor_info *h = &resolver->hints[i];
            if (strcmp(h->factor_id, "phone") == 0) {
                phone++;
                CHECK(strcmp(h->uid, phone_eid) == 0);
                CHECK(h->phone_number && strcmp(h->phone_number, "+1******0601") == 0);
            } else if (strcmp(h->factor_id, "totp") == 0) {
                totp++;
                CHECK(strcmp(h->uid, totp_eid) == 0);
                CHECK(h->phone_number == NULL);
            }
        }
        CHECK(phone == 1 && totp == 1);
    }
    /* Sign in with TOTP. */
    if (resolver) {
        mfa_sign_in_result *result = NULL;
        code_at(code, key, g_now);
        CHECK_STATUS(mfa_resolve_totp(ctx, &result, resolver->session, NULL, totp_eid, code, NULL), MFA_OK);
        CHECK(result && strcmp(result->factor_id, "totp") == 0 && strcmp(result->enrollment_id, totp_eid) == 0);
        mfa_sign_in_result_free(result);
    }
    mfa_resolver_free(resolver);
    /* Sign in with the phone. */
    g_now += 31;
    CHECK_STATUS(sign_in_phone(ctx, &user, phone_eid, "+15105550601"), MFA_OK);
    /* An SMS for the TOTP factor is refused, without sending anything. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    sent = g_sms.calls;
    CHECK(start_sign_in(ctx, cred, NULL, totp_eid, GOOD_CRED, vid) != MFA_OK);
    CHECK(g_sms.calls == sent);
    /* And the phone factor cannot take a TOTP code. */
    code_at(code, key, g_now);
    {
        mfa_sign_in_result *result = NULL;
        CHECK(mfa_resolve_totp(ctx, &result, cred, NULL, phone_eid, code, NULL) != MFA_OK);
        CHECK(result == NULL);
    }
    /* The pending credential still works with the TOTP factor. */
    {
        mfa_sign_in_result *result = NULL;
        CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, totp_eid, code, NULL), MFA_OK);
        mfa_sign_in_result_free(result);
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* 10^4 guesses on one verification id                                  */
/* ------------------------------------------------------------------ */

#define GUESSES 10000

/* Guess `i` of GUESSES at `code`: the code itself as the 6th and the last, otherwise
 * the next of 000000, 000001, ... that is not the code. */
static void next_guess(char guess[MFA_CODE_BUFFER_SIZE], const char *code, int i, int *next) {
    if (i == 5 || i == GUESSES - 1) {
        snprintf(guess, MFA_CODE_BUFFER_SIZE, "%s", code);
    } else {
        snprintf(guess, MFA_CODE_BUFFER_SIZE, "%06d", (*next)++);
        if (strcmp(guess, code) == 0) snprintf(guess, MFA_CODE_BUFFER_SIZE, "%06d", (*next)++);
    }
}

static void test_brute_force(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], code[MFA_CODE_BUFFER_SIZE], guess[MFA_CODE_BUFFER_SIZE];
    int ok, evaluated, other, next;

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&user, "brute-user", NULL);

    /* Enrollment: five wrong, then the real code (6th), then the rest of 10^4, then the real code again. */
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550701", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    ok = evaluated = other = 0;
    next = 0;
    for (int i = 0; i < GUESSES; i++) {
        int status;
        next_guess(guess, code, i, &next);
        status = finish_enroll(ctx, &user, vid, guess, NULL, NULL, NULL);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) evaluated++;
        else if (status != MFA_ERR_INVALID_SESSION) other++;
    }
    printf("enrollment: %d guesses on one verification id: %d accepted, %d evaluated\n", GUESSES, ok, evaluated);
    CHECK(ok == 0);
    CHECK(evaluated == 5);
    CHECK(other == 0);
    CHECK(factor_count(ctx, &user) == 0);
    /* A new code still enrolls. */
    g_now += 31;
    ENROLL_PHONE_OK(ctx, &user, "+15105550701", NULL, eid);

    /* Sign-in, the same way. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    ok = evaluated = other = 0;
    next = 0;
    for (int i = 0; i < GUESSES; i++) {
        int status;
        mfa_sign_in_result *result = NULL;
        next_guess(guess, code, i, &next);
        status = mfa_resolve_phone(ctx, &result, cred, NULL, vid, guess, NULL);
        mfa_sign_in_result_free(result);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) evaluated++;
        else if (status != MFA_ERR_INVALID_SESSION && status != MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER) other++;
    }
    printf("sign-in: %d guesses on one verification id: %d accepted, %d evaluated\n", GUESSES, ok, evaluated);
    CHECK(ok == 0);
    CHECK(evaluated == 5);
    CHECK(other == 0);
    /* A new code on the same pending credential signs in. */
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Test phone numbers                                                   */
/* ------------------------------------------------------------------ */

static void test_test_numbers(void) {
    mfa_ctx *ctx;
    mfa_options options;
    mfa_user user, other;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], eid2[64];
    unsigned long calls;

    reset_recorders();
    note_code("123456");
    note_code("654321");
    note_number("+15555550100");
    note_number("+15555550101");
    /* Every cap at 1: one real SMS uses them all up. */
    ctx = open_phone("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"testPhoneNumbers\":{\"+15555550100\":\"123456\",\"+15555550101\":\"654321\"},"
                     "\"limits\":{\"smsPerNumberHour\":1,\"smsPerNumberDay\":1,\"smsPerUserHour\":1,"
                     "\"smsPerUserDay\":1,\"smsPerTenantHour\":1,\"smsPerTenantDay\":1}}");
    user_make(&user, "test-number-user", NULL);
    user_make(&other, "test-number-other", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550801", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &other, "+15105550802", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550801", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    calls = g_sms.calls;
    CHECK(calls == 1);

    /* Test numbers: beyond every cap and the cooldown, never reaching the sender. */
    for (int i = 0; i < 25; i++) {
        CHECK_STATUS(start_enroll(ctx, i % 2 ? &user : &other, "+15555550100", GOOD_CRED, vid), MFA_OK);
    }
    CHECK(g_sms.calls == calls);
    /* Even while the gateway is down. */
    g_sms.fail = 1;
    CHECK_STATUS(start_enroll(ctx, &user, "+15555550100", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == calls);
    g_sms.fail = 0;
    /* Only the fixed code enrolls them. */
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "654321", NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "123456", "test", "+15555550100", eid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &other, "+15555550101", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &other, vid, "654321", NULL, "+15555550101", eid2), MFA_OK);
    /* The real caps are still used up. */
    CHECK_STATUS(start_enroll(ctx, &other, "+15105550803", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);

    /* Sign in: as often as wanted, with the fixed code, nothing sent. */
    for (int round = 0; round < 5; round++) {
        SIGN_IN_REQUIRED(ctx, &user, cred);
        for (int i = 0; i < 4; i++) CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, "654321"), MFA_ERR_INVALID_VERIFICATION_CODE);
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, "123456"), MFA_OK);
    }
    CHECK(g_sms.calls == calls);
    {
        mfa_resolver *resolver = NULL;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &other, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].phone_number &&
              strcmp(resolver->hints[0].phone_number, "+1******0101") == 0);
        mfa_resolver_free(resolver);
    }
    mfa_close(ctx);

    /* A test number needs no sender at all. */
    reset_recorders();
    phone_options(&options, ":memory:");
    options.sms_sender = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    CHECK_STATUS(start_enroll(ctx, &user, "+15555550100", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "123456", NULL, "+15555550100", eid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550804", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Master key rotation                                                  */
/* ------------------------------------------------------------------ */

/* The per-number cooldown and cap are stored under a keyed hash of the
 * number: a new master key must not reset them. Codes sent under the old key
 * still verify, and phone factors still sign in after mfa_rotate_keys. */
static void test_key_rotation(void) {
    char path[512];
    mfa_options options;
    mfa_master_key old_key;
    mfa_ctx *ctx;
    mfa_user user, other, late;
    char eid[64], vid[TOKEN_MAX], pending_vid[TOKEN_MAX], pending_code[MFA_CODE_BUFFER_SIZE];
    size_t rotated = 0;

    reset_recorders();
    snprintf(path, sizeof path, "%s/rotation.db", temp_dir);
    test_remove_sqlite(path);
    phone_options(&options, path);
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsPerNumberHour\":2,\"smsPerNumberDay\":2}}");
    user_make(&user, "rotation-user", NULL);
    user_make(&other, "rotation-other", NULL);
    user_make(&late, "rotation-late", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105551201", NULL, eid);
    CHECK_STATUS(start_enroll(ctx, &late, "+15105551202", GOOD_CRED, pending_vid), MFA_OK);
    sms_code("+15105551202", pending_code);
    mfa_close(ctx);

    /* The new key is current, the old one still known. */
    phone_options(&options, path);
    options.master_key.id = "k2";
    options.master_key.key = K2;
    old_key.id = "k1";
    old_key.key = K1;
    options.previous_keys = &old_key;
    options.previous_key_count = 1;
    ctx = open_with(&options);
    /* The cooldown of +15105551201 still runs... */
    CHECK_STATUS(start_enroll(ctx, &other, "+15105551201", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* ...and its cap (2 an hour) still counts the send under the old key. */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &other, "+15105551201", GOOD_CRED, vid), MFA_OK);
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &late, "+15105551201", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    /* A code sent under the old key finishes its enrollment. */
    CHECK_STATUS(finish_enroll(ctx, &late, pending_vid, pending_code, NULL, "+15105551202", NULL), MFA_OK);
    /* After re-encryption, the phone factor signs in (full number to the sender, masked hint). */
    CHECK_STATUS(mfa_rotate_keys(ctx, &rotated, NULL), MFA_OK);
    CHECK(rotated == 1); /* the first factor; the late one was sealed under k2 */
    mfa_close(ctx);
    phone_options(&options, path);
    options.master_key.id = "k2";
    options.master_key.key = K2;
    ctx = open_with(&options);
    g_now += 3601;
    {
        mfa_resolver *resolver = NULL;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].phone_number &&
              strcmp(resolver->hints[0].phone_number, "+1******1201") == 0);
        mfa_resolver_free(resolver);
    }
    CHECK_STATUS(sign_in_phone(ctx, &user, eid, "+15105551201"), MFA_OK);
    mfa_close(ctx);
    test_remove_sqlite(path);
}

/* ------------------------------------------------------------------ */
/* At rest                                                              */
/* ------------------------------------------------------------------ */

/* What must not be found at rest: the numbers (nor their digits) and the codes sent. */
typedef struct at_rest {
    const char *numbers[8];
    int number_count;
    char codes[16][MFA_CODE_BUFFER_SIZE];
    int code_count;
} at_rest;

static void look_for_numbers_and_codes(const uint8_t *data, size_t len, const char *file, int pass, void *context) {
    const at_rest *r = context;
    /* Every number: in full, its digits, and any 7 consecutive digits of it. */
    for (int i = 0; i < r->number_count; i++) {
        const char *number = r->numbers[i];
        const char *digits = number + 1;
        size_t nd = strlen(digits);
        int leaked = memfind(data, len, number, strlen(number));
        for (size_t at = 0; at + 7 <= nd; at++) leaked |= memfind(data, len, digits + at, 7);
        if (leaked) fprintf(stderr, "%s found in %s (pass %d)\n", number, file, pass);
        CHECK(!leaked);
    }
    for (int i = 0; i < r->code_count; i++) {
        int leaked = memfind(data, len, r->codes[i], 6);
        if (leaked) fprintf(stderr, "SMS code %s found in %s (pass %d)\n", r->codes[i], file, pass);
        CHECK(!leaked);
    }
    CHECK(!memfind(data, len, SMS_SUFFIX, strlen(SMS_SUFFIX)));
}

static void test_at_rest(void) {
    static const char *numbers[] = {"+15105550901", "+447911123457", "+6831239"};
    enum { NN = sizeof numbers / sizeof numbers[0] };
    char path[512];
    at_rest r;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user users[NN];
    char eids[NN][64], uids[NN][32];
    char vid[TOKEN_MAX], cred[TOKEN_MAX];

    r.code_count = 0;
    r.number_count = 0;
    for (int i = 0; i < NN; i++) r.numbers[r.number_count++] = numbers[i];
    r.numbers[r.number_count++] = "+15105550902";
    r.numbers[r.number_count++] = "+15105550903";
    reset_recorders();
    snprintf(path, sizeof path, "%s/at-rest.db", temp_dir);
    test_remove_sqlite(path);
    phone_options(&options, path);
    ctx = open_with(&options);
    set_config(ctx, NULL, PHONE_ON);
    set_config(ctx, "tenant-rest", "{}");
    for (int i = 0; i < NN; i++) {
        snprintf(uids[i], sizeof uids[i], "at-rest-user-%d", i);
        user_make(&users[i], uids[i], i == 1 ? "tenant-rest" : NULL);
        ENROLL_PHONE_OK(ctx, &users[i], numbers[i], NULL, eids[i]);
        if (sms_code(numbers[i], r.codes[r.code_count])) r.code_count++;
    }
    g_now += 31;
    /* A finished sign-in, a pending sign-in code, a pending enrollment code, a failed send. */
    CHECK_STATUS(sign_in_phone(ctx, &users[0], eids[0], numbers[0]), MFA_OK);
    if (sms_code(numbers[0], r.codes[r.code_count])) r.code_count++;
    SIGN_IN_REQUIRED(ctx, &users[1], cred);
    CHECK_STATUS(start_sign_in(ctx, cred, "tenant-rest", eids[1], GOOD_CRED, vid), MFA_OK);
    if (sms_code(numbers[1], r.codes[r.code_count])) r.code_count++;
    CHECK_STATUS(start_enroll(ctx, &users[2], "+15105550902", GOOD_CRED, vid), MFA_OK);
    if (sms_code("+15105550902", r.codes[r.code_count])) r.code_count++;
    g_sms.fail = 1;
    CHECK_STATUS(start_enroll(ctx, &users[2], "+15105550903", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    g_sms.fail = 0;
    CHECK(r.code_count == NN + 3);
    /* The user ids are stored in the clear. */
    scan_store(ctx, path, "at-rest-user-2", look_for_numbers_and_codes, &r);
    test_remove_sqlite(path);
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

static void test_audit(void) {
    mfa_ctx *ctx;
    mfa_user user, tenant_user;
    char eid[64], cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    const audit_record *e;
    int64_t t_enroll;

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    set_config(ctx, "t-audit", "{}");
    g_audit.count = 0;
    user_make(&user, "audit-user", NULL);
    t_enroll = g_now;
    ENROLL_PHONE_OK(ctx, &user, "+15105551001", NULL, eid);
    /* Enrollment: SMS_SENT (no enrollment id yet), then ENROLL. */
    CHECK(g_audit.count == 2);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->kind_name, "SMS_SENT") == 0);
    CHECK(strcmp(e->uid, "audit-user") == 0 && strcmp(e->tenant, "") == 0 && strcmp(e->factor_id, "phone") == 0);
    CHECK(strcmp(e->enrollment_id, "") == 0 && strcmp(e->detail, "OK") == 0 && e->time == t_enroll);
    e = &g_audit.events[1];
    CHECK(e->kind == MFA_AUDIT_ENROLL && strcmp(e->factor_id, "phone") == 0 && strcmp(e->enrollment_id, eid) == 0);

    /* Sign-in: SMS_SENT naming the factor, a failure, then success. */
    g_now += 31;
    g_audit.count = 0;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105551001", code);
    wrong_code(wrong, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    CHECK(g_audit.count == 3);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->enrollment_id, eid) == 0 && strcmp(e->detail, "OK") == 0);
    CHECK(strcmp(e->factor_id, "phone") == 0 && e->time == g_now);
    e = &g_audit.events[1];
    CHECK(e->kind == MFA_AUDIT_SIGN_IN_FAILURE && strcmp(e->detail, "INVALID_VERIFICATION_CODE") == 0);
    CHECK(strcmp(e->factor_id, "phone") == 0 && strcmp(e->enrollment_id, eid) == 0);
    e = &g_audit.events[2];
    CHECK(e->kind == MFA_AUDIT_SIGN_IN_SUCCESS && strcmp(e->factor_id, "phone") == 0 &&
          strcmp(e->enrollment_id, eid) == 0);

    /* A failed send: SMS_SENT with detail SMS_SEND_FAILED. */
    g_now += 31;
    g_audit.count = 0;
    g_sms.fail = 1;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    g_sms.fail = 0;
    CHECK(g_audit.count == 1);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->detail, "SMS_SEND_FAILED") == 0);
    CHECK(strcmp(e->enrollment_id, eid) == 0 && strcmp(e->uid, "audit-user") == 0);

    /* Refusals before sending (cooldown, quota, bad credential) are not SMS_SENT events. */
    g_audit.count = 0;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, BAD_CRED, vid), MFA_ERR_INVALID_APP_CREDENTIAL);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(count_events(MFA_AUDIT_SMS_SENT, NULL) == 1);

    /* Unenroll names the factor. */
    g_audit.count = 0;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &user, eid, NULL), MFA_OK);
    CHECK(g_audit.count == 1 && g_audit.events[0].kind == MFA_AUDIT_UNENROLL &&
          strcmp(g_audit.events[0].factor_id, "phone") == 0 && strcmp(g_audit.events[0].enrollment_id, eid) == 0);

    /* A tenant user's events name the tenant. */
    g_audit.count = 0;
    user_make(&tenant_user, "audit-tenant-user", "t-audit");
    ENROLL_PHONE_OK(ctx, &tenant_user, "+15105551002", NULL, eid);
    CHECK(g_audit.count == 2 && strcmp(g_audit.events[0].tenant, "t-audit") == 0 &&
          strcmp(g_audit.events[1].tenant, "t-audit") == 0);
    mfa_close(ctx);

    /* The leak oracle itself finds what it looks for. */
    CHECK(leak_in("SMS_SENT|+44") != NULL);
    CHECK(leak_in("detail 15105551002") != NULL);
    CHECK(leak_in("x5551002y") != NULL);
    CHECK(g_code_count > 0 && leak_in(g_codes[(g_code_count - 1) % SECRET_CODES]) != NULL);
    CHECK(leak_in("SMS_SENT||audit-user|phone||OK") == NULL);
    CHECK(leak_in("BACKOFF|locked until 1700001234") == NULL);
    /* No audit string, in this whole program, held a number or a code. */
    CHECK(g_audit.leaks == 0);
    CHECK(g_audit.total > 0);
}

/* ------------------------------------------------------------------ */
/* Bad input                                                            */
/* ------------------------------------------------------------------ */

static void test_bad_input(void) {
    mfa_ctx *ctx;
    mfa_user user, bad_user;
    char *session = NULL, *out = NULL;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], code[MFA_CODE_BUFFER_SIZE];
    char enroll_vid[TOKEN_MAX], enroll_code[MFA_CODE_BUFFER_SIZE];
    mfa_factor_info *info = NULL;
    mfa_sign_in_result *result = NULL;
    char *huge;
    char long_id[200], long_name[300];
    unsigned long calls;
    const char *not_utf8 = "+1510555\xff\xfe";

    reset_recorders();
    ctx = open_phone(PHONE_ON);
    user_make(&user, "bad-input-user", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105551101", NULL, eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105551101", code);
    user.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_STATUS(start_with_session(ctx, session, "+15105551102", GOOD_CRED, enroll_vid), MFA_OK);
    sms_code("+15105551102", enroll_code);
    calls = g_sms.calls;

    huge = malloc(MFA_STRING_MAX_BYTES + 16);
    if (!huge) return;
    huge[0] = '+';
    memset(huge + 1, '1', MFA_STRING_MAX_BYTES + 8);
    huge[MFA_STRING_MAX_BYTES + 9] = '\0';
    memset(long_id, 'A', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';

    /* mfa_phone_start_enrollment */
    CHECK_STATUS(mfa_phone_start_enrollment(NULL, &out, session, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, NULL, session, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, NULL, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, session, NULL, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, session, not_utf8, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, session, huge, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, session, "+15105551103", "tok\xff", NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, huge, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, "", "+15105551103", GOOD_CRED, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, "garbage", "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, cred, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, vid, "+15105551103", GOOD_CRED, NULL),
                 MFA_ERR_INVALID_SESSION);
    CHECK(out == NULL);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &out, session, "+15105551103", huge, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK(g_sms.calls == calls);

    /* mfa_phone_start_sign_in */
    CHECK_STATUS(mfa_phone_start_sign_in(NULL, &out, cred, NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, NULL, cred, NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, NULL, NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, NULL, NULL, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, "", eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, long_id, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, NULL, "", GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, NULL, long_id, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, cred, NULL, "\xff\xfe", GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, "garbage", NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, session, NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &out, huge, NULL, eid, GOOD_CRED, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK(g_sms.calls == calls);

    /* mfa_phone_enroll */
    CHECK_STATUS(mfa_phone_enroll(NULL, &info, &user, enroll_vid, enroll_code, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, NULL, &user, enroll_vid, enroll_code, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, NULL, enroll_vid, enroll_code, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, NULL, enroll_code, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, enroll_vid, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, enroll_vid, enroll_code, long_name, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, enroll_vid, enroll_code, "name\xff", NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, enroll_vid, "12\xff\xfe" "56", NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, huge, enroll_code, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, enroll_vid, huge, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad_user = user;
    bad_user.version = 99;
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &bad_user, enroll_vid, enroll_code, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    bad_user = user;
    bad_user.uid = NULL;
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &bad_user, enroll_vid, enroll_code, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    bad_user = user;
    bad_user.uid = "";
    CHECK_STATUS(mfa_phone_enroll(ctx, &info, &bad_user, enroll_vid, enroll_code, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);

    /* mfa_resolve_phone */
    CHECK_STATUS(mfa_resolve_phone(NULL, &result, cred, NULL, vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, NULL, cred, NULL, vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, NULL, NULL, vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, NULL, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, vid, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, "", vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, long_id, vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, vid, "12\xff\xfe" "56", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, vid, huge, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, huge, NULL, vid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, huge, code, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, cred, NULL, session, code, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_resolve_phone(ctx, &result, session, NULL, vid, code, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(result == NULL);
    CHECK(g_sms.calls == calls);

    /* None of that used anything up. */
    CHECK_STATUS(finish_enroll(ctx, &user, enroll_vid, enroll_code, "", "+15105551102", NULL), MFA_OK);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    /* An empty display name is no display name. */
    {
        mfa_factor_list *list = NULL;
        CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
        CHECK(list && list->count == 2 && list->items[1].display_name == NULL);
        mfa_factor_list_free(list);
    }

    /* The names of what is new. */
    CHECK(strcmp(mfa_status_name(MFA_ERR_SMS_SEND_FAILED), "SMS_SEND_FAILED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_MISSING_APP_CREDENTIAL), "MISSING_APP_CREDENTIAL") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_APP_CREDENTIAL), "INVALID_APP_CREDENTIAL") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_PHONE_NUMBER), "INVALID_PHONE_NUMBER") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_QUOTA_EXCEEDED), "QUOTA_EXCEEDED") == 0);
    CHECK(strlen(mfa_errstr(MFA_ERR_SMS_SEND_FAILED)) > 0);
    CHECK(MFA_APP_ACTION_ENROLLMENT == 1 && MFA_APP_ACTION_SIGN_IN == 2 && MFA_AUDIT_SMS_SENT == 7);

    free(huge);
    mfa_free(session);
    mfa_close(ctx);
}

int main(void) {
    CHECK(test_temp_dir(temp_dir, sizeof temp_dir, "libmfa-phone") == 0);
    test_flow();
    test_masking();
    test_phone_numbers();
    test_app_verification();
    test_enrollment_codes();
    test_sign_in_codes();
    test_cooldown();
    test_quotas();
    test_send_failure();
    test_outbox();
    test_lookups_and_tenants();
    test_sign_in_backoff();
    test_mixed_factors();
    test_brute_force();
    test_test_numbers();
    test_key_rotation();
    test_at_rest();
    test_audit();
    test_bad_input();
    rmdir(temp_dir);
    return test_report();
}
