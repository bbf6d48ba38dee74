/*
 * Backoff through the C ABI: failed second-factor attempts, per factor and per
 * user, back off exponentially and expire by themselves (no lockout).
 *
 *   TOTP brute force    10^4 wrong codes, one a second: the backoff refuses all
 *                       but a few dozen; the right code works past it
 *   TOTP schedule       5 free failures, then 1 s, 2 s, ... locks (per factor
 *                       and per user), capped at backoffMax, forgotten after
 *                       failureMemory; a sign-in clears the count
 *   TOTP replay         a replayed code is a failed attempt like a wrong one
 *   phone               wrong SMS codes across verification ids and pending
 *                       credentials; no SMS while locked
 *   phone brute force   10^4 guesses on one verification id, at enrollment and
 *                       at sign-in: 5 are evaluated
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_totp_brute_force(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    int64_t cred_time = 0;
    int ok = 0, too_many = 0, invalid = 0, other = 0;

    user_make(&user, "brute-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;

    for (int i = 0; i < 10000; i++) {
        int status;
        if (i == 0 || g_now - cred_time >= 240) {
            SIGN_IN_REQUIRED(ctx, &user, cred);
            cred_time = g_now;
        }
        wrong_totp_code(code, f.key, g_now);
        status = resolve(ctx, cred, NULL, f.eid, code);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER) too_many++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) invalid++;
        else {
            if (other == 0) fprintf(stderr, "brute force: unexpected %s\n", mfa_status_name(status));
            other++;
        }
        g_now += 1;
    }
    printf("brute force: 10000 wrong codes, %d evaluated, %d refused by backoff\n", invalid, too_many);
    CHECK(ok == 0);
    CHECK(other == 0);
    CHECK(invalid + too_many == 10000);
    CHECK(invalid >= 6);    /* the free attempts, and backoff ends by itself */
    CHECK(invalid <= 40);   /* the backoff refused the vast majority */

    /* Past the longest backoff the right code works. */
    g_now += 901;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, f.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_OK);
    mfa_close(ctx);
}

/* `n` wrong codes for factor `f` with the pending credential `cred`, each evaluated. */
static void wrong_codes_at(mfa_ctx *ctx, const char *cred, const factor *f, int n, int line) {
    char code[MFA_CODE_BUFFER_SIZE];
    for (int i = 0; i < n; i++) {
        wrong_totp_code(code, f->key, g_now);
        CHECK_STATUS_AT(resolve_at(ctx, cred, NULL, f->eid, code, line), MFA_ERR_INVALID_VERIFICATION_CODE, line);
    }
}
#define wrong_codes(ctx, cred, f, n) wrong_codes_at(ctx, cred, f, n, __LINE__)

/* The backoff schedule, failure memory and the per-user lock, one step at a time. */
static void test_backoff_schedule(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    factor fa, fb;
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];

    user_make(&user, "backoff-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &fa);
    g_now += 30;
    ENROLL_OK(ctx, &user, NULL, &fb);
    g_now += 30;

    /* freeAttempts 5: five failures cost nothing; the sixth locks for backoffBase (1 s). */
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 6);
    /* Locked: even the right code is refused, on this factor and (per user) on the other. */
    code_at(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* One second later: evaluated again; the seventh failure locks for 2 s. */
    g_now += 1;
    wrong_codes(ctx, cred, &fa, 1);
    g_now += 1;
    code_at(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now += 1;
    /* The lock is over: the right code signs in and clears the failures. */
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_OK);

    /* Cleared: five free failures again. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 6);
    wrong_totp_code(code, fa.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fa.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* Build a long backoff ... */
    for (int i = 0; i < 12; i++) {
        g_now += 1000;
        SIGN_IN_REQUIRED(ctx, &user, cred);
        wrong_codes(ctx, cred, &fa, 1);
    }
    /* ... which is capped at backoffMax (900 s). */
    g_now += 899;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* failureMemory (3600 s) after the last failure they are forgotten: five free failures. */
    g_now += 3601 - 899;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    wrong_codes(ctx, cred, &fa, 5);
    code_at(code, fb.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, fb.eid, code), MFA_OK);
    mfa_close(ctx);
}

/* A replayed code counts as a failed attempt (issue 8): five free ones, the sixth locks. */
static void test_totp_replay_is_a_failure(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE], next[MFA_CODE_BUFFER_SIZE];

    reset_recorders();
    user_make(&user, "replay-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    code_at(code, f.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_OK);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    for (int i = 0; i < 6; i++) CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK(audit_count(0, MFA_AUDIT_BACKOFF, NULL) == 1);
    /* Locked: the next step's right code waits for the lock (1 s) to end. */
    code_at(next, f.key, g_now + 30);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, next), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now += 1;
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, next), MFA_OK);
    mfa_close(ctx);
}

static void test_sign_in_backoff(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char eid[64], cred[TOKEN_MAX], cred2[TOKEN_MAX], vid[TOKEN_MAX], vid2[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE], code2[MFA_CODE_BUFFER_SIZE], wrong[MFA_CODE_BUFFER_SIZE];
    unsigned long sent;

    reset_recorders();
    ctx = open_engine(PHONE_ON); /* freeAttempts 5, backoffBase 1 s, doubling */
    user_make(&user, "backoff-user", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105550501", NULL, eid);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);

    /* First verification id: five wrong codes (the free attempts); the id is dead. */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550501", code);
    wrong_sms_code(wrong, code);
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_ERR_INVALID_SESSION);
    CHECK(audit_count(0, MFA_AUDIT_BACKOFF, NULL) == 0);

    /* Second verification id: the next wrong code starts the backoff. */
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid2), MFA_OK);
    sms_code("+15105550501", code2);
    wrong_sms_code(wrong, code2);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK(audit_count(0, MFA_AUDIT_BACKOFF, NULL) == 1);
    /* During the backoff nothing is evaluated, not even the right code, and no SMS goes out. */
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    sent = g_sms.calls;
    g_now += 31;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE); /* 2 s lock */
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* A new pending credential does not escape the backoff. */
    SIGN_IN_REQUIRED(ctx, &user, cred2);
    CHECK_STATUS(start_sign_in(ctx, cred2, NULL, eid, GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(g_sms.calls == sent);
    g_now += 1;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    g_now += 2;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, wrong), MFA_ERR_INVALID_VERIFICATION_CODE); /* 4 s lock */
    g_now += 3;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    CHECK(audit_count(0, MFA_AUDIT_BACKOFF, NULL) == 3);
    /* After it, the right code of the second id (3 wrong tries, 2 left) signs in and clears the count. */
    g_now += 2;
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid2, code2), MFA_OK);
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550501", code);
    wrong_sms_code(wrong, code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    mfa_close(ctx);
}

#define GUESSES 10000

/* Guess `i` of GUESSES at `code`: the code itself as the 6th and the last, otherwise
 * the next of 000000, 000001, ... that is not the code. */
static void next_guess(char guess[MFA_CODE_BUFFER_SIZE], const char *code, int i, int *next) {
    if (i == 5 || i == GUESSES - 1) {
        snprintf(guess, MFA_CODE_BUFFER_SIZE, "%s", code);
    } else {
        snprintf(guess, MFA_CODE_BUFFER_SIZE, "%06d", (*next)++);
        if (strcmp(guess, code) == 0) snprintf(guess, MFA_CODE_BUFFER_SIZE, "%06d", (*next)++);
    }
}

static void test_phone_brute_force(void) {
    mfa_ctx *ctx;
    mfa_user user;
    char vid[TOKEN_MAX], cred[TOKEN_MAX], eid[64], code[MFA_CODE_BUFFER_SIZE], guess[MFA_CODE_BUFFER_SIZE];
    int ok, evaluated, other, next;

    reset_recorders();
    ctx = open_engine(PHONE_ON);
    user_make(&user, "brute-user", NULL);

    /* Enrollment: five wrong, then the real code (6th), then the rest of 10^4, then the real code again. */
    CHECK_STATUS(start_enroll(ctx, &user, "+15105550701", GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    ok = evaluated = other = 0;
    next = 0;
    for (int i = 0; i < GUESSES; i++) {
        int status;
        next_guess(guess, code, i, &next);
        status = finish_enroll(ctx, &user, vid, guess, NULL, NULL, NULL);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) evaluated++;
        else if (status != MFA_ERR_INVALID_SESSION) other++;
    }
    printf("enrollment: %d guesses on one verification id: %d accepted, %d evaluated\n", GUESSES, ok, evaluated);
    CHECK(ok == 0);
    CHECK(evaluated == 5);
    CHECK(other == 0);
    CHECK(factor_count(ctx, &user) == 0);
    /* A new code still enrolls. */
    g_now += 31;
    ENROLL_PHONE_OK(ctx, &user, "+15105550701", NULL, eid);

    /* Sign-in, the same way. */
    g_now += 31;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    ok = evaluated = other = 0;
    next = 0;
    for (int i = 0; i < GUESSES; i++) {
        int status;
        mfa_sign_in_result *result = NULL;
        next_guess(guess, code, i, &next);
        status = mfa_resolve_phone(ctx, &result, cred, NULL, vid, guess, NULL);
        mfa_sign_in_result_free(result);
        if (status == MFA_OK) ok++;
        else if (status == MFA_ERR_INVALID_VERIFICATION_CODE) evaluated++;
        else if (status != MFA_ERR_INVALID_SESSION && status != MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER) other++;
    }
    printf("sign-in: %d guesses on one verification id: %d accepted, %d evaluated\n", GUESSES, ok, evaluated);
    CHECK(ok == 0);
    CHECK(evaluated == 5);
    CHECK(other == 0);
    /* A new code on the same pending credential signs in. */
    g_now += 31;
    CHECK_STATUS(start_sign_in(ctx, cred, NULL, eid, GOOD_CRED, vid), MFA_OK);
    sms_code("+15105550701", code);
    CHECK_STATUS(resolve_phone(ctx, cred, NULL, vid, code), MFA_OK);
    mfa_close(ctx);
}

int main(void) {
    test_totp_brute_force();
    test_backoff_schedule();
    test_totp_replay_is_a_failure();
    test_sign_in_backoff();
    test_phone_brute_force();
    return engine_report();
}
