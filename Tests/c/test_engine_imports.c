/*
 * Imports through the C ABI: TOTP factors a user already has elsewhere,
 * from a raw secret (mfa_totp_import) or an otpauth URI
 * (mfa_totp_import_uri), without a code.
 *
 *   secret          default parameters, or SHA256 / 8 digits / 60 s: the
 *                   factor is listed, audited (ENROLL, detail IMPORTED), signs
 *                   in with the app's code, and revokes no credential
 *   URI             issuer, algorithm, digits and period are taken from it
 *   refusals        secret lengths outside 10..128, T0 not 0, parameters out of
 *                   range, an HOTP URI (INVALID_ARGUMENT), a malformed URI
 *                   (INVALID_URI), NULLs, an overlong name; the factor limit
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

/* The RFC 4226 secret, "12345678901234567890", and its base32. */
static const uint8_t SECRET[20] = {'1', '2', '3', '4', '5', '6', '7', '8', '9', '0',
                                   '1', '2', '3', '4', '5', '6', '7', '8', '9', '0'};
#define SECRET_BASE32 "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

/* Signs `user` in with factor `eid`, the code computed from the raw secret with `params`. */
static int sign_in_imported_at(mfa_ctx *ctx, const mfa_user *user, const char *eid, const mfa_totp_params *params,
                               int line) {
    char cred[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];
    int status = begin_sign_in_at(ctx, user, cred, line);
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) return status;
    CHECK_STATUS_AT(mfa_totp_generate(code, sizeof code, SECRET, sizeof SECRET, params, g_now), MFA_OK, line);
    return resolve_at(ctx, cred, user->tenant, eid, code, line);
}
#define sign_in_imported(ctx, user, eid, params) sign_in_imported_at(ctx, user, eid, params, __LINE__)

static void test_import_secret(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    mfa_factor_info *info = NULL;
    mfa_totp_params params;
    char *err = NULL;
    char eid[64] = "", eid2[64] = "";
    const audit_record *e;

    reset_recorders();
    user_make(&user, "import-user", NULL);
    CHECK_ERR(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, NULL, "old app", &err), MFA_OK, err);
    CHECK(info != NULL);
    if (info) {
        CHECK(info->uid && strlen(info->uid) == 28);
        CHECK(info->factor_id && strcmp(info->factor_id, "totp") == 0);
        CHECK(info->kind == MFA_FACTOR_TOTP && info->remaining_codes == -1);
        CHECK(info->hint && strcmp(info->hint, "authenticator app") == 0);
        CHECK(info->display_name && strcmp(info->display_name, "old app") == 0);
        CHECK(info->enrollment_time == g_now);
        snprintf(eid, sizeof eid, "%s", info->uid);
    }
    mfa_factor_info_free(info);
    info = NULL;
    e = audit_find(0, MFA_AUDIT_ENROLL, "", "import-user", eid, "IMPORTED");
    CHECK(e != NULL && strcmp(e->factor_id, "totp") == 0);
    /* An import is administrative: the user's credentials are not revoked. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, "import-user", g_now - 60), MFA_OK);
    CHECK(factor_count(ctx, &user) == 1);
    g_now += 30;
    CHECK_STATUS(sign_in_imported(ctx, &user, eid, NULL), MFA_OK);

    /* Other parameters: SHA256, 8 digits, 60 s. */
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.algorithm = MFA_ALG_SHA256;
    params.digits = 8;
    params.period = 60;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL), MFA_OK);
    if (info) snprintf(eid2, sizeof eid2, "%s", info->uid);
    CHECK(info && info->display_name == NULL);
    mfa_factor_info_free(info);
    info = NULL;
    g_now += 60;
    CHECK_STATUS(sign_in_imported(ctx, &user, eid2, &params), MFA_OK);
    /* ... and a code of the default parameters does not open it. */
    g_now += 60;
    CHECK_STATUS(sign_in_imported(ctx, &user, eid2, NULL), MFA_ERR_INVALID_VERIFICATION_CODE);
    mfa_close(ctx);
}

static void test_import_uri(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user;
    mfa_factor_info *info = NULL;
    mfa_totp_params params = MFA_TOTP_PARAMS_INIT;
    char *err = NULL;
    char eid[64] = "";

    user_make(&user, "import-uri-user", NULL);
    CHECK_ERR(mfa_totp_import_uri(ctx, &info, &user, "otpauth://totp/ACME%20Co:alice%40example.com?secret="
                                  SECRET_BASE32 "&issuer=ACME%20Co&algorithm=SHA512&digits=7&period=45",
                                  "from the URI", &err), MFA_OK, err);
    CHECK(info && info->display_name && strcmp(info->display_name, "from the URI") == 0);
    if (info) snprintf(eid, sizeof eid, "%s", info->uid);
    mfa_factor_info_free(info);
    info = NULL;
    params.algorithm = MFA_ALG_SHA512;
    params.digits = 7;
    params.period = 45;
    g_now += 45;
    CHECK_STATUS(sign_in_imported(ctx, &user, eid, &params), MFA_OK);
    /* Lower-case base32 and no issuer are fine too. */
    CHECK_STATUS(mfa_totp_import_uri(ctx, &info, &user, "otpauth://totp/bob?secret=gezdgnbvgy3tqojqgezdgnbvgy3tqojq",
                                     NULL, NULL), MFA_OK);
    mfa_factor_info_free(info);
    info = NULL;
    CHECK(factor_count(ctx, &user) == 2);
    mfa_close(ctx);
}

static void test_import_refusals(void) {
    mfa_ctx *ctx = open_project();
    mfa_user user, bad;
    mfa_factor_info *info = (mfa_factor_info *)&info;
    mfa_totp_params params;
    uint8_t big[129];
    char long_name[300];
    const char *bad_uris[] = {"", "otpauth://totp/", ("https://example.com/?secret=" SECRET_BASE32),
                              "otpauth://totp/a?secret=not*base32", "otpauth://totp/a", "not a uri",
                              /* a NUL in the label (fuzz_key_uri regress-crash-0e75dd17e77b) */
                              ("otpauth://totp/%00a?secret=" SECRET_BASE32)};

    memset(big, 7, sizeof big);
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    user_make(&user, "import-refused", NULL);
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, 9, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, big, 129, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, big, 128, NULL, NULL, NULL), MFA_OK); /* the longest */
    mfa_factor_info_free(info);
    info = NULL;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, 10, NULL, NULL, NULL), MFA_OK); /* the shortest */
    mfa_factor_info_free(info);
    info = NULL;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, NULL, 20, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, NULL, long_name, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import(NULL, &info, &user, SECRET, sizeof SECRET, NULL, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import(ctx, NULL, &user, SECRET, sizeof SECRET, NULL, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import(ctx, &info, NULL, SECRET, sizeof SECRET, NULL, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.uid = NULL;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &bad, SECRET, sizeof SECRET, NULL, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.tenant = "";
    CHECK_STATUS(mfa_totp_import(ctx, &info, &bad, SECRET, sizeof SECRET, NULL, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    /* Parameters: T0 must be 0; digits, period and algorithm in range; a known version. */
    CHECK_STATUS(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), MFA_OK);
    params.t0 = 30;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    params.t0 = 0;
    params.digits = 5;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    params.digits = 6;
    params.period = 0;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    params.period = 30;
    params.algorithm = 4;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    params.algorithm = MFA_ALG_SHA1;
    params.version = 0;
    CHECK_STATUS(mfa_totp_import(ctx, &info, &user, SECRET, sizeof SECRET, &params, NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);
    /* URIs: HOTP is not a TOTP factor; malformed ones are INVALID_URI; a short secret. */
    CHECK_STATUS(mfa_totp_import_uri(ctx, &info, &user, "otpauth://hotp/a?secret=" SECRET_BASE32 "&counter=0", NULL,
                                     NULL), MFA_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof bad_uris / sizeof bad_uris[0]; i++) {
        int status = mfa_totp_import_uri(ctx, &info, &user, bad_uris[i], NULL, NULL);
        if (status != MFA_ERR_INVALID_URI) fprintf(stderr, "URI \"%s\" gave %s\n", bad_uris[i], mfa_status_name(status));
        CHECK(status == MFA_ERR_INVALID_URI);
    }
    CHECK_STATUS(mfa_totp_import_uri(ctx, &info, &user, "otpauth://totp/a?secret=GEZDGNBV", NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT); /* 5 bytes */
    CHECK_STATUS(mfa_totp_import_uri(ctx, &info, &user, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_import_uri(ctx, &info, &user, "otpauth://totp/a?secret=" SECRET_BASE32 "\xff", NULL, NULL),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);
    CHECK(factor_count(ctx, &user) == 2);

    /* Imports count toward the factor limit. */
    set_config(ctx, "tenant-two", "{\"limits\":{\"maxFactors\":2}}");
    user_make(&bad, "import-limit", "tenant-two");
    for (int i = 0; i < 3; i++) {
        info = NULL;
        CHECK_STATUS(mfa_totp_import(ctx, &info, &bad, SECRET, sizeof SECRET, NULL, NULL, NULL),
                     i < 2 ? MFA_OK : MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED);
        CHECK((info != NULL) == (i < 2));
        mfa_factor_info_free(info);
    }
    mfa_close(ctx);
}

int main(void) {
    test_import_secret();
    test_import_uri();
    test_import_refusals();
    return engine_report();
}
