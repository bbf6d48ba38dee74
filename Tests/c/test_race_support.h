/*
 * What the race tests (test_engine_race.c, test_engine_phone_race.c) share:
 * worker processes that each open their own context on one store (SQLite or
 * PostgreSQL, test_pg_store.h), one injected clock in shared memory, a start
 * line that releases the workers of a round at once, and hand-off steps run
 * in whichever process is named.
 *
 * Include after the test's own
 *   WORKERS, PAIR                 how many worker processes; how many race in a two-process round
 *   enum op                       with OP_EXIT (0), OP_OPEN and OP_STEP among its values
 *   enum step                     with STEP_ENROLL (a hand-off step that enrolls into h_out_eid)
 *   struct `shared` (typedef)     with at least
 *       volatile int64_t now;  volatile int ready, go, round;
 *       struct timespec started[WORKERS], ended[WORKERS];
 *       char store[1200];  int step, step_status;  int status[WORKERS];
 *       char h_uid[64], h_session[...], h_out_eid[64];
 * and define, after it,
 *   static mfa_ctx *open_store(void);        a context of this process (race_options, race_open)
 *   static int do_step(mfa_ctx *ctx, int step);   one hand-off step (OP_STEP)
 *   static void worker_op(mfa_ctx *ctx, int index, unsigned char op);  any other op
 *
 * Header-only (static functions), for the tests built at
 * -std=c99 -Wall -Wextra -pedantic -Werror. Link with -lpq.
 */
#ifndef TEST_RACE_SUPPORT_H
#define TEST_RACE_SUPPORT_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_pg_store.h"
#include "test_support.h"

#define PG_ROUNDS 1000 /* each two-process race, on PostgreSQL */

static shared *sh;
static test_store store;
/* This process: -1 for the parent, else the worker's index. */
static int self_index = -1;

static const uint8_t KEY[MFA_MASTER_KEY_BYTES] = {
    0x5a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0};

static mfa_ctx *open_store(void);
static int do_step(mfa_ctx *ctx, int step);
static void worker_op(mfa_ctx *ctx, int index, unsigned char op);

/* ------------------------------------------------------------------ */
/* Contexts and users                                                   */
/* ------------------------------------------------------------------ */

static inline int64_t shared_clock(void *context) {
    (void)context;
    return sh->now;
}

/* Options for the store, under the test's key, on the shared clock. */
static inline int race_options(mfa_options *options) {
    int status = mfa_options_init(options, MFA_OPTIONS_VERSION);
    if (status != MFA_OK) return status;
    options->store = sh->store;
    options->master_key.id = "race";
    options->master_key.key = KEY;
    options->clock = shared_clock;
    return MFA_OK;
}

/* mfa_open, which says why it failed. */
static inline mfa_ctx *race_open(const mfa_options *options) {
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status = mfa_open(&ctx, options, &err);
    if (status != MFA_OK) fprintf(stderr, "mfa_open: %s: %s\n", mfa_status_name(status), err ? err : "");
    mfa_free(err);
    return ctx;
}

static inline void user_make(mfa_user *user, const char *uid, const char *tenant) {
    if (test_user(user, uid, tenant, "race@example.com", sh->now) != MFA_OK) abort();
}

/* The user `uid` passes the first factor: the status; the pending credential in `cred`. */
static inline int sign_in_as(mfa_ctx *ctx, const char *uid, char cred[TOKEN_MAX]) {
    mfa_user user;
    user_make(&user, uid, NULL);
    return sign_in_for(ctx, &user, cred, NULL, NULL);
}

/* How many factors `uid` has (0 if they cannot be listed, a failed check); `first_eid`, if
 * not NULL, receives the first one's id. */
static inline size_t count_factors_at(mfa_ctx *ctx, const char *uid, char first_eid[64], int line) {
    mfa_user user;
    user_make(&user, uid, NULL);
    return list_factors_at(ctx, &user, first_eid, 0, line);
}
#define count_factors(ctx, uid, first_eid) count_factors_at(ctx, uid, first_eid, __LINE__)

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

typedef struct worker {
    pid_t pid;
    int command; /* parent writes one byte (an op) per round */
    int result;  /* worker writes one byte when done */
} worker;

static worker workers[WORKERS];

static inline void start_line(int index, int crowded) {
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

static inline void finish_line(int index) {
    clock_gettime(CLOCK_MONOTONIC, &sh->ended[index]);
}

static inline void worker_main(int index, int command, int result) {
    mfa_ctx *ctx = NULL;
    unsigned char op;
    for (;;) {
        ssize_t got = read(command, &op, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got != 1 || op == OP_EXIT) break;
        if (op == OP_OPEN) {
            ctx = open_store();
            sh->status[index] = ctx ? MFA_OK : MFA_ERR_STORAGE_ERROR;
        } else if (op == OP_STEP) {
            sh->step_status = do_step(ctx, sh->step);
        } else {
            worker_op(ctx, index, op);
        }
        if (write(result, "x", 1) != 1) break;
    }
    mfa_close(ctx);
    _exit(0);
}

static inline void start_workers(void) {
    pid_t parent = getpid();
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
            /* A worker spins at the start line: it must not outlive a test that died
             * (its alarm, a CTest timeout) and keep a core busy. */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(2);
            close(to_worker[1]);
            close(from_worker[0]);
            for (int j = 0; j < i; j++) {
                close(workers[j].command);
                close(workers[j].result);
            }
            self_index = i;
            worker_main(i, to_worker[0], from_worker[1]);
        }
        close(to_worker[0]);
        close(from_worker[1]);
        workers[i].command = to_worker[1];
        workers[i].result = from_worker[0];
    }
}

/* Waits for worker `index` to answer; -1 if it died. */
static inline int wait_answer(int index) {
    char byte;
    ssize_t got;
    do {
        got = read(workers[index].result, &byte, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) fprintf(stderr, "worker %d died\n", index);
    return got == 1 ? 0 : -1;
}

/* Sends `op` to workers 0..count-1, releases them together once all are at
 * the start line, and waits until each has answered. */
static inline int run_round(unsigned char op, int count) {
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
        if (wait_answer(i) != 0) return -1;
    }
    return 0;
}

/* Has worker `index` (or the parent's `ctx`, for -1) do sh->step; returns its status. */
static inline int run_step(mfa_ctx *ctx, int index, int step) {
    unsigned char op = OP_STEP;
    sh->step = step;
    sh->step_status = 1;
    if (index < 0) return do_step(ctx, step);
    __sync_synchronize();
    if (write(workers[index].command, &op, 1) != 1) return -1;
    if (wait_answer(index) != 0) return -1;
    return sh->step_status;
}

static inline const char *process_name(int index) {
    return index < 0 ? "the parent" : index == 0 ? "worker 0" : "worker 1";
}

static inline double seconds(struct timespec t) {
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the calls of workers 0 and 1 overlapped in time. */
static inline int overlapped(void) {
    return seconds(sh->started[0]) < seconds(sh->ended[1]) && seconds(sh->started[1]) < seconds(sh->ended[0]);
}

/* What a two-process race says when none of its rounds overlapped in time. */
static inline void warn_if_no_overlap(const char *race, int overlaps) {
    if (overlaps == 0) printf("WARNING: no round of (%s) overlapped in time (one CPU, or a loaded machine?)\n", race);
}

/* Runs a two-process round of `op`; counts it in `*overlaps` if the two calls overlapped
 * in time. -1 (a failed check) if a worker died. */
static inline int run_pair(unsigned char op, int *overlaps) {
    if (run_round(op, PAIR) != 0) {
        CHECK(!"a worker died");
        return -1;
    }
    *overlaps += overlapped();
    return 0;
}

static inline void stop_workers(void) {
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

/* Whether a two-process race needs another round: at least `least` rounds
 * (more, up to `most`, until `want` have overlapped in time) on SQLite;
 * exactly PG_ROUNDS on PostgreSQL. */
static inline int more_rounds(int round, int overlaps, int least, int most, int want) {
    if (store.postgres) return round < PG_ROUNDS;
    return round < least || (overlaps < want && round < most);
}

/* ------------------------------------------------------------------ */
/* Hand-offs: what one process mints, others continue and finish        */
/* ------------------------------------------------------------------ */

/* The roles in hand-off round `round`: the parent (-1) and workers 0 and 1 take turns. */
static inline void handoff_roles(int round, int *first, int *second, int *third) {
    static const int processes[3] = {-1, 0, 1};
    *first = processes[round % 3];
    *second = processes[(round + 1) % 3];
    *third = processes[(round + 2) % 3];
}

/* The hand-off step that makes an enrollment session for `user`, into sh->h_session. */
static inline int handoff_session(mfa_ctx *ctx, const mfa_user *user) {
    char *session = NULL;
    int status = mfa_session_new(ctx, &session, user, NULL);
    snprintf(sh->h_session, sizeof sh->h_session, "%s", session ? session : "");
    mfa_free(session);
    return status;
}

/* The end of a hand-off enrollment of sh->h_uid: `by` runs STEP_ENROLL, which must work and
 * be the user's one factor; then the token is used up for `again` and `then`. Whether it worked. */
static inline int handoff_enroll_at(mfa_ctx *ctx, int by, int again, int then, int line) {
    char listed[64];
    int status = run_step(ctx, by, STEP_ENROLL);
    CHECK_STATUS_AT(status, MFA_OK, line);
    CHECK_AT(count_factors_at(ctx, sh->h_uid, listed, line) == 1, line);
    CHECK_AT(strcmp(listed, sh->h_out_eid) == 0, line);
    CHECK_STATUS_AT(run_step(ctx, again, STEP_ENROLL), MFA_ERR_INVALID_SESSION, line);
    CHECK_STATUS_AT(run_step(ctx, then, STEP_ENROLL), MFA_ERR_INVALID_SESSION, line);
    CHECK_AT(count_factors_at(ctx, sh->h_uid, NULL, line) == 1, line);
    return status == MFA_OK;
}
#define handoff_enroll(ctx, by, again, then) handoff_enroll_at(ctx, by, again, then, __LINE__)

/* Names the processes of a hand-off round that failed a check (`before`: the failures before it). */
static inline void handoff_round_report(int round, int first, int second, int third, int before) {
    if (failures != before) {
        fprintf(stderr, "hand-off round %d: minted in %s, continued in %s, finished in %s\n", round,
                process_name(first), process_name(second), process_name(third));
    }
}

/* ------------------------------------------------------------------ */
/* The test's start and end                                             */
/* ------------------------------------------------------------------ */

/* Shared memory for `sh` (zeroed, the clock at START_TIME), and the store the
 * optional argument names (see test_pg_store.h); 0 on success, else the exit status. */
static inline int race_setup(int argc, char **argv, const char *prefix) {
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
    sh->now = START_TIME;
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, prefix) != 0) return 2;
    snprintf(sh->store, sizeof sh->store, "%s", store.location);
    printf("store: %s\n", store.postgres ? store.location : "SQLite");
    return 0;
}

/* Forks the workers (before any store is open: no connection crosses a fork),
 * opens the parent's context into `*ctx`, sets the project's `config`, and has
 * every worker open its own context. Whether all of that worked. */
static inline int race_start(mfa_ctx **ctx, const char *config) {
    int opened = 1;
    start_workers();
    *ctx = open_store();
    CHECK(*ctx != NULL);
    CHECK_STATUS(mfa_config_set_json(*ctx, NULL, config, NULL), MFA_OK);
    if (run_round(OP_OPEN, WORKERS) != 0) {
        CHECK(!"workers failed to open the store");
        return 0;
    }
    for (int i = 0; i < WORKERS; i++) opened &= sh->status[i] == MFA_OK;
    CHECK(opened);
    return opened && *ctx;
}

/* Stops the workers, closes `ctx`, removes the store; the report, timed from `t0`. */
static inline int race_finish(mfa_ctx *ctx, struct timespec t0) {
    struct timespec t1;
    stop_workers();
    mfa_close(ctx);
    test_store_remove(&store);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return test_report_timed(seconds(t1) - seconds(t0));
}

#endif
