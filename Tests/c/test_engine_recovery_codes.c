/*
 * Recovery codes, the third factor kind, through the C ABI
 * (mfa_recovery_codes_generate, mfa_resolve with MFA_FACTOR_RECOVERY_CODES):
 * what is particular to them (test_engine_flow_contract.c covers what every
 * kind shares).
 *
 *   a set           10 codes "xxxx-xxxx-xx" of a look-alike-free alphabet, all
 *                   different; the set as a factor: "recovery", its kind, the
 *                   remaining count, the hint "10 codes left"; listed, hinted
 *                   and audited; 8 to 16 codes as configured; OPERATION_NOT_ALLOWED
 *                   when the kind is disabled
 *   sign-in         each code once; typing is forgiving (case, spaces, O for 0,
 *                   l for 1); with or without the set's enrollment id; the
 *                   claim recovery_codes_remaining; the count in the hints;
 *                   junk is INVALID_VERIFICATION_CODE; no set:
 *                   MFA_ENROLLMENT_NOT_FOUND; every code used up
 *   the limit       a set does not count toward maxFactors; a new set replaces
 *                   the old one; generating one revokes earlier credentials
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>

#include "test_engine_fixture.h"

#define RECOVERY_ON                                                                                           \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"recovery\":\"ENABLED\"}}"

static int is_code(const char *code) {
    static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
    if (strlen(code) != 12 || code[4] != '-' || code[9] != '-') return 0;
    for (int i = 0; i < 12; i++) {
        if (i == 4 || i == 9) continue;
        if (!strchr(alphabet, code[i])) return 0;
    }
    return 1;
}

/* The first hint of `user`'s resolver: its remaining count and hint text; the pending credential in `cred`. */
static int64_t hint_of_at(mfa_ctx *ctx, const mfa_user *user, char hint[32], char cred[TOKEN_MAX], int line) {
    mfa_resolver *resolver = NULL;
    int64_t remaining = -2;
    CHECK_STATUS_AT(mfa_sign_in(ctx, &resolver, user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED, line);
    hint[0] = '\0';
    if (cred) cred[0] = '\0';
    if (resolver && resolver->hint_count > 0) {
        const mfa_factor_info *h = &resolver->hints[resolver->hint_count - 1];
        CHECK_AT(h->kind == MFA_FACTOR_RECOVERY_CODES && strcmp(h->factor_id, "recovery") == 0, line);
        CHECK_AT(h->phone_number == NULL, line);
        remaining = h->remaining_codes;
        snprintf(hint, 32, "%s", h->hint ? h->hint : "<NULL>");
        if (cred) snprintf(cred, TOKEN_MAX, "%s", resolver->session);
    }
    mfa_resolver_free(resolver);
    return remaining;
}
#define hint_of(ctx, user, hint, cred) hint_of_at(ctx, user, hint, cred, __LINE__)

static void test_a_set(void) {
    mfa_ctx *ctx = open_engine(RECOVERY_ON);
    mfa_user user;
    char *session = NULL;
    mfa_recovery_codes *set = NULL;
    char hint[32];
    char *err = NULL;

    reset_recorders();
    user_make(&user, "recovery-user", NULL);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_ERR(mfa_recovery_codes_generate(ctx, &set, session, "paper", &err), MFA_OK, err);
    CHECK(set != NULL);
    if (set) {
        CHECK(set->count == 10);
        for (size_t i = 0; i < set->count; i++) {
            CHECK(set->codes[i] && is_code(set->codes[i]));
            for (size_t j = 0; j < i; j++) CHECK(strcmp(set->codes[i], set->codes[j]) != 0);
        }
        CHECK(set->factor.uid && strlen(set->factor.uid) == 28);
        CHECK(strcmp(set->factor.factor_id, "recovery") == 0);
        CHECK(set->factor.kind == MFA_FACTOR_RECOVERY_CODES);
        CHECK(set->factor.remaining_codes == 10);
        CHECK(set->factor.hint && strcmp(set->factor.hint, "10 codes left") == 0);
        CHECK(set->factor.display_name && strcmp(set->factor.display_name, "paper") == 0);
        CHECK(set->factor.phone_number == NULL);
        CHECK(set->factor.enrollment_time == g_now);
        CHECK(audit_find(0, MFA_AUDIT_ENROLL, "", "recovery-user", set->factor.uid, NULL) != NULL);
        CHECK(audit_last(MFA_AUDIT_ENROLL) && strcmp(audit_last(MFA_AUDIT_ENROLL)->factor_id, "recovery") == 0);
    }
    mfa_recovery_codes_free(set);
    mfa_free(session);
    /* It is listed and hinted like any factor. */
    {
        mfa_factor_list *list = NULL;
        CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
        CHECK(list && list->count == 1 && list->items[0].kind == MFA_FACTOR_RECOVERY_CODES &&
              list->items[0].remaining_codes == 10);
        mfa_factor_list_free(list);
    }
    CHECK(hint_of(ctx, &user, hint, NULL) == 10);
    CHECK(strcmp(hint, "10 codes left") == 0);

    /* The count is configurable from 8 to 16. */
    {
        factor f;
        mfa_user other;
        set_config(ctx, "tenant-16", "{\"recoveryCodes\":{\"count\":16}}");
        user_make(&other, "recovery-16", "tenant-16");
        CHECK_STATUS(generate_codes(ctx, &other, NULL, &f), MFA_OK);
        CHECK(f.code_count == 16);
        set_config(ctx, "tenant-8", "{\"recoveryCodes\":{\"count\":8}}");
        user_make(&other, "recovery-8", "tenant-8");
        CHECK_STATUS(generate_codes(ctx, &other, NULL, &f), MFA_OK);
        CHECK(f.code_count == 8);
    }
    /* Disabled: OPERATION_NOT_ALLOWED (the session itself is fine, TOTP is enabled). */
    {
        factor f;
        mfa_user other;
        set_config(ctx, "tenant-off", "{\"providers\":{\"recovery\":\"DISABLED\"}}");
        user_make(&other, "recovery-off", "tenant-off");
        CHECK_STATUS(generate_codes(ctx, &other, NULL, &f), MFA_ERR_OPERATION_NOT_ALLOWED);
        CHECK(factor_count(ctx, &other) == 0);
    }
    mfa_close(ctx);
}

/* `code` as a user might type it: upper case, spaces for dashes, O for 0 and l for 1. */
static void sloppy(char out[32], const char *code) {
    size_t i;
    for (i = 0; code[i] && i < 31; i++) {
        char c = code[i];
        out[i] = c == '-' ? ' ' : c == '0' ? 'O' : c == '1' ? 'l' : (char)toupper((unsigned char)c);
    }
    out[i] = '\0';
}

static void test_sign_in(void) {
    mfa_ctx *ctx = open_engine(RECOVERY_ON);
    mfa_user user, nobody;
    factor set, totp;
    char cred[TOKEN_MAX], typed[32], hint[32];
    long remaining = 0;
    const char *junk[] = {"", "x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                          ("\xc3\xbb\xc3\xbb\xc3\xbb\xc3\xbb-\xc3\xbb\xc3\xbb\xc3\xbb\xc3\xbb-\xc3\xbb\xc3\xbb"),
                          "uuuu-uuuu-uu", "0000-0000-00"};

    reset_recorders();
    user_make(&user, "recovery-sign-in", NULL);
    CHECK_STATUS(generate_codes(ctx, &user, NULL, &set), MFA_OK);
    g_now += 1;
    /* A code as typed, without the set's enrollment id. */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    sloppy(typed, set.codes[0]);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, typed, &remaining), MFA_OK);
    CHECK(remaining == 9);
    CHECK(audit_last(-1) && audit_last(-1)->kind == MFA_AUDIT_SIGN_IN_SUCCESS &&
          strcmp(audit_last(-1)->factor_id, "recovery") == 0 && strcmp(audit_last(-1)->enrollment_id, set.eid) == 0);
    /* The claims: the two of every sign-in, then the kind's own. */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    {
        mfa_assertion a = assertion_of(MFA_FACTOR_RECOVERY_CODES);
        mfa_sign_in_result *result = NULL;
        a.enrollment_id = set.eid;
        a.code = set.codes[1];
        CHECK_STATUS(mfa_resolve(ctx, &result, cred, NULL, &a, NULL), MFA_OK);
        CHECK(result && result->claim_count == 3);
        if (result && result->claim_count == 3) {
            CHECK(strcmp(result->claims[0].name, "sign_in_second_factor") == 0);
            CHECK(strcmp(result->claims[0].value, "recovery") == 0);
            CHECK(strcmp(result->claims[1].name, "second_factor_identifier") == 0);
            CHECK(strcmp(result->claims[1].value, set.eid) == 0);
            CHECK(strcmp(result->claims[2].name, "recovery_codes_remaining") == 0);
            CHECK(strcmp(result->claims[2].value, "8") == 0);
            CHECK(strcmp(result->enrollment_id, set.eid) == 0 && strcmp(result->uid, "recovery-sign-in") == 0);
        }
        mfa_sign_in_result_free(result);
    }
    CHECK(hint_of(ctx, &user, hint, cred) == 8);
    CHECK(strcmp(hint, "8 codes left") == 0);
    /* Each code once; junk is a wrong code. */
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, set.codes[0], NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, set.eid, set.codes[1], NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        g_now += 2; /* past each backoff lock */
        CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, junk[i], NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    /* Every code, to the last. */
    for (size_t i = 2; i < set.code_count; i++) {
        g_now += 3600; /* past any backoff */
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(resolve_code(ctx, cred, NULL, i % 2 ? set.eid : NULL, set.codes[i], &remaining), MFA_OK);
        CHECK(remaining == (long)(set.code_count - 1 - i));
    }
    g_now += 3600;
    CHECK(hint_of(ctx, &user, hint, cred) == 0);
    CHECK(strcmp(hint, "0 codes left") == 0);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, set.codes[9], NULL), MFA_ERR_INVALID_VERIFICATION_CODE);

    /* Without a set: MFA_ENROLLMENT_NOT_FOUND. */
    user_make(&nobody, "recovery-none", NULL);
    ENROLL_OK(ctx, &nobody, NULL, &totp);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &nobody, cred);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, "0000-0000-00", NULL), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    mfa_close(ctx);
}

/* A set does not count toward the limit; a new one replaces the old; generating revokes. */
static void test_limit_and_replace(void) {
    mfa_ctx *ctx = open_engine(RECOVERY_ON);
    mfa_user user;
    factor totp, first, second;
    char cred[TOKEN_MAX];
    mfa_factor_list *list = NULL;

    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"recovery\":\"ENABLED\"},"
                          "\"limits\":{\"maxFactors\":1}}");
    user_make(&user, "recovery-limit", NULL);
    ENROLL_OK(ctx, &user, NULL, &totp);
    g_now += 5;
    CHECK_STATUS(generate_codes(ctx, &user, NULL, &first), MFA_OK);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "recovery-limit", g_now), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "recovery-limit", g_now + 1), MFA_OK);
    g_now += 5;
    CHECK_STATUS(generate_codes(ctx, &user, "new", &second), MFA_OK);
    CHECK(strcmp(first.eid, second.eid) != 0);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
    CHECK(list && list->count == 2);
    if (list && list->count == 2) {
        CHECK(strcmp(list->items[0].factor_id, "totp") == 0);
        CHECK(strcmp(list->items[1].factor_id, "recovery") == 0 && strcmp(list->items[1].uid, second.eid) == 0);
        CHECK(list->items[1].display_name && strcmp(list->items[1].display_name, "new") == 0);
    }
    mfa_factor_list_free(list);
    g_now += 1;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, first.codes[0], NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, first.eid, first.codes[1], NULL), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, second.eid, second.codes[3], NULL), MFA_OK);
    mfa_close(ctx);
}

int main(void) {
    test_a_set();
    test_sign_in();
    test_limit_and_replace();
    return engine_report();
}
