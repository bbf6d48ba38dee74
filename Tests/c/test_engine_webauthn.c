/*
 * WebAuthn through the C ABI: a software authenticator (an Ed25519 key,
 * libsodium) answers the options libmfa makes, as a browser would; it is
 * enrolled with mfa_enroll and signs in with mfa_resolve (assertion struct
 * version 2, its `credential` field). Also: a replayed and a cloned
 * assertion, a version-1 assertion (no `credential`), version-1 options
 * (no trust callback) still opening, the trust callback of options
 * version 2 deciding, and the stateless verify functions.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"
#include "test_support.h"
#include "test_webauthn_authenticator.h"

static webauthn_key key;

static void register_json(char *json, const char *options) {
    CHECK(webauthn_register(json, 4096, &key, options));
}

static void assert_json(char *json, const char *options) {
    CHECK(webauthn_assert(json, 4096, &key, options, 0));
}

static int trust_calls;
static int trust_answer;
static int trust(void *context, const mfa_webauthn_attestation *attestation) {
    (void)context;
    trust_calls++;
    CHECK(strcmp(attestation->format, "none") == 0 && strcmp(attestation->kind, "none") == 0);
    CHECK(attestation->aaguid[0] == 0x11 && attestation->certificate_count == 0 && !attestation->chain_trusted);
    CHECK(strcmp(attestation->uid, "alice") == 0 && strcmp(attestation->tenant, "") == 0);
    return trust_answer;
}

static int enroll(mfa_ctx *ctx, const mfa_user *user, mfa_factor_info **info) {
    char *session = NULL, *options = NULL, json[4096];
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    int status;
    CHECK_STATUS(mfa_session_new(ctx, &session, user, NULL), MFA_OK);
    CHECK_STATUS(mfa_webauthn_registration_options(ctx, &options, session, "alice@example.com", NULL, NULL), MFA_OK);
    mfa_free(session);
    if (!options) return MFA_ERR_INTERNAL;
    register_json(json, options);
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    status = mfa_enroll(ctx, info, user, &assertion, "key", NULL);
    mfa_free(options);
    return status;
}

static void test_flows(void) {
    int64_t now = START_TIME;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    mfa_factor_info *info = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    char *request = NULL, json[4096], replay[4096];
    test_options(&options, ":memory:", &now);
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"webauthn\":\"ENABLED\"},"
                          "\"webauthn\":{\"rpId\":\"example.com\"}}");
    test_user(&user, "alice", NULL, "alice@example.com", now);
    CHECK_STATUS(enroll(ctx, &user, &info), MFA_OK);
    CHECK(info && info->kind == MFA_FACTOR_WEBAUTHN && strcmp(info->factor_id, "webauthn") == 0);
    CHECK(info && strcmp(info->hint, "security key") == 0 && info->remaining_codes == -1);

    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].kind == MFA_FACTOR_WEBAUTHN);
    CHECK_STATUS(mfa_webauthn_authentication_options(ctx, &request, resolver->session, NULL, resolver->hints[0].uid,
                                                     NULL), MFA_OK);
    CHECK(request && strstr(request, "\"rpId\":\"example.com\"") && strstr(request, "allowCredentials"));
    assert_json(json, request);
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    CHECK_STATUS(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), MFA_OK);
    CHECK(result && result->kind == MFA_FACTOR_WEBAUTHN && result->claim_count == 5);
    CHECK(result && strcmp(result->claims[2].name, "webauthn_user_verified") == 0);
    memcpy(replay, json, sizeof json);
    mfa_sign_in_result_free(result);
    result = NULL;
    CHECK_STATUS(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), MFA_ERR_INVALID_SESSION);
    mfa_sign_in_result_free(result);
    mfa_free(request);
    mfa_resolver_free(resolver);
    result = NULL;

    /* Replayed on a new sign-in; then a clone whose counter is behind. */
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    assertion.credential = replay;
    CHECK_STATUS(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_webauthn_authentication_options(ctx, &request, resolver->session, NULL, NULL, NULL), MFA_OK);
    key.count = 0;
    assert_json(json, request);
    assertion.credential = json;
    CHECK_STATUS(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), MFA_ERR_CREDENTIAL_CLONED);
    CHECK(result == NULL);
    mfa_free(request);

    /* A version-1 assertion has no credential field. */
    CHECK_STATUS(mfa_assertion_init(&assertion, 1), MFA_OK);
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    CHECK_STATUS(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), MFA_ERR_INVALID_ARGUMENT);
    mfa_resolver_free(resolver);
    mfa_factor_info_free(info);
    mfa_close(ctx);
}

static void test_trust_callback(void) {
    int64_t now = START_TIME;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    mfa_factor_info *info = NULL;
    const char *direct = "{\"state\":\"ENABLED\",\"providers\":{\"webauthn\":\"ENABLED\"},"
                         "\"webauthn\":{\"rpId\":\"example.com\",\"attestation\":\"direct\"}}";
    test_user(&user, "alice", NULL, "alice@example.com", now);
    /* Options of version 1 (no callback) still open; direct attestation then refuses `none`. */
    test_options(&options, ":memory:", &now);
    CHECK_STATUS(mfa_options_init(&options, 1), MFA_OK);
    options.store = ":memory:";
    options.master_key.id = "k1";
    options.master_key.key = K1;
    options.clock = test_clock;
    options.clock_context = &now;
    ctx = open_with(&options);
    set_config(ctx, NULL, direct);
    CHECK_STATUS(enroll(ctx, &user, &info), MFA_ERR_ATTESTATION_NOT_TRUSTED);
    mfa_close(ctx);

    test_options(&options, ":memory:", &now);
    options.webauthn_trust = trust;
    ctx = open_with(&options);
    set_config(ctx, NULL, direct);
    trust_answer = 1;
    CHECK_STATUS(enroll(ctx, &user, &info), MFA_ERR_ATTESTATION_NOT_TRUSTED);
    trust_answer = 0;
    CHECK_STATUS(enroll(ctx, &user, &info), MFA_OK);
    CHECK(trust_calls == 2);
    mfa_factor_info_free(info);
    mfa_close(ctx);
}

static void test_stateless(void) {
    const char *challenge = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    char options[256], json[4096];
    mfa_webauthn_credential *credential = NULL;
    uint32_t count = 0, flags = 0;
    sprintf(options, "{\"challenge\":\"%s\"}", challenge);
    register_json(json, options);
    CHECK_STATUS(mfa_webauthn_verify_registration(&credential, json, challenge, "example.com", "https://example.com",
                                                  1, NULL), MFA_OK);
    CHECK(credential && credential->algorithm == -8 && credential->credential_id_len == sizeof key.id);
    CHECK(credential && strcmp(credential->format, "none") == 0 && (credential->flags & MFA_WEBAUTHN_FLAG_UV));
    mfa_free(credential);
    CHECK_STATUS(mfa_webauthn_verify_registration(&credential, json, challenge, "example.org", "https://example.com",
                                                  0, NULL), MFA_ERR_RP_ID_MISMATCH);
    CHECK_STATUS(mfa_webauthn_verify_registration(&credential, json, challenge, "example.com", "https://example.org",
                                                  0, NULL), MFA_ERR_ORIGIN_MISMATCH);
    CHECK(credential == NULL);
    CHECK_STATUS(mfa_webauthn_verify_registration(&credential, json, challenge, "example.com", "https://example.com",
                                                  1, NULL), MFA_OK);
    assert_json(json, options);
    if (credential) {
        CHECK_STATUS(mfa_webauthn_verify_assertion(&count, &flags, json, challenge, "example.com",
                                                   "https://example.com", 0, credential->public_key,
                                                   credential->public_key_len, NULL), MFA_OK);
        CHECK(count == key.count && (flags & MFA_WEBAUTHN_FLAG_UP));
        CHECK_STATUS(mfa_webauthn_verify_assertion(&count, &flags, json, "AAAA", "example.com",
                                                   "https://example.com", 0, credential->public_key,
                                                   credential->public_key_len, NULL), MFA_ERR_INVALID_SESSION);
        CHECK_STATUS(mfa_webauthn_verify_assertion(&count, &flags, json, challenge, "example.com",
                                                   "https://example.com", 0, NULL, 5, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    mfa_free(credential);
}

int main(void) {
    webauthn_key_new(&key, NULL);
    test_flows();
    test_trust_callback();
    test_stateless();
    return test_report();
}
