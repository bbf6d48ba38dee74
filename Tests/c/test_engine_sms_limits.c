/*
 * The SMS abuse limits through the C ABI: the resend cooldown, the caps on
 * enrollment sends per number, per user and per tenant (hour and day), the
 * budget of sign-in sends per enrolled factor, and a sender that fails.
 *
 *   cooldown        per number at enrollment, per factor at sign-in; the
 *                   configured value; refused requests do not restart it
 *   enrollment caps each cap (hour 2, day 3): what it covers and what it does
 *                   not, the windows sliding and resetting; the defaults (5 per
 *                   number, 10 per user an hour)
 *   sign-in budget  sign-in sends have their own budget per factor (issue 8):
 *                   they neither count toward the enrollment caps nor are
 *                   blocked by them; smsPerFactorHour and smsPerFactorDay
 *   sender failure  SMS_SEND_FAILED costs no cap, budget or cooldown; no
 *                   sender at all
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

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
    ctx = open_engine(PHONE_ON); /* smsResendCooldown 30 s */
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
    ctx = open_engine(configs[kind]);
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
        /* This one is enrolled, so that sign-in SMS go to the same number, user and tenant. */
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
        /* Hour: 1 of 2, day: 2 of 3. Sign-in SMS have a budget of their own per factor (issue 8;
         * before, a sign-in SMS was the hour's second and the next request was over the cap):
         * two of them do not count toward the cap... */
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        CHECK(g_sms.sent == sent0 + 4);
        /* ...so an enrollment send is still the hour's second (the day's third), then the cap holds... */
        CHECK_STATUS(REQ(), MFA_OK);
        CHECK_STATUS(REQ(), MFA_ERR_QUOTA_EXCEEDED);
        CHECK(g_sms.sent == sent0 + 5);
        /* ...and it does not block the next sign-in SMS. */
        CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        CHECK(g_sms.sent == sent0 + 6);
        /* The code that was sent last works. */
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
        ctx = open_engine(PHONE_ON);
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
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsPerNumberHour\":1,\"smsPerNumberDay\":1}}");
    user_make(&user, "send-fail", NULL);
    g_sms.fail = 1;
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(start_enroll(ctx, &user, "+15105558001", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
        CHECK(vid[0] == '\0');
    }
    CHECK(g_sms.calls == 3 && g_sms.sent == 0);
    CHECK(audit_count(0, MFA_AUDIT_SMS_SENT, "SMS_SEND_FAILED") == 3);
    CHECK(audit_count(0, MFA_AUDIT_SMS_SENT, "OK") == 0);
    {
        const audit_record *e = audit_find(0, MFA_AUDIT_SMS_SENT, NULL, "send-fail", NULL, "SMS_SEND_FAILED");
        CHECK(e && strcmp(e->factor_id, "phone") == 0 && strcmp(e->tenant, "") == 0 && e->time == g_now);
    }
    /* Fixed: the send succeeds at once. */
    g_sms.fail = 0;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558001", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == 4 && g_sms.sent == 1);
    CHECK(audit_count(0, MFA_AUDIT_SMS_SENT, "OK") == 1);
    if (sms_code("+15105558001", code)) {
        CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105558001", eid), MFA_OK);
    }
    /* The successful one is counted: the cap of 1 is used now. */
    g_now += 31;
    user_make(&other, "send-fail-other", NULL);
    CHECK_STATUS(start_enroll(ctx, &other, "+15105558001", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    mfa_close(ctx);

    /* At sign-in: a failed send costs nothing either (since issue 8 the budget of sign-in
     * SMS is the factor's own, smsPerFactorHour, no longer the number's). */
    reset_recorders();
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsPerFactorHour\":1,\"smsPerFactorDay\":1}}");
    user_make(&user, "send-fail-signin", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105558002", NULL, eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    g_sms.fail = 1;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    {
        const audit_record *e = audit_find(0, MFA_AUDIT_SMS_SENT, NULL, "send-fail-signin", NULL, "SMS_SEND_FAILED");
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
    fixture_options(&options, path);
    options.sms_sender = NULL;
    options.sms_sender_context = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsPerNumberHour\":1,\"smsPerUserHour\":1,\"smsPerTenantHour\":1}}");
    user_make(&user, "no-sender", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558003", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105558003", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    CHECK(audit_count(0, MFA_AUDIT_SMS_SENT, "SMS_SEND_FAILED") == 2);
    CHECK(g_sms.calls == 0);
    {
        mfa_ctx *with_sender;
        fixture_options(&options, path);
        with_sender = open_with(&options);
        CHECK_STATUS(start_enroll(with_sender, &user, "+15105558003", GOOD_CRED, vid), MFA_OK);
        CHECK(g_sms.sent == 1);
        mfa_close(with_sender);
    }
    mfa_close(ctx);
    test_remove_sqlite(path);
}

/* Sign-in SMS: a cooldown and a budget per factor (smsPerFactorHour 2, smsPerFactorDay 3 here). */
static void test_sign_in_budget(void) {
    mfa_ctx *ctx;
    mfa_user user, other;
    char eid[64], other_eid[64], cred[TOKEN_MAX], other_cred[TOKEN_MAX], vid[TOKEN_MAX];

    reset_recorders();
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                      "\"limits\":{\"smsPerFactorHour\":2,\"smsPerFactorDay\":3}}");
    user_make(&user, "budget-user", NULL);
    user_make(&other, "budget-other", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105555101", NULL, eid);
    g_now += 31;
    ENROLL_PHONE_OK(ctx, &other, "+15105555101", NULL, other_eid); /* the same number, another factor */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    SIGN_IN_REQUIRED(ctx, &other, other_cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* The cooldown is the factor's: the other factor on the same number sends at once. */
    CHECK_STATUS(start_sign_in(ctx, other_cred, NULL, other_eid, GOOD_CRED, vid), MFA_OK);
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED); /* two an hour */
    CHECK_STATUS(start_sign_in(ctx, other_cred, NULL, other_eid, GOOD_CRED, vid), MFA_OK);
    g_now += 3600;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK); /* the day's third */
    g_now += 3600;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED); /* three a day */
    g_now += 86400;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        if (sms_code("+15105555101", code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    mfa_close(ctx);
}

int main(void) {
    make_temp_dir("libmfa-sms-limits");
    test_cooldown();
    test_quotas();
    test_sign_in_budget();
    test_send_failure();
    remove_temp_dir();
    return engine_report();
}
