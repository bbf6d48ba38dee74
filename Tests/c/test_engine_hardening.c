/*
 * Regression tests for issue 8 ("Hardening"), the items that show in the C
 * ABI, each in a function named test_regression_item<N>_...; each failed on
 * the code before the fix (commit c3f87d8), as said at each.
 *
 *   item 5   mfa_resolver_load rebuilt a resolver from a pending credential
 *            that was already used; it is INVALID_SESSION
 *   item 6   an enrollment session minted before an enroll or an unenroll
 *            still worked; a pending credential minted before an unenroll
 *            finished with another factor; a credential issued in the same
 *            second as a revocation passed mfa_token_check. They are
 *            USER_TOKEN_EXPIRED; mfa_token_check_ms orders by milliseconds
 *   item 7   there was no way for the host to revoke a user's credentials
 *            and libmfa tokens: mfa_revoke_tokens, audited TOKENS_REVOKED,
 *            factors kept
 *   item 8   a factor row moved to another user in the store signed that user
 *            in; it is MFA_ERR_CRYPTO and an INTEGRITY_FAILURE audit event
 *   item 11  other accounts' enrollment requests to a number used up the caps
 *            that the number's owner needed for a sign-in SMS; sign-in SMS
 *            have a budget of their own
 *
 * Item 9 (key material left in freed memory) is test_engine_key_memory.c.
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror; linked with SQLite (item 8
 * changes the store behind libmfa's back).
 */
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>

#include "test_engine_fixture.h"

#define HARDENING_CONFIG                                                                                      \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\",\"recovery\":\"ENABLED\"}}"

/* A TOTP sign-in of `user` with factor `f`, the code of step `ahead` steps from now: the status. */
static int totp_sign_in_at(mfa_ctx *ctx, const char *cred, const mfa_user *user, const factor *f, int ahead,
                           int line) {
    char code[MFA_CODE_BUFFER_SIZE];
    CHECK_STATUS_AT(app_code(code, f->key, g_now + 30 * ahead), MFA_OK, line);
    return resolve_at(ctx, cred, user->tenant, f->eid, code, line);
}
#define totp_sign_in(ctx, cred, user, f, ahead) totp_sign_in_at(ctx, cred, user, f, ahead, __LINE__)

/* Before the fix the used credential loaded: MFA_OK and a resolver. */
static void test_regression_item5_resolver_load_of_used_credential(void) {
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    mfa_resolver *resolver = NULL;

    user_make(&user, "item5", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, NULL, NULL), MFA_OK); /* unused: it loads */
    mfa_resolver_free(resolver);
    resolver = (mfa_resolver *)&resolver;
    CHECK_STATUS(totp_sign_in(ctx, cred, &user, &f, 1), MFA_OK);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(resolver == NULL);
    mfa_close(ctx);
}

/* Before the fix the early session made a secret after the enrollment, and after the unenroll. */
static void test_regression_item6_session_before_enroll_or_unenroll(void) {
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user user;
    factor f, set;
    char *early = NULL, *before_unenroll = NULL, *fresh = NULL;
    mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
    mfa_recovery_codes *codes = (mfa_recovery_codes *)&codes;

    user_make(&user, "item6-session", NULL);
    CHECK_STATUS(mfa_session_new(ctx, &early, &user, NULL), MFA_OK);
    ENROLL_OK(ctx, &user, NULL, &f);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, early, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(secret == NULL);
    g_now += 30;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &before_unenroll, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_unenroll(ctx, &user, f.eid, NULL), MFA_OK);
    CHECK_STATUS(mfa_recovery_codes_generate(ctx, &codes, before_unenroll, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(codes == NULL);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, before_unenroll, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    /* A session minted after works. */
    g_now += 1;
    CHECK_STATUS(mfa_session_new(ctx, &fresh, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, fresh, NULL), MFA_OK);
    mfa_totp_secret_free(secret);
    CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
    mfa_free(early);
    mfa_free(before_unenroll);
    mfa_free(fresh);
    mfa_close(ctx);
}

/* Before the fix the other factor finished the sign-in (MFA_OK). */
static void test_regression_item6_pending_credential_before_unenroll(void) {
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user user;
    factor first, second;
    char cred[TOKEN_MAX], fresh[TOKEN_MAX];

    user_make(&user, "item6-pending", NULL);
    ENROLL_OK(ctx, &user, NULL, &first);
    g_now += 30;
    ENROLL_OK(ctx, &user, NULL, &second);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    user.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &user, first.eid, NULL), MFA_OK);
    CHECK_STATUS(totp_sign_in(ctx, cred, &user, &second, 0), MFA_ERR_USER_TOKEN_EXPIRED);
    /* The same with a recovery-code set as the other factor. */
    {
        factor set;
        CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
        g_now += 1;
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(mfa_unenroll(ctx, &user, second.eid, NULL), MFA_OK);
        CHECK_STATUS(resolve_code(ctx, cred, NULL, set.eid, set.codes[0], NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        /* Nothing was used: a new credential signs in with that code. */
        SIGN_IN_REQUIRED(ctx, &user, fresh);
        CHECK_STATUS(resolve_code(ctx, fresh, NULL, set.eid, set.codes[0], NULL), MFA_OK);
    }
    mfa_close(ctx);
}

/* Before the fix mfa_token_check(T) of a revocation at T was MFA_OK (and mfa_token_check_ms did not exist). */
static void test_regression_item6_same_second_credential(void) {
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user user;
    factor f;
    int64_t second;

    user_make(&user, "item6-second", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    second = g_now;
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item6-second", second), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item6-second", second + 1), MFA_OK);
    CHECK_STATUS(mfa_unenroll(ctx, &user, f.eid, NULL), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item6-second", second), MFA_ERR_USER_TOKEN_EXPIRED);
    /* The revocation is recorded to the millisecond: strictly after it is valid. */
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "item6-second", second * 1000 - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "item6-second", second * 1000), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "item6-second", second * 1000 + 1), MFA_OK);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "item6-second", (second + 1) * 1000), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item6-never-revoked", 0), MFA_OK);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, "item6-never-revoked", 0), MFA_OK);
    mfa_close(ctx);
}

/* Before the fix there was no mfa_revoke_tokens (the test did not link). */
static void test_regression_item7_revoke_tokens(void) {
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user user, other, tenant_user;
    factor f, g;
    char cred[TOKEN_MAX], other_cred[TOKEN_MAX], fresh[TOKEN_MAX];
    char *session = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
    int64_t issued;
    const audit_record *e;
    size_t mark;

    user_make(&user, "item7", NULL);
    user_make(&other, "item7-other", NULL);
    user_make(&tenant_user, "item7", "tenant-7");
    ENROLL_OK(ctx, &user, NULL, &f);
    ENROLL_OK(ctx, &other, NULL, &g);
    g_now += 10;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    SIGN_IN_REQUIRED(ctx, &other, other_cred);
    user.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    issued = g_now;
    mark = g_audit.count;
    CHECK_ERR(mfa_revoke_tokens(ctx, NULL, "item7", &err), MFA_OK, err);
    e = audit_find(mark, MFA_AUDIT_TOKENS_REVOKED, "", "item7", NULL, NULL);
    CHECK(e != NULL && e->time == g_now && strcmp(e->kind_name, "TOKENS_REVOKED") == 0);
    CHECK(audit_count(mark, MFA_AUDIT_TOKENS_REVOKED, NULL) == 1);
    /* Credentials, pending credentials and sessions from before: USER_TOKEN_EXPIRED. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item7", issued), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(totp_sign_in(ctx, cred, &user, &f, 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(secret == NULL);
    /* Only that user's, in that tenant. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item7-other", issued), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, "tenant-7", "item7", issued), MFA_OK);
    CHECK_STATUS(totp_sign_in(ctx, other_cred, &other, &g, 1), MFA_OK);
    /* The factors stay; a new sign-in works. */
    CHECK(factor_count(ctx, &user) == 1);
    SIGN_IN_REQUIRED(ctx, &user, fresh);
    CHECK_STATUS(totp_sign_in(ctx, fresh, &user, &f, 1), MFA_OK);
    /* A tenant's user, and a user with no factors or no record at all. */
    CHECK_STATUS(mfa_revoke_tokens(ctx, "tenant-7", "item7", NULL), MFA_OK);
    CHECK(audit_find(mark, MFA_AUDIT_TOKENS_REVOKED, "tenant-7", "item7", NULL, NULL) != NULL);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "item7-nobody", NULL), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item7-nobody", g_now), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "item7-nobody", g_now + 1), MFA_OK);
    mfa_free(session);
    mfa_close(ctx);
}

/* Runs one SQL statement with one text parameter on the SQLite file `path`; 0 on success. */
static int raw_sql(const char *path, const char *sql, const char *param) {
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(db, 5000);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 1, param, -1, SQLITE_TRANSIENT);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    if (rc != SQLITE_OK) fprintf(stderr, "sqlite: %s: %s\n", sql, sqlite3_errmsg(db));
    if (rc == SQLITE_OK && sqlite3_changes(db) != 1) rc = SQLITE_ERROR;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Before the fix the victim signed in with the attacker's moved factor and code (MFA_OK). */
static void test_regression_item8_moved_factor_row(void) {
    char path[512], cred[TOKEN_MAX];
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user victim, mallory;
    factor stolen;
    char victim_eid[64];
    mfa_resolver *resolver = NULL;
    int listed = 0;
    const audit_record *e;

    snprintf(path, sizeof path, "%s/moved.db", temp_dir);
    test_remove_sqlite(path);
    reset_recorders();
    fixture_options(&options, path);
    ctx = open_with(&options);
    set_config(ctx, NULL, HARDENING_CONFIG);
    user_make(&victim, "victim", NULL);
    user_make(&mallory, "mallory", NULL);
    ENROLL_PHONE_OK(ctx, &victim, "+15105550801", NULL, victim_eid);
    ENROLL_OK(ctx, &mallory, NULL, &stolen);
    /* Mallory, with write access to the database, moves her factor to the victim. */
    CHECK(raw_sql(path, "UPDATE mfa_factors SET uid = 'victim' WHERE enrollment_id = ?", stolen.eid) == 0);
    g_now += 30;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &victim, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    for (size_t i = 0; resolver && i < resolver->hint_count; i++) listed += strcmp(resolver->hints[i].uid, stolen.eid) == 0;
    CHECK(listed == 1); /* the victim's sign-in lists it ... */
    if (resolver) {
        snprintf(cred, sizeof cred, "%s", resolver->session);
        /* ... but it does not open, with Mallory's code. */
        CHECK_STATUS(totp_sign_in(ctx, cred, &victim, &stolen, 0), MFA_ERR_CRYPTO);
        e = audit_find(0, MFA_AUDIT_INTEGRITY_FAILURE, "", "victim", stolen.eid, NULL);
        CHECK(e != NULL && strcmp(e->kind_name, "INTEGRITY_FAILURE") == 0);
    }
    mfa_resolver_free(resolver);
    /* The victim's own factor still signs in. */
    CHECK_STATUS(sign_in_phone(ctx, &victim, victim_eid, "+15105550801"), MFA_OK);
    mfa_close(ctx);
    test_remove_sqlite(path);
}

/* Before the fix the 12 enrollment requests used up the number's cap (5 an hour), and the
 * victim's sign-in SMS was QUOTA_EXCEEDED. */
static void test_regression_item11_others_enrollments_do_not_block_sign_in_sms(void) {
    static const char *attackers[] = {"mallory", "trudy", "eve"};
    const char *number = "+15105550199";
    mfa_ctx *ctx = open_engine(HARDENING_CONFIG);
    mfa_user victim, attacker;
    char eid[64], vid[TOKEN_MAX], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    int refused = 0;
    unsigned long sent;

    reset_recorders();
    user_make(&victim, "item11-victim", NULL);
    ENROLL_PHONE_OK(ctx, &victim, number, NULL, eid);
    for (int a = 0; a < 3; a++) {
        user_make(&attacker, attackers[a], NULL);
        for (int i = 0; i < 4; i++) {
            g_now += 31;
            refused += start_enroll(ctx, &attacker, number, GOOD_CRED, vid) == MFA_ERR_QUOTA_EXCEEDED;
        }
    }
    CHECK(refused > 0); /* the per-number cap holds for enrollments */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &victim, cred);
    sent = g_sms.sent;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.sent == sent + 1 && strcmp(last_sms()->to, number) == 0);
    if (sms_code(number, code)) CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    mfa_close(ctx);
}

int main(void) {
    make_temp_dir("libmfa-hardening");
    test_regression_item5_resolver_load_of_used_credential();
    test_regression_item6_session_before_enroll_or_unenroll();
    test_regression_item6_pending_credential_before_unenroll();
    test_regression_item6_same_second_credential();
    test_regression_item7_revoke_tokens();
    test_regression_item8_moved_factor_row();
    test_regression_item11_others_enrollments_do_not_block_sign_in_sms();
    remove_temp_dir();
    return engine_report();
}
