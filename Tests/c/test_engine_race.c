/*
 * Races between OS processes on one store, through the C ABI.
 *
 * The store is an SQLite file (by default a new one in a temporary
 * directory) or a PostgreSQL server (a postgres:// URL, or env:NAME for the
 * URL in an environment variable): the test then works in a schema of its
 * own, created and dropped through libpq (test_pg_store.h).
 *
 * Worker processes (fork) each open their own context on the same store and
 * read the time from one injected clock in shared memory. The parent sets up
 * each round (enrolls, signs in, computes the code, advances the clock),
 * waits until the workers of the round are ready, then releases them all at
 * once through a flag in shared memory they spin on (a start line; a
 * barrier wakes its waiters one after another, too slowly to overlap).
 * Each worker records when its call started and ended, so the test can tell
 * how many rounds really overlapped.
 *
 * Rounds: on SQLite as given; on PostgreSQL exactly 1,000 for each of the
 * two-process races (a), (a2), (a3) and (b).
 *
 *  (a) 200 rounds (more, up to 1000, until 20 have overlapped in time): two
 *      processes resolve the same pending credential with the same TOTP
 *      code at the same moment: exactly one MFA_OK per round.
 *  (a2) the same code for the same factor, but each process with a pending
 *      credential of its own: exactly one MFA_OK (the code is used once);
 *      the loser's credential was left unconsumed: it resolves afterwards
 *      with the next code.
 *  (a3) the same pending credential, each process with the code of a
 *      different factor of the user: exactly one MFA_OK, the loser gets
 *      INVALID_SESSION, and the loser's code was left unclaimed: a new
 *      credential resolves with it afterwards, in the same time step.
 *  (b) 50 rounds (up to 250, until 10 have overlapped): two processes
 *      finish the same TOTP enrollment (session_info + code) at the same
 *      moment: exactly one factor, the one the winner was told about.
 *  (c) 60 rounds: a user whose free attempts are used up; eight processes
 *      try wrong codes at the same moment: the backoff lets exactly one be
 *      evaluated (the one that starts the lock), as it does when the same
 *      attempts come one after another.
 *  (d) 30 rounds each: what one process minted is finished in another (the
 *      parent and two workers take turns): a pending credential from
 *      mfa_sign_in resolves in another process, and then the minting
 *      process sees it used; an enrollment session made in one process gets
 *      its secret in a second and is finished in a third; the factor is
 *      listed everywhere and the session_info is used up for the first.
 *
 * Usage: engine_race_test [LOCATION]
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (glibc) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfa.h"
#include "test_support.h"

#define WORKERS 8
#define PAIR 2
#define BACKOFF_ROUNDS 60
#define HANDOFF_ROUNDS 30

enum op { OP_EXIT = 0, OP_OPEN, OP_RESOLVE, OP_ENROLL, OP_WRONG, OP_STEP };

/* What one process does in a hand-off (d), on the h_* fields of `shared`. */
enum step { STEP_SIGN_IN, STEP_RESOLVE, STEP_SESSION, STEP_SECRET, STEP_ENROLL };

/* Everything the processes share, in one MAP_SHARED | MAP_ANONYMOUS mapping. */
typedef struct shared {
    volatile int64_t now;
    volatile int ready;  /* workers at the start line */
    volatile int go;     /* the round number they wait for */
    volatile int round;
    struct timespec started[WORKERS];
    struct timespec ended[WORKERS];
    char store[1200];
    char cred[TOKEN_MAX];
    /* One two-process round: what each of the pair sends. */
    char pcred[PAIR][TOKEN_MAX];
    char peid[PAIR][64];
    char pcode[PAIR][MFA_CODE_BUFFER_SIZE];
    /* One hand-off step. */
    int step;
    int step_status;
    char h_uid[64];
    char h_cred[TOKEN_MAX];
    char h_eid[64];
    char h_code[MFA_CODE_BUFFER_SIZE];
    char h_session[TOKEN_MAX];
    char h_session_info[TOKEN_MAX];
    char h_key[128];
    char h_out_eid[64];
    char session_info[TOKEN_MAX];
    char uid[64];
    char eid[64];
    char code[MFA_CODE_BUFFER_SIZE];
    char wrong[WORKERS][MFA_CODE_BUFFER_SIZE];
    int status[WORKERS];
    char out_eid[WORKERS][64];
} shared;

#include "test_race_support.h"

static mfa_ctx *open_store(void) {
    mfa_options options;
    if (race_options(&options) != MFA_OK) return NULL;
    return race_open(&options);
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

/* A worker's part in a round of (a), (a2), (a3), (b) or (c). */
static void worker_op(mfa_ctx *ctx, int index, unsigned char op) {
    if (op == OP_RESOLVE || op == OP_ENROLL) {
        mfa_user user;
        start_line(index, 0);
        if (op == OP_RESOLVE) {
            mfa_sign_in_result *out = NULL;
            sh->status[index] =
                mfa_resolve_totp(ctx, &out, sh->pcred[index], NULL, sh->peid[index], sh->pcode[index], NULL);
            mfa_sign_in_result_free(out);
        } else {
            mfa_factor_info *info = NULL;
            user_make(&user, sh->uid, NULL);
            sh->status[index] = mfa_totp_enroll(ctx, &info, &user, sh->session_info, sh->code, NULL, NULL);
            snprintf(sh->out_eid[index], 64, "%s", info ? info->uid : "");
            mfa_factor_info_free(info);
        }
        finish_line(index);
    } else if (op == OP_WRONG) {
        mfa_sign_in_result *out = NULL;
        start_line(index, 1);
        sh->status[index] = mfa_resolve_totp(ctx, &out, sh->cred, NULL, sh->eid, sh->wrong[index], NULL);
        finish_line(index);
        mfa_sign_in_result_free(out);
    }
}

/* ------------------------------------------------------------------ */
/* Parent                                                               */
/* ------------------------------------------------------------------ */

typedef struct factor {
    char eid[64];
    char key[64];
} factor;

static int enroll(mfa_ctx *ctx, const char *uid, factor *f) {
    mfa_user user;
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
    user_make(&user, uid, NULL);
    status = mfa_session_new(ctx, &session, &user, NULL);
    if (status == MFA_OK) status = mfa_totp_generate_secret(ctx, &secret, session, NULL);
    if (status == MFA_OK) {
        code_at(code, secret->shared_secret_key, sh->now);
        status = mfa_totp_enroll(ctx, &info, &user, secret->session_info, code, NULL, NULL);
        if (status == MFA_OK) {
            snprintf(f->eid, sizeof f->eid, "%s", info->uid);
            snprintf(f->key, sizeof f->key, "%s", secret->shared_secret_key);
        }
    }
    mfa_factor_info_free(info);
    mfa_totp_secret_free(secret);
    mfa_free(session);
    return status;
}

static int resolve_now(mfa_ctx *ctx, const char *cred, const char *eid, const char *key) {
    char code[MFA_CODE_BUFFER_SIZE];
    mfa_sign_in_result *out = NULL;
    int status;
    code_at(code, key, sh->now);
    status = mfa_resolve_totp(ctx, &out, cred, NULL, eid, code, NULL);
    mfa_sign_in_result_free(out);
    return status;
}

/* Runs one two-process round of resolves; counts the outcomes. */
static int resolve_round(int round, const char *what, int *overlaps, int *ok, int *losers_session, int *losers_code,
                         int *loser) {
    *ok = 0;
    *loser = -1;
    if (run_pair(OP_RESOLVE, overlaps) != 0) return -1;
    for (int i = 0; i < PAIR; i++) {
        int s = sh->status[i];
        if (s == MFA_OK) {
            (*ok)++;
            continue;
        }
        *loser = i;
        if (s == MFA_ERR_INVALID_SESSION) (*losers_session)++;
        else if (s == MFA_ERR_INVALID_VERIFICATION_CODE) (*losers_code)++;
        else {
            fprintf(stderr, "%s round %d: worker %d got %s\n", what, round, i, mfa_status_name(s));
            CHECK(!"unexpected status");
        }
    }
    if (*ok != 1) fprintf(stderr, "%s round %d: %d successes\n", what, round, *ok);
    CHECK(*ok == 1);
    return 0;
}

/* (a) The same code and pending credential, twice at once. */
static void race_resolve(mfa_ctx *ctx) {
    factor f;
    int rounds_ok = 0, losers_session = 0, losers_code = 0, overlaps = 0;
    CHECK_STATUS(enroll(ctx, "race-resolve", &f), MFA_OK);
    int round;
    for (round = 0; more_rounds(round, overlaps, 200, 1000, 20); round++) {
        int ok = 0, loser;
        sh->now += 30;
        CHECK_STATUS(sign_in_as(ctx, "race-resolve", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        code_at(sh->code, f.key, sh->now);
        for (int i = 0; i < PAIR; i++) {
            snprintf(sh->pcred[i], TOKEN_MAX, "%s", sh->cred);
            snprintf(sh->peid[i], 64, "%s", f.eid);
            snprintf(sh->pcode[i], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        }
        if (resolve_round(round, "resolve", &overlaps, &ok, &losers_session, &losers_code, &loser) != 0) return;
        rounds_ok += ok == 1;
    }
    printf("race (a): %d/%d rounds with exactly one sign-in (%d rounds overlapped in time); losers: %d "
           "INVALID_SESSION, %d INVALID_VERIFICATION_CODE\n", rounds_ok, round, overlaps, losers_session, losers_code);
    CHECK(rounds_ok == round);
    warn_if_no_overlap("a", overlaps);
    /* The factor is still usable, and not in backoff. */
    sh->now += 30;
    CHECK_STATUS(sign_in_as(ctx, "race-resolve", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK_STATUS(resolve_now(ctx, sh->cred, f.eid, f.key), MFA_OK);
}

/* (a2) The same code for one factor, from two pending credentials at once. */
static void race_resolve_two_credentials(mfa_ctx *ctx) {
    factor f;
    int rounds_ok = 0, losers_session = 0, losers_code = 0, overlaps = 0, round;
    CHECK_STATUS(enroll(ctx, "race-two-credentials", &f), MFA_OK);
    for (round = 0; more_rounds(round, overlaps, 200, 1000, 20); round++) {
        int ok = 0, loser;
        sh->now += 30;
        code_at(sh->code, f.key, sh->now);
        for (int i = 0; i < PAIR; i++) {
            CHECK_STATUS(sign_in_as(ctx, "race-two-credentials", sh->pcred[i]), MFA_ERR_SECOND_FACTOR_REQUIRED);
            snprintf(sh->peid[i], 64, "%s", f.eid);
            snprintf(sh->pcode[i], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        }
        if (resolve_round(round, "two credentials", &overlaps, &ok, &losers_session, &losers_code, &loser) != 0) {
            return;
        }
        rounds_ok += ok == 1;
        /* The loser's credential was not used up: it resolves with the next code. */
        if (loser >= 0) {
            sh->now += 30;
            CHECK_STATUS(resolve_now(ctx, sh->pcred[loser], f.eid, f.key), MFA_OK);
        }
    }
    printf("race (a2): %d/%d rounds with exactly one sign-in from one code and two pending credentials (%d rounds "
           "overlapped in time); losers: %d INVALID_VERIFICATION_CODE, %d INVALID_SESSION; every loser's "
           "credential resolved afterwards\n", rounds_ok, round, overlaps, losers_code, losers_session);
    CHECK(rounds_ok == round);
    CHECK(losers_session == 0);
    warn_if_no_overlap("a2", overlaps);
}

/* (a3) One pending credential, two factors, at once. */
static void race_resolve_two_factors(mfa_ctx *ctx) {
    factor f[PAIR];
    int rounds_ok = 0, losers_session = 0, losers_code = 0, overlaps = 0, round;
    for (int i = 0; i < PAIR; i++) {
        sh->now += 30;
        CHECK_STATUS(enroll(ctx, "race-two-factors", &f[i]), MFA_OK);
    }
    for (round = 0; more_rounds(round, overlaps, 200, 1000, 20); round++) {
        int ok = 0, loser;
        sh->now += 30;
        CHECK_STATUS(sign_in_as(ctx, "race-two-factors", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        for (int i = 0; i < PAIR; i++) {
            snprintf(sh->pcred[i], TOKEN_MAX, "%s", sh->cred);
            snprintf(sh->peid[i], 64, "%s", f[i].eid);
            code_at(sh->pcode[i], f[i].key, sh->now);
        }
        if (resolve_round(round, "two factors", &overlaps, &ok, &losers_session, &losers_code, &loser) != 0) return;
        rounds_ok += ok == 1;
        /* The loser's code was not claimed: a new credential resolves with it, in the same step. */
        if (loser >= 0) {
            char cred[TOKEN_MAX];
            mfa_sign_in_result *out = NULL;
            CHECK_STATUS(sign_in_as(ctx, "race-two-factors", cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
            CHECK_STATUS(mfa_resolve_totp(ctx, &out, cred, NULL, sh->peid[loser], sh->pcode[loser], NULL), MFA_OK);
            mfa_sign_in_result_free(out);
        }
    }
    printf("race (a3): %d/%d rounds with exactly one sign-in from one pending credential and two factors (%d rounds "
           "overlapped in time); losers: %d INVALID_SESSION, %d INVALID_VERIFICATION_CODE; every loser's code "
           "resolved afterwards\n", rounds_ok, round, overlaps, losers_session, losers_code);
    CHECK(rounds_ok == round);
    CHECK(losers_code == 0);
    warn_if_no_overlap("a3", overlaps);
}

/* (b) The same enrollment, twice at once. */
static void race_enroll(mfa_ctx *ctx) {
    int rounds_ok = 0, overlaps = 0;
    int round;
    for (round = 0; more_rounds(round, overlaps, 50, 250, 10); round++) {
        mfa_user user;
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        int ok = 0, winner = -1;
        char listed[64];
        sh->now += 30;
        snprintf(sh->uid, sizeof sh->uid, "race-enroll-%d", round);
        user_make(&user, sh->uid, NULL);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (!secret) {
            mfa_free(session);
            return;
        }
        snprintf(sh->session_info, sizeof sh->session_info, "%s", secret->session_info);
        code_at(sh->code, secret->shared_secret_key, sh->now);
        if (run_pair(OP_ENROLL, &overlaps) != 0) {
            mfa_totp_secret_free(secret);
            mfa_free(session);
            return;
        }
        for (int i = 0; i < PAIR; i++) {
            if (sh->status[i] == MFA_OK) {
                ok++;
                winner = i;
            } else if (sh->status[i] != MFA_ERR_INVALID_SESSION) {
                fprintf(stderr, "enroll round %d: worker %d got %s\n", round, i, mfa_status_name(sh->status[i]));
                CHECK(!"the loser should get INVALID_SESSION");
            }
        }
        CHECK(ok == 1);
        CHECK(count_factors(ctx, sh->uid, listed) == 1);
        if (winner >= 0) CHECK(strcmp(listed, sh->out_eid[winner]) == 0);
        rounds_ok += ok == 1;
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    printf("race (b): %d/%d rounds with exactly one enrollment (%d rounds overlapped in time)\n", rounds_ok, round,
           overlaps);
    CHECK(rounds_ok == round);
    warn_if_no_overlap("b", overlaps);
}

/* (c) Wrong codes at once from many processes, after the free attempts are used. */
static void race_backoff(mfa_ctx *ctx) {
    int total_evaluated = 0, bad_rounds = 0;
    for (int round = 0; round < BACKOFF_ROUNDS; round++) {
        factor f;
        char uid[64];
        int evaluated = 0;
        uint8_t *key = NULL;
        size_t key_len = 0;
        sh->now += 30;
        snprintf(uid, sizeof uid, "race-backoff-%d", round);
        CHECK_STATUS(enroll(ctx, uid, &f), MFA_OK);
        sh->now += 30;
        snprintf(sh->eid, sizeof sh->eid, "%s", f.eid);
        CHECK_STATUS(sign_in_as(ctx, uid, sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK_STATUS(mfa_base32_decode(&key, &key_len, f.key), MFA_OK);
        if (!key) return;
        /* Eight codes that no step within +/-10 accepts. */
        for (int i = 0, n = 0; i < WORKERS; n++) {
            snprintf(sh->wrong[i], MFA_CODE_BUFFER_SIZE, "%06d", (round * 7919 + n * 104729) % 1000000);
            if (mfa_totp_verify(NULL, key, key_len, NULL, sh->now, MFA_WINDOW_MAX, sh->wrong[i]) ==
                           MFA_ERR_INVALID_VERIFICATION_CODE) {
                i++;
            }
        }
        mfa_free(key);
        /* The five free attempts (freeAttempts), one after another. */
        for (int i = 0; i < 5; i++) {
            mfa_sign_in_result *out = NULL;
            CHECK_STATUS(mfa_resolve_totp(ctx, &out, sh->cred, NULL, f.eid, sh->wrong[i], NULL),
                         MFA_ERR_INVALID_VERIFICATION_CODE);
        }
        /* Eight more at the same instant: one after another, the first would be
         * evaluated (and start the backoff) and the other seven refused. */
        if (run_round(OP_WRONG, WORKERS) != 0) {
            CHECK(!"a worker died");
            return;
        }
        for (int i = 0; i < WORKERS; i++) {
            CHECK(sh->status[i] == MFA_ERR_INVALID_VERIFICATION_CODE ||
                  sh->status[i] == MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
            evaluated += sh->status[i] == MFA_ERR_INVALID_VERIFICATION_CODE;
        }
        total_evaluated += evaluated;
        if (evaluated != 1 && ++bad_rounds <= 5) {
            fprintf(stderr, "backoff round %d: %d of %d simultaneous wrong codes were evaluated, want 1\n", round,
                    evaluated, WORKERS);
        }
    }
    printf("race (c): %d wrong codes evaluated in %d rounds of %d simultaneous attempts past the free ones "
           "(want %d); %d rounds let more than one through\n", total_evaluated, BACKOFF_ROUNDS, WORKERS,
           BACKOFF_ROUNDS, bad_rounds);
    CHECK(bad_rounds == 0);
    CHECK(total_evaluated == BACKOFF_ROUNDS);
}

/* ------------------------------------------------------------------ */
/* (d) Hand-offs between processes                                      */
/* ------------------------------------------------------------------ */

/* One step of a hand-off, in whichever process runs it (see enum step). */
static int do_step(mfa_ctx *ctx, int step) {
    mfa_user user;
    int status = MFA_ERR_INTERNAL;
    user_make(&user, sh->h_uid, NULL);
    if (step == STEP_SIGN_IN) {
        status = sign_in_as(ctx, sh->h_uid, sh->h_cred);
    } else if (step == STEP_RESOLVE) {
        mfa_sign_in_result *out = NULL;
        status = mfa_resolve_totp(ctx, &out, sh->h_cred, NULL, sh->h_eid, sh->h_code, NULL);
        mfa_sign_in_result_free(out);
    } else if (step == STEP_SESSION) {
        status = handoff_session(ctx, &user);
    } else if (step == STEP_SECRET) {
        mfa_totp_secret *secret = NULL;
        status = mfa_totp_generate_secret(ctx, &secret, sh->h_session, NULL);
        snprintf(sh->h_session_info, TOKEN_MAX, "%s", secret ? secret->session_info : "");
        snprintf(sh->h_key, sizeof sh->h_key, "%s", secret ? secret->shared_secret_key : "");
        mfa_totp_secret_free(secret);
    } else if (step == STEP_ENROLL) {
        mfa_factor_info *info = NULL;
        status = mfa_totp_enroll(ctx, &info, &user, sh->h_session_info, sh->h_code, NULL, NULL);
        if (info) snprintf(sh->h_out_eid, 64, "%s", info->uid);
        mfa_factor_info_free(info);
    }
    return status;
}

/* What one process mints, another finishes: the parent (-1) and workers 0
 * and 1 take turns in each role. */
static void handoff(mfa_ctx *ctx) {
    factor f;
    int signed_in = 0, enrolled = 0, before = failures;
    sh->now += 30;
    CHECK_STATUS(enroll(ctx, "handoff", &f), MFA_OK);
    for (int round = 0; round < HANDOFF_ROUNDS; round++) {
        int first, second, third, status, round_failures = failures;
        handoff_roles(round, &first, &second, &third);
        sh->now += 30;
        /* A pending credential from one process resolves in another ... */
        snprintf(sh->h_uid, sizeof sh->h_uid, "handoff");
        snprintf(sh->h_eid, sizeof sh->h_eid, "%s", f.eid);
        CHECK_STATUS(run_step(ctx, first, STEP_SIGN_IN), MFA_ERR_SECOND_FACTOR_REQUIRED);
        code_at(sh->h_code, f.key, sh->now);
        status = run_step(ctx, second, STEP_RESOLVE);
        CHECK_STATUS(status, MFA_OK);
        signed_in += status == MFA_OK;
        /* ... and is used up for the one that minted it, and for the third. */
        CHECK_STATUS(run_step(ctx, first, STEP_RESOLVE), MFA_ERR_INVALID_SESSION);
        CHECK_STATUS(run_step(ctx, third, STEP_RESOLVE), MFA_ERR_INVALID_SESSION);

        /* An enrollment session from one process, its secret from a second, finished by a third. */
        snprintf(sh->h_uid, sizeof sh->h_uid, "handoff-enroll-%d", round);
        sh->h_out_eid[0] = '\0';
        CHECK_STATUS(run_step(ctx, first, STEP_SESSION), MFA_OK);
        CHECK_STATUS(run_step(ctx, second, STEP_SECRET), MFA_OK);
        code_at(sh->h_code, sh->h_key, sh->now);
        /* The pending secret is used up for the other two. */
        enrolled += handoff_enroll(ctx, third, second, first);
        handoff_round_report(round, first, second, third, round_failures);
    }
    printf("hand-off (d): %d/%d pending credentials resolved in another process, %d/%d enrollments finished in a "
           "third process; every token used up everywhere%s\n", signed_in, HANDOFF_ROUNDS, enrolled, HANDOFF_ROUNDS,
           failures == before ? "" : " (FAILED)");
}

int main(int argc, char **argv) {
    mfa_ctx *ctx;
    int status;
    struct timespec t0;

    if ((status = race_setup(argc, argv, "libmfa-race")) != 0) return status;
    /* A hang is a failure (CTest gives 300 s): a line a race, as it ends. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(290);
    clock_gettime(CLOCK_MONOTONIC, &t0);

    if (race_start(&ctx, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}")) {
        race_resolve(ctx);
        race_resolve_two_credentials(ctx);
        race_resolve_two_factors(ctx);
        race_enroll(ctx);
        race_backoff(ctx);
        handoff(ctx);
    }
    return race_finish(ctx, t0);
}
