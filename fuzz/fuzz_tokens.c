/*
 * Opaque tokens: enrollment sessions, TOTP sessionInfo, sign-in pending
 * credentials and phone verification ids, which clients hand back.
 *
 * At start-up one user's tokens are minted on an in-memory store with a fixed
 * injected clock, and each kind is shown to be accepted by the call that
 * takes it (on tokens of its own, since some calls use them up). Each input
 * then says which token to start from, which call to present it to, and how
 * to change it:
 *   byte 0: bits 0-1 the token, bits 2-3 the call (if bit 4 is set; else the
 *           token's own), bit 5: the rest of the input is the token itself;
 *   then 4-byte edits: op (set, insert, delete, cut), position (2 bytes), byte.
 * Whatever is presented that is not, byte for byte, the call's own token must
 * be refused as INVALID_SESSION (or INVALID_ARGUMENT: not UTF-8, too long):
 * no mutated, foreign or made-up token is ever accepted.
 *
 * The tokens' nonces come from libsodium, so token text differs between
 * runs: a crash input names edits, which may need the same token to replay.
 */
#include "fuzz_support.h"

enum { SESSION, SESSION_INFO, PENDING, VERIFICATION, KINDS };
static const char *const KIND_NAMES[KINDS] = {"session", "sessionInfo", "pending credential", "verification id"};

typedef struct minted {
    char uid[16];
    char *token[KINDS];
    char totp_code[MFA_CODE_BUFFER_SIZE]; /* for the sessionInfo's secret, now */
    char sms_code[MFA_CODE_BUFFER_SIZE];  /* sent for the verification id */
} minted;

static mfa_ctx *ctx;
static char last_sms[256];

static int record_sms(void *context, const char *number, const char *message) {
    (void)context;
    (void)number;
    snprintf(last_sms, sizeof last_sms, "%s", message);
    return 0;
}

/* A malloc'd copy of a string libmfa returned, which is released. */
static char *own(char *text) {
    char *copy = fuzz_string((const uint8_t *)text, strlen(text));
    mfa_free(text);
    return copy;
}

/* One user's tokens of every kind: the user has a TOTP factor (imported), so that signing in gives a resolver. */
static void mint(minted *m, const char *uid) {
    static const uint8_t secret[20] = {0x66, 0x75, 0x7a, 0x7a, 0x2d, 0x74, 0x6f, 0x6b, 0x65, 0x6e,
                                       0x2d, 0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0x2d, 0x32, 0x30};
    mfa_user user = fuzz_user(uid, NULL);
    mfa_factor_info *info = NULL;
    mfa_resolver *resolver = NULL;
    mfa_totp_secret *totp = NULL;
    uint8_t *key = NULL;
    size_t key_len = 0;
    char *text = NULL;
    snprintf(m->uid, sizeof m->uid, "%s", uid);
    fuzz_setup_check(mfa_totp_import(ctx, &info, &user, secret, sizeof secret, NULL, NULL, NULL), "import", NULL);
    mfa_factor_info_free(info);
    if (mfa_sign_in(ctx, &resolver, &user, NULL) != MFA_ERR_SECOND_FACTOR_REQUIRED || !resolver) {
        fuzz_setup_check(MFA_ERR_INTERNAL, "mfa_sign_in", NULL);
    }
    m->token[PENDING] = fuzz_string((const uint8_t *)resolver->session, strlen(resolver->session));
    mfa_resolver_free(resolver);
    fuzz_setup_check(mfa_session_new(ctx, &text, &user, NULL), "mfa_session_new", NULL);
    m->token[SESSION] = own(text);
    fuzz_setup_check(mfa_totp_generate_secret(ctx, &totp, m->token[SESSION], NULL), "generate secret", NULL);
    m->token[SESSION_INFO] = fuzz_string((const uint8_t *)totp->session_info, strlen(totp->session_info));
    fuzz_setup_check(mfa_base32_decode(&key, &key_len, totp->shared_secret_key), "decode secret", NULL);
    fuzz_setup_check(mfa_totp_generate(m->totp_code, sizeof m->totp_code, key, key_len, NULL, fuzz_now), "code", NULL);
    mfa_free(key);
    mfa_totp_secret_free(totp);
    fuzz_setup_check(mfa_phone_start_enrollment(ctx, &text, m->token[SESSION], "+15105551234", NULL, NULL),
                     "mfa_phone_start_enrollment", NULL);
    m->token[VERIFICATION] = own(text);
    snprintf(m->sms_code, sizeof m->sms_code, "%.6s", last_sms);
}

/* Presents `token` to the call that takes tokens of `kind`; its status. Only a valid token gets past the token check. */
static int present(const minted *m, int kind, const char *token) {
    mfa_user user = fuzz_user(m->uid, NULL);
    mfa_factor_info *info = NULL;
    mfa_resolver *resolver = NULL;
    char *out = NULL;
    int status = MFA_ERR_INTERNAL;
    switch (kind) {
    case SESSION: /* an accepted session gets as far as the phone number check */
        status = mfa_phone_start_enrollment(ctx, &out, token, "not a number", NULL, NULL);
        if (status == MFA_ERR_INVALID_PHONE_NUMBER) status = MFA_OK;
        break;
    case SESSION_INFO: status = mfa_totp_enroll(ctx, &info, &user, token, m->totp_code, NULL, NULL); break;
    case PENDING: status = mfa_resolver_load(ctx, &resolver, token, NULL, NULL); break;
    case VERIFICATION: status = mfa_phone_enroll(ctx, &info, &user, token, m->sms_code, NULL, NULL); break;
    }
    mfa_free(out);
    mfa_factor_info_free(info);
    mfa_resolver_free(resolver);
    return status;
}

static minted fuzzed;

static void set_up(void) {
    minted control;
    mfa_options options = fuzz_options();
    options.sms_sender = record_sms;
    ctx = fuzz_open(&options,
                    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                    "\"phone\":{\"appVerification\":\"DISABLED\"},\"limits\":{\"smsResendCooldown\":0}}");
    /* Each kind is accepted: shown on a user of its own, since enrolling uses up the session. */
    for (int kind = 0; kind < KINDS; kind++) {
        char uid[16];
        snprintf(uid, sizeof uid, "control%d", kind);
        mint(&control, uid);
        if (present(&control, kind, control.token[kind]) != MFA_OK) {
            fprintf(stderr, "fuzz set-up: a fresh %s is refused\n", KIND_NAMES[kind]);
            exit(2);
        }
        for (int k = 0; k < KINDS; k++) free(control.token[k]);
    }
    mint(&fuzzed, "alice");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader in = {data, size};
    unsigned mode = (unsigned)fuzz_take(&in, 1);
    int source = mode & 3, call = mode & 0x10 ? (mode >> 2) & 3 : source, status;
    char *token;
    size_t len, cap;
    if (!ctx) set_up();
    if (mode & 0x20) {
        token = fuzz_string(in.data, in.size);
    } else {
        len = strlen(fuzzed.token[source]);
        cap = len + in.size / 4 + 1;
        token = malloc(cap);
        if (!token) abort();
        memcpy(token, fuzzed.token[source], len + 1);
        while (in.size >= 4) {
            unsigned op = (unsigned)fuzz_take(&in, 1) & 3;
            size_t at = (size_t)fuzz_take(&in, 2) % (len + 1);
            char byte = (char)fuzz_take(&in, 1);
            if (byte == 0) byte = 'A'; /* a NUL would only cut the text: "cut" does that */
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
    if (strcmp(token, fuzzed.token[call]) != 0) {
        status = present(&fuzzed, call, token);
        FUZZ_CHECK(status == MFA_ERR_INVALID_SESSION || status == MFA_ERR_INVALID_ARGUMENT,
                   "a changed %s (from a %s) was not refused: %s\n  original: %s\n  presented: %s", KIND_NAMES[call],
                   KIND_NAMES[source], mfa_status_name(status), fuzzed.token[call], token);
    }
    free(token);
    return 0;
}
