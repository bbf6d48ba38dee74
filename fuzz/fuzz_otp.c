/*
 * TOTP and HOTP codes (mfa_totp_verify, mfa_hotp_verify) with fuzzed code
 * text and fuzzed parameters: what a user types, with what a host passes.
 *
 * Input: mode, algorithm, digits, window, period, T0, time or counter, key
 * length, key, then the code: raw text, or (first byte 0xff) the right code
 * for a step near the current one with the rest of the input appended.
 *
 * Invariants: INVALID_ARGUMENT exactly when an argument is outside its
 * documented range; an accepted code is, character for character, the code
 * of the step or counter reported, and that step lies within the window
 * (counters without wrapping around); the right code within the window is
 * always accepted.
 */
#include "fuzz_support.h"

typedef struct otp_case {
    int totp, defaults;
    int32_t algorithm, digits, window;
    int64_t period, t0, time;
    uint64_t counter;
    const uint8_t *key;
    size_t key_len;
} otp_case;

static int arguments_valid(const otp_case *c, const char *code) {
    int64_t elapsed;
    if (c->key_len < 1 || c->key_len > MFA_KEY_MAX_BYTES) return 0;
    if (c->window < 0 || c->window > MFA_WINDOW_MAX) return 0;
    if (!fuzz_is_utf8((const uint8_t *)code, strlen(code)) || strlen(code) > MFA_STRING_MAX_BYTES) return 0;
    if (c->defaults) return c->time >= 0;
    if (c->algorithm < MFA_ALG_SHA1 || c->algorithm > MFA_ALG_SHA512) return 0;
    if (c->digits < MFA_DIGITS_MIN || c->digits > MFA_DIGITS_MAX) return 0;
    if (!c->totp) return 1;
    if (c->period < 1 || c->period > MFA_PERIOD_MAX) return 0;
    return !__builtin_sub_overflow(c->time, c->t0, &elapsed) && elapsed >= 0;
}

/* The code for counter (HOTP) or time step (TOTP) `n`; "" if it cannot be made. */
static void code_for(char out[MFA_CODE_BUFFER_SIZE], const otp_case *c, uint64_t n) {
    int32_t digits = c->defaults ? 6 : c->digits, algorithm = c->defaults ? MFA_ALG_SHA1 : c->algorithm;
    if (mfa_hotp_generate(out, MFA_CODE_BUFFER_SIZE, c->key, c->key_len, n, digits, algorithm) != MFA_OK) out[0] = 0;
}

/* The time step of `time`, or -1 if the parameters give none. */
static int64_t current_step(const otp_case *c) {
    int64_t elapsed;
    if (c->defaults) return c->time >= 0 ? c->time / 30 : -1;
    if (c->period < 1 || __builtin_sub_overflow(c->time, c->t0, &elapsed) || elapsed < 0) return -1;
    return elapsed / c->period;
}

static int verify(const otp_case *c, const char *code, uint64_t *matched) {
    mfa_totp_params params = {MFA_TOTP_PARAMS_VERSION, c->algorithm, c->digits, c->period, c->t0};
    int64_t step = -1;
    int status;
    if (!c->totp) return mfa_hotp_verify(matched, c->key, c->key_len, c->counter, c->window, c->digits, c->algorithm, code);
    status = mfa_totp_verify(&step, c->key, c->key_len, c->defaults ? NULL : &params, c->time, c->window, code);
    if (status == MFA_OK) {
        FUZZ_CHECK(step >= 0, "a negative step %lld", (long long)step);
        *matched = (uint64_t)step;
    }
    return status;
}

/* The counter or step `offset` away from the current one, if it exists; else 0. */
static int target(const otp_case *c, int offset, uint64_t *n) {
    if (!c->totp) return offset >= 0 && !__builtin_add_overflow(c->counter, (uint64_t)offset, n);
    int64_t step, now = current_step(c);
    if (now < 0 || __builtin_add_overflow(now, (int64_t)offset, &step) || step < 0) return 0;
    *n = (uint64_t)step;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader in = {data, size};
    otp_case c;
    char right[MFA_CODE_BUFFER_SIZE], wanted[MFA_CODE_BUFFER_SIZE], *code;
    uint64_t mode = fuzz_take(&in, 1), matched = 0, n;
    int offset = 0, status, valid;
    memset(&c, 0, sizeof c);
    c.totp = !(mode & 1);
    c.defaults = c.totp && (mode & 2);
    c.algorithm = (int8_t)fuzz_take(&in, 1);
    c.digits = (int8_t)fuzz_take(&in, 1);
    c.window = (int8_t)fuzz_take(&in, 1);
    c.period = (int64_t)fuzz_take(&in, 8);
    c.t0 = (int64_t)fuzz_take(&in, 8);
    c.time = (int64_t)fuzz_take(&in, 8);
    c.counter = (uint64_t)c.time;
    c.key = fuzz_take_bytes(&in, fuzz_take(&in, 2) % (MFA_KEY_MAX_BYTES + 16), &c.key_len);

    /* The code: raw, or the right one for a nearby step with the rest appended. */
    if (in.size >= 2 && in.data[0] == 0xff) {
        offset = (int8_t)in.data[1];
        in.data += 2;
        in.size -= 2;
        right[0] = 0;
        if (target(&c, offset, &n)) code_for(right, &c, n);
        code = malloc(strlen(right) + in.size + 1);
        if (!code) abort();
        memcpy(code, right, strlen(right));
        memcpy(code + strlen(right), in.data, in.size);
        code[strlen(right) + in.size] = 0;
    } else {
        code = fuzz_string(in.data, in.size);
    }

    valid = arguments_valid(&c, code);
    status = verify(&c, code, &matched);
    FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_VERIFICATION_CODE || status == MFA_ERR_INVALID_ARGUMENT,
               "verify gave %s", mfa_status_name(status));
    FUZZ_CHECK((status == MFA_ERR_INVALID_ARGUMENT) == !valid, "verify gave %s for %s arguments",
               mfa_status_name(status), valid ? "valid" : "invalid");
    if (status == MFA_OK) {
        if (c.totp) {
            int64_t distance = (int64_t)matched - current_step(&c);
            FUZZ_CHECK(distance >= -c.window && distance <= c.window, "step %llu is %lld steps from now, window %d",
                       (unsigned long long)matched, (long long)distance, c.window);
        } else {
            FUZZ_CHECK(matched >= c.counter && matched - c.counter <= (uint64_t)c.window,
                       "counter %llu matched, from %llu with look-ahead %d", (unsigned long long)matched,
                       (unsigned long long)c.counter, c.window);
        }
        code_for(wanted, &c, matched);
        FUZZ_CHECK(strcmp(code, wanted) == 0, "\"%s\" accepted for %llu, whose code is %s", code,
                   (unsigned long long)matched, wanted);
    }

    /* The right code within the window is accepted. */
    if (valid && (c.totp ? offset >= -c.window && offset <= c.window : offset >= 0 && offset <= c.window) &&
        target(&c, offset, &n)) {
        code_for(right, &c, n);
        FUZZ_CHECK(verify(&c, right, &matched) == MFA_OK, "the right code %s for %llu is refused", right,
                   (unsigned long long)n);
    }
    free(code);
    return 0;
}
