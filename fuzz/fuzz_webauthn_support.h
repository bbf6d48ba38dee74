/*
 * What the WebAuthn fuzz targets share: the fixed relying party (example.com),
 * challenge and credential id, base64url, and the JSON of a credential built
 * from its parts, as a browser's toJSON() writes it.
 */
#ifndef FUZZ_WEBAUTHN_SUPPORT_H
#define FUZZ_WEBAUTHN_SUPPORT_H

#include "fuzz_support.h"

/* The challenge every case answers (base64url of 32 bytes 0x2a). */
#define FW_CHALLENGE "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio"
/* clientDataJSON with its type as %s. */
#define FW_CLIENT_DATA \
    "{\"type\":\"%s\",\"challenge\":\"" FW_CHALLENGE "\",\"origin\":\"https://example.com\",\"crossOrigin\":false}"

static const uint8_t FW_CREDENTIAL_ID[16] = {0x66, 0x75, 0x7a, 0x7a, 0x2d, 0x63, 0x72, 0x65,
                                             0x64, 0x65, 0x6e, 0x74, 0x69, 0x61, 0x6c, 0x21}; /* "fuzz-credential!" */
/* SHA-256("example.com"). */
static const uint8_t FW_RP_HASH[32] = {0xa3, 0x79, 0xa6, 0xf6, 0xee, 0xaf, 0xb9, 0xa5, 0x5e, 0x37, 0x8c,
                                       0x11, 0x80, 0x34, 0xe2, 0x75, 0x1e, 0x68, 0x2f, 0xab, 0x9f, 0x2d,
                                       0x30, 0xab, 0x13, 0xd2, 0x12, 0x55, 0x86, 0xce, 0x19, 0x47};
/* An Ed25519 public key (RFC 8032's first test key): a point of the main subgroup, as a
 * registration needs (a key of small order, or bytes that are no point, is refused). */
static const uint8_t FW_KEY_X[32] = {0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe,
                                     0xd3, 0xc9, 0x64, 0x07, 0x3a, 0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6,
                                     0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a};

/* Whether `name` of `status` is a word of `allowed`. */
static inline int fw_status_in(int status, const char *allowed) {
    const char *name = mfa_status_name(status);
    size_t len = strlen(name);
    for (const char *at = strstr(allowed, name); at; at = strstr(at + 1, name)) {
        if ((at == allowed || at[-1] == ' ') && (at[len] == ' ' || at[len] == '\0')) return 1;
    }
    return 0;
}

/* Unpadded base64url of `len` bytes into `out` (4 * len / 3 + 4 bytes); returns the characters written. */
static inline size_t fw_base64url(char *out, const uint8_t *in, size_t len) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18], out[o++] = alphabet[v >> 12 & 63];
        out[o++] = alphabet[v >> 6 & 63], out[o++] = alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = alphabet[v >> 18], out[o++] = alphabet[v >> 12 & 63];
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = alphabet[v >> 18], out[o++] = alphabet[v >> 12 & 63], out[o++] = alphabet[v >> 6 & 63];
    }
    out[o] = '\0';
    return o;
}

/* A new string: "<name>":"<base64url of the bytes>". */
static inline char *fw_field(const char *name, const uint8_t *bytes, size_t len) {
    char *out = malloc(strlen(name) + len / 3 * 4 + 16);
    if (!out) abort();
    size_t at = (size_t)sprintf(out, "\"%s\":\"", name);
    at += fw_base64url(out + at, bytes, len);
    strcpy(out + at, "\"");
    return out;
}

static inline char *fw_join(const char *format, const char *a, const char *b, const char *c, const char *d,
                            const char *e) {
    size_t len = strlen(format) + strlen(a) + strlen(b) + strlen(c) + strlen(d) + strlen(e) + 1;
    char *out = malloc(len);
    if (!out) abort();
    snprintf(out, len, format, a, b, c, d, e);
    return out;
}

/* The JSON of a registration credential. */
static inline char *fw_registration_json(const uint8_t *id, size_t id_len, const uint8_t *client, size_t client_len,
                                         const uint8_t *object, size_t object_len) {
    char *ids = fw_field("id", id, id_len), *raw = fw_field("rawId", id, id_len);
    char *cd = fw_field("clientDataJSON", client, client_len), *ao = fw_field("attestationObject", object, object_len);
    char *json = fw_join("{%s,%s,\"type\":\"public-key\",\"response\":{%s,%s,\"transports\":[\"usb\"]}%s}", ids, raw,
                         cd, ao, ",\"clientExtensionResults\":{}");
    free(ids), free(raw), free(cd), free(ao);
    return json;
}

/* The JSON of an assertion credential. */
static inline char *fw_assertion_json(const uint8_t *id, size_t id_len, const uint8_t *client, size_t client_len,
                                      const uint8_t *auth, size_t auth_len, const uint8_t *sig, size_t sig_len) {
    char *raw = fw_field("rawId", id, id_len), *cd = fw_field("clientDataJSON", client, client_len);
    char *ad = fw_field("authenticatorData", auth, auth_len), *sg = fw_field("signature", sig, sig_len);
    char *json = fw_join("{%s,\"type\":\"public-key\",\"response\":{%s,%s,%s}%s}", raw, cd, ad, sg, "");
    free(raw), free(cd), free(ad), free(sg);
    return json;
}

/* The COSE_Key of an Ed25519 public key into `out` (42 bytes). */
static inline size_t fw_cose_ed25519(uint8_t *out, const uint8_t x[32]) {
    static const uint8_t head[] = {0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20};
    memcpy(out, head, sizeof head);
    memcpy(out + sizeof head, x, 32);
    return sizeof head + 32;
}

/* A `none` attestation object for FW_CREDENTIAL_ID and the Ed25519 key `x`, into `out` (256 bytes). */
static inline size_t fw_none_attestation(uint8_t *out, const uint8_t x[32]) {
    static const uint8_t head[] = {0xa3, 0x63, 'f', 'm', 't', 0x64, 'n', 'o', 'n', 'e', 0x67, 'a', 't', 't',
                                   'S', 't', 'm', 't', 0xa0, 0x68, 'a', 'u', 't', 'h', 'D', 'a', 't', 'a', 0x58};
    size_t at = sizeof head, auth_len = 37 + 18 + sizeof FW_CREDENTIAL_ID + 42;
    memcpy(out, head, sizeof head);
    out[at++] = (uint8_t)auth_len;
    memcpy(out + at, FW_RP_HASH, 32), at += 32;
    out[at++] = 0x41; /* UP, AT */
    memset(out + at, 0, 4 + 16), at += 4 + 16;
    out[at++] = 0, out[at++] = sizeof FW_CREDENTIAL_ID;
    memcpy(out + at, FW_CREDENTIAL_ID, sizeof FW_CREDENTIAL_ID), at += sizeof FW_CREDENTIAL_ID;
    at += fw_cose_ed25519(out + at, x);
    return at;
}

#endif
