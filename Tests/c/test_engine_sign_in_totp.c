/*
 * Flow 5 through the C ABI with a TOTP factor: the first factor
 * (mfa_sign_in), the resolver and its hints (mfa_resolver_load), and the
 * second step (mfa_resolve_totp).
 *
 *   no factor       signed in, no resolver; MANDATORY: ENROLLMENT_REQUIRED
 *   resolver        pending credential, uid, tenant, hints (oldest first);
 *                   rebuilt by mfa_resolver_load until it expires
 *   refusals        tampered, truncated, old-version or foreign-purpose
 *                   credentials; another user's factor; another tenant; an
 *                   unknown enrollment id; the code that enrolled; a replayed
 *                   or older step; a used credential; an expired one
 *   result          uid, tenant, factor, enrollment id, time, kind, claims
 *   window          adjacentIntervals of the project and of a tenant
 *   first factor    a user with factors and an unsupported first factor
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_sign_in(void) {
    mfa_ctx *ctx = open_project();
    mfa_user alice, bob, carol, tenant_user;
    mfa_resolver *resolver;
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    factor fa, fb, ft;
    char cred[TOKEN_MAX], cred2[TOKEN_MAX];
    char code[MFA_CODE_BUFFER_SIZE];

    user_make(&alice, "signin-alice", NULL);
    user_make(&bob, "signin-bob", NULL);
    user_make(&carol, "signin-carol", NULL);

    /* No factors: signed in, no resolver. */
    resolver = (mfa_resolver *)&resolver;
    CHECK_ERR(mfa_sign_in(ctx, &resolver, &carol, &err), MFA_OK, err);
    CHECK(resolver == NULL);
    /* MANDATORY, no factors: ENROLLMENT_REQUIRED. */
    set_config(ctx, "tenant-must", "{\"state\":\"MANDATORY\"}");
    {
        mfa_user must;
        user_make(&must, "signin-carol", "tenant-must");
        resolver = (mfa_resolver *)&resolver;
        CHECK_ERR(mfa_sign_in(ctx, &resolver, &must, &err), MFA_ERR_ENROLLMENT_REQUIRED, err);
        CHECK(resolver == NULL);
        /* ... and once enrolled, the second factor is required. */
        ENROLL_OK(ctx, &must, NULL, &ft);
        g_now += 30;
        SIGN_IN_REQUIRED(ctx, &must, cred);
        code_at(code, ft.key, g_now);
        CHECK_STATUS(resolve(ctx, cred, "tenant-must", ft.eid, code), MFA_OK);
    }

    ENROLL_OK(ctx, &alice, "Alice's phone", &fa);
    ENROLL_OK(ctx, &bob, "Bob's phone", &fb);
    /* The code that finished the enrollment cannot sign in (its step is used). */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    g_now += 30;

    /* With a factor: SECOND_FACTOR_REQUIRED and a resolver. */
    resolver = NULL;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, &err), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(err != NULL);
    mfa_free(err);
    err = NULL;
    CHECK(resolver != NULL);
    if (!resolver) {
        mfa_close(ctx);
        return;
    }
    CHECK(resolver->session && strncmp(resolver->session, "v2.", 3) == 0);
    CHECK(resolver->uid && strcmp(resolver->uid, "signin-alice") == 0);
    CHECK(resolver->tenant == NULL);
    CHECK(resolver->hint_count == 1);
    if (resolver->hint_count == 1) {
        CHECK(strcmp(resolver->hints[0].uid, fa.eid) == 0);
        CHECK(strcmp(resolver->hints[0].factor_id, "totp") == 0);
        CHECK(resolver->hints[0].display_name && strcmp(resolver->hints[0].display_name, "Alice's phone") == 0);
        CHECK(resolver->hints[0].enrollment_time == fa.enrolled_at);
        CHECK(resolver->hints[0].phone_number == NULL);
        CHECK(resolver->hints[0].kind == MFA_FACTOR_TOTP && resolver->hints[0].remaining_codes == -1);
        CHECK(resolver->hints[0].hint && strcmp(resolver->hints[0].hint, "authenticator app") == 0);
    }
    snprintf(cred, sizeof cred, "%s", resolver->session);
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* mfa_resolver_load rebuilds the resolver from the credential. */
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_OK, err);
    CHECK(resolver != NULL);
    if (resolver) {
        CHECK(strcmp(resolver->session, cred) == 0);
        CHECK(strcmp(resolver->uid, "signin-alice") == 0);
        CHECK(resolver->tenant == NULL);
        CHECK(resolver->hint_count == 1 && strcmp(resolver->hints[0].uid, fa.eid) == 0);
        CHECK(resolver->hint_count == 1 && resolver->hints[0].enrollment_time == fa.enrolled_at);
    }
    mfa_resolver_free(resolver);
    resolver = NULL;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, "tenant-x", &err), MFA_ERR_TENANT_MISMATCH, err);
    CHECK(resolver == NULL);
    snprintf(cred2, sizeof cred2, "%s", cred);
    tamper(cred2);
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred2, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(resolver == NULL);

    /* Tampered, truncated, foreign-purpose credentials: INVALID_SESSION. */
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    snprintf(cred2, sizeof cred2, "%s", cred);
    cred2[strlen(cred2) - 5] = '\0';
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    snprintf(cred2, sizeof cred2, "%s", cred);
    cred2[1] = '1'; /* a token of the format before issue 8 */
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    CHECK(resolve(ctx, "", NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    CHECK(resolve(ctx, "v1.", NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    CHECK(resolve(ctx, "v2.", NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    {
        char *session = NULL;
        alice.auth_time = g_now;
        CHECK_STATUS(mfa_session_new(ctx, &session, &alice, NULL), MFA_OK);
        if (session) CHECK(resolve(ctx, session, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
        mfa_free(session);
    }

    /* Another user's enrollment id (with that user's right code): INVALID_SESSION. */
    {
        char bob_code[MFA_CODE_BUFFER_SIZE];
        code_at(bob_code, fb.key, g_now);
        CHECK(resolve(ctx, cred, NULL, fb.eid, bob_code) == MFA_ERR_INVALID_SESSION);
        /* ... which neither used Bob's code nor Alice's credential. */
        SIGN_IN_REQUIRED(ctx, &bob, cred2);
        CHECK_STATUS(resolve(ctx, cred2, NULL, fb.eid, bob_code), MFA_OK);
    }
    /* Another tenant: TENANT_MISMATCH. Unknown enrollment id: MFA_ENROLLMENT_NOT_FOUND. */
    CHECK(resolve(ctx, cred, "tenant-x", fa.eid, code) == MFA_ERR_TENANT_MISMATCH);
    CHECK(resolve(ctx, cred, NULL, "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", code) == MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);

    /* The right code: the result names the user, the factor and the time. */
    CHECK_ERR(mfa_resolve_totp(ctx, &result, cred, NULL, fa.eid, code, &err), MFA_OK, err);
    CHECK(result != NULL);
    if (result) {
        CHECK(strcmp(result->uid, "signin-alice") == 0);
        CHECK(result->tenant == NULL);
        CHECK(strcmp(result->factor_id, "totp") == 0);
        CHECK(strcmp(result->enrollment_id, fa.eid) == 0);
        CHECK(result->time == g_now);
        /* The claims: sign_in_second_factor and second_factor_identifier, as the service's. */
        CHECK(result->kind == MFA_FACTOR_TOTP);
        CHECK(result->claim_count >= 2 && result->claims != NULL);
        if (result->claim_count >= 2 && result->claims) {
            CHECK(strcmp(result->claims[0].name, "sign_in_second_factor") == 0);
            CHECK(strcmp(result->claims[0].value, "totp") == 0);
            CHECK(strcmp(result->claims[1].name, "second_factor_identifier") == 0);
            CHECK(strcmp(result->claims[1].value, fa.eid) == 0);
        }
    }
    mfa_sign_in_result_free(result);
    result = NULL;

    /* Replay of the same code with a fresh credential: INVALID_VERIFICATION_CODE. */
    SIGN_IN_REQUIRED(ctx, &alice, cred2);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    /* So is an older step, still inside the window. */
    code_at(code, fa.key, g_now - 30);
    CHECK(resolve(ctx, cred2, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    /* The used credential, even with the next step's right code: INVALID_SESSION. */
    g_now += 30;
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    /* mfa_resolver_load of a credential works until it expires; the loaded session resolves. */
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred2, NULL, NULL), MFA_OK);
    if (resolver) CHECK(resolve(ctx, resolver->session, NULL, fa.eid, code) == MFA_OK);
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* An expired credential (pendingCredentialLifetime 300 s): INVALID_SESSION. */
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    g_now += 300;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_OK, err); /* exactly at expiry */
    mfa_resolver_free(resolver);
    resolver = NULL;
    g_now += 1;
    CHECK_ERR(mfa_resolver_load(ctx, &resolver, cred, NULL, &err), MFA_ERR_INVALID_SESSION, err);
    CHECK(resolver == NULL);
    code_at(code, fa.key, g_now);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_SESSION);
    /* ... and a fresh one works with that same code (nothing was claimed). */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_OK);

    /* The window: adjacentIntervals 5 (project) accepts an earlier step, not beyond +/-5. */
    g_now += 90;
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    code_at(code, fa.key, g_now + 6 * 30);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, fa.key, g_now - 6 * 30);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, fa.key, g_now - 60);
    CHECK(resolve(ctx, cred, NULL, fa.eid, code) == MFA_OK);
    /* A tenant with adjacentIntervals 0 accepts only the current step. */
    set_config(ctx, "tenant-strict", "{\"totp\":{\"adjacentIntervals\":0}}");
    user_make(&tenant_user, "signin-alice", "tenant-strict");
    ENROLL_OK(ctx, &tenant_user, NULL, &ft);
    g_now += 90;
    SIGN_IN_REQUIRED(ctx, &tenant_user, cred);
    code_at(code, ft.key, g_now - 30);
    CHECK(resolve(ctx, cred, "tenant-strict", ft.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, ft.key, g_now + 30);
    CHECK(resolve(ctx, cred, "tenant-strict", ft.eid, code) == MFA_ERR_INVALID_VERIFICATION_CODE);
    code_at(code, ft.key, g_now);
    /* The project's credential is not the tenant's, and the other way round. */
    CHECK(resolve(ctx, cred, NULL, ft.eid, code) == MFA_ERR_TENANT_MISMATCH);
    CHECK(resolve(ctx, cred, "tenant-other", ft.eid, code) == MFA_ERR_TENANT_MISMATCH);
    /* The project user's factor is not the tenant user's, though the uid is the same. */
    {
        char alice_code[MFA_CODE_BUFFER_SIZE];
        code_at(alice_code, fa.key, g_now);
        CHECK(resolve(ctx, cred, "tenant-strict", fa.eid, alice_code) == MFA_ERR_INVALID_SESSION);
    }
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, "tenant-strict", ft.eid, code, NULL), MFA_OK);
    /* The same uid in the project and in a tenant are two users. */
    CHECK(factor_count(ctx, &tenant_user) == 1);
    CHECK(factor_count(ctx, &alice) == 1);
    if (result) {
        CHECK(result->tenant && strcmp(result->tenant, "tenant-strict") == 0);
        CHECK(strcmp(result->uid, "signin-alice") == 0);
        CHECK(strcmp(result->enrollment_id, ft.eid) == 0);
    }
    mfa_sign_in_result_free(result);
    result = NULL;
    /* The tenant user's resolver names the tenant. */
    g_now += 30;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &tenant_user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    if (resolver) {
        CHECK(resolver->tenant && strcmp(resolver->tenant, "tenant-strict") == 0);
        CHECK(resolver->hint_count == 1 && strcmp(resolver->hints[0].uid, ft.eid) == 0);
    }
    mfa_resolver_free(resolver);
    resolver = NULL;

    /* Hints list every factor, oldest first. */
    {
        factor second;
        g_now += 30;
        ENROLL_OK(ctx, &alice, "Backup", &second);
        g_now += 30;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 2);
        if (resolver && resolver->hint_count == 2) {
            CHECK(strcmp(resolver->hints[0].uid, fa.eid) == 0);
            CHECK(strcmp(resolver->hints[1].uid, second.eid) == 0);
            CHECK(resolver->hints[1].display_name && strcmp(resolver->hints[1].display_name, "Backup") == 0);
            code_at(code, second.key, g_now);
            CHECK(resolve(ctx, resolver->session, NULL, second.eid, code) == MFA_OK);
        }
        mfa_resolver_free(resolver);
        resolver = NULL;
    }
    /* A user with factors cannot use an unsupported first factor. */
    alice.provider = "anonymous";
    resolver = (mfa_resolver *)&resolver;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &alice, NULL), MFA_ERR_UNSUPPORTED_FIRST_FACTOR);
    CHECK(resolver == NULL);
    alice.provider = "password";

    mfa_close(ctx);
}

int main(void) {
    test_sign_in();
    return engine_report();
}
