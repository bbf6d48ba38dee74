/*
 * The injected random source through the C ABI (mfa_options.random): the
 * same stream gives the same secret and enrollment id, another stream
 * another; a source that fails is MFA_ERR_CRYPTO and uses nothing up; a
 * source that repeats itself (all 0x00, all 0xFF, a short cycle) never
 * makes a call loop: recovery codes, which must be distinct, are
 * MFA_ERR_CRYPTO, and every other call that draws returns (an alarm catches
 * a hang).
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <unistd.h>

#include "test_engine_fixture.h"

static int make_secret(mfa_ctx *ctx, const mfa_user *user, char key[128], char eid[64]) {
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    int status = mfa_session_new(ctx, &session, user, NULL);
    key[0] = eid[0] = '\0';
    if (status == MFA_OK) status = mfa_totp_generate_secret(ctx, &secret, session, NULL);
    if (status == MFA_OK) {
        snprintf(key, 128, "%s", secret->shared_secret_key);
        code_at(code, secret->shared_secret_key, g_now);
        status = mfa_totp_enroll(ctx, &info, user, secret->session_info, code, NULL, NULL);
        if (status == MFA_OK) snprintf(eid, 64, "%s", info->uid);
    }
    mfa_factor_info_free(info);
    mfa_totp_secret_free(secret);
    mfa_free(session);
    return status;
}

static void test_random(void) {
    test_rng r1 = {42, 0, 0}, r2 = {42, 0, 0}, r3 = {7, 0, 0};
    mfa_options options;
    mfa_ctx *c1, *c2, *c3;
    mfa_user user;
    char k1[128], k2[128], k3[128], e1[64], e2[64], e3[64];

    test_options(&options, ":memory:", &g_now);
    options.random = rng_fill;
    options.random_context = &r1;
    c1 = open_with(&options);
    options.random_context = &r2;
    c2 = open_with(&options);
    options.random_context = &r3;
    c3 = open_with(&options);
    set_config(c1, NULL, ENABLE_TOTP);
    set_config(c2, NULL, ENABLE_TOTP);
    set_config(c3, NULL, ENABLE_TOTP);
    user_make(&user, "random-user", NULL);

    CHECK_STATUS(make_secret(c1, &user, k1, e1), MFA_OK);
    CHECK_STATUS(make_secret(c2, &user, k2, e2), MFA_OK);
    CHECK_STATUS(make_secret(c3, &user, k3, e3), MFA_OK);
    /* The same random stream gives the same secret (and enrollment id); another stream another. */
    CHECK(k1[0] != '\0' && strcmp(k1, k2) == 0);
    CHECK(e1[0] != '\0' && strcmp(e1, e2) == 0);
    CHECK(strcmp(k1, k3) != 0);
    CHECK(strcmp(e1, e3) != 0);
    CHECK(r1.calls > 0 && r1.calls == r2.calls);

    /* A random source that fails: MFA_ERR_CRYPTO, nothing returned. */
    {
        char *session = NULL;
        mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
        char *err = NULL;
        g_now += 30;
        user.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(c1, &session, &user, NULL), MFA_OK);
        r1.fail = 1;
        CHECK_ERR(mfa_totp_generate_secret(c1, &secret, session, &err), MFA_ERR_CRYPTO, err);
        CHECK(secret == NULL);
        {
            char *other = (char *)"sentinel";
            CHECK(mfa_session_new(c1, &other, &user, NULL) != MFA_OK);
            CHECK(other == NULL);
        }
        /* The session was not used up: it works once the source recovers. */
        r1.fail = 0;
        CHECK_STATUS(mfa_totp_generate_secret(c1, &secret, session, NULL), MFA_OK);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    mfa_close(c1);
    mfa_close(c2);
    mfa_close(c3);
}

/* A source that repeats itself: every call fills with one byte, taken in turn from `bytes`
 * (one byte: all 0x00 or all 0xFF; several: a short cycle). */
typedef struct repeating_rng {
    const char *name;
    uint8_t bytes[4];
    size_t count;
    unsigned long calls;
} repeating_rng;

static int repeating_fill(void *context, uint8_t *out, size_t len) {
    repeating_rng *rng = context;
    memset(out, rng->bytes[rng->calls++ % rng->count], len);
    return 0;
}

static void on_alarm(int signal) {
    static const char message[] = "test_engine_random: a call over a repeating random source did not return "
                                  "in 60 s (an endless draw loop)\n";
    (void)signal;
    if (write(2, message, sizeof message - 1) < 0) _exit(2);
    _exit(1);
}

/* Every call that draws from the host's source, over a source that repeats itself:
 * mfa_recovery_codes_generate needs distinct codes and fails with MFA_ERR_CRYPTO
 * (it looped for ever); the others return OK or MFA_ERR_CRYPTO, never hang. */
static void test_random_callback_repeats_recovery_codes(void) {
    repeating_rng sources[] = {
        {"all 0x00", {0x00}, 1, 0},
        {"all 0xFF", {0xff}, 1, 0},
        {"a cycle of three", {0x00, 0x5a, 0xff}, 3, 0},
    };
    signal(SIGALRM, on_alarm);
    alarm(60);
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        repeating_rng *rng = &sources[i];
        mfa_options options;
        mfa_ctx *ctx;
        mfa_user user;
        char *session = NULL, *err = NULL, vid[TOKEN_MAX];
        mfa_recovery_codes *set = (mfa_recovery_codes *)&set;
        mfa_totp_secret *secret = NULL;
        mfa_resolver *resolver = NULL;
        int status;
        printf("a random source that repeats: %s\n", rng->name);
        fixture_options(&options, ":memory:");
        options.random = repeating_fill;
        options.random_context = rng;
        ctx = open_with(&options);
        set_config(ctx, NULL, ALL_KINDS_ON);
        user_make(&user, "repeating-user", NULL);

        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        status = mfa_recovery_codes_generate(ctx, &set, session, NULL, &err);
        CHECK(err != NULL && strstr(err, "random") != NULL);
        CHECK_ERR(status, MFA_ERR_CRYPTO, err);
        CHECK(set == NULL);

        /* The other draws: a TOTP secret and its enrollment, an SMS code, a sign-in. */
        status = mfa_totp_generate_secret(ctx, &secret, session, NULL);
        CHECK(status == MFA_OK || status == MFA_ERR_CRYPTO);
        if (secret) {
            char code[MFA_CODE_BUFFER_SIZE];
            mfa_factor_info *info = NULL;
            code_at(code, secret->shared_secret_key, g_now);
            status = mfa_totp_enroll(ctx, &info, &user, secret->session_info, code, NULL, NULL);
            CHECK(status == MFA_OK || status == MFA_ERR_CRYPTO);
            mfa_factor_info_free(info);
        }
        mfa_totp_secret_free(secret);
        mfa_free(session);
        g_now += 1; /* after the enrollment's revocation */
        /* The new session's id repeats the used one's (the host's source gives the ids):
         * INVALID_SESSION then, as the source's own doing. */
        status = start_enroll(ctx, &user, "+15105550100", GOOD_CRED, vid);
        CHECK(status == MFA_OK || status == MFA_ERR_CRYPTO || status == MFA_ERR_INVALID_SESSION);
        status = mfa_sign_in(ctx, &resolver, &user, NULL);
        CHECK(status == MFA_OK || status == MFA_ERR_SECOND_FACTOR_REQUIRED || status == MFA_ERR_CRYPTO);
        mfa_resolver_free(resolver);
        CHECK(rng->calls > 0);
        mfa_close(ctx);
    }
    alarm(0);
}

int main(void) {
    test_random();
    test_random_callback_repeats_recovery_codes();
    return engine_report();
}
