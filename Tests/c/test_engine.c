/*
 * The MFA engine through the C ABI, end to end: configuration, enrollment
 * prerequisites, TOTP enrollment, resolver sign-in, backoff, unenroll and
 * token revocation, step-up, audit events, injected randomness, master key
 * rotation, bad input, and secrets at rest (SPEC.md flows 1, 2, 4, 5, 6).
 *
 * Time is an injected clock (g_now), so expiry and backoff are tested
 * without sleeping. TOTP codes are computed the way an authenticator app
 * does: base32-decode the shared secret key and run mfa_totp_generate at the
 * injected time.
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mfa.h"
#include "test_support.h"

/* ------------------------------------------------------------------ */
/* Injected clock, audit log, random source                            */
/* ------------------------------------------------------------------ */

static int64_t g_now = START_TIME;

#define AUDIT_MAX 512
typedef struct audit_log {
    size_t count;
    size_t dropped;
    audit_record events[AUDIT_MAX];
} audit_log;

static void audit_callback(void *context, const mfa_audit_event *event) {
    audit_log *log = context;
    audit_record *record;
    if (log->count >= AUDIT_MAX) {
        log->dropped++;
        return;
    }
    record = &log->events[log->count++];
    audit_record_copy(record, event);
}

/* A deterministic random source (splitmix64) that can be told to fail. */
typedef struct test_rng {
    uint64_t state;
    int fail;
    unsigned long calls;
} test_rng;

static int rng_fill(void *context, uint8_t *out, size_t len) {
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
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static const char *ENABLE_TOTP = "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}";

/* A fresh in-memory context with TOTP enabled for the project. */
static mfa_ctx *open_project_at(int line) {
    mfa_options options;
    mfa_ctx *ctx;
    test_options(&options, ":memory:", &g_now);
    ctx = open_with_at(&options, line);
    set_config_at(ctx, NULL, ENABLE_TOTP, line);
    return ctx;
}
#define open_project() open_project_at(__LINE__)

static void user_make(mfa_user *user, const char *uid, const char *tenant) {
    CHECK_STATUS(test_user(user, uid, tenant, "user@example.com", g_now), MFA_OK);
    user->provider = "password";
}

/* A six-digit code that matches no time step within +/- MFA_WINDOW_MAX of `when`. */
static uint32_t wrong_state = 2463534242u;
static void wrong_code_at(char out[MFA_CODE_BUFFER_SIZE], const char *base32, int64_t when) {
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

typedef struct factor {
    char eid[64];
    char key[128];
    int64_t enrolled_at;
} factor;

/* Session, secret, code at g_now, enroll. Returns the enroll status; on
 * MFA_OK `f` holds the enrollment id and the base32 key. */
static int enroll_at(mfa_ctx *ctx, const mfa_user *user, const char *display_name, factor *f, int line) {
    mfa_user fresh = *user;
    char *session = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
    memset(f, 0, sizeof *f);
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
    status = mfa_totp_enroll(ctx, &info, &fresh, secret->session_info, code, display_name, &err);
    if (status == MFA_OK) {
        CHECK_AT(info != NULL, line);
        if (info) snprintf(f->eid, sizeof f->eid, "%s", info->uid);
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

static int resolve_at(mfa_ctx *ctx, const char *cred, const char *tenant, const char *eid, const char *code,
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

/* Sign in with the right code at g_now: the whole second step. */
#define SIGN_IN_OK(ctx, user, f)                                                   \
    do {                                                                           \
        char cred_[TOKEN_MAX];                                                     \
        char code_[MFA_CODE_BUFFER_SIZE];                                          \
        SIGN_IN_REQUIRED(ctx, user, cred_);                                        \
        code_at(code_, (f)->key, g_now);                                           \
        CHECK_STATUS(resolve(ctx, cred_, (user)->tenant, (f)->eid, code_), MFA_OK); \
    } while (0)

/* ------------------------------------------------------------------ */
/* Flow 1: configuration                                                */
/* ------------------------------------------------------------------ */

static void expect_config_rejected_at(mfa_ctx *ctx, const char *tenant, const char *json, const char *field,
                                      int line) {
    char *err = NULL;
    int status = mfa_config_set_json(ctx, tenant, json, &err);
    if (status != MFA_ERR_INVALID_ARGUMENT) {
        fprintf(stderr, "%s:%d: config %s gave %s, want INVALID_ARGUMENT\n", __FILE__, line, json,
                mfa_status_name(status));
    }
    CHECK_AT(status == MFA_ERR_INVALID_ARGUMENT, line);
    CHECK_AT(err != NULL, line);
    if (field && !contains(err, field)) {
        fprintf(stderr, "%s:%d: config %s: message \"%s\" does not name \"%s\"\n", __FILE__, line, json,
                err ? err : "(null)", field);
        CHECK_AT(contains(err, field), line);
    }
    mfa_free(err);
}
#define expect_config_rejected(ctx, tenant, json, field) expect_config_rejected_at(ctx, tenant, json, field, __LINE__)

static char *config_json_at(mfa_ctx *ctx, const char *tenant, int line) {
    char *out = NULL;
    char *err = NULL;
    int status = mfa_config_get_json(ctx, &out, tenant, &err);
    CHECK_AT(status == MFA_OK && out != NULL, line);
    mfa_free(err);
    return out;
}
#define config_json(ctx, tenant) config_json_at(ctx, tenant, __LINE__)

static void test_config(void) {
    mfa_options options;
    mfa_ctx *ctx;
    char *json;
    char *project_before;
    char big[1024];
    size_t used;

    test_options(&options, ":memory:", &g_now);
    ctx = open_with(&options);

    /* Defaults: MFA disabled, both providers disabled, +/-5 steps. */
    json = config_json(ctx, NULL);
    CHECK(contains(json, "\"state\":\"DISABLED\""));
    CHECK(contains(json, "\"totp\":\"DISABLED\""));
    CHECK(contains(json, "\"phone\":\"DISABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":5"));
    CHECK(contains(json, "\"backoffMax\":900"));
    CHECK(contains(json, "\"failureMemory\":3600"));
    mfa_free(json);

    set_config(ctx, NULL,
               "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"totp\":{\"adjacentIntervals\":3},"
               "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    json = config_json(ctx, NULL);
    CHECK(contains(json, "\"state\":\"ENABLED\""));
    CHECK(contains(json, "\"totp\":\"ENABLED\""));
    CHECK(contains(json, "\"phone\":\"DISABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":3"));
    CHECK(contains(json, "\"+15555550100\":\"123456\""));
    mfa_free(json);

    /* A tenant overrides the project field by field. */
    set_config(ctx, "tenant-a", "{\"totp\":{\"adjacentIntervals\":7},\"providers\":{\"phone\":\"ENABLED\"}}");
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"state\":\"ENABLED\""));    /* from the project */
    CHECK(contains(json, "\"totp\":\"ENABLED\""));     /* from the project's providers */
    CHECK(contains(json, "\"phone\":\"ENABLED\""));    /* the tenant's */
    CHECK(contains(json, "\"adjacentIntervals\":7"));  /* the tenant's */
    CHECK(contains(json, "\"+15555550100\":\"123456\"")); /* from the project */
    mfa_free(json);
    set_config(ctx, "tenant-b", "{\"state\":\"MANDATORY\",\"limits\":{\"maxFactors\":2}}");
    json = config_json(ctx, "tenant-b");
    CHECK(contains(json, "\"state\":\"MANDATORY\""));
    CHECK(contains(json, "\"maxFactors\":2"));
    CHECK(contains(json, "\"adjacentIntervals\":3"));
    mfa_free(json);
    /* The project is unchanged by its tenants; an unconfigured tenant is the project. */
    project_before = config_json(ctx, NULL);
    CHECK(contains(project_before, "\"adjacentIntervals\":3"));
    CHECK(contains(project_before, "\"phone\":\"DISABLED\""));
    CHECK(contains(project_before, "\"maxFactors\":5"));
    json = config_json(ctx, "tenant-unset");
    CHECK(json && project_before && strcmp(json, project_before) == 0);
    mfa_free(json);
    /* A later project change shows through a tenant that does not set the field. */
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"totp\":{\"adjacentIntervals\":4},"
                          "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    json = config_json(ctx, "tenant-b");
    CHECK(contains(json, "\"adjacentIntervals\":4"));
    mfa_free(json);
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"adjacentIntervals\":7"));
    mfa_free(json);
    mfa_free(project_before);
    project_before = config_json(ctx, NULL);

    /* Rejections: INVALID_ARGUMENT, naming the field. */
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":-1}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":11}}", "adjacentIntervals");
    expect_config_rejected(ctx, "tenant-a", "{\"totp\":{\"adjacentIntervals\":11}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":\"5\"}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":2.5}}", "adjacentIntervals");
    /* 10 test numbers are fine, 11 are not. */
    used = (size_t)snprintf(big, sizeof big, "{\"testPhoneNumbers\":{");
    for (int i = 0; i < 10; i++) {
        used += (size_t)snprintf(big + used, sizeof big - used, "%s\"+1555555%04d\":\"%06d\"", i ? "," : "",
                                 100 + i, 111111 + i);
    }
    snprintf(big + used, sizeof big - used, "}}");
    set_config(ctx, "tenant-ten", big);
    used = (size_t)snprintf(big, sizeof big, "{\"testPhoneNumbers\":{");
    for (int i = 0; i < 11; i++) {
        used += (size_t)snprintf(big + used, sizeof big - used, "%s\"+1555555%04d\":\"%06d\"", i ? "," : "",
                                 100 + i, 111111 + i);
    }
    snprintf(big + used, sizeof big - used, "}}");
    expect_config_rejected(ctx, NULL, big, "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"12345\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"1234567\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"12a456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":123456}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"15555550100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+1 555 555 0100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+1-555-555-0100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":[\"+15555550100\"]}", "testPhoneNumbers");
    /* Unknown fields, at every level. */
    expect_config_rejected(ctx, NULL, "{\"stat\":\"ENABLED\"}", "stat");
    expect_config_rejected(ctx, NULL, "{\"providers\":{\"sms\":\"ENABLED\"}}", "sms");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"window\":3}}", "window");
    expect_config_rejected(ctx, NULL, "{\"limits\":{\"bogusLimit\":3}}", "bogusLimit");
    expect_config_rejected(ctx, "tenant-a", "{\"extra\":true}", "extra");
    /* Malformed JSON. */
    expect_config_rejected(ctx, NULL, "{", NULL);
    expect_config_rejected(ctx, NULL, "", NULL);
    expect_config_rejected(ctx, NULL, "not json", NULL);
    expect_config_rejected(ctx, NULL, "{\"state\":\"ENABLED\",}", NULL);
    expect_config_rejected(ctx, NULL, "{\"state\":\"ENABLED\"} trailing", NULL);
    expect_config_rejected(ctx, NULL, "[]", NULL);
    /* Enum values. */
    expect_config_rejected(ctx, NULL, "{\"state\":\"ON\"}", "state");
    expect_config_rejected(ctx, NULL, "{\"state\":true}", "state");
    expect_config_rejected(ctx, NULL, "{\"providers\":{\"totp\":\"ON\"}}", "totp");
    /* Limits out of range. */
    expect_config_rejected(ctx, NULL, "{\"limits\":{\"maxFactors\":0}}", "maxFactors");
    /* Bad tenants and NULLs. */
    CHECK_STATUS(mfa_config_set_json(ctx, "", ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(ctx, "\xff\xfe", ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(NULL, NULL, ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(NULL, &json, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);

    /* Nothing rejected was stored. */
    json = config_json(ctx, NULL);
    CHECK(json && project_before && strcmp(json, project_before) == 0);
    mfa_free(json);
    mfa_free(project_before);
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"adjacentIntervals\":7"));
    mfa_free(json);

    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Flow 2: prerequisites for a session                                  */
/* ------------------------------------------------------------------ */

static void expect_session_at(mfa_ctx *ctx, const mfa_user *user, int want, int line) {
    char *session = (char *)"sentinel";
    char *err = NULL;
    int status = mfa_session_new(ctx, &session, user, &err);
    CHECK_STATUS_AT(status, want, line);
    if (want == MFA_OK) {
        CHECK_AT(session != NULL && strncmp(session, "v1.", 3) == 0, line);
        CHECK_AT(err == NULL, line);
    } else {
        CHECK_AT(session == NULL, line);
        CHECK_AT(err != NULL && err[0] != '\0', line);
    }
    if (status == MFA_OK) mfa_free(session);
    mfa_free(err);
}
#define expect_session(ctx, user, want) expect_session_at(ctx, user, want, __LINE__)

static void test_prerequisites(void) {
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    factor f[6];
    const char *unsupported[] = {"phone", "anonymous", "custom", "gc.apple.com"};
    const char *supported[] = {"password", "emailLink", "google.com", "apple.com", "github.com"};

    test_options(&options, ":memory:", &g_now);
    ctx = open_with(&options);
    user_make(&user, "prereq-user", NULL);

    /* State DISABLED (the default). */
    expect_session(ctx, &user, MFA_ERR_OPERATION_NOT_ALLOWED);
    set_config(ctx, NULL, "{\"state\":\"DISABLED\",\"providers\":{\"totp\":\"ENABLED\"}}");
    expect_session(ctx, &user, MFA_ERR_OPERATION_NOT_ALLOWED);
    /* Enabled, but no provider. */
    set_config(ctx, NULL, "{\"state\":\"ENABLED\"}");
    expect_session(ctx, &user, MFA_ERR_OPERATION_NOT_ALLOWED);
    set_config(ctx, NULL, ENABLE_TOTP);
    expect_session(ctx, &user, MFA_OK);
    /* A tenant can disable what the project enables. */
    {
        mfa_user tenant_user;
        user_make(&tenant_user, "prereq-user", "tenant-off");
        set_config(ctx, "tenant-off", "{\"state\":\"DISABLED\"}");
        expect_session(ctx, &tenant_user, MFA_ERR_OPERATION_NOT_ALLOWED);
    }

    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        user.provider = unsupported[i];
        expect_session(ctx, &user, MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
    }
    for (size_t i = 0; i < sizeof supported / sizeof *supported; i++) {
        user.provider = supported[i];
        expect_session(ctx, &user, MFA_OK);
    }
    user.provider = "password";

    user.email_verified = 0;
    expect_session(ctx, &user, MFA_ERR_UNVERIFIED_EMAIL);
    user.email_verified = 1;
    user.email = NULL;
    expect_session(ctx, &user, MFA_ERR_UNVERIFIED_EMAIL);
    user.email = "user@example.com";

    user.auth_time = g_now - 301;
    expect_session(ctx, &user, MFA_ERR_REQUIRES_RECENT_LOGIN);
    user.auth_time = g_now - 3600;
    expect_session(ctx, &user, MFA_ERR_REQUIRES_RECENT_LOGIN);
    user.auth_time = g_now - 300;
    expect_session(ctx, &user, MFA_OK);
    user.auth_time = g_now;

    /* Five factors, then SECOND_FACTOR_LIMIT_EXCEEDED. */
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "app %d", i);
        ENROLL_OK(ctx, &user, name, &f[i]);
        g_now += 30;
    }
    CHECK(factor_count(ctx, &user) == 5);
    user.auth_time = g_now;
    expect_session(ctx, &user, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
    CHECK_STATUS(enroll(ctx, &user, "sixth", &f[5]), MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
    CHECK(factor_count(ctx, &user) == 5);

    /* Two sessions opened at four factors: only one of them can finish. */
    {
        mfa_user other;
        char *s1 = NULL, *s2 = NULL;
        mfa_totp_secret *a = NULL, *b = NULL;
        mfa_factor_info *info = NULL;
        char code[MFA_CODE_BUFFER_SIZE];
        factor g;
        user_make(&other, "prereq-limit", NULL);
        for (int i = 0; i < 4; i++) {
            ENROLL_OK(ctx, &other, NULL, &g);
            g_now += 30;
        }
        other.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &s1, &other, NULL), MFA_OK);
        CHECK_STATUS(mfa_session_new(ctx, &s2, &other, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &a, s1, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &b, s2, NULL), MFA_OK);
        if (a && b) {
            code_at(code, a->shared_secret_key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &other, a->session_info, code, NULL, NULL), MFA_OK);
            mfa_factor_info_free(info);
            info = NULL;
            code_at(code, b->shared_secret_key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &other, b->session_info, code, NULL, NULL),
                         MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
            CHECK(info == NULL);
        }
        CHECK(factor_count(ctx, &other) == 5);
        mfa_totp_secret_free(a);
        mfa_totp_secret_free(b);
        mfa_free(s1);
        mfa_free(s2);
    }
    /* The limit comes from the configuration. */
    {
        mfa_user limited;
        factor g;
        set_config(ctx, "tenant-two", "{\"limits\":{\"maxFactors\":2}}");
        user_make(&limited, "prereq-user", "tenant-two");
        ENROLL_OK(ctx, &limited, NULL, &g);
        g_now += 30;
        ENROLL_OK(ctx, &limited, NULL, &g);
        g_now += 30;
        limited.auth_time = g_now;
        expect_session(ctx, &limited, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Flow 4: TOTP enrollment                                              */
/* ------------------------------------------------------------------ */

static int is_base32(const char *text) {
    for (; *text; text++) {
        if (!((*text >= 'A' && *text <= 'Z') || (*text >= '2' && *text <= '7'))) return 0;
    }
    return 1;
}

static void test_qr(const char *uri) {
    uint8_t *out = NULL;
    size_t len = 0;
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_PNG), MFA_OK);
    CHECK(out != NULL && len > 8 && memcmp(out, png_signature, 8) == 0);
    mfa_free(out);
    out = NULL;

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_SVG), MFA_OK);
    CHECK(out != NULL && len > 4 && memcmp(out, "<svg", 4) == 0);
    CHECK(out != NULL && len > 6 && memfind(out, len, (const uint8_t *)"</svg>", 6));
    mfa_free(out);
    out = NULL;

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_TEXT), MFA_OK);
    CHECK(out != NULL && len > 0 && strlen((const char *)out) == len);
    mfa_free(out);
    out = NULL;

    len = 99;
    out = (uint8_t *)"sentinel";
    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, 9), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && len == 0);
    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, &len, "", MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, &len, NULL, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(NULL, &len, uri, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, NULL, uri, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
}

/* A new session for `user` (first factor passed now) and a secret from it, both checked. */
static void new_secret_at(mfa_ctx *ctx, mfa_user *user, char **session, mfa_totp_secret **secret, int line) {
    user->auth_time = g_now;
    CHECK_STATUS_AT(mfa_session_new(ctx, session, user, NULL), MFA_OK, line);
    CHECK_STATUS_AT(mfa_totp_generate_secret(ctx, secret, *session, NULL), MFA_OK, line);
}
#define new_secret(ctx, user, session, secret) new_secret_at(ctx, user, session, secret, __LINE__)

/* Frees a session and its secret, and forgets them. */
static void drop_secret(char **session, mfa_totp_secret **secret) {
    mfa_totp_secret_free(*secret);
    *secret = NULL;
    mfa_free(*session);
    *session = NULL;
}

static void test_enrollment(void) {
    mfa_ctx *ctx = open_project();
    mfa_user alice, bob, alice_tenant;
    char *session = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    char *uri = NULL;
    int64_t t0 = g_now;

    user_make(&alice, "enroll-alice", NULL);
    user_make(&bob, "enroll-bob", NULL);
    user_make(&alice_tenant, "enroll-alice", "tenant-x");
    set_config(ctx, "tenant-x", "{}");

    CHECK_ERR(mfa_session_new(ctx, &session, &alice, &err), MFA_OK, err);
    CHECK_ERR(mfa_totp_generate_secret(ctx, &secret, session, &err), MFA_OK, err);
    CHECK(secret != NULL);
    if (!secret) {
        mfa_free(session);
        mfa_close(ctx);
        return;
    }
    /* The secret: 20 random bytes as 32 base32 characters, SHA1, 6 digits, 30 s, 10 minutes. */
    CHECK(secret->shared_secret_key != NULL && strlen(secret->shared_secret_key) == 32);
    CHECK(is_base32(secret->shared_secret_key));
    {
        uint8_t *raw = NULL;
        size_t raw_len = 0;
        CHECK_STATUS(mfa_base32_decode(&raw, &raw_len, secret->shared_secret_key), MFA_OK);
        CHECK(raw_len == 20);
        mfa_free(raw);
    }
    CHECK(secret->algorithm == MFA_ALG_SHA1);
    CHECK(secret->digits == 6);
    CHECK(secret->period == 30);
    CHECK(secret->deadline == t0 + 600);
    CHECK(secret->session_info != NULL && strlen(secret->session_info) > 3);

    /* The key URI: issuer and account percent-encoded, and it parses back. */
    CHECK_ERR(mfa_totp_secret_uri(&uri, secret, "alice smith@example.com", "ACME Co: Auth&Co", &err), MFA_OK, err);
    CHECK(uri != NULL);
    if (uri) {
        mfa_key_uri *parsed = NULL;
        char want_secret[64];
        CHECK(strncmp(uri, "otpauth://totp/", 15) == 0);
        CHECK(contains(uri, "ACME%20Co%3A%20Auth%26Co:alice%20smith%40example.com?"));
        CHECK(contains(uri, "issuer=ACME%20Co%3A%20Auth%26Co"));
        snprintf(want_secret, sizeof want_secret, "secret=%s", secret->shared_secret_key);
        CHECK(contains(uri, want_secret));
        CHECK(contains(uri, "algorithm=SHA1"));
        CHECK(contains(uri, "digits=6"));
        CHECK(contains(uri, "period=30"));
        CHECK(!contains(uri, " "));
        CHECK_STATUS(mfa_key_uri_parse(&parsed, uri, NULL), MFA_OK);
        if (parsed) {
            CHECK(parsed->issuer && strcmp(parsed->issuer, "ACME Co: Auth&Co") == 0);
            CHECK(parsed->account && strcmp(parsed->account, "alice smith@example.com") == 0);
            CHECK(parsed->secret_len == 20);
            CHECK(parsed->period == 30 && parsed->digits == 6 && parsed->algorithm == MFA_ALG_SHA1);
        }
        mfa_key_uri_free(parsed);
        test_qr(uri);
    }
    mfa_free(uri);
    uri = NULL;
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, "bob@example.com", NULL, NULL), MFA_OK);
    CHECK(uri && strncmp(uri, "otpauth://totp/bob%40example.com?", 33) == 0 && !contains(uri, "issuer="));
    mfa_free(uri);
    uri = NULL;
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, "", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(uri == NULL);
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, NULL, "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_secret_uri(&uri, NULL, "a", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_secret_uri(NULL, secret, "a", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);

    /* Another user's session_info is refused; so is another tenant's. */
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &bob, secret->session_info, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(info == NULL);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice_tenant, secret->session_info, code, NULL, &err),
              MFA_ERR_TENANT_MISMATCH, err);
    CHECK(info == NULL);
    /* A tampered session_info. */
    {
        char bad[TOKEN_MAX];
        snprintf(bad, sizeof bad, "%s", secret->session_info);
        tamper(bad);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, bad, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, "", code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        /* A session is not a session_info (and the other way round). */
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, session, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK_ERR(mfa_totp_generate_secret(ctx, &(mfa_totp_secret *){NULL}, secret->session_info, &err),
                  MFA_ERR_INVALID_SESSION, err);
    }

    /* A wrong code: the user may retry. Malformed codes too. */
    g_now += 10;
    wrong_code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK(info == NULL);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "12345", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "abcdef", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK(factor_count(ctx, &alice) == 0);
    /* ... then the right one works. */
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, "Phone app", &err), MFA_OK, err);
    CHECK(info != NULL);
    if (info) {
        CHECK(info->uid != NULL && strlen(info->uid) == 28);
        CHECK(info->factor_id && strcmp(info->factor_id, "totp") == 0);
        CHECK(info->display_name && strcmp(info->display_name, "Phone app") == 0);
        CHECK(info->enrollment_time == g_now);
        CHECK(info->phone_number == NULL);
        /* It is listed. */
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &alice, NULL), MFA_OK);
            CHECK(list && list->count == 1);
            if (list && list->count == 1) {
                CHECK(strcmp(list->items[0].uid, info->uid) == 0);
                CHECK(strcmp(list->items[0].factor_id, "totp") == 0);
                CHECK(list->items[0].display_name && strcmp(list->items[0].display_name, "Phone app") == 0);
                CHECK(list->items[0].enrollment_time == g_now);
            }
            mfa_factor_list_free(list);
        }
    }
    mfa_factor_info_free(info);
    info = NULL;

    /* Reusing the session or the session_info: INVALID_SESSION. */
    g_now += 30;
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(info == NULL);
    {
        mfa_totp_secret *again = (mfa_totp_secret *)&again;
        CHECK_ERR(mfa_totp_generate_secret(ctx, &again, session, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK(again == NULL);
    }
    CHECK(factor_count(ctx, &alice) == 1);
    drop_secret(&session, &secret);

    /* An expired secret: CODE_EXPIRED even with the right code. */
    new_secret(ctx, &alice, &session, &secret);
    if (secret) {
        int64_t deadline = secret->deadline;
        CHECK(deadline == g_now + 600);
        g_now = deadline + 1;
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_ERR_CODE_EXPIRED,
                  err);
        CHECK(info == NULL);
        /* The session has expired too. */
        {
            mfa_totp_secret *late = NULL;
            CHECK_ERR(mfa_totp_generate_secret(ctx, &late, session, &err), MFA_ERR_INVALID_SESSION, err);
            CHECK(late == NULL);
        }
    }
    CHECK(factor_count(ctx, &alice) == 1);
    drop_secret(&session, &secret);

    /* Exactly at the deadline it still works. */
    new_secret(ctx, &alice, &session, &secret);
    if (secret) {
        g_now = secret->deadline;
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_OK, err);
        mfa_factor_info_free(info);
        info = NULL;
    }
    CHECK(factor_count(ctx, &alice) == 2);
    drop_secret(&session, &secret);

    /* The TOTP provider disabled: OPERATION_NOT_ALLOWED, both when generating and when finishing. */
    g_now += 30;
    new_secret(ctx, &alice, &session, &secret);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"DISABLED\",\"phone\":\"ENABLED\"}}");
    if (secret) {
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err),
                  MFA_ERR_OPERATION_NOT_ALLOWED, err);
        CHECK(info == NULL);
    }
    drop_secret(&session, &secret);
    CHECK_STATUS(mfa_session_new(ctx, &session, &alice, NULL), MFA_OK); /* phone is still enabled */
    CHECK_ERR(mfa_totp_generate_secret(ctx, &secret, session, &err), MFA_ERR_OPERATION_NOT_ALLOWED, err);
    CHECK(secret == NULL);
    mfa_free(session);
    session = NULL;
    CHECK(factor_count(ctx, &alice) == 2);

    /* A display name longer than 256 bytes is refused; NULL and "" mean none. */
    set_config(ctx, NULL, ENABLE_TOTP);
    {
        char long_name[300];
        factor g;
        memset(long_name, 'n', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = '\0';
        CHECK_STATUS(enroll(ctx, &bob, long_name, &g), MFA_ERR_INVALID_ARGUMENT);
        CHECK(factor_count(ctx, &bob) == 0);
        ENROLL_OK(ctx, &bob, "", &g);
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &bob, NULL), MFA_OK);
            CHECK(list && list->count == 1 && list->items[0].display_name == NULL);
            mfa_factor_list_free(list);
        }
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Flow 5: sign-in                                                      */
/* ------------------------------------------------------------------ */

static void test_sign_in(void) {
    mfa_ctx *ctx = open_project();
    mfa_user alice, bob, carol, tenant_user;
    mfa_resolver *resolver;
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    factor fa, fb, ft;
    char cred[TOKEN_MAX], cred2[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];

    user_make(&alice, "signin-alice", NULL);
    user_make(&bob, "signin-bob", NULL);
    user_make(&carol, "signin-carol", NULL);

    /* No factors: signed in, no resolver. */
    resolver = (mfa_resolver *)&resolver;
    CHECK_ERR(mfa_sign_in(ctx, &resolver, &carol, &err), MFA_OK, err);
    CHECK(resolver == NULL);
    /* MANDATORY, no factors: ENROLLMENT_REQUIRED. */
    set_config(ctx, "tenant-must", "{\"state\":\"MANDATORY\"}");
    {
        mfa_user must;
        user_make(&must, "signin-carol", "tenant-must");
        resolver = (mfa_resolver *)&resolver;
        CHECK_ERR(mfa_sign_in(ctx, &resolver, &must, &err), MFA_ERR_ENROLLMENT_REQUIRED, err);
        CHECK(resolver == NULL);
        /* ... and once enrolled, the second factor is required. */
        ENROLL_OK(ctx, &must, NULL, &ft);
        g_now += 30;
        SIGN_IN_REQUIRED(ctx, &must, cred);
        code_at(code, ft.key, g_now);
        CHECK_STATUS(resolve(ctx, cred, "tenant-must", ft.eid, code), MFA_OK);
    }

    ENROLL_OK(ctx, &alice, "Alice's phone", &fa);
    ENROLL_OK(ctx, &bob, "Bob's phone", &fb);
    /* The code that finished the enrollment cannot sign in (its step is used). */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    g_now += 30;

    /* With a factor: SECOND_FACTOR_REQUIRED and a resolver. */
    resolver = NULL;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, &err), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(err != NULL);
    mfa_free(err);
    err = NULL;
    CHECK(resolver != NULL);
    if (!resolver) {
        mfa_close(ctx);
        return;
    }
    CHECK(resolver->session && strncmp(resolver->session, "v1.", 3) == 0);
    CHECK(resolver->uid && strcmp(resolver->uid, "signin-alice") == 0);
    CHECK(resolver->tenant == NULL);
    CHECK(resolver->hint_count == 1);
    if (resolver->hint_count == 1) {
        CHECK(strcmp(resolver->hints[0].uid, fa.eid) == 0);
        CHECK(strcmp(resolver->hints[0].factor_id, "totp") == 0);
        CHECK(resolver->hints[0].display_name && strcmp(resolver->hints[0].display_name, "Alice's phone") == 0);
        CHECK(resolver->hints[0].enrollment_time == fa.enrolled_at);
        CHECK(resolver->hints[0].phone_number == NULL);
    }
    snprintf(cred, sizeof cred, "%s", resolver->session);
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* mfa_resolver_load rebuilds the resolver from the credential. */
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_OK, err);
    CHECK(resolver != NULL);
    if (resolver) {
        CHECK(strcmp(resolver->session, cred) == 0);
        CHECK(strcmp(resolver->uid, "signin-alice") == 0);
        CHECK(resolver->tenant == NULL);
        CHECK(resolver->hint_count == 1 && strcmp(resolver->hints[0].uid, fa.eid) == 0);
        CHECK(resolver->hint_count == 1 && resolver->hints[0].enrollment_time == fa.enrolled_at);
    }
    mfa_resolver_free(resolver);
    resolver = NULL;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, "tenant-x", &err), MFA_ERR_TENANT_MISMATCH, err);
    CHECK(resolver == NULL);
    snprintf(cred2, sizeof cred2, "%s", cred);
    tamper(cred2);
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred2, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(resolver == NULL);

    /* Tampered, truncated, foreign-purpose credentials: INVALID_SESSION. */
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    snprintf(cred2, sizeof cred2, "%s", cred);
    cred2[strlen(cred2) - 5] = '\0';
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    snprintf(cred2, sizeof cred2, "%s", cred);
    cred2[1] = '2';
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    CHECK(resolve(ctx, "", NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    CHECK(resolve(ctx, "v1.", NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    {
        char *session = NULL;
        alice.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &alice, NULL), MFA_OK);
        if (session) CHECK(resolve(ctx, session, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
        mfa_free(session);
    }

    /* Another user's enrollment id (with that user's right code): INVALID_SESSION. */
    {
        char bob_code[MFA_CODE_BUFFER_SIZE];
        code_at(bob_code, fb.key, g_now);
        CHECK(resolve(ctx, cred, NULL, fb.eid, bob_code) == MFA_ERR_INVALID_SESSION);
        /* ... which neither used Bob's code nor Alice's credential. */
        SIGN_IN_REQUIRED(ctx, &bob, cred2);
        CHECK_STATUS(resolve(ctx, cred2, NULL, fb.eid, bob_code), MFA_OK);
    }
    /* Another tenant: TENANT_MISMATCH. Unknown enrollment id: MFA_ENROLLMENT_NOT_FOUND. */
    CHECK(resolve(ctx, cred, "tenant-x", fa.eid, code) == MFA_ERR_TENANT_MISMATCH);
    CHECK(resolve(ctx, cred, NULL, "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", code) == MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);

    /* The right code: the result names the user, the factor and the time. */
    CHECK_ERR(mfa_resolve_totp(ctx, &result, cred, NULL, fa.eid, code, &err), MFA_OK, err);
    CHECK(result != NULL);
    if (result) {
        CHECK(strcmp(result->uid, "signin-alice") == 0);
        CHECK(result->tenant == NULL);
        CHECK(strcmp(result->factor_id, "totp") == 0);
        CHECK(strcmp(result->enrollment_id, fa.eid) == 0);
        CHECK(result->time == g_now);
    }
    mfa_sign_in_result_free(result);
    result = NULL;

    /* Replay of the same code with a fresh credential: INVALID_VERIFICATION_CODE. */
    SIGN_IN_REQUIRED(ctx, &alice, cred2);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    /* So is an older step, still inside the window. */
    code_at(code, fa.key, g_now - 30);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    /* The used credential, even with the next step's right code: INVALID_SESSION. */
    g_now += 30;
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    /* mfa_resolver_load of a credential works until it expires; the loaded session resolves. */
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred2, NULL, NULL), MFA_OK);
    if (resolver) CHECK(resolve(ctx, resolver->session, NULL, fa.eid, code) == MFA_OK);
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* An expired credential (pendingCredentialLifetime 300 s): INVALID_SESSION. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    g_now += 300;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_OK, err); /* exactly at expiry */
    mfa_resolver_free(resolver);
    resolver = NULL;
    g_now += 1;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(resolver == NULL);
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    /* ... and a fresh one works with that same code (nothing was claimed). */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_OK);

    /* The window: adjacentIntervals 5 (project) accepts an earlier step, not beyond +/-5. */
    g_now += 90;
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    code_at(code, fa.key, g_now + 6 * 30);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, fa.key, g_now - 6 * 30);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, fa.key, g_now - 60);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_OK);
    /* A tenant with adjacentIntervals 0 accepts only the current step. */
    set_config(ctx, "tenant-strict", "{\"totp\":{\"adjacentIntervals\":0}}");
    user_make(&tenant_user, "signin-alice", "tenant-strict");
    ENROLL_OK(ctx, &tenant_user, NULL, &ft);
    g_now += 90;
    SIGN_IN_REQUIRED(ctx, &tenant_user, cred);
    code_at(code, ft.key, g_now - 30);
    CHECK(resolve(ctx, cred, "tenant-strict", ft.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, ft.key, g_now + 30);
    CHECK(resolve(ctx, cred, "tenant-strict", ft.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, ft.key, g_now);
    /* The project's credential is not the tenant's, and the other way round. */
    CHECK(resolve(ctx, cred, NULL, ft.eid, code) == MFA_ERR_TENANT_MISMATCH);
    CHECK(resolve(ctx, cred, "tenant-other", ft.eid, code) == MFA_ERR_TENANT_MISMATCH);
    /* The project user's factor is not the tenant user's, though the uid is the same. */
    {
        char alice_code[MFA_CODE_BUFFER_SIZE];
        code_at(alice_code, fa.key, g_now);
        CHECK(resolve(ctx, cred, "tenant-strict", fa.eid, alice_code) == MFA_ERR_INVALID_SESSION);
    }
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, "tenant-strict", ft.eid, code, NULL), MFA_OK);
    /* The same uid in the project and in a tenant are two users. */
    CHECK(factor_count(ctx, &tenant_user) == 1);
    CHECK(factor_count(ctx, &alice) == 1);
    if (result) {
        CHECK(result->tenant && strcmp(result->tenant, "tenant-strict") == 0);
        CHECK(strcmp(result->uid, "signin-alice") == 0);
        CHECK(strcmp(result->enrollment_id, ft.eid) == 0);
    }
    mfa_sign_in_result_free(result);
    result = NULL;
    /* The tenant user's resolver names the tenant. */
    g_now += 30;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &tenant_user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    if (resolver) {
        CHECK(resolver->tenant && strcmp(resolver->tenant, "tenant-strict") == 0);
        CHECK(resolver->hint_count == 1 && strcmp(resolver->hints[0].uid, ft.eid) == 0);
    }
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* Hints list every factor, oldest first. */
    {
        factor second;
        g_now += 30;
        ENROLL_OK(ctx, &alice, "Backup", &second);
        g_now += 30;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 2);
        if (resolver && resolver->hint_count == 2) {
            CHECK(strcmp(resolver->hints[0].uid, fa.eid) == 0);
            CHECK(strcmp(resolver->hints[1].uid, second.eid) == 0);
            CHECK(resolver->hints[1].display_name && strcmp(resolver->hints[1].display_name, "Backup") == 0);
            code_at(code, second.key, g_now);
            CHECK(resolve(ctx, resolver->session, NULL, second.eid, code) == MFA_OK);
        }
        mfa_resolver_free(resolver);
        resolver = NULL;
    }
    /* A user with factors cannot use an unsupported first factor. */
    alice.provider = "anonymous";
    resolver = (mfa_resolver *)&resolver;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, NULL), MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
    CHECK(resolver == NULL);
    alice.provider = "password";

    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Backoff                                                              */
/* ------------------------------------------------------------------ */

static void test_brute_force(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    int64_t cred_time = 0;
    int ok = 0, too_many = 0, invalid = 0, other = 0;

    user_make(&user, "brute-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;

    for (int i = 0; i < 10000; i++) {
        int status;
        if (i == 0 || g_now - cred_time >= 240) {
            SIGN_IN_REQUIRED(ctx, &user, cred);
            cred_time = g_now;
        }
        wrong_code_at(code, f.key, g_now);
        status = resolve(ctx, cred, NULL, f.eid, code);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER) too_many++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) invalid++;
        else {
            if (other == 0) fprintf(stderr, "brute force: unexpected %s\n", mfa_status_name(status));
            other++;
        }
        g_now += 1;
    }
    printf("brute force: 10000 wrong codes, %d evaluated, %d refused by backoff\n", invalid, too_many);
    CHECK(ok == 0);
    CHECK(other == 0);
    CHECK(invalid + too_many == 10000);
    CHECK(invalid >= 6);    /* the free attempts, and backoff ends by itself */
    CHECK(invalid <= 40);   /* the backoff refused the vast majority */

    /* Past the longest backoff the right code works. */
    g_now += 901;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, f.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_OK);
    mfa_close(ctx);
}

/* `n` wrong codes for factor `f` with the pending credential `cred`, each evaluated. */
static void wrong_codes_at(mfa_ctx *ctx, const char *cred, const factor *f, int n, int line) {
    char code[MFA_CODE_BUFFER_SIZE];
    for (int i = 0; i < n; i++) {
        wrong_code_at(code, f->key, g_now);
        CHECK_STATUS_AT(resolve_at(ctx, cred, NULL, f->eid, code, line), MFA_ERR_INVALID_VERIFICATION_CODE, line);
    }
}
#define wrong_codes(ctx, cred, f, n) wrong_codes_at(ctx, cred, f, n, __LINE__)

/* The backoff schedule, failure memory and the per-user lock, one step at a time. */
static void test_backoff_schedule(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    factor fa, fb;
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];

    user_make(&user, "backoff-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &fa);
    g_now += 30;
    ENROLL_OK(ctx, &user, NULL, &fb);
    g_now += 30;

    /* freeAttempts 5: five failures cost nothing; the sixth locks for backoffBase (1 s). */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 6);
    /* Locked: even the right code is refused, on this factor and (per user) on the other. */
    code_at(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* One second later: evaluated again; the seventh failure locks for 2 s. */
    g_now += 1;
    wrong_codes(ctx, cred, &fa, 1);
    g_now += 1;
    code_at(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now += 1;
    /* The lock is over: the right code signs in and clears the failures. */
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_OK);

    /* Cleared: five free failures again. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 6);
    wrong_code_at(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* Build a long backoff ... */
    for (int i = 0; i < 12; i++) {
        g_now += 1000;
        SIGN_IN_REQUIRED(ctx, &user, cred);
        wrong_codes(ctx, cred, &fa, 1);
    }
    /* ... which is capped at backoffMax (900 s). */
    g_now += 899;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* failureMemory (3600 s) after the last failure they are forgotten: five free failures. */
    g_now += 3601 - 899;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 5);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_OK);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Flow 6: unenroll, token revocation, step-up                          */
/* ------------------------------------------------------------------ */

static void test_unenroll_and_tokens(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user, other;
    factor f, g, h;
    bool passed = true;
    char *err = NULL;
    int64_t before_enroll, enrolled_at, signed_in_at, unenrolled_at;

    user_make(&user, "unenroll-user", NULL);
    user_make(&other, "unenroll-other", NULL);

    /* A user nobody revoked: every credential is valid. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", 0), MFA_OK);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 3600), MFA_OK);
    CHECK(passed == false);

    before_enroll = g_now;
    g_now += 5;
    ENROLL_OK(ctx, &user, "first", &f);
    enrolled_at = g_now;
    ENROLL_OK(ctx, &other, "other's", &h);
    /* Enrollment revokes earlier credentials. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", before_enroll), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at + 10), MFA_OK);
    /* ... only of that user and tenant. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-nobody", before_enroll), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, "tenant-x", "unenroll-user", before_enroll), MFA_OK);

    /* Step-up: true within N seconds of a second factor, false after. */
    g_now += 30;
    SIGN_IN_OK(ctx, &user, &f);
    signed_in_at = g_now;
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 0), MFA_OK);
    CHECK(passed == true);
    g_now += 60;
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 60), MFA_OK);
    CHECK(passed == true);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 59), MFA_OK);
    CHECK(passed == false);
    g_now += 1;
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 60), MFA_OK);
    CHECK(passed == false);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", 61), MFA_OK);
    CHECK(passed == true);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, "tenant-x", "unenroll-user", 3600), MFA_OK);
    CHECK(passed == false);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-other", 3600), MFA_OK);
    CHECK(passed == false);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, "unenroll-user", -1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, NULL, NULL, "unenroll-user", 1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, NULL, 1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(NULL, &passed, NULL, "unenroll-user", 1), MFA_ERR_INVALID_ARGUMENT);
    (void)signed_in_at;

    g_now += 30;
    ENROLL_OK(ctx, &user, "second", &g);
    CHECK(factor_count(ctx, &user) == 2);

    /* Unenroll needs a recent login. */
    g_now += 400;
    CHECK_ERR(mfa_unenroll(ctx, &user, f.eid, &err), MFA_ERR_REQUIRES_RECENT_LOGIN, err);
    CHECK(factor_count(ctx, &user) == 2);
    user.auth_time = g_now;
    /* Unknown id, or another user's: MFA_ENROLLMENT_NOT_FOUND. */
    CHECK_ERR(mfa_unenroll(ctx, &user, "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_unenroll(ctx, &user, h.eid, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(factor_count(ctx, &other) == 1);
    {
        mfa_user tenant_user;
        user_make(&tenant_user, "unenroll-user", "tenant-x");
        CHECK_ERR(mfa_unenroll(ctx, &tenant_user, f.eid, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    }
    CHECK(factor_count(ctx, &user) == 2);

    /* Success: the factor is gone, earlier credentials are revoked. */
    g_now += 7;
    unenrolled_at = g_now;
    CHECK_ERR(mfa_unenroll(ctx, &user, f.eid, &err), MFA_OK, err);
    {
        mfa_factor_list *list = NULL;
        CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
        CHECK(list && list->count == 1 && strcmp(list->items[0].uid, g.eid) == 0);
        mfa_factor_list_free(list);
    }
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", unenrolled_at - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", unenrolled_at), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", unenrolled_at + 1), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-other", unenrolled_at - 1), MFA_OK);
    /* The same id again: gone. */
    CHECK_ERR(mfa_unenroll(ctx, &user, f.eid, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    /* Signing in with the removed factor: MFA_ENROLLMENT_NOT_FOUND. */
    {
        char cred[TOKEN_MAX];
        char code[MFA_CODE_BUFFER_SIZE];
        g_now += 30;
        SIGN_IN_REQUIRED(ctx, &user, cred);
        code_at(code, f.key, g_now);
        CHECK(resolve(ctx, cred, NULL, f.eid, code) == MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
        code_at(code, g.key, g_now);
        CHECK(resolve(ctx, cred, NULL, g.eid, code) == MFA_OK);
    }
    /* The last factor removed: signing in needs no second factor. */
    CHECK_ERR(mfa_unenroll(ctx, &user, g.eid, &err), MFA_OK, err);
    CHECK(factor_count(ctx, &user) == 0);
    {
        mfa_resolver *resolver = (mfa_resolver *)&resolver;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_OK);
        CHECK(resolver == NULL);
    }
    CHECK_STATUS(mfa_unenroll(ctx, &user, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(ctx, &user, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(ctx, NULL, g.eid, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(NULL, &user, g.eid, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, NULL, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(NULL, NULL, "unenroll-user", 0), MFA_ERR_INVALID_ARGUMENT);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Audit events                                                         */
/* ------------------------------------------------------------------ */

static const char *kind_name_of(int32_t kind) {
    switch (kind) {
    case MFA_AUDIT_ENROLL: return "ENROLL";
    case MFA_AUDIT_UNENROLL: return "UNENROLL";
    case MFA_AUDIT_SIGN_IN_SUCCESS: return "SIGN_IN_SUCCESS";
    case MFA_AUDIT_SIGN_IN_FAILURE: return "SIGN_IN_FAILURE";
    case MFA_AUDIT_BACKOFF: return "BACKOFF";
    case MFA_AUDIT_CONFIG_CHANGE: return "CONFIG_CHANGE";
    case MFA_AUDIT_SMS_SENT: return "SMS_SENT";
    default: return "?";
    }
}

/* The first event of `kind` at or after index `from` that matches the fields given (NULL = any). */
static const audit_record *find_event(const audit_log *log, size_t from, int32_t kind, const char *tenant,
                                      const char *uid, const char *eid) {
    for (size_t i = from; i < log->count; i++) {
        const audit_record *e = &log->events[i];
        if (e->kind != kind) continue;
        if (tenant && strcmp(e->tenant, tenant) != 0) continue;
        if (uid && strcmp(e->uid, uid) != 0) continue;
        if (eid && strcmp(e->enrollment_id, eid) != 0) continue;
        return e;
    }
    return NULL;
}

static size_t count_events(const audit_log *log, size_t from, int32_t kind) {
    size_t n = 0;
    for (size_t i = from; i < log->count; i++) n += log->events[i].kind == kind;
    return n;
}

static void test_audit(void) {
    static audit_log log;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    char codes[64][MFA_CODE_BUFFER_SIZE];
    size_t code_count = 0;
    char secrets[4][128];
    size_t secret_count = 0;
    char tokens[8][TOKEN_MAX];
    size_t token_count = 0;
    const audit_record *e;
    size_t mark = 0;
    int64_t t;

    memset(&log, 0, sizeof log);
    memset(&f, 0, sizeof f);
    test_options(&options, ":memory:", &g_now);
    options.audit = audit_callback;
    options.audit_context = &log;
    ctx = open_with(&options);

    /* CONFIG_CHANGE, for the project and for a tenant. */
    t = g_now;
    set_config(ctx, NULL, ENABLE_TOTP);
    e = find_event(&log, 0, MFA_AUDIT_CONFIG_CHANGE, "", NULL, NULL);
    CHECK(e != NULL && e->time == t);
    set_config(ctx, "tenant-audit", "{\"totp\":{\"adjacentIntervals\":2}}");
    e = find_event(&log, 0, MFA_AUDIT_CONFIG_CHANGE, "tenant-audit", NULL, NULL);
    CHECK(e != NULL && e->time == t && strcmp(e->uid, "") == 0);
    /* A rejected configuration is not a change. */
    mark = log.count;
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, "{\"state\":\"ON\"}", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(count_events(&log, mark, MFA_AUDIT_CONFIG_CHANGE) == 0);

    /* ENROLL, with a failed attempt first. */
    user_make(&user, "audit-user", "tenant-audit");
    {
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        mfa_factor_info *info = NULL;
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (session && token_count < 8) snprintf(tokens[token_count++], TOKEN_MAX, "%s", session);
        if (secret) {
            snprintf(secrets[secret_count++], 128, "%s", secret->shared_secret_key);
            snprintf(tokens[token_count++], TOKEN_MAX, "%s", secret->session_info);
            wrong_code_at(codes[code_count], secret->shared_secret_key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, secret->session_info, codes[code_count], NULL, NULL),
                         MFA_ERR_INVALID_VERIFICATION_CODE);
            code_count++;
            code_at(codes[code_count], secret->shared_secret_key, g_now);
            mark = log.count;
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, secret->session_info, codes[code_count], "audit phone",
                                         NULL), MFA_OK);
            code_count++;
            if (info) {
                snprintf(f.eid, sizeof f.eid, "%s", info->uid);
                snprintf(f.key, sizeof f.key, "%s", secret->shared_secret_key);
            }
        }
        mfa_factor_info_free(info);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    e = find_event(&log, mark, MFA_AUDIT_ENROLL, "tenant-audit", "audit-user", f.eid);
    CHECK(e != NULL);
    if (e) {
        CHECK(strcmp(e->factor_id, "totp") == 0);
        CHECK(e->time == g_now);
        CHECK(strcmp(e->detail, "OK") == 0);
    }

    /* SIGN_IN_SUCCESS. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    snprintf(tokens[token_count++], TOKEN_MAX, "%s", cred);
    code_at(codes[code_count], f.key, g_now);
    mark = log.count;
    CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[code_count]), MFA_OK);
    code_count++;
    e = find_event(&log, mark, MFA_AUDIT_SIGN_IN_SUCCESS, "tenant-audit", "audit-user", f.eid);
    CHECK(e != NULL && strcmp(e->factor_id, "totp") == 0 && e->time == g_now);
    CHECK(count_events(&log, mark, MFA_AUDIT_SIGN_IN_FAILURE) == 0);

    /* SIGN_IN_FAILURE for each wrong code, BACKOFF once the free attempts are used. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    snprintf(tokens[token_count++], TOKEN_MAX, "%s", cred);
    mark = log.count;
    for (int i = 0; i < 6; i++) {
        wrong_code_at(codes[code_count], f.key, g_now);
        CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[code_count]), MFA_ERR_INVALID_VERIFICATION_CODE);
        code_count++;
    }
    CHECK(count_events(&log, mark, MFA_AUDIT_SIGN_IN_FAILURE) == 6);
    e = find_event(&log, mark, MFA_AUDIT_SIGN_IN_FAILURE, "tenant-audit", "audit-user", f.eid);
    CHECK(e != NULL && strcmp(e->factor_id, "totp") == 0 && strcmp(e->detail, "INVALID_VERIFICATION_CODE") == 0);
    e = find_event(&log, mark, MFA_AUDIT_BACKOFF, "tenant-audit", "audit-user", f.eid);
    CHECK(e != NULL && e->time == g_now);
    /* A replay is a failure too. */
    g_now += 2;
    mark = log.count;
    CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[2]), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK(find_event(&log, mark, MFA_AUDIT_SIGN_IN_FAILURE, "tenant-audit", "audit-user", f.eid) != NULL);

    /* UNENROLL. */
    user.auth_time = g_now;
    mark = log.count;
    CHECK_STATUS(mfa_unenroll(ctx, &user, f.eid, NULL), MFA_OK);
    e = find_event(&log, mark, MFA_AUDIT_UNENROLL, "tenant-audit", "audit-user", f.eid);
    CHECK(e != NULL && e->time == g_now);

    /* A project user's events carry tenant "". */
    {
        mfa_user project_user;
        factor pf;
        user_make(&project_user, "audit-project", NULL);
        mark = log.count;
        ENROLL_OK(ctx, &project_user, NULL, &pf);
        snprintf(secrets[secret_count++], 128, "%s", pf.key);
        e = find_event(&log, mark, MFA_AUDIT_ENROLL, "", "audit-project", pf.eid);
        CHECK(e != NULL);
    }

    /* Every event: its kind's name, no NULL, and no secret, code or token. */
    CHECK(log.dropped == 0);
    CHECK(log.count >= 12);
    for (size_t i = 0; i < log.count; i++) {
        const audit_record *r = &log.events[i];
        const char *fields[6];
        fields[0] = r->kind_name;
        fields[1] = r->tenant;
        fields[2] = r->uid;
        fields[3] = r->factor_id;
        fields[4] = r->enrollment_id;
        fields[5] = r->detail;
        CHECK(strcmp(r->kind_name, kind_name_of(r->kind)) == 0);
        for (size_t k = 0; k < 6; k++) {
            CHECK(strcmp(fields[k], "<NULL>") != 0);
            for (size_t s = 0; s < secret_count; s++) {
                char lower[128];
                size_t n = strlen(secrets[s]);
                for (size_t c = 0; c <= n; c++) {
                    char ch = secrets[s][c];
                    lower[c] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
                }
                CHECK(!contains(fields[k], secrets[s]));
                CHECK(!contains(fields[k], lower));
            }
            for (size_t c = 0; c < code_count; c++) {
                if (contains_code(fields[k], codes[c])) {
                    fprintf(stderr, "audit event %s field %zu \"%s\" holds code %s\n", r->kind_name, k, fields[k],
                            codes[c]);
                }
                CHECK(!contains_code(fields[k], codes[c]));
            }
            for (size_t tk = 0; tk < token_count; tk++) {
                char head[24];
                snprintf(head, sizeof head, "%s", tokens[tk] + 3); /* skip "v1." */
                CHECK(!contains(fields[k], head));
            }
        }
    }
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* Injected randomness                                                  */
/* ------------------------------------------------------------------ */

static int make_secret(mfa_ctx *ctx, const mfa_user *user, char key[128], char eid[64]) {
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    int status = mfa_session_new(ctx, &session, user, NULL);
    key[0] = eid[0] = '\0';
    if (status == MFA_OK) status = mfa_totp_generate_secret(ctx, &secret, session, NULL);
    if (status == MFA_OK) {
        snprintf(key, 128, "%s", secret->shared_secret_key);
        code_at(code, secret->shared_secret_key, g_now);
        status = mfa_totp_enroll(ctx, &info, user, secret->session_info, code, NULL, NULL);
        if (status == MFA_OK) snprintf(eid, 64, "%s", info->uid);
    }
    mfa_factor_info_free(info);
    mfa_totp_secret_free(secret);
    mfa_free(session);
    return status;
}

static void test_random(void) {
    test_rng r1 = {42, 0, 0}, r2 = {42, 0, 0}, r3 = {7, 0, 0};
    mfa_options options;
    mfa_ctx *c1, *c2, *c3;
    mfa_user user;
    char k1[128], k2[128], k3[128], e1[64], e2[64], e3[64];

    test_options(&options, ":memory:", &g_now);
    options.random = rng_fill;
    options.random_context = &r1;
    c1 = open_with(&options);
    options.random_context = &r2;
    c2 = open_with(&options);
    options.random_context = &r3;
    c3 = open_with(&options);
    set_config(c1, NULL, ENABLE_TOTP);
    set_config(c2, NULL, ENABLE_TOTP);
    set_config(c3, NULL, ENABLE_TOTP);
    user_make(&user, "random-user", NULL);

    CHECK_STATUS(make_secret(c1, &user, k1, e1), MFA_OK);
    CHECK_STATUS(make_secret(c2, &user, k2, e2), MFA_OK);
    CHECK_STATUS(make_secret(c3, &user, k3, e3), MFA_OK);
    /* The same random stream gives the same secret (and enrollment id); another stream another. */
    CHECK(k1[0] != '\0' && strcmp(k1, k2) == 0);
    CHECK(e1[0] != '\0' && strcmp(e1, e2) == 0);
    CHECK(strcmp(k1, k3) != 0);
    CHECK(strcmp(e1, e3) != 0);
    CHECK(r1.calls > 0 && r1.calls == r2.calls);

    /* A random source that fails: MFA_ERR_CRYPTO, nothing returned. */
    {
        char *session = NULL;
        mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
        char *err = NULL;
        g_now += 30;
        user.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(c1, &session, &user, NULL), MFA_OK);
        r1.fail = 1;
        CHECK_ERR(mfa_totp_generate_secret(c1, &secret, session, &err), MFA_ERR_CRYPTO, err);
        CHECK(secret == NULL);
        {
            char *other = (char *)"sentinel";
            CHECK(mfa_session_new(c1, &other, &user, NULL) != MFA_OK);
            CHECK(other == NULL);
        }
        /* The session was not used up: it works once the source recovers. */
        r1.fail = 0;
        CHECK_STATUS(mfa_totp_generate_secret(c1, &secret, session, NULL), MFA_OK);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    mfa_close(c1);
    mfa_close(c2);
    mfa_close(c3);
}

/* ------------------------------------------------------------------ */
/* Files: key rotation, secrets at rest                                 */
/* ------------------------------------------------------------------ */

static char temp_dir[256];

static void test_key_rotation(void) {
    char path[512];
    mfa_options options;
    mfa_master_key k1 = {"k1", K1};
    mfa_master_key k2 = {"k2", K2};
    mfa_master_key both[2];
    mfa_ctx *ctx;
    mfa_user alice, bob;
    factor fa;
    char bob_key[128];
    char bob_session_info[TOKEN_MAX];
    size_t count = 0;
    char *err = NULL;

    snprintf(path, sizeof path, "%s/rotation.db", temp_dir);
    test_remove_sqlite(path);
    user_make(&alice, "rotate-alice", NULL);
    user_make(&bob, "rotate-bob", NULL);

    /* Enroll under k1; leave a pending secret under k1 too. */
    test_options(&options, path, &g_now);
    options.master_key = k1;
    ctx = open_with(&options);
    set_config(ctx, NULL, ENABLE_TOTP);
    ENROLL_OK(ctx, &alice, NULL, &fa);
    {
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        bob_key[0] = bob_session_info[0] = '\0';
        CHECK_STATUS(mfa_session_new(ctx, &session, &bob, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (secret) {
            snprintf(bob_key, sizeof bob_key, "%s", secret->shared_secret_key);
            snprintf(bob_session_info, sizeof bob_session_info, "%s", secret->session_info);
        }
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    mfa_close(ctx);

    /* k2 current, k1 previous: sign-in works; the pending enrollment finishes. */
    g_now += 30;
    options.master_key = k2;
    options.previous_keys = &k1;
    options.previous_key_count = 1;
    ctx = open_with(&options);
    SIGN_IN_OK(ctx, &alice, &fa);
    {
        mfa_factor_info *info = NULL;
        char code[MFA_CODE_BUFFER_SIZE];
        code_at(code, bob_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &bob, bob_session_info, code, NULL, &err), MFA_OK, err);
        mfa_factor_info_free(info);
    }
    /* Alice's factor is the one record still under k1 (Bob's was sealed under k2 when enrolled). */
    CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_OK, err);
    printf("key rotation: %zu record(s) re-encrypted\n", count);
    CHECK(count >= 1);
    CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_OK, err);
    CHECK(count == 0);
    CHECK_STATUS(mfa_rotate_keys(ctx, NULL, NULL), MFA_OK);
    mfa_close(ctx);

    /* Only k2: sign-in still works, for both factors. */
    g_now += 30;
    options.previous_keys = NULL;
    options.previous_key_count = 0;
    ctx = open_with(&options);
    SIGN_IN_OK(ctx, &alice, &fa);
    {
        factor fb;
        snprintf(fb.key, sizeof fb.key, "%s", bob_key);
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &bob, NULL), MFA_OK);
            CHECK(list && list->count == 1);
            if (list && list->count == 1) snprintf(fb.eid, sizeof fb.eid, "%s", list->items[0].uid);
            mfa_factor_list_free(list);
        }
        SIGN_IN_OK(ctx, &bob, &fb);
    }
    mfa_close(ctx);

    /* Only k1 afterwards: the secrets are no longer readable. */
    g_now += 30;
    options.master_key = k1;
    ctx = open_with(&options);
    {
        char cred[TOKEN_MAX];
        char code[MFA_CODE_BUFFER_SIZE];
        SIGN_IN_REQUIRED(ctx, &alice, cred);
        code_at(code, fa.key, g_now);
        CHECK_ERR(mfa_resolve_totp(ctx, &(mfa_sign_in_result *){NULL}, cred, NULL, fa.eid, code, &err),
                  MFA_ERR_CRYPTO, err);
        /* Rotating without the key the records are under: MFA_ERR_CRYPTO. */
        CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_ERR_CRYPTO, err);
    }
    mfa_close(ctx);

    /* A wrong key under the right id does not decrypt either. */
    g_now += 30;
    {
        mfa_master_key impostor = {"k2", K1};
        char cred[TOKEN_MAX];
        char code[MFA_CODE_BUFFER_SIZE];
        options.master_key = impostor;
        ctx = open_with(&options);
        SIGN_IN_REQUIRED(ctx, &alice, cred);
        code_at(code, fa.key, g_now);
        CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_CRYPTO);
        mfa_close(ctx);
    }

    /* Key options: duplicate ids, bad ids, missing keys. */
    {
        mfa_ctx *bad = (mfa_ctx *)&bad;
        mfa_master_key dup = {"k2", K1};
        mfa_master_key noid = {NULL, K1};
        mfa_master_key empty_id = {"", K1};
        mfa_master_key space_id = {"key one", K1};
        mfa_master_key nokey = {"k9", NULL};
        options.master_key = k2;
        options.previous_keys = &dup;
        options.previous_key_count = 1;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(bad == NULL);
        options.previous_keys = NULL;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT); /* count 1, NULL keys */
        options.previous_key_count = 0;
        both[0] = k1;
        both[1] = nokey;
        options.previous_keys = both;
        options.previous_key_count = 2;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.previous_keys = NULL;
        options.previous_key_count = 0;
        options.master_key = noid;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = empty_id;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = space_id;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = nokey;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    test_remove_sqlite(path);
}

/* The TOTP secrets that must not be found at rest: as base32 text, as bytes, or half of them. */
typedef struct at_rest {
    char keys[8][128];
    uint8_t *raw[8];
    size_t raw_len[8];
    size_t n;
} at_rest;

static void look_for_secrets(const uint8_t *data, size_t len, const char *file, int pass, void *context) {
    const at_rest *r = context;
    for (size_t i = 0; i < r->n; i++) {
        int text = memfind(data, len, r->keys[i], strlen(r->keys[i]));
        int bytes = r->raw[i] && memfind(data, len, r->raw[i], r->raw_len[i]);
        int half = r->raw[i] && memfind(data, len, r->raw[i], 10);
        if (text || bytes || half) {
            fprintf(stderr, "secret %zu found in %s (pass %d): text %d bytes %d\n", i, file, pass, text, bytes);
        }
        CHECK(!text);
        CHECK(!bytes);
        CHECK(!half);
    }
}

static void test_secrets_at_rest(void) {
    char path[512];
    mfa_options options;
    mfa_ctx *ctx;
    at_rest r;

    r.n = 0;
    snprintf(path, sizeof path, "%s/at-rest.db", temp_dir);
    test_remove_sqlite(path);

    test_options(&options, path, &g_now);
    ctx = open_with(&options);
    set_config(ctx, NULL, ENABLE_TOTP);
    set_config(ctx, "tenant-rest", "{}");
    for (int i = 0; i < 4; i++) {
        mfa_user user;
        factor f;
        char uid[32];
        snprintf(uid, sizeof uid, "at-rest-user-%d", i);
        user_make(&user, uid, i % 2 ? "tenant-rest" : NULL);
        ENROLL_OK(ctx, &user, "at rest", &f);
        snprintf(r.keys[r.n++], 128, "%s", f.key);
        g_now += 30;
        SIGN_IN_OK(ctx, &user, &f);
    }
    /* Pending secrets (generated, never enrolled) are secrets too. */
    for (int i = 0; i < 2; i++) {
        mfa_user user;
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        user_make(&user, "at-rest-pending", NULL);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (secret) snprintf(r.keys[r.n++], 128, "%s", secret->shared_secret_key);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    for (size_t i = 0; i < r.n; i++) {
        r.raw[i] = NULL;
        r.raw_len[i] = 0;
        CHECK_STATUS(mfa_base32_decode(&r.raw[i], &r.raw_len[i], r.keys[i]), MFA_OK);
        CHECK(r.raw_len[i] == 20);
    }
    /* The user ids are stored in the clear. */
    scan_store(ctx, path, "at-rest-user-3", look_for_secrets, &r);
    for (size_t i = 0; i < r.n; i++) mfa_free(r.raw[i]);
    test_remove_sqlite(path);
}

/* ------------------------------------------------------------------ */
/* Bad input                                                            */
/* ------------------------------------------------------------------ */

static void test_bad_input(void) {
    mfa_ctx *ctx = open_project();
    mfa_options options;
    mfa_user user, bad;
    char *out = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    mfa_factor_list *list = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    size_t count = 0;
    bool flag = false;
    char long_uid[130];
    char path[512];
    factor f;
    char cred[TOKEN_MAX];
    char *session = NULL;

    user_make(&user, "bad-input-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);

    /* mfa_open. */
    {
        mfa_ctx *opened = (mfa_ctx *)&opened;
        test_options(&options, ":memory:", &g_now);
        CHECK_STATUS(mfa_open(NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_ERR(mfa_open(&opened, NULL, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(opened == NULL);
        options.version = 0;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.version = MFA_OPTIONS_VERSION + 1;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        test_options(&options, NULL, &g_now);
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        test_options(&options, "", &g_now);
        CHECK_ERR(mfa_open(&opened, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(opened == NULL);
        {
            char *long_path = malloc(5000);
            if (long_path) {
                memset(long_path, 'p', 4999);
                long_path[4999] = '\0';
                test_options(&options, long_path, &g_now);
                CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
                free(long_path);
            }
        }
        test_options(&options, "\xff\xfe.db", &g_now);
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        snprintf(path, sizeof path, "%s/no/such/directory/mfa.db", temp_dir);
        test_options(&options, path, &g_now);
        opened = (mfa_ctx *)&opened;
        CHECK_STATUS(mfa_open(&opened, &options, &err), MFA_ERR_STORAGE_ERROR);
        CHECK(opened == NULL);
        CHECK(err != NULL);
        mfa_free(err);
        err = NULL;
        test_options(&options, ":memory:", &g_now);
        options.master_key.key = NULL;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(opened == NULL);
    }

    /* NULL ctx everywhere. */
    CHECK_STATUS(mfa_session_new(NULL, &out, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(NULL, &secret, session, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(NULL, &info, &user, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(NULL, &list, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(NULL, &resolver, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolver_load(NULL, &resolver, cred, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(NULL, &result, cred, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_rotate_keys(NULL, &count, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_purge_expired(NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(NULL, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(NULL, &flag, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(NULL, &out, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(NULL, &user, f.eid, NULL), MFA_ERR_INVALID_ARGUMENT);

    /* NULL out everywhere. */
    CHECK_STATUS(mfa_session_new(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, NULL, session, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(ctx, NULL, &user, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolver_load(ctx, NULL, cred, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, NULL, cred, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, NULL, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);

    /* NULL user and strings. */
    CHECK_STATUS(mfa_session_new(ctx, &out, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(resolver == NULL);
    CHECK_STATUS(mfa_factors_list(ctx, &list, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, NULL, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(secret == NULL);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, NULL, "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, "x", NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, NULL, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, NULL, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, f.eid, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, "", "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, "", f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, "\xc3\x28", "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, f.eid, "\xff", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(result == NULL);

    /* Wrong struct versions. */
    bad = user;
    bad.version = 0;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(ctx, &bad, f.eid, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.version = MFA_USER_VERSION + 1;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_user_init(NULL, MFA_USER_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_options_init(NULL, MFA_OPTIONS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    /* mfa_user_init's defaults. */
    CHECK_STATUS(mfa_user_init(&bad, MFA_USER_VERSION), MFA_OK);
    CHECK(bad.version == MFA_USER_VERSION && bad.uid == NULL && bad.tenant == NULL && bad.email == NULL);
    CHECK(bad.provider && strcmp(bad.provider, "password") == 0 && bad.auth_time == 0 && bad.email_verified == 0);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT); /* no uid */

    /* Bad uids, tenants, providers, emails. */
    bad = user;
    bad.uid = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "bad\xff\xfeuid";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, bad.uid, 0), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "\xed\xa0\x80"; /* an encoded surrogate is not UTF-8 */
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    memset(long_uid, 'u', 129);
    long_uid[129] = '\0';
    bad.uid = long_uid;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, long_uid, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, &flag, NULL, long_uid, 0), MFA_ERR_INVALID_ARGUMENT);
    long_uid[128] = '\0'; /* 128 bytes is fine */
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_OK);
    mfa_free(out);
    out = NULL;
    bad = user;
    bad.tenant = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.tenant = "\xff";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    long_uid[128] = 'u';
    bad.tenant = long_uid;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.provider = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.provider = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.email = "\xc0\xaf@example.com";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    {
        char long_email[400];
        memset(long_email, 'e', sizeof long_email - 1);
        long_email[sizeof long_email - 1] = '\0';
        bad.email = long_email;
        CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    CHECK(out == NULL);
    /* Tenants passed on their own. */
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, "", "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, &flag, "\xff", "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(ctx, &out, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);

    /* An overlong token. */
    {
        char *huge = malloc(70000);
        if (huge) {
            memset(huge, 'A', 69999);
            huge[69999] = '\0';
            memcpy(huge, "v1.", 3);
            CHECK_STATUS(mfa_resolve_totp(ctx, &result, huge, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
            huge[5000] = '\0';
            CHECK_STATUS(mfa_resolve_totp(ctx, &result, huge, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_SESSION);
            CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, huge, NULL), MFA_ERR_INVALID_SESSION);
            free(huge);
        }
    }

    /* The failed calls changed nothing: the pending credential still resolves. */
    {
        char code[MFA_CODE_BUFFER_SIZE];
        code_at(code, f.key, g_now);
        CHECK(resolve(ctx, cred, NULL, f.eid, code) == MFA_OK);
    }
    CHECK_STATUS(mfa_purge_expired(ctx, NULL), MFA_OK);

    /* Every free function accepts NULL. */
    mfa_close(NULL);
    mfa_free(NULL);
    mfa_factor_info_free(NULL);
    mfa_factor_list_free(NULL);
    mfa_resolver_free(NULL);
    mfa_sign_in_result_free(NULL);
    mfa_totp_secret_free(NULL);
    mfa_key_uri_free(NULL);

    /* Status names of the engine's errors. */
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_SESSION), "INVALID_SESSION") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_TENANT_MISMATCH), "TENANT_MISMATCH") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_SECOND_FACTOR_REQUIRED), "SECOND_FACTOR_REQUIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_ENROLLMENT_REQUIRED), "ENROLLMENT_REQUIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER), "TOO_MANY_ATTEMPTS_TRY_LATER") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_USER_TOKEN_EXPIRED), "USER_TOKEN_EXPIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_MFA_ENROLLMENT_NOT_FOUND), "MFA_ENROLLMENT_NOT_FOUND") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED), "SECOND_FACTOR_LIMIT_EXCEEDED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_UNSUPPORTED_FIRST_FACTOR), "UNSUPPORTED_FIRST_FACTOR") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_REQUIRES_RECENT_LOGIN), "REQUIRES_RECENT_LOGIN") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_UNVERIFIED_EMAIL), "UNVERIFIED_EMAIL") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_OPERATION_NOT_ALLOWED), "OPERATION_NOT_ALLOWED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_CODE_EXPIRED), "CODE_EXPIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_STORAGE_ERROR), "STORAGE_ERROR") == 0);
    for (int code = MFA_ERR_INTERNAL; code <= MFA_OK; code++) {
        CHECK(mfa_errstr(code)[0] != '\0');
        CHECK(strcmp(mfa_status_name(code), "UNKNOWN") != 0);
    }

    mfa_free(session);
    mfa_close(ctx);
}

/* Runs `body` in a child process: a crash there is reported, not suffered.
 * Returns the child's status code, or a value above 0 if it crashed. */
static int in_child(int (*body)(mfa_ctx *ctx, mfa_user *user), const char *what) {
    pid_t pid;
    int wstatus = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        mfa_ctx *ctx = open_project();
        mfa_user user;
        int status;
        user_make(&user, "extreme-user", NULL);
        status = body(ctx, &user);
        _exit(-status); /* status codes are 0..-27 */
    }
    if (pid < 0) return 1;
    CHECK(waitpid(pid, &wstatus, 0) == pid);
    if (WIFSIGNALED(wstatus)) {
        fprintf(stderr, "%s: the process died of signal %d\n", what, WTERMSIG(wstatus));
        return 1;
    }
    return WIFEXITED(wstatus) ? -WEXITSTATUS(wstatus) : 1;
}

static int session_with_oldest_auth_time(mfa_ctx *ctx, mfa_user *user) {
    char *session = NULL;
    int status;
    user->auth_time = INT64_MIN;
    status = mfa_session_new(ctx, &session, user, NULL);
    mfa_free(session);
    return status;
}

static int unenroll_with_oldest_auth_time(mfa_ctx *ctx, mfa_user *user) {
    factor f;
    if (enroll(ctx, user, NULL, &f) != MFA_OK) return MFA_ERR_INTERNAL;
    user->auth_time = INT64_MIN;
    return mfa_unenroll(ctx, user, f.eid, NULL);
}

static int session_with_future_auth_time(mfa_ctx *ctx, mfa_user *user) {
    char *session = NULL;
    int status;
    user->auth_time = INT64_MAX;
    status = mfa_session_new(ctx, &session, user, NULL);
    mfa_free(session);
    return status;
}

/* Any int64_t auth_time is an answer, never a crash ("libmfa never aborts on bad input"). */
static void test_extreme_auth_time(void) {
    int status;
    status = in_child(session_with_oldest_auth_time, "mfa_session_new(auth_time = INT64_MIN)");
    CHECK(status == MFA_ERR_REQUIRES_RECENT_LOGIN || status == MFA_ERR_INVALID_ARGUMENT);
    status = in_child(unenroll_with_oldest_auth_time, "mfa_unenroll(auth_time = INT64_MIN)");
    CHECK(status == MFA_ERR_REQUIRES_RECENT_LOGIN || status == MFA_ERR_INVALID_ARGUMENT);
    status = in_child(session_with_future_auth_time, "mfa_session_new(auth_time = INT64_MAX)");
    CHECK(status <= 0);
}

int main(void) {
    CHECK(test_temp_dir(temp_dir, sizeof temp_dir, "libmfa-engine") == 0);
    test_config();
    test_prerequisites();
    test_enrollment();
    test_sign_in();
    test_brute_force();
    test_backoff_schedule();
    test_unenroll_and_tokens();
    test_audit();
    test_random();
    test_key_rotation();
    test_secrets_at_rest();
    test_bad_input();
    test_extreme_auth_time();
    rmdir(temp_dir);
    return test_report();
}
