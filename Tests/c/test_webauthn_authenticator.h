/*
 * A software WebAuthn authenticator for the C tests: an Ed25519 key
 * (libsodium) and a credential id, answering the options libmfa makes as a
 * browser and an authenticator would together, for rp id example.com and
 * origin https://example.com: a `none` registration, or an assertion (its
 * signature corrupted on request). A key marked `passkey` answers as a
 * passkey provider: its registration reports credProps (rk true) and keeps
 * the user handle, which its assertions return. Programs that include it
 * link libsodium.
 */
#ifndef TEST_WEBAUTHN_AUTHENTICATOR_H
#define TEST_WEBAUTHN_AUTHENTICATOR_H

#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* One credential on the authenticator. */
typedef struct webauthn_key {
    uint8_t id[16];
    uint8_t public_key[32];
    uint8_t secret_key[64];
    uint32_t count; /* the signature counter */
    int passkey;    /* a discoverable credential: credProps at registration, the user handle in assertions */
    char handle[96]; /* the user handle (base64url) of its registration's options, or "" */
} webauthn_key;

/* A new credential: a random id and key pair (or from `seed`, 32 bytes, if not NULL). */
static inline void webauthn_key_new(webauthn_key *k, const uint8_t *seed) {
    if (sodium_init() < 0) abort();
    memset(k, 0, sizeof *k);
    randombytes_buf(k->id, sizeof k->id);
    if (seed) crypto_sign_seed_keypair(k->public_key, k->secret_key, seed);
    else crypto_sign_keypair(k->public_key, k->secret_key);
}

static inline void webauthn_b64url(char *out, const uint8_t *in, size_t len) {
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

/* The challenge of options JSON into `out` (1024 bytes); 0 if there is none. */
static inline int webauthn_challenge(char out[1024], const char *options) {
    const char *at = options ? strstr(options, "\"challenge\":\"") : NULL, *end;
    if (!at) return 0;
    at += 13;
    end = strchr(at, '"');
    if (!end || end - at >= 1024) return 0;
    snprintf(out, 1024, "%.*s", (int)(end - at), at);
    return 1;
}

/* Authenticator data for example.com with UP and UV, the counter and (attested) the credential. */
static inline size_t webauthn_auth_data(uint8_t *out, const webauthn_key *k, int attested) {
    static const uint8_t cose[] = {0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20};
    size_t at = 37;
    crypto_hash_sha256(out, (const uint8_t *)"example.com", 11);
    out[32] = attested ? 0x45 : 0x05;
    out[33] = (uint8_t)(k->count >> 24), out[34] = (uint8_t)(k->count >> 16);
    out[35] = (uint8_t)(k->count >> 8), out[36] = (uint8_t)k->count;
    if (attested) {
        memset(out + at, 0x11, 16), at += 16;
        out[at++] = 0, out[at++] = sizeof k->id;
        memcpy(out + at, k->id, sizeof k->id), at += sizeof k->id;
        memcpy(out + at, cose, sizeof cose), at += sizeof cose;
        memcpy(out + at, k->public_key, 32), at += 32;
    }
    return at;
}

/* The credential JSON (toJSON()) answering registration `options` with a `none` attestation; 0 on bad options. */
static inline int webauthn_register(char *json, size_t size, webauthn_key *k, const char *options) {
    static const uint8_t head[] = {0xa3, 0x63, 'f', 'm', 't', 0x64, 'n', 'o', 'n', 'e', 0x67, 'a', 't', 't', 'S',
                                   't', 'm', 't', 0xa0, 0x68, 'a', 'u', 't', 'h', 'D', 'a', 't', 'a', 0x58};
    char challenge[1024], client[1200], id[32], cd64[1700], ao64[300];
    uint8_t object[200], data[120];
    size_t data_len, client_len;
    if (!webauthn_challenge(challenge, options)) return 0;
    if (k->passkey) {
        static const char key[] = "\"user\":{\"id\":\"";
        const char *user = strstr(options, key);
        const char *start = user ? user + sizeof key - 1 : NULL;
        const char *end = start ? strchr(start, '"') : NULL;
        if (!end || end - start >= (long)sizeof k->handle) return 0;
        snprintf(k->handle, sizeof k->handle, "%.*s", (int)(end - start), start);
    }
    client_len = (size_t)snprintf(client, sizeof client,
                                  "{\"type\":\"webauthn.create\",\"challenge\":\"%s\",\"origin\":\"https://example.com\"}",
                                  challenge);
    data_len = webauthn_auth_data(data, k, 1);
    memcpy(object, head, sizeof head);
    object[sizeof head] = (uint8_t)data_len;
    memcpy(object + sizeof head + 1, data, data_len);
    webauthn_b64url(id, k->id, sizeof k->id);
    webauthn_b64url(cd64, (const uint8_t *)client, client_len);
    webauthn_b64url(ao64, object, sizeof head + 1 + data_len);
    snprintf(json, size, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"clientExtensionResults\":%s,"
             "\"response\":{\"clientDataJSON\":\"%s\",\"attestationObject\":\"%s\",\"transports\":[\"usb\",\"nfc\"]}}",
             id, id, k->passkey ? "{\"credProps\":{\"rk\":true}}" : "{}", cd64, ao64);
    return 1;
}

/* The credential JSON answering authentication `options` (the counter goes up first; the
 * signature is corrupted if `corrupt`); 0 on bad options. */
static inline int webauthn_assert(char *json, size_t size, webauthn_key *k, const char *options, int corrupt) {
    char challenge[1024], client[1200], id[32], cd64[1700], ad64[64], sig64[100];
    uint8_t data[37], message[37 + 32], signature[64];
    size_t client_len;
    if (!webauthn_challenge(challenge, options)) return 0;
    client_len = (size_t)snprintf(client, sizeof client,
                                  "{\"type\":\"webauthn.get\",\"challenge\":\"%s\",\"origin\":\"https://example.com\"}",
                                  challenge);
    k->count++;
    webauthn_auth_data(data, k, 0);
    memcpy(message, data, 37);
    crypto_hash_sha256(message + 37, (const uint8_t *)client, client_len);
    crypto_sign_detached(signature, NULL, message, sizeof message, k->secret_key);
    if (corrupt) signature[7] ^= 0x40;
    webauthn_b64url(id, k->id, sizeof k->id);
    webauthn_b64url(cd64, (const uint8_t *)client, client_len);
    webauthn_b64url(ad64, data, sizeof data);
    webauthn_b64url(sig64, signature, sizeof signature);
    snprintf(json, size, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":"
             "\"%s\",\"authenticatorData\":\"%s\",\"signature\":\"%s\",\"userHandle\":%s%s%s}}", id, id, cd64, ad64,
             sig64, k->handle[0] ? "\"" : "", k->handle[0] ? k->handle : "null", k->handle[0] ? "\"" : "");
    return 1;
}

#endif
