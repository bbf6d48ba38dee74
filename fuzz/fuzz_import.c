/*
 * Importers: mfa_totp_import_uri, which brings in a TOTP factor from an
 * otpauth:// URI of another system (today's only import format; each new
 * importer gets a target like this one).
 *
 * Invariants: a URI is imported exactly when mfa_key_uri_parse accepts it,
 * it is a TOTP URI and its secret is 10 to 128 bytes; otherwise the status
 * says why (INVALID_URI for what does not parse, INVALID_ARGUMENT for the
 * rest). An imported factor works with the parameters the URI gave: the
 * user signs in with the code an app that scanned the URI would show.
 * Each input uses a new user; the store is renewed now and then.
 */
#include "fuzz_support.h"

static mfa_ctx *open_store(void) {
    mfa_options options = fuzz_options();
    return fuzz_open(&options, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}");
}

/* The user signs in with the imported factor, using the code the URI's parameters give now. */
static void check_sign_in(mfa_ctx *ctx, const mfa_user *user, const mfa_factor_info *info, const mfa_key_uri *uri,
                          const char *text) {
    mfa_totp_params params;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    char code[MFA_CODE_BUFFER_SIZE], *err = NULL;
    int status;
    fuzz_setup_check(mfa_totp_params_init(&params, MFA_TOTP_PARAMS_VERSION), "mfa_totp_params_init", NULL);
    params.algorithm = uri->algorithm;
    params.digits = uri->digits;
    params.period = uri->period;
    FUZZ_CHECK(mfa_totp_generate(code, sizeof code, uri->secret, uri->secret_len, &params, fuzz_now) == MFA_OK,
               "no code for %s", text);
    status = mfa_sign_in(ctx, &resolver, user, NULL);
    FUZZ_CHECK(status == MFA_ERR_SECOND_FACTOR_REQUIRED && resolver && resolver->hint_count == 1 &&
                   strcmp(resolver->hints[0].uid, info->uid) == 0,
               "signing in after importing %s: %s", text, mfa_status_name(status));
    status = mfa_resolve_totp(ctx, &result, resolver->session, NULL, info->uid, code, &err);
    FUZZ_CHECK(status == MFA_OK, "the code %s of the factor imported from %s is refused: %s %s", code, text,
               mfa_status_name(status), err ? err : "");
    mfa_sign_in_result_free(result);
    mfa_resolver_free(resolver);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_ctx *ctx;
    static unsigned long runs;
    char *text = fuzz_string(data, size), uid[32];
    mfa_key_uri *uri = NULL;
    mfa_factor_info *info = NULL;
    mfa_user user;
    int parsed, status, importable;

    if (runs++ % 20000 == 0) {
        mfa_close(ctx);
        ctx = open_store();
    }
    snprintf(uid, sizeof uid, "user%lu", runs);
    user = fuzz_user(uid, NULL);
    parsed = mfa_key_uri_parse(&uri, text, NULL);
    importable = parsed == MFA_OK && uri->type == MFA_OTP_TOTP && uri->secret_len >= 10 && uri->secret_len <= 128;
    status = mfa_totp_import_uri(ctx, &info, &user, text, NULL, NULL);
    if (importable) {
        FUZZ_CHECK(status == MFA_OK && info, "%s was not imported: %s", text, mfa_status_name(status));
        FUZZ_CHECK(strcmp(info->factor_id, "totp") == 0, "%s imported as a %s factor", text, info->factor_id);
        check_sign_in(ctx, &user, info, uri, text);
    } else {
        FUZZ_CHECK(status == (parsed == MFA_ERR_INVALID_URI ? MFA_ERR_INVALID_URI : MFA_ERR_INVALID_ARGUMENT),
                   "importing %s gave %s (parsing it gave %s)", text, mfa_status_name(status),
                   mfa_status_name(parsed));
    }
    mfa_factor_info_free(info);
    mfa_key_uri_free(uri);
    free(text);
    return 0;
}
