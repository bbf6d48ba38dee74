/*
 * Flow 3 through the C ABI: enrolling a phone number by SMS
 * (mfa_phone_start_enrollment, mfa_phone_enroll), and the first sign-in
 * with it (flow 5: mfa_phone_start_sign_in, mfa_resolve_phone).
 *
 *   flow            session, start enrollment (app check, SMS), code, enroll,
 *                   sign in, masked hint, start sign-in with the hint's id,
 *                   resolve; what is used up after
 *   masking         '+', first digit, one star per hidden digit, last four
 *   numbers         strict E.164: what is INVALID_PHONE_NUMBER; 7 and 15 digits
 *   codes           SECOND_FACTOR_EXISTS (starting and finishing), wrong and
 *                   malformed codes, 5 wrong tries kill a verification id,
 *                   CODE_EXPIRED, every INVALID_SESSION, sign-in ids cannot
 *                   enroll, an expired session cannot send
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

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
    ctx = open_engine(PHONE_ON);
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
        CHECK(info->kind == MFA_FACTOR_PHONE && info->remaining_codes == -1);
        CHECK(info->hint && strcmp(info->hint, "+1******1234") == 0);
        snprintf(eid, sizeof eid, "%s", info->uid);
    }
    enrolled_at = g_now;
    mfa_factor_info_free(info);
    info = NULL;
    /* Enrollment revokes the credentials issued before it. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "alice", g_now - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "alice", g_now), MFA_ERR_USER_TOKEN_EXPIRED); /* the same second */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "alice", g_now + 1), MFA_OK);
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
        CHECK(hint->kind == MFA_FACTOR_PHONE && hint->hint && strcmp(hint->hint, "+1******1234") == 0);
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
        CHECK(result->kind == MFA_FACTOR_PHONE && result->claim_count >= 2);
        if (result->claim_count >= 2) {
            CHECK(strcmp(result->claims[0].name, "sign_in_second_factor") == 0);
            CHECK(strcmp(result->claims[0].value, "phone") == 0);
            CHECK(strcmp(result->claims[1].name, "second_factor_identifier") == 0);
            CHECK(strcmp(result->claims[1].value, eid) == 0);
        }
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
    ctx = open_engine(PHONE_ON);
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
            CHECK(hint->hint && strcmp(hint->hint, cases[i].masked) == 0);
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
    ctx = open_engine(PHONE_ON);
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

static void test_enrollment_codes(void) {
    mfa_ctx *ctx;
    mfa_user alice, bob;
    char vid[TOKEN_MAX], vid2[TOKEN_MAX], eid[64];
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_engine(PHONE_TOTP_ON);
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
    /* Two codes for one number, both started before either finished: the first enrollment revokes the
     * session of the second, which is USER_TOKEN_EXPIRED (racing ones, both judged before either
     * committed, end SECOND_FACTOR_EXISTS: test_engine_phone_race). */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553002", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553002", code);
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553002", GOOD_CRED, vid2), MFA_OK);
    sms_code("+15105553002", code2);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid, code, NULL, "+15105553002", NULL), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &alice, vid2, code2, NULL, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(factor_count(ctx, &alice) == 2);

    /* A wrong code is INVALID_VERIFICATION_CODE and the user may retry (malformed ones too). */
    CHECK_STATUS(start_enroll(ctx, &alice, "+15105553003", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105553003", code);
    wrong_sms_code(wrong, code);
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
    wrong_sms_code(wrong, code);
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
    CHECK_STATUS(finish_enroll(ctx, &alice, "v2.garbage", code, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
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

int main(void) {
    test_flow();
    test_masking();
    test_phone_numbers();
    test_enrollment_codes();
    return engine_report();
}
