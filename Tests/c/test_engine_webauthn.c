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

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"
#include "test_support.h"

static const uint8_t CREDENTIAL_ID[16] = {0x63, 0x2d, 0x74, 0x65, 0x73, 0x74, 0x2d, 0x63,
                                          0x72, 0x65, 0x64, 0x65, 0x6e, 0x74, 0x69, 0x6c};
static uint8_t public_key[32], secret_key[64];
static uint32_t sign_count;

static void b64url(char *out, const uint8_t *in, size_t len) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < len ? in[i + 2] : 0);
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[v >> 12 & 63];
        if (i + 1 < len) out[o++] = alphabet[v >> 6 & 63];
        if (i + 2 < len) out[o++] = alphabet[v & 63];
    }
    out[o] = '\0';
}

/* The value of "key":"..." in `json`, into `out`. */
static void json_string(char *out, size_t size, const char *json, const char *key) {
    char pattern[64];
    const char *at, *end;
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    at = strstr(json, pattern);
    CHECK(at != NULL);
    if (!at) return;
    at += strlen(pattern);
    end = strchr(at, '"');
    snprintf(out, size, "%.*s", (int)(end - at), at);
}

static size_t client_data(char *out, const char *type, const char *challenge) {
    return (size_t)sprintf(out, "{\"type\":\"%s\",\"challenge\":\"%s\",\"origin\":\"https://example.com\"}", type,
                           challenge);
}

/* Authenticator data for example.com: UP and UV, the counter, and (registration) the credential. */
static size_t auth_data(uint8_t *out, int attested) {
    size_t at = 37;
    crypto_hash_sha256(out, (const uint8_t *)"example.com", 11);
    out[32] = attested ? 0x45 : 0x05;
    out[33] = (uint8_t)(sign_count >> 24), out[34] = (uint8_t)(sign_count >> 16);
    out[35] = (uint8_t)(sign_count >> 8), out[36] = (uint8_t)sign_count;
    if (attested) {
        static const uint8_t cose[] = {0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20};
        memset(out + at, 0x11, 16), at += 16;
        out[at++] = 0, out[at++] = sizeof CREDENTIAL_ID;
        memcpy(out + at, CREDENTIAL_ID, sizeof CREDENTIAL_ID), at += sizeof CREDENTIAL_ID;
        memcpy(out + at, cose, sizeof cose), at += sizeof cose;
        memcpy(out + at, public_key, 32), at += 32;
    }
    return at;
}

/* The credential JSON answering registration options (a `none` attestation), into `json`. */
static void register_json(char *json, const char *options) {
    char challenge[1024], client[1400], id[64], cd64[2000], ao64[400];
    uint8_t object[256], data[160];
    static const uint8_t head[] = {0xa3, 0x63, 'f', 'm', 't', 0x64, 'n', 'o', 'n', 'e', 0x67, 'a', 't', 't', 'S',
                                   't', 'm', 't', 0xa0, 0x68, 'a', 'u', 't', 'h', 'D', 'a', 't', 'a', 0x58};
    size_t data_len, object_len, client_len;
    json_string(challenge, sizeof challenge, options, "challenge");
    client_len = client_data(client, "webauthn.create", challenge);
    data_len = auth_data(data, 1);
    memcpy(object, head, sizeof head);
    object[sizeof head] = (uint8_t)data_len;
    memcpy(object + sizeof head + 1, data, data_len);
    object_len = sizeof head + 1 + data_len;
    b64url(id, CREDENTIAL_ID, sizeof CREDENTIAL_ID);
    b64url(cd64, (const uint8_t *)client, client_len);
    b64url(ao64, object, object_len);
    sprintf(json, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":\"%s\","
            "\"attestationObject\":\"%s\",\"transports\":[\"usb\",\"nfc\"]}}", id, id, cd64, ao64);
}

/* The credential JSON answering authentication options, into `json` (the counter goes up first). */
static void assert_json(char *json, const char *options) {
    char challenge[1024], client[1400], id[64], cd64[2000], ad64[64], sig64[100];
    uint8_t data[37], message[37 + 32], signature[64];
    size_t client_len;
    json_string(challenge, sizeof challenge, options, "challenge");
    client_len = client_data(client, "webauthn.get", challenge);
    sign_count++;
    auth_data(data, 0);
    memcpy(message, data, 37);
    crypto_hash_sha256(message + 37, (const uint8_t *)client, client_len);
    crypto_sign_detached(signature, NULL, message, sizeof message, secret_key);
    b64url(id, CREDENTIAL_ID, sizeof CREDENTIAL_ID);
    b64url(cd64, (const uint8_t *)client, client_len);
    b64url(ad64, data, sizeof data);
    b64url(sig64, signature, sizeof signature);
    sprintf(json, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":\"%s\","
            "\"authenticatorData\":\"%s\",\"signature\":\"%s\",\"userHandle\":null}}", id, id, cd64, ad64, sig64);
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
    CHECK(result && result->kind == MFA_FACTOR_WEBAUTHN && result->claim_count == 3);
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
    sign_count = 0;
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
    CHECK(credential && credential->algorithm == -8 && credential->credential_id_len == sizeof CREDENTIAL_ID);
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
        CHECK(count == sign_count && (flags & MFA_WEBAUTHN_FLAG_UP));
        CHECK_STATUS(mfa_webauthn_verify_assertion(&count, &flags, json, "AAAA", "example.com",
                                                   "https://example.com", 0, credential->public_key,
                                                   credential->public_key_len, NULL), MFA_ERR_INVALID_SESSION);
        CHECK_STATUS(mfa_webauthn_verify_assertion(&count, &flags, json, challenge, "example.com",
                                                   "https://example.com", 0, NULL, 5, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    mfa_free(credential);
}

int main(void) {
    uint8_t seed[32] = {42};
    if (sodium_init() < 0) return 1;
    crypto_sign_seed_keypair(public_key, secret_key, seed);
    test_flows();
    test_trust_callback();
    test_stateless();
    return test_report();
}
