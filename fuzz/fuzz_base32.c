/*
 * Base32 (mfa_base32_decode, mfa_base32_encode): the text of TOTP secrets,
 * typed by users and read from QR codes.
 *
 * The input is used twice:
 *  - as text to decode. Whatever decodes must encode back to the same text,
 *    upper-cased, padded as it was, up to the unused low bits of the last
 *    character (RFC 4648 lets a decoder ignore them, and real secrets of 26
 *    or 103 characters carry random ones). Only base32 text decodes.
 *  - as bytes to encode, padded and unpadded: the text is exactly the
 *    alphabet (and '=' to a multiple of 8), and decodes, in either case, to
 *    the same bytes.
 */
#include "fuzz_support.h"

#include <ctype.h>

static int alphabet_value(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= '2' && c <= '7') return c - '2' + 26;
    return -1;
}

/* Text decoded to `len` bytes: its encoding must give it back. */
static void check_round_trip(const char *text, const uint8_t *bytes, size_t len) {
    size_t text_len = strlen(text), data_len = text_len, i, unused;
    char *encoded = NULL;
    int padded = text_len > 0 && text[text_len - 1] == '=';
    FUZZ_CHECK(mfa_base32_encode(&encoded, bytes, len, padded ? 0 : MFA_BASE32_NO_PADDING) == MFA_OK,
               "encoding %zu decoded bytes failed", len);
    FUZZ_CHECK(strlen(encoded) == text_len, "\"%s\" decoded and encoded again is \"%s\"", text, encoded);
    while (data_len > 0 && text[data_len - 1] == '=') data_len--;
    for (i = 0; i < text_len; i++) {
        int want = toupper((unsigned char)text[i]);
        if (i + 1 == data_len) {
            /* The last character also holds the unused bits: 5 * data_len - 8 * len of them. */
            unused = 5 * data_len - 8 * len;
            FUZZ_CHECK(unused < 5, "\"%s\": %zu characters for %zu bytes", text, data_len, len);
            want = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[alphabet_value(want) >> unused << unused];
        }
        FUZZ_CHECK(encoded[i] == want, "\"%s\" decoded and encoded again is \"%s\" (at %zu)", text, encoded, i);
    }
    mfa_free(encoded);
}

/* Bytes encoded (with `flags`): well-formed text that decodes, in either case, to them. */
static void check_encoding(const uint8_t *data, size_t size, int32_t flags) {
    char *text = NULL;
    uint8_t *back = NULL;
    size_t back_len = 0, text_len, i;
    FUZZ_CHECK(mfa_base32_encode(&text, data, size, flags) == MFA_OK, "encoding %zu bytes failed", size);
    text_len = strlen(text);
    FUZZ_CHECK(text_len == (flags ? (size * 8 + 4) / 5 : (size + 4) / 5 * 8), "%zu bytes gave %zu characters",
               size, text_len);
    for (i = 0; i < text_len; i++) {
        FUZZ_CHECK((text[i] >= 'A' && text[i] <= 'Z') || (text[i] >= '2' && text[i] <= '7') ||
                       (text[i] == '=' && !flags),
                   "character %zu of the encoding is '%c'", i, text[i]);
    }
    for (int lower = 0; lower < 2; lower++) {
        if (lower) {
            for (i = 0; i < text_len; i++) text[i] = (char)tolower((unsigned char)text[i]);
        }
        FUZZ_CHECK(mfa_base32_decode(&back, &back_len, text) == MFA_OK, "decoding \"%s\" failed", text);
        FUZZ_CHECK(back_len == size && (size == 0 || memcmp(back, data, size) == 0),
                   "\"%s\" decodes to other bytes", text);
        mfa_free(back);
        back = NULL;
    }
    mfa_free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_string(data, size);
    uint8_t *bytes = NULL;
    size_t len = 12345;
    int status = mfa_base32_decode(&bytes, &len, text);
    FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_BASE32 || status == MFA_ERR_INVALID_ARGUMENT,
               "mfa_base32_decode gave %s", mfa_status_name(status));
    if (status == MFA_OK) {
        FUZZ_CHECK(bytes != NULL, "MFA_OK with no bytes");
        check_round_trip(text, bytes, len);
    } else {
        FUZZ_CHECK(bytes == NULL, "%s with bytes", mfa_status_name(status));
    }
    mfa_free(bytes);
    free(text);

    if (size <= MFA_STRING_MAX_BYTES / 2) {
        check_encoding(data, size, 0);
        check_encoding(data, size, MFA_BASE32_NO_PADDING);
    }
    return 0;
}
