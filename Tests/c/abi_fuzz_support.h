/*
 * The hand-written half of the all-exports test (abi_all_exports): the values
 * every kind of argument is tried with, the store and tokens the calls work
 * on, and the forked children that make the calls. The other half, the table
 * of every function of include/mfa.h and of every field of the structs they
 * read, is generated from the headers at build time by gen_abi_fuzz.py, which
 * includes this file first.
 *
 * Each call runs in a child process of its own with an alarm: a signal
 * (SIGILL from a Swift trap, SIGSEGV, SIGABRT) or a hang (SIGALRM) fails the
 * test. A function that returns a status must return a known one; where the
 * argument is a string that is not UTF-8 or longer than MFA_STRING_MAX_BYTES,
 * a struct version libmfa does not know, a size_t struct field of 2^32 or
 * more (no caller has that many bytes or items), or a NULL context, the
 * status must be MFA_ERR_INVALID_ARGUMENT. Structs passed in lie right before an unmapped
 * page, so reading past a struct (or writing past one an init function fills)
 * is a SIGSEGV too.
 *
 * Functions that take a context get a real one: a copy, per child, of an
 * SQLite store prepared once (TOTP and phone factors enrolled, live tokens),
 * opened with the baseline options; each such function is also called with
 * contexts whose callbacks are hostile (a clock at INT64_MIN or INT64_MAX, a
 * random source of only 0xFF bytes or that fails, a failing SMS sender, a
 * verifier that rejects everything, none at all).
 *
 * usage: abi_all_exports [FUNCTION...]   (only the functions named)
 * environment: MFA_ABI_FUZZ_SECONDS (per call, default 20),
 *              MFA_ABI_FUZZ_JOBS (children at once, default 2),
 *              MFA_ABI_FUZZ_VERBOSE (set: print every call and its status), TMPDIR.
 */
#ifndef ABI_FUZZ_SUPPORT_H
#define ABI_FUZZ_SUPPORT_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"

/* ------------------------------------------------------------------ */
/* Values and kinds                                                     */
/* ------------------------------------------------------------------ */

/** Any function pointer, stored untyped and cast back to its typedef on use. */
typedef void (*fuzz_fn)(void);

/** One argument or field value. */
typedef union fuzz_value {
    uint32_t u32;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
    size_t size;
    bool b;
    const char *str;
    const uint8_t *bytes;
    void *ptr;
    fuzz_fn fn;
} fuzz_value;

/** What an argument or a field is, and so which values it is tried with. */
typedef enum fuzz_kind {
    K_CTX,        /* mfa_ctx *: the real context, NULL */
    K_OUT,        /* T ** or a scalar T *: writable storage, NULL */
    K_OUTBUF,     /* char * / uint8_t * / void * to write into: a 128 KiB buffer, NULL */
    K_STR,        /* const char *: the string values */
    K_BYTES,      /* const uint8_t *: 128 KiB of bytes, NULL */
    K_STRUCT_IN,  /* const S *: a filled struct, NULL; its fields one at a time */
    K_STRUCT_OUT, /* S * to fill: storage, NULL */
    K_ARRAY,      /* const S * with a count field: 1024 filled elements, NULL */
    K_PTR,        /* void * (callback contexts): NULL, a pointer */
    K_FN,         /* a callback typedef: its hostile values */
    K_NULL,       /* a pointer of a type with no values of its own: NULL only */
    K_VERSION,    /* uint32_t version: 1 to current valid, anything else refused */
    K_U32,
    K_I32,
    K_I64,
    K_U64,
    K_SIZE,
    K_BOOL,
    K_KINDS
} fuzz_kind;

static const char *const fuzz_kind_names[K_KINDS] = {
    "ctx", "out", "outbuf", "string", "bytes", "struct", "struct out", "array", "pointer", "callback",
    "pointer", "version", "uint32", "int32", "int64", "uint64", "size", "bool"};

/** A callback typedef's values: the hostile functions and their names (NULL is always tried). */
typedef struct fuzz_fns {
    size_t count;
    const fuzz_fn *fns;
    const char *const *names;
} fuzz_fns;

/** One field of a struct, flattened ("master_key.id", "previous_keys[0].id"). */
typedef struct fuzz_field {
    const char *path;
    fuzz_kind kind;
    uint32_t version;         /* K_VERSION: the header's current version */
    const fuzz_fns *fns;      /* K_FN */
} fuzz_field;

struct fuzz_env;

/** A struct a function reads, with its baseline and its field setter (both generated). */
typedef struct fuzz_struct {
    const char *name;
    size_t size;
    size_t field_count;
    const fuzz_field *fields;
    void (*fill)(void *s, struct fuzz_env *env);
    void (*set)(void *s, size_t field, const fuzz_value *value);
} fuzz_struct;

/** One parameter. */
typedef struct fuzz_param {
    const char *name;
    fuzz_kind kind;
    const fuzz_struct *type; /* K_STRUCT_IN */
    uint32_t version;        /* K_VERSION */
    const fuzz_fns *fns;     /* K_FN */
    int unread_string;       /* K_STR: the function may ignore it (no INVALID_ARGUMENT rule) */
    const char *unread_fields; /* K_STRUCT_IN: " path path " of string fields it may ignore, or NULL */
} fuzz_param;

#define FUZZ_MAX_PARAMS 16

/** A call's arguments. */
typedef struct fuzz_call {
    fuzz_value v[FUZZ_MAX_PARAMS];
} fuzz_call;

/* What a call thunk returns besides a status. */
#define FUZZ_RESULT_NULL 1000 /* a function that never returns NULL did */

enum {
    F_STATUS = 1, /* returns an int32_t status (its docs name MFA_OK) */
    F_FREE = 2,   /* void, one pointer: called with NULL only */
    F_CTX = 4     /* takes a context */
};

/** One exported function. */
typedef struct fuzz_func {
    const char *name;
    int flags;
    size_t param_count;
    fuzz_param params[FUZZ_MAX_PARAMS];
    void (*baseline)(fuzz_call *call, struct fuzz_env *env);
    int32_t (*call)(const fuzz_call *call);
} fuzz_func;

/* ------------------------------------------------------------------ */
/* The environment: store, tokens, buffers                              */
/* ------------------------------------------------------------------ */

#define FUZZ_BUFFER_BYTES (128 * 1024)
#define FUZZ_OUT_BYTES (1024 * 1024) /* zeroed storage for what libmfa writes (untouched pages cost nothing) */
#define FUZZ_NOW 1700000010 /* a TOTP step boundary */
#define FUZZ_TOKEN 4200

typedef struct fuzz_env {
    char dir[256];
    char template_store[300];
    char store[300];  /* this child's copy */
    int64_t now;      /* what the baseline clock says */
    mfa_ctx *ctx;     /* this child's context, if the function takes one */
    uint8_t *bytes;   /* FUZZ_BUFFER_BYTES; starts with the 32-byte master key, whose first 20 are the TOTP secret */
    uint8_t *outbuf;  /* FUZZ_BUFFER_BYTES to write into */
    uint8_t *zeros;   /* FUZZ_OUT_BYTES of zeros, for arrays of types with no values of their own */
    char session[FUZZ_TOKEN];
    char session_info[FUZZ_TOKEN];
    char secret_base32[128];
    char cred[FUZZ_TOKEN];
    char vid_enroll[FUZZ_TOKEN];
    char vid_sign_in[FUZZ_TOKEN];
    char code_enroll[16];
    char code_sign_in[16];
    char otp[16];        /* the imported TOTP factor's code now */
    char otp_enroll[16]; /* the pending secret's code now */
    char eid_totp[64];
    char eid_phone[64];
    char uri[512];
    char sms_code[16];   /* the last code the capturing sender saw */
    uint8_t *import_text; /* FUZZ_BUFFER_BYTES: otpauth lines, then zeros */
    size_t import_text_len;
    uint8_t *ga_text;     /* FUZZ_BUFFER_BYTES: a google-authenticator file, then zeros */
    size_t ga_text_len;
} fuzz_env;

static fuzz_env g_env;

/* The 20-byte RFC 4226 secret, then 12 more bytes: the master key. */
static const char FUZZ_KEY[33] = "12345678901234567890abcdefghijkl";
static const uint8_t FUZZ_OLD_KEY[MFA_MASTER_KEY_BYTES] = {
    0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18, 0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90,
    0x91, 0x82, 0x73, 0x64, 0x55, 0x46, 0x37, 0x28, 0x19, 0x0a, 0xfb, 0xec, 0xdd, 0xce, 0xbf, 0xa0};

static void fuzz_die(const char *what) {
    fprintf(stderr, "abi_all_exports: %s\n", what);
    exit(2);
}

/* `size` zeroed bytes that end right before an unmapped page (never freed: children are short). */
static void *fuzz_guarded(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size + page - 1) / page + 1;
    unsigned char *map = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) fuzz_die("mmap failed");
    if (mprotect(map + (pages - 1) * page, page, PROT_NONE) != 0) fuzz_die("mprotect failed");
    return map + (pages - 1) * page - size;
}

/* ------------------------------------------------------------------ */
/* Callbacks: the baseline ones and the hostile ones                    */
/* ------------------------------------------------------------------ */

static int64_t fuzz_clock(void *context) {
    (void)context;
    return g_env.now;
}
static int64_t fuzz_clock_min(void *context) {
    (void)context;
    return INT64_MIN;
}
static int64_t fuzz_clock_max(void *context) {
    (void)context;
    return INT64_MAX;
}
static int64_t fuzz_clock_minus_one(void *context) {
    (void)context;
    return -1;
}
static int64_t fuzz_clock_zero(void *context) {
    (void)context;
    return 0;
}

static int fuzz_random_ff(void *context, uint8_t *out, size_t len) {
    (void)context;
    memset(out, 0xFF, len);
    return 0;
}
static int fuzz_random_zero(void *context, uint8_t *out, size_t len) {
    (void)context;
    memset(out, 0, len);
    return 0;
}
static int fuzz_random_fail(void *context, uint8_t *out, size_t len) {
    (void)context;
    (void)out;
    (void)len;
    return -1;
}

static void fuzz_audit(void *context, const mfa_audit_event *event) {
    (void)context;
    if (!event || !event->kind_name || !event->tenant || !event->uid || !event->factor_id ||
        !event->enrollment_id || !event->detail || !event->actor) {
        fprintf(stderr, "abi_all_exports: an audit event with a NULL string\n");
        abort();
    }
}

/* An import's line report: the strings it must have, an outcome libmfa defines. */
static void fuzz_import_report(void *context, const mfa_import_line *line) {
    (void)context;
    if (!line || line->line < 1 || !line->outcome_name || !line->reason || line->outcome < MFA_IMPORT_IMPORTED ||
        line->outcome > MFA_IMPORT_NOTE) {
        fprintf(stderr, "abi_all_exports: a malformed import line report\n");
        abort();
    }
}

/* Progress callbacks: one that lets the call go on, one that stops it at once. */
static int fuzz_progress_go_on(void *context, int64_t done, int64_t total) {
    (void)context;
    if (done < 0 || total < done) {
        fprintf(stderr, "abi_all_exports: progress %lld of %lld\n", (long long)done, (long long)total);
        abort();
    }
    return 0;
}
static int fuzz_progress_stop(void *context, int64_t done, int64_t total) {
    (void)context;
    (void)done;
    (void)total;
    return 1;
}

/* Keeps the code of each message (the fixtures read it back). */
static int fuzz_sms_capture(void *context, const char *to, const char *message) {
    (void)context;
    (void)to;
    snprintf(g_env.sms_code, sizeof g_env.sms_code, "%.6s", message ? message : "");
    return 0;
}
static int fuzz_sms_fail(void *context, const char *to, const char *message) {
    (void)context;
    (void)to;
    (void)message;
    return 1;
}

static int fuzz_verifier_accept(void *context, const char *credential, int32_t action) {
    (void)context;
    (void)credential;
    (void)action;
    return 0;
}
static int fuzz_verifier_reject(void *context, const char *credential, int32_t action) {
    (void)context;
    (void)credential;
    (void)action;
    return 1;
}

#define FUZZ_FNS(typedef_name, ...)                                                        \
    static const fuzz_fn fuzz_fn_list_##typedef_name[] = {__VA_ARGS__};                    \
    static const fuzz_fns fuzz_fns_##typedef_name = {                                       \
        sizeof fuzz_fn_list_##typedef_name / sizeof fuzz_fn_list_##typedef_name[0],         \
        fuzz_fn_list_##typedef_name, fuzz_fn_names_##typedef_name}

static const char *const fuzz_fn_names_mfa_clock_fn[] = {"a clock at INT64_MIN", "a clock at INT64_MAX",
                                                         "a clock at -1", "a clock at 0"};
FUZZ_FNS(mfa_clock_fn, (fuzz_fn)fuzz_clock_min, (fuzz_fn)fuzz_clock_max, (fuzz_fn)fuzz_clock_minus_one,
         (fuzz_fn)fuzz_clock_zero);
static const char *const fuzz_fn_names_mfa_random_fn[] = {"random bytes all 0xFF", "random bytes all 0",
                                                          "a failing random source"};
FUZZ_FNS(mfa_random_fn, (fuzz_fn)fuzz_random_ff, (fuzz_fn)fuzz_random_zero, (fuzz_fn)fuzz_random_fail);
static const char *const fuzz_fn_names_mfa_audit_fn[] = {"an audit callback"};
FUZZ_FNS(mfa_audit_fn, (fuzz_fn)fuzz_audit);
static const char *const fuzz_fn_names_mfa_sms_sender_fn[] = {"a failing SMS sender", "a working SMS sender"};
FUZZ_FNS(mfa_sms_sender_fn, (fuzz_fn)fuzz_sms_fail, (fuzz_fn)fuzz_sms_capture);
static const char *const fuzz_fn_names_mfa_app_verifier_fn[] = {"a verifier that rejects everything",
                                                                "a verifier that accepts everything"};
FUZZ_FNS(mfa_app_verifier_fn, (fuzz_fn)fuzz_verifier_reject, (fuzz_fn)fuzz_verifier_accept);
static const char *const fuzz_fn_names_mfa_progress_fn[] = {"a progress callback that goes on",
                                                            "a progress callback that stops at once"};
FUZZ_FNS(mfa_progress_fn, (fuzz_fn)fuzz_progress_go_on, (fuzz_fn)fuzz_progress_stop);
static const char *const fuzz_fn_names_mfa_import_report_fn[] = {"an import report callback"};
FUZZ_FNS(mfa_import_report_fn, (fuzz_fn)fuzz_import_report);
/* A callback typedef with no hostile values of its own is tried with NULL only. */
static const fuzz_fns fuzz_fns_none = {0, NULL, NULL};

/* ------------------------------------------------------------------ */
/* The values of each kind                                              */
/* ------------------------------------------------------------------ */

static const size_t fuzz_sizes[] = {0, 1, 2, 64, 1025, 65537, INT32_MAX, (size_t)INT32_MAX + 1, UINT32_MAX,
                                    (size_t)UINT32_MAX + 1, (size_t)1 << 62, (size_t)1 << 63,
                                    ((size_t)1 << 63) + 1, SIZE_MAX - 1, SIZE_MAX};
static const int32_t fuzz_i32s[] = {0, 1, -1, 2, 3, 4, 5, 6, 8, 9, 11, 100, INT32_MIN, INT32_MIN + 1,
                                    INT32_MAX, INT32_MAX - 1};
static const uint32_t fuzz_u32s[] = {0, 1, 2, 0x7FFFFFFFu, 0x80000000u, UINT32_MAX};
static const int64_t fuzz_i64s[] = {0, 1, -1, 30, -30, INT32_MIN, (int64_t)INT32_MAX + 1, -FUZZ_NOW,
                                    INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1};
static const uint64_t fuzz_u64s[] = {0, 1, UINT32_MAX, (uint64_t)1 << 63, ((uint64_t)1 << 63) - 1,
                                     UINT64_MAX - 1, UINT64_MAX};

typedef struct fuzz_string {
    const char *name;
    const char *text; /* NULL: built at start (the long ones) */
    int invalid;      /* not UTF-8, or longer than MFA_STRING_MAX_BYTES: INVALID_ARGUMENT */
} fuzz_string;

static fuzz_string fuzz_strings[] = {
    {"NULL", NULL, 0},
    {"\"\"", "", 0},
    {"\"a\"", "a", 0},
    {"\"%s%n%x\"", "%s%n%x", 0},
    {"control characters", "\x01\x1b[2J\x7f", 0},
    {"MFA_STRING_MAX_BYTES bytes", NULL, 0},
    {"MFA_STRING_MAX_BYTES bytes of 2-byte UTF-8", NULL, 0},
    {"MFA_STRING_MAX_BYTES + 1 bytes", NULL, 1},
    {"MFA_STRING_MAX_BYTES + 1 bytes, unterminated before an unmapped page", NULL, 1},
    {"\\xff", "\xff", 1},
    {"overlong NUL \\xc0\\x80", "\xc0\x80", 1},
    {"surrogate \\xed\\xa0\\x80", "\xed\xa0\x80", 1},
    {"above U+10FFFF", "\xf4\x90\x80\x80", 1},
    {"stray continuation a\\x80b", "a\x80" "b", 1},
    {"truncated \\xe2\\x82", "\xe2\x82", 1},
};
#define FUZZ_STRING_COUNT (sizeof fuzz_strings / sizeof fuzz_strings[0])

static void fuzz_build_strings(void) {
    char *max = malloc(MFA_STRING_MAX_BYTES + 1);
    char *utf8 = malloc(MFA_STRING_MAX_BYTES + 1);
    char *over = malloc(MFA_STRING_MAX_BYTES + 2);
    char *unterminated = fuzz_guarded(MFA_STRING_MAX_BYTES + 1);
    if (!max || !utf8 || !over) fuzz_die("out of memory");
    memset(max, 'a', MFA_STRING_MAX_BYTES);
    max[MFA_STRING_MAX_BYTES] = 0;
    for (size_t i = 0; i + 1 < (size_t)MFA_STRING_MAX_BYTES + 1; i += 2) {
        utf8[i] = (char)0xc3;
        utf8[i + 1] = (char)0xa9; /* e-acute */
    }
    utf8[MFA_STRING_MAX_BYTES] = 0;
    memset(over, 'a', MFA_STRING_MAX_BYTES + 1);
    over[MFA_STRING_MAX_BYTES + 1] = 0;
    memset(unterminated, 'a', MFA_STRING_MAX_BYTES + 1);
    for (size_t i = 0; i < FUZZ_STRING_COUNT; i++) {
        if (strcmp(fuzz_strings[i].name, "MFA_STRING_MAX_BYTES bytes") == 0) fuzz_strings[i].text = max;
        if (strcmp(fuzz_strings[i].name, "MFA_STRING_MAX_BYTES bytes of 2-byte UTF-8") == 0) {
            fuzz_strings[i].text = utf8;
        }
        if (strcmp(fuzz_strings[i].name, "MFA_STRING_MAX_BYTES + 1 bytes") == 0) fuzz_strings[i].text = over;
        if (fuzz_strings[i].invalid && !fuzz_strings[i].text) fuzz_strings[i].text = unterminated;
    }
}

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* The `index`-th value of a parameter or field: 0 when there is none; `name` describes it,
 * `*invalid` says whether libmfa must answer INVALID_ARGUMENT. */
static int fuzz_value_at(fuzz_kind kind, uint32_t version, const fuzz_fns *fns, size_t index, fuzz_value *out,
                         char *name, size_t name_size, int *invalid) {
    *invalid = 0;
    memset(out, 0, sizeof *out);
    switch (kind) {
    case K_CTX:
        if (index > 0) return 0;
        snprintf(name, name_size, "NULL");
        *invalid = 1;
        return 1;
    case K_OUT:
    case K_OUTBUF:
    case K_BYTES:
    case K_STRUCT_IN:
    case K_STRUCT_OUT:
    case K_ARRAY:
    case K_NULL:
        if (index > 0) return 0;
        snprintf(name, name_size, "NULL");
        return 1;
    case K_PTR:
        if (index > 1) return 0;
        out->ptr = index == 0 ? NULL : (void *)&g_env;
        snprintf(name, name_size, index == 0 ? "NULL" : "a pointer");
        return 1;
    case K_FN:
        if (!fns || index > fns->count) return 0;
        out->fn = index == 0 ? NULL : fns->fns[index - 1];
        snprintf(name, name_size, "%s", index == 0 ? "NULL" : fns->names[index - 1]);
        return 1;
    case K_STR:
        if (index >= FUZZ_STRING_COUNT) return 0;
        out->str = fuzz_strings[index].text;
        *invalid = fuzz_strings[index].invalid;
        snprintf(name, name_size, "%s", fuzz_strings[index].name);
        return 1;
    case K_VERSION: {
        /* Every version below the current one is valid; then ones libmfa cannot know. */
        const uint32_t unknown[] = {0, version + 1, version + 2, 0x80000000u, UINT32_MAX};
        if (index + 1 < version) {
            out->u32 = (uint32_t)index + 1;
        } else if (index + 1 - version < COUNT_OF(unknown)) {
            out->u32 = unknown[index + 1 - version];
            *invalid = 1;
        } else {
            return 0;
        }
        snprintf(name, name_size, "%u", (unsigned)out->u32);
        return 1;
    }
    case K_U32:
        if (index >= COUNT_OF(fuzz_u32s)) return 0;
        out->u32 = fuzz_u32s[index];
        snprintf(name, name_size, "%u", (unsigned)out->u32);
        return 1;
    case K_I32:
        if (index >= COUNT_OF(fuzz_i32s)) return 0;
        out->i32 = fuzz_i32s[index];
        snprintf(name, name_size, "%ld", (long)out->i32);
        return 1;
    case K_I64:
        if (index >= COUNT_OF(fuzz_i64s)) return 0;
        out->i64 = fuzz_i64s[index];
        snprintf(name, name_size, "%lld", (long long)out->i64);
        return 1;
    case K_U64:
        if (index >= COUNT_OF(fuzz_u64s)) return 0;
        out->u64 = fuzz_u64s[index];
        snprintf(name, name_size, "%llu", (unsigned long long)out->u64);
        return 1;
    case K_SIZE:
        if (index >= COUNT_OF(fuzz_sizes)) return 0;
        out->size = fuzz_sizes[index];
        snprintf(name, name_size, "%zu", out->size);
        return 1;
    case K_BOOL:
        if (index > 1) return 0;
        out->b = index == 1;
        snprintf(name, name_size, "%s", index ? "true" : "false");
        return 1;
    case K_KINDS:
        break;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* What the generated half provides                                     */
/* ------------------------------------------------------------------ */

/* Every exported function, from include/mfa.h. */
static const fuzz_func *fuzz_functions(size_t *count);
/* mfa_options as the baseline fills it (store = g_env.store), and its fields. */
static const fuzz_struct *fuzz_options_struct(void);
/* The number of function declarations in include/mfa.h, as the generator counted them. */
static size_t fuzz_declared_count(void);

/* ------------------------------------------------------------------ */
/* Calls                                                                */
/* ------------------------------------------------------------------ */

enum { V_BASELINE, V_PARAM, V_FIELD, V_FLAVOUR, V_NULLS };

/** One call to make: which function, and what differs from its baseline. */
typedef struct fuzz_variant {
    size_t func;
    int mode;
    size_t param; /* V_PARAM, V_FIELD */
    size_t field; /* V_FIELD; V_FLAVOUR: the options field */
    size_t value;
} fuzz_variant;

/* Describes a variant in `out`; whether libmfa must answer INVALID_ARGUMENT in `*invalid`. */
static void fuzz_describe(const fuzz_func *f, const fuzz_variant *v, char *out, size_t size, int *invalid,
                          fuzz_value *value) {
    char name[128] = "";
    fuzz_value scratch;
    int bad = 0;
    if (!value) value = &scratch;
    *invalid = 0;
    switch (v->mode) {
    case V_BASELINE:
        snprintf(out, size, "%s: baseline", f->name);
        break;
    case V_NULLS:
        snprintf(out, size, "%s(NULL)", f->name);
        break;
    case V_PARAM: {
        const fuzz_param *p = &f->params[v->param];
        fuzz_value_at(p->kind, p->version, p->fns, v->value, value, name, sizeof name, &bad);
        if (p->kind == K_STR && p->unread_string) bad = 0;
        snprintf(out, size, "%s: %s (%s) = %s", f->name, p->name, fuzz_kind_names[p->kind], name);
        *invalid = bad;
        break;
    }
    case V_FIELD: {
        const fuzz_param *p = &f->params[v->param];
        const fuzz_field *field = &p->type->fields[v->field];
        fuzz_value_at(field->kind, field->version, field->fns, v->value, value, name, sizeof name, &bad);
        /* A length or count of 2^32 or more in a struct describes memory no caller has. */
        if (field->kind == K_SIZE && value->size > UINT32_MAX) bad = 1;
        if (field->kind == K_STR && p->unread_fields) {
            char key[140];
            snprintf(key, sizeof key, " %s ", field->path);
            if (strstr(p->unread_fields, key)) bad = 0;
        }
        snprintf(out, size, "%s: %s->%s (%s) = %s", f->name, p->name, field->path, fuzz_kind_names[field->kind],
                 name);
        *invalid = bad;
        break;
    }
    case V_FLAVOUR: {
        const fuzz_struct *options = fuzz_options_struct();
        const fuzz_field *field = &options->fields[v->field];
        fuzz_value_at(field->kind, field->version, field->fns, v->value, value, name, sizeof name, &bad);
        snprintf(out, size, "%s: baseline, on a context with options->%s = %s", f->name, field->path, name);
        break;
    }
    }
}

/* Copies the template store to this child's own file. */
static void fuzz_copy_store(void) {
    char buffer[65536];
    ssize_t got;
    int in = open(g_env.template_store, O_RDONLY);
    int out;
    snprintf(g_env.store, sizeof g_env.store, "%s/child-%ld.sqlite", g_env.dir, (long)getpid());
    out = open(g_env.store, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) fuzz_die("cannot copy the store");
    while ((got = read(in, buffer, sizeof buffer)) > 0) {
        if (write(out, buffer, (size_t)got) != got) fuzz_die("cannot copy the store");
    }
    close(in);
    close(out);
}

/* Opens this child's context on its copy of the store: the baseline options, or with one
 * callback field changed. */
static mfa_ctx *fuzz_open(const fuzz_variant *v) {
    const fuzz_struct *options = fuzz_options_struct();
    void *fields = fuzz_guarded(options->size);
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    options->fill(fields, &g_env);
    if (v && v->mode == V_FLAVOUR) {
        fuzz_value value;
        char name[128];
        int invalid;
        fuzz_value_at(options->fields[v->field].kind, 0, options->fields[v->field].fns, v->value, &value, name,
                      sizeof name, &invalid);
        options->set(fields, v->field, &value);
    }
    status = mfa_open(&ctx, fields, &err);
    if (status != MFA_OK) {
        fprintf(stderr, "abi_all_exports: mfa_open for a call failed: %s: %s\n", mfa_status_name(status),
                err ? err : "");
        _exit(4);
    }
    return ctx;
}

/* The child: makes the call and checks its status; exits 0 when it is right. */
static void fuzz_child(const fuzz_func *f, const fuzz_variant *v, unsigned seconds) {
    fuzz_call call;
    fuzz_value value;
    char what[512];
    int invalid;
    int32_t status;
    alarm(seconds);
    memset(&call, 0, sizeof call);
    fuzz_describe(f, v, what, sizeof what, &invalid, &value);
    g_env.ctx = NULL;
    if (v->mode != V_NULLS) fuzz_copy_store();
    if ((f->flags & F_CTX) && v->mode != V_NULLS) {
        int null_ctx = v->mode == V_PARAM && f->params[v->param].kind == K_CTX;
        if (!null_ctx) g_env.ctx = fuzz_open(v);
    }
    if (v->mode == V_NULLS) {
        for (size_t i = 0; i < f->param_count; i++) memset(&call.v[i], 0, sizeof call.v[i]);
    } else {
        f->baseline(&call, &g_env);
        if (v->mode == V_PARAM) call.v[v->param] = value;
        if (v->mode == V_FIELD) f->params[v->param].type->set(call.v[v->param].ptr, v->field, &value);
    }
    status = f->call(&call);
    if (getenv("MFA_ABI_FUZZ_VERBOSE")) {
        printf("%s -> %s\n", what, (f->flags & F_STATUS) ? mfa_status_name(status) : "returned");
        fflush(stdout);
    }
    if (status == FUZZ_RESULT_NULL) {
        fprintf(stderr, "FAIL %s: returned NULL\n", what);
        _exit(1);
    }
    if (f->flags & F_STATUS) {
        if (strcmp(mfa_status_name(status), "UNKNOWN") == 0) {
            fprintf(stderr, "FAIL %s: returned %d, not a status\n", what, (int)status);
            _exit(1);
        }
        if (invalid && status != MFA_ERR_INVALID_ARGUMENT) {
            fprintf(stderr, "FAIL %s: returned %s, want INVALID_ARGUMENT\n", what, mfa_status_name(status));
            _exit(1);
        }
    }
    _exit(0);
}

/* ------------------------------------------------------------------ */
/* The store and tokens the calls work on                               */
/* ------------------------------------------------------------------ */

static void fuzz_step(int status, const char *what) {
    if (status != MFA_OK) {
        fprintf(stderr, "abi_all_exports: preparing the store: %s: %s\n", what, mfa_status_name(status));
        exit(2);
    }
}

static void fuzz_copy_token(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

/* alice, with a verified email, after her first factor at `auth_time`. */
static void fuzz_fixture_user(mfa_user *user, int64_t auth_time) {
    memset(user, 0, sizeof *user);
    user->version = MFA_USER_VERSION;
    user->provider = "password";
    user->uid = "alice";
    user->email = "alice@example.com";
    user->email_verified = 1;
    user->auth_time = auth_time;
}

static void fuzz_totp_code(char out[16], const uint8_t *key, size_t len, int64_t when) {
    fuzz_step(mfa_totp_generate(out, 16, key, len, NULL, when), "mfa_totp_generate");
}

/* The template store: alice has a TOTP factor (the RFC secret) and a phone factor; live
 * tokens of every kind are kept in g_env, minted a minute before the calls' clock. */
static void fuzz_prepare(void) {
    const fuzz_struct *options = fuzz_options_struct();
    void *fields = fuzz_guarded(options->size);
    const char *base = getenv("TMPDIR");
    mfa_user user;
    mfa_ctx *ctx = NULL;
    char *text = NULL;
    mfa_factor_info *info = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_resolver *resolver = NULL;
    uint8_t *key = NULL;
    size_t key_len = 0;
    char *err = NULL;

    snprintf(g_env.dir, sizeof g_env.dir, "%s/mfa-abi-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(g_env.dir)) fuzz_die("cannot make a temporary directory");
    if (chdir(g_env.dir) != 0) fuzz_die("cannot enter the temporary directory");
    snprintf(g_env.template_store, sizeof g_env.template_store, "%s/template.sqlite", g_env.dir);
    snprintf(g_env.store, sizeof g_env.store, "%s", g_env.template_store);
    g_env.bytes = fuzz_guarded(FUZZ_BUFFER_BYTES);
    memcpy(g_env.bytes, FUZZ_KEY, 32);
    g_env.outbuf = fuzz_guarded(FUZZ_BUFFER_BYTES);
    g_env.zeros = fuzz_guarded(FUZZ_OUT_BYTES);
    snprintf(g_env.uri, sizeof g_env.uri,
             "otpauth://totp/ACME:alice%%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME");
    /* What the importers read: texts of a few lines in buffers that a longer length stays inside. */
    g_env.import_text = fuzz_guarded(FUZZ_BUFFER_BYTES);
    g_env.import_text_len = (size_t)snprintf(
        (char *)g_env.import_text, FUZZ_BUFFER_BYTES, "%s",
        "otpauth://totp/ACME:bob?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME\n"
        "otpauth://hotp/ACME:carol?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=1\n"
        "otpauth://totp/ACME:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\nnot a uri\n");
    g_env.ga_text = fuzz_guarded(FUZZ_BUFFER_BYTES);
    g_env.ga_text_len = (size_t)snprintf((char *)g_env.ga_text, FUZZ_BUFFER_BYTES, "%s",
                                         "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n\" WINDOW_SIZE 3\n\" TOTP_AUTH\n"
                                         "12345678\n87654321\n");

    options->fill(fields, &g_env);
    if (mfa_open(&ctx, fields, &err) != MFA_OK) {
        fprintf(stderr, "abi_all_exports: cannot open the template store: %s\n", err ? err : "");
        exit(2);
    }
    fuzz_step(mfa_config_set_json(ctx, NULL,
                                  "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},"
                                  "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}",
                                  NULL),
              "mfa_config_set_json");

    /* Two minutes before: the factors (enrolling revokes the tokens issued before). */
    g_env.now = FUZZ_NOW - 120;
    fuzz_fixture_user(&user, g_env.now - 5);
    fuzz_step(mfa_totp_import(ctx, &info, &user, (const uint8_t *)FUZZ_KEY, 20, NULL, "Imported", NULL),
              "mfa_totp_import");
    fuzz_copy_token(g_env.eid_totp, sizeof g_env.eid_totp, info->uid);
    mfa_factor_info_free(info);
    fuzz_step(mfa_session_new(ctx, &text, &user, NULL), "mfa_session_new");
    {
        char *vid = NULL;
        fuzz_step(mfa_phone_start_enrollment(ctx, &vid, text, "+15105550000", "good", NULL),
                  "mfa_phone_start_enrollment");
        fuzz_step(mfa_phone_enroll(ctx, &info, &user, vid, g_env.sms_code, "Phone", NULL), "mfa_phone_enroll");
        mfa_free(vid);
    }
    mfa_free(text);
    fuzz_copy_token(g_env.eid_phone, sizeof g_env.eid_phone, info->uid);
    mfa_factor_info_free(info);

    /* A minute before: the tokens. */
    g_env.now = FUZZ_NOW - 60;
    fuzz_fixture_user(&user, g_env.now - 5);
    fuzz_step(mfa_session_new(ctx, &text, &user, NULL), "mfa_session_new");
    fuzz_step(mfa_totp_generate_secret(ctx, &secret, text, NULL), "mfa_totp_generate_secret");
    mfa_free(text);
    fuzz_copy_token(g_env.session_info, sizeof g_env.session_info, secret->session_info);
    fuzz_copy_token(g_env.secret_base32, sizeof g_env.secret_base32, secret->shared_secret_key);
    mfa_totp_secret_free(secret);
    fuzz_step(mfa_base32_decode(&key, &key_len, g_env.secret_base32), "mfa_base32_decode");
    fuzz_totp_code(g_env.otp_enroll, key, key_len, FUZZ_NOW);
    mfa_free(key);
    fuzz_totp_code(g_env.otp, (const uint8_t *)FUZZ_KEY, 20, FUZZ_NOW);

    fuzz_step(mfa_session_new(ctx, &text, &user, NULL), "mfa_session_new");
    fuzz_copy_token(g_env.session, sizeof g_env.session, text);
    mfa_free(text);
    fuzz_step(mfa_session_new(ctx, &text, &user, NULL), "mfa_session_new");
    {
        char *vid = NULL;
        fuzz_step(mfa_phone_start_enrollment(ctx, &vid, text, "+15105559999", "good", NULL),
                  "mfa_phone_start_enrollment");
        fuzz_copy_token(g_env.vid_enroll, sizeof g_env.vid_enroll, vid);
        fuzz_copy_token(g_env.code_enroll, sizeof g_env.code_enroll, g_env.sms_code);
        mfa_free(vid);
    }
    mfa_free(text);
    if (mfa_sign_in(ctx, &resolver, &user, NULL) != MFA_ERR_SECOND_FACTOR_REQUIRED || !resolver) {
        fuzz_die("preparing the store: mfa_sign_in did not ask for a second factor");
    }
    fuzz_copy_token(g_env.cred, sizeof g_env.cred, resolver->session);
    mfa_resolver_free(resolver);
    {
        char *vid = NULL;
        fuzz_step(mfa_phone_start_sign_in(ctx, &vid, g_env.cred, NULL, g_env.eid_phone, "good", NULL),
                  "mfa_phone_start_sign_in");
        fuzz_copy_token(g_env.vid_sign_in, sizeof g_env.vid_sign_in, vid);
        fuzz_copy_token(g_env.code_sign_in, sizeof g_env.code_sign_in, g_env.sms_code);
        mfa_free(vid);
    }
    mfa_close(ctx);
    g_env.now = FUZZ_NOW;
}

/* Removes this run's files: the template, the children's copies, stray files the calls made. */
static void fuzz_cleanup(void) {
    char command[400];
    if (chdir("/") != 0) return;
    if (strstr(g_env.dir, "mfa-abi-fuzz-")) {
        snprintf(command, sizeof command, "rm -rf '%s'", g_env.dir);
        if (system(command) != 0) fprintf(stderr, "abi_all_exports: could not remove %s\n", g_env.dir);
    }
}

/* Removes one child's store copy. */
static void fuzz_remove_child_store(pid_t pid) {
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char path[340];
    for (size_t i = 0; i < COUNT_OF(suffixes); i++) {
        snprintf(path, sizeof path, "%s/child-%ld.sqlite%s", g_env.dir, (long)pid, suffixes[i]);
        unlink(path);
    }
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

typedef struct fuzz_run {
    unsigned seconds;
    size_t jobs;
    unsigned long calls;
    unsigned long failures;
    unsigned long printed;
} fuzz_run;

typedef struct fuzz_slot {
    pid_t pid;
    fuzz_variant variant;
} fuzz_slot;

#define FUZZ_MAX_JOBS 16
#define FUZZ_MAX_PRINTED 200

static void fuzz_fail(fuzz_run *run, const char *line) {
    run->failures++;
    if (run->printed++ < FUZZ_MAX_PRINTED) fprintf(stderr, "%s\n", line);
}

/* Waits for one child and judges it. */
static void fuzz_reap(fuzz_run *run, fuzz_slot *slots, size_t *running) {
    const fuzz_func *functions;
    size_t count;
    int status = 0;
    pid_t pid = wait(&status);
    if (pid < 0) fuzz_die("wait failed");
    functions = fuzz_functions(&count);
    for (size_t i = 0; i < *running; i++) {
        if (slots[i].pid != pid) continue;
        {
            const fuzz_func *f = &functions[slots[i].variant.func];
            char what[512], line[700];
            int invalid;
            fuzz_describe(f, &slots[i].variant, what, sizeof what, &invalid, NULL);
            if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
                snprintf(line, sizeof line, "FAIL %s: no answer in %u s (a hang)", what, run->seconds);
                fuzz_fail(run, line);
            } else if (WIFSIGNALED(status)) {
                snprintf(line, sizeof line, "FAIL %s: killed by signal %d (%s)", what, WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
                fuzz_fail(run, line);
            } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                run->failures++; /* the child printed why */
                run->printed++;
            }
        }
        fuzz_remove_child_store(pid);
        slots[i] = slots[--*running];
        return;
    }
}

static void fuzz_launch(fuzz_run *run, fuzz_slot *slots, size_t *running, const fuzz_variant *variant) {
    const fuzz_func *functions;
    size_t count;
    pid_t pid;
    while (*running >= run->jobs) fuzz_reap(run, slots, running);
    functions = fuzz_functions(&count);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) fuzz_die("fork failed");
    if (pid == 0) fuzz_child(&functions[variant->func], variant, run->seconds);
    slots[*running].pid = pid;
    slots[*running].variant = *variant;
    ++*running;
    run->calls++;
}

/* Every variant of one function. */
static void fuzz_function(fuzz_run *run, fuzz_slot *slots, size_t *running, size_t index) {
    const fuzz_func *functions;
    const fuzz_func *f;
    size_t count;
    fuzz_variant v;
    fuzz_value value;
    char name[128];
    int invalid;
    functions = fuzz_functions(&count);
    f = &functions[index];
    memset(&v, 0, sizeof v);
    v.func = index;
    if (f->flags & F_FREE) {
        v.mode = V_NULLS;
        fuzz_launch(run, slots, running, &v);
        return;
    }
    v.mode = V_BASELINE;
    fuzz_launch(run, slots, running, &v);
    for (size_t p = 0; p < f->param_count; p++) {
        const fuzz_param *param = &f->params[p];
        v.mode = V_PARAM;
        v.param = p;
        for (v.value = 0; fuzz_value_at(param->kind, param->version, param->fns, v.value, &value, name, sizeof name,
                                        &invalid);
             v.value++) {
            fuzz_launch(run, slots, running, &v);
        }
        if (param->kind != K_STRUCT_IN) continue;
        v.mode = V_FIELD;
        for (v.field = 0; v.field < param->type->field_count; v.field++) {
            const fuzz_field *field = &param->type->fields[v.field];
            for (v.value = 0; fuzz_value_at(field->kind, field->version, field->fns, v.value, &value, name,
                                            sizeof name, &invalid);
                 v.value++) {
                fuzz_launch(run, slots, running, &v);
            }
        }
    }
    if (f->flags & F_CTX) {
        const fuzz_struct *options = fuzz_options_struct();
        v.mode = V_FLAVOUR;
        for (v.field = 0; v.field < options->field_count; v.field++) {
            const fuzz_field *field = &options->fields[v.field];
            if (field->kind != K_FN) continue;
            for (v.value = 0; fuzz_value_at(field->kind, 0, field->fns, v.value, &value, name, sizeof name, &invalid);
                 v.value++) {
                fuzz_launch(run, slots, running, &v);
            }
        }
    }
}

static int fuzz_main(int argc, char **argv) {
    fuzz_run run;
    fuzz_slot slots[FUZZ_MAX_JOBS];
    size_t running = 0, count, chosen = 0;
    const fuzz_func *functions = fuzz_functions(&count);
    const char *seconds = getenv("MFA_ABI_FUZZ_SECONDS");
    const char *jobs = getenv("MFA_ABI_FUZZ_JOBS");
    struct timespec start, end;
    memset(&run, 0, sizeof run);
    run.seconds = seconds && atoi(seconds) > 0 ? (unsigned)atoi(seconds) : 20;
    run.jobs = jobs && atoi(jobs) > 0 ? (size_t)atoi(jobs) : 2;
    if (run.jobs > FUZZ_MAX_JOBS) run.jobs = FUZZ_MAX_JOBS;
    clock_gettime(CLOCK_MONOTONIC, &start);

    if (count != fuzz_declared_count() || count == 0) {
        fprintf(stderr, "abi_all_exports: %zu functions in the table, %zu declared in mfa.h\n", count,
                fuzz_declared_count());
        return 1;
    }
    fuzz_build_strings();
    fuzz_prepare();
    for (size_t i = 0; i < count; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], functions[i].name) == 0;
        if (!wanted) continue;
        chosen++;
        fuzz_function(&run, slots, &running, i);
    }
    while (running > 0) fuzz_reap(&run, slots, &running);
    fuzz_cleanup();
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (run.printed > FUZZ_MAX_PRINTED) {
        fprintf(stderr, "... and %lu more failures\n", run.printed - FUZZ_MAX_PRINTED);
    }
    printf("abi_all_exports: %zu of %zu functions of mfa.h, %lu calls, each in its own process: %lu failures "
           "(%.1f s)\n",
           chosen, count, run.calls, run.failures,
           (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9);
    if (chosen == 0) return 1;
    return run.failures == 0 ? 0 : 1;
}

#endif
