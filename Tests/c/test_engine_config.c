/*
 * Flow 1 through the C ABI: the project's and the tenants' configuration
 * (mfa_config_set_json, mfa_config_update_json, mfa_config_get_json).
 *
 *   defaults        MFA and every provider disabled, +/-5 steps, the limits
 *   tenants         a tenant overrides the project field by field; an
 *                   unconfigured tenant is the project; later project
 *                   changes show through
 *   rejections      INVALID_ARGUMENT naming the field: ranges, test numbers,
 *                   unknown fields at every level, malformed JSON, enum
 *                   values, bad tenants and NULLs; nothing rejected is stored
 *   shapes          integers as strings, the guides' multiFactorConfig and mfa
 *   update          mfa_config_update_json merges what it names, and changes
 *                   nothing when it is refused
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void expect_config_rejected_at(mfa_ctx *ctx, const char *tenant, const char *json, const char *field,
                                      int line) {
    char *err = NULL;
    int status = mfa_config_set_json(ctx, tenant, json, &err);
    if (status != MFA_ERR_INVALID_ARGUMENT) {
        fprintf(stderr, "%s:%d: config %s gave %s, want INVALID_ARGUMENT\n", __FILE__, line, json,
                mfa_status_name(status));
    }
    CHECK_AT(status == MFA_ERR_INVALID_ARGUMENT, line);
    CHECK_AT(err != NULL, line);
    if (field && !contains(err, field)) {
        fprintf(stderr, "%s:%d: config %s: message \"%s\" does not name \"%s\"\n", __FILE__, line, json,
                err ? err : "(null)", field);
        CHECK_AT(contains(err, field), line);
    }
    mfa_free(err);
}
#define expect_config_rejected(ctx, tenant, json, field) expect_config_rejected_at(ctx, tenant, json, field, __LINE__)

static char *config_json_at(mfa_ctx *ctx, const char *tenant, int line) {
    char *out = NULL;
    char *err = NULL;
    int status = mfa_config_get_json(ctx, &out, tenant, &err);
    CHECK_AT(status == MFA_OK && out != NULL, line);
    mfa_free(err);
    return out;
}
#define config_json(ctx, tenant) config_json_at(ctx, tenant, __LINE__)

/* `count` test numbers as a testPhoneNumbers document, into `big`. */
static void test_numbers_json(char *big, size_t size, int count) {
    size_t used = (size_t)snprintf(big, size, "{\"testPhoneNumbers\":{");
    for (int i = 0; i < count; i++) {
        used += (size_t)snprintf(big + used, size - used, "%s\"+1555555%04d\":\"%06d\"", i ? "," : "", 100 + i,
                                 111111 + i);
    }
    snprintf(big + used, size - used, "}}");
}

static void test_defaults_and_tenants(mfa_ctx *ctx) {
    char *json;
    char *project_before;

    /* Defaults: MFA disabled, both providers disabled, +/-5 steps. */
    json = config_json(ctx, NULL);
    CHECK(contains(json, "\"state\":\"DISABLED\""));
    CHECK(contains(json, "\"totp\":\"DISABLED\""));
    CHECK(contains(json, "\"phone\":\"DISABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":5"));
    CHECK(contains(json, "\"backoffMax\":900"));
    CHECK(contains(json, "\"failureMemory\":3600"));
    /* ... and what issue 9 added: the recovery provider, its section, the new limits. */
    CHECK(contains(json, "\"recovery\":"));
    CHECK(contains(json, "\"recoveryCodes\""));
    CHECK(contains(json, "\"smsPerFactorHour\":5"));
    CHECK(contains(json, "\"smsPerFactorDay\":10"));
    CHECK(contains(json, "\"clockSkew\":300"));
    mfa_free(json);

    set_config(ctx, NULL,
               "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"totp\":{\"adjacentIntervals\":3},"
               "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    json = config_json(ctx, NULL);
    CHECK(contains(json, "\"state\":\"ENABLED\""));
    CHECK(contains(json, "\"totp\":\"ENABLED\""));
    CHECK(contains(json, "\"phone\":\"DISABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":3"));
    CHECK(contains(json, "\"+15555550100\":\"123456\""));
    mfa_free(json);

    /* A tenant overrides the project field by field. */
    set_config(ctx, "tenant-a", "{\"totp\":{\"adjacentIntervals\":7},\"providers\":{\"phone\":\"ENABLED\"}}");
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"state\":\"ENABLED\""));    /* from the project */
    CHECK(contains(json, "\"totp\":\"ENABLED\""));     /* from the project's providers */
    CHECK(contains(json, "\"phone\":\"ENABLED\""));    /* the tenant's */
    CHECK(contains(json, "\"adjacentIntervals\":7"));  /* the tenant's */
    CHECK(contains(json, "\"+15555550100\":\"123456\"")); /* from the project */
    mfa_free(json);
    set_config(ctx, "tenant-b", "{\"state\":\"MANDATORY\",\"limits\":{\"maxFactors\":2}}");
    json = config_json(ctx, "tenant-b");
    CHECK(contains(json, "\"state\":\"MANDATORY\""));
    CHECK(contains(json, "\"maxFactors\":2"));
    CHECK(contains(json, "\"adjacentIntervals\":3"));
    mfa_free(json);
    /* The project is unchanged by its tenants; an unconfigured tenant is the project. */
    project_before = config_json(ctx, NULL);
    CHECK(contains(project_before, "\"adjacentIntervals\":3"));
    CHECK(contains(project_before, "\"phone\":\"DISABLED\""));
    CHECK(contains(project_before, "\"maxFactors\":5"));
    json = config_json(ctx, "tenant-unset");
    CHECK(json && project_before && strcmp(json, project_before) == 0);
    mfa_free(json);
    mfa_free(project_before);
    /* A later project change shows through a tenant that does not set the field. */
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"totp\":{\"adjacentIntervals\":4},"
                          "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    json = config_json(ctx, "tenant-b");
    CHECK(contains(json, "\"adjacentIntervals\":4"));
    mfa_free(json);
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"adjacentIntervals\":7"));
    mfa_free(json);
}

static void test_rejections(mfa_ctx *ctx) {
    char *json;
    char *project_before = config_json(ctx, NULL);
    char big[1024];

    /* Rejections: INVALID_ARGUMENT, naming the field. */
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":-1}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":11}}", "adjacentIntervals");
    expect_config_rejected(ctx, "tenant-a", "{\"totp\":{\"adjacentIntervals\":11}}", "adjacentIntervals");
    /* Integers may be strings now (as the REST API writes them), but they are still integers in range. */
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":\"five\"}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":\"11\"}}", "adjacentIntervals");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"adjacentIntervals\":2.5}}", "adjacentIntervals");
    /* 10 test numbers are fine, 11 are not. */
    test_numbers_json(big, sizeof big, 10);
    set_config(ctx, "tenant-ten", big);
    test_numbers_json(big, sizeof big, 11);
    expect_config_rejected(ctx, NULL, big, "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"12345\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"1234567\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"12a456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":123456}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+15555550100\":\"\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"15555550100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+1 555 555 0100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":{\"+1-555-555-0100\":\"123456\"}}", "testPhoneNumbers");
    expect_config_rejected(ctx, NULL, "{\"testPhoneNumbers\":[\"+15555550100\"]}", "testPhoneNumbers");
    /* Unknown fields, at every level. */
    expect_config_rejected(ctx, NULL, "{\"stat\":\"ENABLED\"}", "stat");
    expect_config_rejected(ctx, NULL, "{\"providers\":{\"sms\":\"ENABLED\"}}", "sms");
    expect_config_rejected(ctx, NULL, "{\"totp\":{\"window\":3}}", "window");
    expect_config_rejected(ctx, NULL, "{\"limits\":{\"bogusLimit\":3}}", "bogusLimit");
    expect_config_rejected(ctx, "tenant-a", "{\"extra\":true}", "extra");
    /* Malformed JSON. */
    expect_config_rejected(ctx, NULL, "{", NULL);
    expect_config_rejected(ctx, NULL, "", NULL);
    expect_config_rejected(ctx, NULL, "not json", NULL);
    expect_config_rejected(ctx, NULL, "{\"state\":\"ENABLED\",}", NULL);
    expect_config_rejected(ctx, NULL, "{\"state\":\"ENABLED\"} trailing", NULL);
    expect_config_rejected(ctx, NULL, "[]", NULL);
    /* Enum values. */
    expect_config_rejected(ctx, NULL, "{\"state\":\"ON\"}", "state");
    expect_config_rejected(ctx, NULL, "{\"state\":true}", "state");
    expect_config_rejected(ctx, NULL, "{\"providers\":{\"totp\":\"ON\"}}", "totp");
    /* Limits out of range. */
    expect_config_rejected(ctx, NULL, "{\"limits\":{\"maxFactors\":0}}", "maxFactors");
    expect_config_rejected(ctx, NULL, "{\"limits\":{\"clockSkew\":3601}}", "clockSkew");
    expect_config_rejected(ctx, NULL, "{\"recoveryCodes\":{\"count\":7}}", "count");
    expect_config_rejected(ctx, NULL, "{\"recoveryCodes\":{\"count\":17}}", "count");
    /* Bad tenants and NULLs. */
    CHECK_STATUS(mfa_config_set_json(ctx, "", ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(ctx, "\xff\xfe", ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_set_json(NULL, NULL, ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(NULL, &json, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_update_json(ctx, "", ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_update_json(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_update_json(NULL, NULL, ENABLE_TOTP, NULL), MFA_ERR_INVALID_ARGUMENT);

    /* Nothing rejected was stored. */
    json = config_json(ctx, NULL);
    CHECK(json && project_before && strcmp(json, project_before) == 0);
    mfa_free(json);
    mfa_free(project_before);
    json = config_json(ctx, "tenant-a");
    CHECK(contains(json, "\"adjacentIntervals\":7"));
    mfa_free(json);
}

/* Integers as strings, and the shapes the guides write (a behaviour of issue 8). */
static void test_shapes(mfa_ctx *ctx) {
    char *json;
    set_config(ctx, "tenant-strings", "{\"totp\":{\"adjacentIntervals\":\"5\"},\"limits\":{\"maxFactors\":\"3\"}}");
    json = config_json(ctx, "tenant-strings");
    CHECK(contains(json, "\"adjacentIntervals\":5"));
    CHECK(contains(json, "\"maxFactors\":3"));
    mfa_free(json);
    /* The Admin SDK's multiFactorConfig: a provider config turns TOTP (and MFA) on. */
    set_config(ctx, "tenant-admin", "{\"multiFactorConfig\":{\"factorIds\":[\"phone\"],\"providerConfigs\":"
                                    "[{\"state\":\"ENABLED\",\"totpProviderConfig\":{\"adjacentIntervals\":2}}]}}");
    json = config_json(ctx, "tenant-admin");
    CHECK(contains(json, "\"state\":\"ENABLED\""));
    CHECK(contains(json, "\"phone\":\"ENABLED\""));
    CHECK(contains(json, "\"totp\":\"ENABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":2"));
    mfa_free(json);
    /* The REST API's mfa, with MANDATORY and PHONE_SMS. */
    set_config(ctx, "tenant-rest", "{\"mfa\":{\"state\":\"MANDATORY\",\"enabledProviders\":[\"PHONE_SMS\"]}}");
    json = config_json(ctx, "tenant-rest");
    CHECK(contains(json, "\"state\":\"MANDATORY\""));
    CHECK(contains(json, "\"phone\":\"ENABLED\""));
    mfa_free(json);
    expect_config_rejected(ctx, "tenant-rest", "{\"mfa\":{\"state\":\"ON\"}}", "state");
    expect_config_rejected(ctx, "tenant-rest", "{\"mfa\":{\"colour\":1}}", "colour");
}

/* mfa_config_update_json changes only what it names; a refused update changes nothing. */
static void test_update(mfa_ctx *ctx) {
    char *json;
    char *before;
    char *err = NULL;
    set_config(ctx, "tenant-u", "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},"
                                "\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}");
    CHECK_ERR(mfa_config_update_json(ctx, "tenant-u", "{\"totp\":{\"adjacentIntervals\":2}}", &err), MFA_OK, err);
    json = config_json(ctx, "tenant-u");
    CHECK(contains(json, "\"state\":\"ENABLED\""));
    CHECK(contains(json, "\"totp\":\"ENABLED\""));
    CHECK(contains(json, "\"adjacentIntervals\":2"));
    CHECK(contains(json, "\"+15555550100\":\"123456\""));
    mfa_free(json);
    CHECK_ERR(mfa_config_update_json(ctx, "tenant-u", "{\"providers\":{\"phone\":\"ENABLED\"}}", &err), MFA_OK, err);
    json = config_json(ctx, "tenant-u");
    CHECK(contains(json, "\"phone\":\"ENABLED\"") && contains(json, "\"totp\":\"ENABLED\""));
    mfa_free(json);
    /* testPhoneNumbers is replaced whole. */
    CHECK_ERR(mfa_config_update_json(ctx, "tenant-u", "{\"testPhoneNumbers\":{\"+15555550101\":\"654321\"}}", &err),
              MFA_OK, err);
    json = config_json(ctx, "tenant-u");
    CHECK(contains(json, "\"+15555550101\":\"654321\"") && !contains(json, "+15555550100"));
    CHECK(contains(json, "\"adjacentIntervals\":2"));
    mfa_free(json);
    /* Refused: the message names the field, and nothing changed. */
    before = config_json(ctx, "tenant-u");
    CHECK_STATUS(mfa_config_update_json(ctx, "tenant-u", "{\"totp\":{\"adjacentIntervals\":3},\"limits\":"
                                                         "{\"maxFactors\":0}}", &err), MFA_ERR_INVALID_ARGUMENT);
    CHECK(contains(err, "maxFactors"));
    mfa_free(err);
    err = NULL;
    json = config_json(ctx, "tenant-u");
    CHECK(json && before && strcmp(json, before) == 0);
    mfa_free(json);
    mfa_free(before);
    /* set replaces the whole document: what it does not name takes its default. */
    set_config(ctx, "tenant-u", "{\"providers\":{\"phone\":\"ENABLED\"}}");
    json = config_json(ctx, "tenant-u");
    CHECK(contains(json, "\"adjacentIntervals\":4")); /* the project's again */
    CHECK(!contains(json, "+15555550101"));
    mfa_free(json);
}

int main(void) {
    mfa_options options;
    mfa_ctx *ctx;
    test_options(&options, ":memory:", &g_now);
    ctx = open_with(&options);
    test_defaults_and_tenants(ctx);
    test_rejections(ctx);
    test_shapes(ctx);
    test_update(ctx);
    mfa_close(ctx);
    return engine_report();
}
