/*
 * PSKC import (mfa_import_pskc): whatever XML the fuzzer makes, read as a
 * token vendor's file, with or without its key or password.
 *
 * Input: one byte that picks what comes with the file (bits 0-1: nothing,
 * the 16-byte pre-shared key of the committed fixtures, that key twice (32
 * bytes), or the password "qwerty"; bit 2: a password too, with the key;
 * bit 3: MFA_PSKC_IGNORE_USERS), then the file, bytes as they are. The seeds
 * are the files python-pskc wrote (Tests/fixtures/pskc) and hostile ones.
 *
 * Invariants:
 * - the call answers MFA_OK, MFA_ERR_INVALID_PSKC or
 *   MFA_ERR_PSKC_KEY_MISMATCH; MFA_ERR_INVALID_ARGUMENT exactly when a key
 *   and a password were both given (and then nothing else is looked at);
 * - a file that declares a DTD or an entity ("<!DOCTYPE", "<!ENTITY", with
 *   no comment or CDATA section that could hide them) is never imported;
 * - the report: line numbers rise from 1, each outcome is one of the five
 *   with its own name, a reason is always given, one report per key package
 *   (the summary's lines), the reports of each outcome add up to the totals;
 * - no reason quotes a secret-looking run of the file (16 or more base64 or
 *   hex characters) that is not the line's uid or serial, and a reported
 *   serial is 1 to 64 printable ASCII characters without a space;
 * - the store gains exactly what the summary says was imported (factors and
 *   unassigned tokens), and importing the same file again stores nothing.
 * libFuzzer's -timeout and -rss_limit_mb stand for "refused fast, in
 * bounded memory" (a billion laughs must never expand). PBKDF2 iteration
 * counts above 20,000 are left out (their cost is by design, up to the
 * library's 5,000,000): such an input is run without the password. The store
 * is renewed every 2,000 inputs.
 */
#include "fuzz_support.h"

#define MAX_PACKAGES 4200

typedef struct report_log {
    size_t count;
    int64_t last_line;
    int64_t by_outcome[6];
    int broken;
    char why[512];
    const char *text;
} report_log;

static const uint8_t KEY16[16] = {0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56,
                                  0x78, 0x90, 0x12, 0x34, 0x56, 0x78, 0x90, 0x12};

static int contains_n(const char *haystack, const char *needle, size_t len) {
    if (!haystack) return 0;
    for (const char *p = haystack; *p; p++) {
        if (strncmp(p, needle, len) == 0) return 1;
    }
    return 0;
}

static int is_secret_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '+' || c == '/' ||
           c == '=';
}

static int valid_serial(const char *serial) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)serial; *p; p++, n++) {
        if (*p <= 0x20 || *p >= 0x7f) return 0;
    }
    return n >= 1 && n <= 64;
}

static void record(void *context, const mfa_import_line *line) {
    report_log *log = context;
    const char *names[] = {"", "IMPORTED", "ALREADY_IMPORTED", "UNSUPPORTED", "FAILED", "NOTE"};
    if (log->broken) return;
    log->count++;
    if (line->line < 1 || line->line < log->last_line || line->outcome < 1 || line->outcome > 5 || !line->reason ||
        !line->outcome_name || strcmp(line->outcome_name, names[line->outcome]) != 0) {
        log->broken = 1;
        snprintf(log->why, sizeof log->why, "report %zu: line %lld after %lld, outcome %d %s, reason %s",
                 log->count, (long long)line->line, (long long)log->last_line, line->outcome,
                 line->outcome_name ? line->outcome_name : "(none)", line->reason ? "given" : "(none)");
        return;
    }
    log->last_line = line->line;
    log->by_outcome[line->outcome]++;
    if (line->serial && !valid_serial(line->serial)) {
        log->broken = 1;
        snprintf(log->why, sizeof log->why, "line %lld reports a serial that cannot be one", (long long)line->line);
        return;
    }
    for (const char *p = line->reason; *p;) {
        size_t run = 0;
        while (p[run] && is_secret_char(p[run])) run++;
        if (run >= 16 && contains_n(log->text, p, run) && !contains_n(line->uid, p, run) &&
            !contains_n(line->serial, p, run)) {
            log->broken = 1;
            snprintf(log->why, sizeof log->why, "line %lld's reason quotes the file: %s", (long long)line->line,
                     line->reason);
            return;
        }
        p += run ? run : 1;
    }
}

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    return fuzz_open(&options, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"hotp\":\"ENABLED\","
                               "\"yubico_otp\":\"ENABLED\"}}");
}

/* Factors plus unassigned tokens. */
static int64_t stored(mfa_ctx *ctx) {
    mfa_admin_stats *stats = NULL;
    int64_t total;
    char *cursor = NULL;
    fuzz_setup_check(mfa_admin_stats_get(ctx, &stats, NULL), "mfa_admin_stats_get", NULL);
    total = stats->total_factors;
    mfa_admin_stats_free(stats);
    do {
        mfa_token_list *page = NULL;
        fuzz_setup_check(mfa_admin_tokens_list(ctx, &page, NULL, 0, MFA_ADMIN_PAGE_MAX, cursor, NULL),
                         "mfa_admin_tokens_list", NULL);
        free(cursor);
        cursor = page->next_cursor ? fuzz_string((const uint8_t *)page->next_cursor, strlen(page->next_cursor))
                                   : NULL;
        total += (int64_t)page->count;
        mfa_token_list_free(page);
    } while (cursor);
    return total;
}

/* Whether `text` holds `needle`. */
static int has(const char *text, const char *needle) {
    return strstr(text, needle) != NULL;
}

/* The largest IterationCount in the text (0 if none). */
static unsigned long long max_iterations(const char *text) {
    unsigned long long most = 0;
    for (const char *p = strstr(text, "IterationCount"); p; p = strstr(p + 1, "IterationCount")) {
        const char *q = p + strlen("IterationCount");
        unsigned long long value = 0;
        while (*q && *q != '<' && (*q < '0' || *q > '9')) q++;
        while (*q >= '0' && *q <= '9') {
            value = value > 100000000ULL ? value : value * 10 + (unsigned)(*q - '0');
            q++;
        }
        if (value > most) most = value;
    }
    return most;
}

static int run(mfa_ctx *ctx, const uint8_t *file, size_t len, const uint8_t *key, size_t key_len,
               const char *password, int32_t flags, mfa_import_summary *summary, report_log *log, const char *text) {
    mfa_import_options options;
    char *err = NULL;
    int status;
    fuzz_setup_check(mfa_import_options_init(&options, MFA_IMPORT_OPTIONS_VERSION), "mfa_import_options_init", NULL);
    options.actor = "fuzz";
    options.report = record;
    options.report_context = log;
    options.batch_size = 3;
    memset(log, 0, sizeof *log);
    log->text = text;
    status = mfa_import_pskc(ctx, summary, file, len, key, key_len, password, flags, &options, &err);
    if (key && password) {
        FUZZ_CHECK(status == MFA_ERR_INVALID_ARGUMENT && log->count == 0,
                   "a key and a password both: %s", mfa_status_name(status));
        mfa_free(err);
        return 0;
    }
    FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_PSKC || status == MFA_ERR_PSKC_KEY_MISMATCH,
               "%s (%s)", mfa_status_name(status), err ? err : "");
    FUZZ_CHECK(status == MFA_OK || (err && *err), "%s without a message", mfa_status_name(status));
    mfa_free(err);
    if (status != MFA_OK) {
        FUZZ_CHECK(log->count == 0, "%s after %zu reports", mfa_status_name(status), log->count);
        return 0;
    }
    FUZZ_CHECK(!log->broken, "%s", log->why);
    FUZZ_CHECK(summary->lines >= 1 && (int64_t)log->count == summary->lines,
               "%zu reports for %lld key packages", log->count, (long long)summary->lines);
    FUZZ_CHECK(log->by_outcome[MFA_IMPORT_IMPORTED] == summary->imported &&
                   log->by_outcome[MFA_IMPORT_ALREADY_IMPORTED] == summary->already_imported &&
                   log->by_outcome[MFA_IMPORT_UNSUPPORTED] == summary->unsupported &&
                   log->by_outcome[MFA_IMPORT_FAILED] == summary->failed && summary->recovery_codes == 0 &&
                   !summary->stopped,
               "reports %lld/%lld/%lld/%lld against totals %lld/%lld/%lld/%lld", (long long)log->by_outcome[1],
               (long long)log->by_outcome[2], (long long)log->by_outcome[3], (long long)log->by_outcome[4],
               (long long)summary->imported, (long long)summary->already_imported, (long long)summary->unsupported,
               (long long)summary->failed);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    static report_log log;
    static uint8_t key32[32];
    fuzz_reader in = {data, size};
    unsigned mode = (unsigned)fuzz_take(&in, 1);
    const uint8_t *key = NULL;
    size_t key_len = 0;
    const char *password = NULL;
    int32_t flags = (mode & 8) ? MFA_PSKC_IGNORE_USERS : 0;
    mfa_import_summary first, again;
    int64_t before, after;
    char *text;

    if (runs++ % 2000 == 0) {
        mfa_close(ctx);
        ctx = open_store();
        memcpy(key32, KEY16, 16);
        memcpy(key32 + 16, KEY16, 16);
    }
    text = fuzz_string(in.data, in.size);
    switch (mode & 3) {
    case 1: key = KEY16, key_len = 16; break;
    case 2: key = key32, key_len = 32; break;
    case 3: password = "qwerty"; break;
    default: break;
    }
    if ((mode & 4) && key) password = "qwerty";
    if (password && !key && max_iterations(text) > 20000) password = NULL;

    before = stored(ctx);
    if (run(ctx, in.data, in.size, key, key_len, password, flags, &first, &log, text)) {
        after = stored(ctx);
        FUZZ_CHECK(!((has(text, "<!DOCTYPE") || has(text, "<!ENTITY")) && !has(text, "<!--") &&
                     !has(text, "<![CDATA[")),
                   "a file with a DTD was imported");
        FUZZ_CHECK(after - before == first.imported, "%lld stored, %lld imported", (long long)(after - before),
                   (long long)first.imported);
        FUZZ_CHECK(run(ctx, in.data, in.size, key, key_len, password, flags, &again, &log, text),
                   "the re-run failed");
        FUZZ_CHECK(again.imported == 0 && stored(ctx) == after && again.lines == first.lines,
                   "a re-run stored %lld (lines %lld, then %lld)", (long long)again.imported,
                   (long long)first.lines, (long long)again.lines);
    } else {
        FUZZ_CHECK(stored(ctx) == before, "a refused file stored something");
    }
    free(text);
    return 0;
}
