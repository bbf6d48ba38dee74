/*
 * The JSON configuration (mfa_config_set_json, mfa_config_get_json): what an
 * operator or an admin API hands to libmfa.
 *
 * The input is a project document, optionally followed by a NUL byte and a
 * tenant document. Each is set (a rejected one leaves "{}"); then the
 * effective configuration of the project and of the tenant must hold only
 * known fields, each within its documented range; the tenant's must be
 * accepted back as it was written: set as another tenant's document, it
 * reads back unchanged.
 *
 * The ranges below are those of include/mfa.h, Sources/MFA/Config and each
 * factor kind's section (the kinds under Sources/MFA/Factors): a new field fails
 * every run until it is added here with its range.
 */
#include "fuzz_support.h"

#include <errno.h>

typedef struct limit_range {
    const char *name;
    long long min, max;
} limit_range;

static const limit_range LIMITS[] = {
    {"sessionLifetime", 10, 86400},       {"pendingCredentialLifetime", 10, 86400},
    {"enrollmentDeadline", 10, 86400},    {"recentLoginMaxAge", 1, 86400 * 30},
    {"maxFactors", 1, 10},                {"freeAttempts", 1, 100},
    {"backoffBase", 1, 3600},             {"backoffMax", 1, 86400},
    {"failureMemory", 60, 86400 * 30},    {"smsCodeLifetime", 30, 3600},
    {"smsMaxAttempts", 1, 10},            {"smsResendCooldown", 0, 3600},
    {"smsPerNumberHour", 1, 1000000},     {"smsPerNumberDay", 1, 1000000},
    {"smsPerUserHour", 1, 1000000},       {"smsPerUserDay", 1, 1000000},
    {"smsPerTenantHour", 1, 100000000},   {"smsPerTenantDay", 1, 100000000},
    {"smsPerFactorHour", 1, 1000000},     {"smsPerFactorDay", 1, 1000000},
    {"clockSkew", 0, 3600},
};

/* The numbers of the email section (Sources/MFA/Factors/Email/EmailSettings.swift). */
static const limit_range EMAIL[] = {
    {"codeLifetime", 60, 3600},        {"maxAttempts", 1, 10},           {"resendCooldown", 0, 3600},
    {"perAddressHour", 1, 1000000},    {"perAddressDay", 1, 1000000},    {"perUserHour", 1, 1000000},
    {"perUserDay", 1, 1000000},        {"perTenantHour", 1, 100000000},  {"perTenantDay", 1, 100000000},
    {"perFactorHour", 1, 1000000},     {"perFactorDay", 1, 1000000},
};

/* What one check of an effective configuration has seen. */
typedef struct seen {
    const char *json; /* the whole document, for messages */
    int test_numbers;
    int limits;
} seen;

static int is_one_of(const char *value, size_t len, const char *const *allowed) {
    for (; *allowed; allowed++) {
        if (strlen(*allowed) == len && memcmp(value, *allowed, len) == 0) return 1;
    }
    return 0;
}

static long long integer(const char *value, size_t len, int kind, const char *path, const seen *s) {
    char digits[32];
    char *end = NULL;
    long long number;
    FUZZ_CHECK(kind == 'n' && len > 0 && len < sizeof digits, "%s is not an integer in %s", path, s->json);
    memcpy(digits, value, len);
    digits[len] = '\0';
    errno = 0;
    number = strtoll(digits, &end, 10);
    FUZZ_CHECK(errno == 0 && *end == '\0', "%s is %s in %s", path, digits, s->json);
    return number;
}

/* One scalar of the effective configuration, at `path` ("limits.maxFactors"). */
static void check_field(const char *path, int kind, const char *value, size_t len, seen *s) {
    static const char *const states[] = {"DISABLED", "ENABLED", "MANDATORY", NULL};
    static const char *const switches[] = {"ENABLED", "DISABLED", NULL};
    static const char *const policies[] = {"REQUIRED", "DISABLED", NULL};
    static const char *const preferences[] = {"required", "preferred", "discouraged", NULL};
    static const char *const conveyances[] = {"none", "indirect", "direct", "enterprise", NULL};
    if (strcmp(path, "state") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, states), "state out of range in %s", s->json);
    } else if (strcmp(path, "providers.totp") == 0 || strcmp(path, "providers.phone") == 0 ||
               strcmp(path, "providers.recovery") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, switches), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "phone.appVerification") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, policies), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "providers.hotp") == 0 || strcmp(path, "providers.yubico_otp") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, switches), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "hotp.lookAhead") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 0 && n <= 10, "hotp.lookAhead %lld in %s", n, s->json);
    } else if (strcmp(path, "hotp.resyncWindow") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 2 && n <= 10000, "hotp.resyncWindow %lld in %s", n, s->json);
    } else if (strcmp(path, "providers.webauthn") == 0 || strcmp(path, "providers.email") == 0 ||
               strcmp(path, "rememberedDevices.state") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, switches), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "webauthn.rpId") == 0) {
        size_t i;
        if (kind != 's') {
            FUZZ_CHECK(len == 4 && memcmp(value, "null", 4) == 0, "webauthn.rpId is %.*s in %s", (int)len, value,
                       s->json);
        } else {
            FUZZ_CHECK(len >= 1 && len <= 253, "webauthn.rpId of %zu bytes in %s", len, s->json);
            for (i = 0; i < len; i++) {
                FUZZ_CHECK((value[i] >= 'a' && value[i] <= 'z') || (value[i] >= '0' && value[i] <= '9') ||
                               value[i] == '-' || value[i] == '.',
                           "webauthn.rpId is not a lower-case domain in %s", s->json);
            }
        }
    } else if (strcmp(path, "webauthn.rpName") == 0) {
        FUZZ_CHECK(kind == 's', "webauthn.rpName is not a string in %s", s->json);
    } else if (strcmp(path, "webauthn.userVerification") == 0 || strcmp(path, "webauthn.residentKey") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, preferences), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "webauthn.attestation") == 0) {
        FUZZ_CHECK(kind == 's' && is_one_of(value, len, conveyances), "%s out of range in %s", path, s->json);
    } else if (strcmp(path, "webauthn.timeout") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 10000 && n <= 600000, "webauthn.timeout %lld in %s", n, s->json);
    } else if (strcmp(path, "webauthn.origins[]") == 0) {
        static const char *const prefixes[] = {"https://", "http://localhost", "android:apk-key-hash:", NULL};
        const char *const *prefix;
        FUZZ_CHECK(kind == 's', "an origin that is not a string in %s", s->json);
        for (prefix = prefixes; *prefix; prefix++) {
            /* "http://localhost" may stand alone; the others need a host or a hash after them. */
            size_t n = strlen(*prefix);
            if ((len > n || (len == n && prefix == prefixes + 1)) && strncmp(value, *prefix, n) == 0) break;
        }
        FUZZ_CHECK(*prefix != NULL, "the origin %.*s in %s", (int)len, value, s->json);
        /* A browser never writes the scheme's default port: such an origin is refused (issue 45). */
        FUZZ_CHECK(!(prefix == prefixes && len >= 4 && memcmp(value + len - 4, ":443", 4) == 0) &&
                       !(prefix == prefixes + 1 && len >= 3 && memcmp(value + len - 3, ":80", 3) == 0),
                   "an origin with its default port in %s", s->json);
    } else if (strcmp(path, "webauthn.attestationRoots[]") == 0) {
        static const char pem[] = "-----BEGIN CERTIFICATE-----", end[] = "-----END CERTIFICATE-----";
        char *copy;
        FUZZ_CHECK(kind == 's' && len > sizeof pem - 1 && strncmp(value, pem, sizeof pem - 1) == 0,
                   "an attestation root that is not PEM in %s", s->json);
        copy = fuzz_string((const uint8_t *)value + sizeof pem - 1, len - (sizeof pem - 1));
        FUZZ_CHECK(strstr(copy, end) != NULL, "an attestation root without its end line in %s", s->json);
        free(copy);
    } else if (strcmp(path, "email.enrollVerifiedSignInEmail") == 0 || strcmp(path, "rememberedDevices.sliding") == 0 ||
               strcmp(path, "webauthn.passkeySignIn") == 0 || strcmp(path, "auditTrail.store") == 0) {
        FUZZ_CHECK(kind == '?' && ((len == 4 && memcmp(value, "true", 4) == 0) ||
                                   (len == 5 && memcmp(value, "false", 5) == 0)),
                   "%s is not a boolean in %s", path, s->json);
    } else if (strncmp(path, "email.", 6) == 0) {
        long long n = integer(value, len, kind, path, s);
        size_t i;
        for (i = 0; i < sizeof EMAIL / sizeof EMAIL[0]; i++) {
            if (strcmp(path + 6, EMAIL[i].name) == 0) break;
        }
        FUZZ_CHECK(i < sizeof EMAIL / sizeof EMAIL[0], "unknown field %s: add its range here (%s)", path, s->json);
        FUZZ_CHECK(n >= EMAIL[i].min && n <= EMAIL[i].max, "%s is %lld in %s", path, n, s->json);
    } else if (strcmp(path, "auditTrail.retentionDays") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 0 && n <= 36500, "auditTrail.retentionDays %lld in %s", n, s->json);
    } else if (strcmp(path, "auditTrail.maxEvents") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 0 && n <= 1000000000000LL, "auditTrail.maxEvents %lld in %s", n, s->json);
    } else if (strcmp(path, "rememberedDevices.days") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 1 && n <= 90, "rememberedDevices.days %lld in %s", n, s->json);
    } else if (strcmp(path, "rememberedDevices.maxPerUser") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 1 && n <= 100, "rememberedDevices.maxPerUser %lld in %s", n, s->json);
    } else if (strcmp(path, "recoveryCodes.count") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 8 && n <= 16, "recoveryCodes.count %lld in %s", n, s->json);
    } else if (strcmp(path, "totp.adjacentIntervals") == 0) {
        long long n = integer(value, len, kind, path, s);
        FUZZ_CHECK(n >= 0 && n <= 10, "adjacentIntervals %lld in %s", n, s->json);
    } else if (strncmp(path, "testPhoneNumbers.", 17) == 0) {
        size_t i;
        s->test_numbers++;
        FUZZ_CHECK(fuzz_is_e164(path + 17), "test number \"%s\" is not E.164 in %s", path + 17, s->json);
        FUZZ_CHECK(kind == 's' && len == 6, "the code of %s is not six digits in %s", path + 17, s->json);
        for (i = 0; i < len; i++) FUZZ_CHECK(value[i] >= '0' && value[i] <= '9', "a test code in %s", s->json);
    } else if (strncmp(path, "limits.", 7) == 0) {
        long long n = integer(value, len, kind, path, s);
        size_t i;
        for (i = 0; i < sizeof LIMITS / sizeof LIMITS[0]; i++) {
            if (strcmp(path + 7, LIMITS[i].name) == 0) break;
        }
        FUZZ_CHECK(i < sizeof LIMITS / sizeof LIMITS[0], "unknown limit %s: add its range here (%s)", path, s->json);
        FUZZ_CHECK(n >= LIMITS[i].min && n <= LIMITS[i].max, "%s is %lld in %s", path, n, s->json);
        s->limits++;
    } else {
        fuzz_fail(__FILE__, __LINE__, "unknown field %s: add its range here (%s)", path, s->json);
    }
}

/* A small JSON walker for libmfa's own output: calls check_field for every scalar. */
static const char *walk(const char *at, char *path, size_t path_len, seen *s);

static const char *space(const char *at) {
    while (*at == ' ' || *at == '\n' || *at == '\r' || *at == '\t') at++;
    return at;
}

static const char *walk_string(const char *at, const char **start, size_t *len) {
    at = space(at);
    FUZZ_CHECK(*at == '"', "a string expected at \"%.20s\"", at);
    *start = ++at;
    while (*at && *at != '"') at += *at == '\\' && at[1] ? 2 : 1;
    FUZZ_CHECK(*at == '"', "an unterminated string");
    *len = (size_t)(at - *start);
    return space(at + 1);
}

static const char *walk(const char *at, char *path, size_t path_len, seen *s) {
    const char *start;
    size_t len;
    at = space(at);
    if (*at == '{') {
        at = space(at + 1);
        while (*at != '}') {
            at = walk_string(at, &start, &len);
            FUZZ_CHECK(*at == ':', "':' expected in %s", s->json);
            FUZZ_CHECK(path_len + len + 2 < 512, "a path too long in %s", s->json);
            snprintf(path + path_len, 512 - path_len, "%s%.*s", path_len ? "." : "", (int)len, start);
            at = walk(at + 1, path, strlen(path), s);
            path[path_len] = '\0';
            if (*at == ',') at = space(at + 1);
            else FUZZ_CHECK(*at == '}', "',' or '}' expected in %s", s->json);
        }
        return space(at + 1);
    }
    if (*at == '[') {
        /* The arrays of the configuration (webauthn.origins, webauthn.attestationRoots): their items
         * are checked at "PATH[]", their counts against the documented maxima. */
        int count = 0;
        long long max = strcmp(path, "webauthn.origins") == 0           ? 16
                        : strcmp(path, "webauthn.attestationRoots") == 0 ? 32
                                                                         : -1;
        FUZZ_CHECK(max > 0, "an unknown array %s in %s: add its range here", path, s->json);
        FUZZ_CHECK(path_len + 3 < 512, "a path too long in %s", s->json);
        strcat(path, "[]");
        at = space(at + 1);
        while (*at != ']') {
            at = walk(at, path, path_len + 2, s);
            count++;
            if (*at == ',') at = space(at + 1);
            else FUZZ_CHECK(*at == ']', "',' or ']' expected in %s", s->json);
        }
        path[path_len] = '\0';
        FUZZ_CHECK(count <= max, "%d items in %s in %s", count, path, s->json);
        return space(at + 1);
    }
    if (*at == '"') {
        at = walk_string(at, &start, &len);
        check_field(path, 's', start, len, s);
        return at;
    }
    start = at;
    while (*at && strchr(",}] \n\r\t", *at) == NULL) at++;
    check_field(path, strchr("-0123456789", *start) && *start ? 'n' : '?', start, (size_t)(at - start), s);
    return space(at);
}

/* The effective configuration of `tenant`: in range, and (if `round_trip`) accepted back unchanged. */
static void check_effective(mfa_ctx *ctx, const char *tenant, int round_trip) {
    char *json = NULL, *again = NULL, *err = NULL, path[512] = "";
    seen s = {NULL, 0, 0};
    int status = mfa_config_get_json(ctx, &json, tenant, &err);
    FUZZ_CHECK(status == MFA_OK, "mfa_config_get_json(%s): %s %s", tenant ? tenant : "project",
               mfa_status_name(status), err ? err : "");
    s.json = json;
    FUZZ_CHECK(*walk(json, path, 0, &s) == '\0', "trailing text in %s", json);
    FUZZ_CHECK(s.test_numbers <= 10, "%d test numbers in %s", s.test_numbers, json);
    FUZZ_CHECK(s.limits == (int)(sizeof LIMITS / sizeof LIMITS[0]), "limits missing in %s", json);

    if (round_trip) {
        /* auditTrail is the project's alone: a tenant's document leaves it out, and the tenant's
         * effective configuration shows the project's again. */
        char *doc = fuzz_string((const uint8_t *)json, strlen(json)), *trail = strstr(doc, ",\"auditTrail\":{");
        if (trail) {
            char *close = strchr(trail, '}');
            FUZZ_CHECK(close != NULL, "auditTrail without its end in %s", json);
            memmove(trail, close + 1, strlen(close + 1) + 1);
        }
        status = mfa_config_set_json(ctx, "roundtrip", doc, &err);
        free(doc);
        FUZZ_CHECK(status == MFA_OK, "the effective configuration %s is refused: %s", json, err ? err : "");
        FUZZ_CHECK(mfa_config_get_json(ctx, &again, "roundtrip", NULL) == MFA_OK && strcmp(json, again) == 0,
                   "%s set again reads back as %s", json, again ? again : "(failed)");
        mfa_free(again);
    }
    mfa_free(json);
}

/* Sets a document; a refused one must say why and leaves "{}". `*stored` says whether a document
 * other than "{}" is stored for `tenant` (kept between runs, so that "{}" is not written again). */
static void set_document(mfa_ctx *ctx, const char *tenant, const char *json, int *stored) {
    char *err = NULL;
    int status = mfa_config_set_json(ctx, tenant, json, &err);
    FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_ARGUMENT, "mfa_config_set_json gave %s",
               mfa_status_name(status));
    FUZZ_CHECK((status == MFA_OK) == (err == NULL), "%s with message %s", mfa_status_name(status), err ? err : "");
    mfa_free(err);
    if (status == MFA_OK) {
        *stored = strcmp(json, "{}") != 0;
    } else if (*stored) {
        fuzz_setup_check(mfa_config_set_json(ctx, tenant, "{}", NULL), "reset", NULL);
        *stored = 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    /* Whether a document is stored for the project and the tenant; whether the defaults were checked. */
    static int project_stored, tenant_stored, defaults_checked;
    fuzz_reader in = {data, size};
    char *project = fuzz_take_line(&in, 0), *tenant = in.size ? fuzz_take_line(&in, 0) : NULL;
    if (!ctx) {
        mfa_options options = fuzz_options();
        ctx = fuzz_open(&options, NULL);
    }
    set_document(ctx, NULL, project, &project_stored);
    set_document(ctx, "t1", tenant ? tenant : "{}", &tenant_stored);
    /* Both refused (most mutations are not JSON): the defaults, already checked once, are in effect. */
    if (project_stored || tenant_stored || !defaults_checked) {
        check_effective(ctx, NULL, 0);
        check_effective(ctx, "t1", 1); /* the tenant's is the project's with the tenant's laid over it */
        defaults_checked |= !project_stored && !tenant_stored;
    }
    free(project);
    free(tenant);
    return 0;
}
