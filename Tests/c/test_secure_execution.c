/*
 * What libmfa takes from the environment when the process runs in secure-
 * execution mode (AT_SECURE: setuid, setgid, file capabilities; sudo and
 * su, where pam_mfa runs). Tests/c/check_secure_execution.sh runs this
 * program as a setgid copy and as a plain one, with LIBMFA_LIBPQ and
 * LIBMFA_GNUTLS naming a library whose constructor leaves a marker file,
 * and PGPORT naming the test server's port. It prints what it saw, one
 * `name=value` line each, and the script judges:
 *   secure=0|1      whether the kernel set AT_SECURE
 *   postgres=NAME   mfa_open of the postgres:// URL given (which has no port)
 *   pgport=set|unset  whether PGPORT is still in the environment after it
 *   webauthn=NAME   mfa_enroll of a packed attestation carrying a certificate,
 *                   attestation asked for (which makes libmfa verify the
 *                   statement, and load GnuTLS to read the certificate)
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "mfa.h"
#include "test_support.h"
#include "test_webauthn_authenticator.h"

/* A packed registration whose x5c holds one (unreadable) certificate. */
static int packed_registration(char *json, size_t size, const webauthn_key *k, const char *options) {
    static const uint8_t head[] = {
        0xa3, 0x63, 'f', 'm', 't', 0x66, 'p', 'a', 'c', 'k', 'e', 'd',
        0x67, 'a', 't', 't', 'S', 't', 'm', 't',
        0xa3, 0x63, 'a', 'l', 'g', 0x27,                   /* alg: -8 (EdDSA) */
        0x63, 's', 'i', 'g', 0x44, 1, 2, 3, 4,             /* sig: 4 bytes */
        0x63, 'x', '5', 'c', 0x81, 0x44, 0x30, 0x03, 0x02, 0x01, /* x5c: [4 bytes] */
        0x68, 'a', 'u', 't', 'h', 'D', 'a', 't', 'a', 0x58};
    char challenge[1024], client[1200], id[32], cd64[1700], ao64[400];
    uint8_t object[300], data[120];
    size_t data_len, client_len;
    if (!webauthn_challenge(challenge, options)) return 0;
    client_len = (size_t)snprintf(client, sizeof client,
                                  "{\"type\":\"webauthn.create\",\"challenge\":\"%s\",\"origin\":\"https://example.com\"}",
                                  challenge);
    data_len = webauthn_auth_data(data, k, 1);
    memcpy(object, head, sizeof head);
    object[sizeof head] = (uint8_t)data_len;
    memcpy(object + sizeof head + 1, data, data_len);
    webauthn_b64url(id, k->id, sizeof k->id);
    webauthn_b64url(cd64, (const uint8_t *)client, client_len);
    webauthn_b64url(ao64, object, sizeof head + 1 + data_len);
    snprintf(json, size, "{\"id\":\"%s\",\"rawId\":\"%s\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":"
             "\"%s\",\"attestationObject\":\"%s\"}}", id, id, cd64, ao64);
    return 1;
}

static const char *enroll_with_certificate(void) {
    int64_t now = START_TIME;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    mfa_factor_info *info = NULL;
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    webauthn_key key;
    char *session = NULL, *request = NULL, json[4096];
    int status;
    test_options(&options, ":memory:", &now);
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"webauthn\":\"ENABLED\"},"
                          "\"webauthn\":{\"rpId\":\"example.com\",\"attestation\":\"direct\"}}");
    test_user(&user, "alice", NULL, "alice@example.com", now);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);
    CHECK_STATUS(mfa_webauthn_registration_options(ctx, &request, session, "alice@example.com", NULL, NULL), MFA_OK);
    webauthn_key_new(&key, NULL);
    CHECK(request && packed_registration(json, sizeof json, &key, request));
    assertion.kind = MFA_FACTOR_WEBAUTHN;
    assertion.credential = json;
    status = mfa_enroll(ctx, &info, &user, &assertion, "key", NULL);
    mfa_factor_info_free(info);
    mfa_free(session);
    mfa_free(request);
    mfa_close(ctx);
    return mfa_status_name(status);
}

int main(int argc, char **argv) {
    int64_t now = START_TIME;
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    if (argc != 2) {
        fprintf(stderr, "usage: %s POSTGRES_URL_WITHOUT_PORT\n", argv[0]);
        return 2;
    }
    printf("secure=%d\n", getauxval(AT_SECURE) != 0);
    test_options(&options, argv[1], &now);
    status = mfa_open(&ctx, &options, &err);
    printf("postgres=%s\n", mfa_status_name(status));
    printf("pgport=%s\n", getenv("PGPORT") ? "set" : "unset");
    mfa_free(err);
    mfa_close(ctx);
    printf("webauthn=%s\n", enroll_with_certificate());
    return failures ? 1 : 0;
}
