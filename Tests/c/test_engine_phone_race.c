/*
 * The SMS second factor under races, through the C ABI.
 *
 * The store is an SQLite file (by default a new one in a temporary
 * directory) or a PostgreSQL server (a postgres:// URL, or env:NAME for the
 * URL in an environment variable): the test then works in a schema of its
 * own, created and dropped through libpq (test_pg_store.h). On PostgreSQL,
 * (a) and (b) run exactly 1,000 rounds each; the rest as below.
 *
 * Worker processes (fork) each open their own context on the same store and
 * read the time from one injected clock in shared memory. The parent sets up
 * each round (sign-in, SMS, code from the message its sender recorded),
 * waits until the workers of the round are at a start line in shared memory,
 * then releases them at once. Each worker records when its call started and
 * ended, so the test can tell how many rounds really overlapped.
 *
 *  (a) 100 rounds (more, up to 500, until 20 have overlapped in time): two
 *      processes resolve the same pending credential with the same
 *      verification id and SMS code (mfa_resolve_phone): exactly one MFA_OK.
 *  (b) the same for mfa_phone_enroll with one verification id and code:
 *      exactly one MFA_OK and exactly one factor, the winner's.
 *  (b2) one user enrolls one number twice at once, through two verification
 *      ids (two SMS to the number, the resend cooldown apart), from two
 *      processes: SPEC "the same number twice on one user is
 *      SECOND_FACTOR_EXISTS", so exactly one MFA_OK, the other
 *      SECOND_FACTOR_EXISTS (or, when it comes after the winner's enrollment
 *      revoked its session, USER_TOKEN_EXPIRED), and one factor. 500 rounds on SQLite, 200 on
 *      PostgreSQL. (It failed until the number check moved into the
 *      enrollment's transaction: see race_enroll_same_number.)
 *  (c) 30 rounds each, sign-in and enrollment: a verification id with 4 wrong
 *      tries behind it (1 left); eight processes send 7 wrong codes and the
 *      right one at the same moment. One after another, exactly one of them
 *      would be evaluated (an INVALID_VERIFICATION_CODE that kills the id, or
 *      the MFA_OK of the right code) and the rest refused: "at most 5 wrong
 *      tries per verification id" must hold when the tries race too.
 *  (d) caps under a burst: 1,000 send requests (every tenth for a test
 *      number) from 8 threads sharing one context, then from 8 processes,
 *      for each cap (per number, per user, per tenant; hour and day) and for
 *      the resend cooldown. What reached the senders equals the configured
 *      cap exactly (in total, per number, per user); every refusal is
 *      QUOTA_EXCEEDED (TOO_MANY_ATTEMPTS_TRY_LATER for the cooldown); every
 *      test-number request succeeds and none reaches a sender.
 *  (e) 30 rounds each: hand-offs between three processes (the parent and two
 *      workers take turns in each role): a pending credential from
 *      mfa_sign_in in one, the SMS started (mfa_phone_start_sign_in) in a
 *      second, resolved with that verification id in the third; then the
 *      credential and the verification id are used up in the other two. An
 *      enrollment session from one, the SMS started in a second, the factor
 *      enrolled with that verification id in the third: exactly that factor
 *      is listed, and the verification id is used up in the other two.
 *  (f) PostgreSQL only, 3 rounds: the last try of an enrollment's
 *      verification id in a forced order (the test's own libpq connection
 *      holds the verification's row): the right code is judged and waits to
 *      claim; a wrong code reads the still-unused verification and waits
 *      behind it; the right code enrolls, and then the wrong one must be
 *      refused (INVALID_SESSION), not evaluated. (It failed until the
 *      judgment and the claim were ordered: see interleave_last_try_enroll.)
 *  (f2) 3 rounds: (b2) in a forced order (an injected random source holds
 *      both workers inside mfa_phone_enroll, after the number check and
 *      before the store transaction): one must end SECOND_FACTOR_EXISTS,
 *      with one factor. (It failed until the number check moved into the
 *      enrollment's transaction: see interleave_same_number.)
 *
 * Usage: engine_phone_race_test [LOCATION]
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (glibc) */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"
#include "test_support.h"

#define SESSION_MAX 1024
#define WORKERS 8
#define PAIR 2
#define GUESS_ROUNDS 30
#define HANDOFF_ROUNDS 30
#define SAME_NUMBER_ROUNDS 500
#define SAME_NUMBER_PG_ROUNDS 200
#define USERS 20
#define REQUESTS 1000
#define PER_WORKER (REQUESTS / WORKERS)
#define TEST_REQUESTS (REQUESTS / 10)
#define NUMBER_SLOTS 20000
#define TEST_NUMBER "+15555550100"
#define TEST_CODE "123456"
#define GOOD_CRED "good"
#define SMS_SUFFIX " is your verification code."

enum op { OP_EXIT = 0, OP_OPEN, OP_RESOLVE, OP_ENROLL, OP_GUESS_RESOLVE, OP_GUESS_ENROLL, OP_BURST, OP_STEP,
          OP_ENROLL_OWN, OP_ENROLL_NOW };

/* What one process does in a hand-off (e), on the h_* fields of `shared`. */
enum step { STEP_SIGN_IN, STEP_START_SIGN_IN, STEP_RESOLVE, STEP_SESSION, STEP_START_ENROLL, STEP_ENROLL };
enum outcome { OUT_OK, OUT_QUOTA, OUT_COOLDOWN, OUT_OTHER, OUT_KINDS };

/* Everything the processes share, in one MAP_SHARED | MAP_ANONYMOUS mapping. */
typedef struct shared {
    volatile int64_t now;
    volatile int ready; /* workers at the start line */
    volatile int go;    /* the round number they wait for */
    volatile int round;
    struct timespec started[WORKERS];
    struct timespec ended[WORKERS];
    char store[1200];
    /* One hand-off step. */
    int step;
    int step_status;
    char h_uid[64];
    char h_number[32];
    char h_cred[TOKEN_MAX];
    char h_eid[64];
    char h_vid[TOKEN_MAX];
    char h_code[MFA_CODE_BUFFER_SIZE];
    char h_session[SESSION_MAX];
    char h_out_eid[64];
    /* One round of a code race. */
    char cred[TOKEN_MAX];
    char vid[TOKEN_MAX];
    char uid[64];
    char code[MFA_CODE_BUFFER_SIZE];
    char guess[WORKERS][MFA_CODE_BUFFER_SIZE];
    /* (f2): workers whose gate is set wait at their next random draw until gate_open. */
    volatile int gate[WORKERS];
    volatile int at_gate;
    volatile int gate_open;
    /* One two-process round where each sends its own verification id and code. */
    char pvid[PAIR][TOKEN_MAX];
    char pcode[PAIR][MFA_CODE_BUFFER_SIZE];
    int status[WORKERS];
    char out_eid[WORKERS][64];
    /* What reached a sender, in any process. */
    volatile int record; /* the parent keeps the last message while set */
    char last_to[40];
    char last_message[160];
    volatile long sent;
    volatile long test_sent;
    volatile long malformed;
    volatile int per_number[NUMBER_SLOTS];
    /* One burst. */
    int number_base;
    int numbers;
    char sessions[USERS][SESSION_MAX];
    volatile int outcome[OUT_KINDS];
    volatile int other_status;
    volatile int ok_per_user[USERS];
    volatile int ok_test;
} shared;

#include "test_race_support.h"

/* The sender of every context, in every process: counts in shared memory. */
static int count_sender(void *context, const char *to, const char *message) {
    size_t n = strlen(to);
    (void)context;
    __sync_fetch_and_add(&sh->sent, 1);
    if (strlen(message) != 6 + strlen(SMS_SUFFIX) || strcmp(message + 6, SMS_SUFFIX) != 0) {
        __sync_fetch_and_add(&sh->malformed, 1);
    }
    if (strcmp(to, TEST_NUMBER) == 0) {
        __sync_fetch_and_add(&sh->test_sent, 1);
    } else if (n == 12 && strncmp(to, "+1510", 5) == 0) {
        long slot = atol(to + 5);
        if (slot >= 0 && slot < NUMBER_SLOTS) __sync_fetch_and_add(&sh->per_number[slot], 1);
    }
    if (sh->record) {
        snprintf(sh->last_to, sizeof sh->last_to, "%s", to);
        snprintf(sh->last_message, sizeof sh->last_message, "%s", message);
    }
    return 0;
}

/* /dev/urandom, opened before the workers are forked. */
static int urandom_fd = -1;

/* The random source of every context: /dev/urandom, and the gate of (f2). */
static int gated_random(void *context, uint8_t *out, size_t len) {
    size_t done = 0;
    (void)context;
    if (self_index >= 0 && sh->gate[self_index]) {
        struct timespec start, now;
        sh->gate[self_index] = 0;
        __sync_fetch_and_add(&sh->at_gate, 1);
        clock_gettime(CLOCK_MONOTONIC, &start);
        do {
            sched_yield();
            clock_gettime(CLOCK_MONOTONIC, &now);
        } while (!sh->gate_open && now.tv_sec - start.tv_sec < 15);
    }
    while (done < len) {
        ssize_t got = read(urandom_fd, out + done, len - done);
        if (got <= 0 && errno != EINTR) return 1;
        if (got > 0) done += (size_t)got;
    }
    return 0;
}

static int accept_good(void *context, const char *credential, int32_t action) {
    (void)context;
    (void)action;
    return strcmp(credential, GOOD_CRED) == 0 ? 0 : 1;
}

static mfa_ctx *open_store(void) {
    mfa_options options;
    if (race_options(&options) != MFA_OK) return NULL;
    options.sms_sender = count_sender;
    options.app_verifier = accept_good;
    options.random = gated_random;
    return race_open(&options);
}

/* ------------------------------------------------------------------ */
/* Bursts of send requests                                              */
/* ------------------------------------------------------------------ */

/* Request k of 0..REQUESTS-1: every tenth for the test number; the 900
 * others (q = 0..899) from user q % USERS (45 each) to real number
 * q % sh->numbers. */
static void burst_requests(mfa_ctx *ctx, int worker) {
    for (int r = 0; r < PER_WORKER; r++) {
        int k = worker * PER_WORKER + r;
        int test = k % 10 == 0;
        int q = k - k / 10 - 1; /* the real requests, in order */
        int user = test ? (k / 10) % USERS : q % USERS;
        char number[32];
        char *out = NULL;
        int status, kind;
        if (test) snprintf(number, sizeof number, "%s", TEST_NUMBER);
        else snprintf(number, sizeof number, "+1510%07d", sh->number_base + q % sh->numbers);
        status = mfa_phone_start_enrollment(ctx, &out, sh->sessions[user], number, GOOD_CRED, NULL);
        mfa_free(out);
        kind = status == MFA_OK                                 ? OUT_OK
               : status == MFA_ERR_QUOTA_EXCEEDED              ? OUT_QUOTA
               : status == MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER ? OUT_COOLDOWN
                                                               : OUT_OTHER;
        __sync_fetch_and_add(&sh->outcome[kind], 1);
        if (kind == OUT_OTHER) sh->other_status = status;
        if (status == MFA_OK) {
            if (test) __sync_fetch_and_add(&sh->ok_test, 1);
            else __sync_fetch_and_add(&sh->ok_per_user[user], 1);
        }
    }
}

typedef struct scenario {
    const char *name;
    const char *limits; /* the tenant's configuration */
    int numbers;        /* distinct real numbers */
    int expect_sent;    /* what must reach the senders */
    int per_number;     /* what must reach each number (0: not checked) */
    int per_user;       /* what each user must get (0: not checked) */
    int refusal;        /* how the rest must be refused */
} scenario;

static const scenario scenarios[] = {
    {"per number per hour", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerNumberHour\":5}}", 10, 50, 5, 0,
     MFA_ERR_QUOTA_EXCEEDED},
    {"per number per day", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerNumberDay\":3}}", 10, 30, 3, 0,
     MFA_ERR_QUOTA_EXCEEDED},
    {"per user per hour", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerUserHour\":7}}", 900, 140, 0, 7,
     MFA_ERR_QUOTA_EXCEEDED},
    {"per user per day", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerUserDay\":4}}", 900, 80, 0, 4,
     MFA_ERR_QUOTA_EXCEEDED},
    {"per tenant per hour", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerTenantHour\":40}}", 900, 40, 0, 0,
     MFA_ERR_QUOTA_EXCEEDED},
    {"per tenant per day", "{\"limits\":{\"smsResendCooldown\":0,\"smsPerTenantDay\":25}}", 900, 25, 0, 0,
     MFA_ERR_QUOTA_EXCEEDED},
    {"resend cooldown", "{\"limits\":{\"smsResendCooldown\":30}}", 50, 50, 1, 0, MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER},
};
#define SCENARIO_COUNT ((int)(sizeof scenarios / sizeof scenarios[0]))

/* Threads of one process, sharing the parent's context. */
typedef struct thread_job {
    mfa_ctx *ctx;
    int worker;
} thread_job;

static volatile int threads_ready;
static volatile int threads_go;

static void *burst_thread(void *arg) {
    thread_job *job = arg;
    __sync_fetch_and_add(&threads_ready, 1);
    while (!threads_go) __sync_synchronize();
    burst_requests(job->ctx, job->worker);
    return NULL;
}

/* One scenario, `processes` or threads; returns 1 if every check held. */
static int run_burst(mfa_ctx *ctx, int s, int processes) {
    const scenario *sc = &scenarios[s];
    char tenant[32];
    long sent_before;
    int ok = 1, before = failures;
    snprintf(tenant, sizeof tenant, "%s-%d", processes ? "proc" : "thr", s);
    CHECK_STATUS(mfa_config_set_json(ctx, tenant, sc->limits, NULL), MFA_OK);
    sh->number_base = (processes * SCENARIO_COUNT + s) * 1000;
    sh->numbers = sc->numbers;
    for (int u = 0; u < USERS; u++) {
        mfa_user user;
        char uid[64];
        char *session = NULL;
        snprintf(uid, sizeof uid, "%s-user-%d", tenant, u);
        user_make(&user, uid, tenant);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK(session && strlen(session) < SESSION_MAX);
        snprintf(sh->sessions[u], SESSION_MAX, "%s", session ? session : "");
        mfa_free(session);
        sh->ok_per_user[u] = 0;
    }
    for (int i = 0; i < OUT_KINDS; i++) sh->outcome[i] = 0;
    sh->ok_test = 0;
    sh->test_sent = 0;
    sh->other_status = 0;
    sent_before = sh->sent;
    __sync_synchronize();

    if (processes) {
        if (run_round(OP_BURST, WORKERS) != 0) {
            CHECK(!"a worker died");
            return 0;
        }
    } else {
        pthread_t threads[WORKERS];
        thread_job jobs[WORKERS];
        threads_ready = 0;
        threads_go = 0;
        for (int i = 0; i < WORKERS; i++) {
            jobs[i].ctx = ctx;
            jobs[i].worker = i;
            CHECK(pthread_create(&threads[i], NULL, burst_thread, &jobs[i]) == 0);
        }
        while (threads_ready < WORKERS) sched_yield();
        threads_go = 1;
        __sync_synchronize();
        for (int i = 0; i < WORKERS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    }

    {
        long sent = sh->sent - sent_before;
        int ok_count = sh->outcome[OUT_OK];
        int refused = sh->outcome[OUT_QUOTA] + sh->outcome[OUT_COOLDOWN];
        int want_refused = sc->refusal == MFA_ERR_QUOTA_EXCEEDED ? sh->outcome[OUT_QUOTA] : sh->outcome[OUT_COOLDOWN];
        int bad_numbers = 0, bad_users = 0;
        printf("burst (%s, %s): %ld reached the senders (cap %d); %d OK (%d for the test number), %d QUOTA_EXCEEDED, "
               "%d TOO_MANY_ATTEMPTS_TRY_LATER, %d other\n",
               processes ? "8 processes" : "8 threads", sc->name, sent, sc->expect_sent, ok_count, sh->ok_test,
               sh->outcome[OUT_QUOTA], sh->outcome[OUT_COOLDOWN], sh->outcome[OUT_OTHER]);
        CHECK(sent == sc->expect_sent);
        CHECK(sh->test_sent == 0);
        CHECK(sh->ok_test == TEST_REQUESTS);
        CHECK(ok_count == sc->expect_sent + TEST_REQUESTS);
        CHECK(ok_count + refused == REQUESTS);
        CHECK(want_refused == refused);
        if (sh->outcome[OUT_OTHER]) {
            fprintf(stderr, "unexpected status %s\n", mfa_status_name(sh->other_status));
            CHECK(sh->outcome[OUT_OTHER] == 0);
        }
        if (sc->per_number) {
            for (int i = 0; i < sc->numbers; i++) bad_numbers += sh->per_number[sh->number_base + i] != sc->per_number;
            if (bad_numbers) fprintf(stderr, "%d numbers did not get exactly %d SMS\n", bad_numbers, sc->per_number);
            CHECK(bad_numbers == 0);
        }
        if (sc->per_user) {
            for (int u = 0; u < USERS; u++) bad_users += sh->ok_per_user[u] != sc->per_user;
            if (bad_users) fprintf(stderr, "%d users did not get exactly %d SMS\n", bad_users, sc->per_user);
            CHECK(bad_users == 0);
        }
    }
    ok = failures == before;
    return ok;
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

/* A worker's part in a round of (a), (b), (b2), (c), (d), (f) or (f2). */
static void worker_op(mfa_ctx *ctx, int index, unsigned char op) {
    if (op == OP_RESOLVE || op == OP_GUESS_RESOLVE) {
        mfa_sign_in_result *out = NULL;
        const char *code = op == OP_RESOLVE ? sh->code : sh->guess[index];
        start_line(index, op == OP_GUESS_RESOLVE);
        sh->status[index] = mfa_resolve_phone(ctx, &out, sh->cred, NULL, sh->vid, code, NULL);
        finish_line(index);
        mfa_sign_in_result_free(out);
    } else if (op == OP_ENROLL || op == OP_GUESS_ENROLL || op == OP_ENROLL_OWN || op == OP_ENROLL_NOW) {
        mfa_factor_info *info = NULL;
        mfa_user user;
        int own = op == OP_ENROLL_OWN || op == OP_ENROLL_NOW;
        const char *code = op == OP_ENROLL ? sh->code : own ? sh->pcode[index] : sh->guess[index];
        const char *vid = own ? sh->pvid[index] : sh->vid;
        user_make(&user, sh->uid, NULL);
        if (op != OP_ENROLL_NOW) start_line(index, op == OP_GUESS_ENROLL);
        else clock_gettime(CLOCK_MONOTONIC, &sh->started[index]);
        sh->status[index] = mfa_phone_enroll(ctx, &info, &user, vid, code, NULL, NULL);
        finish_line(index);
        snprintf(sh->out_eid[index], 64, "%s", info ? info->uid : "");
        mfa_factor_info_free(info);
    } else if (op == OP_BURST) {
        start_line(index, 1);
        burst_requests(ctx, index);
        finish_line(index);
    }
}

/* Sends `op` to worker `index` without waiting (see answered and wait_answer). */
static int send_op(int index, unsigned char op) {
    sh->status[index] = 1;
    __sync_synchronize();
    return write(workers[index].command, &op, 1) == 1 ? 0 : -1;
}

/* Whether worker `index` has answered (its byte is waiting in the pipe). */
static int answered(int index) {
    struct pollfd fd;
    fd.fd = workers[index].result;
    fd.events = POLLIN;
    fd.revents = 0;
    return poll(&fd, 1, 0) == 1;
}

/* ------------------------------------------------------------------ */
/* Parent: the steps                                                    */
/* ------------------------------------------------------------------ */

/* The code of the last SMS the parent's context sent, which must have gone to `number`. */
static int last_code(const char *number, char code[MFA_CODE_BUFFER_SIZE]) {
    code[0] = '\0';
    if (strcmp(sh->last_to, number) != 0 || strlen(sh->last_message) != 6 + strlen(SMS_SUFFIX)) {
        fprintf(stderr, "no SMS to %s (last: %s \"%s\")\n", number, sh->last_to, sh->last_message);
        CHECK(!"an SMS was sent");
        return 0;
    }
    memcpy(code, sh->last_message, 6);
    code[6] = '\0';
    return 1;
}

static void wrong_code(char out[MFA_CODE_BUFFER_SIZE], const char *code, int delta) {
    long value = atol(code);
    snprintf(out, MFA_CODE_BUFFER_SIZE, "%06ld", (value + delta) % 1000000);
}

static int start_enroll(mfa_ctx *ctx, const char *uid, const char *number, char vid[TOKEN_MAX]) {
    mfa_user user;
    char *session = NULL, *out = NULL;
    int status;
    user_make(&user, uid, NULL);
    vid[0] = '\0';
    sh->last_to[0] = '\0';
    status = mfa_session_new(ctx, &session, &user, NULL);
    if (status == MFA_OK) status = mfa_phone_start_enrollment(ctx, &out, session, number, GOOD_CRED, NULL);
    if (out) snprintf(vid, TOKEN_MAX, "%s", out);
    mfa_free(out);
    mfa_free(session);
    return status;
}

static int enroll_phone(mfa_ctx *ctx, const char *uid, const char *number, char eid[64]) {
    char vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    mfa_user user;
    mfa_factor_info *info = NULL;
    int status = start_enroll(ctx, uid, number, vid);
    eid[0] = '\0';
    if (status != MFA_OK) return status;
    if (!last_code(number, code)) return MFA_ERR_INTERNAL;
    user_make(&user, uid, NULL);
    status = mfa_phone_enroll(ctx, &info, &user, vid, code, NULL, NULL);
    if (info) snprintf(eid, 64, "%s", info->uid);
    mfa_factor_info_free(info);
    return status;
}

/* Four wrong codes for the enrollment sh->vid of `user`: one try is left. */
static void wrong_enroll_tries(mfa_ctx *ctx, const mfa_user *user) {
    char wrong[MFA_CODE_BUFFER_SIZE];
    mfa_factor_info *info = NULL;
    for (int i = 0; i < 4; i++) {
        wrong_code(wrong, sh->code, 100 + i);
        CHECK_STATUS(mfa_phone_enroll(ctx, &info, user, sh->vid, wrong, NULL, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
}

static int start_sign_in(mfa_ctx *ctx, const char *cred, const char *eid, char vid[TOKEN_MAX]) {
    char *out = NULL;
    int status;
    sh->last_to[0] = '\0';
    status = mfa_phone_start_sign_in(ctx, &out, cred, NULL, eid, GOOD_CRED, NULL);
    vid[0] = '\0';
    if (out) snprintf(vid, TOKEN_MAX, "%s", out);
    mfa_free(out);
    return status;
}

static int resolve(mfa_ctx *ctx, const char *cred, const char *vid, const char *code) {
    mfa_sign_in_result *out = NULL;
    int status = mfa_resolve_phone(ctx, &out, cred, NULL, vid, code, NULL);
    mfa_sign_in_result_free(out);
    return status;
}

/* (a) The same SMS code and pending credential, twice at once. */
static void race_resolve(mfa_ctx *ctx) {
    const char *number = "+15108000001";
    char eid[64];
    int rounds_ok = 0, overlaps = 0, losers_session = 0, round;
    CHECK_STATUS(enroll_phone(ctx, "race-resolve", number, eid), MFA_OK);
    for (round = 0; more_rounds(round, overlaps, 100, 500, 20); round++) {
        int ok = 0;
        sh->now += 31; /* the resend cooldown */
        CHECK_STATUS(sign_in_as(ctx, "race-resolve", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK_STATUS(start_sign_in(ctx, sh->cred, eid, sh->vid), MFA_OK);
        if (!last_code(number, sh->code)) return;
        if (run_pair(OP_RESOLVE, &overlaps) != 0) return;
        for (int i = 0; i < PAIR; i++) {
            int s = sh->status[i];
            if (s == MFA_OK) ok++;
            else if (s == MFA_ERR_INVALID_SESSION) losers_session++;
            else {
                fprintf(stderr, "resolve round %d: worker %d got %s\n", round, i, mfa_status_name(s));
                CHECK(!"the loser gets INVALID_SESSION");
            }
        }
        if (ok != 1) fprintf(stderr, "resolve round %d: %d successes\n", round, ok);
        CHECK(ok == 1);
        rounds_ok += ok == 1;
        /* Used up, for everyone. */
        CHECK_STATUS(resolve(ctx, sh->cred, sh->vid, sh->code), MFA_ERR_INVALID_SESSION);
    }
    printf("race (a): %d/%d rounds with exactly one phone sign-in (%d overlapped in time); %d losers got "
           "INVALID_SESSION\n", rounds_ok, round, overlaps, losers_session);
    CHECK(rounds_ok == round);
    warn_if_no_overlap("a", overlaps);
}

/* (b) The same verification id and code, enrolled twice at once. */
static void race_enroll(mfa_ctx *ctx) {
    const char *number = "+15108000002";
    int rounds_ok = 0, overlaps = 0, losers_session = 0, losers_exists = 0, round;
    for (round = 0; more_rounds(round, overlaps, 100, 500, 20); round++) {
        int ok = 0, winner = -1;
        char listed[64];
        sh->now += 31;
        snprintf(sh->uid, sizeof sh->uid, "race-enroll-%d", round);
        CHECK_STATUS(start_enroll(ctx, sh->uid, number, sh->vid), MFA_OK);
        if (!last_code(number, sh->code)) return;
        if (run_pair(OP_ENROLL, &overlaps) != 0) return;
        for (int i = 0; i < PAIR; i++) {
            int s = sh->status[i];
            if (s == MFA_OK) {
                ok++;
                winner = i;
            } else if (s == MFA_ERR_INVALID_SESSION) {
                losers_session++;
            } else if (s == MFA_ERR_SECOND_FACTOR_EXISTS) {
                losers_exists++; /* read the winner's factor before its own claim failed */
            } else {
                fprintf(stderr, "enroll round %d: worker %d got %s\n", round, i, mfa_status_name(s));
                CHECK(!"the loser gets INVALID_SESSION");
            }
        }
        if (ok != 1) fprintf(stderr, "enroll round %d: %d successes\n", round, ok);
        CHECK(ok == 1);
        CHECK(count_factors(ctx, sh->uid, listed) == 1);
        if (winner >= 0) CHECK(strcmp(listed, sh->out_eid[winner]) == 0);
        rounds_ok += ok == 1;
    }
    printf("race (b): %d/%d rounds with exactly one phone enrollment (%d overlapped in time); losers: %d "
           "INVALID_SESSION, %d SECOND_FACTOR_EXISTS\n", rounds_ok, round, overlaps, losers_session, losers_exists);
    CHECK(rounds_ok == round);
    warn_if_no_overlap("b", overlaps);
}

/* (b2) One number, two verification ids of the same user, enrolled at once.
 *
 * Why it failed before the fix: mfa_phone_enroll checked that the user does not have the number yet with a
 * read outside any transaction, and the store's finishEnrollment, which runs
 * under the user's lock, only counted the user's factors before inserting.
 * Two enrollments of one number that both read before either committed both
 * succeeded: the user ended with the number twice. (The number is sealed, so
 * no UNIQUE constraint can catch it; the check is now made inside the
 * enrollment's transaction.) */
static void race_enroll_same_number(mfa_ctx *ctx) {
    const char *number = "+15108000007";
    int rounds_ok = 0, overlaps = 0, losers_exists = 0, losers_session = 0, losers_revoked = 0, duplicates = 0, round;
    for (round = 0; round < (store.postgres ? SAME_NUMBER_PG_ROUNDS : SAME_NUMBER_ROUNDS); round++) {
        int ok = 0;
        size_t count;
        snprintf(sh->uid, sizeof sh->uid, "race-same-number-%d", round);
        for (int i = 0; i < PAIR; i++) {
            sh->now += 31; /* the resend cooldown */
            CHECK_STATUS(start_enroll(ctx, sh->uid, number, sh->pvid[i]), MFA_OK);
            if (!last_code(number, sh->pcode[i])) return;
        }
        if (run_pair(OP_ENROLL_OWN, &overlaps) != 0) return;
        for (int i = 0; i < PAIR; i++) {
            int s = sh->status[i];
            if (s == MFA_OK) ok++;
            else if (s == MFA_ERR_SECOND_FACTOR_EXISTS) losers_exists++;
            else if (s == MFA_ERR_INVALID_SESSION) losers_session++;
            else if (s == MFA_ERR_USER_TOKEN_EXPIRED) losers_revoked++;
            else {
                fprintf(stderr, "same number round %d: worker %d got %s\n", round, i, mfa_status_name(s));
                CHECK(!"the loser gets SECOND_FACTOR_EXISTS");
            }
        }
        count = count_factors(ctx, sh->uid, NULL);
        if ((ok != 1 || count != 1) && ++duplicates <= 5) {
            fprintf(stderr, "same number round %d: %d enrollments succeeded, the user has %zu phone factors with "
                            "number %s\n", round, ok, count, number);
        }
        rounds_ok += ok == 1 && count == 1;
    }
    printf("race (b2): %d/%d rounds with exactly one factor for one number enrolled twice at once through two "
           "verification ids (%d overlapped in time); losers: %d SECOND_FACTOR_EXISTS, %d INVALID_SESSION, "
           "%d USER_TOKEN_EXPIRED; %d rounds enrolled the number twice\n", rounds_ok, round, overlaps, losers_exists,
           losers_session, losers_revoked, duplicates);
    CHECK(rounds_ok == round);
}

/* ------------------------------------------------------------------ */
/* (f) PostgreSQL: the last try of an enrollment, in a forced order     */
/* ------------------------------------------------------------------ */

#define INTERLEAVE_ROUNDS 3

/* Runs `sql` (one text parameter, or none) on the test's own connection;
 * returns the first column of the first row as a number (0 if none), or -1
 * on failure. */
static long admin_exec(PGconn *conn, const char *sql, const char *param) {
    return test_pg_query(conn, sql, param ? 1 : 0, param ? &param : NULL);
}

/* Polls until `sql` counts at least one row or worker `index` has answered; 0 if either happened within 10 s. */
static int admin_wait(PGconn *conn, const char *sql, int index, const char *what) {
    for (int i = 0; i < 5000; i++) {
        if (admin_exec(conn, sql, NULL) > 0 || answered(index)) return 0;
        usleep(2000);
    }
    fprintf(stderr, "interleaving: %s did not happen within 10 s\n", what);
    return -1;
}

/* Backends that wait for one of those that wait for this connection (WAITING_ON_ME). */
#define WAITING_BEHIND_THEM                                                                            \
    "SELECT count(DISTINCT b.pid) FROM pg_locks b WHERE NOT b.granted AND EXISTS (SELECT 1 FROM pg_locks a " \
    "WHERE NOT a.granted AND pg_backend_pid() = ANY(pg_blocking_pids(a.pid)) AND a.pid = ANY(pg_blocking_pids(b.pid)))"

/*
 * An enrollment's verification id with 4 wrong tries behind it (1 left).
 * The test's own connection holds the verification's row (SELECT ... FOR
 * UPDATE in an open transaction). Worker 0 sends the right code: it is
 * judged right (that read does not wait) and its claim (UPDATE ... SET
 * used = 1) waits for the row. Then worker 1 sends a wrong code: it reads
 * the verification (still unused, as worker 0 has not committed) and waits
 * behind worker 0 to count its wrong try. The test's transaction ends:
 * worker 0 enrolls, then worker 1 goes on.
 *
 * One after another (the right code first, as it was judged and claimed
 * first), worker 1 would find the verification id used: INVALID_SESSION,
 * and its wrong code would not be evaluated. mfa_phone_enroll used to judge
 * the code in one transaction and claim it in another: nothing ordered
 * worker 1's judgment after worker 0's claim. Every round is forced, so this failed every time until the judgment
 * re-read the verification under a lock the claim also takes, or counted the
 * wrong try only while the verification was still unused.
 */
static void interleave_last_try_enroll(mfa_ctx *ctx) {
    const char *number = "+15108000008";
    int good_rounds = 0;
    PGconn *conn = PQconnectdb(store.location);
    if (PQstatus(conn) != CONNECTION_OK) {
        fprintf(stderr, "libpq: %s", PQerrorMessage(conn));
        CHECK(!"the test connects to the server");
        PQfinish(conn);
        return;
    }
    for (int round = 0; round < INTERLEAVE_ROUNDS; round++) {
        mfa_user user;
        long attempts, used;
        int setup = 0;
        sh->now += 31;
        snprintf(sh->uid, sizeof sh->uid, "interleave-%d", round);
        CHECK_STATUS(start_enroll(ctx, sh->uid, number, sh->vid), MFA_OK);
        if (!last_code(number, sh->code)) break;
        user_make(&user, sh->uid, NULL);
        wrong_enroll_tries(ctx, &user);
        for (int i = 0; i < PAIR; i++) snprintf(sh->pvid[i], TOKEN_MAX, "%s", sh->vid);
        snprintf(sh->pcode[0], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        wrong_code(sh->pcode[1], sh->code, 1);

        setup |= admin_exec(conn, "BEGIN", NULL) != 0;
        setup |= admin_exec(conn, "SELECT count(*) FROM (SELECT 1 FROM mfa_sms_verifications WHERE uid = $1 FOR UPDATE) r",
                            sh->uid) != 1;
        setup |= send_op(0, OP_ENROLL_NOW) != 0;
        setup |= admin_wait(conn, WAITING_ON_ME, 0, "worker 0 (right code) waiting for the row") != 0;
        setup |= send_op(1, OP_ENROLL_NOW) != 0;
        setup |= admin_wait(conn, WAITING_BEHIND_THEM, 1, "worker 1 (wrong code) waiting behind worker 0") != 0;
        admin_exec(conn, "COMMIT", NULL);
        setup |= wait_answer(0) != 0;
        setup |= wait_answer(1) != 0;
        CHECK(setup == 0);
        if (setup) break;
        attempts = admin_exec(conn, "SELECT attempts FROM mfa_sms_verifications WHERE uid = $1", sh->uid);
        used = admin_exec(conn, "SELECT used FROM mfa_sms_verifications WHERE uid = $1", sh->uid);
        if (sh->status[0] != MFA_OK || sh->status[1] != MFA_ERR_INVALID_SESSION) {
            fprintf(stderr, "interleaving round %d: right code (judged and claimed first) got %s, wrong code (read the "
                            "verification before that claim committed) got %s, want MFA_OK and "
                            "INVALID_SESSION; the verification now has used = %ld, attempts = %ld\n",
                    round, mfa_status_name(sh->status[0]), mfa_status_name(sh->status[1]), used, attempts);
        }
        CHECK_STATUS(sh->status[0], MFA_OK);
        CHECK_STATUS(sh->status[1], MFA_ERR_INVALID_SESSION);
        CHECK(attempts == 4);
        CHECK(count_factors(ctx, sh->uid, NULL) == 1);
        good_rounds += sh->status[0] == MFA_OK && sh->status[1] == MFA_ERR_INVALID_SESSION && attempts == 4;
    }
    PQfinish(conn);
    printf("interleaving (f): %d/%d rounds where a wrong last try that read the verification before the right "
           "code's claim committed was refused with INVALID_SESSION, not evaluated\n", good_rounds,
           INTERLEAVE_ROUNDS);
}

/*
 * (b2) in a forced order, on either store: two verification ids for one
 * number of one user, enrolled by two workers. Each worker's context draws
 * its randomness from gated_random, which, when armed, holds the worker at
 * its first draw of the call: mfa_phone_enroll makes the new enrollment id
 * after it has checked the user's numbers and before MFAStore
 * finishEnrollment. Both workers are held there, then released together:
 * the second to commit must find the number taken (SECOND_FACTOR_EXISTS);
 * before the fix it inserted a second factor with the same number.
 */
static void interleave_same_number(mfa_ctx *ctx) {
    const char *number = "+15108000009";
    int good_rounds = 0;
    for (int round = 0; round < INTERLEAVE_ROUNDS; round++) {
        int setup = 0, ok = 0, held;
        size_t count;
        snprintf(sh->uid, sizeof sh->uid, "interleave-number-%d", round);
        for (int i = 0; i < PAIR; i++) {
            sh->now += 31;
            CHECK_STATUS(start_enroll(ctx, sh->uid, number, sh->pvid[i]), MFA_OK);
            if (!last_code(number, sh->pcode[i])) return;
        }
        sh->at_gate = 0;
        sh->gate_open = 0;
        for (int i = 0; i < PAIR; i++) sh->gate[i] = 1;
        __sync_synchronize();
        for (int i = 0; i < PAIR; i++) setup |= send_op(i, OP_ENROLL_NOW) != 0;
        for (int i = 0; i < 5000 && sh->at_gate < PAIR && !(answered(0) && answered(1)); i++) usleep(2000);
        held = sh->at_gate;
        sh->gate_open = 1;
        __sync_synchronize();
        for (int i = 0; i < PAIR; i++) setup |= wait_answer(i) != 0;
        for (int i = 0; i < PAIR; i++) sh->gate[i] = 0;
        if (held != PAIR) fprintf(stderr, "interleaving (f2) round %d: %d of 2 enrollments reached the gate\n", round, held);
        CHECK(setup == 0);
        if (setup) break;
        for (int i = 0; i < PAIR; i++) ok += sh->status[i] == MFA_OK;
        count = count_factors(ctx, sh->uid, NULL);
        if (ok != 1 || count != 1) {
            fprintf(stderr, "interleaving (f2) round %d: two enrollments of %s for one user, both past their number "
                            "check, got %s and %s; the user has %zu factors, want 1\n", round, number,
                    mfa_status_name(sh->status[0]), mfa_status_name(sh->status[1]), count);
        }
        CHECK(ok == 1);
        CHECK(count == 1);
        CHECK(sh->status[0] == MFA_ERR_SECOND_FACTOR_EXISTS || sh->status[1] == MFA_ERR_SECOND_FACTOR_EXISTS);
        good_rounds += ok == 1 && count == 1;
    }
    printf("interleaving (f2): %d/%d rounds where, of two enrollments of one number that both checked the user's "
           "numbers before either committed, exactly one enrolled\n", good_rounds, INTERLEAVE_ROUNDS);
}

/* Tallies one round of (c): how many of the racing tries were evaluated. */
static int evaluated_in_round(int round, const char *what, int *accepted) {
    int evaluated = 0;
    *accepted = 0;
    for (int i = 0; i < WORKERS; i++) {
        int s = sh->status[i];
        if (s == MFA_OK) {
            evaluated++;
            (*accepted)++;
        } else if (s == MFA_ERR_INVALID_VERIFICATION_CODE) {
            evaluated++;
        } else if (s != MFA_ERR_INVALID_SESSION) {
            fprintf(stderr, "%s round %d: worker %d got %s\n", what, round, i, mfa_status_name(s));
            CHECK(!"a racing try is evaluated or refused with INVALID_SESSION");
        }
    }
    return evaluated;
}

/* What the rounds of one (c) race gave. */
typedef struct tally {
    int total;      /* tries evaluated */
    int accepted;   /* tries accepted */
    int bad_rounds; /* rounds that evaluated more than one */
} tally;

/* One round of (c): every worker sends its guess with `op` at once (worker round %
 * WORKERS the right code, the others wrong ones). How many were accepted; -1 if a
 * worker died. */
static int race_guesses(unsigned char op, int round, const char *what, tally *t) {
    int evaluated, accepted;
    for (int i = 0; i < WORKERS; i++) {
        if (i == round % WORKERS) snprintf(sh->guess[i], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        else wrong_code(sh->guess[i], sh->code, 1 + i);
    }
    if (run_round(op, WORKERS) != 0) {
        CHECK(!"a worker died");
        return -1;
    }
    evaluated = evaluated_in_round(round, what, &accepted);
    t->total += evaluated;
    t->accepted += accepted;
    if (evaluated != 1 && ++t->bad_rounds <= 5) {
        fprintf(stderr, "%s round %d: %d of %d simultaneous tries were evaluated, want 1\n", what, round, evaluated,
                WORKERS);
    }
    return accepted;
}

static void report_last_tries(const char *kind, const tally *t) {
    printf("race (c, %s): %d tries evaluated in %d rounds of %d simultaneous last tries (want %d); "
           "%d accepted; %d rounds evaluated more than one\n", kind, t->total, GUESS_ROUNDS, WORKERS, GUESS_ROUNDS,
           t->accepted, t->bad_rounds);
    CHECK(t->bad_rounds == 0);
    CHECK(t->total == GUESS_ROUNDS);
}

/* (c) The last try of a verification id, raced by eight processes: sign-in. */
static void race_last_try_sign_in(mfa_ctx *ctx) {
    const char *number = "+15108000003";
    char eid[64], wrong[MFA_CODE_BUFFER_SIZE];
    tally t = {0, 0, 0};
    CHECK_STATUS(enroll_phone(ctx, "race-last-try", number, eid), MFA_OK);
    for (int round = 0; round < GUESS_ROUNDS; round++) {
        int accepted;
        sh->now += 31;
        CHECK_STATUS(sign_in_as(ctx, "race-last-try", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK_STATUS(start_sign_in(ctx, sh->cred, eid, sh->vid), MFA_OK);
        if (!last_code(number, sh->code)) return;
        for (int i = 0; i < 4; i++) {
            wrong_code(wrong, sh->code, 100 + i);
            CHECK_STATUS(resolve(ctx, sh->cred, sh->vid, wrong), MFA_ERR_INVALID_VERIFICATION_CODE);
        }
        if ((accepted = race_guesses(OP_GUESS_RESOLVE, round, "last try (sign-in)", &t)) < 0) return;
        /* Leave the factor out of backoff for the next round: a good sign-in clears the failures. */
        if (!accepted) {
            sh->now += 31;
            CHECK_STATUS(start_sign_in(ctx, sh->cred, eid, sh->vid), MFA_OK);
            if (last_code(number, sh->code)) CHECK_STATUS(resolve(ctx, sh->cred, sh->vid, sh->code), MFA_OK);
        }
    }
    report_last_tries("sign-in", &t);
}

/* (c) The same for an enrollment's verification id. */
static void race_last_try_enroll(mfa_ctx *ctx) {
    const char *number = "+15108000004";
    tally t = {0, 0, 0};
    for (int round = 0; round < GUESS_ROUNDS; round++) {
        int accepted;
        mfa_user user;
        mfa_factor_info *info = NULL;
        sh->now += 31;
        snprintf(sh->uid, sizeof sh->uid, "race-last-try-enroll-%d", round);
        CHECK_STATUS(start_enroll(ctx, sh->uid, number, sh->vid), MFA_OK);
        if (!last_code(number, sh->code)) return;
        user_make(&user, sh->uid, NULL);
        wrong_enroll_tries(ctx, &user);
        if ((accepted = race_guesses(OP_GUESS_ENROLL, round, "last try (enrollment)", &t)) < 0) return;
        CHECK(count_factors(ctx, sh->uid, NULL) == (size_t)accepted);
        /* Either way the verification id is finished now. */
        CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, sh->vid, sh->code, NULL, NULL), MFA_ERR_INVALID_SESSION);
    }
    report_last_tries("enrollment", &t);
}

/* (d) The caps under bursts, from threads and from processes. */
static void bursts(mfa_ctx *ctx) {
    sh->record = 0;
    for (int processes = 0; processes < 2; processes++) {
        for (int s = 0; s < SCENARIO_COUNT; s++) {
            sh->now += 60;
            run_burst(ctx, s, processes);
        }
    }
    sh->record = 1;
    CHECK(sh->malformed == 0);
    /* A test-number code from the burst still enrolls with its fixed code. */
    {
        char vid[TOKEN_MAX];
        mfa_user user;
        mfa_factor_info *info = NULL;
        CHECK_STATUS(start_enroll(ctx, "burst-test-number", TEST_NUMBER, vid), MFA_OK);
        user_make(&user, "burst-test-number", NULL);
        CHECK_STATUS(mfa_phone_enroll(ctx, &info, &user, vid, TEST_CODE, NULL, NULL), MFA_OK);
        mfa_factor_info_free(info);
    }
}

/* ------------------------------------------------------------------ */
/* (e) Hand-offs between processes                                      */
/* ------------------------------------------------------------------ */

/* One step of a hand-off, in whichever process runs it (see enum step). */
static int do_step(mfa_ctx *ctx, int step) {
    mfa_user user;
    int status = MFA_ERR_INTERNAL;
    user_make(&user, sh->h_uid, NULL);
    if (step == STEP_SIGN_IN) {
        status = sign_in_as(ctx, sh->h_uid, sh->h_cred);
    } else if (step == STEP_START_SIGN_IN) {
        status = start_sign_in(ctx, sh->h_cred, sh->h_eid, sh->h_vid);
    } else if (step == STEP_RESOLVE) {
        status = resolve(ctx, sh->h_cred, sh->h_vid, sh->h_code);
    } else if (step == STEP_SESSION) {
        status = handoff_session(ctx, &user);
    } else if (step == STEP_START_ENROLL) {
        char *out = NULL;
        sh->last_to[0] = '\0';
        status = mfa_phone_start_enrollment(ctx, &out, sh->h_session, sh->h_number, GOOD_CRED, NULL);
        snprintf(sh->h_vid, TOKEN_MAX, "%s", out ? out : "");
        mfa_free(out);
    } else if (step == STEP_ENROLL) {
        mfa_factor_info *info = NULL;
        status = mfa_phone_enroll(ctx, &info, &user, sh->h_vid, sh->h_code, NULL, NULL);
        if (info) snprintf(sh->h_out_eid, 64, "%s", info->uid);
        mfa_factor_info_free(info);
    }
    return status;
}

/* What one process mints, others continue and finish: the parent (-1) and
 * workers 0 and 1 take turns in each role. */
static void handoff(mfa_ctx *ctx) {
    const char *sign_in_number = "+15108000005";
    char eid[64];
    int signed_in = 0, enrolled = 0, before = failures;
    sh->now += 31;
    CHECK_STATUS(enroll_phone(ctx, "handoff", sign_in_number, eid), MFA_OK);
    for (int round = 0; round < HANDOFF_ROUNDS; round++) {
        int first, second, third, status, round_failures = failures;
        handoff_roles(round, &first, &second, &third);
        sh->now += 31; /* the resend cooldown */
        /* Sign-in: credential from the first, SMS started by the second, resolved by the third ... */
        snprintf(sh->h_uid, sizeof sh->h_uid, "handoff");
        snprintf(sh->h_eid, sizeof sh->h_eid, "%s", eid);
        CHECK_STATUS(run_step(ctx, first, STEP_SIGN_IN), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK_STATUS(run_step(ctx, second, STEP_START_SIGN_IN), MFA_OK);
        if (!last_code(sign_in_number, sh->h_code)) return;
        status = run_step(ctx, third, STEP_RESOLVE);
        CHECK_STATUS(status, MFA_OK);
        signed_in += status == MFA_OK;
        /* ... and used up for the other two. */
        CHECK_STATUS(run_step(ctx, first, STEP_RESOLVE), MFA_ERR_INVALID_SESSION);
        CHECK_STATUS(run_step(ctx, second, STEP_RESOLVE), MFA_ERR_INVALID_SESSION);

        /* Enrollment: session from the first, SMS started by the second, enrolled by the third ... */
        snprintf(sh->h_uid, sizeof sh->h_uid, "handoff-enroll-%d", round);
        snprintf(sh->h_number, sizeof sh->h_number, "+1510801%04d", round);
        sh->h_out_eid[0] = '\0';
        CHECK_STATUS(run_step(ctx, first, STEP_SESSION), MFA_OK);
        CHECK_STATUS(run_step(ctx, second, STEP_START_ENROLL), MFA_OK);
        if (!last_code(sh->h_number, sh->h_code)) return;
        /* ... and the verification id is used up for the other two. */
        enrolled += handoff_enroll(ctx, third, first, second);
        handoff_round_report(round, first, second, third, round_failures);
    }
    printf("hand-off (e): %d/%d phone sign-ins and %d/%d phone enrollments across three processes; every "
           "credential and verification id used up everywhere%s\n", signed_in, HANDOFF_ROUNDS, enrolled,
           HANDOFF_ROUNDS, failures == before ? "" : " (FAILED)");
}

int main(int argc, char **argv) {
    mfa_ctx *ctx;
    int status;
    struct timespec t0;

    if ((status = race_setup(argc, argv, "libmfa-phone-race")) != 0) return status;
    sh->record = 1;
    /* A hang is a failure (CTest gives 300 s): a line a race, as it ends. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(290);
    clock_gettime(CLOCK_MONOTONIC, &t0);

    urandom_fd = open("/dev/urandom", O_RDONLY);
    if (urandom_fd < 0) {
        perror("/dev/urandom");
        return 2;
    }
    /* The project: phone, a test number, caps far away (the bursts set theirs per tenant),
     * and the budget of sign-in SMS per factor too (issue 8: a budget of their own). */
    if (race_start(&ctx, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                         "\"testPhoneNumbers\":{\"" TEST_NUMBER "\":\"" TEST_CODE "\"},"
                         "\"limits\":{\"smsPerNumberHour\":1000000,\"smsPerNumberDay\":1000000,"
                         "\"smsPerUserHour\":1000000,\"smsPerUserDay\":1000000,"
                         "\"smsPerTenantHour\":100000000,\"smsPerTenantDay\":100000000,"
                         "\"smsPerFactorHour\":1000000,\"smsPerFactorDay\":1000000}}")) {
        race_resolve(ctx);
        race_enroll(ctx);
        race_enroll_same_number(ctx);
        race_last_try_sign_in(ctx);
        race_last_try_enroll(ctx);
        bursts(ctx);
        handoff(ctx);
        if (store.postgres) interleave_last_try_enroll(ctx);
        interleave_same_number(ctx);
    }
    return race_finish(ctx, t0);
}
