/*
 * App verification (mfa_options.app_verifier) and disabled providers, for
 * the SMS factor through the C ABI.
 *
 *   verifier        MISSING_APP_CREDENTIAL (NULL, ""), INVALID_APP_CREDENTIAL,
 *                   the action (enrollment, sign-in); refusals cost nothing
 *   no verifier     OPERATION_NOT_ALLOWED while the configuration requires
 *                   one; appVerification DISABLED needs no verifier and no
 *                   credential
 *   disabled phone  OPERATION_NOT_ALLOWED when starting and when finishing; an
 *                   enrolled factor keeps working; a tenant can disable phone
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_app_verification(void) {
    mfa_ctx *ctx;
    mfa_options options;
    mfa_user user;
    char *session = NULL;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64];
    unsigned long sent;

    /* A verifier, appVerification REQUIRED (the default). */
    reset_recorders();
    ctx = open_engine(PHONE_ON);
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
    fixture_options(&options, ":memory:");
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
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"phone\":{\"appVerification\":\"DISABLED\"}}");
    user_make(&user, "verifier-off", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552003", BAD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105552004", NULL, vid), MFA_OK);
    mfa_close(ctx);

    /* The phone provider disabled: OPERATION_NOT_ALLOWED when starting and when finishing. */
    reset_recorders();
    ctx = open_engine(PHONE_TOTP_ON);
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
    /* A factor enrolled before keeps working (docs/concepts/configuration.md:
     * "Disabling a provider stops new enrollments of that kind; factors
     * already enrolled keep working"). */
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

int main(void) {
    test_app_verification();
    return engine_report();
}
