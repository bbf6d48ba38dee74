/*
 * What the libFuzzer targets in fuzz/ share: the invariant check that stops
 * the run (libFuzzer saves the input), a reader that takes typed values off
 * the front of an input, NUL-terminated copies, and a context on a private
 * in-memory store with a fixed injected clock.
 *
 * The targets drive libmfa only through its public C ABI (mfa.h), so that they
 * follow the library as it changes. Each is one C file, built with
 * -fsanitize=fuzzer,address,undefined by cmake/MFASanitize.cmake.
 */
#ifndef FUZZ_SUPPORT_H
#define FUZZ_SUPPORT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"

/* A broken invariant: say which, then abort (libFuzzer keeps the input as crash-*). */
__attribute__((format(printf, 3, 4), noreturn))
static inline void fuzz_fail(const char *file, int line, const char *format, ...) {
    va_list args;
    fprintf(stderr, "%s:%d: invariant broken: ", file, line);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    abort();
}
#define FUZZ_CHECK(cond, ...)                                        \
    do {                                                             \
        if (!(cond)) fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);     \
    } while (0)

/* A NUL-terminated copy of `size` bytes (free it). An embedded NUL ends the C string early. */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) abort();
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* Typed values taken off the front of an input; zeros once it runs out. */
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size;
} fuzz_reader;

static inline uint64_t fuzz_take(fuzz_reader *in, size_t bytes) {
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; i++) {
        value <<= 8;
        if (in->size) {
            value |= *in->data++;
            in->size--;
        }
    }
    return value;
}

/* Up to `max` bytes, or fewer if the input ends; `*len` says how many. */
static inline const uint8_t *fuzz_take_bytes(fuzz_reader *in, size_t max, size_t *len) {
    const uint8_t *start = in->data;
    *len = max < in->size ? max : in->size;
    in->data += *len;
    in->size -= *len;
    return start;
}

/* The rest of the input up to (not including) the next `stop` byte, which is skipped; a new string. */
static inline char *fuzz_take_line(fuzz_reader *in, uint8_t stop) {
    size_t len = 0;
    char *line;
    while (len < in->size && in->data[len] != stop) len++;
    line = fuzz_string(in->data, len);
    in->data += len;
    in->size -= len;
    if (in->size) {
        in->data++;
        in->size--;
    }
    return line;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                             */
/* ------------------------------------------------------------------ */

/* The injected clock: it reads fuzz_now, which a target may move. */
#define FUZZ_START_TIME 1700000010 /* a TOTP step boundary */
static int64_t fuzz_now = FUZZ_START_TIME;
static inline int64_t fuzz_clock(void *context) {
    (void)context;
    return fuzz_now;
}

static const uint8_t FUZZ_MASTER_KEY[MFA_MASTER_KEY_BYTES] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};

/* Stops the whole run: the target's set-up failed, not an input. */
static inline void fuzz_setup_check(int status, const char *what, char *err) {
    if (status == MFA_OK) return;
    fprintf(stderr, "fuzz set-up: %s: %s: %s\n", what, mfa_status_name(status), err ? err : "");
    exit(2);
}

/* Options for a private in-memory store under the fuzz master key, on the injected clock. */
static inline mfa_options fuzz_options(void) {
    mfa_options options;
    fuzz_setup_check(mfa_options_init(&options, MFA_OPTIONS_VERSION), "mfa_options_init", NULL);
    options.store = ":memory:";
    options.master_key.id = "fuzz";
    options.master_key.key = FUZZ_MASTER_KEY;
    options.clock = fuzz_clock;
    return options;
}

/* Opens a context with `options` and sets the project configuration `json` (if not NULL). */
static inline mfa_ctx *fuzz_open(const mfa_options *options, const char *json) {
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    fuzz_setup_check(mfa_open(&ctx, options, &err), "mfa_open", err);
    if (json) fuzz_setup_check(mfa_config_set_json(ctx, NULL, json, &err), "mfa_config_set_json", err);
    return ctx;
}

/* A user who may enroll: verified email, password sign-in at the injected clock's now. */
static inline mfa_user fuzz_user(const char *uid, const char *tenant) {
    mfa_user user;
    fuzz_setup_check(mfa_user_init(&user, MFA_USER_VERSION), "mfa_user_init", NULL);
    user.uid = uid;
    user.tenant = tenant;
    user.email = "fuzz@example.com";
    user.email_verified = 1;
    user.auth_time = fuzz_now;
    return user;
}

/* Whether `text` is strict E.164: '+', then 7 to 15 ASCII digits, the first not 0. */
static inline int fuzz_is_e164(const char *text) {
    size_t digits = 0;
    if (text[0] != '+' || text[1] == '0') return 0;
    for (const char *c = text + 1; *c; c++, digits++) {
        if (*c < '0' || *c > '9') return 0;
    }
    return digits >= 7 && digits <= 15;
}

/* Whether `len` bytes are well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or values past U+10FFFF). */
static inline int fuzz_is_utf8(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        size_t n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 9;
        uint8_t lo = 0x80, hi = 0xbf;
        if (n == 9 || len - i <= n) return 0; /* not a lead byte, or cut short */
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
        if (n && (s[i + 1] < lo || s[i + 1] > hi)) return 0;
        for (size_t k = 2; k <= n; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xbf) return 0;
        }
        i += n + 1;
    }
    return 1;
}

#endif
