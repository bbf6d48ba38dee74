/*
 * libmfa from C: make a TOTP secret, print its otpauth:// URI (what the QR
 * code holds), then compute the current code the way an authenticator app
 * does and verify it, accepting one time step of clock skew.
 *
 *   cc totp_demo.c $(pkg-config --cflags --libs mfa) -o totp_demo
 */
#include <stdio.h>
#include <time.h>

#include "mfa.h"

static int fail(const char *what, int status) {
    fprintf(stderr, "%s: %s (%s)\n", what, mfa_status_name(status), mfa_errstr(status));
    return 1;
}

int main(void) {
    unsigned char secret[MFA_SECRET_DEFAULT_BYTES];
    char code[MFA_CODE_BUFFER_SIZE];
    char *uri = NULL;
    int64_t step = 0;
    int64_t now = (int64_t)time(NULL);
    mfa_key_uri key;
    int status;

    printf("libmfa %s\n", mfa_version_string());
    if ((status = mfa_random_secret(secret, sizeof secret)) != MFA_OK) return fail("random secret", status);

    if ((status = mfa_key_uri_init(&key, MFA_KEY_URI_VERSION)) != MFA_OK) return fail("uri init", status);
    key.issuer = "ACME Co";
    key.account = "alice@example.com";
    key.secret = secret;
    key.secret_len = sizeof secret;
    if ((status = mfa_key_uri_build(&uri, &key, NULL)) != MFA_OK) return fail("uri build", status);
    printf("otpauth URI: %s\n", uri);
    mfa_free(uri);

    /* NULL parameters: SHA1, 6 digits, 30 s, as Google Authenticator uses. */
    if ((status = mfa_totp_generate(code, sizeof code, secret, sizeof secret, NULL, now)) != MFA_OK)
        return fail("generate", status);
    printf("current code: %s\n", code);

    status = mfa_totp_verify(&step, secret, sizeof secret, NULL, now, 1, code);
    if (status != MFA_OK) return fail("verify", status);
    printf("verified: time step %lld\n", (long long)step);

    status = mfa_totp_verify(&step, secret, sizeof secret, NULL, now, 1, "000000");
    printf("a guessed code: %s\n", mfa_status_name(status));
    return 0;
}
