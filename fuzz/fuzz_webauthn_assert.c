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
 * A byte 0 of 0xF0 or more is mode 5 instead: the rest is the recipe of an
 * extension map of up to 12,000 entries (see `extension_map`), which ends
 * the genuine authenticator data (ED flag set), signed anew by the key.
 * Invariants: the status is one the function documents; in modes 0 to 2 an
 * accepted response is one libsodium itself verifies, by the fixed key, with
 * the rp id hash of example.com and the UP flag, and the counter and flags
 * reported are the authenticator data's; in mode 5 the response is accepted
 * exactly when no key of the map repeats another (by value: an integer
 * written wider than it needs is the same key) and the JSON fits its 64 KiB.
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

/* The most bytes of authenticator data mode 5 builds (its JSON then stays under 64 KiB). */
#define MAP_DATA_MAX 47000

/* Writes the CBOR head of major type `major` with `value` in `width` bytes after the
 * first (0: in the first byte; else 1, 2, 4 or 8, at least what `value` needs). */
static size_t cbor_head(uint8_t *out, unsigned major, uint64_t value, unsigned width) {
    unsigned need = value < 24 ? 0 : value <= 0xff ? 1 : value <= 0xffff ? 2 : value <= 0xffffffffu ? 4 : 8;
    size_t at = 0;
    if (width < need) width = need;
    if (width == 0) {
        out[at++] = (uint8_t)(major << 5 | value);
        return at;
    }
    out[at++] = (uint8_t)(major << 5 | (width == 1 ? 24 : width == 2 ? 25 : width == 4 ? 26 : 27));
    for (unsigned i = width; i-- > 0;) out[at++] = (uint8_t)(value >> (8 * i));
    return at;
}

/* Mode 5: the genuine authenticator data with ED set and an extension map after it, into
 * `out` (MAP_DATA_MAX bytes). Entry i takes recipe byte r = recipe[i % len]: r & 3 says
 * its key (0: the unsigned i, 1: the text "k<i>", 2: the negative -1 - i, 3: entry
 * r >> 4 (mod i)'s key again, a repeat), r >> 2 & 3 how an integer is written (in its
 * shortest form, or in 1, 2 or 4 bytes after the head when they hold it: wider than it
 * needs, the same key to CBOR). The first two bytes say how many
 * entries (mod 12,001); fewer if the data would pass MAP_DATA_MAX. Returns the length;
 * `*repeats` says whether a key repeats. */
static size_t extension_map(uint8_t *out, const uint8_t *rest, size_t rest_len, int *repeats) {
    static const unsigned widths[] = {0, 1, 2, 4};
    static uint8_t entries[MAP_DATA_MAX];
    static uint32_t kinds[12000];
    unsigned n = rest_len >= 2 ? (unsigned)(rest[0] << 8 | rest[1]) % 12001 : 0, count = 0;
    const uint8_t *recipe = rest + (rest_len >= 2 ? 2 : rest_len);
    size_t recipe_len = rest_len >= 2 ? rest_len - 2 : 0, used = 0, at;
    *repeats = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t r = recipe_len ? recipe[i % recipe_len] : 0, entry[32];
        uint32_t kind = r & 3, number = i;
        size_t len = 0;
        unsigned width = widths[r >> 2 & 3];
        if (kind == 3 && i == 0) kind = 0;
        if (kind == 3) {
            unsigned earlier = (unsigned)(r >> 4) % i;
            kind = kinds[earlier] >> 16 & 3, number = kinds[earlier] & 0xffff;
        }
        if (kind == 0) len = cbor_head(entry, 0, number, width);
        if (kind == 2) len = cbor_head(entry, 1, number, width);
        if (kind == 1) {
            char text[16];
            int text_len = snprintf(text, sizeof text, "k%u", number);
            len = cbor_head(entry, 3, (uint64_t)text_len, 0);
            memcpy(entry + len, text, (size_t)text_len), len += (size_t)text_len;
        }
        entry[len++] = 0xf6; /* null */
        if (37 + 3 + used + len > MAP_DATA_MAX) break;
        kinds[i] = kind << 16 | number;
        memcpy(entries + used, entry, len), used += len;
        count++;
    }
    /* Whether a key repeats among the entries kept (a prefix): each repeat copies an earlier one. */
    for (unsigned i = 1; i < count; i++) {
        uint8_t r = recipe_len ? recipe[i % recipe_len] : 0;
        if ((r & 3) == 3) *repeats = 1;
    }
    memcpy(out, auth_data, 37);
    out[32] |= 0x80; /* ED */
    at = 37 + cbor_head(out + 37, 5, count, 2);
    memcpy(out + at, entries, used);
    return at + used;
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
    int mode = data[0] >= 0xf0 ? 5 : data[0] % 5;
    const uint8_t *rest = data + 1;
    size_t rest_len = size - 1;
    const uint8_t *cd = (const uint8_t *)client, *ad = auth_data, *sig = signature, *key = cose;
    size_t cd_len = client_len, ad_len = sizeof auth_data, sig_len = sizeof signature, key_len = cose_len;
    char *json;
    static uint8_t map_data[MAP_DATA_MAX], map_signature[64];
    int repeats = 0;
    if (mode == 5) {
        uint8_t *message;
        ad_len = extension_map(map_data, rest, rest_len, &repeats);
        ad = map_data;
        message = malloc(ad_len + 32);
        if (!message) abort();
        memcpy(message, ad, ad_len);
        crypto_hash_sha256(message + ad_len, (const uint8_t *)client, client_len);
        crypto_sign_detached(map_signature, NULL, message, ad_len + 32, secret_key);
        free(message);
        sig = map_signature;
    }
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
    }
    if (mode == 5) {
        FUZZ_CHECK((status == MFA_OK) == !repeats, "a map %s a repeated key gave %s", repeats ? "with" : "without",
                   mfa_status_name(status));
        FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_ARGUMENT, "mode 5 gave %s", mfa_status_name(status));
        FUZZ_CHECK(status != MFA_OK || (count == 9 && flags == 0x85), "counter or flags are not the data's");
    } else if (status == MFA_OK && mode <= 2) {
        FUZZ_CHECK(genuine(cd, cd_len, ad, ad_len, sig, sig_len), "accepted a signature libsodium refuses");
        FUZZ_CHECK(ad_len >= 37 && memcmp(ad, auth_data, 32) == 0 && (ad[32] & 1), "rp id hash or UP flag");
        FUZZ_CHECK(count == ((uint32_t)ad[33] << 24 | (uint32_t)ad[34] << 16 | (uint32_t)ad[35] << 8 | ad[36]) &&
                       flags == ad[32],
                   "counter or flags are not the authenticator data's");
    }
    free(json);
    return 0;
}
