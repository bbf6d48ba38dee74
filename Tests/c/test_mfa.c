/*
 * The C ABI, tested from C: RFC vectors, URIs, and every bad input the
 * header names. Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 *
 * usage: test_mfa <path to Tests/vectors/otp_vectors.txt>
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"
#include "test_support.h"

static const unsigned char key20[] = "12345678901234567890";

static int algorithm_named(const char *name) {
    if (strcmp(name, "SHA1") == 0) return MFA_ALG_SHA1;
    if (strcmp(name, "SHA256") == 0) return MFA_ALG_SHA256;
    if (strcmp(name, "SHA512") == 0) return MFA_ALG_SHA512;
    return 0;
}

static void test_vectors(const char *path) {
    FILE *file = fopen(path, "r");
    char line[512];
    int hotp = 0, totp = 0, base32 = 0;
    CHECK(file != NULL);
    if (!file) return;
    while (fgets(line, sizeof line, file)) {
        char kind[16], a[128], b[128], c[32], d[32], e[32];
        char code[MFA_CODE_BUFFER_SIZE];
        int fields = sscanf(line, "%15s %127s %127s %31s %31s %31s", kind, a, b, c, d, e);
        if (fields < 1 || kind[0] == '#') continue;
        if (strcmp(kind, "hotp") == 0 && fields == 6) {
            CHECK_STATUS(mfa_hotp_generate(code, sizeof code, (const unsigned char *)b, strlen(b),
                                           strtoull(c, NULL, 10), atoi(d), algorithm_named(a)), MFA_OK);
            CHECK(strcmp(code, e) == 0);
            hotp++;
        } else if (strcmp(kind, "totp") == 0 && fields == 6) {
            mfa_totp_params params;
            int64_t step = -1;
            long long when = strtoll(c, NULL, 10);
            CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
            params.algorithm = algorithm_named(a);
            params.digits = atoi(d);
            CHECK_STATUS(mfa_totp_generate(code, sizeof code, (const unsigned char *)b, strlen(b), &params, when),
                         MFA_OK);
            CHECK(strcmp(code, e) == 0);
            CHECK_STATUS(mfa_totp_verify(&step, (const unsigned char *)b, strlen(b), &params, when, 0, e), MFA_OK);
            CHECK(step == when / 30);
            totp++;
        } else if (strcmp(kind, "base32") == 0 && fields == 3) {
            const char *plain = strcmp(a, "-") == 0 ? "" : a;
            const char *encoded = strcmp(b, "-") == 0 ? "" : b;
            char *text = NULL;
            unsigned char *bytes = NULL;
            size_t len = 99;
            CHECK_STATUS(mfa_base32_encode(&text, (const unsigned char *)plain, strlen(plain), 0), MFA_OK);
            CHECK(text && strcmp(text, encoded) == 0);
            CHECK_STATUS(mfa_base32_decode(&bytes, &len, encoded), MFA_OK);
            CHECK(bytes != NULL && len == strlen(plain) && memcmp(bytes, plain, len) == 0);
            mfa_free(text);
            mfa_free(bytes);
            base32++;
        }
    }
    fclose(file);
    CHECK(hotp == 10);
    CHECK(totp == 18);
    CHECK(base32 == 7);
}

static void test_window(void) {
    char code[MFA_CODE_BUFFER_SIZE];
    int64_t step = 0;
    const int64_t now = 1700000000;
    for (int offset = -5; offset <= 5; offset++) {
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, NULL, now + offset * 30), MFA_OK);
        CHECK_STATUS(mfa_totp_verify(&step, key20, 20, NULL, now, 5, code), MFA_OK);
        CHECK(step == now / 30 + offset);
    }
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, NULL, now + 6 * 30), MFA_OK);
    CHECK_STATUS(mfa_totp_verify(&step, key20, 20, NULL, now, 5, code), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, now, 10, "12345"), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, now, 10, "12a456"), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, now, 10, ""), MFA_ERR_INVALID_VERIFICATION_CODE);

    uint64_t counter = 0;
    CHECK_STATUS(mfa_hotp_verify(&counter, key20, 20, 3, 4, 6, MFA_ALG_SHA1, "162583"), MFA_OK);
    CHECK(counter == 7);
    CHECK_STATUS(mfa_hotp_verify(&counter, key20, 20, 3, 3, 6, MFA_ALG_SHA1, "162583"),
                 MFA_ERR_INVALID_VERIFICATION_CODE);
}

static void test_bad_otp_input(void) {
    char code[MFA_CODE_BUFFER_SIZE];
    char small[6];
    mfa_totp_params params;
    static char overlong[MFA_STRING_MAX_BYTES + 2];
    memset(overlong, '1', sizeof overlong - 1);

    /* NULL pointers */
    CHECK_STATUS(mfa_hotp_generate(NULL, 16, key20, 20, 0, 6, MFA_ALG_SHA1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, NULL, 20, 0, 6, MFA_ALG_SHA1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate(NULL, 16, key20, 20, NULL, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_verify(NULL, NULL, 20, NULL, 0, 1, "123456"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, 0, 1, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_verify(NULL, key20, 20, 0, 0, 6, MFA_ALG_SHA1, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(NULL, MFA_TOTP_PARAMS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_random_secret(NULL, 20), MFA_ERR_INVALID_ARGUMENT);

    /* wrong lengths */
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, 0, 0, 6, MFA_ALG_SHA1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, MFA_KEY_MAX_BYTES + 1, 0, 6, MFA_ALG_SHA1),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, (size_t)-1, 0, 6, MFA_ALG_SHA1),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(small, sizeof small, key20, 20, 0, 6, MFA_ALG_SHA1), MFA_ERR_BUFFER_TOO_SMALL);
    CHECK_STATUS(mfa_hotp_generate(small, 0, key20, 20, 0, 6, MFA_ALG_SHA1), MFA_ERR_BUFFER_TOO_SMALL);
    {
        unsigned char secret[MFA_SECRET_MAX_BYTES + 1];
        CHECK_STATUS(mfa_random_secret(secret, MFA_SECRET_MIN_BYTES - 1), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_random_secret(secret, MFA_SECRET_MAX_BYTES + 1), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_random_secret(secret, MFA_SECRET_DEFAULT_BYTES), MFA_OK);
    }

    /* digits, algorithm, window, period, version, time */
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, 20, 0, 5, MFA_ALG_SHA1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, 20, 0, 9, MFA_ALG_SHA1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, 20, 0, 6, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_generate(code, sizeof code, key20, 20, 0, 6, 77), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, 0, 11, "123456"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, 0, -1, "123456"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_hotp_verify(NULL, key20, 20, 0, 11, 6, MFA_ALG_SHA1, "123456"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.digits = 5;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, 0), MFA_ERR_INVALID_ARGUMENT);
    params.digits = 9;
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, &params, 0, 1, "123456789"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.period = 0;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, 0), MFA_ERR_INVALID_ARGUMENT);
    params.period = -30;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.version = 99;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.t0 = 1000;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, 999), MFA_ERR_INVALID_ARGUMENT);
    params.t0 = INT64_MIN;
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, &params, INT64_MAX), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, key20, 20, NULL, -1), MFA_ERR_INVALID_ARGUMENT);

    /* overlong and invalid UTF-8 codes */
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, 59, 1, overlong), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_verify(NULL, key20, 20, NULL, 59, 1, "\xff\xfe\xfd\xfc\xfb\xfa"),
                 MFA_ERR_INVALID_ARGUMENT);
}

static void test_bad_base32(void) {
    char *text = (char *)"unchanged";
    unsigned char *bytes = (unsigned char *)"x";
    size_t len = 5;
    static char overlong[MFA_STRING_MAX_BYTES + 2];
    static unsigned char big[MFA_STRING_MAX_BYTES];
    const char *bad_chars[] = {"MZXW6Y1B", "MZXW 6YTB", "mzxw6yt!", "MZXW6YT\xc3\x84"};
    const char *bad_shapes[] = {"M", "MZX", "MZXW6Y", "MY=", "MY=======", "MZXW6YTB="};
    memset(overlong, 'A', sizeof overlong - 1);

    for (size_t i = 0; i < sizeof bad_chars / sizeof *bad_chars; i++) {
        CHECK_STATUS(mfa_base32_decode(&bytes, &len, bad_chars[i]), MFA_ERR_INVALID_BASE32);
        CHECK(bytes == NULL && len == 0);
    }
    for (size_t i = 0; i < sizeof bad_shapes / sizeof *bad_shapes; i++)
        CHECK_STATUS(mfa_base32_decode(&bytes, &len, bad_shapes[i]), MFA_ERR_INVALID_BASE32);
    CHECK_STATUS(mfa_base32_decode(&bytes, &len, "\xff\xfe"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_decode(&bytes, &len, overlong), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_decode(NULL, &len, "MY"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_decode(&bytes, NULL, "MY"), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_decode(&bytes, &len, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_encode(NULL, key20, 20, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_encode(&text, NULL, 20, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK(text == NULL);
    CHECK_STATUS(mfa_base32_encode(&text, key20, 20, 4), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_encode(&text, big, sizeof big, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_base32_encode(&text, NULL, 0, 0), MFA_OK);
    CHECK(text != NULL && text[0] == '\0');
    mfa_free(text);
    CHECK_STATUS(mfa_base32_encode(&text, (const unsigned char *)"f", 1, MFA_BASE32_NO_PADDING), MFA_OK);
    CHECK(text != NULL && strcmp(text, "MY") == 0);
    mfa_free(text);
    CHECK_STATUS(mfa_base32_decode(&bytes, &len, "my"), MFA_OK);
    CHECK(len == 1 && bytes[0] == 'f');
    mfa_free(bytes);
}

static void test_uri(void) {
    const char *names[][2] = {
        {"ACME Co", "alice@example.com"}, {"a:b", "c:d"}, {"R&D", "bob & eve"},
        {"\xc3\x9c" "n" "\xc3\xaf" "c" "\xc3\xb8" "d" "\xc3\xa9", "\xe5\x90\x8d\xe5\x89\x8d@x.jp"}, {NULL, "only:account"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        mfa_key_uri uri;
        mfa_key_uri *parsed = NULL;
        char *text = NULL, *err = (char *)"unchanged";
        CHECK_STATUS(mfa_key_uri_init(&uri, MFA_KEY_URI_VERSION), MFA_OK);
        uri.issuer = names[i][0];
        uri.account = names[i][1];
        uri.secret = key20;
        uri.secret_len = 20;
        uri.algorithm = MFA_ALG_SHA256;
        uri.digits = 8;
        uri.period = 45;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, &err), MFA_OK);
        CHECK(err == NULL);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, text, &err), MFA_OK);
        CHECK(err == NULL);
        if (parsed) {
            CHECK(parsed->version == MFA_KEY_URI_VERSION && parsed->type == MFA_OTP_TOTP);
            CHECK(names[i][0] ? (parsed->issuer && strcmp(parsed->issuer, names[i][0]) == 0) : parsed->issuer == NULL);
            CHECK(strcmp(parsed->account, names[i][1]) == 0);
            CHECK(parsed->secret_len == 20 && memcmp(parsed->secret, key20, 20) == 0);
            CHECK(parsed->algorithm == MFA_ALG_SHA256 && parsed->digits == 8 && parsed->period == 45);
        }
        mfa_key_uri_free(parsed);
        mfa_free(text);
    }
    {
        mfa_key_uri uri;
        char *text = NULL, *err = NULL;
        CHECK_STATUS(mfa_key_uri_init(&uri, MFA_KEY_URI_VERSION), MFA_OK);
        uri.issuer = "ACME Co";
        uri.account = "alice@example.com";
        uri.secret = key20;
        uri.secret_len = 20;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_OK);
        CHECK(text && strcmp(text, "otpauth://totp/ACME%20Co:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                                   "&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30") == 0);
        mfa_free(text);
        uri.digits = 9;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(text == NULL && err != NULL && strstr(err, "digits") != NULL);
        mfa_free(err);
        uri.digits = 6;
        uri.account = "\xff";
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        uri.account = NULL;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        uri.account = "a";
        uri.secret = NULL;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        uri.secret = key20;
        uri.type = 3;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        uri.type = MFA_OTP_TOTP;
        uri.version = 2;
        CHECK_STATUS(mfa_key_uri_build(&text, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_build(&text, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_build(NULL, &uri, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_init(NULL, MFA_KEY_URI_VERSION), MFA_ERR_INVALID_ARGUMENT);
    }
    {
        mfa_key_uri *parsed = (mfa_key_uri *)&failures;
        char *err = NULL;
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/x?secret=MZXW6YTB&digits=5", &err),
                     MFA_ERR_INVALID_URI);
        CHECK(parsed == NULL && err != NULL && strstr(err, "digits") != NULL);
        mfa_free(err);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/x?secret=MZXW6Y1B", &err), MFA_ERR_INVALID_URI);
        CHECK(err != NULL && strstr(err, "MZXW") == NULL);
        mfa_free(err);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "https://example.com", NULL), MFA_ERR_INVALID_URI);
        /* Regression (fuzz_key_uri, fuzz/corpus/key_uri/regress-crash-0e75dd17e77b): a NUL decoded
         * from the label or the issuer parsed, and the account crossed the ABI as an empty string. */
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/%0000gla9?secret=JBSW", NULL), MFA_ERR_INVALID_URI);
        CHECK(parsed == NULL);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/a?secret=MZXW6YTB&issuer=I%00", NULL),
                     MFA_ERR_INVALID_URI);
        CHECK(parsed == NULL);
        /* Numbers are plain decimal digits: a sign is refused. */
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/x?secret=MZXW6YTB&digits=+6", NULL),
                     MFA_ERR_INVALID_URI);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://hotp/x?secret=MZXW6YTB&counter=+42", NULL),
                     MFA_ERR_INVALID_URI);
        CHECK(parsed == NULL);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://totp/\xff?secret=MY", NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_parse(NULL, "otpauth://totp/x?secret=MZXW6YTB", NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_parse(&parsed, "otpauth://hotp/x?secret=MZXW6YTB&counter=42", NULL), MFA_OK);
        CHECK(parsed && parsed->type == MFA_OTP_HOTP && parsed->counter == 42 && parsed->issuer == NULL);
        mfa_key_uri_free(parsed);
    }
}

static void test_library(void) {
    CHECK(mfa_version() == MFA_VERSION_NUMBER);
    CHECK(strcmp(mfa_version_string(), MFA_VERSION_STRING) == 0);
    CHECK(strcmp(mfa_status_name(MFA_OK), "OK") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_SESSION), "INVALID_SESSION") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER), "TOO_MANY_ATTEMPTS_TRY_LATER") == 0);
    CHECK(strcmp(mfa_status_name(12345), "UNKNOWN") == 0);
    CHECK(strcmp(mfa_errstr(12345), "unknown status code") == 0);
    for (int status = MFA_OK; status >= MFA_ERR_INTERNAL; status--) {
        CHECK(strcmp(mfa_status_name(status), "UNKNOWN") != 0);
        CHECK(strlen(mfa_errstr(status)) > 0);
    }
    mfa_free(NULL);
    mfa_key_uri_free(NULL);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s otp_vectors.txt\n", argv[0]);
        return 2;
    }
    test_vectors(argv[1]);
    test_window();
    test_bad_otp_input();
    test_bad_base32();
    test_uri();
    test_library();
    return test_report();
}
