/*
 * WebAuthn assertion responses through mfa_webauthn_verify_assertion(): the
 * credential JSON, clientDataJSON, the authenticator data, the signature
 * (and the DER of ES256 signatures), the stored COSE key.
 *
 * At start-up an Ed25519 key signs one genuine assertion (libsodium). Byte 0
 * (mod 5) says what the rest of the input replaces: 0 clientDataJSON,
 * 1 authenticatorData, 2 the signature, 3 the stored COSE key, or 4 the whole
 * case: a 2-byte key length, the COSE key, then the credential JSON (the
 * seeds hold genuine ES256 and RS256 assertions this way).
 * Invariants: the status is one the function documents; in modes 0 to 2 an
 * accepted response is one libsodium itself verifies, by the fixed key, with
 * the rp id hash of example.com and the UP flag, and the counter and flags
 * reported are the authenticator data's.
 */
#include <sodium.h>

#include "fuzz_webauthn_support.h"

static const char *const ALLOWED = "OK INVALID_ARGUMENT INVALID_SESSION ORIGIN_MISMATCH RP_ID_MISMATCH "
                                   "USER_VERIFICATION_REQUIRED INVALID_VERIFICATION_CODE";

static uint8_t public_key[32], secret_key[64], cose[64], auth_data[37], signature[64];
static size_t cose_len;
static char client[256];
static size_t client_len;

static void setup(void) {
    uint8_t seed[32] = {7}, message[37 + 32];
    if (sodium_init() < 0) fuzz_setup_check(MFA_ERR_CRYPTO, "sodium_init", NULL);
    crypto_sign_seed_keypair(public_key, secret_key, seed);
    cose_len = fw_cose_ed25519(cose, public_key);
    crypto_hash_sha256(auth_data, (const uint8_t *)"example.com", 11);
    auth_data[32] = 0x05; /* UP, UV */
    auth_data[36] = 9;    /* sign count 9 */
    client_len = (size_t)snprintf(client, sizeof client, FW_CLIENT_DATA, "webauthn.get");
    memcpy(message, auth_data, 37);
    crypto_hash_sha256(message + 37, (const uint8_t *)client, client_len);
    crypto_sign_detached(signature, NULL, message, sizeof message, secret_key);
}

/* Whether libsodium verifies `sig` over `ad || SHA-256(cd)` with the fixed key. */
static int genuine(const uint8_t *cd, size_t cd_len, const uint8_t *ad, size_t ad_len, const uint8_t *sig,
                   size_t sig_len) {
    uint8_t *message = malloc(ad_len + 32);
    int ok;
    if (!message) abort();
    if (ad_len) memcpy(message, ad, ad_len);
    crypto_hash_sha256(message + ad_len, cd, cd_len);
    ok = sig_len == 64 && crypto_sign_verify_detached(sig, message, ad_len + 32, public_key) == 0;
    free(message);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1) return 0;
    int mode = data[0] % 5;
    const uint8_t *rest = data + 1;
    size_t rest_len = size - 1;
    const uint8_t *cd = (const uint8_t *)client, *ad = auth_data, *sig = signature, *key = cose;
    size_t cd_len = client_len, ad_len = sizeof auth_data, sig_len = sizeof signature, key_len = cose_len;
    char *json;
    if (mode == 0) cd = rest, cd_len = rest_len;
    if (mode == 1) ad = rest, ad_len = rest_len;
    if (mode == 2) sig = rest, sig_len = rest_len;
    if (mode == 3) key = rest, key_len = rest_len;
    if (mode == 4) {
        if (rest_len < 2) return 0;
        key_len = (size_t)rest[0] << 8 | rest[1];
        if (key_len > rest_len - 2) return 0;
        key = rest + 2;
        json = fuzz_string(rest + 2 + key_len, rest_len - 2 - key_len);
    } else {
        json = fw_assertion_json(FW_CREDENTIAL_ID, sizeof FW_CREDENTIAL_ID, cd, cd_len, ad, ad_len, sig, sig_len);
    }
    uint32_t count = 77, flags = 77;
    int status = mfa_webauthn_verify_assertion(&count, &flags, json, FW_CHALLENGE, "example.com",
                                               "https://example.com", 0, key, key_len, NULL);
    FUZZ_CHECK(fw_status_in(status, ALLOWED), "unexpected status %s", mfa_status_name(status));
    if (status != MFA_OK) {
        FUZZ_CHECK(count == 0 && flags == 0, "outputs set on failure");
    } else if (mode <= 2) {
        FUZZ_CHECK(genuine(cd, cd_len, ad, ad_len, sig, sig_len), "accepted a signature libsodium refuses");
        FUZZ_CHECK(ad_len >= 37 && memcmp(ad, auth_data, 32) == 0 && (ad[32] & 1), "rp id hash or UP flag");
        FUZZ_CHECK(count == ((uint32_t)ad[33] << 24 | (uint32_t)ad[34] << 16 | (uint32_t)ad[35] << 8 | ad[36]) &&
                       flags == ad[32],
                   "counter or flags are not the authenticator data's");
    }
    free(json);
    return 0;
}
