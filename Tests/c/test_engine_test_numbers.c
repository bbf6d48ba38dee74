/*
 * Test phone numbers and the development outbox through the C ABI.
 *
 *   test numbers    beyond every cap and the cooldown, never reaching the
 *                   sender (even while it is down, or when there is none);
 *                   only the fixed code enrolls and signs in
 *   outbox          sms_outbox: one JSON line per SMS, exactly as documented,
 *                   readable by its owner only; sender and outbox together are
 *                   INVALID_ARGUMENT; an outbox that cannot be written is
 *                   SMS_SEND_FAILED
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_test_numbers(void) {
    mfa_ctx *ctx;
    mfa_options options;
    mfa_user user, other;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], eid2[64];
    unsigned long calls;

    reset_recorders();
    note_code("123456");
    note_code("654321");
    note_number("+15555550100");
    note_number("+15555550101");
    /* Every cap at 1: one real SMS uses them all up. */
    ctx = open_engine("{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                     "\"testPhoneNumbers\":{\"+15555550100\":\"123456\",\"+15555550101\":\"654321\"},"
                     "\"limits\":{\"smsPerNumberHour\":1,\"smsPerNumberDay\":1,\"smsPerUserHour\":1,"
                     "\"smsPerUserDay\":1,\"smsPerTenantHour\":1,\"smsPerTenantDay\":1}}");
    user_make(&user, "test-number-user", NULL);
    user_make(&other, "test-number-other", NULL);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550801", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &other, "+15105550802", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550801", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    calls = g_sms.calls;
    CHECK(calls == 1);

    /* Test numbers: beyond every cap and the cooldown, never reaching the sender. */
    for (int i = 0; i < 25; i++) {
        CHECK_STATUS(start_enroll(ctx, i % 2 ? &user : &other, "+15555550100", GOOD_CRED, vid), MFA_OK);
    }
    CHECK(g_sms.calls == calls);
    /* Even while the gateway is down. */
    g_sms.fail = 1;
    CHECK_STATUS(start_enroll(ctx, &user, "+15555550100", GOOD_CRED, vid), MFA_OK);
    CHECK(g_sms.calls == calls);
    g_sms.fail = 0;
    /* Only the fixed code enrolls them. */
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "654321", NULL, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "123456", "test", "+15555550100", eid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &other, "+15555550101", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &other, vid, "654321", NULL, "+15555550101", eid2), MFA_OK);
    /* The real caps are still used up. */
    CHECK_STATUS(start_enroll(ctx, &other, "+15105550803", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);

    /* Sign in: as often as wanted, with the fixed code, nothing sent. */
    for (int round = 0; round < 5; round++) {
        SIGN_IN_REQUIRED(ctx, &user, cred);
        for (int i = 0; i < 4; i++) CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, "654321"), MFA_ERR_INVALID_VERIFICATION_CODE);
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, "123456"), MFA_OK);
    }
    CHECK(g_sms.calls == calls);
    {
        mfa_resolver *resolver = NULL;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &other, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].phone_number &&
              strcmp(resolver->hints[0].phone_number, "+1******0101") == 0);
        mfa_resolver_free(resolver);
    }
    mfa_close(ctx);

    /* A test number needs no sender at all. */
    reset_recorders();
    fixture_options(&options, ":memory:");
    options.sms_sender = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    CHECK_STATUS(start_enroll(ctx, &user, "+15555550100", GOOD_CRED, vid), MFA_OK);
    CHECK_STATUS(finish_enroll(ctx, &user, vid, "123456", NULL, "+15555550100", eid), MFA_OK);
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550804", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
    mfa_close(ctx);
}

/* ------------------------------------------------------------------ */
/* The file outbox                                                      */
/* ------------------------------------------------------------------ */

/* Line `index` (0-based) of `text`, without its newline, into `out`. */
static int nth_line(const char *text, int index, char *out, size_t size) {
    const char *start = text;
    for (int i = 0; i < index; i++) {
        start = strchr(start, '\n');
        if (!start) return 0;
        start++;
    }
    const char *end = strchr(start, '\n');
    if (!end) return 0;
    if ((size_t)(end - start) >= size) return 0;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    return 1;
}

static int count_lines(const char *text) {
    int n = 0;
    for (const char *p = text; p && *p; p++) n += *p == '\n';
    return n;
}

/* Checks that `line` is exactly {"time":<when>,"to":"<to>","message":"<code> is your verification code."}
 * and extracts the code. */
static int outbox_line_at(const char *line, int64_t when, const char *to, char code[MFA_CODE_BUFFER_SIZE], int at) {
    const char *m = strstr(line, "\"message\":\"");
    char want[256];
    code[0] = '\0';
    if (!m || strlen(m) < 11 + 6) {
        fprintf(stderr, "%s:%d: outbox line without a message: %s\n", __FILE__, at, line);
        CHECK_AT(0, at);
        return 0;
    }
    memcpy(code, m + 11, 6);
    code[6] = '\0';
    snprintf(want, sizeof want, "{\"time\":%lld,\"to\":\"%s\",\"message\":\"%s" SMS_SUFFIX "\"}", (long long)when, to,
             code);
    if (strcmp(line, want) != 0) {
        fprintf(stderr, "%s:%d: outbox line\n  %s\nwant\n  %s\n", __FILE__, at, line, want);
        CHECK_AT(!"the outbox line is as documented", at);
        return 0;
    }
    for (int i = 0; i < 6; i++) CHECK_AT(code[i] >= '0' && code[i] <= '9', at);
    return 1;
}

static void test_outbox(void) {
    char path[512], line[512], code[MFA_CODE_BUFFER_SIZE];
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64];
    mfa_options options;
    mfa_ctx *ctx = NULL;
    mfa_user user;
    uint8_t *data;
    size_t len;
    char *err = NULL;
    int64_t t_enroll, t_sign_in;
    struct stat st;

    reset_recorders();
    snprintf(path, sizeof path, "%s/outbox.jsonl", temp_dir);
    unlink(path);

    /* sms_sender and sms_outbox together: INVALID_ARGUMENT. */
    fixture_options(&options, ":memory:");
    options.sms_outbox = path;
    CHECK_ERR(mfa_open(&ctx, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK(ctx == NULL);
    mfa_close(ctx);

    /* The outbox alone. */
    options.sms_sender = NULL;
    options.sms_sender_context = NULL;
    ctx = open_with(&options);
    set_config(ctx, NULL, PHONE_ON);
    user_make(&user, "outbox-user", NULL);
    t_enroll = g_now;
    CHECK_STATUS(start_enroll(ctx, &user, "+15105559001", GOOD_CRED, vid), MFA_OK);
    data = test_read_file(path, &len);
    CHECK(data != NULL);
    CHECK(data && count_lines((char *)data) == 1 && data[len - 1] == '\n');
    if (data && nth_line((char *)data, 0, line, sizeof line) &&
        outbox_line_at(line, t_enroll, "+15105559001", code, __LINE__)) {
        CHECK_STATUS(finish_enroll(ctx, &user, vid, code, NULL, "+15105559001", eid), MFA_OK);
    }
    free(data);
    /* The outbox holds codes: only its owner may read it. */
    CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0);
    CHECK(g_sms.calls == 0);

    /* Sign-in appends a second line. */
    g_now += 31;
    t_sign_in = g_now;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    data = test_read_file(path, &len);
    CHECK(data && count_lines((char *)data) == 2);
    if (data && nth_line((char *)data, 1, line, sizeof line) &&
        outbox_line_at(line, t_sign_in, "+15105559001", code, __LINE__)) {
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    }
    /* The first line is unchanged. */
    if (data && nth_line((char *)data, 0, line, sizeof line)) CHECK(outbox_line_at(line, t_enroll, "+15105559001", code, __LINE__));
    free(data);
    mfa_close(ctx);

    /* An outbox that cannot be written: SMS_SEND_FAILED. */
    {
        char bad[600];
        snprintf(bad, sizeof bad, "%s/no-such-dir/outbox.jsonl", temp_dir);
        fixture_options(&options, ":memory:");
        options.sms_sender = NULL;
        options.sms_outbox = bad;
        ctx = open_with(&options);
        set_config(ctx, NULL, PHONE_ON);
        CHECK_STATUS(start_enroll(ctx, &user, "+15105559002", GOOD_CRED, vid), MFA_ERR_SMS_SEND_FAILED);
        mfa_close(ctx);
    }
    unlink(path);
}

int main(void) {
    make_temp_dir("libmfa-test-numbers");
    test_test_numbers();
    test_outbox();
    remove_temp_dir();
    return engine_report();
}
