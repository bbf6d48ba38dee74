/*
 * Remembered devices through the C ABI: mfa_device_remember after a
 * second factor, mfa_sign_in_remembered (a result with the claims when the
 * token stands in; a resolver, and an audited reason, for every token that
 * does not), mfa_devices_list, mfa_devices_revoke (one, all,
 * DEVICE_NOT_FOUND), mfa_admin_devices_revoke with its actor, the limit per
 * user, mfa_revoke_tokens forgetting them, mfa_device_token_free, options
 * of an older version, and every bad argument.
 *
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

#define DEVICES_ON                                                                                      \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"rememberedDevices\":{\"state\":\"ENABLED\"," \
    "\"days\":30,\"maxPerUser\":2}}"

/* A sign-in of `user` with the TOTP factor `f` that passed: its pending credential in `cred`. */
static void pass_second_factor(mfa_ctx *ctx, const mfa_user *user, const factor *f, char cred[TOKEN_MAX]) {
    char code[MFA_CODE_BUFFER_SIZE];
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, user, cred);
    code_at(code, f->key, g_now);
    CHECK_STATUS(resolve(ctx, cred, user->tenant, f->eid, code), MFA_OK);
}

/* A device remembered for `user`: its token copied into `token` and its id into `id`. */
static void remember(mfa_ctx *ctx, const mfa_user *user, const factor *f, const char *label, char token[128],
                     char id[64]) {
    char cred[TOKEN_MAX];
    mfa_device_token *out = NULL;
    char *err = NULL;
    pass_second_factor(ctx, user, f, cred);
    CHECK_ERR(mfa_device_remember(ctx, &out, cred, user->tenant, label, &err), MFA_OK, err);
    CHECK(out != NULL);
    snprintf(token, 128, "%s", out ? out->token : "");
    snprintf(id, 64, "%s", out ? out->device.device_id : "");
    mfa_device_token_free(out);
}

/* mfa_sign_in_remembered: its status; a result exactly with MFA_OK, a resolver exactly with
 * SECOND_FACTOR_REQUIRED; on MFA_OK the result's factor id is copied into `factor_id`. */
static int sign_in_with_token_at(mfa_ctx *ctx, const mfa_user *user, const char *token, char factor_id[32], int line) {
    mfa_sign_in_result *result = NULL;
    mfa_resolver *resolver = NULL;
    mfa_user fresh = *user;
    int status;
    fresh.auth_time = g_now;
    status = mfa_sign_in_remembered(ctx, &result, &resolver, &fresh, token, NULL);
    CHECK_AT((status == MFA_OK) == (result != NULL), line);
    CHECK_AT((status == MFA_ERR_SECOND_FACTOR_REQUIRED) == (resolver != NULL), line);
    snprintf(factor_id, 32, "%s", result && result->factor_id ? result->factor_id : "");
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    return status;
}
#define sign_in_with_token(ctx, user, token, factor_id) sign_in_with_token_at(ctx, user, token, factor_id, __LINE__)

static void test_remember_and_sign_in(void) {
    mfa_ctx *ctx = open_engine(DEVICES_ON);
    mfa_user user, bob;
    factor f, bf;
    char cred[TOKEN_MAX], factor_id[32];
    mfa_device_token *token = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_resolver *resolver = NULL;
    char *err = NULL;
    const audit_record *e;

    user_make(&user, "alice", NULL);
    user_make(&bob, "bob", NULL);
    ENROLL_OK(ctx, &user, "app", &f);
    ENROLL_OK(ctx, &bob, "app", &bf);
    /* Before the second factor: nothing to remember. */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(mfa_device_remember(ctx, &token, cred, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(token == NULL);
    pass_second_factor(ctx, &user, &f, cred);
    CHECK_STATUS(mfa_device_remember(ctx, &token, cred, "other-tenant", NULL, NULL), MFA_ERR_TENANT_MISMATCH);
    CHECK_ERR(mfa_device_remember(ctx, &token, cred, NULL, "Firefox on Linux", &err), MFA_OK, err);
    CHECK(token && strncmp(token->token, "rd1.", 4) == 0 && strlen(token->device.device_id) == 22);
    CHECK(token && strcmp(token->device.uid, "alice") == 0 && token->device.tenant == NULL);
    CHECK(token && strcmp(token->device.label, "Firefox on Linux") == 0);
    CHECK(token && token->device.created_at == g_now && token->device.last_used_at == g_now);
    CHECK(token && token->device.expires_at == g_now + 30 * 86400);
    e = audit_last(MFA_AUDIT_DEVICE_REMEMBERED);
    CHECK(e && token && strcmp(e->enrollment_id, token->device.device_id) == 0 &&
          strcmp(e->factor_id, "remembered_device") == 0 && strcmp(e->kind_name, "DEVICE_REMEMBERED") == 0);
    /* One sign-in remembers one device. */
    {
        mfa_device_token *again = NULL;
        CHECK_STATUS(mfa_device_remember(ctx, &again, cred, NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
        CHECK(again == NULL);
    }
    /* The token stands in for the second factor, with the claims. */
    g_now += 3600;
    user.auth_time = g_now;
    CHECK_ERR(mfa_sign_in_remembered(ctx, &result, &resolver, &user, token ? token->token : NULL, &err), MFA_OK,
              err);
    CHECK(result && resolver == NULL);
    if (result && token) {
        CHECK(strcmp(result->factor_id, MFA_REMEMBERED_DEVICE_FACTOR_ID) == 0 && result->kind == 0);
        CHECK(strcmp(result->enrollment_id, token->device.device_id) == 0 && result->time == g_now);
        CHECK(result->claim_count == 2 && strcmp(result->claims[0].name, "sign_in_second_factor") == 0 &&
              strcmp(result->claims[0].value, "remembered_device") == 0 &&
              strcmp(result->claims[1].value, token->device.device_id) == 0);
    }
    mfa_sign_in_result_free(result);
    e = audit_last(MFA_AUDIT_SIGN_IN_SUCCESS);
    CHECK(e && strcmp(e->factor_id, "remembered_device") == 0);
    /* No token, an empty one, garbage, another user's: a resolver, and a reason audited. */
    CHECK_STATUS(sign_in_with_token(ctx, &user, NULL, factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK_STATUS(sign_in_with_token(ctx, &user, "", factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK_STATUS(sign_in_with_token(ctx, &user, "rd1.not-a-token", factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(audit_last(MFA_AUDIT_DEVICE_REFUSED) && strcmp(audit_last(MFA_AUDIT_DEVICE_REFUSED)->detail, "MALFORMED") == 0);
    CHECK_STATUS(sign_in_with_token(ctx, &bob, token ? token->token : "", factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(audit_last(MFA_AUDIT_DEVICE_REFUSED) && strcmp(audit_last(MFA_AUDIT_DEVICE_REFUSED)->detail, "FOREIGN") == 0);
    /* Its own first factor must still be one that carries MFA. */
    user.provider = "phone";
    CHECK_STATUS(sign_in_with_token(ctx, &user, token ? token->token : "", factor_id), MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
    user.provider = "password";
    CHECK_STATUS(sign_in_with_token(ctx, &user, token ? token->token : "", factor_id), MFA_OK);
    CHECK(strcmp(factor_id, "remembered_device") == 0);
    /* Remembering off: the token is ignored, and no new device. */
    set_config(ctx, NULL, ENABLE_TOTP);
    CHECK_STATUS(sign_in_with_token(ctx, &user, token ? token->token : "", factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(audit_last(MFA_AUDIT_DEVICE_REFUSED) && strcmp(audit_last(MFA_AUDIT_DEVICE_REFUSED)->detail, "DISABLED") == 0);
    pass_second_factor(ctx, &user, &f, cred);
    {
        mfa_device_token *off = NULL;
        CHECK_STATUS(mfa_device_remember(ctx, &off, cred, NULL, NULL, NULL), MFA_ERR_OPERATION_NOT_ALLOWED);
        CHECK(off == NULL);
    }
    mfa_device_token_free(token);
    mfa_device_token_free(NULL);
    mfa_close(ctx);
}

static void test_list_and_revoke(void) {
    mfa_ctx *ctx = open_engine(DEVICES_ON);
    mfa_user user;
    factor f;
    char t1[128], t2[128], t3[128], id1[64], id2[64], id3[64], factor_id[32];
    mfa_remembered_device_list *list = NULL;
    size_t count = 99;
    char *err = NULL;
    const audit_record *e;

    user_make(&user, "carol", NULL);
    ENROLL_OK(ctx, &user, "app", &f);
    remember(ctx, &user, &f, "one", t1, id1);
    remember(ctx, &user, &f, NULL, t2, id2);
    CHECK_ERR(mfa_devices_list(ctx, &list, NULL, "carol", &err), MFA_OK, err);
    CHECK(list && list->count == 2);
    if (list && list->count == 2) {
        CHECK(strcmp(list->items[0].device_id, id2) == 0 && list->items[0].label == NULL);
        CHECK(strcmp(list->items[1].device_id, id1) == 0 && strcmp(list->items[1].label, "one") == 0);
    }
    mfa_remembered_device_list_free(list);
    mfa_remembered_device_list_free(NULL);
    /* The limit (2): a third forgets the least recently used. */
    g_now += 5;
    CHECK_STATUS(sign_in_with_token(ctx, &user, t1, factor_id), MFA_OK);
    remember(ctx, &user, &f, "three", t3, id3);
    CHECK(audit_find(0, MFA_AUDIT_DEVICE_REVOKED, "", "carol", id2, "LIMIT") != NULL);
    CHECK_STATUS(sign_in_with_token(ctx, &user, t2, factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    /* Its own revoke call. */
    CHECK_STATUS(mfa_devices_revoke(ctx, &count, NULL, "carol", id2, NULL), MFA_ERR_DEVICE_NOT_FOUND);
    CHECK(count == 0);
    CHECK_STATUS(mfa_devices_revoke(ctx, &count, NULL, "dave", id1, NULL), MFA_ERR_DEVICE_NOT_FOUND);
    CHECK_ERR(mfa_devices_revoke(ctx, &count, NULL, "carol", id1, &err), MFA_OK, err);
    CHECK(count == 1);
    e = audit_last(MFA_AUDIT_DEVICE_REVOKED);
    CHECK(e && strcmp(e->enrollment_id, id1) == 0 && strcmp(e->detail, "OK") == 0 && strcmp(e->actor, "") == 0);
    CHECK_STATUS(sign_in_with_token(ctx, &user, t1, factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK_STATUS(sign_in_with_token(ctx, &user, t3, factor_id), MFA_OK);
    /* An operator's, with the actor. */
    CHECK_STATUS(mfa_admin_devices_revoke(ctx, &count, NULL, "carol", NULL, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_devices_revoke(ctx, &count, NULL, "carol", NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_ERR(mfa_admin_devices_revoke(ctx, &count, NULL, "carol", NULL, "ops", &err), MFA_OK, err);
    CHECK(count == 1);
    e = audit_last(MFA_AUDIT_DEVICE_REVOKED);
    CHECK(e && strcmp(e->enrollment_id, id3) == 0 && strcmp(e->detail, "ADMIN") == 0 && strcmp(e->actor, "ops") == 0);
    CHECK_STATUS(mfa_devices_revoke(ctx, NULL, NULL, "carol", NULL, NULL), MFA_OK);
    /* mfa_revoke_tokens (a password change) forgets them too. */
    remember(ctx, &user, &f, NULL, t1, id1);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "carol", NULL), MFA_OK);
    CHECK(audit_find(0, MFA_AUDIT_DEVICE_REVOKED, "", "carol", id1, "TOKENS_REVOKED") != NULL);
    CHECK_STATUS(sign_in_with_token(ctx, &user, t1, factor_id), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(audit_last(MFA_AUDIT_DEVICE_REFUSED) && strcmp(audit_last(MFA_AUDIT_DEVICE_REFUSED)->detail, "UNKNOWN") == 0);
    CHECK_STATUS(mfa_devices_list(ctx, &list, NULL, "carol", NULL), MFA_OK);
    CHECK(list && list->count == 0);
    mfa_remembered_device_list_free(list);
    mfa_close(ctx);
}

static void test_bad_arguments(void) {
    mfa_ctx *ctx = open_engine(DEVICES_ON);
    mfa_device_token *token = (mfa_device_token *)&token;
    mfa_sign_in_result *result = (mfa_sign_in_result *)&result;
    mfa_resolver *resolver = (mfa_resolver *)&resolver;
    mfa_remembered_device_list *list = (mfa_remembered_device_list *)&list;
    mfa_user user, unset;
    factor f;
    char cred[TOKEN_MAX], label[300], bad_utf8[] = {'a', (char)0xc3, 0};
    size_t count = 7;

    user_make(&user, "erin", NULL);
    ENROLL_OK(ctx, &user, "app", &f);
    pass_second_factor(ctx, &user, &f, cred);
    memset(label, 'x', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    CHECK_STATUS(mfa_device_remember(NULL, &token, cred, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_device_remember(ctx, NULL, cred, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_device_remember(ctx, &token, NULL, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(token == NULL);
    CHECK_STATUS(mfa_device_remember(ctx, &token, cred, NULL, label, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_device_remember(ctx, &token, cred, NULL, bad_utf8, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_device_remember(ctx, &token, cred, NULL, "tab\there", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_device_remember(ctx, &token, "v2.tampered", NULL, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_sign_in_remembered(ctx, NULL, &resolver, &user, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in_remembered(ctx, &result, NULL, &user, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in_remembered(ctx, &result, &resolver, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(result == NULL && resolver == NULL);
    CHECK_STATUS(mfa_sign_in_remembered(NULL, &result, &resolver, &user, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in_remembered(ctx, &result, &resolver, &user, bad_utf8, NULL), MFA_ERR_INVALID_ARGUMENT);
    memset(&unset, 0, sizeof unset);
    CHECK_STATUS(mfa_sign_in_remembered(ctx, &result, &resolver, &unset, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_devices_list(ctx, &list, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);
    CHECK_STATUS(mfa_devices_list(ctx, NULL, NULL, "erin", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_devices_list(ctx, &list, "", "erin", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_devices_revoke(ctx, &count, NULL, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(count == 0);
    CHECK_STATUS(mfa_devices_revoke(ctx, &count, NULL, "erin", "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_devices_revoke(NULL, &count, NULL, "erin", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_devices_revoke(ctx, &count, NULL, "erin", NULL, bad_utf8, NULL), MFA_ERR_INVALID_ARGUMENT);
    /* The configuration's ranges, named in the message. */
    {
        char *err = NULL;
        CHECK_STATUS(mfa_config_update_json(ctx, NULL, "{\"rememberedDevices\":{\"days\":91}}", &err),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK(err && contains(err, "rememberedDevices.days"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_config_update_json(ctx, NULL, "{\"rememberedDevices\":{\"maxPerUser\":0}}", &err),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK(err && contains(err, "rememberedDevices.maxPerUser"));
        mfa_free(err);
    }
    mfa_close(ctx);
}

/* Options of version 2 (before the email sender) still open a context, and remember devices. */
static void test_older_options(void) {
    mfa_options options;
    mfa_ctx *ctx;
    CHECK_STATUS(mfa_options_init(&options, 2), MFA_OK);
    CHECK(options.version == 2);
    options.store = ":memory:";
    options.master_key.id = "k1";
    options.master_key.key = K1;
    ctx = open_with(&options);
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, DEVICES_ON, NULL), MFA_OK);
    mfa_close(ctx);
    CHECK_STATUS(mfa_options_init(&options, MFA_OPTIONS_VERSION + 1), MFA_ERR_INVALID_ARGUMENT);
}

int main(void) {
    test_remember_and_sign_in();
    test_list_and_revoke();
    test_bad_arguments();
    test_older_options();
    return engine_report();
}
