/*
 * Email codes through the C ABI: mfa_email_start_enrollment and
 * mfa_email_start_sign_in with the recording mailer of options version 3
 * (mfa_email_message: address, subject, body, code, purpose), mfa_enroll
 * and mfa_resolve with assertions of kind MFA_FACTOR_EMAIL, masked hints,
 * INVALID_EMAIL without the address in the message, a failing mailer
 * (EMAIL_SEND_FAILED, nothing counted), the verified sign-in address
 * (off by default), the development outbox (options->email_outbox), and
 * issue 45's answers (a code in flight when the user is reset is
 * USER_TOKEN_EXPIRED) and every bad argument.
 *
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

#define EMAIL_ON "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"email\":\"ENABLED\"}}"

/* An enrollment session for `user`, into `session`. */
static void session_of(mfa_ctx *ctx, const mfa_user *user, char session[TOKEN_MAX]) {
    char *out = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &out, user, NULL), MFA_OK);
    snprintf(session, TOKEN_MAX, "%s", out ? out : "");
    mfa_free(out);
}

/* mfa_enroll with an email assertion; the new factor's id in `eid` (if it worked). */
static int enroll_email(mfa_ctx *ctx, const mfa_user *user, const char *vid, const char *code, char eid[64]) {
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);
    mfa_factor_info *info = NULL;
    int status;
    a.verification_id = vid;
    a.code = code;
    status = mfa_enroll(ctx, &info, user, &a, "mail", NULL);
    CHECK((status == MFA_OK) == (info != NULL));
    if (info) {
        CHECK(info->kind == MFA_FACTOR_EMAIL && strcmp(info->factor_id, "email") == 0);
        snprintf(eid, 64, "%s", info->uid);
    }
    mfa_factor_info_free(info);
    return status;
}

static void test_enroll_and_sign_in(void) {
    mfa_ctx *ctx = open_engine(EMAIL_ON);
    mfa_user user;
    char session[TOKEN_MAX], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE], eid[64];
    char *vid = NULL, *err = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);
    const audit_record *e;

    user_make(&user, "alice", NULL);
    session_of(ctx, &user, session);
    /* A bad address: INVALID_EMAIL, and the message does not repeat it. */
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "alice at example.com", &err), MFA_ERR_INVALID_EMAIL);
    CHECK(vid == NULL && err && !contains(err, "alice"));
    mfa_free(err);
    err = NULL;
    CHECK(g_mail.calls == 0);
    CHECK_ERR(mfa_email_start_enrollment(ctx, &vid, session, "Alice@Example.COM", &err), MFA_OK, err);
    CHECK(g_mail.sent == 1 && strcmp(g_mail.ring[0].to, "Alice@example.com") == 0);
    CHECK(g_mail.ring[0].purpose == MFA_EMAIL_ENROLLMENT);
    e = audit_last(MFA_AUDIT_EMAIL_SENT);
    CHECK(e && strcmp(e->factor_id, "email") == 0 && strcmp(e->detail, "OK") == 0);
    CHECK(mail_code("Alice@example.com", code));
    wrong_sms_code(wrong, code);
    CHECK_STATUS(enroll_email(ctx, &user, vid, wrong, eid), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(enroll_email(ctx, &user, vid, code, eid), MFA_OK);
    CHECK_STATUS(enroll_email(ctx, &user, vid, code, eid), MFA_ERR_INVALID_SESSION);
    mfa_free(vid);
    vid = NULL;
    /* Sign in: the hint is masked; a code is mailed for the factor. */
    g_now += 31;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == 1);
    if (resolver && resolver->hint_count == 1) {
        CHECK(strcmp(resolver->hints[0].hint, "A****@e******.com") == 0 && resolver->hints[0].kind == MFA_FACTOR_EMAIL);
        snprintf(cred, sizeof cred, "%s", resolver->session);
    }
    mfa_resolver_free(resolver);
    CHECK_ERR(mfa_email_start_sign_in(ctx, &vid, cred, NULL, eid, &err), MFA_OK, err);
    CHECK(g_mail.ring[(g_mail.sent - 1) % MAIL_RING].purpose == MFA_EMAIL_SIGN_IN);
    mfa_free(vid);
    vid = NULL;
    CHECK_STATUS(mfa_email_start_sign_in(ctx, &vid, cred, NULL, eid, NULL), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(vid == NULL);
    g_now += 31;
    CHECK_ERR(mfa_email_start_sign_in(ctx, &vid, cred, NULL, eid, &err), MFA_OK, err);
    CHECK(mail_code("Alice@example.com", code));
    a.verification_id = vid;
    a.code = code;
    CHECK_ERR(mfa_resolve(ctx, &result, cred, NULL, &a, &err), MFA_OK, err);
    CHECK(result && strcmp(result->factor_id, "email") == 0 && result->kind == MFA_FACTOR_EMAIL &&
          strcmp(result->enrollment_id, eid) == 0);
    mfa_sign_in_result_free(result);
    mfa_free(vid);
    /* The admin's view masks the address unless asked. */
    {
        mfa_factor_list *list = NULL;
        CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "alice", 0, NULL), MFA_OK);
        CHECK(list && list->count == 1 && strcmp(list->items[0].hint, "A****@e******.com") == 0);
        mfa_factor_list_free(list);
        CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "alice", MFA_ADMIN_SHOW_PHONE_NUMBERS, NULL), MFA_OK);
        CHECK(list && list->count == 1 && strcmp(list->items[0].hint, "Alice@example.com") == 0);
        mfa_factor_list_free(list);
    }
    /* A TOTP factor is not an email factor. */
    {
        factor totp;
        char *other = NULL;
        user.auth_time = g_now;
        ENROLL_OK(ctx, &user, "app", &totp);
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(mfa_email_start_sign_in(ctx, &other, cred, NULL, totp.eid, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(other == NULL);
    }
    mfa_close(ctx);
}

static void test_send_failure_and_verified_address(void) {
    mfa_ctx *ctx = open_engine(EMAIL_ON);
    mfa_user user;
    char session[TOKEN_MAX];
    char *vid = NULL;
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);
    mfa_factor_info *info = NULL;
    const audit_record *e;

    user_make(&user, "bob", NULL);
    session_of(ctx, &user, session);
    g_mail.fail = 1;
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "bob@example.com", NULL), MFA_ERR_EMAIL_SEND_FAILED);
    e = audit_last(MFA_AUDIT_EMAIL_SENT);
    CHECK(e && strcmp(e->detail, "EMAIL_SEND_FAILED") == 0);
    g_mail.fail = 0;
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "bob@example.com", NULL), MFA_OK);
    mfa_free(vid);
    /* The user's verified sign-in address, without a code: off by default. */
    a.session_info = session;
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_OPERATION_NOT_ALLOWED);
    CHECK_STATUS(mfa_config_update_json(ctx, NULL, "{\"email\":{\"enrollVerifiedSignInEmail\":true}}", NULL), MFA_OK);
    user.email_verified = 0;
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_UNVERIFIED_EMAIL);
    user.email_verified = 1;
    user.email = "Bob.Sign-In@Example.ORG";
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, "sign-in address", NULL), MFA_OK);
    CHECK(info && strcmp(info->hint, "Bob.Sign-In@example.org") == 0);
    mfa_factor_info_free(info);
    CHECK(audit_last(MFA_AUDIT_ENROLL) && strcmp(audit_last(MFA_AUDIT_ENROLL)->detail, "VERIFIED_SIGN_IN_EMAIL") == 0);
    user.email = "not an address";
    session_of(ctx, &user, session);
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_INVALID_EMAIL);
    mfa_close(ctx);
}

static void test_outbox(void) {
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    char path[512], session[TOKEN_MAX], text[2048];
    char *vid = NULL;
    FILE *file;
    size_t got;

    make_temp_dir("libmfa-email");
    snprintf(path, sizeof path, "%s/outbox.jsonl", temp_dir);
    fixture_options(&options, ":memory:");
    options.email_outbox = path;
    CHECK_STATUS(mfa_open(&ctx, &options, NULL), MFA_ERR_INVALID_ARGUMENT); /* sender and outbox */
    options.email_sender = NULL;
    options.email_outbox = "";
    CHECK_STATUS(mfa_open(&ctx, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.email_outbox = path;
    ctx = open_with(&options);
    set_config(ctx, NULL, EMAIL_ON);
    user_make(&user, "outbox", NULL);
    session_of(ctx, &user, session);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "outbox@example.com", NULL), MFA_OK);
    mfa_free(vid);
    file = fopen(path, "r");
    CHECK(file != NULL);
    got = file ? fread(text, 1, sizeof text - 1, file) : 0;
    text[got] = '\0';
    if (file) fclose(file);
    CHECK(contains(text, "\"to\":\"outbox@example.com\"") && contains(text, "\"subject\":") &&
          contains(text, " is your verification code"));
    CHECK(text[got - 1] == '\n');
    mfa_close(ctx);
    unlink(path);
    remove_temp_dir();
}

static void test_bad_arguments(void) {
    mfa_ctx *ctx = open_engine(EMAIL_ON);
    mfa_user user;
    char session[TOKEN_MAX], bad_utf8[] = {'a', '@', (char)0xc3, 0};
    char *vid = (char *)&vid;
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);
    mfa_factor_info *info = NULL;

    user_make(&user, "carol", NULL);
    session_of(ctx, &user, session);
    CHECK_STATUS(mfa_email_start_enrollment(NULL, &vid, session, "c@example.com", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, NULL, session, "c@example.com", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, NULL, "c@example.com", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(vid == NULL);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, bad_utf8, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, "v2.tampered", "c@example.com", NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_email_start_sign_in(ctx, &vid, NULL, NULL, "eid", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_sign_in(ctx, &vid, "v2.tampered", NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_email_start_sign_in(ctx, &vid, "v2.tampered", NULL, "eid", NULL), MFA_ERR_INVALID_SESSION);
    /* An email assertion needs a verification id and a code (or, to enroll, a session). */
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    a.verification_id = "v2.tampered";
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    a.code = "123456";
    CHECK_STATUS(mfa_enroll(ctx, &info, &user, &a, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(info == NULL);
    /* The configuration's ranges, named in the message. */
    {
        char *err = NULL;
        CHECK_STATUS(mfa_config_update_json(ctx, NULL, "{\"email\":{\"codeLifetime\":10}}", &err),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK(err && contains(err, "email.codeLifetime"));
        mfa_free(err);
    }
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_EMAIL), "INVALID_EMAIL") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_EMAIL_SEND_FAILED), "EMAIL_SEND_FAILED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_DEVICE_NOT_FOUND), "DEVICE_NOT_FOUND") == 0);
    mfa_close(ctx);
}

/* Issue 45's answers on email: an email code in flight when the admin resets
 * the user answers USER_TOKEN_EXPIRED, at enrollment and at sign-in, a right
 * code and a wrong one alike (the reset removed the code with the revocation). */
static void test_revoked_in_flight(void) {
    mfa_ctx *ctx = open_engine(EMAIL_ON);
    mfa_user user;
    char session[TOKEN_MAX], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE], eid[64];
    char *vid = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);

    user_make(&user, "carol", NULL);
    session_of(ctx, &user, session);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "carol@example.com", NULL), MFA_OK);
    CHECK(mail_code("carol@example.com", code));
    wrong_sms_code(wrong, code);
    CHECK_STATUS(mfa_admin_reset_user(ctx, NULL, NULL, "carol", "admin", NULL), MFA_OK);
    CHECK_STATUS(enroll_email(ctx, &user, vid, wrong, eid), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(enroll_email(ctx, &user, vid, code, eid), MFA_ERR_USER_TOKEN_EXPIRED);
    mfa_free(vid);
    vid = NULL;
    /* Enrolled again, then a sign-in in flight when the reset comes. */
    g_now += 31;
    user.auth_time = g_now;
    session_of(ctx, &user, session);
    CHECK_STATUS(mfa_email_start_enrollment(ctx, &vid, session, "carol@example.com", NULL), MFA_OK);
    CHECK(mail_code("carol@example.com", code));
    CHECK_STATUS(enroll_email(ctx, &user, vid, code, eid), MFA_OK);
    mfa_free(vid);
    vid = NULL;
    g_now += 31;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    if (resolver) snprintf(cred, sizeof cred, "%s", resolver->session);
    mfa_resolver_free(resolver);
    CHECK_STATUS(mfa_email_start_sign_in(ctx, &vid, cred, NULL, eid, NULL), MFA_OK);
    CHECK(mail_code("carol@example.com", code));
    wrong_sms_code(wrong, code);
    CHECK_STATUS(mfa_admin_reset_user(ctx, NULL, NULL, "carol", "admin", NULL), MFA_OK);
    a.verification_id = vid;
    a.code = wrong;
    CHECK_STATUS(mfa_resolve(ctx, &result, cred, NULL, &a, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    a.code = code;
    CHECK_STATUS(mfa_resolve(ctx, &result, cred, NULL, &a, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(result == NULL);
    mfa_free(vid);
    /* Nothing left to reset: ENROLLMENT_NOT_FOUND. */
    CHECK_STATUS(mfa_admin_reset_user(ctx, NULL, NULL, "carol", "admin", NULL), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    mfa_close(ctx);
}

int main(void) {
    test_enroll_and_sign_in();
    test_send_failure_and_verified_address();
    test_outbox();
    test_revoked_in_flight();
    test_bad_arguments();
    return engine_report();
}
