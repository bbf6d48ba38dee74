/*
 * test_radius_core.c: the parts of rlm_mfa without FreeRADIUS: the table of
 * challenges (single use, expiry, capacity, foreign or malformed States, many
 * threads), the factor list and its reply convention, and the SMS program.
 * The module itself is tested with a real FreeRADIUS (radius/tests/).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../../Tests/c/test_support.h"
#include "challenges.h"
#include "second_factor.h"
#include "sms_program.h"

static mfa_radius_challenge *challenge(const char *uid, int64_t expires) {
    return mfa_radius_challenge_new(uid, "nas", "pending", "enrollment", MFA_FACTOR_TOTP, NULL, expires);
}

static void test_a_state_is_taken_once(void) {
    mfa_radius_challenges *t = mfa_radius_challenges_new(10);
    uint8_t state[MFA_RADIUS_STATE_BYTES];
    CHECK(mfa_radius_challenges_put(t, challenge("alice", 100), 50, state) == MFA_RADIUS_PUT_OK);
    CHECK(mfa_radius_is_state(state, sizeof state));
    CHECK(memcmp(state, MFA_RADIUS_STATE_PREFIX, MFA_RADIUS_STATE_PREFIX_BYTES) == 0);
    CHECK(mfa_radius_challenges_count(t) == 1);
    mfa_radius_challenge *c = mfa_radius_challenges_take(t, state, sizeof state, 60);
    CHECK(c && strcmp(c->uid, "alice") == 0 && strcmp(c->pending, "pending") == 0 && c->kind == MFA_FACTOR_TOTP);
    mfa_radius_challenge_free(c);
    CHECK(mfa_radius_challenges_take(t, state, sizeof state, 60) == NULL);
    CHECK(mfa_radius_challenges_count(t) == 0);
    mfa_radius_challenges_free(t);
}

static void test_an_expired_state_is_refused_and_removed(void) {
    mfa_radius_challenges *t = mfa_radius_challenges_new(10);
    uint8_t state[MFA_RADIUS_STATE_BYTES];
    CHECK(mfa_radius_challenges_put(t, challenge("alice", 100), 50, state) == MFA_RADIUS_PUT_OK);
    CHECK(mfa_radius_challenges_take(t, state, sizeof state, 101) == NULL);
    CHECK(mfa_radius_challenges_count(t) == 0);
    /* At its last second it is still good. */
    CHECK(mfa_radius_challenges_put(t, challenge("bob", 100), 50, state) == MFA_RADIUS_PUT_OK);
    mfa_radius_challenge *c = mfa_radius_challenges_take(t, state, sizeof state, 100);
    CHECK(c != NULL);
    mfa_radius_challenge_free(c);
    mfa_radius_challenges_free(t);
}

static void test_states_differ_and_foreign_ones_are_not_found(void) {
    mfa_radius_challenges *t = mfa_radius_challenges_new(10);
    uint8_t a[MFA_RADIUS_STATE_BYTES], b[MFA_RADIUS_STATE_BYTES], forged[MFA_RADIUS_STATE_BYTES];
    CHECK(mfa_radius_challenges_put(t, challenge("alice", 100), 0, a) == MFA_RADIUS_PUT_OK);
    CHECK(mfa_radius_challenges_put(t, challenge("bob", 100), 0, b) == MFA_RADIUS_PUT_OK);
    CHECK(memcmp(a, b, sizeof a) != 0);
    memcpy(forged, a, sizeof a);
    forged[MFA_RADIUS_STATE_BYTES - 1] ^= 1;
    CHECK(mfa_radius_challenges_take(t, forged, sizeof forged, 0) == NULL);
    /* Malformed: short, long, another prefix, NULL. */
    CHECK(!mfa_radius_is_state(a, sizeof a - 1) && mfa_radius_challenges_take(t, a, sizeof a - 1, 0) == NULL);
    uint8_t longer[MFA_RADIUS_STATE_BYTES + 1] = {0};
    memcpy(longer, a, sizeof a);
    CHECK(!mfa_radius_is_state(longer, sizeof longer) && mfa_radius_challenges_take(t, longer, sizeof longer, 0) == NULL);
    memcpy(forged, a, sizeof a);
    forged[0] = 'x';
    CHECK(!mfa_radius_is_state(forged, sizeof forged) && mfa_radius_challenges_take(t, forged, sizeof forged, 0) == NULL);
    CHECK(!mfa_radius_is_state(NULL, 0) && mfa_radius_challenges_take(t, NULL, 0, 0) == NULL);
    CHECK(mfa_radius_challenges_count(t) == 2);
    mfa_radius_challenge *c = mfa_radius_challenges_take(t, b, sizeof b, 0);
    CHECK(c && strcmp(c->uid, "bob") == 0);
    mfa_radius_challenge_free(c);
    mfa_radius_challenges_free(t);
}

static void test_a_full_table_refuses_until_challenges_expire(void) {
    mfa_radius_challenges *t = mfa_radius_challenges_new(3);
    uint8_t state[MFA_RADIUS_STATE_BYTES];
    for (int i = 0; i < 3; i++) CHECK(mfa_radius_challenges_put(t, challenge("u", 100 + i), 0, state) == MFA_RADIUS_PUT_OK);
    CHECK(mfa_radius_challenges_put(t, challenge("u", 200), 50, state) == MFA_RADIUS_PUT_FULL);
    CHECK(mfa_radius_challenges_count(t) == 3);
    /* At 102 two have expired (at 100 and 101): they make room. */
    CHECK(mfa_radius_challenges_put(t, challenge("u", 200), 102, state) == MFA_RADIUS_PUT_OK);
    CHECK(mfa_radius_challenges_count(t) == 2);
    CHECK(mfa_radius_challenges_new(0) == NULL);
    mfa_radius_challenges_free(t);
    mfa_radius_challenges_free(NULL);
    mfa_radius_challenge_free(NULL);
    CHECK(mfa_radius_challenge_new(NULL, "nas", "p", NULL, 0, NULL, 0) == NULL);
}

/* Threads put and take their own challenges at once: each is taken once, by its owner. */
#define THREADS 8
#define ROUNDS 2000
static mfa_radius_challenges *shared;
static int thread_failures;

static void *put_and_take(void *arg) {
    (void)arg;
    uint8_t state[MFA_RADIUS_STATE_BYTES];
    for (int i = 0; i < ROUNDS; i++) {
        if (mfa_radius_challenges_put(shared, challenge("t", 1000), 0, state) != MFA_RADIUS_PUT_OK) {
            __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
            continue;
        }
        mfa_radius_challenge *c = mfa_radius_challenges_take(shared, state, sizeof state, 0);
        if (!c) __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
        mfa_radius_challenge_free(c);
        if (mfa_radius_challenges_take(shared, state, sizeof state, 0)) __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_threads_share_a_table(void) {
    shared = mfa_radius_challenges_new(THREADS);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, put_and_take, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    CHECK(thread_failures == 0);
    CHECK(mfa_radius_challenges_count(shared) == 0);
    mfa_radius_challenges_free(shared);
}

static void test_the_reply_convention(void) {
    CHECK(mfa_radius_choice("1", 3) == 0);
    CHECK(mfa_radius_choice(" 3 ", 3) == 2);
    CHECK(mfa_radius_choice("4", 3) == -1);
    CHECK(mfa_radius_choice("0", 3) == -1);
    CHECK(mfa_radius_choice("", 3) == -1);
    CHECK(mfa_radius_choice("1a", 3) == -1);
    CHECK(mfa_radius_choice("-1", 3) == -1);
    CHECK(mfa_radius_choice("001", 3) == -1);
    CHECK(mfa_radius_choice("12", 12) == 11);
    /* A code is never a choice. */
    CHECK(mfa_radius_choice("123456", 5) == -1);
}

static void test_which_factors_are_offered(void) {
    mfa_factor_info hints[5] = {0};
    hints[0] = (mfa_factor_info){.uid = "a", .factor_id = "totp", .kind = MFA_FACTOR_TOTP, .hint = "authenticator app",
                                 .remaining_codes = -1, .display_name = "Work phone"};
    hints[1] = (mfa_factor_info){.uid = "b", .factor_id = "webauthn", .kind = MFA_FACTOR_WEBAUTHN, .hint = "security key",
                                 .remaining_codes = -1};
    hints[2] = (mfa_factor_info){.uid = "c", .factor_id = "phone", .kind = MFA_FACTOR_PHONE, .hint = "+1******1234",
                                 .remaining_codes = -1};
    hints[3] = (mfa_factor_info){.uid = "d", .factor_id = "recovery", .kind = MFA_FACTOR_RECOVERY_CODES,
                                 .hint = "0 codes left", .remaining_codes = 0};
    /* A kind this module has never heard of (added to libmfa later) is typed. */
    hints[4] = (mfa_factor_info){.uid = "e", .factor_id = "hotp", .kind = 99, .hint = "hardware token",
                                 .remaining_codes = -1};
    mfa_resolver r = {.session = "p", .uid = "u", .hint_count = 5, .hints = hints};
    size_t usable[MFA_RADIUS_FACTORS_MAX], typed = 0;
    size_t n = mfa_radius_usable_factors(&r, usable, &typed);
    CHECK(n == 3 && typed == 2);
    CHECK(usable[0] == 0 && usable[1] == 2 && usable[2] == 4);
    CHECK(mfa_radius_factor_use(&hints[2]) == MFA_RADIUS_SENT);
    char text[128];
    mfa_radius_describe(text, sizeof text, &hints[0]);
    CHECK(strcmp(text, "authenticator app (Work phone)") == 0);
    mfa_radius_describe(text, sizeof text, &hints[2]);
    CHECK(strcmp(text, "SMS to +1******1234") == 0);
    hints[3].hint = "7 codes left";
    hints[3].remaining_codes = 7;
    mfa_radius_describe(text, sizeof text, &hints[3]);
    CHECK(strcmp(text, "recovery code (7 codes left)") == 0);
    CHECK(mfa_radius_factor_use(&hints[3]) == MFA_RADIUS_TYPED);
    mfa_radius_describe(text, sizeof text, &hints[4]);
    CHECK(strcmp(text, "hardware token") == 0);
}

/* A program at `path` made of `script`. */
static void write_program(const char *path, const char *script) {
    FILE *f = fopen(path, "w");
    fputs(script, f);
    fclose(f);
    chmod(path, 0700);
}

static void test_the_sms_program(void) {
    char dir[] = "/tmp/radius-core-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char program[256], received[256], command[600], why[256];
    snprintf(program, sizeof program, "%s/send", dir);
    snprintf(received, sizeof received, "%s/received", dir);
    snprintf(command, sizeof command, "#!/bin/sh\ncat > %s\necho \"$PATH\" >> %s\n", received, received);
    write_program(program, command);
    CHECK(mfa_radius_sms_program(program, "+15555550100", "123456 is your code.", 2000, why, sizeof why) == 0);
    FILE *f = fopen(received, "r");
    char text[256] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strcmp(text, "+15555550100\n123456 is your code.\n/usr/local/bin:/usr/bin:/bin\n") == 0);

    write_program(program, "#!/bin/sh\nexit 3\n");
    CHECK(mfa_radius_sms_program(program, "+15555550100", "123456", 2000, why, sizeof why) == -1);
    CHECK(strstr(why, "status 3") != NULL && strstr(why, "+1555") == NULL && strstr(why, "123456") == NULL);

    /* A program that never ends, with a child of its own: both are killed at the timeout. */
    write_program(program, "#!/bin/sh\nsleep 30 &\nsleep 30\n");
    CHECK(mfa_radius_sms_program(program, "+15555550100", "123456", 300, why, sizeof why) == -1);
    CHECK(strstr(why, "did not finish within 300 ms") != NULL);

    /* A program that leaves without reading its input. */
    write_program(program, "#!/bin/sh\nexit 0\n");
    CHECK(mfa_radius_sms_program(program, "+15555550100", "123456", 2000, why, sizeof why) == 0);

    snprintf(command, sizeof command, "%s/missing", dir);
    CHECK(mfa_radius_sms_program(command, "+15555550100", "123456", 2000, why, sizeof why) == -1);
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(mfa_radius_sms_program(program, "+15555550100", big, 2000, why, sizeof why) == -1);
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK(system(command) == 0);
}

int main(void) {
    test_a_state_is_taken_once();
    test_an_expired_state_is_refused_and_removed();
    test_states_differ_and_foreign_ones_are_not_found();
    test_a_full_table_refuses_until_challenges_expire();
    test_threads_share_a_table();
    test_the_reply_convention();
    test_which_factors_are_offered();
    test_the_sms_program();
    return test_report();
}
