/* second_factor.c: the factors rlm_mfa asks for and what the user typed (see second_factor.h). */
#define _GNU_SOURCE
#include "second_factor.h"

#include <stdio.h>
#include <string.h>

#include "code_input.h"

int mfa_radius_factor_use(const mfa_factor_info *hint) {
    switch (hint->kind) {
    case MFA_FACTOR_WEBAUTHN: return MFA_RADIUS_UNUSABLE;
    case MFA_FACTOR_PHONE: return MFA_RADIUS_SENT;
    case MFA_FACTOR_RECOVERY_CODES: return hint->remaining_codes == 0 ? MFA_RADIUS_UNUSABLE : MFA_RADIUS_TYPED;
    default: return MFA_RADIUS_TYPED;
    }
}

size_t mfa_radius_usable_factors(const mfa_resolver *r, size_t out[MFA_RADIUS_FACTORS_MAX], size_t *typed) {
    size_t count = 0, typed_count = 0;
    for (size_t i = 0; i < r->hint_count && count < MFA_RADIUS_FACTORS_MAX; i++) {
        int use = mfa_radius_factor_use(&r->hints[i]);
        if (use == MFA_RADIUS_UNUSABLE) continue;
        if (use == MFA_RADIUS_TYPED) typed_count++;
        out[count++] = i;
    }
    if (typed) *typed = typed_count;
    return count;
}

void mfa_radius_describe(char *out, size_t out_size, const mfa_factor_info *hint) {
    switch (hint->kind) {
    case MFA_FACTOR_PHONE: snprintf(out, out_size, "SMS to %s", hint->hint); break;
    case MFA_FACTOR_RECOVERY_CODES: snprintf(out, out_size, "recovery code (%s)", hint->hint); break;
    default:
        if (hint->display_name && *hint->display_name)
            snprintf(out, out_size, "%s (%s)", hint->hint, hint->display_name);
        else
            snprintf(out, out_size, "%s", hint->hint);
        break;
    }
}

int mfa_radius_choice(const char *typed, size_t count) {
    while (*typed == ' ') typed++;
    size_t n = 0, digits = 0;
    for (; *typed >= '0' && *typed <= '9'; typed++)
        if (++digits > 2) return -1;
        else n = n * 10 + (size_t)(*typed - '0');
    while (*typed == ' ') typed++;
    if (*typed || digits == 0 || n == 0 || n > count) return -1;
    return (int)(n - 1);
}

/* One mfa_resolve against one factor; a TOTP or HOTP code is passed as its digits alone. */
static int32_t resolve_one(mfa_ctx *ctx, mfa_sign_in_result **out, const char *pending, const char *tenant,
                           const char *enrollment_id, int32_t kind, const char *typed) {
    char digits[MFA_CODE_BUFFER_SIZE];
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    assertion.kind = kind;
    assertion.enrollment_id = enrollment_id;
    assertion.code = typed;
    if ((kind == MFA_FACTOR_TOTP || kind == MFA_FACTOR_HOTP) && mfa_pam_totp_code(digits, sizeof digits, typed))
        assertion.code = digits;
    int32_t status = mfa_resolve(ctx, out, pending, tenant, &assertion, NULL);
    explicit_bzero(digits, sizeof digits);
    return status;
}

/* Whether `typed` can be a code of `hint`'s kind: digits for TOTP and HOTP, a touch's modhex for a YubiKey. */
static int may_be(const mfa_factor_info *hint, const char *typed) {
    char digits[MFA_CODE_BUFFER_SIZE];
    int shaped;
    switch (hint->kind) {
    case MFA_FACTOR_TOTP:
    case MFA_FACTOR_HOTP:
        shaped = mfa_pam_totp_code(digits, sizeof digits, typed);
        explicit_bzero(digits, sizeof digits);
        return shaped;
    case MFA_FACTOR_RECOVERY_CODES: return mfa_pam_recovery_shape(typed);
    case MFA_FACTOR_YUBICO_OTP: return mfa_pam_yubikey_shape(typed);
    default: return 1;
    }
}

int32_t mfa_radius_resolve_typed(mfa_ctx *ctx, mfa_sign_in_result **out, const mfa_resolver *r, const char *pending,
                                 const char *tenant, const char *enrollment_id, int32_t kind, const char *typed,
                                 size_t *tried) {
    *out = NULL;
    if (tried) *tried = 0;
    if (enrollment_id) {
        if (tried) *tried = 1;
        return resolve_one(ctx, out, pending, tenant, enrollment_id, kind, typed);
    }
    size_t usable[MFA_RADIUS_FACTORS_MAX];
    size_t count = mfa_radius_usable_factors(r, usable, NULL);
    const mfa_factor_info *first = NULL;
    int32_t status = MFA_ERR_INVALID_VERIFICATION_CODE;
    size_t attempts = 0;
    for (size_t i = 0; i < count; i++) {
        const mfa_factor_info *hint = &r->hints[usable[i]];
        if (mfa_radius_factor_use(hint) != MFA_RADIUS_TYPED) continue;
        if (!first) first = hint;
        if (!may_be(hint, typed)) continue;
        attempts++;
        status = resolve_one(ctx, out, pending, tenant, hint->uid, hint->kind, typed);
        /* Another factor may take it: a wrong code, or a later kind's "not my shape". */
        if (status != MFA_ERR_INVALID_VERIFICATION_CODE && status != MFA_ERR_INVALID_ARGUMENT) break;
        status = MFA_ERR_INVALID_VERIFICATION_CODE;
    }
    if (attempts == 0 && first) {
        attempts = 1;
        status = resolve_one(ctx, out, pending, tenant, first->uid, first->kind, typed);
    }
    if (tried) *tried = attempts;
    return status;
}

const char *mfa_radius_claim(const mfa_sign_in_result *result, const char *name) {
    for (size_t i = 0; i < result->claim_count; i++)
        if (strcmp(result->claims[i].name, name) == 0) return result->claims[i].value;
    return NULL;
}
