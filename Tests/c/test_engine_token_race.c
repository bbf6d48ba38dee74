/*
 * Races between OS processes on one hardware token's code, through the C
 * ABI, on the race machinery of test_race_support.h (worker processes on one
 * store, a shared clock, a start line that releases them at once).
 *
 *  hotp        200 rounds: two processes, each with a pending credential of
 *              its own, resolve with the same HOTP code at the same moment:
 *              exactly one MFA_OK (the counter moves past the code in the
 *              write that accepts it); the loser gets
 *              MFA_ERR_INVALID_VERIFICATION_CODE and its credential, left
 *              unused, resolves afterwards with the next code.
 *  yubico_otp  the same with one Yubico OTP (test_yubikey.h): exactly one
 *              MFA_OK; the loser's credential resolves with the next touch.
 *
 * Usage: engine_token_race_test [LOCATION] (a new SQLite file by default, or
 * PostgreSQL: test_pg_store.h). Built by CTest with gcc and clang at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (glibc) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfa.h"
#include "test_support.h"
#include "test_yubikey.h"

#define WORKERS 2
#define PAIR 2
#define TOKEN_ROUNDS 200

enum op { OP_EXIT = 0, OP_OPEN, OP_STEP, OP_RESOLVE_TOKEN };
enum step { STEP_ENROLL };

/* Everything the processes share, in one MAP_SHARED | MAP_ANONYMOUS mapping. */
typedef struct shared {
    volatile int64_t now;
    volatile int ready;
    volatile int go;
    volatile int round;
    struct timespec started[WORKERS];
    struct timespec ended[WORKERS];
    char store[1200];
    int step;
    int step_status;
    int status[WORKERS];
    char h_uid[64];
    char h_session[TOKEN_MAX];
    char h_out_eid[64];
    /* A round: the token's kind (MFA_FACTOR_HOTP or _YUBICO_OTP) and what each of the pair sends. */
    int32_t pkind;
    char pcred[PAIR][TOKEN_MAX];
    char peid[PAIR][64];
    char potp[PAIR][YUBIKEY_OTP_MAX];
} shared;

#include "test_race_support.h"

static mfa_ctx *open_store(void) {
    mfa_options options;
    if (race_options(&options) != MFA_OK) return NULL;
    return race_open(&options);
}

/* No hand-off steps here. */
static int do_step(mfa_ctx *ctx, int step) {
    (void)ctx;
    (void)step;
    return MFA_ERR_INTERNAL;
}

/* A worker's part in a round: one mfa_resolve with the pair's code. */
static void worker_op(mfa_ctx *ctx, int index, unsigned char op) {
    if (op != OP_RESOLVE_TOKEN) return;
    mfa_sign_in_result *out = NULL;
    mfa_assertion a = MFA_ASSERTION_INIT;
    a.kind = sh->pkind;
    a.enrollment_id = sh->peid[index];
    a.code = sh->potp[index];
    start_line(index, 0);
    sh->status[index] = mfa_resolve(ctx, &out, sh->pcred[index], NULL, &a, NULL);
    finish_line(index);
    mfa_sign_in_result_free(out);
}

/* Resolves `cred` with a hardware token's code (or OTP). */
static int resolve_token(mfa_ctx *ctx, const char *cred, int32_t kind, const char *eid, const char *code) {
    mfa_sign_in_result *out = NULL;
    mfa_assertion a = MFA_ASSERTION_INIT;
    int status;
    a.kind = kind;
    a.enrollment_id = eid;
    a.code = code;
    status = mfa_resolve(ctx, &out, cred, NULL, &a, NULL);
    mfa_sign_in_result_free(out);
    return status;
}

/* One HOTP code, or one Yubico OTP, from two processes with pending credentials of their own. */
static void race_token(mfa_ctx *ctx, int32_t kind) {
    static const uint8_t secret[20] = {0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x30,
                                       0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x30};
    const char *uid = kind == MFA_FACTOR_HOTP ? "race-hotp" : "race-yubikey";
    mfa_token_seed seed = MFA_TOKEN_SEED_INIT;
    mfa_factor_info *info = NULL;
    mfa_user user;
    yubikey key;
    char eid[64], next[YUBIKEY_OTP_MAX];
    int rounds_ok = 0, losers_session = 0, losers_code = 0, overlaps = 0, round;
    user_make(&user, uid, NULL);
    yubikey_make(&key, 42);
    seed.kind = kind;
    if (kind == MFA_FACTOR_HOTP) {
        seed.secret = secret;
        seed.secret_len = 20;
    } else {
        seed.secret = key.key;
        seed.secret_len = 16;
        seed.public_id = key.public_id;
        seed.private_id = key.private_id;
        seed.private_id_len = 6;
    }
    CHECK_STATUS(mfa_token_import(ctx, &info, &seed, &user, NULL, NULL, "ops", NULL), MFA_OK);
    if (!info) return;
    snprintf(eid, sizeof eid, "%s", info->uid);
    mfa_factor_info_free(info);
    sh->pkind = kind;
    uint64_t counter = 0;
    for (round = 0; round < TOKEN_ROUNDS; round++) {
        int ok = 0, loser = -1;
        char code[YUBIKEY_OTP_MAX];
        sh->now += 1;
        if (kind == MFA_FACTOR_HOTP) {
            CHECK_STATUS(mfa_hotp_generate(code, MFA_CODE_BUFFER_SIZE, secret, 20, counter, 6, MFA_ALG_SHA1), MFA_OK);
            CHECK_STATUS(mfa_hotp_generate(next, MFA_CODE_BUFFER_SIZE, secret, 20, counter + 1, 6, MFA_ALG_SHA1),
                         MFA_OK);
            counter += 2;
        } else {
            yubikey_touch(code, &key);
            yubikey_touch(next, &key);
        }
        for (int i = 0; i < PAIR; i++) {
            CHECK_STATUS(sign_in_as(ctx, uid, sh->pcred[i]), MFA_ERR_SECOND_FACTOR_REQUIRED);
            snprintf(sh->peid[i], 64, "%s", eid);
            snprintf(sh->potp[i], YUBIKEY_OTP_MAX, "%s", code);
        }
        if (run_pair(OP_RESOLVE_TOKEN, &overlaps) != 0) return;
        for (int i = 0; i < PAIR; i++) {
            if (sh->status[i] == MFA_OK) {
                ok++;
                continue;
            }
            loser = i;
            if (sh->status[i] == MFA_ERR_INVALID_VERIFICATION_CODE) losers_code++;
            else if (sh->status[i] == MFA_ERR_INVALID_SESSION) losers_session++;
            else {
                fprintf(stderr, "token round %d: worker %d got %s\n", round, i, mfa_status_name(sh->status[i]));
                CHECK(!"unexpected status");
            }
        }
        if (ok != 1) fprintf(stderr, "%s round %d: %d successes\n", uid, round, ok);
        CHECK(ok == 1);
        rounds_ok += ok == 1;
        /* The loser's credential was not used up: it resolves with the next code. */
        if (loser >= 0) CHECK_STATUS(resolve_token(ctx, sh->pcred[loser], kind, eid, next), MFA_OK);
    }
    printf("race (%s): %d/%d rounds with exactly one sign-in from one %s and two pending credentials (%d rounds "
           "overlapped in time); losers: %d INVALID_VERIFICATION_CODE, %d INVALID_SESSION\n",
           kind == MFA_FACTOR_HOTP ? "hotp" : "yubico_otp", rounds_ok, round, kind == MFA_FACTOR_HOTP ? "HOTP code" : "Yubico OTP",
           overlaps, losers_code, losers_session);
    CHECK(rounds_ok == round);
    CHECK(losers_session == 0);
    warn_if_no_overlap(kind == MFA_FACTOR_HOTP ? "hotp" : "yubico_otp", overlaps);
}

int main(int argc, char **argv) {
    mfa_ctx *ctx;
    int status;
    struct timespec t0;

    if ((status = race_setup(argc, argv, "libmfa-token-race")) != 0) return status;
    alarm(store.postgres ? 290 : 115); /* a hang is a failure */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (race_start(&ctx, "{\"state\":\"ENABLED\",\"providers\":{\"hotp\":\"ENABLED\",\"yubico_otp\":\"ENABLED\"}}")) {
        race_token(ctx, MFA_FACTOR_HOTP);
        race_token(ctx, MFA_FACTOR_YUBICO_OTP);
    }
    return race_finish(ctx, t0);
}
