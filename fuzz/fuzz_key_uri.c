/*
 * otpauth:// key URIs (mfa_key_uri_parse, mfa_key_uri_build): what QR codes
 * and imports bring in.
 *
 * Every URI that parses has fields in the documented ranges and rebuilds to
 * an equivalent URI: parsing the rebuilt text gives the same fields, byte for
 * byte, and rebuilding that gives the same text again.
 */
#include "fuzz_support.h"

static int same_text(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static void check_same(const mfa_key_uri *a, const mfa_key_uri *b, const char *rebuilt) {
    FUZZ_CHECK(a->type == b->type, "type %d became %d in %s", a->type, b->type, rebuilt);
    FUZZ_CHECK(same_text(a->issuer, b->issuer), "issuer \"%s\" became \"%s\" in %s", a->issuer ? a->issuer : "(none)",
               b->issuer ? b->issuer : "(none)", rebuilt);
    FUZZ_CHECK(same_text(a->account, b->account), "account \"%s\" became \"%s\" in %s", a->account, b->account,
               rebuilt);
    FUZZ_CHECK(a->secret_len == b->secret_len && memcmp(a->secret, b->secret, a->secret_len) == 0,
               "the secret changed in %s", rebuilt);
    FUZZ_CHECK(a->algorithm == b->algorithm && a->digits == b->digits, "algorithm or digits changed in %s", rebuilt);
    FUZZ_CHECK(a->type != MFA_OTP_TOTP || a->period == b->period, "period changed in %s", rebuilt);
    FUZZ_CHECK(a->type != MFA_OTP_HOTP || a->counter == b->counter, "counter changed in %s", rebuilt);
}

static void check_ranges(const mfa_key_uri *uri, const char *text) {
    FUZZ_CHECK(uri->version == MFA_KEY_URI_VERSION, "version %u", uri->version);
    FUZZ_CHECK(uri->type == MFA_OTP_TOTP || uri->type == MFA_OTP_HOTP, "type %d from %s", uri->type, text);
    FUZZ_CHECK(uri->account && uri->account[0], "an empty account from %s", text);
    FUZZ_CHECK(!uri->issuer || uri->issuer[0], "an empty issuer from %s", text);
    FUZZ_CHECK(uri->secret && uri->secret_len >= 1 && uri->secret_len <= MFA_KEY_MAX_BYTES,
               "a secret of %zu bytes from %s", uri->secret_len, text);
    FUZZ_CHECK(uri->algorithm >= MFA_ALG_SHA1 && uri->algorithm <= MFA_ALG_SHA512, "algorithm %d", uri->algorithm);
    FUZZ_CHECK(uri->digits >= MFA_DIGITS_MIN && uri->digits <= MFA_DIGITS_MAX, "digits %d", uri->digits);
    FUZZ_CHECK(uri->type != MFA_OTP_TOTP || (uri->period >= 1 && uri->period <= MFA_PERIOD_MAX),
               "period %lld", (long long)uri->period);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_string(data, size), *rebuilt = NULL, *again = NULL, *err = NULL;
    mfa_key_uri *parsed = NULL, *reparsed = NULL;
    int status = mfa_key_uri_parse(&parsed, text, &err);
    FUZZ_CHECK(status == MFA_OK || status == MFA_ERR_INVALID_URI || status == MFA_ERR_INVALID_ARGUMENT,
               "mfa_key_uri_parse gave %s", mfa_status_name(status));
    FUZZ_CHECK((status == MFA_OK) == (parsed != NULL) && (status == MFA_OK) == (err == NULL),
               "%s with a result %p and message %p", mfa_status_name(status), (void *)parsed, (void *)err);
    if (status == MFA_OK) {
        check_ranges(parsed, text);
        status = mfa_key_uri_build(&rebuilt, parsed, &err);
        FUZZ_CHECK(status == MFA_OK, "%s parses but does not rebuild: %s", text, err ? err : "");
        status = mfa_key_uri_parse(&reparsed, rebuilt, &err);
        FUZZ_CHECK(status == MFA_OK, "%s rebuilt as %s, which does not parse: %s", text, rebuilt, err ? err : "");
        check_same(parsed, reparsed, rebuilt);
        FUZZ_CHECK(mfa_key_uri_build(&again, reparsed, NULL) == MFA_OK && strcmp(rebuilt, again) == 0,
                   "%s rebuilt as %s, then as %s", text, rebuilt, again ? again : "(failed)");
    }
    mfa_free(err);
    mfa_free(rebuilt);
    mfa_free(again);
    mfa_key_uri_free(parsed);
    mfa_key_uri_free(reparsed);
    free(text);
    return 0;
}
