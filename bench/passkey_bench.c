/*
 * Passkey sign-ins against today's WebAuthn second-factor sign-ins, on one
 * SQLite store (bench/passkey_signin.sh runs it).
 *
 * USERS users each register one passkey (an Ed25519 key of the software
 * authenticator of the C tests, Tests/c/test_webauthn_authenticator.h); then
 * the same users sign in both ways, in alternating rounds:
 *   second factor  mfa_sign_in (the password passed), mfa_webauthn_authentication_options
 *                  for the resolver, the key's answer, mfa_resolve
 *   passkey        mfa_passkey_sign_in_options, the key's answer, mfa_passkey_sign_in
 * Only libmfa's calls are timed (the key's signature is the browser's work,
 * the same in both). The stored path: every sign-in reads and writes the
 * store, nothing is remembered between calls but what libmfa remembers itself.
 *
 *   passkey_bench USERS SIGN_INS ROUNDS DIR        prints: rate_second rate_passkey (sign-ins per second)
 *   passkey_bench USERS SIGN_INS cg-second DIR     SIGN_INS second-factor sign-ins inside measured_second()
 *   passkey_bench USERS SIGN_INS cg-passkey DIR    SIGN_INS passkey sign-ins inside measured_passkey()
 * (the last two for callgrind --toggle-collect: instruction counts, repeatable on a busy machine).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"
#include "test_webauthn_authenticator.h"

#define CONFIG                                                                                          \
    "{\"state\":\"ENABLED\",\"providers\":{\"webauthn\":\"ENABLED\"},\"webauthn\":{\"rpId\":\"example.com\"," \
    "\"origins\":[\"https://example.com\"],\"passkeySignIn\":true}}"

static const uint8_t KEY[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

static void die(const char *what, int status, char *err) {
    fprintf(stderr, "%s: %s (%s)\n", what, mfa_status_name(status), err ? err : "");
    exit(1);
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static mfa_ctx *ctx;
static webauthn_key *keys;
static mfa_user *users;
static char (*uids)[32];
static double timed; /* seconds spent in libmfa's calls */

static void user_of(int i, mfa_user *user) {
    if (mfa_user_init(user, MFA_USER_VERSION) != MFA_OK) die("mfa_user_init", MFA_ERR_INTERNAL, NULL);
    user->uid = uids[i];
    user->email = "user@example.com";
    user->email_verified = 1;
    user->auth_time = (int64_t)time(NULL);
}

static void enroll(int i) {
    char *session = NULL, *options = NULL, *err = NULL, json[4096];
    mfa_webauthn_options ceremony = MFA_WEBAUTHN_OPTIONS_INIT;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    mfa_factor_info *info = NULL;
    int status;
    snprintf(uids[i], sizeof uids[i], "user-%06d", i);
    user_of(i, &users[i]);
    webauthn_key_new(&keys[i], NULL);
    keys[i].passkey = 1;
    ceremony.resident_key = "required";
    ceremony.user_verification = "required";
    if ((status = mfa_session_new(ctx, &session, &users[i], &err)) != MFA_OK) die("mfa_session_new", status, err);
    status = mfa_webauthn_registration_options_ext(ctx, &options, session, "user@example.com", NULL, &ceremony, &err);
    if (status != MFA_OK) die("registration options", status, err);
    if (!webauthn_register(json, sizeof json, &keys[i], options)) die("register", MFA_ERR_INTERNAL, NULL);
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    if ((status = mfa_enroll(ctx, &info, &users[i], &assertion, "passkey", &err)) != MFA_OK) die("enroll", status, err);
    mfa_factor_info_free(info);
    mfa_free(session);
    mfa_free(options);
}

/* One sign-in with the password and then the key as a second factor. */
static void second_factor(int i) {
    char *options = NULL, *err = NULL, json[4096];
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    double start = seconds();
    int status = mfa_sign_in(ctx, &resolver, &users[i], &err);
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) die("mfa_sign_in", status, err);
    mfa_free(err);
    err = NULL;
    status = mfa_webauthn_authentication_options(ctx, &options, resolver->session, NULL, NULL, &err);
    if (status != MFA_OK) die("authentication options", status, err);
    timed += seconds() - start;
    webauthn_assert(json, sizeof json, &keys[i], options, 0);
    start = seconds();
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    if ((status = mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, &err)) != MFA_OK) {
        die("mfa_resolve", status, err);
    }
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    mfa_free(options);
    timed += seconds() - start;
}

/* One sign-in with the passkey alone. */
static void passkey(int i) {
    char *options = NULL, *err = NULL, json[4096];
    mfa_sign_in_result *result = NULL;
    double start = seconds();
    int status = mfa_passkey_sign_in_options(ctx, &options, NULL, NULL, &err);
    if (status != MFA_OK) die("passkey options", status, err);
    timed += seconds() - start;
    webauthn_assert(json, sizeof json, &keys[i], options, 0);
    start = seconds();
    if ((status = mfa_passkey_sign_in(ctx, &result, NULL, json, &err)) != MFA_OK) die("mfa_passkey_sign_in", status, err);
    mfa_sign_in_result_free(result);
    mfa_free(options);
    timed += seconds() - start;
}

/* What callgrind counts (--toggle-collect): `count` sign-ins of one kind (never inlined: callgrind sees the call). */
__attribute__((noinline)) void measured_second(int count, int users_count);
__attribute__((noinline)) void measured_passkey(int count, int users_count);
void measured_second(int count, int users_count) {
    for (int n = 0; n < count; n++) second_factor(n % users_count);
}
void measured_passkey(int count, int users_count) {
    for (int n = 0; n < count; n++) passkey(n % users_count);
}

int main(int argc, char **argv) {
    mfa_options options;
    char store[512], *err = NULL;
    int count, sign_ins, status;
    if (argc != 5) {
        fprintf(stderr, "usage: %s USERS SIGN_INS ROUNDS|cg-second|cg-passkey DIR\n", argv[0]);
        return 2;
    }
    count = atoi(argv[1]);
    sign_ins = atoi(argv[2]);
    snprintf(store, sizeof store, "%s/passkeys-%ld.sqlite", argv[4], (long)getpid());
    if (mfa_options_init(&options, MFA_OPTIONS_VERSION) != MFA_OK) return 1;
    options.store = store;
    options.master_key.id = "bench";
    options.master_key.key = KEY;
    if ((status = mfa_open(&ctx, &options, &err)) != MFA_OK) die("mfa_open", status, err);
    if ((status = mfa_config_set_json(ctx, NULL, CONFIG, &err)) != MFA_OK) die("config", status, err);
    keys = calloc((size_t)count, sizeof *keys);
    users = calloc((size_t)count, sizeof *users);
    uids = calloc((size_t)count, sizeof *uids);
    if (!keys || !users || !uids) return 1;
    for (int i = 0; i < count; i++) enroll(i);
    sleep(1); /* every sign-in after the enrollments' revocations, whatever the clock's resolution */
    /* Warm both paths (statements prepared, pages cached). */
    for (int i = 0; i < count && i < 50; i++) second_factor(i), passkey(i);
    if (strcmp(argv[3], "cg-second") == 0) {
        measured_second(sign_ins, count);
    } else if (strcmp(argv[3], "cg-passkey") == 0) {
        measured_passkey(sign_ins, count);
    } else {
        int rounds = atoi(argv[3]);
        double best_second = 0, best_passkey = 0;
        for (int r = 0; r < rounds; r++) {
            timed = 0;
            measured_second(sign_ins, count);
            if (sign_ins / timed > best_second) best_second = sign_ins / timed;
            timed = 0;
            measured_passkey(sign_ins, count);
            if (sign_ins / timed > best_passkey) best_passkey = sign_ins / timed;
        }
        printf("%.0f %.0f\n", best_second, best_passkey);
    }
    mfa_close(ctx);
    unlink(store);
    snprintf(store + strlen(store), sizeof store - strlen(store), "-wal");
    unlink(store);
    return 0;
}
