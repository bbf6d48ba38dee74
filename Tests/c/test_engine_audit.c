/*
 * Audit events through the C ABI (mfa_options.audit): what each flow reports,
 * and that no event ever holds a secret, a code, a token or a phone number.
 *
 *   TOTP     CONFIG_CHANGE (project, tenant; none for a rejected one),
 *            ENROLL, SIGN_IN_SUCCESS, SIGN_IN_FAILURE, BACKOFF, a replay as a
 *            failure, UNENROLL; tenant "" for the project; every field set,
 *            none holding a secret (either case), a code or a token
 *   phone    SMS_SENT (no enrollment id yet at enrollment; the factor's at
 *            sign-in; SMS_SEND_FAILED), ENROLL, SIGN_IN_FAILURE/SUCCESS,
 *            UNENROLL; refusals before sending are not SMS_SENT; tenants
 *   oracle   the leak oracle of the fixture finds what it looks for
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_totp_audit(void) {
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

    reset_recorders();
    memset(&f, 0, sizeof f);
    test_options(&options, ":memory:", &g_now);
    options.audit = audit_callback;
    options.audit_context = &g_audit;
    ctx = open_with(&options);

    /* CONFIG_CHANGE, for the project and for a tenant. */
    t = g_now;
    set_config(ctx, NULL, ENABLE_TOTP);
    e = audit_find(0, MFA_AUDIT_CONFIG_CHANGE, "", NULL, NULL, NULL);
    CHECK(e != NULL && e->time == t);
    set_config(ctx, "tenant-audit", "{\"totp\":{\"adjacentIntervals\":2}}");
    e = audit_find(0, MFA_AUDIT_CONFIG_CHANGE, "tenant-audit", NULL, NULL, NULL);
    CHECK(e != NULL && e->time == t && strcmp(e->uid, "") == 0);
    /* A rejected configuration is not a change. */
    mark = g_audit.count;
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, "{\"state\":\"ON\"}", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(audit_count(mark, MFA_AUDIT_CONFIG_CHANGE, NULL) == 0);

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
            wrong_totp_code(codes[code_count], secret->shared_secret_key, g_now);
            CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, secret->session_info, codes[code_count], NULL, NULL),
                         MFA_ERR_INVALID_VERIFICATION_CODE);
            code_count++;
            code_at(codes[code_count], secret->shared_secret_key, g_now);
            mark = g_audit.count;
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
    e = audit_find(mark, MFA_AUDIT_ENROLL, "tenant-audit", "audit-user", f.eid, NULL);
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
    mark = g_audit.count;
    CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[code_count]), MFA_OK);
    code_count++;
    e = audit_find(mark, MFA_AUDIT_SIGN_IN_SUCCESS, "tenant-audit", "audit-user", f.eid, NULL);
    CHECK(e != NULL && strcmp(e->factor_id, "totp") == 0 && e->time == g_now);
    CHECK(audit_count(mark, MFA_AUDIT_SIGN_IN_FAILURE, NULL) == 0);

    /* SIGN_IN_FAILURE for each wrong code, BACKOFF once the free attempts are used. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    snprintf(tokens[token_count++], TOKEN_MAX, "%s", cred);
    mark = g_audit.count;
    for (int i = 0; i < 6; i++) {
        wrong_totp_code(codes[code_count], f.key, g_now);
        CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[code_count]), MFA_ERR_INVALID_VERIFICATION_CODE);
        code_count++;
    }
    CHECK(audit_count(mark, MFA_AUDIT_SIGN_IN_FAILURE, NULL) == 6);
    e = audit_find(mark, MFA_AUDIT_SIGN_IN_FAILURE, "tenant-audit", "audit-user", f.eid, NULL);
    CHECK(e != NULL && strcmp(e->factor_id, "totp") == 0 && strcmp(e->detail, "INVALID_VERIFICATION_CODE") == 0);
    e = audit_find(mark, MFA_AUDIT_BACKOFF, "tenant-audit", "audit-user", f.eid, NULL);
    CHECK(e != NULL && e->time == g_now);
    /* A replay is a failure too. */
    g_now += 2;
    mark = g_audit.count;
    CHECK_STATUS(resolve(ctx, cred, "tenant-audit", f.eid, codes[2]), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK(audit_find(mark, MFA_AUDIT_SIGN_IN_FAILURE, "tenant-audit", "audit-user", f.eid, NULL) != NULL);

    /* UNENROLL. */
    user.auth_time = g_now;
    mark = g_audit.count;
    CHECK_STATUS(mfa_unenroll(ctx, &user, f.eid, NULL), MFA_OK);
    e = audit_find(mark, MFA_AUDIT_UNENROLL, "tenant-audit", "audit-user", f.eid, NULL);
    CHECK(e != NULL && e->time == g_now);

    /* A project user's events carry tenant "". */
    {
        mfa_user project_user;
        factor pf;
        user_make(&project_user, "audit-project", NULL);
        mark = g_audit.count;
        ENROLL_OK(ctx, &project_user, NULL, &pf);
        snprintf(secrets[secret_count++], 128, "%s", pf.key);
        e = audit_find(mark, MFA_AUDIT_ENROLL, "", "audit-project", pf.eid, NULL);
        CHECK(e != NULL);
    }

    /* Every event: its kind's name, no NULL, and no secret, code or token. */
    CHECK(g_audit.dropped == 0);
    CHECK(g_audit.count >= 12);
    for (size_t i = 0; i < g_audit.count; i++) {
        const audit_record *r = &g_audit.events[i];
        const char *fields[7];
        fields[0] = r->kind_name;
        fields[1] = r->tenant;
        fields[2] = r->uid;
        fields[3] = r->factor_id;
        fields[4] = r->enrollment_id;
        fields[5] = r->detail;
        fields[6] = r->actor;
        CHECK(strcmp(r->kind_name, audit_kind_name(r->kind)) == 0);
        CHECK(strcmp(r->actor, "") == 0); /* the users' own actions have no actor */
        for (size_t k = 0; k < 7; k++) {
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
                snprintf(head, sizeof head, "%s", tokens[tk] + 3); /* skip "v2." */
                CHECK(!contains(fields[k], head));
            }
        }
    }
    mfa_close(ctx);
}

static void test_phone_audit(void) {
    mfa_ctx *ctx;
    mfa_user user, tenant_user;
    char eid[64], cred[TOKEN_MAX], vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    const audit_record *e;
    int64_t t_enroll;

    reset_recorders();
    ctx = open_engine(PHONE_ON);
    set_config(ctx, "t-audit", "{}");
    g_audit.count = 0;
    user_make(&user, "audit-user", NULL);
    t_enroll = g_now;
    ENROLL_PHONE_OK(ctx, &user, "+15105551001", NULL, eid);
    /* Enrollment: SMS_SENT (no enrollment id yet), then ENROLL. */
    CHECK(g_audit.count == 2);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->kind_name, "SMS_SENT") == 0);
    CHECK(strcmp(e->uid, "audit-user") == 0 && strcmp(e->tenant, "") == 0 && strcmp(e->factor_id, "phone") == 0);
    CHECK(strcmp(e->enrollment_id, "") == 0 && strcmp(e->detail, "OK") == 0 && e->time == t_enroll);
    e = &g_audit.events[1];
    CHECK(e->kind == MFA_AUDIT_ENROLL && strcmp(e->factor_id, "phone") == 0 && strcmp(e->enrollment_id, eid) == 0);

    /* Sign-in: SMS_SENT naming the factor, a failure, then success. */
    g_now += 31;
    g_audit.count = 0;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105551001", code);
    wrong_sms_code(wrong, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    CHECK(g_audit.count == 3);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->enrollment_id, eid) == 0 && strcmp(e->detail, "OK") == 0);
    CHECK(strcmp(e->factor_id, "phone") == 0 && e->time == g_now);
    e = &g_audit.events[1];
    CHECK(e->kind == MFA_AUDIT_SIGN_IN_FAILURE && strcmp(e->detail, "INVALID_VERIFICATION_CODE") == 0);
    CHECK(strcmp(e->factor_id, "phone") == 0 && strcmp(e->enrollment_id, eid) == 0);
    e = &g_audit.events[2];
    CHECK(e->kind == MFA_AUDIT_SIGN_IN_SUCCESS && strcmp(e->factor_id, "phone") == 0 &&
          strcmp(e->enrollment_id, eid) == 0);

    /* A failed send: SMS_SENT with detail SMS_SEND_FAILED. */
    g_now += 31;
    g_audit.count = 0;
    g_sms.fail = 1;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    g_sms.fail = 0;
    CHECK(g_audit.count == 1);
    e = &g_audit.events[0];
    CHECK(e->kind == MFA_AUDIT_SMS_SENT && strcmp(e->detail, "SMS_SEND_FAILED") == 0);
    CHECK(strcmp(e->enrollment_id, eid) == 0 && strcmp(e->uid, "audit-user") == 0);

    /* Refusals before sending (cooldown, quota, bad credential) are not SMS_SENT events. */
    g_audit.count = 0;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, BAD_CRED, vid), MFA_ERR_INVALID_APP_CREDENTIAL);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(audit_count(0, MFA_AUDIT_SMS_SENT, NULL) == 1);

    /* Unenroll names the factor. */
    g_audit.count = 0;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &user, eid, NULL), MFA_OK);
    CHECK(g_audit.count == 1 && g_audit.events[0].kind == MFA_AUDIT_UNENROLL &&
          strcmp(g_audit.events[0].factor_id, "phone") == 0 && strcmp(g_audit.events[0].enrollment_id, eid) == 0);

    /* A tenant user's events name the tenant. */
    g_audit.count = 0;
    user_make(&tenant_user, "audit-tenant-user", "t-audit");
    ENROLL_PHONE_OK(ctx, &tenant_user, "+15105551002", NULL, eid);
    CHECK(g_audit.count == 2 && strcmp(g_audit.events[0].tenant, "t-audit") == 0 &&
          strcmp(g_audit.events[1].tenant, "t-audit") == 0);
    mfa_close(ctx);

    /* The leak oracle itself finds what it looks for. */
    CHECK(leak_in("SMS_SENT|+44") != NULL);
    CHECK(leak_in("detail 15105551002") != NULL);
    CHECK(leak_in("x5551002y") != NULL);
    CHECK(g_code_count > 0 && leak_in(g_codes[(g_code_count - 1) % SECRET_CODES]) != NULL);
    CHECK(leak_in("SMS_SENT||audit-user|phone||OK") == NULL);
    CHECK(leak_in("BACKOFF|locked until 1700001234") == NULL);
    /* No audit string, in this whole program, held a number or a code. */
    CHECK(g_audit.leaks == 0);
    CHECK(g_audit.total > 0);
}

int main(void) {
    test_totp_audit();
    test_phone_audit();
    return engine_report();
}
