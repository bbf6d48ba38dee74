/*
 * The metrics through the C ABI (mfa_metrics_snapshot, mfa_metrics_prometheus,
 * mfa_options version 3):
 *
 *   counts       a TOTP and an SMS journey counted by kind and outcome, the
 *                sign-in histogram's buckets cumulative and ending at +Inf,
 *                the same values in Prometheus' text
 *   tenants      MFA_METRICS_BY_TENANT with a bound of 1: one tenant labelled,
 *                the next under tenant="(other)"; MFA_METRICS_OFF: nothing
 *   old structs  an mfa_options of version 2 (garbage after its fields) opens
 *                with metrics on
 *   bad input    NULL context or out, a metrics value no MFA_METRICS_* has, a
 *                tenant bound of 0 or past MFA_METRICS_TENANTS_MAX: each
 *                MFA_ERR_INVALID_ARGUMENT
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>

#include "test_engine_fixture.h"

/* Whether series `s` has exactly the labels of `want` ("name=value" pairs, NULL-terminated). */
static int labels_are(const mfa_metric_sample *s, const char *const *want) {
    size_t n = 0;
    for (; want[n]; n++) {
        size_t i;
        for (i = 0; i < s->label_count; i++) {
            size_t len = strlen(s->labels[i].name);
            if (strncmp(want[n], s->labels[i].name, len) == 0 && want[n][len] == '=' &&
                strcmp(want[n] + len + 1, s->labels[i].value) == 0) break;
        }
        if (i == s->label_count) return 0;
    }
    return n == s->label_count;
}

/* The series of family `name` with the labels `want`, or NULL. */
static const mfa_metric_sample *series(const mfa_metrics *m, const char *name, const char *const *want) {
    for (size_t f = 0; f < m->family_count; f++) {
        if (strcmp(m->families[f].name, name) != 0) continue;
        for (size_t i = 0; i < m->families[f].sample_count; i++) {
            if (labels_are(&m->families[f].samples[i], want)) return &m->families[f].samples[i];
        }
    }
    return NULL;
}

/* The value of that series, or -1 if there is none. */
static long long value_of(const mfa_metrics *m, const char *name, const char *const *want) {
    const mfa_metric_sample *s = series(m, name, want);
    return s ? (long long)s->value : -1;
}

static mfa_metrics *snapshot(mfa_ctx *ctx) {
    mfa_metrics *m = NULL;
    char *err = NULL;
    CHECK_STATUS(mfa_metrics_snapshot(ctx, &m, &err), MFA_OK);
    CHECK(m != NULL && err == NULL);
    return m;
}

static char *prometheus(mfa_ctx *ctx) {
    char *text = NULL;
    CHECK_STATUS(mfa_metrics_prometheus(ctx, &text, NULL), MFA_OK);
    CHECK(text != NULL);
    return text;
}

static void test_counts(void) {
    mfa_ctx *ctx = open_engine(PHONE_TOTP_ON);
    mfa_user user;
    factor f;
    char eid[64], cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    mfa_metrics *m;
    char *text;
    user_make(&user, "metrics-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    for (int i = 0; i < 3; i++) {
        g_now += 30;
        SIGN_IN_OK(ctx, &user, &f);
    }
    for (int i = 0; i < 2; i++) {
        SIGN_IN_REQUIRED(ctx, &user, cred);
        wrong_totp_code(code, f.key, g_now);
        CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, code), MFA_ERR_INVALID_VERIFICATION_CODE);
    }
    ENROLL_PHONE_OK(ctx, &user, "+15105550191", NULL, eid);
    CHECK_STATUS(sign_in_phone(ctx, &user, eid, "+15105550191"), MFA_OK);

    m = snapshot(ctx);
    if (m) {
        const char *const totp_ok[] = {"kind=totp", "outcome=success", NULL};
        const char *const totp_wrong[] = {"kind=totp", "outcome=wrong_code", NULL};
        const char *const phone_ok[] = {"kind=phone", "outcome=success", NULL};
        const char *const totp[] = {"kind=totp", NULL};
        const char *const enrolled[] = {"kind=phone", "outcome=success", NULL};
        const char *const sms_sent[] = {"channel=sms", "purpose=sign_in", "outcome=sent", NULL};
        const char *const required[] = {"outcome=second_factor_required", NULL};
        const mfa_metric_sample *h = series(m, "libmfa_sign_in_duration_seconds", totp);
        CHECK(m->family_count >= 10);
        CHECK(value_of(m, "libmfa_sign_ins_total", totp_ok) == 3);
        CHECK(value_of(m, "libmfa_sign_ins_total", totp_wrong) == 2);
        CHECK(value_of(m, "libmfa_sign_ins_total", phone_ok) == 1);
        CHECK(value_of(m, "libmfa_enrollments_total", enrolled) == 1);
        CHECK(value_of(m, "libmfa_code_sends_total", sms_sent) == 1);
        CHECK(value_of(m, "libmfa_sign_in_starts_total", required) == 6);
        CHECK(h != NULL);
        if (h) {
            CHECK(h->value == 5 && h->bucket_count >= 2 && h->sum > 0);
            for (size_t i = 1; i < h->bucket_count; i++) {
                CHECK(h->buckets[i].upper_bound > h->buckets[i - 1].upper_bound);
                CHECK(h->buckets[i].count >= h->buckets[i - 1].count);
            }
            CHECK(isinf(h->buckets[h->bucket_count - 1].upper_bound) && h->buckets[h->bucket_count - 1].count == 5);
        }
        for (size_t i = 0; i < m->family_count; i++) {
            const mfa_metric_family *family = &m->families[i];
            size_t len = strlen(family->name);
            CHECK(strncmp(family->name, "libmfa_", 7) == 0 && family->help && family->help[0]);
            CHECK(family->type == MFA_METRIC_COUNTER ? strcmp(family->name + len - 6, "_total") == 0
                                                      : family->type == MFA_METRIC_HISTOGRAM &&
                                                            strcmp(family->name + len - 8, "_seconds") == 0);
        }
    }
    mfa_metrics_free(m);
    text = prometheus(ctx);
    if (text) {
        CHECK(strncmp(text, "# HELP libmfa_", 14) == 0);
        CHECK(contains(text, "\n# TYPE libmfa_sign_ins_total counter\n"));
        CHECK(contains(text, "\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"success\"} 3\n"));
        CHECK(contains(text, "\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"wrong_code\"} 2\n"));
        CHECK(contains(text, "\n# TYPE libmfa_sign_in_duration_seconds histogram\n"));
        CHECK(contains(text, "\nlibmfa_sign_in_duration_seconds_bucket{kind=\"totp\",le=\"+Inf\"} 5\n"));
        CHECK(contains(text, "\nlibmfa_sign_in_duration_seconds_count{kind=\"totp\"} 5\n"));
        CHECK(!contains(text, "+15105550191") && !contains(text, "metrics-user"));
    }
    mfa_free(text);
    mfa_close(ctx);
}

static void test_tenants_and_off(void) {
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    char cred[TOKEN_MAX];
    mfa_metrics *m;
    char *text;
    fixture_options(&options, ":memory:");
    options.metrics = MFA_METRICS_BY_TENANT;
    options.metrics_tenants = 1;
    ctx = open_with(&options);
    set_config(ctx, NULL, ENABLE_TOTP);
    user_make(&user, "u", "tenant-a");
    CHECK_STATUS(begin_sign_in(ctx, &user, cred), MFA_OK);
    user_make(&user, "u", "tenant-b");
    CHECK_STATUS(begin_sign_in(ctx, &user, cred), MFA_OK);
    CHECK_STATUS(begin_sign_in(ctx, &user, cred), MFA_OK);
    m = snapshot(ctx);
    if (m) {
        const char *const a[] = {"outcome=signed_in", "tenant=tenant-a", NULL};
        const char *const b[] = {"outcome=signed_in", "tenant=tenant-b", NULL};
        const char *const other[] = {"outcome=signed_in", "tenant=(other)", NULL};
        const char *const project[] = {"outcome=signed_in", "tenant=", NULL};
        CHECK(value_of(m, "libmfa_sign_in_starts_total", a) == 1);
        CHECK(value_of(m, "libmfa_sign_in_starts_total", b) == -1);
        CHECK(value_of(m, "libmfa_sign_in_starts_total", other) == 2);
        CHECK(value_of(m, "libmfa_sign_in_starts_total", project) == 0);
    }
    mfa_metrics_free(m);
    mfa_close(ctx);

    fixture_options(&options, ":memory:");
    options.metrics = MFA_METRICS_OFF;
    ctx = open_with(&options);
    set_config(ctx, NULL, ENABLE_TOTP);
    CHECK_STATUS(begin_sign_in(ctx, &user, cred), MFA_OK);
    m = snapshot(ctx);
    CHECK(m && m->family_count == 0);
    mfa_metrics_free(m);
    text = prometheus(ctx);
    CHECK(text && text[0] == '\0');
    mfa_free(text);
    mfa_close(ctx);
}

static void test_version_2_options(void) {
    mfa_options options;
    mfa_ctx *ctx;
    mfa_metrics *m;
    memset(&options, 0xab, sizeof options);
    CHECK_STATUS(mfa_options_init(&options, 2), MFA_OK);
    CHECK(options.metrics != MFA_METRICS_ON);  /* not written: version 2 has no such field */
    options.store = ":memory:";
    options.master_key.id = "k1";
    options.master_key.key = K1;
    ctx = open_with(&options);
    m = snapshot(ctx);
    CHECK(m && m->family_count >= 10);
    mfa_metrics_free(m);
    mfa_close(ctx);
    CHECK_STATUS(mfa_options_init(&options, MFA_OPTIONS_VERSION), MFA_OK);
    CHECK(options.metrics == MFA_METRICS_ON && options.metrics_tenants == MFA_METRICS_TENANTS_DEFAULT);
    {
        mfa_options init = MFA_OPTIONS_INIT;
        CHECK(init.metrics == MFA_METRICS_ON && init.metrics_tenants == MFA_METRICS_TENANTS_DEFAULT);
    }
}

static void test_bad_input(void) {
    mfa_options options;
    mfa_ctx *ctx = open_project();
    mfa_ctx *none = NULL;
    mfa_metrics sentinel_m;
    mfa_metrics *m = &sentinel_m;
    char sentinel_c = 0;
    char *text = &sentinel_c;
    char *err = NULL;
    static const int32_t bad_values[] = {-1, 3, 1000};
    static const uint32_t bad_tenants[] = {0, MFA_METRICS_TENANTS_MAX + 1, 0xffffffffu};

    CHECK_ERR(mfa_metrics_snapshot(NULL, &m, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK(m == &sentinel_m);  /* a NULL context is refused before out is touched */
    CHECK_ERR(mfa_metrics_snapshot(ctx, NULL, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_metrics_prometheus(NULL, &text, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_metrics_prometheus(ctx, NULL, &err), MFA_ERR_INVALID_ARGUMENT, err);
    mfa_metrics_free(NULL);
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        fixture_options(&options, ":memory:");
        options.metrics = bad_values[i];
        CHECK_ERR(mfa_open(&none, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(none == NULL);
    }
    for (size_t i = 0; i < sizeof bad_tenants / sizeof bad_tenants[0]; i++) {
        fixture_options(&options, ":memory:");
        options.metrics = MFA_METRICS_BY_TENANT;
        options.metrics_tenants = bad_tenants[i];
        CHECK_ERR(mfa_open(&none, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(none == NULL);
    }
    /* The bound is read only with MFA_METRICS_BY_TENANT. */
    fixture_options(&options, ":memory:");
    options.metrics_tenants = 0;
    none = open_with(&options);
    mfa_close(none);
    mfa_close(ctx);
}

int main(void) {
    test_counts();
    test_tenants_and_off();
    test_version_2_options();
    test_bad_input();
    return engine_report();
}
