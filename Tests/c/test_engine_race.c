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

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"
#include "test_pg_store.h"

static int failures;
static int checks;

#define CHECK(cond)                                                               \
    do {                                                                          \
        checks++;                                                                 \
        if (!(cond)) {                                                            \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

#define CHECK_STATUS(expr, want)                                                  \
    do {                                                                          \
        int got_ = (expr);                                                        \
        checks++;                                                                 \
        if (got_ != (want)) {                                                     \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: %s gave %s, want %s\n", __FILE__, __LINE__,   \
                    #expr, mfa_status_name(got_), mfa_status_name(want));         \
        }                                                                         \
    } while (0)

#define TOKEN_MAX 4200
#define WORKERS 8
#define PAIR 2
#define BACKOFF_ROUNDS 60
#define PG_ROUNDS 1000
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

static shared *sh;
static test_store store;

static const uint8_t KEY[MFA_MASTER_KEY_BYTES] = {
    0x5a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0};

static int64_t shared_clock(void *context) {
    (void)context;
    return sh->now;
}

static mfa_ctx *open_store(void) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    if (mfa_options_init(&options) != MFA_OK) return NULL;
    options.store = sh->store;
    options.master_key.id = "race";
    options.master_key.key = KEY;
    options.clock = shared_clock;
    status = mfa_open(&ctx, &options, &err);
    if (status != MFA_OK) fprintf(stderr, "mfa_open: %s: %s\n", mfa_status_name(status), err ? err : "");
    mfa_free(err);
    return ctx;
}

static void user_make(mfa_user *user, const char *uid) {
    if (mfa_user_init(user) != MFA_OK) abort();
    user->uid = uid;
    user->email = "race@example.com";
    user->email_verified = 1;
    user->auth_time = sh->now;
}

static void code_at(char out[MFA_CODE_BUFFER_SIZE], const char *base32, int64_t when) {
    uint8_t *key = NULL;
    size_t len = 0;
    out[0] = '\0';
    CHECK_STATUS(mfa_base32_decode(&key, &len, base32), MFA_OK);
    if (key) CHECK_STATUS(mfa_totp_generate(out, MFA_CODE_BUFFER_SIZE, key, len, NULL, when), MFA_OK);
    mfa_free(key);
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

typedef struct worker {
    pid_t pid;
    int command; /* parent writes one byte (an op) per round */
    int result;  /* worker writes one byte when done */
} worker;

static worker workers[WORKERS];

static int do_step(mfa_ctx *ctx, int step);

static void start_line(int index, int crowded) {
    int round = sh->round;
    unsigned long spins = 0;
    __sync_fetch_and_add(&sh->ready, 1);
    while (sh->go != round) {
        __sync_synchronize();
        /* More workers than CPUs: let the others reach the line. */
        if (crowded && ++spins % 4096 == 0) sched_yield();
    }
    clock_gettime(CLOCK_MONOTONIC, &sh->started[index]);
}

static void finish_line(int index) {
    clock_gettime(CLOCK_MONOTONIC, &sh->ended[index]);
}

static void worker_main(int index, int command, int result) {
    mfa_ctx *ctx = NULL;
    unsigned char op;
    for (;;) {
        ssize_t got = read(command, &op, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got != 1 || op == OP_EXIT) break;
        if (op == OP_OPEN) {
            ctx = open_store();
            sh->status[index] = ctx ? MFA_OK : MFA_ERR_STORAGE_ERROR;
        } else if (op == OP_RESOLVE || op == OP_ENROLL) {
            mfa_user user;
            start_line(index, 0);
            if (op == OP_RESOLVE) {
                mfa_sign_in_result *out = NULL;
                sh->status[index] =
                    mfa_resolve_totp(ctx, &out, sh->pcred[index], NULL, sh->peid[index], sh->pcode[index], NULL);
                mfa_sign_in_result_free(out);
            } else {
                mfa_factor_info *info = NULL;
                user_make(&user, sh->uid);
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
        } else if (op == OP_STEP) {
            sh->step_status = do_step(ctx, sh->step);
        }
        if (write(result, "x", 1) != 1) break;
    }
    mfa_close(ctx);
    _exit(0);
}

static void start_workers(void) {
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < WORKERS; i++) {
        int to_worker[2], from_worker[2];
        if (pipe(to_worker) != 0 || pipe(from_worker) != 0) {
            perror("pipe");
            exit(2);
        }
        workers[i].pid = fork();
        if (workers[i].pid < 0) {
            perror("fork");
            exit(2);
        }
        if (workers[i].pid == 0) {
            close(to_worker[1]);
            close(from_worker[0]);
            for (int j = 0; j < i; j++) {
                close(workers[j].command);
                close(workers[j].result);
            }
            worker_main(i, to_worker[0], from_worker[1]);
        }
        close(to_worker[0]);
        close(from_worker[1]);
        workers[i].command = to_worker[1];
        workers[i].result = from_worker[0];
    }
}

/* Sends `op` to workers 0..count-1, releases them together once all are at
 * the start line, and waits until each has answered. */
static int run_round(unsigned char op, int count) {
    static int round;
    int racing = op != OP_OPEN;
    for (int i = 0; i < count; i++) sh->status[i] = 1;
    sh->ready = 0;
    sh->round = ++round;
    __sync_synchronize();
    for (int i = 0; i < count; i++) {
        if (write(workers[i].command, &op, 1) != 1) return -1;
    }
    if (racing) {
        while (sh->ready < count) sched_yield();
        sh->go = round;
        __sync_synchronize();
    }
    for (int i = 0; i < count; i++) {
        char byte;
        ssize_t got;
        do {
            got = read(workers[i].result, &byte, 1);
        } while (got < 0 && errno == EINTR);
        if (got != 1) {
            fprintf(stderr, "worker %d died\n", i);
            return -1;
        }
    }
    return 0;
}

/* Has worker `index` (or the parent's `ctx`, for -1) do sh->step; returns its status. */
static int run_step(mfa_ctx *ctx, int index, int step) {
    unsigned char op = OP_STEP;
    char byte;
    ssize_t got;
    sh->step = step;
    sh->step_status = 1;
    if (index < 0) return do_step(ctx, step);
    __sync_synchronize();
    if (write(workers[index].command, &op, 1) != 1) return -1;
    do {
        got = read(workers[index].result, &byte, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) {
        fprintf(stderr, "worker %d died\n", index);
        return -1;
    }
    return sh->step_status;
}

static double seconds(struct timespec t) {
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the calls of workers 0 and 1 overlapped in time. */
static int overlapped(void) {
    return seconds(sh->started[0]) < seconds(sh->ended[1]) && seconds(sh->started[1]) < seconds(sh->ended[0]);
}

static void stop_workers(void) {
    for (int i = 0; i < WORKERS; i++) {
        unsigned char op = OP_EXIT;
        int wstatus = 0;
        if (write(workers[i].command, &op, 1) != 1) kill(workers[i].pid, SIGKILL);
        close(workers[i].command);
        close(workers[i].result);
        CHECK(waitpid(workers[i].pid, &wstatus, 0) == workers[i].pid);
        CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
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
    user_make(&user, uid);
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

static int begin_sign_in(mfa_ctx *ctx, const char *uid, char cred[TOKEN_MAX]) {
    mfa_user user;
    mfa_resolver *resolver = NULL;
    int status;
    user_make(&user, uid);
    status = mfa_sign_in(ctx, &resolver, &user, NULL);
    cred[0] = '\0';
    if (resolver) snprintf(cred, TOKEN_MAX, "%s", resolver->session);
    mfa_resolver_free(resolver);
    return status;
}

static size_t factor_count(mfa_ctx *ctx, const char *uid, char first_eid[64]) {
    mfa_user user;
    mfa_factor_list *list = NULL;
    size_t count;
    user_make(&user, uid);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
    count = list ? list->count : 0;
    if (first_eid) snprintf(first_eid, 64, "%s", list && list->count ? list->items[0].uid : "");
    mfa_factor_list_free(list);
    return count;
}

/* Whether a two-process race needs another round: at least `least` rounds
 * (more, up to `most`, until `want` have overlapped in time) on SQLite;
 * exactly PG_ROUNDS on PostgreSQL. */
static int more_rounds(int round, int overlaps, int least, int most, int want) {
    if (store.postgres) return round < PG_ROUNDS;
    return round < least || (overlaps < want && round < most);
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
static int resolve_round(int round, const char *what, int *ok, int *losers_session, int *losers_code, int *loser) {
    *ok = 0;
    *loser = -1;
    if (run_round(OP_RESOLVE, PAIR) != 0) {
        CHECK(!"a worker died");
        return -1;
    }
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
        CHECK_STATUS(begin_sign_in(ctx, "race-resolve", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        code_at(sh->code, f.key, sh->now);
        for (int i = 0; i < PAIR; i++) {
            snprintf(sh->pcred[i], TOKEN_MAX, "%s", sh->cred);
            snprintf(sh->peid[i], 64, "%s", f.eid);
            snprintf(sh->pcode[i], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        }
        if (resolve_round(round, "resolve", &ok, &losers_session, &losers_code, &loser) != 0) return;
        overlaps += overlapped();
        rounds_ok += ok == 1;
    }
    printf("race (a): %d/%d rounds with exactly one sign-in (%d rounds overlapped in time); losers: %d "
           "INVALID_SESSION, %d INVALID_VERIFICATION_CODE\n", rounds_ok, round, overlaps, losers_session, losers_code);
    CHECK(rounds_ok == round);
    if (overlaps == 0) printf("WARNING: no round of (a) overlapped in time (one CPU, or a loaded machine?)\n");
    /* The factor is still usable, and not in backoff. */
    sh->now += 30;
    CHECK_STATUS(begin_sign_in(ctx, "race-resolve", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
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
            CHECK_STATUS(begin_sign_in(ctx, "race-two-credentials", sh->pcred[i]), MFA_ERR_SECOND_FACTOR_REQUIRED);
            snprintf(sh->peid[i], 64, "%s", f.eid);
            snprintf(sh->pcode[i], MFA_CODE_BUFFER_SIZE, "%s", sh->code);
        }
        if (resolve_round(round, "two credentials", &ok, &losers_session, &losers_code, &loser) != 0) return;
        overlaps += overlapped();
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
    if (overlaps == 0) printf("WARNING: no round of (a2) overlapped in time (one CPU, or a loaded machine?)\n");
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
        CHECK_STATUS(begin_sign_in(ctx, "race-two-factors", sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
        for (int i = 0; i < PAIR; i++) {
            snprintf(sh->pcred[i], TOKEN_MAX, "%s", sh->cred);
            snprintf(sh->peid[i], 64, "%s", f[i].eid);
            code_at(sh->pcode[i], f[i].key, sh->now);
        }
        if (resolve_round(round, "two factors", &ok, &losers_session, &losers_code, &loser) != 0) return;
        overlaps += overlapped();
        rounds_ok += ok == 1;
        /* The loser's code was not claimed: a new credential resolves with it, in the same step. */
        if (loser >= 0) {
            char cred[TOKEN_MAX];
            mfa_sign_in_result *out = NULL;
            CHECK_STATUS(begin_sign_in(ctx, "race-two-factors", cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
            CHECK_STATUS(mfa_resolve_totp(ctx, &out, cred, NULL, sh->peid[loser], sh->pcode[loser], NULL), MFA_OK);
            mfa_sign_in_result_free(out);
        }
    }
    printf("race (a3): %d/%d rounds with exactly one sign-in from one pending credential and two factors (%d rounds "
           "overlapped in time); losers: %d INVALID_SESSION, %d INVALID_VERIFICATION_CODE; every loser's code "
           "resolved afterwards\n", rounds_ok, round, overlaps, losers_session, losers_code);
    CHECK(rounds_ok == round);
    CHECK(losers_code == 0);
    if (overlaps == 0) printf("WARNING: no round of (a3) overlapped in time (one CPU, or a loaded machine?)\n");
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
        user_make(&user, sh->uid);
        CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (!secret) {
            mfa_free(session);
            return;
        }
        snprintf(sh->session_info, sizeof sh->session_info, "%s", secret->session_info);
        code_at(sh->code, secret->shared_secret_key, sh->now);
        if (run_round(OP_ENROLL, PAIR) != 0) {
            CHECK(!"a worker died");
            mfa_totp_secret_free(secret);
            mfa_free(session);
            return;
        }
        overlaps += overlapped();
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
        CHECK(factor_count(ctx, sh->uid, listed) == 1);
        if (winner >= 0) CHECK(strcmp(listed, sh->out_eid[winner]) == 0);
        rounds_ok += ok == 1;
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    printf("race (b): %d/%d rounds with exactly one enrollment (%d rounds overlapped in time)\n", rounds_ok, round,
           overlaps);
    CHECK(rounds_ok == round);
    if (overlaps == 0) printf("WARNING: no round of (b) overlapped in time (one CPU, or a loaded machine?)\n");
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
        CHECK_STATUS(begin_sign_in(ctx, uid, sh->cred), MFA_ERR_SECOND_FACTOR_REQUIRED);
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
    user_make(&user, sh->h_uid);
    if (step == STEP_SIGN_IN) {
        status = begin_sign_in(ctx, sh->h_uid, sh->h_cred);
    } else if (step == STEP_RESOLVE) {
        mfa_sign_in_result *out = NULL;
        status = mfa_resolve_totp(ctx, &out, sh->h_cred, NULL, sh->h_eid, sh->h_code, NULL);
        mfa_sign_in_result_free(out);
    } else if (step == STEP_SESSION) {
        char *session = NULL;
        status = mfa_session_new(ctx, &session, &user, NULL);
        snprintf(sh->h_session, TOKEN_MAX, "%s", session ? session : "");
        mfa_free(session);
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

static const char *process_name(int index) {
    return index < 0 ? "the parent" : index == 0 ? "worker 0" : "worker 1";
}

/* What one process mints, another finishes: the parent (-1) and workers 0
 * and 1 take turns in each role. */
static void handoff(mfa_ctx *ctx) {
    static const int processes[3] = {-1, 0, 1};
    factor f;
    int signed_in = 0, enrolled = 0, before = failures;
    sh->now += 30;
    CHECK_STATUS(enroll(ctx, "handoff", &f), MFA_OK);
    for (int round = 0; round < HANDOFF_ROUNDS; round++) {
        int first = processes[round % 3], second = processes[(round + 1) % 3], third = processes[(round + 2) % 3];
        int status, round_failures = failures;
        char listed[64];
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
        status = run_step(ctx, third, STEP_ENROLL);
        CHECK_STATUS(status, MFA_OK);
        enrolled += status == MFA_OK;
        CHECK(factor_count(ctx, sh->h_uid, listed) == 1);
        CHECK(strcmp(listed, sh->h_out_eid) == 0);
        /* The pending secret is used up for the other two. */
        CHECK_STATUS(run_step(ctx, second, STEP_ENROLL), MFA_ERR_INVALID_SESSION);
        CHECK_STATUS(run_step(ctx, first, STEP_ENROLL), MFA_ERR_INVALID_SESSION);
        CHECK(factor_count(ctx, sh->h_uid, NULL) == 1);
        if (failures != round_failures) {
            fprintf(stderr, "hand-off round %d: minted in %s, continued in %s, finished in %s\n", round,
                    process_name(first), process_name(second), process_name(third));
        }
    }
    printf("hand-off (d): %d/%d pending credentials resolved in another process, %d/%d enrollments finished in a "
           "third process; every token used up everywhere%s\n", signed_in, HANDOFF_ROUNDS, enrolled, HANDOFF_ROUNDS,
           failures == before ? "" : " (FAILED)");
}

int main(int argc, char **argv) {
    mfa_ctx *ctx;
    int limit;
    struct timespec t0, t1;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
#ifdef MAP_ANONYMOUS
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
#else
    {
        int zero = open("/dev/zero", O_RDWR);
        sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, zero, 0);
        close(zero);
    }
#endif
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    memset(sh, 0, sizeof *sh);
    sh->now = 1700000010;

    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-race") != 0) return 2;
    snprintf(sh->store, sizeof sh->store, "%s", store.location);
    printf("store: %s\n", store.postgres ? store.location : "SQLite");
    /* A hang is a failure (CTest gives 120 s on SQLite, 300 s on PostgreSQL). */
    limit = store.postgres ? 290 : 115;
    alarm((unsigned)limit);
    clock_gettime(CLOCK_MONOTONIC, &t0);

    /* Fork before any store is open: no connection crosses a fork. */
    start_workers();
    ctx = open_store();
    CHECK(ctx != NULL);
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}", NULL),
                 MFA_OK);
    if (run_round(OP_OPEN, WORKERS) == 0) {
        int opened = 1;
        for (int i = 0; i < WORKERS; i++) opened &= sh->status[i] == MFA_OK;
        CHECK(opened);
        if (opened && ctx) {
            race_resolve(ctx);
            race_resolve_two_credentials(ctx);
            race_resolve_two_factors(ctx);
            race_enroll(ctx);
            race_backoff(ctx);
            handoff(ctx);
        }
    } else {
        CHECK(!"workers failed to open the store");
    }
    stop_workers();
    mfa_close(ctx);
    test_store_remove(&store);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%d checks, %d failures (%.1f s)\n", checks, failures, seconds(t1) - seconds(t0));
    return failures == 0 ? 0 : 1;
}
