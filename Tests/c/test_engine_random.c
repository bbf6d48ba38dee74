/*
 * The injected random source through the C ABI (mfa_options.random): the
 * same stream gives the same secret and enrollment id, another stream
 * another; a source that fails is MFA_ERR_CRYPTO and uses nothing up.
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

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

int main(void) {
    test_random();
    return engine_report();
}
