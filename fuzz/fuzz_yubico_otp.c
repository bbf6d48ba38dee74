/*
 * Yubico OTPs at sign-in (mfa_resolve with MFA_FACTOR_YUBICO_OTP): what a
 * YubiKey, or anyone, types at the prompt.
 *
 * Each input has a user of its own with a YubiKey of its own (a software
 * key, Tests/c/test_yubikey.h, on nettle's AES), imported as the user's
 * factor. Input: one mode byte, then
 *   mode even: the rest of the input is the text typed;
 *   mode odd:  the key's use counter (2 bytes, 0 taken as 1) and session
 *              counter (1 byte) make the OTP the key types, then up to four
 *              edits (position, byte) are made to it.
 * Invariants:
 * - a typed text that is not an OTP of the user's key is refused:
 *   INVALID_VERIFICATION_CODE, or INVALID_ARGUMENT for what is not UTF-8
 *   or is too long; never MFA_OK (the text would have to be sealed with a
 *   key it does not know);
 * - the key's own OTP signs in, in upper case too (caps lock): an edited
 *   OTP signs in exactly when it is, letter case aside, the OTP itself;
 * - once it has signed in, the same OTP, and the OTP of any lower counter,
 *   is refused (INVALID_VERIFICATION_CODE).
 * The store is renewed every 2,000 inputs.
 */
#include "fuzz_support.h"

#include "../Tests/c/test_yubikey.h"

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    return fuzz_open(&options, "{\"state\":\"ENABLED\",\"providers\":{\"yubico_otp\":\"ENABLED\"}}");
}

/* Signs `user` in and resolves the sign-in with `otp`; returns the status of mfa_resolve. */
static int32_t resolve(mfa_ctx *ctx, const mfa_user *user, const char *otp) {
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    int32_t status = mfa_sign_in(ctx, &resolver, user, NULL);
    FUZZ_CHECK(status == MFA_ERR_SECOND_FACTOR_REQUIRED && resolver, "sign-in: %s", mfa_status_name(status));
    assertion.kind = MFA_FACTOR_YUBICO_OTP;
    assertion.code = otp;
    status = mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, NULL);
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    return status;
}

static int same_but_case(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = (char)((*a >= 'A' && *a <= 'Z') ? *a + 32 : *a), y = (char)((*b >= 'A' && *b <= 'Z') ? *b + 32 : *b);
        if (x != y) return 0;
    }
    return *a == *b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    fuzz_reader in = {data, size};
    unsigned mode = (unsigned)fuzz_take(&in, 1);
    mfa_token_seed seed = MFA_TOKEN_SEED_INIT;
    mfa_factor_info *info = NULL;
    mfa_user user;
    yubikey key;
    char uid[32], otp[YUBIKEY_OTP_MAX], typed[YUBIKEY_OTP_MAX];
    int32_t status;

    if (runs++ % 2000 == 0) {
        mfa_close(ctx);
        ctx = open_store();
    }
    snprintf(uid, sizeof uid, "yk%lu", runs);
    user = fuzz_user(uid, NULL);
    yubikey_make(&key, (uint32_t)runs);
    seed.kind = MFA_FACTOR_YUBICO_OTP;
    seed.secret = key.key;
    seed.secret_len = 16;
    seed.public_id = key.public_id;
    seed.private_id = key.private_id;
    seed.private_id_len = 6;
    status = mfa_token_import(ctx, &info, &seed, &user, NULL, NULL, "fuzz", NULL);
    if (status == MFA_ERR_SECOND_FACTOR_EXISTS) return 0; /* two keys' public ids met */
    fuzz_setup_check(status, "mfa_token_import", NULL);
    mfa_factor_info_free(info);

    if (!(mode & 1)) {
        char *text = fuzz_string(in.data, in.size);
        status = resolve(ctx, &user, text);
        FUZZ_CHECK(status == MFA_ERR_INVALID_VERIFICATION_CODE || status == MFA_ERR_INVALID_ARGUMENT,
                   "a typed text got %s", mfa_status_name(status));
        FUZZ_CHECK(status == MFA_ERR_INVALID_VERIFICATION_CODE ||
                       !fuzz_is_utf8(in.data, in.size) || in.size > MFA_STRING_MAX_BYTES || in.size == 0 ||
                       memchr(in.data, 0, in.size) != NULL,
                   "a UTF-8 text of %zu bytes was an invalid argument", in.size);
        free(text);
        return 0;
    }
    {
        uint16_t use = (uint16_t)fuzz_take(&in, 2);
        uint8_t session = (uint8_t)fuzz_take(&in, 1);
        if (use == 0) use = 1;
        yubikey_otp(otp, &key, use, session, NULL);
        memcpy(typed, otp, sizeof typed);
        for (int edit = 0; edit < 4 && in.size >= 2; edit++) {
            size_t position = (size_t)fuzz_take(&in, 1) % strlen(otp);
            uint8_t byte = (uint8_t)fuzz_take(&in, 1);
            typed[position] = (char)(byte ? byte : 'c');
        }
        status = resolve(ctx, &user, typed);
        if (same_but_case(typed, otp)) {
            FUZZ_CHECK(status == MFA_OK, "the key's OTP %s (as %s) was refused: %s", otp, typed,
                       mfa_status_name(status));
            FUZZ_CHECK(resolve(ctx, &user, otp) == MFA_ERR_INVALID_VERIFICATION_CODE, "the OTP %s was replayed",
                       otp);
            if (use > 1 || session > 0) {
                char older[YUBIKEY_OTP_MAX];
                yubikey_otp(older, &key, session > 0 ? use : (uint16_t)(use - 1), session > 0 ? 0 : 0xff, NULL);
                FUZZ_CHECK(resolve(ctx, &user, older) == MFA_ERR_INVALID_VERIFICATION_CODE,
                           "an older OTP %s was taken after %s", older, otp);
            }
        } else {
            FUZZ_CHECK(status == MFA_ERR_INVALID_VERIFICATION_CODE || status == MFA_ERR_INVALID_ARGUMENT,
                       "an edited OTP %s (of %s) got %s", typed, otp, mfa_status_name(status));
        }
    }
    return 0;
}
