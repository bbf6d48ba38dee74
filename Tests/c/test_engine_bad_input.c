/*
 * Bad input through the C ABI, for the context, users, TOTP and tokens: every
 * NULL, wrong struct version, bad uid, tenant, provider, email, overlong token
 * and extreme auth_time is a named status (INVALID_ARGUMENT, INVALID_SESSION,
 * ...), never a crash, and none uses anything up. (The SMS calls: see
 * test_engine_phone_bad_input.c; the generic calls of issue 9:
 * test_engine_generic_bad_input.c.)
 *
 *   mfa_open        NULLs, versions, stores, keys
 *   engine calls    NULL ctx, NULL out, NULL user and strings, struct versions,
 *                   mfa_user_init's defaults, uids (empty, not UTF-8, 129 bytes),
 *                   tenants, providers, emails, an overlong token
 *   extremes        auth_time INT64_MIN and INT64_MAX, each in a child process
 *   names           the status names and messages of the engine's errors
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/wait.h>

#include "test_engine_fixture.h"

/* ------------------------------------------------------------------ */
/* Bad input                                                            */
/* ------------------------------------------------------------------ */

static void test_bad_input(void) {
    mfa_ctx *ctx = open_project();
    mfa_options options;
    mfa_user user, bad;
    char *out = NULL;
    char *err = NULL;
    mfa_totp_secret *secret = NULL;
    mfa_factor_info *info = NULL;
    mfa_factor_list *list = NULL;
    mfa_resolver *resolver = NULL;
    mfa_sign_in_result *result = NULL;
    size_t count = 0;
    bool flag = false;
    char long_uid[130];
    char path[512];
    factor f;
    char cred[TOKEN_MAX];
    char *session = NULL;

    user_make(&user, "bad-input-user", NULL);
    ENROLL_OK(ctx, &user, NULL, &f);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(mfa_session_new(ctx, &session, &user, NULL), MFA_OK);

    /* mfa_open. */
    {
        mfa_ctx *opened = (mfa_ctx *)&opened;
        test_options(&options, ":memory:", &g_now);
        CHECK_STATUS(mfa_open(NULL, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_ERR(mfa_open(&opened, NULL, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(opened == NULL);
        options.version = 0;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        options.version = MFA_OPTIONS_VERSION + 1;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        test_options(&options, NULL, &g_now);
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        test_options(&options, "", &g_now);
        CHECK_ERR(mfa_open(&opened, &options, &err), MFA_ERR_INVALID_ARGUMENT, err);
        CHECK(opened == NULL);
        {
            char *long_path = malloc(5000);
            if (long_path) {
                memset(long_path, 'p', 4999);
                long_path[4999] = '\0';
                test_options(&options, long_path, &g_now);
                CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
                free(long_path);
            }
        }
        test_options(&options, "\xff\xfe.db", &g_now);
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        snprintf(path, sizeof path, "%s/no/such/directory/mfa.db", temp_dir);
        test_options(&options, path, &g_now);
        opened = (mfa_ctx *)&opened;
        CHECK_STATUS(mfa_open(&opened, &options, &err), MFA_ERR_STORAGE_ERROR);
        CHECK(opened == NULL);
        CHECK(err != NULL);
        mfa_free(err);
        err = NULL;
        test_options(&options, ":memory:", &g_now);
        options.master_key.key = NULL;
        CHECK_STATUS(mfa_open(&opened, &options, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(opened == NULL);
    }

    /* NULL ctx everywhere. */
    CHECK_STATUS(mfa_session_new(NULL, &out, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(NULL, &secret, session, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(NULL, &info, &user, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(NULL, &list, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(NULL, &resolver, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolver_load(NULL, &resolver, cred, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(NULL, &result, cred, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_rotate_keys(NULL, &count, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_purge_expired(NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(NULL, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(NULL, &flag, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(NULL, &out, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(NULL, &user, f.eid, NULL), MFA_ERR_INVALID_ARGUMENT);

    /* NULL out everywhere. */
    CHECK_STATUS(mfa_session_new(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, NULL, session, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(ctx, NULL, &user, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, NULL, &user, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolver_load(ctx, NULL, cred, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, NULL, cred, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, NULL, NULL, "u", 0), MFA_ERR_INVALID_ARGUMENT);

    /* NULL user and strings. */
    CHECK_STATUS(mfa_session_new(ctx, &out, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(resolver == NULL);
    CHECK_STATUS(mfa_factors_list(ctx, &list, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, NULL, "x", "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(secret == NULL);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, NULL, "123456", NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_totp_enroll(ctx, &info, &user, "x", NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(info == NULL);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, NULL, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, NULL, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, f.eid, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, "", "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, "", f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, "\xc3\x28", "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_resolve_totp(ctx, &result, cred, NULL, f.eid, "\xff", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(result == NULL);
    {
        /* A long argument read eight bytes at a time: a byte that is not
         * UTF-8 in a middle word, and as the last byte. */
        char spoiled[600];
        size_t length = strlen(cred);
        CHECK(length > 40 && length + 2 < sizeof spoiled);
        memcpy(spoiled, cred, length + 1);
        spoiled[21] = (char)0xff;
        CHECK_STATUS(mfa_resolve_totp(ctx, &result, spoiled, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
        memcpy(spoiled, cred, length + 1);
        spoiled[length - 1] = (char)0x80; /* in the tail unless the length is a multiple of eight */
        CHECK_STATUS(mfa_resolve_totp(ctx, &result, spoiled, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(result == NULL);
    }

    /* Wrong struct versions. */
    bad = user;
    bad.version = 0;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_unenroll(ctx, &bad, f.eid, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.version = MFA_USER_VERSION + 1;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_user_init(NULL, MFA_USER_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_options_init(NULL, MFA_OPTIONS_VERSION), MFA_ERR_INVALID_ARGUMENT);
    /* mfa_user_init's defaults. */
    CHECK_STATUS(mfa_user_init(&bad, MFA_USER_VERSION), MFA_OK);
    CHECK(bad.version == MFA_USER_VERSION && bad.uid == NULL && bad.tenant == NULL && bad.email == NULL);
    CHECK(bad.provider && strcmp(bad.provider, "password") == 0 && bad.auth_time == 0 && bad.email_verified == 0);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT); /* no uid */

    /* Bad uids, tenants, providers, emails. */
    bad = user;
    bad.uid = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "bad\xff\xfeuid";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, bad.uid, 0), MFA_ERR_INVALID_ARGUMENT);
    bad.uid = "\xed\xa0\x80"; /* an encoded surrogate is not UTF-8 */
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    memset(long_uid, 'u', 129);
    long_uid[129] = '\0';
    bad.uid = long_uid;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_factors_list(ctx, &list, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, NULL, long_uid, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, &flag, NULL, long_uid, 0), MFA_ERR_INVALID_ARGUMENT);
    long_uid[128] = '\0'; /* 128 bytes is fine */
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_OK);
    mfa_free(out);
    out = NULL;
    bad = user;
    bad.tenant = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.tenant = "\xff";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    long_uid[128] = 'u';
    bad.tenant = long_uid;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.provider = NULL;
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad.provider = "";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    bad = user;
    bad.email = "\xc0\xaf@example.com";
    CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    {
        char long_email[400];
        memset(long_email, 'e', sizeof long_email - 1);
        long_email[sizeof long_email - 1] = '\0';
        bad.email = long_email;
        CHECK_STATUS(mfa_session_new(ctx, &out, &bad, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    CHECK(out == NULL);
    /* Tenants passed on their own. */
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_token_check(ctx, "", "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_step_up_check(ctx, &flag, "\xff", "u", 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_config_get_json(ctx, &out, "", NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);

    /* An overlong token. */
    {
        char *huge = malloc(70000);
        if (huge) {
            memset(huge, 'A', 69999);
            huge[69999] = '\0';
            memcpy(huge, "v2.", 3);
            CHECK_STATUS(mfa_resolve_totp(ctx, &result, huge, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_ARGUMENT);
            huge[5000] = '\0';
            CHECK_STATUS(mfa_resolve_totp(ctx, &result, huge, NULL, f.eid, "123456", NULL), MFA_ERR_INVALID_SESSION);
            CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, huge, NULL), MFA_ERR_INVALID_SESSION);
            free(huge);
        }
    }

    /* The failed calls changed nothing: the pending credential still resolves. */
    {
        char code[MFA_CODE_BUFFER_SIZE];
        code_at(code, f.key, g_now);
        CHECK(resolve(ctx, cred, NULL, f.eid, code) == MFA_OK);
    }
    CHECK_STATUS(mfa_purge_expired(ctx, NULL), MFA_OK);

    /* Every free function accepts NULL. */
    mfa_close(NULL);
    mfa_free(NULL);
    mfa_factor_info_free(NULL);
    mfa_factor_list_free(NULL);
    mfa_resolver_free(NULL);
    mfa_sign_in_result_free(NULL);
    mfa_totp_secret_free(NULL);
    mfa_key_uri_free(NULL);

    /* Status names of the engine's errors. */
    CHECK(strcmp(mfa_status_name(MFA_ERR_INVALID_SESSION), "INVALID_SESSION") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_TENANT_MISMATCH), "TENANT_MISMATCH") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_SECOND_FACTOR_REQUIRED), "SECOND_FACTOR_REQUIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_ENROLLMENT_REQUIRED), "ENROLLMENT_REQUIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER), "TOO_MANY_ATTEMPTS_TRY_LATER") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_USER_TOKEN_EXPIRED), "USER_TOKEN_EXPIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_MFA_ENROLLMENT_NOT_FOUND), "MFA_ENROLLMENT_NOT_FOUND") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED), "SECOND_FACTOR_LIMIT_EXCEEDED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_UNSUPPORTED_FIRST_FACTOR), "UNSUPPORTED_FIRST_FACTOR") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_REQUIRES_RECENT_LOGIN), "REQUIRES_RECENT_LOGIN") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_UNVERIFIED_EMAIL), "UNVERIFIED_EMAIL") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_OPERATION_NOT_ALLOWED), "OPERATION_NOT_ALLOWED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_CODE_EXPIRED), "CODE_EXPIRED") == 0);
    CHECK(strcmp(mfa_status_name(MFA_ERR_STORAGE_ERROR), "STORAGE_ERROR") == 0);
    for (int code = MFA_ERR_INTERNAL; code <= MFA_OK; code++) {
        CHECK(mfa_errstr(code)[0] != '\0');
        CHECK(strcmp(mfa_status_name(code), "UNKNOWN") != 0);
    }

    mfa_free(session);
    mfa_close(ctx);
}

/* Runs `body` in a child process: a crash there is reported, not suffered.
 * Returns the child's status code, or a value above 0 if it crashed. */
static int in_child(int (*body)(mfa_ctx *ctx, mfa_user *user), const char *what) {
    pid_t pid;
    int wstatus = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        mfa_ctx *ctx = open_project();
        mfa_user user;
        int status;
        user_make(&user, "extreme-user", NULL);
        status = body(ctx, &user);
        _exit(-status); /* status codes are 0..-27 */
    }
    if (pid < 0) return 1;
    CHECK(waitpid(pid, &wstatus, 0) == pid);
    if (WIFSIGNALED(wstatus)) {
        fprintf(stderr, "%s: the process died of signal %d\n", what, WTERMSIG(wstatus));
        return 1;
    }
    return WIFEXITED(wstatus) ? -WEXITSTATUS(wstatus) : 1;
}

static int session_with_oldest_auth_time(mfa_ctx *ctx, mfa_user *user) {
    char *session = NULL;
    int status;
    user->auth_time = INT64_MIN;
    status = mfa_session_new(ctx, &session, user, NULL);
    mfa_free(session);
    return status;
}

static int unenroll_with_oldest_auth_time(mfa_ctx *ctx, mfa_user *user) {
    factor f;
    if (enroll(ctx, user, NULL, &f) != MFA_OK) return MFA_ERR_INTERNAL;
    user->auth_time = INT64_MIN;
    return mfa_unenroll(ctx, user, f.eid, NULL);
}

static int session_with_future_auth_time(mfa_ctx *ctx, mfa_user *user) {
    char *session = NULL;
    int status;
    user->auth_time = INT64_MAX;
    status = mfa_session_new(ctx, &session, user, NULL);
    mfa_free(session);
    return status;
}

/* Any int64_t auth_time is an answer, never a crash ("libmfa never aborts on bad input"). */
static void test_extreme_auth_time(void) {
    int status;
    status = in_child(session_with_oldest_auth_time, "mfa_session_new(auth_time = INT64_MIN)");
    CHECK(status == MFA_ERR_REQUIRES_RECENT_LOGIN || status == MFA_ERR_INVALID_ARGUMENT);
    status = in_child(unenroll_with_oldest_auth_time, "mfa_unenroll(auth_time = INT64_MIN)");
    CHECK(status == MFA_ERR_REQUIRES_RECENT_LOGIN || status == MFA_ERR_INVALID_ARGUMENT);
    status = in_child(session_with_future_auth_time, "mfa_session_new(auth_time = INT64_MAX)");
    CHECK(status <= 0);
}

int main(void) {
    make_temp_dir("libmfa-bad-input");
    test_bad_input();
    test_extreme_auth_time();
    remove_temp_dir();
    return engine_report();
}
