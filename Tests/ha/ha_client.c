/*
 * The client side of the high-availability tests (Tests/ha/failover.sh,
 * Tests/ha/pgbouncer.sh): complete TOTP sign-ins through libmfa's C API
 * against a PostgreSQL store, with a log of every answer, and the checks
 * made afterwards.
 *
 *   ha_client setup  URL USERS
 *       configures the store and imports USERS users with known secrets
 *   ha_client work   URL USERS WORKER WORKERS LOG STOPFILE
 *       signs in users WORKER, WORKER+WORKERS, ... again and again, one
 *       time step later each pass, until STOPFILE exists. Every answer is
 *       logged: "OK u step", "REFUSED u step" (the code was taken: allowed
 *       only after an unanswered attempt with it), "AMBIGUOUS u step" (the
 *       attempt's answer was STORAGE_ERROR: it may or may not have
 *       committed), "DOWN" (STORAGE_ERROR before the attempt). A
 *       STORAGE_ERROR is retried after a pause with a new sign-in and the
 *       same code, so that each (user, step) ends accepted at most once.
 *   ha_client verify URL USERS LOG...
 *       checks that every user still has its factor (none lost), that no
 *       (user, step) was accepted twice, that no code was refused without
 *       an unanswered attempt before it, and that every accepted code is
 *       refused now (replayed after the failover); prints the counts
 *
 * Exit status 0 when everything held.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"

enum { MAX_USERS = 4096, MAX_STEPS = 4096 };
static const int64_t base_time = 1900000000; /* step base_time / 30 is pass 0 */
static int64_t now_value = 1900000000;
static const uint8_t master[MFA_MASTER_KEY_BYTES] = {7, 1, 7};

static int64_t test_clock(void *context) {
    (void)context;
    return now_value;
}

static void secret_of(long user, uint8_t out[20]) {
    uint64_t state = 0x243F6A8885A308D3ull ^ (uint64_t)user * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 20; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out[i] = (uint8_t)(state >> 32);
    }
}

static void user_of(long number, char uid[32], mfa_user *user) {
    snprintf(uid, 32, "ha-user-%05ld", number);
    if (mfa_user_init(user, MFA_USER_VERSION) != MFA_OK) exit(3);
    user->uid = uid;
    user->auth_time = now_value;
}

static mfa_ctx *open_store(const char *url) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    if (mfa_options_init(&options, MFA_OPTIONS_VERSION) != MFA_OK) exit(3);
    options.store = url;
    options.master_key.id = "ha";
    options.master_key.key = master;
    options.clock = test_clock;
    int32_t status = mfa_open(&ctx, &options, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "open: %s %s\n", mfa_status_name(status), err ? err : "");
        mfa_free(err);
        return NULL;
    }
    return ctx;
}

/* Sleeps `ms` milliseconds. */
static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* One complete sign-in of `number` with the code of `when`. */
typedef enum { SIGNED_IN, CODE_REFUSED, DOWN_BEFORE, DOWN_DURING, OTHER } outcome;

static outcome sign_in(mfa_ctx *ctx, long number, int64_t when, int32_t *status_out) {
    char uid[32], code[MFA_CODE_BUFFER_SIZE];
    uint8_t secret[20];
    mfa_user user;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    now_value = when;
    user_of(number, uid, &user);
    secret_of(number, secret);
    int32_t status = mfa_sign_in(ctx, &resolver, &user, NULL);
    *status_out = status;
    if (status == MFA_ERR_STORAGE_ERROR) return DOWN_BEFORE;
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED || !resolver || resolver->hint_count != 1) {
        mfa_resolver_free(resolver);
        return OTHER;
    }
    if (mfa_totp_generate(code, sizeof code, secret, sizeof secret, NULL, when) != MFA_OK) exit(3);
    status = mfa_resolve_totp(ctx, &result, resolver->session, NULL, resolver->hints[0].uid, code, NULL);
    *status_out = status;
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
    if (status == MFA_OK) return SIGNED_IN;
    if (status == MFA_ERR_INVALID_VERIFICATION_CODE) return CODE_REFUSED;
    if (status == MFA_ERR_STORAGE_ERROR) return DOWN_DURING;
    return OTHER;
}

static int setup(const char *url, long users) {
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    for (int tries = 0; !ctx && tries < 50; tries++) {
        ctx = open_store(url);
        if (!ctx) sleep(1);
    }
    if (!ctx) return 1;
    int32_t status = mfa_config_set_json(ctx, NULL,
        "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},"
        "\"limits\":{\"freeAttempts\":100,\"failureMemory\":60}}", &err);
    if (status != MFA_OK) {
        fprintf(stderr, "config: %s %s\n", mfa_status_name(status), err ? err : "");
        return 1;
    }
    for (long u = 0; u < users; u++) {
        char uid[32];
        uint8_t secret[20];
        mfa_user user;
        mfa_factor_info *info = NULL;
        user_of(u, uid, &user);
        secret_of(u, secret);
        status = mfa_totp_import(ctx, &info, &user, secret, sizeof secret, NULL, NULL, &err);
        if (status != MFA_OK) {
            fprintf(stderr, "import %ld: %s %s\n", u, mfa_status_name(status), err ? err : "");
            return 1;
        }
        mfa_factor_info_free(info);
    }
    mfa_close(ctx);
    return 0;
}

static int work(const char *url, long users, long worker, long workers, const char *log_path, const char *stop) {
    FILE *log = fopen(log_path, "w");
    if (!log) return 1;
    setvbuf(log, NULL, _IOLBF, 0);
    mfa_ctx *ctx = NULL;
    while (!ctx) {
        ctx = open_store(url);
        if (!ctx) {
            fprintf(log, "DOWN\n");
            pause_ms(100);
        }
    }
    for (long pass = 0; pass < MAX_STEPS && access(stop, F_OK) != 0; pass++) {
        int64_t when = base_time + 30 * pass;
        for (long u = worker; u < users && access(stop, F_OK) != 0; u += workers) {
            int ambiguous = 0;
            for (;;) {
                int32_t status = 0;
                outcome result = sign_in(ctx, u, when, &status);
                if (result == SIGNED_IN) {
                    fprintf(log, "OK %ld %ld\n", u, pass);
                    break;
                }
                if (result == CODE_REFUSED) {
                    fprintf(log, "REFUSED %ld %ld %d\n", u, pass, ambiguous);
                    break;
                }
                if (result == OTHER) {
                    fprintf(log, "FAILED %ld %ld %s\n", u, pass, mfa_status_name(status));
                    return 1;
                }
                if (result == DOWN_DURING) {
                    ambiguous = 1;
                    fprintf(log, "AMBIGUOUS %ld %ld\n", u, pass);
                } else {
                    fprintf(log, "DOWN\n");
                }
                pause_ms(50);
            }
        }
    }
    mfa_close(ctx);
    fclose(log);
    return 0;
}

static unsigned char accepted[MAX_USERS][MAX_STEPS];
static unsigned char ambiguous_seen[MAX_USERS][MAX_STEPS];

static int verify(const char *url, long users, int logs, char **paths) {
    long ok = 0, refused = 0, ambiguous = 0, down = 0, twice = 0, wrongly_refused = 0;
    if (users > MAX_USERS) return 1;
    for (int i = 0; i < logs; i++) {
        FILE *log = fopen(paths[i], "r");
        char line[128], word[32];
        long u, step, flag;
        if (!log) return 1;
        while (fgets(line, sizeof line, log)) {
            int fields = sscanf(line, "%31s %ld %ld %ld", word, &u, &step, &flag);
            if (strcmp(word, "DOWN") == 0) {
                down++;
                continue;
            }
            if (fields < 3 || u < 0 || u >= users || step < 0 || step >= MAX_STEPS) continue;
            if (strcmp(word, "OK") == 0) {
                ok++;
                if (accepted[u][step]++) twice++;
            } else if (strcmp(word, "AMBIGUOUS") == 0) {
                ambiguous++;
                ambiguous_seen[u][step] = 1;
            } else if (strcmp(word, "REFUSED") == 0) {
                refused++;
                /* Taken by an attempt whose answer was lost: it counts as accepted once. */
                if (!ambiguous_seen[u][step]) wrongly_refused++;
                else if (accepted[u][step]++) twice++;
            } else if (strcmp(word, "FAILED") == 0) {
                fprintf(stderr, "a worker failed: %s", line);
                return 1;
            }
        }
        fclose(log);
    }
    mfa_ctx *ctx = NULL;
    for (int tries = 0; !ctx && tries < 50; tries++) {
        ctx = open_store(url);
        if (!ctx) sleep(1);
    }
    if (!ctx) return 1;
    long lost = 0, replayed = 0, replay_accepted = 0;
    for (long u = 0; u < users; u++) {
        char uid[32];
        mfa_user user;
        mfa_resolver *resolver = NULL;
        now_value = base_time;
        user_of(u, uid, &user);
        int32_t status = mfa_sign_in(ctx, &resolver, &user, NULL);
        if (status != MFA_ERR_SECOND_FACTOR_REQUIRED || !resolver || resolver->hint_count != 1) lost++;
        mfa_resolver_free(resolver);
        for (long step = 0; step < MAX_STEPS; step++) {
            if (!accepted[u][step]) continue;
            int32_t answer = 0;
            replayed++;
            if (sign_in(ctx, u, base_time + 30 * step, &answer) != CODE_REFUSED) {
                replay_accepted++;
                fprintf(stderr, "replay of user %ld step %ld: %s\n", u, step, mfa_status_name(answer));
            }
        }
    }
    mfa_close(ctx);
    printf("sign-ins accepted %ld, refused after a lost answer %ld, lost answers %ld, down %ld\n", ok, refused,
           ambiguous, down);
    printf("factors lost %ld, codes accepted twice %ld, refused without cause %ld, replays %ld accepted %ld\n",
           lost, twice, wrongly_refused, replayed, replay_accepted);
    return lost || twice || wrongly_refused || replay_accepted || ok == 0 ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "setup") == 0) return setup(argv[2], atol(argv[3]));
    if (argc == 8 && strcmp(argv[1], "work") == 0)
        return work(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]), argv[6], argv[7]);
    if (argc >= 5 && strcmp(argv[1], "verify") == 0) return verify(argv[2], atol(argv[3]), argc - 4, argv + 4);
    fprintf(stderr, "usage: ha_client setup URL USERS | work URL USERS WORKER WORKERS LOG STOPFILE | "
                    "verify URL USERS LOG...\n");
    return 2;
}
