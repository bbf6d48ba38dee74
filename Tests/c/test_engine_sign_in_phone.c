/*
 * Flow 5 through the C ABI with SMS codes: signing in with an enrolled phone
 * (mfa_phone_start_sign_in, mfa_resolve_phone), and users with a phone and a
 * TOTP factor.
 *
 *   codes           wrong and malformed codes, 5 wrong tries kill a
 *                   verification id (the pending credential lives on),
 *                   CODE_EXPIRED, an expired pending credential, tampered ids
 *                   and credentials, another user's or another sign-in's
 *                   verification id, an enrollment's verification id; a TOTP
 *                   resolve of a phone factor
 *   lookups         MFA_ENROLLMENT_NOT_FOUND, another user's factor (no SMS to
 *                   that user), a factor removed meanwhile, TENANT_MISMATCH,
 *                   tenant users
 *   mixed           phone and TOTP hints, sign in with either, an SMS for the
 *                   TOTP factor and a TOTP code for the phone refused
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

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
     * (Many codes go to one number: the per-number and per-user caps are raised, and
     * since issue 8 the per-factor budget of sign-in codes too.) */
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsCodeLifetime\":60,\"smsPerNumberHour\":100,\"smsPerNumberDay\":100,"
                     "\"smsPerUserHour\":100,\"smsPerUserDay\":100,\"smsPerFactorHour\":100,"
                     "\"smsPerFactorDay\":100}}");
    user_make(&carol, "signin-carol", NULL);
    user_make(&dave, "signin-dave", NULL);
    ENROLL_PHONE_OK(ctx, &carol, carol_number, "carol's", carol_eid);
    ENROLL_PHONE_OK(ctx, &dave, dave_number, NULL, dave_eid);

    /* A wrong code, then the right one. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &carol, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, carol_eid, GOOD_CRED, vid), MFA_OK);
    sms_code(carol_number, code);
    wrong_sms_code(wrong, code);
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
    wrong_sms_code(wrong, code);
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
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, "v2.garbage", code), MFA_ERR_INVALID_SESSION);
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
        CHECK_STATUS(status, MFA_ERR_INVALID_ARGUMENT); /* a totp assertion cannot resolve a phone factor */
        CHECK(result == NULL);
        mfa_sign_in_result_free(result);
    }
    mfa_close(ctx);
}

static void test_lookups_and_tenants(void) {
    mfa_ctx *ctx;
    mfa_user alice, eve, tom, tom_elsewhere;
    char alice_eid[64], eve_eid[64], tom_eid[64];
    char cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_engine(PHONE_ON);
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

    /* The factor is removed between the SMS and the code: the unenroll revoked the pending credential,
     * which is USER_TOKEN_EXPIRED whatever went with it (issue 45 item 14). */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, alice_eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550401", code);
    alice.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &alice, alice_eid, NULL), MFA_OK);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_USER_TOKEN_EXPIRED);
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, alice_eid, GOOD_CRED, vid), MFA_ERR_USER_TOKEN_EXPIRED);
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

static void test_mixed_factors(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char phone_eid[64], totp_eid[64] = "", key[128] = "";
    char cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    mfa_resolver *resolver = NULL;
    unsigned long sent;

    reset_recorders();
    ctx = open_engine(PHONE_TOTP_ON);
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
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, totp_eid, GOOD_CRED, vid), MFA_ERR_INVALID_ARGUMENT);
    CHECK(g_sms.calls == sent);
    /* And the phone factor cannot take a TOTP code. */
    code_at(code, key, g_now);
    {
        mfa_sign_in_result *result = NULL;
        CHECK(mfa_resolve_totp(ctx, &result, cred, NULL, phone_eid, code, NULL) != MFA_OK);
        CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, phone_eid, code, NULL), MFA_ERR_INVALID_ARGUMENT);
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

int main(void) {
    test_sign_in_codes();
    test_lookups_and_tenants();
    test_mixed_factors();
    return engine_report();
}
