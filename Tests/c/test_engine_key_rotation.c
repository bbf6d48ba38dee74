/*
 * Master keys through the C ABI: rotation (mfa_options.previous_keys,
 * mfa_rotate_keys) and the key options mfa_open refuses.
 *
 *   TOTP            factors and a pending secret under k1 keep working with k2
 *                   current and k1 previous; mfa_rotate_keys re-seals them;
 *                   afterwards k2 alone suffices and k1 alone does not (CRYPTO);
 *                   a wrong key under the right id is KEY_MISMATCH at open
 *   phone           the cooldown and per-number cap survive a new key; a code
 *                   sent under the old key still enrolls; after rotation the
 *                   factor signs in (full number to the sender, masked hint)
 *   options         duplicate, missing, empty or spaced ids, missing keys
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"

static void test_totp_key_rotation(void) {
    char path[512];
    mfa_options options;
    mfa_master_key k1 = {"k1", K1};
    mfa_master_key k2 = {"k2", K2};
    mfa_master_key both[2];
    mfa_ctx *ctx;
    mfa_user alice, bob;
    factor fa;
    char bob_key[128];
    char bob_session_info[TOKEN_MAX];
    size_t count = 0;
    char *err = NULL;

    snprintf(path, sizeof path, "%s/rotation.db", temp_dir);
    test_remove_sqlite(path);
    user_make(&alice, "rotate-alice", NULL);
    user_make(&bob, "rotate-bob", NULL);

    /* Enroll under k1; leave a pending secret under k1 too. */
    test_options(&options, path, &g_now);
    options.master_key = k1;
    ctx = open_with(&options);
    set_config(ctx, NULL, ENABLE_TOTP);
    ENROLL_OK(ctx, &alice, NULL, &fa);
    {
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        bob_key[0] = bob_session_info[0] = '\0';
        CHECK_STATUS(mfa_session_new(ctx, &session, &bob, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        if (secret) {
            snprintf(bob_key, sizeof bob_key, "%s", secret->shared_secret_key);
            snprintf(bob_session_info, sizeof bob_session_info, "%s", secret->session_info);
        }
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    mfa_close(ctx);

    /* k2 current, k1 previous: sign-in works; the pending enrollment finishes. */
    g_now += 30;
    options.master_key = k2;
    options.previous_keys = &k1;
    options.previous_key_count = 1;
    ctx = open_with(&options);
    SIGN_IN_OK(ctx, &alice, &fa);
    {
        mfa_factor_info *info = NULL;
        char code[MFA_CODE_BUFFER_SIZE];
        code_at(code, bob_key, g_now);
        CHECK_ERR(mfa_totp_enroll(ctx, &info, &bob, bob_session_info, code, NULL, &err), MFA_OK, err);
        mfa_factor_info_free(info);
    }
    /* Alice's factor is the one record still under k1 (Bob's was sealed under k2 when enrolled). */
    CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_OK, err);
    printf("key rotation: %zu record(s) re-encrypted\n", count);
    CHECK(count >= 1);
    CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_OK, err);
    CHECK(count == 0);
    CHECK_STATUS(mfa_rotate_keys(ctx, NULL, NULL), MFA_OK);
    mfa_close(ctx);

    /* Only k2: sign-in still works, for both factors. */
    g_now += 30;
    options.previous_keys = NULL;
    options.previous_key_count = 0;
    ctx = open_with(&options);
    SIGN_IN_OK(ctx, &alice, &fa);
    {
        factor fb;
        snprintf(fb.key, sizeof fb.key, "%s", bob_key);
        {
            mfa_factor_list *list = NULL;
            CHECK_STATUS(mfa_factors_list(ctx, &list, &bob, NULL), MFA_OK);
            CHECK(list && list->count == 1);
            if (list && list->count == 1) snprintf(fb.eid, sizeof fb.eid, "%s", list->items[0].uid);
            mfa_factor_list_free(list);
        }
        SIGN_IN_OK(ctx, &bob, &fb);
    }
    mfa_close(ctx);

    /* Only k1 afterwards: the secrets are no longer readable. */
    g_now += 30;
    options.master_key = k1;
    ctx = open_with(&options);
    {
        char cred[TOKEN_MAX];
        char code[MFA_CODE_BUFFER_SIZE];
        SIGN_IN_REQUIRED(ctx, &alice, cred);
        code_at(code, fa.key, g_now);
        CHECK_ERR(mfa_resolve_totp(ctx, &(mfa_sign_in_result *){NULL}, cred, NULL, fa.eid, code, &err),
                  MFA_ERR_CRYPTO, err);
        /* Rotating without the key the records are under: MFA_ERR_CRYPTO. */
        CHECK_ERR(mfa_rotate_keys(ctx, &count, &err), MFA_ERR_CRYPTO, err);
    }
    mfa_close(ctx);

    /* A wrong key under the right id is refused at open (the store's key check value;
     * Tests/c/test_engine_key_mismatch.c has the rest). */
    g_now += 30;
    {
        mfa_master_key impostor = {"k2", K1};
        mfa_ctx *refused = (mfa_ctx *)&refused;
        options.master_key = impostor;
        CHECK_ERR(mfa_open(&refused, &options, &err), MFA_ERR_KEY_MISMATCH, err);
        CHECK(refused == NULL);
    }

    /* Key options: duplicate ids, bad ids, missing keys. */
    {
        mfa_ctx *bad = (mfa_ctx *)&bad;
        mfa_master_key dup = {"k2", K1};
        mfa_master_key noid = {NULL, K1};
        mfa_master_key empty_id = {"", K1};
        mfa_master_key space_id = {"key one", K1};
        mfa_master_key nokey = {"k9", NULL};
        options.master_key = k2;
        options.previous_keys = &dup;
        options.previous_key_count = 1;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(bad == NULL);
        options.previous_keys = NULL;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT); /* count 1, NULL keys */
        options.previous_key_count = 0;
        both[0] = k1;
        both[1] = nokey;
        options.previous_keys = both;
        options.previous_key_count = 2;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.previous_keys = NULL;
        options.previous_key_count = 0;
        options.master_key = noid;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = empty_id;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = space_id;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.master_key = nokey;
        CHECK_STATUS(mfa_open(&bad, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    test_remove_sqlite(path);
}


/* ------------------------------------------------------------------ */
/* Master key rotation                                                  */
/* ------------------------------------------------------------------ */

/* The per-number cooldown and cap are stored under a keyed hash of the
 * number: a new master key must not reset them. Codes sent under the old key
 * still verify, and phone factors still sign in after mfa_rotate_keys. */
static void test_phone_key_rotation(void) {
    char path[512];
    mfa_options options;
    mfa_master_key old_key;
    mfa_ctx *ctx;
    mfa_user user, other, late;
    char eid[64], vid[TOKEN_MAX], pending_vid[TOKEN_MAX], pending_code[MFA_CODE_BUFFER_SIZE];
    size_t rotated = 0;

    reset_recorders();
    snprintf(path, sizeof path, "%s/rotation.db", temp_dir);
    test_remove_sqlite(path);
    fixture_options(&options, path);
    ctx = open_with(&options);
    set_config(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"phone\":\"ENABLED\"},"
                          "\"limits\":{\"smsPerNumberHour\":2,\"smsPerNumberDay\":2}}");
    user_make(&user, "rotation-user", NULL);
    user_make(&other, "rotation-other", NULL);
    user_make(&late, "rotation-late", NULL);
    ENROLL_PHONE_OK(ctx, &user, "+15105551201", NULL, eid);
    CHECK_STATUS(start_enroll(ctx, &late, "+15105551202", GOOD_CRED, pending_vid), MFA_OK);
    sms_code("+15105551202", pending_code);
    mfa_close(ctx);

    /* The new key is current, the old one still known. */
    fixture_options(&options, path);
    options.master_key.id = "k2";
    options.master_key.key = K2;
    old_key.id = "k1";
    old_key.key = K1;
    options.previous_keys = &old_key;
    options.previous_key_count = 1;
    ctx = open_with(&options);
    /* The cooldown of +15105551201 still runs... */
    CHECK_STATUS(start_enroll(ctx, &other, "+15105551201", GOOD_CRED, vid), MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER);
    /* ...and its cap (2 an hour) still counts the send under the old key. */
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &other, "+15105551201", GOOD_CRED, vid), MFA_OK);
    g_now += 31;
    CHECK_STATUS(start_enroll(ctx, &late, "+15105551201", GOOD_CRED, vid), MFA_ERR_QUOTA_EXCEEDED);
    /* A code sent under the old key finishes its enrollment. */
    CHECK_STATUS(finish_enroll(ctx, &late, pending_vid, pending_code, NULL, "+15105551202", NULL), MFA_OK);
    /* After re-encryption, the phone factor signs in (full number to the sender, masked hint). */
    CHECK_STATUS(mfa_rotate_keys(ctx, &rotated, NULL), MFA_OK);
    /* The first factor (the late one was sealed under k2) and, since issue 8, the two SMS
     * verifications still stored that were sealed under k1 (the first factor's and the late
     * one's; the other's was sent under k2). */
    CHECK(rotated == 3);
    CHECK_STATUS(mfa_rotate_keys(ctx, &rotated, NULL), MFA_OK);
    CHECK(rotated == 0);
    mfa_close(ctx);
    fixture_options(&options, path);
    options.master_key.id = "k2";
    options.master_key.key = K2;
    ctx = open_with(&options);
    g_now += 3601;
    {
        mfa_resolver *resolver = NULL;
        CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
        CHECK(resolver && resolver->hint_count == 1 && resolver->hints[0].phone_number &&
              strcmp(resolver->hints[0].phone_number, "+1******1201") == 0);
        mfa_resolver_free(resolver);
    }
    CHECK_STATUS(sign_in_phone(ctx, &user, eid, "+15105551201"), MFA_OK);
    mfa_close(ctx);
    test_remove_sqlite(path);
}

int main(void) {
    make_temp_dir("libmfa-rotation");
    test_totp_key_rotation();
    reset_recorders();
    test_phone_key_rotation();
    remove_temp_dir();
    return engine_report();
}
