/*
 * The importers' file formats: mfa_import (otpauth lines, pam_oath users
 * files, CSV, YubiKey CSV) and mfa_import_google_authenticator (a
 * ~/.google_authenticator file), fed whatever the fuzzer makes.
 *
 * Input: one byte that picks the format (its value mod 5: 0 a
 * google-authenticator file, 1 otpauth lines, 2 a users file, 3 CSV, 4 the
 * CSV YubiKeys are programmed with), then the file's text, bytes as they are.
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
 * - no reported uid may be a secret or holds a control character: no run of
 *   16 base32 characters of one case or of 16 hex digits (spaces aside), no
 *   C0, DEL, C1, U+2028/2029, bidi override or isolate, U+FEFF;
 * - the lines are counted as the text has them (LF, CR LF and a lone CR each
 *   end a line, a leading byte order mark is skipped); for otpauth lines,
 *   users files and CSV without quotes (not YubiKey CSV, whose tools write
 *   log lines too), every line that is not blank or a
 *   comment gets exactly one outcome (a CSV header excepted), no other line
 *   does, and a text without such a line is one FAILED line 1;
 * - the store gains exactly the factors the summary says were imported (a
 *   set of scratch codes is one factor; a YubiKey waits as an unassigned
 *   token);
 * - running the same import again, with a byte order mark in front, stores
 *   nothing, counts the same lines and gives as many outcomes.
 * The users the texts name meet again from input to input (a line may find
 * its factor stored by another input, or the user at the factor limit); the
 * store is renewed every 5,000 inputs, and each google-authenticator file
 * is for a user of its own.
 */
#include "fuzz_support.h"

#define MAX_REPORTS 4096
#define MAX_LINES 4200 /* -max_len=4096: at most 4097 lines */

typedef struct report_log {
    size_t count;
    int64_t last_line;
    int64_t by_outcome[6];
    int broken;
    char why[512];
    const char *text;
    unsigned char outcomes_on[MAX_LINES + 1]; /* outcomes (not notes) per line, saturating */
} report_log;

/* Whether a reported uid may be a secret: 16 in a row (spaces aside) of upper-case base32, of
 * lower-case base32, or of hex digits. */
static int may_hold_secret(const char *uid) {
    int upper = 0, lower = 0, hex = 0;
    for (const unsigned char *p = (const unsigned char *)uid; *p; p++) {
        unsigned char c = *p;
        if (c == ' ') continue;
        int b32digit = (c >= '2' && c <= '7') || c == '=';
        upper = (c >= 'A' && c <= 'Z') || b32digit ? upper + 1 : 0;
        lower = (c >= 'a' && c <= 'z') || b32digit ? lower + 1 : 0;
        hex = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') ? hex + 1 : 0;
        if (upper >= 16 || lower >= 16 || hex >= 16) return 1;
    }
    return 0;
}

/* Whether `text` holds a character no uid may hold. */
static int has_control(const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (p[0] < 0x20 || p[0] == 0x7f) return 1;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return 1;
        if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae) return 1;
        if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9) return 1;
        if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) return 1;
    }
    return 0;
}

/* The lines of a text as the importers count them, and which are data (not blank, not a comment). */
typedef struct line_map {
    int64_t lines;
    int64_t data;
    int quotes; /* the text holds a double quote */
    unsigned char is_data[MAX_LINES + 1];
} line_map;

static void map_lines(const uint8_t *text, size_t len, line_map *map) {
    size_t i = 0;
    memset(map, 0, sizeof *map);
    if (len >= 3 && text[0] == 0xef && text[1] == 0xbb && text[2] == 0xbf) i = 3;
    while (i < len) {
        size_t start = i;
        int64_t line = ++map->lines;
        while (i < len && text[i] != '\n' && text[i] != '\r') {
            if (text[i] == '"') map->quotes = 1;
            i++;
        }
        while (start < i && (text[start] == ' ' || text[start] == '\t')) start++;
        if (start < i && text[start] != '#' && line <= MAX_LINES) {
            map->is_data[line] = 1;
            map->data++;
        }
        if (i < len && text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
        if (i < len) i++;
    }
}

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
    if (line->outcome != MFA_IMPORT_NOTE && line->line <= MAX_LINES && log->outcomes_on[line->line] < 255) {
        log->outcomes_on[line->line]++;
    }
    if (line->uid && (may_hold_secret(line->uid) || has_control(line->uid))) {
        log->broken = 1;
        snprintf(log->why, sizeof log->why, "line %lld reports a uid that may be a secret or holds a control character",
                 (long long)line->line);
        return;
    }
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

/* Factors plus unassigned tokens (a YubiKey CSV's keys wait unassigned). */
static int64_t factors_stored(mfa_ctx *ctx) {
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
    {
        static line_map map;
        map_lines(text, len, &map);
        FUZZ_CHECK(summary->lines == (map.lines > 0 ? map.lines : 1) || (ga && summary->lines >= map.lines),
                   "format %d: %lld lines counted, the text has %lld", format, (long long)summary->lines,
                   (long long)map.lines);
        if (!ga && format != MFA_IMPORT_YUBIKEY_CSV && (format != MFA_IMPORT_CSV || !map.quotes) &&
            map.lines <= MAX_LINES) {
            int64_t unreported = 0;
            if (map.data == 0) {
                FUZZ_CHECK(summary->failed == 1 && log->count == 1 && log->outcomes_on[1] == 1,
                           "format %d: a text naming no factor is not one FAILED line 1", format);
            }
            for (int64_t n = 1; map.data > 0 && n <= map.lines; n++) {
                FUZZ_CHECK(log->outcomes_on[n] <= map.is_data[n], "format %d: line %lld has %d outcomes", format,
                           (long long)n, log->outcomes_on[n]);
                if (map.is_data[n] && log->outcomes_on[n] == 0) unreported++;
            }
            /* Only a CSV header goes without an outcome. */
            FUZZ_CHECK(unreported <= (format == MFA_IMPORT_CSV ? 1 : 0),
                       "format %d: %lld lines that name a factor have no outcome", format, (long long)unreported);
        }
    }
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
    int format = (int)(fuzz_take(&in, 1) % 5);
    mfa_import_summary first, again;
    char *text, uid[32];
    int64_t before, after;
    uint8_t *marked;
    size_t marked_len;

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
        /* The re-run has a byte order mark in front (unless the text starts with one): the same file as
         * a Windows tool saves it. */
        marked = malloc(in.size + 3);
        FUZZ_CHECK(marked != NULL, "out of memory");
        marked_len = in.size;
        if (in.size >= 3 && in.data[0] == 0xef && in.data[1] == 0xbb && in.data[2] == 0xbf) {
            if (in.size) memcpy(marked, in.data, in.size);
        } else {
            memcpy(marked, "\xef\xbb\xbf", 3);
            if (in.size) memcpy(marked + 3, in.data, in.size);
            marked_len += 3;
        }
        FUZZ_CHECK(run(ctx, format, uid, marked, marked_len, text, &again, &log), "format %d: the re-run failed",
                   format);
        FUZZ_CHECK(again.imported == 0 && again.recovery_codes == 0 && factors_stored(ctx) == after,
                   "format %d: a re-run stored %lld factors and %lld scratch codes", format,
                   (long long)again.imported, (long long)again.recovery_codes);
        FUZZ_CHECK(again.lines == first.lines &&
                       again.already_imported + again.unsupported + again.failed ==
                           first.imported + (format == 0 ? first.recovery_codes : 0) + first.already_imported +
                               first.unsupported + first.failed,
                   "format %d: the re-run with a byte order mark counts %lld lines, %lld outcomes; the first run "
                   "%lld lines, %lld outcomes",
                   format, (long long)again.lines,
                   (long long)(again.already_imported + again.unsupported + again.failed), (long long)first.lines,
                   (long long)(first.imported + first.already_imported + first.unsupported + first.failed));
        free(marked);
    }
    free(text);
    return 0;
}
