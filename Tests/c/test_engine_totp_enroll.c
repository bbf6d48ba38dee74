/*
 * Flow 4 through the C ABI: enrolling a TOTP authenticator app
 * (mfa_totp_generate_secret, mfa_totp_secret_uri, mfa_qr_encode,
 * mfa_totp_enroll).
 *
 *   the secret      20 random bytes in base32, SHA1, 6 digits, 30 s, a
 *                   10-minute deadline
 *   the key URI     issuer and account percent-encoded; it parses back; the
 *                   QR code as PNG, SVG and terminal text
 *   refusals        another user's or tenant's session_info, tampered, empty,
 *                   a session in place of a session_info; wrong and malformed
 *                   codes (the user may retry); a used session or
 *                   session_info; past the deadline (exactly at it works); the
 *                   provider disabled; an overlong display name
 *   the factor      28-character id, "totp", kind, hint, listed
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static int is_base32(const char *text) {
    for (; *text; text++) {
        if (!((*text >= 'A' && *text <= 'Z') || (*text >= '2' && *text <= '7'))) return 0;
    }
    return 1;
}

static void test_qr(const char *uri) {
    uint8_t *out = NULL;
    size_t len = 0;
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_PNG), MFA_OK);
    CHECK(out != NULL && len > 8 && memcmp(out, png_signature, 8) == 0);
    mfa_free(out);
    out = NULL;

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_SVG), MFA_OK);
    CHECK(out != NULL && len > 4 && memcmp(out, "<svg", 4) == 0);
    CHECK(out != NULL && len > 6 && memfind(out, len, (const uint8_t *)"</svg>", 6));
    mfa_free(out);
    out = NULL;

    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, MFA_QR_TEXT), MFA_OK);
    CHECK(out != NULL && len > 0 && strlen((const char *)out) == len);
    mfa_free(out);
    out = NULL;

    len = 99;
    out = (uint8_t *)"sentinel";
    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, 9), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && len == 0);
    CHECK_STATUS(mfa_qr_encode(&out, &len, uri, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, &len, "", MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, &len, NULL, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(NULL, &len, uri, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_qr_encode(&out, NULL, uri, MFA_QR_PNG), MFA_ERR_INVALID_ARGUMENT);
}

/* A new session for `user` (first factor passed now) and a secret from it, both checked. */
static void new_secret_at(mfa_ctx *ctx, mfa_user *user, char **session, mfa_totp_secret **secret, int line) {
    user->auth_time = g_now;
    CHECK_STATUS_AT(mfa_session_new(ctx, session, user, NULL), MFA_OK, line);
    CHECK_STATUS_AT(mfa_totp_generate_secret(ctx, secret, *session, NULL), MFA_OK, line);
}
#define new_secret(ctx, user, session, secret) new_secret_at(ctx, user, session, secret, __LINE__)

/* Frees a session and its secret, and forgets them. */
static void drop_secret(char **session, mfa_totp_secret **secret) {
    mfa_totp_secret_free(*secret);
    *secret = NULL;
    mfa_free(*session);
    *session = NULL;
}

static void test_enrollment(void) {
    mfa_ctx *ctx = open_project();
    mfa_user alice, bob, alice_tenant;
    char *session = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    char code[MFA_CODE_BUFFER_SIZE];
    char *uri = NULL;
    int64_t t0 = g_now;

    user_make(&alice, "enroll-alice", NULL);
    user_make(&bob, "enroll-bob", NULL);
    user_make(&alice_tenant, "enroll-alice", "tenant-x");
    set_config(ctx, "tenant-x", "{}");

    CHECK_ERR(mfa_session_new(ctx, &session, &alice, &err), MFA_OK, err);
    CHECK_ERR(mfa_totp_generate_secret(ctx, &secret, session, &err), MFA_OK, err);
    CHECK(secret != NULL);
    if (!secret) {
        mfa_free(session);
        mfa_close(ctx);
        return;
    }
    /* The secret: 20 random bytes as 32 base32 characters, SHA1, 6 digits, 30 s, 10 minutes. */
    CHECK(secret->shared_secret_key != NULL && strlen(secret->shared_secret_key) == 32);
    CHECK(is_base32(secret->shared_secret_key));
    {
        uint8_t *raw = NULL;
        size_t raw_len = 0;
        CHECK_STATUS(mfa_base32_decode(&raw, &raw_len, secret->shared_secret_key), MFA_OK);
        CHECK(raw_len == 20);
        mfa_free(raw);
    }
    CHECK(secret->algorithm == MFA_ALG_SHA1);
    CHECK(secret->digits == 6);
    CHECK(secret->period == 30);
    CHECK(secret->deadline == t0 + 600);
    CHECK(secret->session_info != NULL && strlen(secret->session_info) > 3);

    /* The key URI: issuer and account percent-encoded, and it parses back. */
    CHECK_ERR(mfa_totp_secret_uri(&uri, secret, "alice smith@example.com", "ACME Co: Auth&Co", &err), MFA_OK, err);
    CHECK(uri != NULL);
    if (uri) {
        mfa_key_uri *parsed = NULL;
        char want_secret[64];
        CHECK(strncmp(uri, "otpauth://totp/", 15) == 0);
        CHECK(contains(uri, "ACME%20Co%3A%20Auth%26Co:alice%20smith%40example.com?"));
        CHECK(contains(uri, "issuer=ACME%20Co%3A%20Auth%26Co"));
        snprintf(want_secret, sizeof want_secret, "secret=%s", secret->shared_secret_key);
        CHECK(contains(uri, want_secret));
        CHECK(contains(uri, "algorithm=SHA1"));
        CHECK(contains(uri, "digits=6"));
        CHECK(contains(uri, "period=30"));
        CHECK(!contains(uri, " "));
        CHECK_STATUS(mfa_key_uri_parse(&parsed, uri, NULL), MFA_OK);
        if (parsed) {
            CHECK(parsed->issuer && strcmp(parsed->issuer, "ACME Co: Auth&Co") == 0);
            CHECK(parsed->account && strcmp(parsed->account, "alice smith@example.com") == 0);
            CHECK(parsed->secret_len == 20);
            CHECK(parsed->period == 30 && parsed->digits == 6 && parsed->algorithm == MFA_ALG_SHA1);
        }
        mfa_key_uri_free(parsed);
        test_qr(uri);
    }
    mfa_free(uri);
    uri = NULL;
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, "bob@example.com", NULL, NULL), MFA_OK);
    CHECK(uri && strncmp(uri, "otpauth://totp/bob%40example.com?", 33) == 0 && !contains(uri, "issuer="));
    mfa_free(uri);
    uri = NULL;
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, "", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(uri == NULL);
    CHECK_STATUS(mfa_totp_secret_uri(&uri, secret, NULL, "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_secret_uri(&uri, NULL, "a", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_secret_uri(NULL, secret, "a", "ACME", NULL), MFA_ERR_INVALID_ARGUMENT);

    /* Another user's session_info is refused; so is another tenant's. */
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &bob, secret->session_info, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(info == NULL);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice_tenant, secret->session_info, code, NULL, &err),
              MFA_ERR_TENANT_MISMATCH, err);
    CHECK(info == NULL);
    /* A tampered session_info. */
    {
        char bad[TOKEN_MAX];
        snprintf(bad, sizeof bad, "%s", secret->session_info);
        tamper(bad);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, bad, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, "", code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        /* A session is not a session_info (and the other way round). */
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, session, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK_ERR(mfa_totp_generate_secret(ctx, &(mfa_totp_secret *){NULL}, secret->session_info, &err),
                  MFA_ERR_INVALID_SESSION, err);
    }

    /* A wrong code: the user may retry. Malformed codes too. */
    g_now += 10;
    wrong_totp_code(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK(info == NULL);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "12345", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "abcdef", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, "", "Phone app", &err),
              MFA_ERR_INVALID_VERIFICATION_CODE, err);
    CHECK(factor_count(ctx, &alice) == 0);
    /* ... then the right one works. */
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, "Phone app", &err), MFA_OK, err);
    CHECK(info != NULL);
    if (info) {
        CHECK(info->uid != NULL && strlen(info->uid) == 28);
        CHECK(info->factor_id && strcmp(info->factor_id, "totp") == 0);
        CHECK(info->display_name && strcmp(info->display_name, "Phone app") == 0);
        CHECK(info->enrollment_time == g_now);
        CHECK(info->phone_number == NULL);
        CHECK(info->kind == MFA_FACTOR_TOTP);
        CHECK(info->hint && strcmp(info->hint, "authenticator app") == 0);
        CHECK(info->remaining_codes == -1);
        /* It is listed. */
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &alice, NULL), MFA_OK);
            CHECK(list && list->count == 1);
            if (list && list->count == 1) {
                CHECK(strcmp(list->items[0].uid, info->uid) == 0);
                CHECK(strcmp(list->items[0].factor_id, "totp") == 0);
                CHECK(list->items[0].display_name && strcmp(list->items[0].display_name, "Phone app") == 0);
                CHECK(list->items[0].enrollment_time == g_now);
                CHECK(list->items[0].kind == MFA_FACTOR_TOTP && list->items[0].remaining_codes == -1);
                CHECK(list->items[0].hint && strcmp(list->items[0].hint, "authenticator app") == 0);
            }
            mfa_factor_list_free(list);
        }
    }
    mfa_factor_info_free(info);
    info = NULL;

    /* Reusing the session or the session_info: INVALID_SESSION. */
    g_now += 30;
    code_at(code, secret->shared_secret_key, g_now);
    CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(info == NULL);
    {
        mfa_totp_secret *again = (mfa_totp_secret *)&again;
        CHECK_ERR(mfa_totp_generate_secret(ctx, &again, session, &err), MFA_ERR_INVALID_SESSION, err);
        CHECK(again == NULL);
    }
    CHECK(factor_count(ctx, &alice) == 1);
    drop_secret(&session, &secret);

    /* An expired secret: CODE_EXPIRED even with the right code. */
    new_secret(ctx, &alice, &session, &secret);
    if (secret) {
        int64_t deadline = secret->deadline;
        CHECK(deadline == g_now + 600);
        g_now = deadline + 1;
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_ERR_CODE_EXPIRED,
                  err);
        CHECK(info == NULL);
        /* The session has expired too. */
        {
            mfa_totp_secret *late = NULL;
            CHECK_ERR(mfa_totp_generate_secret(ctx, &late, session, &err), MFA_ERR_INVALID_SESSION, err);
            CHECK(late == NULL);
        }
    }
    CHECK(factor_count(ctx, &alice) == 1);
    drop_secret(&session, &secret);

    /* Exactly at the deadline it still works. */
    new_secret(ctx, &alice, &session, &secret);
    if (secret) {
        g_now = secret->deadline;
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err), MFA_OK, err);
        mfa_factor_info_free(info);
        info = NULL;
    }
    CHECK(factor_count(ctx, &alice) == 2);
    drop_secret(&session, &secret);

    /* The TOTP provider disabled: OPERATION_NOT_ALLOWED, both when generating and when finishing. */
    g_now += 30;
    new_secret(ctx, &alice, &session, &secret);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"DISABLED\",\"phone\":\"ENABLED\"}}");
    if (secret) {
        code_at(code, secret->shared_secret_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &alice, secret->session_info, code, NULL, &err),
                  MFA_ERR_OPERATION_NOT_ALLOWED, err);
        CHECK(info == NULL);
    }
    drop_secret(&session, &secret);
    CHECK_STATUS(mfa_session_new(ctx, &session, &alice, NULL), MFA_OK); /* phone is still enabled */
    CHECK_ERR(mfa_totp_generate_secret(ctx, &secret, session, &err), MFA_ERR_OPERATION_NOT_ALLOWED, err);
    CHECK(secret == NULL);
    mfa_free(session);
    session = NULL;
    CHECK(factor_count(ctx, &alice) == 2);

    /* A display name longer than 256 bytes is refused; NULL and "" mean none. */
    set_config(ctx, NULL, ENABLE_TOTP);
    {
        char long_name[300];
        factor g;
        memset(long_name, 'n', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = '\0';
        CHECK_STATUS(enroll(ctx, &bob, long_name, &g), MFA_ERR_INVALID_ARGUMENT);
        CHECK(factor_count(ctx, &bob) == 0);
        ENROLL_OK(ctx, &bob, "", &g);
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &bob, NULL), MFA_OK);
            CHECK(list && list->count == 1 && list->items[0].display_name == NULL);
            mfa_factor_list_free(list);
        }
    }
    mfa_close(ctx);
}

int main(void) {
    test_enrollment();
    return engine_report();
}
