/*
 * Flow 2 through the C ABI: what must hold before a user may enroll
 * (mfa_session_new), and the factor limit.
 *
 *   state           MFA disabled, no provider, a tenant that disables
 *   first factor    phone, anonymous, custom and Game Center cannot carry MFA,
 *                   whatever the case and surrounding space of the provider id
 *                   (also at sign-in under MANDATORY)
 *   email           unverified or missing: UNVERIFIED_EMAIL
 *   recent login    more than 300 s ago: REQUIRES_RECENT_LOGIN
 *   limit           5 factors (or the configured maxFactors); a session minted
 *                   before an enrollment no longer works; a limit lowered
 *                   between secret and code is checked when finishing; recovery
 *                   codes do not count, so a session can still be minted at the
 *                   limit when they are enabled
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void expect_session_at(mfa_ctx *ctx, const mfa_user *user, int want, int line) {
    char *session = (char *)"sentinel";
    char *err = NULL;
    int status = mfa_session_new(ctx, &session, user, &err);
    CHECK_STATUS_AT(status, want, line);
    if (want == MFA_OK) {
        CHECK_AT(session != NULL && strncmp(session, "v2.", 3) == 0, line);
        CHECK_AT(err == NULL, line);
    } else {
        CHECK_AT(session == NULL, line);
        CHECK_AT(err != NULL && err[0] != '\0', line);
    }
    if (status == MFA_OK) mfa_free(session);
    mfa_free(err);
}
#define expect_session(ctx, user, want) expect_session_at(ctx, user, want, __LINE__)

static void test_state_provider_email_login(mfa_ctx *ctx) {
    mfa_user user;
    const char *unsupported[] = {"phone", "anonymous", "custom", "gc.apple.com",
                                 "Phone", "ANONYMOUS", " custom ", "GC.Apple.com", "\tphone\n"};
    const char *supported[] = {"password", "emailLink", "google.com", "apple.com", "github.com", "Google.com"};

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

    /* First factors that cannot carry MFA, compared without regard to case and space. */
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
}

/* MANDATORY: a first factor that cannot carry MFA is told so at sign-in (it was
 * ENROLLMENT_REQUIRED before issue 8), a password user is told to enroll. */
static void test_mandatory_first_factor(mfa_ctx *ctx) {
    const char *unsupported[] = {"anonymous", "phone", "custom", "gc.apple.com", "Anonymous"};
    mfa_user user;
    mfa_resolver *resolver;
    set_config(ctx, "tenant-must", "{\"state\":\"MANDATORY\"}");
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        user_make(&user, "must-user", "tenant-must");
        user.provider = unsupported[i];
        resolver = (mfa_resolver *)&resolver;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
        CHECK(resolver == NULL);
        expect_session(ctx, &user, MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
    }
    user_make(&user, "must-user", "tenant-must");
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_ENROLLMENT_REQUIRED);
}

static void test_factor_limit(mfa_ctx *ctx) {
    mfa_user user;
    factor f[6];

    /* Five factors, then SECOND_FACTOR_LIMIT_EXCEEDED. */
    user_make(&user, "prereq-user", NULL);
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

    /* Two sessions opened at four factors: only one of them can finish. (Since issue 8 the
     * first enrollment revokes the other's session_info: USER_TOKEN_EXPIRED, no longer
     * SECOND_FACTOR_LIMIT_EXCEEDED.) */
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
                         MFA_ERR_USER_TOKEN_EXPIRED);
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
    /* ... and it is checked again when the enrollment finishes: a limit lowered between
     * the secret and the code refuses it. */
    {
        mfa_user late;
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        mfa_factor_info *info = NULL;
        char code[MFA_CODE_BUFFER_SIZE];
        factor g;
        set_config(ctx, "tenant-shrink", "{\"limits\":{\"maxFactors\":2}}");
        user_make(&late, "prereq-late", "tenant-shrink");
        ENROLL_OK(ctx, &late, NULL, &g);
        g_now += 30;
        late.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &late, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        set_config(ctx, "tenant-shrink", "{\"limits\":{\"maxFactors\":1}}");
        if (secret) {
            code_at(code, secret->shared_secret_key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &late, secret->session_info, code, NULL, NULL),
                         MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
            CHECK(info == NULL);
        }
        CHECK(factor_count(ctx, &late) == 1);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
}

/* Recovery codes do not count toward the limit: with them enabled a session can be
 * minted at the limit; a TOTP secret or a phone enrollment is refused then, a
 * recovery-code set is not. */
static void test_limit_with_recovery_codes(mfa_ctx *ctx) {
    mfa_user user;
    char *session = NULL;
    mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
    char vid[TOKEN_MAX];
    factor f, set;
    set_config(ctx, "tenant-recovery", "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\","
                                       "\"phone\":\"ENABLED\",\"recovery\":\"ENABLED\"},\"limits\":{\"maxFactors\":1},"
                                       "\"phone\":{\"appVerification\":\"DISABLED\"}}");
    user_make(&user, "prereq-recovery", "tenant-recovery");
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
    CHECK(secret == NULL);
    CHECK_STATUS(start_with_session(ctx, session, "+15105550001", NULL, vid), MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
    mfa_free(session);
    CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
    CHECK(factor_count(ctx, &user) == 2);
    /* Without recovery codes enabled, the session itself is refused at the limit. */
    set_config(ctx, "tenant-recovery", "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},"
                                       "\"limits\":{\"maxFactors\":1}}");
    expect_session(ctx, &user, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
}

int main(void) {
    mfa_options options;
    mfa_ctx *ctx;
    test_options(&options, ":memory:", &g_now);
    ctx = open_with(&options);
    test_state_provider_email_login(ctx);
    test_mandatory_first_factor(ctx);
    test_factor_limit(ctx);
    test_limit_with_recovery_codes(ctx);
    mfa_close(ctx);
    return engine_report();
}
