/*
 * Bad input through the C ABI for the generic entry points of issue 9:
 * mfa_assertion_init, mfa_enroll and mfa_resolve (NULLs, unknown kinds and
 * struct versions, the fields a kind needs missing or not UTF-8, a kind that
 * does not fit the factor it names, recovery codes "enrolled"),
 * mfa_recovery_codes_generate, mfa_revoke_tokens and mfa_token_check_ms (any
 * int64_t is an answer). None of it uses anything up.
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

/* An assertion checked by mfa_resolve: `want`, no result. */
static void expect_resolve_at(mfa_ctx *ctx, const char *cred, const char *tenant, const mfa_assertion *a, int want,
                              int line) {
    mfa_sign_in_result *result = (mfa_sign_in_result *)&result;
    CHECK_STATUS_AT(mfa_resolve(ctx, &result, cred, tenant, a, NULL), want, line);
    CHECK_AT(result == NULL, line);
}
#define expect_resolve(ctx, cred, tenant, a, want) expect_resolve_at(ctx, cred, tenant, a, want, __LINE__)

/* An assertion checked by mfa_enroll: `want`, no factor. */
static void expect_enroll_at(mfa_ctx *ctx, const mfa_user *user, const mfa_assertion *a, const char *name, int want,
                             int line) {
    mfa_factor_info *info = (mfa_factor_info *)&info;
    CHECK_STATUS_AT(mfa_enroll(ctx, &info, user, a, name, NULL), want, line);
    CHECK_AT(info == NULL, line);
}
#define expect_enroll(ctx, user, a, name, want) expect_enroll_at(ctx, user, a, name, want, __LINE__)

/* mfa_assertion_init, mfa_enroll, mfa_resolve, mfa_recovery_codes_generate, mfa_revoke_tokens
 * and mfa_token_check_ms (issue 9) with what C can get wrong. */
static void test_generic_bad_input(void) {
    mfa_ctx *ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\","
                               "\"recovery\":\"ENABLED\"},\"phone\":{\"appVerification\":\"DISABLED\"}}");
    mfa_user user, bad;
    factor f, set;
    mfa_assertion a;
    mfa_factor_info *info = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_recovery_codes *codes = (mfa_recovery_codes *)&codes;
    mfa_totp_secret *secret = NULL;
    char cred[TOKEN_MAX], long_uid[130], long_name[300];
    char *session = NULL;
    const int32_t bad_kinds[] = {0, -1, 4, 99, INT32_MIN, INT32_MAX};

    memset(long_uid, 'u', 129);
    long_uid[129] = '\0';
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    user_make(&user, "generic-bad-input", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    user.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);

    /* mfa_assertion_init: the version, and what it writes. */
    CHECK_STATUS(mfa_assertion_init(NULL, MFA_ASSERTION_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_assertion_init(&a, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_assertion_init(&a, MFA_ASSERTION_VERSION + 1), MFA_ERR_INVALID_ARGUMENT);
    memset(&a, 0x5a, sizeof a);
    CHECK_STATUS(mfa_assertion_init(&a, MFA_ASSERTION_VERSION), MFA_OK);
    CHECK(a.version == MFA_ASSERTION_VERSION && a.kind == 0);
    CHECK(a.enrollment_id == NULL && a.session_info == NULL && a.verification_id == NULL && a.code == NULL);

    /* mfa_resolve: NULLs, versions, kinds, missing fields, strings. */
    a = assertion_of(MFA_FACTOR_TOTP);
    a.enrollment_id = f.eid;
    a.code = "123456";
    CHECK_STATUS(mfa_resolve(NULL, &result, cred, NULL, &a, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve(ctx, NULL, cred, NULL, &a, NULL), MFA_ERR_INVALID_ARGUMENT);
    expect_resolve(ctx, NULL, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    expect_resolve(ctx, cred, NULL, NULL, MFA_ERR_INVALID_ARGUMENT);
    expect_resolve(ctx, cred, "", &a, MFA_ERR_INVALID_ARGUMENT);
    expect_resolve(ctx, cred, "\xff", &a, MFA_ERR_INVALID_ARGUMENT);
    expect_resolve(ctx, "garbage", NULL, &a, MFA_ERR_INVALID_SESSION);
    expect_resolve(ctx, session, NULL, &a, MFA_ERR_INVALID_SESSION);
    a.version = 0;
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    a.version = MFA_ASSERTION_VERSION + 1;
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    a.version = MFA_ASSERTION_VERSION;
    for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++) {
        a.kind = bad_kinds[i];
        expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
        expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    }
    a = assertion_of(MFA_FACTOR_TOTP);
    a.code = "123456";
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT); /* no enrollment id */
    a.enrollment_id = f.eid;
    a.code = NULL;
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT); /* no code */
    a.code = "12\xff\xfe" "56";
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    a.code = "123456";
    a.enrollment_id = "\xc3\x28";
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    a = assertion_of(MFA_FACTOR_PHONE);
    a.code = "123456";
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT); /* no verification id */
    a.verification_id = session;
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_SESSION); /* not a verification id */
    a = assertion_of(MFA_FACTOR_RECOVERY_CODES);
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT); /* no code */
    /* A kind that does not fit the factor it names. */
    a = assertion_of(MFA_FACTOR_TOTP);
    a.enrollment_id = set.eid;
    a.code = "123456";
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);
    a = assertion_of(MFA_FACTOR_RECOVERY_CODES);
    a.enrollment_id = f.eid;
    a.code = set.codes[0];
    expect_resolve(ctx, cred, NULL, &a, MFA_ERR_INVALID_ARGUMENT);

    /* mfa_enroll: NULLs, versions, what each kind needs; recovery codes are not enrolled. */
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
    a = assertion_of(MFA_FACTOR_TOTP);
    a.session_info = secret ? secret->session_info : "x";
    a.code = "123456";
    CHECK_STATUS(mfa_enroll(NULL, &info, &user, &a, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_enroll(ctx, NULL, &user, &a, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    expect_enroll(ctx, NULL, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    expect_enroll(ctx, &user, NULL, NULL, MFA_ERR_INVALID_ARGUMENT);
    expect_enroll(ctx, &user, &a, long_name, MFA_ERR_INVALID_ARGUMENT);
    expect_enroll(ctx, &user, &a, "name\xff", MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.version = 0;
    expect_enroll(ctx, &bad, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.uid = long_uid;
    expect_enroll(ctx, &bad, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    a.version = 0;
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    a.version = MFA_ASSERTION_VERSION;
    a.session_info = NULL;
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    a.session_info = session; /* a session is not a session_info */
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_SESSION);
    a.session_info = secret ? secret->session_info : "x";
    a.code = NULL;
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    a = assertion_of(MFA_FACTOR_PHONE);
    a.code = "123456";
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT); /* no verification id */
    a.verification_id = cred;
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_SESSION);
    a = assertion_of(MFA_FACTOR_RECOVERY_CODES);
    a.code = set.codes[0];
    expect_enroll(ctx, &user, &a, NULL, MFA_ERR_INVALID_ARGUMENT);
    CHECK(factor_count(ctx, &user) == 2);

    /* mfa_recovery_codes_generate. */
    CHECK_STATUS(mfa_recovery_codes_generate(NULL, &codes, session, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, NULL, session, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(codes == NULL);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, session, long_name, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, session, "name\xff", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, "", NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, "garbage", NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, cred, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, secret ? secret->session_info : "x", NULL, NULL),
                 MFA_ERR_INVALID_SESSION);
    CHECK(codes == NULL);

    /* mfa_revoke_tokens and mfa_token_check_ms. */
    CHECK_STATUS(mfa_revoke_tokens(NULL, NULL, "generic-bad-input", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_revoke_tokens(ctx, "", "generic-bad-input", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "bad\xff", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, long_uid, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check_ms(NULL, NULL, "generic-bad-input", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, NULL, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check_ms(ctx, "", "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, long_uid, 0), MFA_ERR_INVALID_ARGUMENT);
    /* Any time is an answer: a user nobody revoked holds every credential. */
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "never-revoked", INT64_MIN), MFA_OK);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "never-revoked", INT64_MAX), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "never-revoked", INT64_MIN), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "never-revoked", INT64_MAX), MFA_OK);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "generic-bad-input", INT64_MIN), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "generic-bad-input", INT64_MAX), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "generic-bad-input", INT64_MIN), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "generic-bad-input", INT64_MAX), MFA_OK);

    /* None of that used anything up: the pending credential resolves with a recovery code,
     * and the session still makes a new set. */
    {
        long remaining = 0;
        CHECK_STATUS(resolve_code(ctx, cred, NULL, set.eid, set.codes[0], &remaining), MFA_OK);
        CHECK(remaining == (long)set.code_count - 1);
    }
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, session, NULL, NULL), MFA_OK);
    CHECK(codes != NULL && codes->count == 10);
    mfa_recovery_codes_free(codes);
    mfa_recovery_codes_free(NULL);
    mfa_totp_secret_free(secret);
    mfa_free(session);
    mfa_close(ctx);
}

int main(void) {
    test_generic_bad_input();
    return engine_report();
}
