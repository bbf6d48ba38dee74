/*
 * Passkeys through the C ABI: a passkey registered with
 * mfa_webauthn_registration_options_ext (resident key and user verification
 * required, mfa_webauthn_options), signing in with it alone
 * (mfa_passkey_sign_in_options, mfa_passkey_sign_in), the result and its
 * claims, the listing (mfa_webauthn_credentials_list), and the contract:
 *
 *   success       the user, factor "webauthn", claims sign_in_method "passkey"
 *                 and amr, audited PASSKEY_SIGN_IN_SUCCESS
 *   two passkeys  a user with two signs in with either
 *   handle        another userHandle: INVALID_VERIFICATION_CODE, the one message
 *   unknown       a credential the store never saw: the same answer
 *   not a passkey a security key registered without a resident key: the same answer
 *   UV missing    USER_VERIFICATION_REQUIRED
 *   replay        the same response again: INVALID_SESSION
 *   clone         the counter back: CREDENTIAL_CLONED
 *   removed       after mfa_unenroll: the same answer
 *   tenant        another tenant's passkey: the same answer
 *   revocation    a sign-in started before mfa_revoke_tokens: USER_TOKEN_EXPIRED
 *   backoff       wrong signatures count; then even the right one waits
 *   options       every bad mfa_webauthn_options field: INVALID_ARGUMENT
 *
 * The store is the optional argument (test_pg_store.h): a new SQLite file by
 * default, or a PostgreSQL server (env:NAME, postgres://...).
 *
 * Usage: engine_webauthn_passkeys_test [LOCATION]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"
#include "test_engine_fixture.h"
#include "test_pg_store.h"
#include "test_webauthn_authenticator.h"

#define PASSKEYS_ON                                                                             \
    "{\"state\":\"ENABLED\",\"providers\":{\"webauthn\":\"ENABLED\",\"totp\":\"ENABLED\"},"     \
    "\"webauthn\":{\"rpId\":\"example.com\",\"origins\":[\"https://example.com\"],\"passkeySignIn\":true}}"

static test_store store;
static char last_error[512];

/* Registers `key` for `user` as a passkey (or, `passkey` 0, a security key as a second factor). */
static int register_key(mfa_ctx *ctx, const mfa_user *user, webauthn_key *key, int passkey, char *enrollment_id) {
    char *session = NULL, *options = NULL, json[4096];
    mfa_webauthn_options ceremony = MFA_WEBAUTHN_OPTIONS_INIT;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    mfa_factor_info *info = NULL;
    int status;
    key->passkey = passkey;
    if (passkey) {
        ceremony.resident_key = "required";
        ceremony.user_verification = "required";
        ceremony.hints = "client-device,hybrid";
    }
    CHECK_STATUS(mfa_session_new(ctx, &session, user, NULL), MFA_OK);
    CHECK_STATUS(mfa_webauthn_registration_options_ext(ctx, &options, session, "alice@example.com", NULL, &ceremony,
                                                       NULL), MFA_OK);
    mfa_free(session);
    if (!options) return MFA_ERR_INTERNAL;
    if (passkey) {
        CHECK(strstr(options, "\"residentKey\":\"required\"") && strstr(options, "\"credProps\":true"));
        CHECK(strstr(options, "\"hints\":[\"client-device\",\"hybrid\"]") != NULL);
    }
    CHECK(webauthn_register(json, sizeof json, key, options));
    mfa_free(options);
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    status = mfa_enroll(ctx, &info, user, &assertion, passkey ? "passkey" : "key", NULL);
    if (info && enrollment_id) snprintf(enrollment_id, 64, "%s", info->uid);
    mfa_factor_info_free(info);
    g_now += 1; /* the enrollment revoked the user's earlier tokens in this second */
    return status;
}

/* The answer of `key` to fresh passkey sign-in options of `tenant`. */
static void answer(mfa_ctx *ctx, const char *tenant, webauthn_key *key, int corrupt, char *json) {
    char *options = NULL;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &options, tenant, NULL, NULL), MFA_OK);
    CHECK(options && strstr(options, "\"allowCredentials\":[]") && strstr(options, "\"userVerification\":\"required\""));
    CHECK(webauthn_assert(json, 4096, key, options ? options : "", corrupt));
    mfa_free(options);
}

/* Signs in with `key` alone; the result in `*out` (may be NULL to drop it). */
static int passkey_sign_in(mfa_ctx *ctx, const char *tenant, webauthn_key *key, int corrupt,
                           mfa_sign_in_result **out) {
    char json[4096], *err = NULL;
    mfa_sign_in_result *result = NULL;
    int status;
    answer(ctx, tenant, key, corrupt, json);
    status = mfa_passkey_sign_in(ctx, &result, tenant, json, &err);
    snprintf(last_error, sizeof last_error, "%s", err ? err : "");
    mfa_free(err);
    if (out) *out = result;
    else mfa_sign_in_result_free(result);
    return status;
}

static const char *claim(const mfa_sign_in_result *result, const char *name) {
    for (size_t i = 0; result && i < result->claim_count; i++) {
        if (strcmp(result->claims[i].name, name) == 0) return result->claims[i].value;
    }
    return NULL;
}

/* INVALID_VERIFICATION_CODE with the one message that tells nothing. */
#define NOT_ACCEPTED(expr)                                                                              \
    do {                                                                                                \
        CHECK_STATUS(expr, MFA_ERR_INVALID_VERIFICATION_CODE);                                          \
        CHECK(strstr(last_error, "the passkey was not accepted: sign in another way") != NULL);         \
    } while (0)

static void test_contract(mfa_ctx *ctx) {
    mfa_user alice, bob, carol, dave, erin;
    webauthn_key phone, laptop, stranger, security, removed, tenant_key, verifier;
    char phone_id[64] = "", removed_id[64] = "", json[4096];
    mfa_sign_in_result *result = NULL;
    mfa_webauthn_credential_list *list = NULL;

    user_make(&alice, "alice", NULL);
    user_make(&bob, "bob", NULL);
    user_make(&carol, "carol", NULL);
    user_make(&dave, "dave", "t1");
    user_make(&erin, "erin", NULL);
    webauthn_key_new(&phone, NULL);
    webauthn_key_new(&laptop, NULL);
    webauthn_key_new(&stranger, NULL);
    webauthn_key_new(&security, NULL);
    webauthn_key_new(&removed, NULL);
    webauthn_key_new(&tenant_key, NULL);
    webauthn_key_new(&verifier, NULL);

    /* success, and two passkeys */
    CHECK_STATUS(register_key(ctx, &alice, &phone, 1, phone_id), MFA_OK);
    alice.auth_time = g_now;
    CHECK_STATUS(register_key(ctx, &alice, &laptop, 1, NULL), MFA_OK);
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &phone, 0, &result), MFA_OK);
    CHECK(result && strcmp(result->uid, "alice") == 0 && result->tenant == NULL);
    CHECK(result && strcmp(result->factor_id, "webauthn") == 0 && strcmp(result->enrollment_id, phone_id) == 0);
    CHECK(result && result->kind == MFA_FACTOR_WEBAUTHN);
    CHECK(claim(result, "sign_in_method") && strcmp(claim(result, "sign_in_method"), "passkey") == 0);
    CHECK(claim(result, "amr") && strcmp(claim(result, "amr"), "hwk user mfa") == 0);
    CHECK(claim(result, "sign_in_second_factor") && strcmp(claim(result, "sign_in_second_factor"), "webauthn") == 0);
    mfa_sign_in_result_free(result);
    CHECK(audit_last(MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS) != NULL);
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &laptop, 0, NULL), MFA_OK);
    CHECK_STATUS(mfa_webauthn_credentials_list(ctx, &list, NULL, "alice", NULL), MFA_OK);
    CHECK(list && list->count == 2 && list->items[0].passkey && list->items[0].discoverable == 1);
    CHECK(list && strcmp(list->items[0].backup, "device-bound key") == 0 && list->items[0].user_verified);
    CHECK(list && list->items[0].credential_id_len == sizeof phone.id
          && memcmp(list->items[0].credential_id, phone.id, sizeof phone.id) == 0);
    mfa_webauthn_credential_list_free(list);

    /* another user handle, an unknown credential, a security key: one answer */
    memcpy(stranger.handle, phone.handle, sizeof phone.handle);
    NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &stranger, 0, NULL));
    CHECK_STATUS(register_key(ctx, &bob, &security, 0, NULL), MFA_OK);
    memcpy(security.handle, phone.handle, sizeof phone.handle); /* a response naming some handle */
    NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &security, 0, NULL));
    snprintf(laptop.handle, sizeof laptop.handle, "%s", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &laptop, 0, NULL));
    memcpy(laptop.handle, phone.handle, sizeof phone.handle);
    /* UV missing is named (it says nothing of the store) */
    {
        char *options = NULL, *err = NULL;
        mfa_sign_in_result *none = (mfa_sign_in_result *)1;
        CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &options, NULL, NULL, NULL), MFA_OK);
        CHECK(webauthn_assert(json, sizeof json, &phone, options ? options : "", 0));
        mfa_free(options);
        /* the UV bit (0x04) of the flags byte, in the authenticator data's base64url: rebuild with flags UP only */
        {
            char *ad = strstr(json, "\"authenticatorData\":\"");
            /* flags are byte 32: base64url characters 42-43 carry them; UP|UV 0x05 -> UP 0x01 changes char 43 */
            if (ad) {
                char *c = ad + 21 + 43;
                *c = *c == 'F' ? 'B' : *c;
            }
        }
        CHECK_STATUS(mfa_passkey_sign_in(ctx, &none, NULL, json, &err), MFA_ERR_USER_VERIFICATION_REQUIRED);
        CHECK(none == NULL);
        mfa_free(err);
    }

    /* replay */
    answer(ctx, NULL, &phone, 0, json);
    CHECK_STATUS(mfa_passkey_sign_in(ctx, &result, NULL, json, NULL), MFA_OK);
    mfa_sign_in_result_free(result);
    CHECK_STATUS(mfa_passkey_sign_in(ctx, &result, NULL, json, NULL), MFA_ERR_INVALID_SESSION);

    /* clone */
    phone.count = 1;
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &phone, 0, NULL), MFA_ERR_CREDENTIAL_CLONED);
    phone.count = 1000;

    /* removed */
    carol.auth_time = g_now;
    CHECK_STATUS(register_key(ctx, &carol, &removed, 1, removed_id), MFA_OK);
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &removed, 0, NULL), MFA_OK);
    carol.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &carol, removed_id, NULL), MFA_OK);
    g_now += 1;
    NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &removed, 0, NULL));

    /* another tenant's */
    CHECK_STATUS(register_key(ctx, &dave, &tenant_key, 1, NULL), MFA_OK);
    NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &tenant_key, 0, NULL));
    CHECK_STATUS(passkey_sign_in(ctx, "t1", &tenant_key, 0, &result), MFA_OK);
    CHECK(result && result->tenant && strcmp(result->tenant, "t1") == 0 && strcmp(result->uid, "dave") == 0);
    mfa_sign_in_result_free(result);

    /* revocation */
    answer(ctx, NULL, &laptop, 0, json);
    g_now += 1;
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "alice", NULL), MFA_OK);
    CHECK_STATUS(mfa_passkey_sign_in(ctx, &result, NULL, json, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    g_now += 1;
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &laptop, 0, NULL), MFA_OK);

    /* backoff */
    CHECK_STATUS(register_key(ctx, &erin, &verifier, 1, NULL), MFA_OK);
    for (int i = 0; i < 6; i++) NOT_ACCEPTED(passkey_sign_in(ctx, NULL, &verifier, 1, NULL));
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &verifier, 0, NULL), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(audit_last(MFA_AUDIT_BACKOFF) != NULL);
    g_now += 3601;
    CHECK_STATUS(passkey_sign_in(ctx, NULL, &verifier, 0, NULL), MFA_OK);
}

static void test_bad_options(mfa_ctx *ctx) {
    mfa_webauthn_options options;
    char *out = (char *)1;
    const int32_t algorithms[] = {MFA_COSE_ES384, MFA_COSE_PS256};
    const int32_t unknown[] = {-65535};
    CHECK_STATUS(mfa_webauthn_options_init(&options, MFA_WEBAUTHN_OPTIONS_VERSION), MFA_OK);
    CHECK(options.version == MFA_WEBAUTHN_OPTIONS_VERSION && options.hints == NULL && options.algorithm_count == 0);
    CHECK_STATUS(mfa_webauthn_options_init(&options, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_webauthn_options_init(&options, MFA_WEBAUTHN_OPTIONS_VERSION + 1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_webauthn_options_init(NULL, MFA_WEBAUTHN_OPTIONS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_webauthn_options_init(&options, MFA_WEBAUTHN_OPTIONS_VERSION), MFA_OK);
    options.hints = "hybrid,usb";
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    options.hints = "hybrid";
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_OK);
    CHECK(out && strstr(out, "\"hints\":[\"hybrid\"]"));
    mfa_free(out);
    options.user_verification = "sometimes";
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.user_verification = NULL;
    options.authenticator_attachment = "roaming";
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.authenticator_attachment = NULL;
    options.algorithms = unknown;
    options.algorithm_count = 1;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.algorithms = algorithms;
    options.algorithm_count = 0;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.algorithm_count = MFA_WEBAUTHN_ALGORITHMS_MAX + 1;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.algorithms = NULL;
    options.algorithm_count = 2;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    options.algorithm_count = 0;
    options.version = 99;
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, &out, NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_passkey_sign_in_options(ctx, NULL, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_passkey_sign_in(ctx, NULL, NULL, "{}", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_webauthn_credentials_list(ctx, NULL, NULL, "alice", NULL), MFA_ERR_INVALID_ARGUMENT);
    {
        mfa_sign_in_result *result = (mfa_sign_in_result *)1;
        CHECK_STATUS(mfa_passkey_sign_in(ctx, &result, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(result == NULL);
        CHECK_STATUS(mfa_passkey_sign_in(ctx, &result, NULL, "{\"type\":\"public-key\"}", NULL),
                     MFA_ERR_INVALID_ARGUMENT);
    }
}

int main(int argc, char **argv) {
    mfa_options options;
    mfa_ctx *ctx;
    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-passkeys") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    fixture_options(&options, store.location);
    ctx = open_with(&options);
    if (ctx) {
        set_config(ctx, NULL, PASSKEYS_ON);
        test_contract(ctx);
        test_bad_options(ctx);
    }
    mfa_close(ctx);
    test_store_remove(&store);
    return engine_report();
}
