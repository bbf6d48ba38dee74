/*
 * The importers' file formats: mfa_import (otpauth lines, pam_oath users
 * files, CSV) and mfa_import_google_authenticator (a ~/.google_authenticator
 * file), fed whatever the fuzzer makes.
 *
 * Input: one byte that picks the format (its value mod 4: 0 a
 * google-authenticator file, 1 otpauth lines, 2 a users file, 3 CSV), then
 * the file's text, bytes as they are.
 *
 * Invariants:
 * - the call answers MFA_OK, or MFA_ERR_INVALID_ARGUMENT exactly when the
 *   text is not UTF-8;
 * - the report: line numbers rise (never 0, never past the lines read), each
 *   outcome is one of the five with its own name, a reason is always given,
 *   and the reports of each outcome add up to the summary's totals (a
 *   google-authenticator file reports its scratch codes as IMPORTED too);
 * - no reason holds a secret: no run of 16 or more base32 or hex characters
 *   from the text (with a digit in it) that is not part of the line's uid;
 * - the store gains exactly the factors the summary says were imported (a
 *   set of scratch codes is one factor);
 * - running the same import again stores nothing.
 * The users the texts name meet again from input to input (a line may find
 * its factor stored by another input, or the user at the factor limit); the
 * store is renewed every 5,000 inputs, and each google-authenticator file
 * is for a user of its own.
 */
#include "fuzz_support.h"

#define MAX_REPORTS 4096

typedef struct report_log {
    size_t count;
    int64_t last_line;
    int64_t by_outcome[6];
    int broken;
    char why[512];
    const char *text;
} report_log;

/* Whether the run text[0..len) is all base32 (upper case, '=') or all hex, with a digit. */
static int secret_like(const char *text, size_t len) {
    int base32 = 1, hex = 1, digit = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c >= '0' && c <= '9') digit = 1;
        if (!((c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7') || c == '=')) base32 = 0;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) hex = 0;
    }
    return digit && (base32 || hex);
}

static int contains_n(const char *haystack, const char *needle, size_t len) {
    if (!haystack) return 0;
    for (const char *p = haystack; *p; p++) {
        if (strncmp(p, needle, len) == 0) return 1;
    }
    return 0;
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
    /* A reason quotes no secret-looking run of the text (a uid may look like one: it is no secret). */
    for (const char *p = line->reason; *p;) {
        size_t run = 0;
        while (p[run] && ((p[run] >= '0' && p[run] <= '9') || (p[run] >= 'A' && p[run] <= 'Z') ||
                          (p[run] >= 'a' && p[run] <= 'z') || p[run] == '=')) {
            run++;
        }
        if (run >= 16 && secret_like(p, run) && contains_n(log->text, p, run) && !contains_n(line->uid, p, run)) {
            log->broken = 1;
            snprintf(log->why, sizeof log->why, "line %lld's reason quotes the text: %s", (long long)line->line,
                     line->reason);
            return;
        }
        p += run ? run : 1;
    }
}

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    return fuzz_open(&options, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}");
}

static int64_t factors_stored(mfa_ctx *ctx) {
    mfa_admin_stats *stats = NULL;
    int64_t total;
    fuzz_setup_check(mfa_admin_stats_get(ctx, &stats, NULL), "mfa_admin_stats_get", NULL);
    total = stats->total_factors;
    mfa_admin_stats_free(stats);
    return total;
}

/* Runs the import; checks the status and the report against the summary. */
static int run(mfa_ctx *ctx, int format, const char *uid, const uint8_t *text, size_t len, const char *copy,
               mfa_import_summary *summary, report_log *log) {
    mfa_import_options options;
    char *err = NULL;
    int status, ga = format == 0;
    fuzz_setup_check(mfa_import_options_init(&options, MFA_IMPORT_OPTIONS_VERSION), "mfa_import_options_init", NULL);
    options.actor = "fuzz";
    options.report = record;
    options.report_context = log;
    options.batch_size = 3;
    memset(log, 0, sizeof *log);
    log->text = copy;
    status = ga ? mfa_import_google_authenticator(ctx, summary, uid, text, len, &options, &err)
                : mfa_import(ctx, summary, format, text, len, &options, &err);
    FUZZ_CHECK(status == (fuzz_is_utf8(text, len) ? MFA_OK : MFA_ERR_INVALID_ARGUMENT),
               "format %d: %s (%s)", format, mfa_status_name(status), err ? err : "");
    mfa_free(err);
    if (status != MFA_OK) return 0;
    FUZZ_CHECK(!log->broken, "format %d: %s", format, log->why);
    FUZZ_CHECK(log->last_line <= summary->lines, "format %d: line %lld reported of %lld", format,
               (long long)log->last_line, (long long)summary->lines);
    FUZZ_CHECK(log->by_outcome[MFA_IMPORT_IMPORTED] == summary->imported + (ga ? summary->recovery_codes : 0) &&
                   log->by_outcome[MFA_IMPORT_ALREADY_IMPORTED] == summary->already_imported &&
                   log->by_outcome[MFA_IMPORT_UNSUPPORTED] == summary->unsupported &&
                   log->by_outcome[MFA_IMPORT_FAILED] == summary->failed && !summary->stopped,
               "format %d: reports %lld/%lld/%lld/%lld against totals %lld(+%lld)/%lld/%lld/%lld", format,
               (long long)log->by_outcome[1], (long long)log->by_outcome[2], (long long)log->by_outcome[3],
               (long long)log->by_outcome[4], (long long)summary->imported, (long long)summary->recovery_codes,
               (long long)summary->already_imported, (long long)summary->unsupported, (long long)summary->failed);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    static report_log log;
    fuzz_reader in = {data, size};
    int format = (int)(fuzz_take(&in, 1) % 4);
    mfa_import_summary first, again;
    char *text, uid[32];
    int64_t before, after;

    if (runs++ % 5000 == 0) {
        mfa_close(ctx);
        ctx = open_store();
    }
    /* A google-authenticator file is for a user of its own. */
    snprintf(uid, sizeof uid, "ga%lu", runs);
    text = fuzz_string(in.data, in.size);
    before = factors_stored(ctx);
    if (run(ctx, format, uid, in.data, in.size, text, &first, &log)) {
        after = factors_stored(ctx);
        FUZZ_CHECK(after - before == first.imported + (format == 0 && first.recovery_codes > 0),
                   "format %d: %lld factors stored, %lld imported (+%lld scratch codes)", format,
                   (long long)(after - before), (long long)first.imported, (long long)first.recovery_codes);
        FUZZ_CHECK(run(ctx, format, uid, in.data, in.size, text, &again, &log), "format %d: the re-run failed",
                   format);
        FUZZ_CHECK(again.imported == 0 && again.recovery_codes == 0 && factors_stored(ctx) == after,
                   "format %d: a re-run stored %lld factors and %lld scratch codes", format,
                   (long long)again.imported, (long long)again.recovery_codes);
    }
    free(text);
    return 0;
}
