/*
 * Nothing secret at rest: the SQLite file and its WAL, read while the
 * context is open and after it is closed (scan_store of test_support.h).
 *
 *   TOTP            no secret, enrolled or pending, as base32 text, as bytes, or
 *                   half of it
 *   recovery codes  no code, with or without its dashes
 *   phone           no number (nor 7 digits of it) and no SMS code, from
 *                   enrollments, sign-ins, pending codes and failed sends
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

typedef struct at_rest {
    char keys[8][128];
    uint8_t *raw[8];
    size_t raw_len[8];
    size_t n;
    char codes[2 * RECOVERY_MAX][16]; /* recovery codes */
    size_t code_count;
} at_rest;

static void look_for_secrets(const uint8_t *data, size_t len, const char *file, int pass, void *context) {
    const at_rest *r = context;
    for (size_t i = 0; i < r->n; i++) {
        int text = memfind(data, len, r->keys[i], strlen(r->keys[i]));
        int bytes = r->raw[i] && memfind(data, len, r->raw[i], r->raw_len[i]);
        int half = r->raw[i] && memfind(data, len, r->raw[i], 10);
        if (text || bytes || half) {
            fprintf(stderr, "secret %zu found in %s (pass %d): text %d bytes %d\n", i, file, pass, text, bytes);
        }
        CHECK(!text);
        CHECK(!bytes);
        CHECK(!half);
    }
    for (size_t i = 0; i < r->code_count; i++) {
        char bare[16];
        size_t k = 0;
        int with_dashes = memfind(data, len, r->codes[i], strlen(r->codes[i]));
        int without = 0;
        for (const char *c = r->codes[i]; *c && k + 1 < sizeof bare; c++) {
            if (*c != '-') bare[k++] = *c;
        }
        bare[k] = '\0';
        without = memfind(data, len, bare, k);
        if (with_dashes || without) fprintf(stderr, "recovery code %zu found in %s (pass %d)\n", i, file, pass);
        CHECK(!with_dashes);
        CHECK(!without);
    }
}

static void test_totp_and_codes_at_rest(void) {
    char path[512];
    mfa_options options;
    mfa_ctx *ctx;
    at_rest r;

    r.n = 0;
    r.code_count = 0;
    snprintf(path, sizeof path, "%s/at-rest.db", temp_dir);
    test_remove_sqlite(path);

    test_options(&options, path, &g_now);
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"recovery\":\"ENABLED\"}}");
    set_config(ctx, "tenant-rest", "{}");
    for (int i = 0; i < 4; i++) {
        mfa_user user;
        factor f;
        char uid[32];
        snprintf(uid, sizeof uid, "at-rest-user-%d", i);
        user_make(&user, uid, i % 2 ? "tenant-rest" : NULL);
        ENROLL_OK(ctx, &user, "at rest", &f);
        snprintf(r.keys[r.n++], 128, "%s", f.key);
        g_now += 30;
        SIGN_IN_OK(ctx, &user, &f);
    }
    /* Recovery codes, two sets (the first replaced by the second). */
    for (int i = 0; i < 2; i++) {
        mfa_user user;
        factor set;
        user_make(&user, "at-rest-user-1", NULL);
        CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
        for (size_t c = 0; c < set.code_count; c++) snprintf(r.codes[r.code_count++], 16, "%s", set.codes[c]);
    }
    CHECK(r.code_count == 20);
    /* Pending secrets (generated, never enrolled) are secrets too. */
    for (int i = 0; i < 2; i++) {
        mfa_user user;
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        user_make(&user, "at-rest-pending", NULL);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (secret) snprintf(r.keys[r.n++], 128, "%s", secret->shared_secret_key);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    for (size_t i = 0; i < r.n; i++) {
        r.raw[i] = NULL;
        r.raw_len[i] = 0;
        CHECK_STATUS(mfa_base32_decode(&r.raw[i], &r.raw_len[i], r.keys[i]), MFA_OK);
        CHECK(r.raw_len[i] == 20);
    }
    /* The user ids are stored in the clear. */
    scan_store(ctx, path, "at-rest-user-3", look_for_secrets, &r);
    for (size_t i = 0; i < r.n; i++) mfa_free(r.raw[i]);
    test_remove_sqlite(path);
}

/* ------------------------------------------------------------------ */
/* At rest                                                              */
/* ------------------------------------------------------------------ */

/* What must not be found at rest: the numbers (nor their digits) and the codes sent. */
typedef struct phone_at_rest {
    const char *numbers[8];
    int number_count;
    char codes[16][MFA_CODE_BUFFER_SIZE];
    int code_count;
} phone_at_rest;

static void look_for_numbers_and_codes(const uint8_t *data, size_t len, const char *file, int pass, void *context) {
    const phone_at_rest *r = context;
    /* Every number: in full, its digits, and any 7 consecutive digits of it. */
    for (int i = 0; i < r->number_count; i++) {
        const char *number = r->numbers[i];
        const char *digits = number + 1;
        size_t nd = strlen(digits);
        int leaked = memfind(data, len, number, strlen(number));
        for (size_t at = 0; at + 7 <= nd; at++) leaked |= memfind(data, len, digits + at, 7);
        if (leaked) fprintf(stderr, "%s found in %s (pass %d)\n", number, file, pass);
        CHECK(!leaked);
    }
    for (int i = 0; i < r->code_count; i++) {
        int leaked = memfind(data, len, r->codes[i], 6);
        if (leaked) fprintf(stderr, "SMS code %s found in %s (pass %d)\n", r->codes[i], file, pass);
        CHECK(!leaked);
    }
    CHECK(!memfind(data, len, SMS_SUFFIX, strlen(SMS_SUFFIX)));
}

static void test_phone_at_rest(void) {
    static const char *numbers[] = {"+15105550901", "+447911123457", "+6831239"};
    enum { NN = sizeof numbers / sizeof numbers[0] };
    char path[512];
    phone_at_rest r;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user users[NN];
    char eids[NN][64], uids[NN][32];
    char vid[TOKEN_MAX], cred[TOKEN_MAX];

    r.code_count = 0;
    r.number_count = 0;
    for (int i = 0; i < NN; i++) r.numbers[r.number_count++] = numbers[i];
    r.numbers[r.number_count++] = "+15105550902";
    r.numbers[r.number_count++] = "+15105550903";
    reset_recorders();
    snprintf(path, sizeof path, "%s/at-rest.db", temp_dir);
    test_remove_sqlite(path);
    fixture_options(&options, path);
    ctx = open_with(&options);
    set_config(ctx, NULL, PHONE_ON);
    set_config(ctx, "tenant-rest", "{}");
    for (int i = 0; i < NN; i++) {
        snprintf(uids[i], sizeof uids[i], "at-rest-user-%d", i);
        user_make(&users[i], uids[i], i == 1 ? "tenant-rest" : NULL);
        ENROLL_PHONE_OK(ctx, &users[i], numbers[i], NULL, eids[i]);
        if (sms_code(numbers[i], r.codes[r.code_count])) r.code_count++;
    }
    g_now += 31;
    /* A finished sign-in, a pending sign-in code, a pending enrollment code, a failed send. */
    CHECK_STATUS(sign_in_phone(ctx, &users[0], eids[0], numbers[0]), MFA_OK);
    if (sms_code(numbers[0], r.codes[r.code_count])) r.code_count++;
    SIGN_IN_REQUIRED(ctx, &users[1], cred);
    CHECK_STATUS(start_sign_in(ctx, cred, "tenant-rest", eids[1], GOOD_CRED, vid), MFA_OK);
    if (sms_code(numbers[1], r.codes[r.code_count])) r.code_count++;
    CHECK_STATUS(start_enroll(ctx, &users[2], "+15105550902", GOOD_CRED, vid), MFA_OK);
    if (sms_code("+15105550902", r.codes[r.code_count])) r.code_count++;
    g_sms.fail = 1;
    CHECK_STATUS(start_enroll(ctx, &users[2], "+15105550903", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    g_sms.fail = 0;
    CHECK(r.code_count == NN + 3);
    /* The user ids are stored in the clear. */
    scan_store(ctx, path, "at-rest-user-2", look_for_numbers_and_codes, &r);
    test_remove_sqlite(path);
}

int main(void) {
    make_temp_dir("libmfa-at-rest");
    test_totp_and_codes_at_rest();
    test_phone_at_rest();
    remove_temp_dir();
    return engine_report();
}
