/*
 * test_yubikey.h: a YubiKey's Yubico OTP slot in software, for the C tests:
 * its public id, private id and AES-128 key (through nettle), and the OTP it
 * types for given counters (the use counter rises at each power-up and when
 * the session counter wraps; the session counter at each touch).
 */
#ifndef MFA_TEST_YUBIKEY_H
#define MFA_TEST_YUBIKEY_H

#include <nettle/aes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/** Longest OTP written here, NUL included. */
#define YUBIKEY_OTP_MAX 80

typedef struct yubikey {
    char public_id[13];
    uint8_t private_id[6];
    uint8_t key[16];
    uint16_t use;
    uint8_t session;
} yubikey;

static inline void yubikey_modhex(char *out, const uint8_t *bytes, size_t count) {
    static const char alphabet[] = "cbdefghijklnrtuv";
    for (size_t i = 0; i < count; i++) {
        out[2 * i] = alphabet[bytes[i] >> 4];
        out[2 * i + 1] = alphabet[bytes[i] & 15];
    }
    out[2 * count] = '\0';
}

/* A key of its own for `seed` (any number; the same seed gives the same key). */
static inline void yubikey_make(yubikey *k, uint32_t seed) {
    uint8_t id[6];
    uint32_t x = seed * 2654435761u + 0x9e3779b9u;
    for (size_t i = 0; i < 6; i++) {
        x = x * 1103515245u + 12345u;
        id[i] = (uint8_t)(x >> 16);
        x = x * 1103515245u + 12345u;
        k->private_id[i] = (uint8_t)(x >> 16);
    }
    for (size_t i = 0; i < 16; i++) {
        x = x * 1103515245u + 12345u;
        k->key[i] = (uint8_t)(x >> 16);
    }
    yubikey_modhex(k->public_id, id, 6);
    k->use = 1;
    k->session = 0;
}

static inline uint16_t yubikey_crc16(const uint8_t *bytes, size_t count) {
    uint16_t crc = 0xffff;
    for (size_t i = 0; i < count; i++) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0x8408) : (uint16_t)(crc >> 1);
    }
    return crc;
}

/* The OTP of these counters (with `key`, or the key's own when NULL). */
static inline void yubikey_otp(char out[YUBIKEY_OTP_MAX], const yubikey *k, uint16_t use, uint8_t session,
                               const uint8_t *key) {
    uint8_t block[16], sealed[16];
    struct aes128_ctx aes;
    uint16_t crc;
    memcpy(block, k->private_id, 6);
    block[6] = (uint8_t)(use & 0xff);
    block[7] = (uint8_t)(use >> 8);
    block[8] = 0x12;
    block[9] = 0x34;
    block[10] = 0x00;
    block[11] = session;
    block[12] = 0xab;
    block[13] = 0xcd;
    crc = (uint16_t)~yubikey_crc16(block, 14);
    block[14] = (uint8_t)(crc & 0xff);
    block[15] = (uint8_t)(crc >> 8);
    nettle_aes128_set_encrypt_key(&aes, key ? key : k->key);
    nettle_aes128_encrypt(&aes, 16, sealed, block);
    snprintf(out, YUBIKEY_OTP_MAX, "%s", k->public_id);
    yubikey_modhex(out + strlen(out), sealed, 16);
}

/* A touch: the OTP typed now, then the counters move on. */
static inline void yubikey_touch(char out[YUBIKEY_OTP_MAX], yubikey *k) {
    yubikey_otp(out, k, k->use, k->session, NULL);
    if (k->session == 0xff) {
        k->session = 0;
        k->use++;
    } else {
        k->session++;
    }
}

#endif
