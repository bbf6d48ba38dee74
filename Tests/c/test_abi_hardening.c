/*
 * The C ABI against hostile values from C (issue 8): each defect an outside
 * attack found, held by a test named test_regression_..., and the struct
 * versioning of ABI 0.2.
 *
 *   test_regression_key_uri_secret_len_size_max
 *                   uri->secret_len of 2^63 or more (with or without a
 *                   secret) is INVALID_ARGUMENT; it used to die with SIGILL
 *   test_regression_open_previous_key_count_2_63
 *                   options->previous_key_count of 2^63 or more is
 *                   INVALID_ARGUMENT; it used to open and ignore the keys
 *   test_regression_phone_random_all_ff
 *                   a random callback that only returns 0xFF bytes makes
 *                   mfa_phone_start_enrollment and mfa_phone_start_sign_in
 *                   return CRYPTO (they used to spin forever), sending nothing
 *   init functions  each takes the struct version: NULL, 0, newer and
 *                   UINT32_MAX are INVALID_ARGUMENT and write nothing; the
 *                   current version gives what the static MFA_*_INIT gives
 *   struct bounds   a struct right before an unmapped page is read and written
 *                   (by init) without touching the page
 *   newer versions  a struct version newer than the library's is refused by
 *                   every function that reads it
 *
 * Calls that used to crash or hang run in a forked child with an alarm, so
 * that a signal or a hang is a failed check, not a dead test.
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mfa.h"
#include "test_support.h"

/* The injected clock. */
static int64_t g_now = START_TIME;

/* Seconds a child may take before it counts as hung. */
#define CHILD_SECONDS 60

/* The 20-byte RFC 4226 secret. */
static const char SECRET20[21] = "12345678901234567890";

/* ------------------------------------------------------------------ */
/* Children                                                             */
/* ------------------------------------------------------------------ */

/* Runs `body(arg)` in a forked child that has CHILD_SECONDS to finish; a signal (SIGALRM:
 * a hang) or failed checks in the child are a failed check here, at the caller's line. */
static void in_child_at(const char *what, void (*body)(const void *), const void *arg, int line) {
    pid_t pid;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        CHECK_AT(0, line);
        return;
    }
    if (pid == 0) {
        failures = 0; /* the child's own */
        alarm(CHILD_SECONDS);
        body(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(failures == 0 ? 0 : 1);
    }
    checks++;
    if (waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        failures++;
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        failures++;
        fprintf(stderr, "%s:%d: %s: no answer in %d s (a hang)\n", TEST_FILE, line, what, CHILD_SECONDS);
    } else if (WIFSIGNALED(status)) {
        failures++;
        fprintf(stderr, "%s:%d: %s: killed by signal %d (%s)\n", TEST_FILE, line, what, WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failures++;
        fprintf(stderr, "%s:%d: %s: checks failed in the child\n", TEST_FILE, line, what);
    }
}
#define in_child(what, body, arg) in_child_at(what, body, arg, __LINE__)

/* ------------------------------------------------------------------ */
/* Issue 8, item 1: size_t fields of 2^63 and more                      */
/* ------------------------------------------------------------------ */

static void key_uri_build_with_secret_len(const void *arg) {
    const size_t len = *(const size_t *)arg;
    const uint8_t *secrets[2];
    secrets[0] = NULL;
    secrets[1] = (const uint8_t *)SECRET20;
    for (int i = 0; i < 2; i++) {
        mfa_key_uri uri = MFA_KEY_URI_INIT;
        char sentinel = 0;
        char *out = &sentinel;
        char *err = NULL;
        uri.account = "alice@example.com";
        uri.issuer = "ACME";
        uri.secret = secrets[i];
        uri.secret_len = len;
        CHECK_STATUS(mfa_key_uri_build(&out, &uri, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(out == NULL);
        CHECK(contains(err, "secret"));
        mfa_free(err);
    }
}

static void test_regression_key_uri_secret_len_size_max(void) {
    static const size_t lengths[] = {SIZE_MAX, SIZE_MAX - 19, (size_t)1 << 63, ((size_t)1 << 63) + 20,
                                     (size_t)INT64_MAX, MFA_KEY_MAX_BYTES + 1, 0};
    char what[80];
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        snprintf(what, sizeof what, "mfa_key_uri_build with secret_len %zu", lengths[i]);
        in_child(what, key_uri_build_with_secret_len, &lengths[i]);
    }
    /* The control: the same URI with the right length. */
    {
        mfa_key_uri uri = MFA_KEY_URI_INIT;
        char *out = NULL;
        uri.account = "alice@example.com";
        uri.secret = (const uint8_t *)SECRET20;
        uri.secret_len = 20;
        CHECK_STATUS(mfa_key_uri_build(&out, &uri, NULL), MFA_OK);
        CHECK(contains(out, "secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"));
        mfa_free(out);
    }
}

/* Opens an in-memory store with `count` previous keys at `keys`: the status. */
static int open_with_previous(const mfa_master_key *keys, size_t count, char **err) {
    mfa_options options = MFA_OPTIONS_INIT;
    mfa_ctx *ctx = NULL;
    int status;
    options.store = ":memory:";
    options.master_key.id = "current";
    options.master_key.key = K1;
    options.clock = test_clock;
    options.clock_context = &g_now;
    options.previous_keys = keys;
    options.previous_key_count = count;
    status = mfa_open(&ctx, &options, err);
    CHECK((status == MFA_OK) == (ctx != NULL));
    mfa_close(ctx);
    return status;
}

static void open_previous_huge(const void *arg) {
    static const size_t counts[] = {(size_t)1 << 63, ((size_t)1 << 63) + 1, SIZE_MAX, (size_t)INT64_MAX + 2,
                                    65, 1000};
    const mfa_master_key *keys = arg;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char *err = NULL;
        int status = open_with_previous(keys, counts[i], &err);
        if (status != MFA_ERR_INVALID_ARGUMENT) {
            fprintf(stderr, "previous_key_count %zu (keys %s): %s, want INVALID_ARGUMENT\n", counts[i],
                    keys ? "given" : "NULL", mfa_status_name(status));
        }
        CHECK(status == MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "previous_key_count"));
        mfa_free(err);
    }
}

static void test_regression_open_previous_key_count_2_63(void) {
    static char ids[64][8];
    static mfa_master_key keys[64];
    for (int i = 0; i < 64; i++) {
        snprintf(ids[i], sizeof ids[i], "old%02d", i);
        keys[i].id = ids[i];
        keys[i].key = K2;
    }
    in_child("mfa_open with previous_key_count >= 2^63, no keys", open_previous_huge, NULL);
    in_child("mfa_open with previous_key_count >= 2^63, 64 keys", open_previous_huge, keys);
    /* The controls: none, one, and the most (64) previous keys open. */
    CHECK_STATUS(open_with_previous(NULL, 0, NULL), MFA_OK);
    CHECK_STATUS(open_with_previous(keys, 1, NULL), MFA_OK);
    CHECK_STATUS(open_with_previous(keys, 64, NULL), MFA_OK);
    CHECK_STATUS(open_with_previous(NULL, 1, NULL), MFA_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ */
/* Issue 8, item 2: a random source that never gives a usable value     */
/* ------------------------------------------------------------------ */

typedef struct random_source {
    int all_ff;      /* non-zero: every byte is 0xFF */
    uint64_t state;  /* xorshift64 otherwise */
    unsigned long calls;
} random_source;

static int host_random(void *context, uint8_t *out, size_t len) {
    random_source *source = context;
    source->calls++;
    if (source->all_ff) {
        memset(out, 0xFF, len);
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        source->state ^= source->state << 13;
        source->state ^= source->state >> 7;
        source->state ^= source->state << 17;
        out[i] = (uint8_t)(source->state >> 24);
    }
    return 0;
}

typedef struct sms_capture {
    unsigned long sent;
    char code[MFA_CODE_BUFFER_SIZE];
} sms_capture;

static int capture_sms(void *context, const char *to, const char *message) {
    sms_capture *capture = context;
    (void)to;
    capture->sent++;
    snprintf(capture->code, sizeof capture->code, "%.6s", message);
    return 0;
}

static char *new_session(mfa_ctx *ctx, const mfa_user *user) {
    char *session = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &session, user, NULL), MFA_OK);
    return session;
}

static void phone_with_random_all_ff(const void *arg) {
    random_source source = {0, 0x9E3779B97F4A7C15u, 0};
    sms_capture sms;
    mfa_options options = MFA_OPTIONS_INIT;
    mfa_user user;
    mfa_ctx *ctx;
    mfa_factor_info *factor = NULL;
    mfa_resolver *resolver = NULL;
    char *session, *vid = NULL, *err = NULL;
    char sentinel = 0;
    char *out = &sentinel;
    char eid[64] = "", cred[TOKEN_MAX] = "";
    unsigned long calls;
    (void)arg;
    memset(&sms, 0, sizeof sms);
    options.store = ":memory:";
    options.master_key.id = "k1";
    options.master_key.key = K1;
    options.clock = test_clock;
    options.clock_context = &g_now;
    options.random = host_random;
    options.random_context = &source;
    options.sms_sender = capture_sms;
    options.sms_sender_context = &sms;
    ctx = open_with(&options);
    if (!ctx) return;
    set_config(ctx, NULL,
               "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},\"phone\":{\"appVerification\":\"DISABLED\"}}");
    CHECK_STATUS(test_user(&user, "alice", NULL, "alice@example.com", g_now), MFA_OK);

    /* Enrollment: the code cannot be drawn, so nothing is sent. */
    session = new_session(ctx, &user);
    source.all_ff = 1;
    calls = source.calls;
    CHECK_ERR(mfa_phone_start_enrollment(ctx, &out, session, "+15105551234", NULL, &err), MFA_ERR_CRYPTO, err);
    CHECK(out == NULL);
    CHECK(source.calls > calls);
    CHECK(sms.sent == 0);
    mfa_free(session);

    /* With a working source the same enrollment goes through. */
    source.all_ff = 0;
    session = new_session(ctx, &user);
    CHECK_STATUS(mfa_phone_start_enrollment(ctx, &vid, session, "+15105551234", NULL, NULL), MFA_OK);
    CHECK(sms.sent == 1);
    CHECK_STATUS(mfa_phone_enroll(ctx, &factor, &user, vid, sms.code, "Phone", NULL), MFA_OK);
    if (factor) snprintf(eid, sizeof eid, "%s", factor->uid);
    mfa_factor_info_free(factor);
    mfa_free(session);
    mfa_free(vid);
    vid = NULL;

    /* Sign-in: the same for the code sent to the enrolled number. */
    g_now += 60;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    if (resolver) snprintf(cred, sizeof cred, "%s", resolver->session);
    mfa_resolver_free(resolver);
    source.all_ff = 1;
    out = &sentinel;
    CHECK_ERR(mfa_phone_start_sign_in(ctx, &out, cred, NULL, eid, NULL, &err), MFA_ERR_CRYPTO, err);
    CHECK(out == NULL);
    CHECK(sms.sent == 1);
    source.all_ff = 0;
    CHECK_STATUS(mfa_phone_start_sign_in(ctx, &vid, cred, NULL, eid, NULL, NULL), MFA_OK);
    CHECK(sms.sent == 2);
    mfa_free(vid);
    mfa_close(ctx);
}

static void test_regression_phone_random_all_ff(void) {
    in_child("SMS codes from a random callback that returns only 0xFF", phone_with_random_all_ff, NULL);
}

/* ------------------------------------------------------------------ */
/* Versioned structs                                                    */
/* ------------------------------------------------------------------ */

/* Whether `size` bytes at `p` are all `byte`. */
static int all_bytes(const void *p, size_t size, unsigned char byte) {
    const unsigned char *bytes = p;
    for (size_t i = 0; i < size; i++) {
        if (bytes[i] != byte) return 0;
    }
    return 1;
}

/* Versions no library of this header knows: 0, and any newer than `current`. */
#define UNKNOWN_VERSIONS(current) {0, (current) + 1, (current) + 2, 0x80000000u, UINT32_MAX}

static void test_init_functions_take_a_version(void) {
    static const uint32_t options_bad[] = UNKNOWN_VERSIONS(MFA_OPTIONS_VERSION);
    static const uint32_t user_bad[] = UNKNOWN_VERSIONS(MFA_USER_VERSION);
    static const uint32_t params_bad[] = UNKNOWN_VERSIONS(MFA_TOTP_PARAMS_VERSION);
    static const uint32_t uri_bad[] = UNKNOWN_VERSIONS(MFA_KEY_URI_VERSION);
    mfa_options options;
    mfa_user user;
    mfa_totp_params params;
    mfa_key_uri uri;
    CHECK_STATUS(mfa_options_init(NULL, MFA_OPTIONS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_user_init(NULL, MFA_USER_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_params_init(NULL, MFA_TOTP_PARAMS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_key_uri_init(NULL, MFA_KEY_URI_VERSION), MFA_ERR_INVALID_ARGUMENT);
    /* Versions the library does not know: refused, and the struct is left alone. */
    for (size_t i = 0; i < sizeof options_bad / sizeof options_bad[0]; i++) {
        memset(&options, 0xAB, sizeof options);
        memset(&user, 0xAB, sizeof user);
        memset(&params, 0xAB, sizeof params);
        memset(&uri, 0xAB, sizeof uri);
        CHECK_STATUS(mfa_options_init(&options, options_bad[i]), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_user_init(&user, user_bad[i]), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_totp_params_init(&params, params_bad[i]), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_key_uri_init(&uri, uri_bad[i]), MFA_ERR_INVALID_ARGUMENT);
        CHECK(all_bytes(&options, sizeof options, 0xAB) && all_bytes(&user, sizeof user, 0xAB));
        CHECK(all_bytes(&params, sizeof params, 0xAB) && all_bytes(&uri, sizeof uri, 0xAB));
    }
}

static void test_static_initializers_match_init_functions(void) {
    static const mfa_options static_options = MFA_OPTIONS_INIT;
    static const mfa_user static_user = MFA_USER_INIT;
    static const mfa_totp_params static_params = MFA_TOTP_PARAMS_INIT;
    static const mfa_key_uri static_uri = MFA_KEY_URI_INIT;
    mfa_options o;
    mfa_user u;
    mfa_totp_params p;
    mfa_key_uri k;
    memset(&o, 0xAB, sizeof o);
    memset(&u, 0xAB, sizeof u);
    memset(&p, 0xAB, sizeof p);
    memset(&k, 0xAB, sizeof k);
    CHECK_STATUS(mfa_options_init(&o, MFA_OPTIONS_VERSION), MFA_OK);
    CHECK_STATUS(mfa_user_init(&u, MFA_USER_VERSION), MFA_OK);
    CHECK_STATUS(mfa_totp_params_init(&p, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    CHECK_STATUS(mfa_key_uri_init(&k, MFA_KEY_URI_VERSION), MFA_OK);

    CHECK(o.version == static_options.version && o.version == MFA_OPTIONS_VERSION);
    CHECK(o.store == NULL && o.master_key.id == NULL && o.master_key.key == NULL && o.previous_keys == NULL);
    CHECK(o.previous_key_count == 0 && o.clock == NULL && o.clock_context == NULL && o.random == NULL);
    CHECK(o.random_context == NULL && o.audit == NULL && o.audit_context == NULL && o.sms_sender == NULL);
    CHECK(o.sms_sender_context == NULL && o.sms_outbox == NULL && o.app_verifier == NULL);
    CHECK(o.app_verifier_context == NULL);
    CHECK(static_options.store == NULL && static_options.previous_key_count == 0 && static_options.clock == NULL &&
          static_options.app_verifier_context == NULL && static_options.master_key.key == NULL);

    CHECK(u.version == static_user.version && u.version == MFA_USER_VERSION);
    CHECK(u.uid == NULL && u.tenant == NULL && u.email == NULL && u.email_verified == 0 && u.auth_time == 0);
    CHECK(static_user.uid == NULL && static_user.tenant == NULL && static_user.email == NULL);
    CHECK(static_user.email_verified == 0 && static_user.auth_time == 0);
    CHECK(u.provider && static_user.provider && strcmp(u.provider, static_user.provider) == 0 &&
          strcmp(u.provider, "password") == 0);

    CHECK(p.version == static_params.version && p.algorithm == static_params.algorithm);
    CHECK(p.digits == static_params.digits && p.period == static_params.period && p.t0 == static_params.t0);
    CHECK(p.algorithm == MFA_ALG_SHA1 && p.digits == 6 && p.period == 30 && p.t0 == 0);

    CHECK(k.version == static_uri.version && k.type == static_uri.type && k.issuer == static_uri.issuer);
    CHECK(k.account == static_uri.account && k.secret == static_uri.secret && k.secret_len == static_uri.secret_len);
    CHECK(k.algorithm == static_uri.algorithm && k.digits == static_uri.digits && k.period == static_uri.period);
    CHECK(k.counter == static_uri.counter);
    CHECK(k.type == MFA_OTP_TOTP && k.algorithm == MFA_ALG_SHA1 && k.digits == 6 && k.period == 30);

    /* The static initializers work as they are. */
    {
        mfa_totp_params params = MFA_TOTP_PARAMS_INIT;
        char code[MFA_CODE_BUFFER_SIZE];
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, (const uint8_t *)SECRET20, 20, &params, 59), MFA_OK);
        CHECK(strcmp(code, "287082") == 0);
    }
}

/* A page of memory followed by an unmapped one: `size` bytes that end right at the gap. */
typedef struct guarded {
    unsigned char *map;
    size_t length;
} guarded;

static void *guarded_alloc(guarded *g, size_t size) {
    long page = sysconf(_SC_PAGESIZE);
    g->length = 2 * (size_t)page;
    g->map = mmap(NULL, g->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        g->map = NULL;
        return NULL;
    }
    if (mprotect(g->map + page, (size_t)page, PROT_NONE) != 0) return NULL;
    return g->map + page - size;
}

static void guarded_free(guarded *g) {
    if (g->map) munmap(g->map, g->length);
}

/* Every versioned struct is used at the very end of a mapping: nothing past it is read or written. */
static void structs_at_a_page_end(const void *arg) {
    guarded g1, g2, g3, g4;
    mfa_options *options = guarded_alloc(&g1, sizeof *options);
    mfa_user *user = guarded_alloc(&g2, sizeof *user);
    mfa_totp_params *params = guarded_alloc(&g3, sizeof *params);
    mfa_key_uri *uri = guarded_alloc(&g4, sizeof *uri);
    mfa_ctx *ctx = NULL;
    mfa_resolver *resolver = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    char *out = NULL;
    (void)arg;
    CHECK(options && user && params && uri);
    if (!options || !user || !params || !uri) return;
    CHECK_STATUS(mfa_options_init(options, MFA_OPTIONS_VERSION), MFA_OK);
    CHECK_STATUS(mfa_user_init(user, MFA_USER_VERSION), MFA_OK);
    CHECK_STATUS(mfa_totp_params_init(params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    CHECK_STATUS(mfa_key_uri_init(uri, MFA_KEY_URI_VERSION), MFA_OK);
    options->store = ":memory:";
    options->master_key.id = "k1";
    options->master_key.key = K1;
    options->clock = test_clock;
    options->clock_context = &g_now;
    CHECK_STATUS(mfa_open(&ctx, options, NULL), MFA_OK);
    user->uid = "alice";
    user->auth_time = g_now;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, user, NULL), MFA_OK);
    mfa_resolver_free(resolver);
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, (const uint8_t *)SECRET20, 20, params, 59), MFA_OK);
    uri->account = "alice";
    uri->secret = (const uint8_t *)SECRET20;
    uri->secret_len = 20;
    CHECK_STATUS(mfa_key_uri_build(&out, uri, NULL), MFA_OK);
    mfa_free(out);
    mfa_close(ctx);
    guarded_free(&g1);
    guarded_free(&g2);
    guarded_free(&g3);
    guarded_free(&g4);
}

static void test_structs_are_used_within_their_size(void) {
    in_child("versioned structs at the end of a mapping", structs_at_a_page_end, NULL);
}

static void test_newer_struct_versions_are_refused(void) {
    static const uint32_t options_bad[] = UNKNOWN_VERSIONS(MFA_OPTIONS_VERSION);
    static const uint32_t user_bad[] = UNKNOWN_VERSIONS(MFA_USER_VERSION);
    static const uint32_t params_bad[] = UNKNOWN_VERSIONS(MFA_TOTP_PARAMS_VERSION);
    static const uint32_t uri_bad[] = UNKNOWN_VERSIONS(MFA_KEY_URI_VERSION);
    mfa_options options;
    mfa_user user;
    mfa_totp_params params = MFA_TOTP_PARAMS_INIT;
    mfa_key_uri uri = MFA_KEY_URI_INIT;
    mfa_ctx *ctx = NULL;
    mfa_resolver *resolver = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    char *out = NULL, *err = NULL;
    test_options(&options, ":memory:", &g_now);
    ctx = open_with(&options);
    CHECK_STATUS(test_user(&user, "alice", NULL, "alice@example.com", g_now), MFA_OK);
    uri.account = "alice";
    uri.secret = (const uint8_t *)SECRET20;
    uri.secret_len = 20;
    for (size_t i = 0; i < sizeof options_bad / sizeof options_bad[0]; i++) {
        mfa_options o = options;
        mfa_user u = user;
        mfa_totp_params p = params;
        mfa_key_uri k = uri;
        mfa_ctx *other = NULL;
        o.version = options_bad[i];
        u.version = user_bad[i];
        p.version = params_bad[i];
        k.version = uri_bad[i];
        CHECK_ERR(mfa_open(&other, &o, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(other == NULL);
        CHECK_ERR(mfa_sign_in(ctx, &resolver, &u, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(resolver == NULL);
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, (const uint8_t *)SECRET20, 20, &p, 59),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_totp_verify(NULL, (const uint8_t *)SECRET20, 20, &p, 59, 1, "287082"),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK_ERR(mfa_key_uri_build(&out, &k, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(out == NULL);
    }
    /* The current versions work. */
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_totp_generate(code, sizeof code, (const uint8_t *)SECRET20, 20, &params, 59), MFA_OK);
    CHECK_STATUS(mfa_key_uri_build(&out, &uri, NULL), MFA_OK);
    mfa_free(out);
    mfa_close(ctx);
}

int main(void) {
    test_regression_key_uri_secret_len_size_max();
    test_regression_open_previous_key_count_2_63();
    test_regression_phone_random_all_ff();
    test_init_functions_take_a_version();
    test_static_initializers_match_init_functions();
    test_structs_are_used_within_their_size();
    test_newer_struct_versions_are_refused();
    return test_report();
}
