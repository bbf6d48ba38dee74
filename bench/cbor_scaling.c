/*
 * The cost of reading a WebAuthn assertion whose authenticator data carries
 * an extension map of N entries (unique unsigned keys 256, 257, ..., each
 * with a null value), through mfa_webauthn_verify_assertion(): the call
 * that reads the map is `measured_call`, for callgrind's --toggle-collect
 * (bench/cbor_scaling.sh). A first call with a map of one entry runs
 * beforehand, so that one-time set-up is not counted.
 *
 *   cbor_scaling N [dup]
 *
 * With `dup` the last key repeats the first (the answer must then be
 * INVALID_ARGUMENT). Prints the status of the measured call. The signature
 * is not the key's: a map that was read is INVALID_VERIFICATION_CODE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"

/* SHA-256("example.com"). */
static const unsigned char RP_HASH[32] = {0xa3, 0x79, 0xa6, 0xf6, 0xee, 0xaf, 0xb9, 0xa5, 0x5e, 0x37, 0x8c,
                                          0x11, 0x80, 0x34, 0xe2, 0x75, 0x1e, 0x68, 0x2f, 0xab, 0x9f, 0x2d,
                                          0x30, 0xab, 0x13, 0xd2, 0x12, 0x55, 0x86, 0xce, 0x19, 0x47};
#define CHALLENGE "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio"
#define CLIENT_DATA \
    "{\"type\":\"webauthn.get\",\"challenge\":\"" CHALLENGE "\",\"origin\":\"https://example.com\",\"crossOrigin\":false}"

static size_t base64url(char *out, const unsigned char *in, size_t len) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        unsigned long v = (unsigned long)in[i] << 16 | (i + 1 < len ? (unsigned long)in[i + 1] << 8 : 0) |
                          (i + 2 < len ? in[i + 2] : 0);
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[v >> 12 & 63];
        if (i + 1 < len) out[o++] = alphabet[v >> 6 & 63];
        if (i + 2 < len) out[o++] = alphabet[v & 63];
    }
    out[o] = '\0';
    return o;
}

/* The credential JSON of an assertion whose extension map has `n` entries. */
static char *assertion_json(unsigned n, int duplicate) {
    size_t data_len = 37 + 3 + 4 * (size_t)n, at = 37;
    unsigned char *data = malloc(data_len), signature[64] = {0}, id[16] = {0x42};
    char *json = malloc(data_len * 2 + 1024), *data64 = malloc(data_len * 2 + 4), sig64[100], id64[32];
    char client64[sizeof CLIENT_DATA * 2];
    if (!data || !json || !data64) abort();
    memcpy(data, RP_HASH, 32);
    data[32] = 0x85; /* UP, UV, ED */
    data[33] = data[34] = data[35] = 0, data[36] = 1;
    data[at++] = 0xb9, data[at++] = (unsigned char)(n >> 8), data[at++] = (unsigned char)n;
    for (unsigned i = 0; i < n; i++) {
        unsigned key = 256 + (duplicate && i == n - 1 ? 0 : i);
        data[at++] = 0x19, data[at++] = (unsigned char)(key >> 8), data[at++] = (unsigned char)key;
        data[at++] = 0xf6;
    }
    base64url(data64, data, data_len);
    base64url(sig64, signature, sizeof signature);
    base64url(id64, id, sizeof id);
    base64url(client64, (const unsigned char *)CLIENT_DATA, sizeof CLIENT_DATA - 1);
    sprintf(json, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":\"%s\","
                  "\"authenticatorData\":\"%s\",\"signature\":\"%s\"}}",
            id64, id64, client64, data64, sig64);
    free(data);
    free(data64);
    return json;
}

static int verify(const char *json) {
    /* An Ed25519 COSE key (RFC 8032's first test public key: a key the verifier accepts). */
    static const unsigned char key[42] = {0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20, 0xd7, 0x5a,
                                          0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64,
                                          0x07, 0x3a, 0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02,
                                          0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a};
    uint32_t count, flags;
    return mfa_webauthn_verify_assertion(&count, &flags, json, CHALLENGE, "example.com", "https://example.com", 0,
                                         key, sizeof key, NULL);
}

/* The call callgrind counts (--toggle-collect=measured_call). */
__attribute__((noinline)) int measured_call(const char *json);
__attribute__((noinline)) int measured_call(const char *json) { return verify(json); }

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4000;
    char *warm = assertion_json(1, 0), *json;
    if (n < 1 || n > 12000) {
        fprintf(stderr, "usage: cbor_scaling N [dup]   (N from 1 to 12000: the JSON stays under 64 KiB)\n");
        return 64;
    }
    json = assertion_json(n, argc > 2 && strcmp(argv[2], "dup") == 0);
    (void)verify(warm);
    printf("%s\n", mfa_status_name(measured_call(json)));
    free(warm);
    free(json);
    return 0;
}
