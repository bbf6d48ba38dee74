/*
 * The importers through the C ABI (mfa_import, mfa_import_google_authenticator):
 * files of the tools people migrate from, one factor per line.
 *
 *   otpauth      TOTP imported (the account name is the uid, the issuer the
 *                name), HOTP unsupported, bad lines failed, each reported by
 *                number; the factor signs in; a re-run stores nothing
 *                (ALREADY_IMPORTED, the same enrollment id)
 *   users file   HOTP/T lines in a tenant, a PIN noted, counter-based lines unsupported
 *   CSV          a header, quoted and blank fields, SHA256 / 8 digits / 60 s
 *   google-authenticator  the secret, option notes, scratch codes as recovery
 *                codes that sign in; HOTP files store nothing; a re-run stores nothing
 *   batches      progress after each batch, a stop between batches, a re-run
 *                that resumes; the factor limit refuses a line and the batch goes on
 *   reports      line, uid, outcome and its name, a reason; no secret, no
 *                scratch code in any report or audit event; ENROLL (detail
 *                IMPORTED) with the actor for each factor stored
 *   bad input    options (NULL, versions, actor, tenant, batch size), formats,
 *                texts (NULL, not UTF-8, too long), NULL out and context; the
 *                summary zeroed on failure; MFA_IMPORT_OPTIONS_INIT
 *   operators' files (issue 45)  CR LF and a byte order mark (a spreadsheet's
 *                "CSV UTF-8"), a file naming no factor, secrets where a uid
 *                goes (never in a report), a NUL or another control character
 *                in a uid read from the text (its line fails; nothing stored),
 *                and the same characters refused by every C call that takes a
 *                uid, a tenant, a display name or an actor
 *
 * The store is a new SQLite file, or the location given as the argument
 * (test_pg_store.h: CTest runs it on the PostgreSQL fixture too).
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"
#include "test_pg_store.h"

/* The RFC 4226 secret "12345678901234567890": base32 and hex. */
#define RFC_BASE32 "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
#define RFC_HEX "3132333435363738393031323334353637383930"
#define ACTOR "migration"

static test_store store;

/* An identifier one byte over the 128 a uid or tenant may have. */
static char long_id[130];

/* ------------------------------------------------------------------ */
/* Recorders                                                            */
/* ------------------------------------------------------------------ */

#define LINES_MAX 64
typedef struct line_report {
    int64_t line;
    char uid[160];
    int32_t outcome;
    char outcome_name[24];
    char reason[400];
    char eid[64];
} line_report;

typedef struct report_log {
    size_t count;
    line_report lines[LINES_MAX];
} report_log;

/* What must never be in a report: the secrets and codes of the texts. */
static const char *const never_reported[] = {RFC_BASE32, "gezdgnbvgy3tqojq", RFC_HEX, "31323334", "12345678",
                                             "87654321", "JBSWY3DPEHPK3PXP"};

static void record_line(void *context, const mfa_import_line *line) {
    report_log *log = context;
    line_report *r;
    CHECK(line != NULL && line->outcome_name != NULL && line->reason != NULL);
    if (!line || !line->outcome_name || !line->reason) return;
    for (size_t i = 0; i < sizeof never_reported / sizeof never_reported[0]; i++) {
        if (contains(line->reason, never_reported[i]) || contains(line->uid, never_reported[i])) {
            fprintf(stderr, "line %lld's report holds %s: %s\n", (long long)line->line, never_reported[i],
                    line->reason);
            CHECK(!"a report holds a secret");
        }
    }
    if (log->count < LINES_MAX) {
        r = &log->lines[log->count];
        r->line = line->line;
        copy_field(r->uid, sizeof r->uid, line->uid);
        r->outcome = line->outcome;
        copy_field(r->outcome_name, sizeof r->outcome_name, line->outcome_name);
        copy_field(r->reason, sizeof r->reason, line->reason);
        copy_field(r->eid, sizeof r->eid, line->enrollment_id);
    }
    log->count++;
}

/* The name each outcome must carry. */
static const char *outcome_name(int32_t outcome) {
    switch (outcome) {
    case MFA_IMPORT_IMPORTED: return "IMPORTED";
    case MFA_IMPORT_ALREADY_IMPORTED: return "ALREADY_IMPORTED";
    case MFA_IMPORT_UNSUPPORTED: return "UNSUPPORTED";
    case MFA_IMPORT_FAILED: return "FAILED";
    case MFA_IMPORT_NOTE: return "NOTE";
    default: return "?";
    }
}

/* Checks the reports' line numbers and outcomes against `expected` ("1:I 4:U 5:F", I A U F N). */
static void check_lines_at(const report_log *log, const char *expected, int line) {
    char got[512] = "";
    for (size_t i = 0; i < log->count && i < LINES_MAX; i++) {
        const line_report *r = &log->lines[i];
        const char *letter = r->outcome == MFA_IMPORT_IMPORTED           ? "I"
                             : r->outcome == MFA_IMPORT_ALREADY_IMPORTED ? "A"
                             : r->outcome == MFA_IMPORT_UNSUPPORTED      ? "U"
                             : r->outcome == MFA_IMPORT_FAILED           ? "F"
                             : r->outcome == MFA_IMPORT_NOTE             ? "N"
                                                                         : "?";
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%lld:%s", i ? " " : "", (long long)r->line, letter);
        CHECK_AT(strcmp(r->outcome_name, outcome_name(r->outcome)) == 0, line);
        CHECK_AT(strlen(r->reason) > 0, line);
    }
    if (strcmp(got, expected) != 0) fprintf(stderr, "%s:%d: reports \"%s\", want \"%s\"\n", TEST_FILE, line, got, expected);
    CHECK_AT(strcmp(got, expected) == 0, line);
}
#define check_lines(log, expected) check_lines_at(log, expected, __LINE__)

typedef struct progress_log {
    size_t calls;
    size_t stop_at; /* stop on this call (from 1); 0: never */
    int64_t done[32];
    int64_t total[32];
} progress_log;

static int record_progress(void *context, int64_t done, int64_t total) {
    progress_log *log = context;
    if (log->calls < 32) {
        log->done[log->calls] = done;
        log->total[log->calls] = total;
    }
    log->calls++;
    return log->stop_at != 0 && log->calls >= log->stop_at;
}

/* Options for ACTOR that record into `reports` (and `progress`, if not NULL). */
static mfa_import_options options_for(report_log *reports, progress_log *progress, const char *tenant) {
    mfa_import_options o = MFA_IMPORT_OPTIONS_INIT;
    o.actor = ACTOR;
    o.tenant = tenant;
    o.report = record_line;
    o.report_context = reports;
    if (progress) {
        o.progress = record_progress;
        o.progress_context = progress;
    }
    if (reports) memset(reports, 0, sizeof *reports);
    return o;
}

static int import_at(mfa_ctx *ctx, mfa_import_summary *summary, int32_t format, const char *text,
                     const mfa_import_options *options, int line) {
    char *err = NULL;
    int status = mfa_import(ctx, summary, format, (const uint8_t *)text, strlen(text), options, &err);
    if (status != MFA_OK) CHECK_AT(err != NULL, line);
    mfa_free(err);
    return status;
}
#define import(ctx, summary, format, text, options) import_at(ctx, summary, format, text, options, __LINE__)

/* The enrollment id of the first report of `uid` ("" if none). */
static const char *eid_of(const report_log *log, const char *uid) {
    for (size_t i = 0; i < log->count && i < LINES_MAX; i++) {
        if (strcmp(log->lines[i].uid, uid) == 0 && strcmp(log->lines[i].eid, "<NULL>") != 0) return log->lines[i].eid;
    }
    return "";
}

/* Signs `user` in with the imported factor `eid` whose base32 key is `key`. */
static void sign_in_at(mfa_ctx *ctx, const mfa_user *user, const char *eid, const char *key, int line) {
    factor f;
    memset(&f, 0, sizeof f);
    snprintf(f.eid, sizeof f.eid, "%s", eid);
    snprintf(f.key, sizeof f.key, "%s", key);
    {
        char cred[TOKEN_MAX];
        char code[MFA_CODE_BUFFER_SIZE];
        CHECK_STATUS_AT(begin_sign_in_at(ctx, user, cred, line), MFA_ERR_SECOND_FACTOR_REQUIRED, line);
        code_at(code, f.key, g_now);
        CHECK_STATUS_AT(resolve_at(ctx, cred, user->tenant, f.eid, code, line), MFA_OK, line);
    }
}

/* Signs `user` in with the HOTP code of `counter` for the RFC secret. */
static int hotp_sign_in_at(mfa_ctx *ctx, const mfa_user *user, const char *eid, uint64_t counter, int32_t digits,
                           int line) {
    static const uint8_t rfc[] = "12345678901234567890";
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    mfa_assertion a = MFA_ASSERTION_INIT;
    mfa_sign_in_result *result = NULL;
    int status;
    CHECK_STATUS_AT(begin_sign_in_at(ctx, user, cred, line), MFA_ERR_SECOND_FACTOR_REQUIRED, line);
    CHECK_STATUS_AT(mfa_hotp_generate(code, sizeof code, rfc, 20, counter, digits, MFA_ALG_SHA1), MFA_OK, line);
    a.kind = MFA_FACTOR_HOTP;
    a.enrollment_id = eid;
    a.code = code;
    status = mfa_resolve(ctx, &result, cred, user->tenant, &a, NULL);
    CHECK_AT((status == MFA_OK) == (result != NULL), line);
    CHECK_AT(!result || result->kind == MFA_FACTOR_HOTP, line);
    mfa_sign_in_result_free(result);
    return status;
}

/* Imports `len` bytes of `text` (NUL bytes included). */
static int import_bytes_at(mfa_ctx *ctx, mfa_import_summary *summary, int32_t format, const char *text, size_t len,
                           const mfa_import_options *options, int line) {
    char *err = NULL;
    int status = mfa_import(ctx, summary, format, (const uint8_t *)text, len, options, &err);
    if (status != MFA_OK) CHECK_AT(err != NULL, line);
    mfa_free(err);
    return status;
}
#define import_bytes(ctx, summary, format, text, options) \
    import_bytes_at(ctx, summary, format, text, sizeof text - 1, options, __LINE__)

static int64_t total_factors(mfa_ctx *ctx) {
    mfa_admin_stats *stats = NULL;
    int64_t total = -1;
    CHECK_STATUS(mfa_admin_stats_get(ctx, &stats, NULL), MFA_OK);
    if (stats) total = stats->total_factors;
    mfa_admin_stats_free(stats);
    return total;
}

/* ------------------------------------------------------------------ */
/* Formats                                                              */
/* ------------------------------------------------------------------ */

static void test_otpauth(mfa_ctx *ctx) {
    static const char text[] =
        "otpauth://totp/ACME:ot-alice?secret=" RFC_BASE32 "&issuer=ACME\n"
        "# a comment\n"
        "\n"
        "otpauth://hotp/ACME:ot-bob?secret=" RFC_BASE32 "&counter=3\n"
        "otpauth://totp/ACME:ot-carol?secret=not*base32\n"
        "https://example.com/\n"
        "otpauth://totp/ACME:ot-dave?secret=JBSWY3DPEHPK3PXP&digits=8&period=60&algorithm=SHA256\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);
    mfa_user user;
    mfa_factor_list *list = NULL;
    size_t mark = g_audit.count;
    char alice_eid[64];
    const audit_record *e;

    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, &o), MFA_OK);
    CHECK(summary.lines == 7 && summary.imported == 3 && summary.unsupported == 0 && summary.failed == 2);
    CHECK(summary.already_imported == 0 && summary.recovery_codes == 0 && !summary.stopped);
    check_lines(&reports, "1:I 4:I 5:F 6:F 7:I");
    CHECK(strcmp(reports.lines[0].uid, "ot-alice") == 0 && strlen(reports.lines[0].eid) == 28);
    CHECK(strcmp(reports.lines[1].uid, "ot-bob") == 0 && contains(reports.lines[1].reason, "HOTP"));
    CHECK(strlen(reports.lines[1].eid) == 28);
    /* The HOTP factor starts at the URI's counter. */
    user_make(&user, "ot-bob", NULL);
    CHECK_STATUS(hotp_sign_in_at(ctx, &user, eid_of(&reports, "ot-bob"), 2, 6, __LINE__),
                 MFA_ERR_INVALID_VERIFICATION_CODE);
    CHECK_STATUS(hotp_sign_in_at(ctx, &user, eid_of(&reports, "ot-bob"), 3, 6, __LINE__), MFA_OK);
    snprintf(alice_eid, sizeof alice_eid, "%s", eid_of(&reports, "ot-alice"));
    /* Audited, with the actor, factor by factor. */
    e = audit_find(mark, MFA_AUDIT_ENROLL, "", "ot-alice", alice_eid, "IMPORTED");
    CHECK(e && strcmp(e->actor, ACTOR) == 0 && strcmp(e->factor_id, "totp") == 0);
    CHECK(audit_count(mark, MFA_AUDIT_ENROLL, "IMPORTED") == 3);
    /* The factor is named after the issuer and signs in. */
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "ot-alice", 0, NULL), MFA_OK);
    CHECK(list && list->count == 1 && strcmp(list->items[0].display_name, "ACME") == 0);
    mfa_factor_list_free(list);
    user_make(&user, "ot-alice", NULL);
    sign_in_at(ctx, &user, alice_eid, RFC_BASE32, __LINE__);

    /* A re-run stores nothing and names the factor found. */
    g_now += 30;
    mark = g_audit.count;
    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, &o), MFA_OK);
    CHECK(summary.imported == 0 && summary.already_imported == 3 && summary.failed == 2 && summary.unsupported == 0);
    check_lines(&reports, "1:A 4:A 5:F 6:F 7:A");
    CHECK(strcmp(reports.lines[0].eid, alice_eid) == 0);
    CHECK(audit_count(mark, MFA_AUDIT_ENROLL, NULL) == 0);
    CHECK(factor_count(ctx, &user) == 1);
}

static void test_users_file(mfa_ctx *ctx) {
    static const char text[] = "# pam_oath users file\n"
                               "HOTP/T30/6 uf-alice - " RFC_HEX "\n"
                               "HOTP/T60/8\tuf-bob\t1234\t" RFC_HEX " 0 755224 2024-01-01T00:00:00L\n"
                               "HOTP uf-carol - " RFC_HEX "\n"
                               "HOTP/E/8 uf-dave - " RFC_HEX "\n"
                               "HOTP/T30 uf-erin - 12345\n"
                               "HOTP/T30 uf-frank\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, "corp");
    mfa_user user;
    size_t mark = g_audit.count;

    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_USERS_FILE, text, &o), MFA_OK);
    CHECK(summary.lines == 7 && summary.imported == 4 && summary.unsupported == 0 && summary.failed == 2);
    check_lines(&reports, "2:I 3:I 4:I 5:I 6:F 7:F");
    CHECK(contains(reports.lines[1].reason, "PIN"));
    CHECK(audit_find(mark, MFA_AUDIT_ENROLL, "corp", "uf-alice", NULL, "IMPORTED") != NULL);
    user_make(&user, "uf-alice", "corp");
    sign_in_at(ctx, &user, eid_of(&reports, "uf-alice"), RFC_BASE32, __LINE__);
    /* HOTP and HOTP/E lines are HOTP factors from counter 0. */
    user_make(&user, "uf-carol", "corp");
    CHECK_STATUS(hotp_sign_in_at(ctx, &user, eid_of(&reports, "uf-carol"), 0, 6, __LINE__), MFA_OK);
    user_make(&user, "uf-dave", "corp");
    CHECK_STATUS(hotp_sign_in_at(ctx, &user, eid_of(&reports, "uf-dave"), 0, 8, __LINE__), MFA_OK);
    /* Not in the project. */
    user_make(&user, "uf-alice", NULL);
    CHECK(factor_count(ctx, &user) == 0);
}

static void test_csv(mfa_ctx *ctx) {
    static const char text[] = "uid,secret,issuer,digits,period,algorithm\n"
                               "csv-alice," RFC_BASE32 ",ACME,,,\n"
                               "\"csv-bob\",\"JBSWY3DPEHPK3PXP\",\"ACME, Inc.\",8,60,SHA256\n"
                               "csv-carol,!!!,ACME,6,30,SHA1\n"
                               "csv-dave," RFC_BASE32 ",ACME,9,30,SHA1\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);
    mfa_factor_list *list = NULL;
    mfa_user user;

    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_CSV, text, &o), MFA_OK);
    CHECK(summary.lines == 5 && summary.imported == 2 && summary.failed == 2);
    check_lines(&reports, "2:I 3:I 4:F 5:F");
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "csv-bob", 0, NULL), MFA_OK);
    CHECK(list && list->count == 1 && strcmp(list->items[0].display_name, "ACME, Inc.") == 0);
    mfa_factor_list_free(list);
    /* bob's factor computes SHA256, 8 digits, 60 s codes. */
    user_make(&user, "csv-bob", NULL);
    {
        char cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
        uint8_t *key = NULL;
        size_t len = 0;
        mfa_totp_params params = MFA_TOTP_PARAMS_INIT;
        params.algorithm = MFA_ALG_SHA256;
        params.digits = 8;
        params.period = 60;
        SIGN_IN_REQUIRED(ctx, &user, cred);
        CHECK_STATUS(mfa_base32_decode(&key, &len, "JBSWY3DPEHPK3PXP"), MFA_OK);
        CHECK_STATUS(mfa_totp_generate(code, sizeof code, key, len, &params, g_now), MFA_OK);
        mfa_free(key);
        CHECK(strlen(code) == 8);
        CHECK_STATUS(resolve(ctx, cred, NULL, eid_of(&reports, "csv-bob"), code), MFA_OK);
    }
}

static void test_google_authenticator(mfa_ctx *ctx) {
    static const char text[] = RFC_BASE32 "\n"
                               "\" RATE_LIMIT 3 30 1700000000\n"
                               "\" WINDOW_SIZE 17\n"
                               "\" TOTP_AUTH\n"
                               "12345678\n"
                               "87654321\n"
                               "1234\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);
    mfa_factor_list *list = NULL;
    mfa_user user;
    char cred[TOKEN_MAX];
    char *err = NULL;
    long remaining = 0;
    size_t mark = g_audit.count;

    CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-alice", (const uint8_t *)text, strlen(text), &o,
                                              &err),
              MFA_OK, err);
    CHECK(summary.imported == 1 && summary.recovery_codes == 2 && summary.failed == 1 && summary.lines == 7);
    check_lines(&reports, "1:I 2:N 3:N 4:N 5:I 6:I 7:F");
    CHECK(strcmp(reports.lines[0].uid, "ga-alice") == 0);
    CHECK(contains(reports.lines[2].reason, "5")); /* WINDOW_SIZE against adjacentIntervals */
    CHECK(audit_count(mark, MFA_AUDIT_ENROLL, "IMPORTED") == 2); /* the factor and the recovery-code set */
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "ga-alice", 0, NULL), MFA_OK);
    CHECK(list && list->count == 2);
    mfa_factor_list_free(list);
    /* A scratch code signs in as a recovery code; the secret as TOTP. */
    user_make(&user, "ga-alice", NULL);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(resolve_code(ctx, cred, NULL, NULL, "8765-4321", &remaining), MFA_OK);
    CHECK(remaining == 1);
    g_now += 30;
    sign_in_at(ctx, &user, eid_of(&reports, "ga-alice"), RFC_BASE32, __LINE__);

    /* A re-run stores nothing; one file is one transaction, with no progress callback. */
    {
        progress_log progress;
        memset(&progress, 0, sizeof progress);
        progress.stop_at = 1;
        o = options_for(&reports, &progress, NULL);
        CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-alice", (const uint8_t *)text, strlen(text),
                                                  &o, &err),
                  MFA_OK, err);
        CHECK(summary.imported == 0 && summary.already_imported >= 1 && summary.recovery_codes == 0);
        CHECK(progress.calls == 0 && !summary.stopped);
    }

    /* An unknown option is named only when it looks like one. Regression (fuzz_import_files,
     * fuzz/corpus/import_files/regress-crash-50067a3701a0): the report quoted the line's text, a secret with it. */
    {
        static const char odd[] = RFC_BASE32 "\n\" TOTP_AUTH\n\" NEW_OPTION 1\n\" " RFC_BASE32 "\n";
        o = options_for(&reports, NULL, NULL);
        CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-carol", (const uint8_t *)odd, strlen(odd), &o,
                                                  &err),
                  MFA_OK, err);
        check_lines(&reports, "1:I 2:N 3:N 4:N");
        CHECK(contains(reports.lines[2].reason, "NEW_OPTION"));
        CHECK(!contains(reports.lines[3].reason, "GEZDGNBV") && contains(reports.lines[3].reason, "option line"));
    }
    /* Without TOTP_AUTH the file is counter-based: HOTP at its HOTP_COUNTER; without that line, refused. */
    {
        static const char hotp[] = RFC_BASE32 "\n\" HOTP_COUNTER 1\n12345678\n";
        static const char uncounted[] = RFC_BASE32 "\n12345678\n";
        o = options_for(&reports, NULL, NULL);
        CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-bob", (const uint8_t *)hotp, strlen(hotp), &o,
                                                  &err),
                  MFA_OK, err);
        CHECK(summary.imported == 1 && summary.recovery_codes == 1 && summary.unsupported == 0);
        user_make(&user, "ga-bob", NULL);
        CHECK(factor_count(ctx, &user) == 2);
        CHECK_STATUS(hotp_sign_in_at(ctx, &user, eid_of(&reports, "ga-bob"), 1, 6, __LINE__), MFA_OK);
        o = options_for(&reports, NULL, NULL);
        CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-eve", (const uint8_t *)uncounted,
                                                  strlen(uncounted), &o, &err),
                  MFA_OK, err);
        CHECK(summary.imported == 0 && summary.failed == 2);
        CHECK(reports.count >= 1 && contains(reports.lines[0].reason, "HOTP_COUNTER"));
        user_make(&user, "ga-eve", NULL);
        CHECK(factor_count(ctx, &user) == 0);
    }
    /* An empty file is one failed line. */
    o = options_for(&reports, NULL, NULL);
    CHECK_ERR(mfa_import_google_authenticator(ctx, &summary, "ga-bob", NULL, 0, &o, &err), MFA_OK, err);
    CHECK(summary.failed == 1 && summary.imported == 0);
    /* Regression (fuzz_import_files, fuzz/corpus/import_files/regress-crash-da39a3ee5e6b): line 1 was
     * reported failed while the summary said 0 lines were read. */
    CHECK(summary.lines == 1 && reports.count == 1 && reports.lines[0].line == 1);
    CHECK_STATUS(mfa_import_google_authenticator(ctx, &summary, NULL, (const uint8_t *)text, strlen(text), &o, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_import_google_authenticator(ctx, &summary, "", (const uint8_t *)text, strlen(text), &o, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ */
/* Batches, progress, limits                                            */
/* ------------------------------------------------------------------ */

static void test_batches(mfa_ctx *ctx) {
    static const char text[] = "otpauth://totp/b-u1?secret=JBSWY3DPEHPK3PXA\n"
                               "otpauth://totp/b-u2?secret=JBSWY3DPEHPK3PXB\n"
                               "otpauth://totp/b-u3?secret=JBSWY3DPEHPK3PXC\n"
                               "otpauth://totp/b-u4?secret=JBSWY3DPEHPK3PXD\n"
                               "otpauth://totp/b-u5?secret=JBSWY3DPEHPK3PXE\n"
                               "otpauth://totp/b-u6?secret=JBSWY3DPEHPK3PXF\n";
    report_log reports;
    progress_log progress;
    mfa_import_summary summary;
    mfa_import_options o;

    /* Stopped after the first batch of two: those two are stored. */
    memset(&progress, 0, sizeof progress);
    progress.stop_at = 1;
    o = options_for(&reports, &progress, "batch");
    o.batch_size = 2;
    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, &o), MFA_OK);
    CHECK(summary.stopped && summary.imported == 2 && summary.lines == 6);
    CHECK(progress.calls == 1 && progress.done[0] == 2 && progress.total[0] == 6);
    check_lines(&reports, "1:I 2:I");

    /* The re-run goes on: the first two found, the rest stored, progress after each batch. */
    memset(&progress, 0, sizeof progress);
    o = options_for(&reports, &progress, "batch");
    o.batch_size = 4;
    CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, &o), MFA_OK);
    CHECK(!summary.stopped && summary.imported == 4 && summary.already_imported == 2);
    check_lines(&reports, "1:A 2:A 3:I 4:I 5:I 6:I");
    CHECK(progress.calls == 2 && progress.done[0] == 4 && progress.done[1] == 6 && progress.total[1] == 6);

    /* The factor limit refuses a line; the batch goes on. */
    {
        static const char two[] = "otpauth://totp/b-u1?secret=JBSWY3DPEHPK3PXZ\n"
                                  "otpauth://totp/b-u7?secret=JBSWY3DPEHPK3PXZ\n";
        set_config(ctx, "batch", "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},"
                                 "\"limits\":{\"maxFactors\":1}}");
        o = options_for(&reports, NULL, "batch");
        CHECK_STATUS(import(ctx, &summary, MFA_IMPORT_OTPAUTH, two, &o), MFA_OK);
        CHECK(summary.failed == 1 && summary.imported == 1);
        check_lines(&reports, "1:F 2:I");
        CHECK(contains(reports.lines[0].reason, "1"));
    }
}

/* ------------------------------------------------------------------ */
/* Bad input                                                            */
/* ------------------------------------------------------------------ */

static void test_options_init(void) {
    mfa_import_options a, b = MFA_IMPORT_OPTIONS_INIT;
    memset(&a, 0xAB, sizeof a);
    CHECK_STATUS(mfa_import_options_init(&a, MFA_IMPORT_OPTIONS_VERSION), MFA_OK);
    CHECK(a.version == MFA_IMPORT_OPTIONS_VERSION && b.version == MFA_IMPORT_OPTIONS_VERSION);
    CHECK(a.actor == NULL && a.tenant == NULL && a.report == NULL && a.progress == NULL);
    CHECK(a.report_context == NULL && a.progress_context == NULL);
    CHECK(a.batch_size == MFA_IMPORT_BATCH_DEFAULT && b.batch_size == MFA_IMPORT_BATCH_DEFAULT);
    CHECK_STATUS(mfa_import_options_init(&a, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_import_options_init(&a, MFA_IMPORT_OPTIONS_VERSION + 1), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_import_options_init(NULL, MFA_IMPORT_OPTIONS_VERSION), MFA_ERR_INVALID_ARGUMENT);
}

static void test_bad_input(mfa_ctx *ctx) {
    static const char line[] = "otpauth://totp/bad-u?secret=" RFC_BASE32 "\n";
    const uint8_t *text = (const uint8_t *)line;
    size_t len = strlen(line);
    char long_actor[MFA_ACTOR_MAX_BYTES + 2];
    mfa_import_summary summary;
    mfa_import_options o = options_for(NULL, NULL, NULL);
    mfa_import_options bad;
    mfa_user user;
    size_t mark = g_audit.count;
    const int32_t formats[] = {0, 5, -1, 100};

#define REFUSED(call)                                            \
    do {                                                         \
        memset(&summary, 0xFF, sizeof summary);                  \
        CHECK_STATUS(call, MFA_ERR_INVALID_ARGUMENT);            \
        CHECK(summary.lines == 0 && summary.imported == 0 && !summary.stopped); \
    } while (0)

    o.report = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        REFUSED(mfa_import(ctx, &summary, formats[i], text, len, &o, NULL));
    }
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, NULL, len, &o, NULL));
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, (const uint8_t *)"otpauth\xff\n", 8, &o, NULL));
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, (size_t)MFA_IMPORT_MAX_BYTES + 1, &o, NULL));
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, SIZE_MAX, &o, NULL));
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, NULL, NULL));
    REFUSED(mfa_import(NULL, &summary, MFA_IMPORT_OTPAUTH, text, len, &o, NULL));
    CHECK_STATUS(mfa_import(ctx, NULL, MFA_IMPORT_OTPAUTH, text, len, &o, NULL), MFA_ERR_INVALID_ARGUMENT);
    memset(long_actor, 'a', sizeof long_actor - 1);
    long_actor[sizeof long_actor - 1] = '\0';
    {
        const char *actors[] = {NULL, "", long_actor, "\xc0\x80"};
        for (size_t i = 0; i < sizeof actors / sizeof actors[0]; i++) {
            bad = o;
            bad.actor = actors[i];
            REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
            REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
        }
    }
    {
        const int32_t sizes[] = {0, -1, MFA_IMPORT_BATCH_MAX + 1, INT32_MIN};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            bad = o;
            bad.batch_size = sizes[i];
            REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
            REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
        }
        bad = o;
        bad.batch_size = MFA_IMPORT_BATCH_MAX; /* the largest is fine; nothing to store below, the text is empty */
        CHECK_STATUS(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, NULL, 0, &bad, NULL), MFA_OK);
        /* An empty text names no factor: one FAILED line, never a quiet success. */
        CHECK(summary.lines == 1 && summary.failed == 1 && summary.imported == 0);
    }
    bad = o;
    bad.tenant = "";
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    bad.tenant = "\xff";
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
    bad.tenant = long_id;
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
    bad = o;
    bad.version = 0;
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
    bad.version = MFA_IMPORT_OPTIONS_VERSION + 1;
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, &bad, NULL));
    bad.version = UINT32_MAX;
    REFUSED(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, text, len, &bad, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, len, NULL, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", NULL, 3, &o, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", (const uint8_t *)"GEZD\xff\n", 5, &o, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u", text, (size_t)MFA_IMPORT_MAX_BYTES + 1, &o, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, "bad-u\xff", text, len, &o, NULL));
    REFUSED(mfa_import_google_authenticator(ctx, &summary, long_id, text, len, &o, NULL));
    REFUSED(mfa_import_google_authenticator(NULL, &summary, "bad-u", text, len, &o, NULL));
    CHECK_STATUS(mfa_import_google_authenticator(ctx, NULL, "bad-u", text, len, &o, NULL), MFA_ERR_INVALID_ARGUMENT);
    user_make(&user, "bad-u", NULL);
    CHECK(factor_count(ctx, &user) == 0);
    CHECK(g_audit.count == mark);
#undef REFUSED

    /* A NUL byte is text like any other: the line is malformed, the next one imported. */
    {
        static const char with_nul[] = "otpauth://totp/nul-u?secret=GEZDGNBV\0GY3TQOJQGEZDGNBVGY3TQOJQ\n"
                                       "otpauth://totp/nul-v?secret=" RFC_BASE32 "\n";
        report_log reports;
        o = options_for(&reports, NULL, NULL);
        CHECK_STATUS(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, (const uint8_t *)with_nul, sizeof with_nul - 1,
                                &o, NULL),
                     MFA_OK);
        CHECK(summary.lines == 2 && summary.imported == 1 && summary.failed == 1);
        check_lines(&reports, "1:F 2:I");
    }
}

/* ------------------------------------------------------------------ */
/* Operators' files and names (issue 45)                                */
/* ------------------------------------------------------------------ */

/* Item 2 and 3: a CSV as a spreadsheet saves it (CR LF, a byte order mark) imports every line;
 * a file that names no factor is a FAILED line, never a quiet MFA_OK with nothing imported. */
static void test_crlf_bom(mfa_ctx *ctx) {
    static const char excel[] = "\xEF\xBB\xBFuid,secret,issuer\r\n"
                                "crlf-alice," RFC_BASE32 ",\"ACME, Inc.\"\r\n"
                                "crlf-bob," RFC_BASE32 ",\r\n";
    static const char header_only[] = "uid,secret,issuer\r\n";
    static const char old_mac[] = "# exported\rHOTP/T30 crlf-carol - " RFC_HEX "\rHOTP/T30 crlf-dave - " RFC_HEX;
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);
    mfa_factor_list *list = NULL;

    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_CSV, excel, &o), MFA_OK);
    CHECK(summary.lines == 3 && summary.imported == 2 && summary.failed == 0);
    check_lines(&reports, "2:I 3:I");
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "crlf-alice", 0, NULL), MFA_OK);
    CHECK(list && list->count == 1 && strcmp(list->items[0].display_name, "ACME, Inc.") == 0);
    mfa_factor_list_free(list);

    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_CSV, header_only, &o), MFA_OK);
    CHECK(summary.imported == 0 && summary.failed == 1);
    check_lines(&reports, "1:F");

    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_USERS_FILE, old_mac, &o), MFA_OK);
    CHECK(summary.lines == 3 && summary.imported == 2 && summary.failed == 0);
}

/* Item 4: a secret where the uid goes is never a report's uid (nor in its reason: record_line checks
 * both against never_reported); a plain uid still is. */
static void test_report_uid_secret(mfa_ctx *ctx) {
    static const char csv[] = RFC_BASE32 ",uid-alice\n" RFC_BASE32 "\nuid-bob;" RFC_BASE32 ";ACME\n"
                              "uid-carol,!!!\n";
    static const char users[] = "HOTP/T30 " RFC_HEX "\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);

    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_CSV, csv, &o), MFA_OK);
    CHECK(summary.failed == 4 && summary.imported == 0);
    check_lines(&reports, "1:F 2:F 3:F 4:F");
    CHECK(strcmp(reports.lines[0].uid, "<NULL>") == 0 && strcmp(reports.lines[1].uid, "<NULL>") == 0 &&
          strcmp(reports.lines[2].uid, "<NULL>") == 0 && strcmp(reports.lines[3].uid, "uid-carol") == 0);
    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_USERS_FILE, users, &o), MFA_OK);
    check_lines(&reports, "1:F");
    CHECK(strcmp(reports.lines[0].uid, "<NULL>") == 0);
}

/* Item 5: `ali\0ce` in a file (C would see "ali") and other control characters fail their line;
 * nothing is stored under any part of the name. */
static void test_control_char_import(mfa_ctx *ctx) {
    static const char csv[] = "ali\0ce," RFC_BASE32 "\n\"cc-bob\x1b[0m\"," RFC_BASE32 "\ncc-carol," RFC_BASE32
                              ",\"\xe2\x80\xae" "ACME\"\n";
    static const char users[] = "HOTP/T30 ali\0ce - " RFC_HEX "\nHOTP/T30 cc-dave\xc2\x85 - " RFC_HEX "\n";
    static const char uris[] = "otpauth://totp/ali%00ce?secret=" RFC_BASE32 "\n"
                               "otpauth://totp/cc-erin%0A?secret=" RFC_BASE32 "\n";
    report_log reports;
    mfa_import_summary summary;
    mfa_import_options o = options_for(&reports, NULL, NULL);
    mfa_factor_list *list = NULL;
    int64_t before = total_factors(ctx);

    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_CSV, csv, &o), MFA_OK);
    CHECK(summary.failed == 3 && summary.imported == 0);
    check_lines(&reports, "1:F 2:F 3:F");
    CHECK(contains(reports.lines[0].reason, "control character") && contains(reports.lines[2].reason, "issuer"));
    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_USERS_FILE, users, &o), MFA_OK);
    CHECK(summary.failed == 2 && summary.imported == 0);
    o = options_for(&reports, NULL, NULL);
    CHECK_STATUS(import_bytes(ctx, &summary, MFA_IMPORT_OTPAUTH, uris, &o), MFA_OK);
    CHECK(summary.failed == 2 && summary.imported == 0);
    CHECK(total_factors(ctx) == before);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "ali", 0, NULL), MFA_OK);
    CHECK(list && list->count == 0);
    mfa_factor_list_free(list);
}

/* Item 5: every C call that takes a uid, a tenant, a display name or an actor refuses a control
 * character with MFA_ERR_INVALID_ARGUMENT and a message naming the field. */
static void test_control_char_c_api(mfa_ctx *ctx) {
    static const char *const bad[] = {"ali\x01" "ce", "ali\nce", "ali\x1b[31mce", "ali\x7f", "ali\xc2\x85" "ce",
                                      "ali\xe2\x80\xa8" "ce", "\xe2\x80\xae" "ecila", "\xe2\x81\xa6x",
                                      "\xef\xbb\xbf" "alice"};
    mfa_user user;
    mfa_resolver *resolver = NULL;
    mfa_factor_list *list = NULL;
    mfa_import_summary summary;
    mfa_import_options o;
    factor f;
    char *err = NULL;

    user_make(&user, "cc-frank", NULL);
    ENROLL_OK(ctx, &user, "phone", &f);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        user_make(&user, bad[i], NULL);
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(resolver == NULL && contains(err, "uid holds a control character"));
        mfa_free(err);
        err = NULL;
        user_make(&user, "cc-frank", bad[i]);
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "tenant holds a control character"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_config_set_json(ctx, bad[i], ENABLE_TOTP, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "tenant holds"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, bad[i], &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "uid holds"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, bad[i], 0, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(list == NULL && contains(err, "uid holds"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_admin_rename(ctx, NULL, f.eid, bad[i], ACTOR, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "display name holds"));
        mfa_free(err);
        err = NULL;
        CHECK_STATUS(mfa_admin_rename(ctx, NULL, f.eid, "work", bad[i], &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "actor holds"));
        mfa_free(err);
        err = NULL;
        o = options_for(NULL, NULL, bad[i]);
        o.report = NULL;
        CHECK_STATUS(mfa_import(ctx, &summary, MFA_IMPORT_CSV, (const uint8_t *)"", 0, &o, &err),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "tenant holds"));
        mfa_free(err);
        err = NULL;
        o = options_for(NULL, NULL, NULL);
        o.report = NULL;
        CHECK_STATUS(mfa_import_google_authenticator(ctx, &summary, bad[i], (const uint8_t *)RFC_BASE32,
                                                     strlen(RFC_BASE32), &o, &err),
                     MFA_ERR_INVALID_ARGUMENT);
        CHECK(contains(err, "uid holds"));
        mfa_free(err);
        err = NULL;
    }
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "cc-frank", 0, NULL), MFA_OK);
    CHECK(list && list->count == 1 && strcmp(list->items[0].display_name, "phone") == 0);
    mfa_factor_list_free(list);
}

int main(int argc, char **argv) {
    mfa_options options;
    mfa_ctx *ctx;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-imports") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    memset(long_id, 'i', sizeof long_id - 1);
    test_options_init();
    fixture_options(&options, store.location);
    ctx = open_with(&options);
    if (ctx) {
        set_config(ctx, NULL, ALL_KINDS_ON);
        set_config(ctx, "corp", ENABLE_TOTP);
        test_otpauth(ctx);
        test_users_file(ctx);
        test_csv(ctx);
        test_google_authenticator(ctx);
        test_batches(ctx);
        test_bad_input(ctx);
        test_crlf_bom(ctx);
        test_report_uid_secret(ctx);
        test_control_char_import(ctx);
        test_control_char_c_api(ctx);
        /* No audit event of the imports holds a secret or a scratch code either. */
        for (size_t i = 0; i < g_audit.count && i < AUDIT_MAX; i++) {
            const audit_record *r = &g_audit.events[i];
            for (size_t k = 0; k < sizeof never_reported / sizeof never_reported[0]; k++) {
                CHECK(!contains(r->detail, never_reported[k]) && !contains(r->uid, never_reported[k]));
            }
        }
    }
    mfa_close(ctx);
    test_store_remove(&store);
    return engine_report();
}
