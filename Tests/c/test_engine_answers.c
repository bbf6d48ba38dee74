/*
 * Issue 45's answers through the C ABI, on every factor kind (TOTP, SMS,
 * recovery codes, a WebAuthn key) in the project:
 *
 *   test_revoked_pending_credential_is_user_token_expired
 *       A sign-in, an SMS code, a WebAuthn challenge and three enrollments
 *       are in flight when the operator resets or deletes the user, or
 *       removes one factor: every token minted before is answered
 *       MFA_ERR_USER_TOKEN_EXPIRED (what the header promises), whatever else
 *       went with the revocation (the factor, the SMS code, the pending
 *       secret), a right code and a wrong one alike; nothing is counted.
 *   test_second_delete_answer
 *       mfa_admin_reset_user and mfa_admin_delete_user answer
 *       MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, write nothing and audit nothing
 *       when there is nothing to remove: a uid never seen, a user deleted
 *       before, a user reset before with nothing enrolled or started since;
 *       MFA_OK always comes with its audit event, once.
 *
 * The store is a new SQLite file, or the location given as the argument
 * (test_pg_store.h: CTest runs it on the PostgreSQL fixture too).
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"
#include "test_pg_store.h"
#include "test_webauthn_authenticator.h"

#define ACTOR "ops:answers"
#define EVERY_KIND                                                                                  \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\",\"recovery\":" \
    "\"ENABLED\",\"webauthn\":\"ENABLED\"},\"webauthn\":{\"rpId\":\"example.com\"}}"

static test_store store;

/* A WebAuthn registration or assertion of `key` answering `options`, through mfa_enroll. */
static int webauthn_enroll(mfa_ctx *ctx, const mfa_user *user, const char *session, webauthn_key *key) {
    char *options = NULL, json[4096];
    mfa_assertion assertion = assertion_of(MFA_FACTOR_WEBAUTHN);
    mfa_factor_info *info = NULL;
    int status = mfa_webauthn_registration_options(ctx, &options, session, "user@example.com", NULL, NULL);
    if (status != MFA_OK) return status;
    CHECK(webauthn_register(json, sizeof json, key, options));
    mfa_free(options);
    assertion.credential = json;
    status = mfa_enroll(ctx, &info, user, &assertion, "key", NULL);
    mfa_factor_info_free(info);
    return status;
}

/* A fresh enrollment session for `user` (first factor now) into `session` (free with mfa_free). */
static char *new_session(mfa_ctx *ctx, const mfa_user *user) {
    mfa_user fresh = *user;
    char *session = NULL;
    fresh.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK);
    return session;
}

/* What a user has in flight when the operator acts. */
typedef struct in_flight {
    char cred[TOKEN_MAX];       /* a sign-in's pending credential, with the next three made from it */
    char cred2[TOKEN_MAX];      /* another sign-in, nothing made from it yet */
    char sign_in_vid[TOKEN_MAX];/* an SMS code sent to the enrolled number for `cred` */
    char sign_in_code[MFA_CODE_BUFFER_SIZE];
    char assertion[4096];       /* the WebAuthn key's answer to `cred`'s challenge */
    char enroll_vid[TOKEN_MAX]; /* an SMS enrollment of a second number */
    char enroll_code[MFA_CODE_BUFFER_SIZE];
    mfa_totp_secret *secret;    /* a TOTP enrollment waiting for its code */
    char *session;              /* an enrollment session, for a second WebAuthn key */
} in_flight;

/* A user with a factor of each kind, and everything `in_flight` names started. */
static void start_everything(mfa_ctx *ctx, const mfa_user *user, const char *number, const char *second_number,
                             factor *totp, factor *phone, factor *codes, webauthn_key *key, in_flight *f) {
    char *session, *request = NULL;
    memset(f, 0, sizeof *f);
    ENROLL_OK(ctx, user, "app", totp);
    ENROLL_PHONE_OK(ctx, user, number, "phone", phone->eid);
    CHECK_STATUS(generate_codes(ctx, user, NULL, codes), MFA_OK);
    webauthn_key_new(key, NULL);
    session = new_session(ctx, user);
    CHECK_STATUS(webauthn_enroll(ctx, user, session, key), MFA_OK);
    mfa_free(session);
    g_now += 60;

    SIGN_IN_REQUIRED(ctx, user, f->cred);
    SIGN_IN_REQUIRED(ctx, user, f->cred2);
    CHECK_STATUS(start_sign_in(ctx, f->cred, user->tenant, phone->eid, GOOD_CRED, f->sign_in_vid), MFA_OK);
    CHECK(sms_code(number, f->sign_in_code));
    CHECK_STATUS(mfa_webauthn_authentication_options(ctx, &request, f->cred, user->tenant, NULL, NULL), MFA_OK);
    CHECK(request && webauthn_assert(f->assertion, sizeof f->assertion, key, request, 0));
    mfa_free(request);

    f->session = new_session(ctx, user);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &f->secret, f->session, NULL), MFA_OK);
    CHECK_STATUS(start_with_session(ctx, f->session, second_number, GOOD_CRED, f->enroll_vid), MFA_OK);
    CHECK(sms_code(second_number, f->enroll_code));
    g_now += 5;
}

/* Every token of `f` is refused with USER_TOKEN_EXPIRED, a right answer and a wrong one alike,
 * with nothing counted and no sign-in failure audited; `key` signs in nothing. */
static void every_token_expired(mfa_ctx *ctx, const mfa_user *user, const factor *totp, const factor *phone,
                                const factor *codes, webauthn_key *key, in_flight *f) {
    mfa_assertion assertion = assertion_of(MFA_FACTOR_WEBAUTHN);
    mfa_assertion enrollment = assertion_of(MFA_FACTOR_TOTP);
    mfa_sign_in_result *result = NULL;
    mfa_resolver *resolver = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE], vid[TOKEN_MAX], *request = NULL;
    webauthn_key second;
    mfa_user fresh = *user;
    size_t mark = g_audit.count;
    fresh.auth_time = g_now;

    /* The sign-in in progress, with each kind's assertion. */
    code_at(code, totp->key, g_now);
    wrong_totp_code(wrong, totp->key, g_now);
    CHECK_STATUS(resolve(ctx, f->cred, user->tenant, totp->eid, code), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(resolve(ctx, f->cred, user->tenant, totp->eid, wrong), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(resolve_phone(ctx, f->cred, user->tenant, f->sign_in_vid, f->sign_in_code),
                 MFA_ERR_USER_TOKEN_EXPIRED);
    wrong_sms_code(wrong, f->sign_in_code);
    CHECK_STATUS(resolve_phone(ctx, f->cred, user->tenant, f->sign_in_vid, wrong), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(resolve_code(ctx, f->cred, user->tenant, codes->eid, codes->codes[0], NULL),
                 MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(resolve_code(ctx, f->cred, user->tenant, NULL, codes->codes[1], NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    assertion.credential = f->assertion;
    CHECK_STATUS(mfa_resolve(ctx, &result, f->cred, user->tenant, &assertion, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(result == NULL);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, f->cred, user->tenant, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(resolver == NULL);

    /* The other sign-in: nothing started from it can start now. */
    CHECK_STATUS(start_sign_in(ctx, f->cred2, user->tenant, phone->eid, GOOD_CRED, vid), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(start_sign_in(ctx, f->cred2, user->tenant, "no-such-factor", GOOD_CRED, vid),
                 MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_webauthn_authentication_options(ctx, &request, f->cred2, user->tenant, NULL, NULL),
                 MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(request == NULL);

    /* The enrollments in flight: the TOTP secret's code, the SMS code, a second key. */
    code_at(code, f->secret->shared_secret_key, g_now);
    enrollment.session_info = f->secret->session_info;
    enrollment.code = code;
    CHECK_STATUS(mfa_enroll(ctx, &info, &fresh, &enrollment, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(info == NULL);
    wrong_totp_code(wrong, f->secret->shared_secret_key, g_now);
    enrollment.code = wrong;
    CHECK_STATUS(mfa_enroll(ctx, &info, &fresh, &enrollment, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(finish_enroll(ctx, &fresh, f->enroll_vid, f->enroll_code, NULL, NULL, NULL),
                 MFA_ERR_USER_TOKEN_EXPIRED);
    wrong_sms_code(wrong, f->enroll_code);
    CHECK_STATUS(finish_enroll(ctx, &fresh, f->enroll_vid, wrong, NULL, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    webauthn_key_new(&second, NULL);
    CHECK_STATUS(webauthn_enroll(ctx, &fresh, f->session, &second), MFA_ERR_USER_TOKEN_EXPIRED);
    {
        mfa_totp_secret *secret = NULL;
        mfa_recovery_codes *set = NULL;
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, f->session, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        CHECK_STATUS(mfa_recovery_codes_generate(ctx, &set, f->session, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        CHECK(secret == NULL && set == NULL);
    }
    CHECK(audit_count(mark, MFA_AUDIT_SIGN_IN_FAILURE, NULL) == 0);
    CHECK(audit_count(mark, MFA_AUDIT_BACKOFF, NULL) == 0);
    CHECK(audit_count(mark, MFA_AUDIT_ENROLL, NULL) == 0);
    (void)key;
}

static void release(in_flight *f) {
    mfa_totp_secret_free(f->secret);
    mfa_free(f->session);
    f->secret = NULL;
    f->session = NULL;
}

static void test_revoked_pending_credential_is_user_token_expired(mfa_ctx *ctx) {
    static const char *const numbers[][2] = {
        {"+15105550101", "+15105550102"}, {"+15105550201", "+15105550202"}, {"+15105550301", "+15105550302"}};
    factor totp, phone, codes;
    webauthn_key key;
    in_flight f;
    mfa_user user;
    mfa_factor_list *removed = NULL;
    char *err = NULL;

    /* The operator resets the user. */
    user_make(&user, "u-reset", NULL);
    start_everything(ctx, &user, numbers[0][0], numbers[0][1], &totp, &phone, &codes, &key, &f);
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-reset", ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->count == 4);
    mfa_factor_list_free(removed);
    removed = NULL;
    every_token_expired(ctx, &user, &totp, &phone, &codes, &key, &f);
    release(&f);

    /* The operator deletes the user (the revocation marker is all that is left). */
    user_make(&user, "u-delete", NULL);
    start_everything(ctx, &user, numbers[1][0], numbers[1][1], &totp, &phone, &codes, &key, &f);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-delete", ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->count == 4);
    mfa_factor_list_free(removed);
    removed = NULL;
    every_token_expired(ctx, &user, &totp, &phone, &codes, &key, &f);
    release(&f);

    /* The operator removes the one factor the sign-in was going to use (the others stay). */
    user_make(&user, "u-unenroll", NULL);
    start_everything(ctx, &user, numbers[2][0], numbers[2][1], &totp, &phone, &codes, &key, &f);
    CHECK_ERR(mfa_admin_unenroll(ctx, NULL, totp.eid, ACTOR, &err), MFA_OK, err);
    {
        char code[MFA_CODE_BUFFER_SIZE];
        code_at(code, totp.key, g_now);
        CHECK_STATUS(resolve(ctx, f.cred, NULL, totp.eid, code), MFA_ERR_USER_TOKEN_EXPIRED);
        CHECK_STATUS(resolve(ctx, f.cred2, NULL, totp.eid, code), MFA_ERR_USER_TOKEN_EXPIRED);
        CHECK_STATUS(resolve_phone(ctx, f.cred, NULL, f.sign_in_vid, f.sign_in_code), MFA_ERR_USER_TOKEN_EXPIRED);
        /* A sign-in started after the removal finds the factor gone. */
        g_now += 1;
        {
            char cred[TOKEN_MAX];
            SIGN_IN_REQUIRED(ctx, &user, cred);
            CHECK_STATUS(resolve(ctx, cred, NULL, totp.eid, code), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
        }
    }
    release(&f);
}

static void test_second_delete_answer(mfa_ctx *ctx) {
    factor totp;
    mfa_user user;
    mfa_factor_list *removed = (mfa_factor_list *)&store; /* a sentinel */
    char *err = NULL, cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    size_t mark = g_audit.count;
    const audit_record *e;

    /* A uid never seen: nothing to reset or delete. */
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-stranger", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(removed == NULL);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-stranger", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(g_audit.count == mark);

    /* Deleted once (OK, audited once); a second delete and a reset then find nothing. */
    user_make(&user, "u-twice", NULL);
    ENROLL_OK(ctx, &user, NULL, &totp);
    g_now += 30; /* the enrollment used this time step's code */
    SIGN_IN_OK(ctx, &user, &totp);
    g_now += 30;
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-twice", ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->count == 1);
    mfa_factor_list_free(removed);
    removed = NULL;
    CHECK(audit_count(mark, MFA_AUDIT_USER_DELETED, NULL) == 1);
    mark = g_audit.count;
    g_now += 5;
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-twice", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_admin_delete_user(ctx, NULL, NULL, "u-twice", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-twice", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(removed == NULL && g_audit.count == mark);
    /* Nothing was written: a credential issued after the delete is still valid. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "u-twice", g_now - 4), MFA_OK);

    /* Reset once (OK, audited); a second reset finds nothing, and neither does a delete
     * (the reset left only the revocation: the user never passed a second factor). */
    user_make(&user, "u-reset-twice", NULL);
    ENROLL_OK(ctx, &user, NULL, &totp);
    g_now += 30;
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-reset-twice", ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->count == 1);
    mfa_factor_list_free(removed);
    removed = NULL;
    CHECK(audit_count(mark, MFA_AUDIT_USER_RESET, NULL) == 1 && audit_count(mark, MFA_AUDIT_UNENROLL, "ADMIN") == 1);
    g_now += 5;
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-reset-twice", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-reset-twice", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(removed == NULL && g_audit.count == mark);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "u-reset-twice", g_now - 4), MFA_OK);

    /* A reset user who has since signed in keeps a sign-in time: a delete erases it (OK,
     * audited once), and only then is there nothing left. */
    user_make(&user, "u-reset-delete", NULL);
    ENROLL_OK(ctx, &user, NULL, &totp);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, totp.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, totp.eid, code), MFA_OK);
    g_now += 5;
    CHECK_ERR(mfa_admin_reset_user(ctx, NULL, NULL, "u-reset-delete", ACTOR, &err), MFA_OK, err);
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-reset-delete", ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->count == 0);
    mfa_factor_list_free(removed);
    removed = NULL;
    e = audit_find(mark, MFA_AUDIT_USER_DELETED, "", "u-reset-delete", NULL, NULL);
    CHECK(e && strcmp(e->actor, ACTOR) == 0 && g_audit.count == mark + 1);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "u-reset-delete", ACTOR, &err),
              MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(g_audit.count == mark + 1);

    /* A user with no factor but an enrollment in flight: the reset ends it (OK, audited). */
    user_make(&user, "u-enrolling", NULL);
    {
        char *session = new_session(ctx, &user);
        mfa_totp_secret *secret = NULL;
        mfa_factor_info *info = NULL;
        mfa_assertion assertion = assertion_of(MFA_FACTOR_TOTP);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        g_now += 5;
        mark = g_audit.count;
        CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-enrolling", ACTOR, &err), MFA_OK, err);
        CHECK(removed && removed->count == 0);
        mfa_factor_list_free(removed);
        removed = NULL;
        CHECK(audit_count(mark, MFA_AUDIT_USER_RESET, NULL) == 1);
        if (secret) {
            code_at(code, secret->shared_secret_key, g_now);
            assertion.session_info = secret->session_info;
            assertion.code = code;
            user.auth_time = g_now;
            CHECK_STATUS(mfa_enroll(ctx, &info, &user, &assertion, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        }
        mark = g_audit.count;
        CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-enrolling", ACTOR, &err),
                  MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
        CHECK(g_audit.count == mark);
        mfa_factor_info_free(info);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
}

int main(int argc, char **argv) {
    mfa_options options;
    mfa_ctx *ctx;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-answers") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    fixture_options(&options, store.location);
    ctx = open_with(&options);
    if (ctx) {
        set_config(ctx, NULL, EVERY_KIND);
        test_revoked_pending_credential_is_user_token_expired(ctx);
        test_second_delete_answer(ctx);
    }
    mfa_close(ctx);
    test_store_remove(&store);
    return engine_report();
}
