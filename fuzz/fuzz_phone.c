/*
 * Phone numbers and SMS codes: mfa_phone_start_enrollment with a fuzzed
 * number, then mfa_phone_enroll with a fuzzed code.
 *
 * Input: the number, a newline, then the code typed, in which each
 * '?' stands for the next digit of the code that was sent (so "??????" is the
 * right code, and the fuzzer can explore around it).
 *
 * The app verifier accepts every credential and the SMS sender records what
 * it is given; the limits are wide and the clock fixed, so that only the
 * number decides. Invariants: a number is accepted exactly when it is strict
 * E.164 ('+', 7 to 15 digits, the first not 0), the sender gets that number
 * unchanged and a message with a six-digit code; a code is accepted exactly
 * when it is, byte for byte, the code that was sent. Each input uses a new
 * user (and the store is renewed now and then, to bound its size).
 */
#include "fuzz_support.h"

static char sent_number[128], sent_message[256];
static int sends;

static int record_sms(void *context, const char *number, const char *message) {
    (void)context;
    snprintf(sent_number, sizeof sent_number, "%s", number);
    snprintf(sent_message, sizeof sent_message, "%s", message);
    sends++;
    return 0;
}

static int accept_app(void *context, const char *credential, int32_t action) {
    (void)context;
    (void)credential;
    return action == MFA_APP_ACTION_ENROLLMENT ? 0 : 1;
}

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    options.sms_sender = record_sms;
    options.app_verifier = accept_app;
    return fuzz_open(&options,
                     "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                     "\"limits\":{\"smsResendCooldown\":0,\"smsPerNumberHour\":1000000,\"smsPerNumberDay\":1000000,"
                     "\"smsPerUserHour\":1000000,\"smsPerUserDay\":1000000,\"smsPerTenantHour\":100000000,"
                     "\"smsPerTenantDay\":100000000}}");
}

/* The six digits at the start of the message, or "" if it does not start with six digits and a space. */
static void code_of(const char *message, char code[8]) {
    size_t i;
    code[0] = 0;
    for (i = 0; i < 6; i++) {
        if (message[i] < '0' || message[i] > '9') return;
    }
    if (message[6] != ' ') return;
    memcpy(code, message, 6);
    code[6] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    fuzz_reader in = {data, size};
    char *number = fuzz_take_line(&in, '\n'), *typed = fuzz_string(in.data, in.size), *code, uid[32], sent[8];
    char *session = NULL, *verification = NULL;
    mfa_factor_info *info = NULL;
    mfa_user user;
    int status, before = sends;
    size_t i, next = 0;

    if (runs++ % 20000 == 0) {
        mfa_close(ctx);
        ctx = open_store();
    }
    snprintf(uid, sizeof uid, "user%lu", runs);
    user = fuzz_user(uid, NULL);
    fuzz_setup_check(mfa_session_new(ctx, &session, &user, NULL), "mfa_session_new", NULL);

    status = mfa_phone_start_enrollment(ctx, &verification, session, number, "app-token", NULL);
    if (fuzz_is_e164(number)) {
        FUZZ_CHECK(status == MFA_OK, "E.164 number \"%s\" refused: %s", number, mfa_status_name(status));
    } else {
        int utf8 = fuzz_is_utf8((const uint8_t *)number, strlen(number));
        FUZZ_CHECK(status == (utf8 ? MFA_ERR_INVALID_PHONE_NUMBER : MFA_ERR_INVALID_ARGUMENT),
                   "number \"%s\" gave %s", number, mfa_status_name(status));
    }
    FUZZ_CHECK(sends == before + (status == MFA_OK), "%d messages sent for \"%s\"", sends - before, number);
    if (status == MFA_OK) {
        FUZZ_CHECK(strcmp(sent_number, number) == 0, "\"%s\" was sent to \"%s\"", number, sent_number);
        code_of(sent_message, sent);
        FUZZ_CHECK(sent[0] != 0, "no six-digit code in \"%s\"", sent_message);

        /* The code typed: the template with each '?' replaced by the next digit sent. */
        code = fuzz_string((const uint8_t *)typed, strlen(typed));
        for (i = 0; code[i]; i++) {
            if (code[i] == '?') code[i] = next < 6 ? sent[next++] : '0';
        }
        status = mfa_phone_enroll(ctx, &info, &user, verification, code, NULL, NULL);
        if (strcmp(code, sent) == 0) {
            FUZZ_CHECK(status == MFA_OK && info, "the right code %s was refused: %s", code, mfa_status_name(status));
            FUZZ_CHECK(info->phone_number && strcmp(info->phone_number, number) == 0, "enrolled %s for %s",
                       info->phone_number ? info->phone_number : "(none)", number);
        } else {
            int utf8 = fuzz_is_utf8((const uint8_t *)code, strlen(code));
            FUZZ_CHECK(status == (utf8 ? MFA_ERR_INVALID_VERIFICATION_CODE : MFA_ERR_INVALID_ARGUMENT),
                       "code \"%s\" (sent %s) gave %s", code, sent, mfa_status_name(status));
        }
        free(code);
    }
    mfa_factor_info_free(info);
    mfa_free(verification);
    mfa_free(session);
    free(number);
    free(typed);
    return 0;
}
