/*
 * What the C tests share: the CHECK macros and their counters, the report at
 * the end, and small helpers (a temporary directory, SQLite files, the code
 * an authenticator app shows, users, contexts, sign-in, audit records).
 *
 * Header-only, for tests that are each one translation unit, built at
 * -std=c99 -Wall -Wextra -pedantic -Werror: the functions are static inline,
 * so that a test need not use them all. Define _POSIX_C_SOURCE 200809L
 * before any include (mkdtemp, unlink).
 *
 * A helper that takes `line` reports its checks at the caller's line of the
 * test's own file (CHECK_AT, CHECK_STATUS_AT); plain CHECK and CHECK_STATUS
 * report where they stand.
 */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mfa.h"

#define TOKEN_MAX 4200
#define START_TIME 1700000010 /* a TOTP step boundary */

/* ------------------------------------------------------------------ */
/* Checks                                                               */
/* ------------------------------------------------------------------ */

static int failures;
static int checks;

/* The test's own source file, for the checks made at a caller's line. */
#ifdef __BASE_FILE__
#define TEST_FILE __BASE_FILE__
#else
#define TEST_FILE __FILE__
#endif

#define CHECK_IN(cond, text, file, line)                                          \
    do {                                                                          \
        checks++;                                                                 \
        if (!(cond)) {                                                            \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, text);       \
        }                                                                         \
    } while (0)

#define CHECK(cond) CHECK_IN(cond, #cond, __FILE__, __LINE__)
#define CHECK_AT(cond, line) CHECK_IN(cond, #cond, TEST_FILE, line)

#define CHECK_STATUS_IN(expr, want, text, file, line)                             \
    do {                                                                          \
        int got_ = (expr);                                                        \
        checks++;                                                                 \
        if (got_ != (want)) {                                                     \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: %s gave %s, want %s\n", file, line, text,     \
                    mfa_status_name(got_), mfa_status_name(want));                \
        }                                                                         \
    } while (0)

#define CHECK_STATUS(expr, want) CHECK_STATUS_IN(expr, want, #expr, __FILE__, __LINE__)
#define CHECK_STATUS_AT(expr, want, line) CHECK_STATUS_IN(expr, want, #expr, TEST_FILE, line)

/* A status check that also prints the `err` message on a mismatch and frees it. */
#define CHECK_ERR(expr, want, errvar)                                             \
    do {                                                                          \
        int got_ = (expr);                                                        \
        checks++;                                                                 \
        if (got_ != (want)) {                                                     \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: %s gave %s (%s), want %s\n", __FILE__,        \
                    __LINE__, #expr, mfa_status_name(got_),                       \
                    (errvar) ? (errvar) : "no message", mfa_status_name(want));   \
        }                                                                         \
        mfa_free(errvar);                                                         \
        (errvar) = NULL;                                                          \
    } while (0)

/* Prints the totals; the test's exit status. */
static inline int test_report(void) {
    printf("%d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}

/* The same, with the time the test took. */
static inline int test_report_timed(double seconds) {
    printf("%d checks, %d failures (%.1f s)\n", checks, failures, seconds);
    return failures == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

/* Makes a new directory $TMPDIR/<prefix>-XXXXXX (/tmp without TMPDIR), its path in `dir`; 0 on success. */
static inline int test_temp_dir(char *dir, size_t size, const char *prefix) {
    const char *base = getenv("TMPDIR");
    snprintf(dir, size, "%s/%s-XXXXXX", base && *base ? base : "/tmp", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

/* Removes an SQLite file and what may lie beside it. */
static inline void test_remove_sqlite(const char *path) {
    static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
    char extra[600];
    unlink(path);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(extra, sizeof extra, "%s%s", path, suffixes[i]);
        unlink(extra);
    }
}

/* The whole file, with a NUL after its `*len` bytes (free it); NULL if it cannot be read. */
static inline uint8_t *test_read_file(const char *path, size_t *len) {
    FILE *file = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t size = 0, cap = 0, got;
    *len = 0;
    if (!file) return NULL;
    for (;;) {
        if (size + 1 >= cap) {
            uint8_t *bigger;
            cap = cap ? cap * 2 : 65536;
            bigger = realloc(data, cap);
            if (!bigger) break;
            data = bigger;
        }
        got = fread(data + size, 1, cap - size - 1, file);
        if (got == 0) break;
        size += got;
    }
    fclose(file);
    if (data) data[size] = 0;
    *len = size;
    return data;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static inline int contains(const char *haystack, const char *needle) {
    return haystack && needle && strstr(haystack, needle) != NULL;
}

/* Whether `code` occurs in `text` as a run of digits of its own. */
static inline int contains_code(const char *text, const char *code) {
    size_t n = strlen(code);
    const char *at = text;
    if (!text || n == 0) return 0;
    while ((at = strstr(at, code)) != NULL) {
        int before = at > text && at[-1] >= '0' && at[-1] <= '9';
        int after = at[n] >= '0' && at[n] <= '9';
        if (!before && !after) return 1;
        at++;
    }
    return 0;
}

static inline int memfind(const uint8_t *hay, size_t hay_len, const void *needle, size_t needle_len) {
    const uint8_t *n = needle;
    if (needle_len == 0 || hay_len < needle_len) return 0;
    for (size_t i = 0; i + needle_len <= hay_len; i++) {
        if (hay[i] == n[0] && memcmp(hay + i, n, needle_len) == 0) return 1;
    }
    return 0;
}

/* Changes one character in the middle of a token. */
static inline void tamper(char *token) {
    size_t len = strlen(token);
    if (len == 0) return;
    token[len / 2] = token[len / 2] == 'A' ? 'B' : 'A';
}

/* ------------------------------------------------------------------ */
/* Secrets at rest                                                      */
/* ------------------------------------------------------------------ */

/* What a look at one file of a store checks: called with the file's bytes, its path and
 * the pass (0 while the store is open, 1 after it was closed). */
typedef void (*store_look)(const uint8_t *data, size_t len, const char *file, int pass, void *context);

/* Reads an SQLite store (`path`) and its WAL twice: while `ctx` is open (the WAL holds the
 * recent pages), then after closing it. `look` sees each file there is (the database itself
 * must be); a positive control: `in_clear`, which is stored in the clear, is found. */
static inline void scan_store_at(mfa_ctx *ctx, const char *path, const char *in_clear, store_look look,
                                 void *context, int line) {
    char wal[600];
    const char *files[2];
    snprintf(wal, sizeof wal, "%s-wal", path);
    files[0] = path;
    files[1] = wal;
    for (int pass = 0; pass < 2; pass++) {
        size_t total = 0;
        int found = 0;
        if (pass == 1) mfa_close(ctx);
        for (int fi = 0; fi < 2; fi++) {
            size_t len = 0;
            uint8_t *data = test_read_file(files[fi], &len);
            if (!data) {
                CHECK_AT(fi == 1, line); /* the database itself must exist */
                continue;
            }
            total += len;
            found |= memfind(data, len, in_clear, strlen(in_clear));
            look(data, len, files[fi], pass, context);
            free(data);
        }
        CHECK_AT(total > 0, line);
        CHECK_AT(found, line);
    }
}
#define scan_store(ctx, path, in_clear, look, context) scan_store_at(ctx, path, in_clear, look, context, __LINE__)

/* ------------------------------------------------------------------ */
/* Time, keys, codes                                                    */
/* ------------------------------------------------------------------ */

/* The injected clock: the time `context` points to. */
static inline int64_t test_clock(void *context) {
    return *(const int64_t *)context;
}

static const uint8_t K1[MFA_MASTER_KEY_BYTES] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};

static const uint8_t K2[MFA_MASTER_KEY_BYTES] = {
    0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18, 0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90,
    0x91, 0x82, 0x73, 0x64, 0x55, 0x46, 0x37, 0x28, 0x19, 0x0a, 0xfb, 0xec, 0xdd, 0xce, 0xbf, 0xa0};

/* The code an authenticator app shows at time `when` for a base32 key: base32-decode
 * the key, then mfa_totp_generate. The status of the first step that failed. */
static inline int app_code(char out[MFA_CODE_BUFFER_SIZE], const char *base32, int64_t when) {
    uint8_t *key = NULL;
    size_t len = 0;
    int status = mfa_base32_decode(&key, &len, base32);
    out[0] = '\0';
    if (status == MFA_OK) status = mfa_totp_generate(out, MFA_CODE_BUFFER_SIZE, key, len, NULL, when);
    mfa_free(key);
    return status;
}

/* The same, each step checked ("" if one failed). */
static inline void code_at(char out[MFA_CODE_BUFFER_SIZE], const char *base32, int64_t when) {
    uint8_t *key = NULL;
    size_t len = 0;
    out[0] = '\0';
    CHECK_STATUS(mfa_base32_decode(&key, &len, base32), MFA_OK);
    if (key) CHECK_STATUS(mfa_totp_generate(out, MFA_CODE_BUFFER_SIZE, key, len, NULL, when), MFA_OK);
    mfa_free(key);
}

/* ------------------------------------------------------------------ */
/* Users, contexts, sign-in                                             */
/* ------------------------------------------------------------------ */

/* mfa_user_init, then a verified email and the first factor passed at `auth_time`;
 * the status of mfa_user_init. */
static inline int test_user(mfa_user *user, const char *uid, const char *tenant, const char *email,
                            int64_t auth_time) {
    int status = mfa_user_init(user, MFA_USER_VERSION);
    user->uid = uid;
    user->tenant = tenant;
    user->email = email;
    user->email_verified = 1;
    user->auth_time = auth_time;
    return status;
}

/* Options for `store` under master key k1 (K1), with the injected clock reading `*now`. */
static inline void test_options(mfa_options *options, const char *store, int64_t *now) {
    CHECK_STATUS(mfa_options_init(options, MFA_OPTIONS_VERSION), MFA_OK);
    options->store = store;
    options->master_key.id = "k1";
    options->master_key.key = K1;
    options->clock = test_clock;
    options->clock_context = now;
}

static inline mfa_ctx *open_with_at(const mfa_options *options, int line) {
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status = mfa_open(&ctx, options, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "%s:%d: mfa_open: %s: %s\n", TEST_FILE, line, mfa_status_name(status), err ? err : "");
    }
    CHECK_AT(status == MFA_OK && ctx != NULL, line);
    mfa_free(err);
    return ctx;
}
#define open_with(options) open_with_at(options, __LINE__)

static inline void set_config_at(mfa_ctx *ctx, const char *tenant, const char *json, int line) {
    char *err = NULL;
    int status = mfa_config_set_json(ctx, tenant, json, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "%s:%d: mfa_config_set_json(%s): %s: %s\n", TEST_FILE, line, json,
                mfa_status_name(status), err ? err : "");
    }
    CHECK_AT(status == MFA_OK, line);
    mfa_free(err);
}
#define set_config(ctx, tenant, json) set_config_at(ctx, tenant, json, __LINE__)

/* mfa_sign_in (the first factor): its status; the pending credential, if a resolver
 * came, is copied to `cred` ("" if not). `err` as for mfa_sign_in; `got_resolver`, if
 * not NULL, says whether a resolver came. */
static inline int sign_in_for(mfa_ctx *ctx, const mfa_user *user, char cred[TOKEN_MAX], char **err,
                              int *got_resolver) {
    mfa_resolver *resolver = NULL;
    int status = mfa_sign_in(ctx, &resolver, user, err);
    cred[0] = '\0';
    if (got_resolver) *got_resolver = resolver != NULL;
    if (resolver) snprintf(cred, TOKEN_MAX, "%s", resolver->session);
    mfa_resolver_free(resolver);
    return status;
}

/* First factor for a user who has second factors: copies the pending credential; a
 * resolver comes exactly with SECOND_FACTOR_REQUIRED. */
static inline int begin_sign_in_at(mfa_ctx *ctx, const mfa_user *user, char cred[TOKEN_MAX], int line) {
    char *err = NULL;
    int got_resolver = 0;
    int status = sign_in_for(ctx, user, cred, &err, &got_resolver);
    CHECK_AT((status == MFA_ERR_SECOND_FACTOR_REQUIRED) == got_resolver, line);
    mfa_free(err);
    return status;
}
#define begin_sign_in(ctx, user, cred) begin_sign_in_at(ctx, user, cred, __LINE__)
#define SIGN_IN_REQUIRED(ctx, user, cred) \
    CHECK_STATUS(begin_sign_in(ctx, user, cred), MFA_ERR_SECOND_FACTOR_REQUIRED)

/* How many factors `user` has (`none` if they cannot be listed, a failed check);
 * `first_eid`, if not NULL, receives the first one's id ("" if none). */
static inline size_t list_factors_at(mfa_ctx *ctx, const mfa_user *user, char first_eid[64], size_t none,
                                     int line) {
    mfa_factor_list *list = NULL;
    size_t count;
    CHECK_STATUS_AT(mfa_factors_list(ctx, &list, user, NULL), MFA_OK, line);
    count = list ? list->count : none;
    if (first_eid) snprintf(first_eid, 64, "%s", list && list->count ? list->items[0].uid : "");
    mfa_factor_list_free(list);
    return count;
}
#define factor_count(ctx, user) list_factors_at(ctx, user, NULL, (size_t)-1, __LINE__)

/* ------------------------------------------------------------------ */
/* Audit events                                                         */
/* ------------------------------------------------------------------ */

/* An audit event as the callback saw it ("<NULL>" for a NULL string). */
typedef struct audit_record {
    int32_t kind;
    char kind_name[32];
    char tenant[160];
    char uid[160];
    char factor_id[32];
    char enrollment_id[64];
    int64_t time;
    char detail[256];
    char actor[260]; /* up to MFA_ACTOR_MAX_BYTES */
} audit_record;

static inline void copy_field(char *out, size_t size, const char *text) {
    snprintf(out, size, "%s", text ? text : "<NULL>");
}

static inline void audit_record_copy(audit_record *record, const mfa_audit_event *event) {
    record->kind = event->kind;
    copy_field(record->kind_name, sizeof record->kind_name, event->kind_name);
    copy_field(record->tenant, sizeof record->tenant, event->tenant);
    copy_field(record->uid, sizeof record->uid, event->uid);
    copy_field(record->factor_id, sizeof record->factor_id, event->factor_id);
    copy_field(record->enrollment_id, sizeof record->enrollment_id, event->enrollment_id);
    record->time = event->time;
    copy_field(record->detail, sizeof record->detail, event->detail);
    copy_field(record->actor, sizeof record->actor, event->actor);
}

#endif
