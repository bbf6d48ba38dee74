/*
 * Flow 6 through the C ABI: unenroll (mfa_unenroll), the revocation of
 * earlier credentials (mfa_token_check) and step-up (mfa_step_up_check).
 *
 *   revocation      enrolling and unenrolling revoke the credentials issued
 *                   before, and in the same second (since issue 8), of that
 *                   user and tenant only
 *   step-up         true within N seconds of a second factor, false after
 *   unenroll        needs a recent login; unknown or another user's id:
 *                   MFA_ENROLLMENT_NOT_FOUND; the removed factor cannot sign
 *                   in; the last one removed: no second factor needed
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

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
    /* A credential of the revoking second is revoked too (issue 8); the next second's is not. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", enrolled_at + 1), MFA_OK);
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
    CHECK_STATUS(mfa_token_check(ctx, NULL, "unenroll-user", unenrolled_at), MFA_ERR_USER_TOKEN_EXPIRED);
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

int main(void) {
    test_unenroll_and_tokens();
    return engine_report();
}
