/*
 * Email addresses and device tokens: mfa_email_start_enrollment with a
 * fuzzed address, then mfa_sign_in_remembered with a fuzzed device token.
 *
 * Input: the address, a newline, then the device token: a first byte whose
 * bit 0 says the rest is the token's text itself; else the rest is 4-byte
 * edits (op: set, insert, delete, cut; position, 2 bytes; byte) of a genuine
 * token minted at start-up (the holder's remembered device).
 *
 * The mailer records what it is given; the limits are wide and the clock
 * fixed. Invariants: an address is accepted exactly when the grammar below
 * (the one EmailAddress documents: local@domain in ASCII, at most 254
 * bytes, a dot-atom local part of at most 64 bytes, two or more LDH labels
 * of at most 63 bytes, the last not all digits) takes it; the mailer then
 * gets it with its domain in lower case, a six-digit code and a body that
 * starts with it; a refusal is INVALID_EMAIL (INVALID_ARGUMENT for text
 * that is not UTF-8) with one message for every address, which therefore
 * repeats none. A device
 * token never stands in for the second factor of the user (who has an
 * authenticator app and one remembered device) unless it is, byte for byte,
 * that device's token: any other answer is SECOND_FACTOR_REQUIRED with a
 * resolver, and the token is audited as DEVICE_REFUSED with one of its
 * documented reasons (nothing is audited for an empty token, which is none).
 */
#include "fuzz_support.h"

static char sent_to[300], sent_code[16], sent_body[512];
static int sends;
static char refused[32];
static int refusals;

static int record_mail(void *context, const mfa_email_message *message) {
    (void)context;
    snprintf(sent_to, sizeof sent_to, "%s", message->to);
    snprintf(sent_code, sizeof sent_code, "%s", message->code);
    snprintf(sent_body, sizeof sent_body, "%s", message->body);
    sends++;
    return 0;
}

static void record_audit(void *context, const mfa_audit_event *event) {
    (void)context;
    if (event->kind != MFA_AUDIT_DEVICE_REFUSED) return;
    snprintf(refused, sizeof refused, "%s", event->detail);
    refusals++;
}

static int is_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The documented grammar, written again here (a differential check of EmailAddress). */
static int is_address(const char *text) {
    size_t len = strlen(text), at, i, label = 0, labels = 1;
    const char *last_label;
    int digits_only = 1;
    if (len < 3 || len > 254) return 0;
    for (at = len; at > 0 && text[at - 1] != '@'; at--) {}
    if (at == 0) return 0;
    at--; /* text[at] is the last '@' */
    if (at == 0 || at > 64 || text[0] == '.' || text[at - 1] == '.') return 0;
    for (i = 0; i < at; i++) {
        char c = text[i];
        if (c == '.') {
            if (text[i + 1] == '.') return 0;
        } else if (!is_alnum(c) && !strchr("!#$%&'*+/=?^_`{|}~-", c)) {
            return 0;
        }
    }
    last_label = text + at + 1;
    for (i = at + 1; i <= len; i++) {
        char c = text[i];
        if (c == '.' || c == '\0') {
            if (label == 0 || label > 63 || text[i - 1] == '-' || text[i - label] == '-') return 0;
            if (c == '.') {
                labels++;
                label = 0;
                last_label = text + i + 1;
            }
            continue;
        }
        if (!is_alnum(c) && c != '-') return 0;
        label++;
    }
    for (const char *c = last_label; *c; c++) digits_only &= *c >= '0' && *c <= '9';
    return labels >= 2 && !digits_only;
}

/* The holder's genuine device token, minted when the store is opened. */
static char genuine[256];

/* Signs the holder in with the authenticator app (a new time step each time) and remembers the device. */
static void remember_holder(mfa_ctx *ctx, const uint8_t *secret, size_t secret_len) {
    mfa_user holder = fuzz_user("holder", NULL);
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion assertion;
    mfa_device_token *token = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    fuzz_now += 30;
    holder.auth_time = fuzz_now;
    if (mfa_sign_in(ctx, &resolver, &holder, NULL) != MFA_ERR_SECOND_FACTOR_REQUIRED || !resolver) {
        fuzz_setup_check(MFA_ERR_INTERNAL, "mfa_sign_in", NULL);
    }
    fuzz_setup_check(mfa_totp_generate(code, sizeof code, secret, secret_len, NULL, fuzz_now), "mfa_totp_generate",
                     NULL);
    fuzz_setup_check(mfa_assertion_init(&assertion, MFA_ASSERTION_VERSION), "mfa_assertion_init", NULL);
    assertion.kind = MFA_FACTOR_TOTP;
    assertion.enrollment_id = resolver->hints[0].uid;
    assertion.code = code;
    fuzz_setup_check(mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL), "mfa_resolve", NULL);
    fuzz_setup_check(mfa_device_remember(ctx, &token, resolver->session, NULL, "fuzz", NULL), "mfa_device_remember",
                     NULL);
    snprintf(genuine, sizeof genuine, "%s", token->token);
    mfa_device_token_free(token);
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
}

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    mfa_ctx *ctx;
    mfa_user user = fuzz_user("holder", NULL);
    mfa_factor_info *info = NULL;
    static const uint8_t secret[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    options.email_sender = record_mail;
    options.audit = record_audit;
    ctx = fuzz_open(&options,
                    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"email\":\"ENABLED\"},"
                    "\"email\":{\"resendCooldown\":0,\"perAddressHour\":1000000,\"perAddressDay\":1000000,"
                    "\"perUserHour\":1000000,\"perUserDay\":1000000,\"perTenantHour\":100000000,"
                    "\"perTenantDay\":100000000},\"rememberedDevices\":{\"state\":\"ENABLED\"}}");
    fuzz_setup_check(mfa_totp_import(ctx, &info, &user, secret, sizeof secret, NULL, "app", NULL), "mfa_totp_import",
                     NULL);
    mfa_factor_info_free(info);
    remember_holder(ctx, secret, sizeof secret);
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    fuzz_reader in = {data, size};
    char *address = fuzz_take_line(&in, '\n'), *token, uid[32];
    char *session = NULL, *verification = NULL, *err = NULL;
    mfa_user user, holder;
    mfa_sign_in_result *result = NULL;
    mfa_resolver *resolver = NULL;
    int status, before = sends, refused_before;

    if (runs++ % 1000 == 0) { /* a new store now and then: every send is counted in its budgets */
        mfa_close(ctx);
        ctx = open_store();
    }
    snprintf(uid, sizeof uid, "user%lu", runs);
    user = fuzz_user(uid, NULL);
    fuzz_setup_check(mfa_session_new(ctx, &session, &user, NULL), "mfa_session_new", NULL);

    status = mfa_email_start_enrollment(ctx, &verification, session, address, &err);
    if (is_address(address)) {
        size_t at = strrchr(address, '@') - address, i;
        FUZZ_CHECK(status == MFA_OK, "address \"%s\" refused: %s", address, mfa_status_name(status));
        FUZZ_CHECK(strncmp(sent_to, address, at + 1) == 0 && strlen(sent_to) == strlen(address),
                   "\"%s\" was mailed to \"%s\"", address, sent_to);
        for (i = at + 1; address[i]; i++) {
            char lower = address[i] >= 'A' && address[i] <= 'Z' ? (char)(address[i] + 32) : address[i];
            FUZZ_CHECK(sent_to[i] == lower, "the domain of \"%s\" was mailed as \"%s\"", address, sent_to);
        }
        FUZZ_CHECK(strlen(sent_code) == 6 && strspn(sent_code, "0123456789") == 6, "code \"%s\"", sent_code);
        FUZZ_CHECK(strncmp(sent_body, sent_code, 6) == 0, "a body without its code first: \"%s\"", sent_body);
    } else {
        int utf8 = fuzz_is_utf8((const uint8_t *)address, strlen(address));
        FUZZ_CHECK(status == (utf8 ? MFA_ERR_INVALID_EMAIL : MFA_ERR_INVALID_ARGUMENT), "address \"%s\" gave %s",
                   address, mfa_status_name(status));
        if (status == MFA_ERR_INVALID_EMAIL) {
            /* One message for every refused address: it cannot repeat any of them. */
            static char first[256];
            FUZZ_CHECK(err != NULL, "INVALID_EMAIL without a message for \"%s\"", address);
            if (!first[0]) snprintf(first, sizeof first, "%s", err);
            FUZZ_CHECK(strcmp(first, err) == 0, "a message of its own for \"%s\": %s", address, err);
        }
    }
    FUZZ_CHECK(sends == before + (status == MFA_OK), "%d messages for \"%s\"", sends - before, address);

    if (fuzz_take(&in, 1) & 1) {
        token = fuzz_string(in.data, in.size);
    } else {
        /* Edits of the genuine token. */
        size_t len = strlen(genuine), cap = len + in.size / 4 + 1;
        token = malloc(cap);
        if (!token) abort();
        memcpy(token, genuine, len + 1);
        while (in.size >= 4) {
            unsigned op = (unsigned)fuzz_take(&in, 1) & 3;
            size_t at = (size_t)fuzz_take(&in, 2) % (len + 1);
            char byte = (char)fuzz_take(&in, 1);
            if (byte == 0) byte = 'A';
            if (op == 0 && at < len) token[at] = byte;
            if (op == 1) {
                memmove(token + at + 1, token + at, len - at + 1);
                token[at] = byte;
                len++;
            }
            if (op == 2 && at < len) {
                memmove(token + at, token + at + 1, len - at);
                len--;
            }
            if (op == 3) token[len = at] = 0;
        }
    }
    holder = fuzz_user("holder", NULL);
    refused_before = refusals;
    status = mfa_sign_in_remembered(ctx, &result, &resolver, &holder, token, NULL);
    if (strcmp(token, genuine) == 0) {
        FUZZ_CHECK(status == MFA_OK && result && !resolver && strcmp(result->factor_id, "remembered_device") == 0,
                   "the genuine token gave %s", mfa_status_name(status));
        FUZZ_CHECK(refusals == refused_before, "the genuine token was refused");
    } else if (fuzz_is_utf8((const uint8_t *)token, strlen(token))) {
        static const char *const reasons[] = {"MALFORMED", "UNKNOWN", "FOREIGN", "TAMPERED", NULL};
        const char *const *reason = reasons;
        FUZZ_CHECK(status == MFA_ERR_SECOND_FACTOR_REQUIRED && resolver && !result,
                   "token \"%s\" gave %s", token, mfa_status_name(status));
        FUZZ_CHECK(refusals == refused_before + (token[0] != '\0'), "token \"%s\" audited %d times", token,
                   refusals - refused_before);
        if (token[0]) {
            while (*reason && strcmp(*reason, refused) != 0) reason++;
            FUZZ_CHECK(*reason != NULL, "token \"%s\" refused for \"%s\"", token, refused);
        }
    } else {
        FUZZ_CHECK(status == MFA_ERR_INVALID_ARGUMENT && !resolver && !result, "token gave %s",
                   mfa_status_name(status));
    }
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    mfa_free(err);
    mfa_free(verification);
    mfa_free(session);
    free(address);
    free(token);
    return 0;
}
