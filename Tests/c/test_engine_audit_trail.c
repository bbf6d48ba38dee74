/*
 * The stored audit trail through the C ABI (issue 52): auditTrail.store in
 * the configuration, mfa_trail_read, mfa_trail_verify, mfa_trail_purge and
 * mfa_options.audit_chain (options version 3).
 *
 *   stored     what the callback sees is what mfa_trail_read gives back, in
 *              order, numbered from 1 in chain "main"; the chain verifies;
 *              filters by user, kind (number or name), time, chain; the
 *              latest; pages
 *   tamper     a row deleted with SQLite's own API: mfa_trail_verify says
 *              the chain breaks at that event
 *   purge      maxEvents: the oldest deleted, the chain still whole
 *   chains     a second context on chain "east", options version 2 (no
 *              audit_chain: "main")
 *   bad input  NULL ctx and out, a query of version 0 or too new, limits,
 *              an unknown kind, kind and kind_name disagreeing, a bad chain;
 *              NULL frees; a bad options->audit_chain
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>

#include "test_engine_fixture.h"

#define TRAIL_ON \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"},\"auditTrail\":{\"store\":true}}"

static char store_path[512];

static void remove_store(void) {
    char path[600];
    unlink(store_path);
    snprintf(path, sizeof path, "%s-wal", store_path);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", store_path);
    unlink(path);
}

static mfa_ctx *open_chain(const char *chain, uint32_t version) {
    mfa_options options;
    fixture_options(&options, store_path);
    options.version = version;
    if (version >= 3) options.audit_chain = chain;
    return open_with(&options);
}

static mfa_trail_record_list *read_query(mfa_ctx *ctx, const mfa_trail_query *query) {
    mfa_trail_record_list *list = NULL;
    char *err = NULL;
    int status = mfa_trail_read(ctx, &list, query, &err);
    if (status != MFA_OK) fprintf(stderr, "mfa_trail_read: %s\n", err ? err : "");
    CHECK_STATUS(status, MFA_OK);
    CHECK(err == NULL && list != NULL);
    mfa_free(err);
    return list;
}

static void exec_sql(const char *sql) {
    sqlite3 *db = NULL;
    char *message = NULL;
    CHECK(sqlite3_open(store_path, &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK);
    sqlite3_free(message);
    sqlite3_close(db);
}

static mfa_trail_verification *verify(mfa_ctx *ctx) {
    mfa_trail_verification *result = NULL;
    CHECK_STATUS(mfa_trail_verify(ctx, &result, NULL), MFA_OK);
    CHECK(result != NULL);
    return result;
}

static void test_stored_as_reported(void) {
    mfa_ctx *ctx;
    mfa_user user;
    factor f;
    char cred[TOKEN_MAX];
    mfa_trail_query query = MFA_TRAIL_QUERY_INIT;
    mfa_trail_record_list *list;
    mfa_trail_verification *result;
    size_t i;
    int64_t start = g_now;

    reset_recorders();
    ctx = open_chain(NULL, MFA_OPTIONS_VERSION);
    set_config(ctx, NULL, TRAIL_ON);
    user_make(&user, "trail-user", NULL);
    ENROLL_OK(ctx, &user, "app", &f);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(resolve(ctx, cred, NULL, f.eid, "000000"), MFA_ERR_INVALID_VERIFICATION_CODE);
    g_now += 30;
    SIGN_IN_OK(ctx, &user, &f);
    CHECK_STATUS(mfa_revoke_tokens(ctx, NULL, "trail-user", NULL), MFA_OK);

    /* Everything the callback saw, in order (NULL query: the defaults). */
    list = read_query(ctx, NULL);
    CHECK(list->count == g_audit.count && list->count == 5);
    for (i = 0; i < list->count && i < g_audit.count; i++) {
        const mfa_trail_record *r = &list->records[i];
        const audit_record *e = &g_audit.events[i];
        CHECK(strcmp(r->chain, "main") == 0 && r->seq == (int64_t)i + 1 && strcmp(r->key_id, "k1") == 0);
        CHECK(r->event.kind == e->kind && strcmp(r->event.kind_name, e->kind_name) == 0);
        CHECK(strcmp(r->event.uid, e->uid) == 0 && strcmp(r->event.enrollment_id, e->enrollment_id) == 0);
        CHECK(strcmp(r->event.detail, e->detail) == 0 && r->event.time == e->time);
    }
    mfa_trail_record_list_free(list);

    /* Filters. */
    query.kind = MFA_AUDIT_SIGN_IN_FAILURE;
    list = read_query(ctx, &query);
    CHECK(list->count == 1 && strcmp(list->records[0].event.detail, "INVALID_VERIFICATION_CODE") == 0);
    mfa_trail_record_list_free(list);
    query.kind = 0;
    query.kind_name = "SIGN_IN_SUCCESS";
    query.uid = "trail-user";
    list = read_query(ctx, &query);
    CHECK(list->count == 1 && list->records[0].event.kind == MFA_AUDIT_SIGN_IN_SUCCESS);
    mfa_trail_record_list_free(list);
    CHECK_STATUS(mfa_trail_query_init(&query, MFA_TRAIL_QUERY_VERSION), MFA_OK);
    query.since = start + 30;
    query.until = start + 60;
    list = read_query(ctx, &query);
    CHECK(list->count == 1 && list->records[0].event.kind == MFA_AUDIT_SIGN_IN_FAILURE);
    mfa_trail_record_list_free(list);
    CHECK_STATUS(mfa_trail_query_init(&query, MFA_TRAIL_QUERY_VERSION), MFA_OK);
    query.limit = 2;
    query.latest = 1;
    list = read_query(ctx, &query);
    CHECK(list->count == 2 && list->records[0].seq == 4 && list->records[1].seq == 5);
    mfa_trail_record_list_free(list);
    /* Pages: after the second record. */
    CHECK_STATUS(mfa_trail_query_init(&query, MFA_TRAIL_QUERY_VERSION), MFA_OK);
    query.after_time = g_audit.events[1].time;
    query.after_chain = "main";
    query.after_seq = 2;
    list = read_query(ctx, &query);
    CHECK(list->count == 3 && list->records[0].seq == 3);
    mfa_trail_record_list_free(list);
    CHECK_STATUS(mfa_trail_query_init(&query, MFA_TRAIL_QUERY_VERSION), MFA_OK);
    query.chain = "main";
    query.after_seq = 3;
    list = read_query(ctx, &query);
    CHECK(list->count == 2 && list->records[0].seq == 4);
    mfa_trail_record_list_free(list);

    result = verify(ctx);
    CHECK(result->intact && result->verified == 5 && result->unchecked == 0 && result->chain_count == 1);
    CHECK(strcmp(result->chains[0].chain, "main") == 0 && !result->chains[0].broken);
    CHECK(result->chains[0].problem == NULL && result->chains[0].missing_key_count == 0);
    CHECK(result->chains[0].anchor_seq == 1 && result->chains[0].head_seq == 5);
    mfa_trail_verification_free(result);

    /* A row deleted behind libmfa's back: the chain breaks there. */
    exec_sql("DELETE FROM mfa_audit_events WHERE seq = 3");
    result = verify(ctx);
    CHECK(!result->intact && result->chain_count == 1 && result->chains[0].broken);
    CHECK(result->chains[0].broken_at == 3 && result->chains[0].problem != NULL);
    mfa_trail_verification_free(result);
    mfa_close(ctx);
}

static void test_purge_and_chains(void) {
    mfa_ctx *main_ctx;
    mfa_ctx *east;
    mfa_ctx *old;
    int64_t deleted = -1;
    int i;
    mfa_trail_verification *result;
    mfa_trail_query query = MFA_TRAIL_QUERY_INIT;
    mfa_trail_record_list *list;
    char uid[32];

    main_ctx = open_chain(NULL, MFA_OPTIONS_VERSION);
    set_config(main_ctx, NULL, "{\"auditTrail\":{\"store\":true,\"maxEvents\":3}}");
    east = open_chain("east", MFA_OPTIONS_VERSION);
    old = open_chain(NULL, 2); /* options version 2: no audit_chain, the default chain */
    for (i = 0; i < 4; i++) {
        snprintf(uid, sizeof uid, "u%d", i);
        CHECK_STATUS(mfa_revoke_tokens(east, NULL, uid, NULL), MFA_OK);
        CHECK_STATUS(mfa_revoke_tokens(old, NULL, uid, NULL), MFA_OK);
    }
    query.chain = "east";
    list = read_query(main_ctx, &query);
    CHECK(list->count == 4 && list->records[3].seq == 4 && strcmp(list->records[3].event.uid, "u3") == 0);
    mfa_trail_record_list_free(list);
    CHECK_STATUS(mfa_trail_purge(main_ctx, &deleted, NULL), MFA_OK);
    CHECK(deleted > 0);
    CHECK_STATUS(mfa_trail_purge(main_ctx, NULL, NULL), MFA_OK);
    list = read_query(main_ctx, &query);
    CHECK(list->count == 3 && list->records[0].seq == 2);
    mfa_trail_record_list_free(list);
    result = verify(main_ctx);
    CHECK(result->intact && result->chain_count == 2);
    CHECK(strcmp(result->chains[0].chain, "east") == 0 && result->chains[0].anchor_seq == 2);
    CHECK(strcmp(result->chains[1].chain, "main") == 0 && result->chains[1].head_seq - result->chains[1].anchor_seq == 2);
    mfa_trail_verification_free(result);
    mfa_close(old);
    mfa_close(east);
    mfa_close(main_ctx);
}

static void test_bad_input(void) {
    mfa_ctx *ctx = open_chain(NULL, MFA_OPTIONS_VERSION);
    mfa_trail_record_list *list = NULL;
    mfa_trail_verification *result = NULL;
    mfa_trail_query query = MFA_TRAIL_QUERY_INIT;
    mfa_options options;
    mfa_ctx *bad = NULL;
    char *err = NULL;
    const char *chains[] = {"", "a b", "x;DROP", "\xc3\xa9",
                            "12345678901234567890123456789012345678901234567890123456789012345"};
    size_t i;

    CHECK_STATUS(mfa_trail_read(NULL, &list, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_read(ctx, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_verify(NULL, &result, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_verify(ctx, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_purge(NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_query_init(NULL, MFA_TRAIL_QUERY_VERSION), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_query_init(&query, 0), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_trail_query_init(&query, MFA_TRAIL_QUERY_VERSION + 1), MFA_ERR_INVALID_ARGUMENT);
    query.version = 0;
    CHECK_STATUS(mfa_trail_read(ctx, &list, &query, NULL), MFA_ERR_INVALID_ARGUMENT);
    query.version = MFA_TRAIL_QUERY_VERSION + 1;
    CHECK_STATUS(mfa_trail_read(ctx, &list, &query, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);
#define BAD_QUERY(field, value)                                                              \
    do {                                                                                   \
        mfa_trail_query q_ = MFA_TRAIL_QUERY_INIT;                                         \
        q_.field = value;                                                                  \
        CHECK_STATUS(mfa_trail_read(ctx, &list, &q_, &err), MFA_ERR_INVALID_ARGUMENT);     \
        CHECK(list == NULL && err != NULL);                                                \
        mfa_free(err);                                                                     \
        err = NULL;                                                                        \
    } while (0)
    BAD_QUERY(limit, 0);
    BAD_QUERY(limit, MFA_TRAIL_READ_MAX + 1);
    BAD_QUERY(limit, -1);
    BAD_QUERY(kind, 999);
    BAD_QUERY(kind, -1);
    BAD_QUERY(kind_name, "sign-in");
    BAD_QUERY(kind_name, "");
    BAD_QUERY(kind_name, "\xff");
    BAD_QUERY(chain, "a b");
    BAD_QUERY(uid, "");
    BAD_QUERY(after_chain, "");
    {
        mfa_trail_query q = MFA_TRAIL_QUERY_INIT;
        q.kind = MFA_AUDIT_ENROLL;
        q.kind_name = "UNENROLL";
        CHECK_STATUS(mfa_trail_read(ctx, &list, &q, NULL), MFA_ERR_INVALID_ARGUMENT);
    }
    mfa_trail_record_list_free(NULL);
    mfa_trail_verification_free(NULL);
    for (i = 0; i < sizeof chains / sizeof chains[0]; i++) {
        fixture_options(&options, store_path);
        options.audit_chain = chains[i];
        CHECK_STATUS(mfa_open(&bad, &options, &err), MFA_ERR_INVALID_ARGUMENT);
        CHECK(bad == NULL && err != NULL);
        mfa_free(err);
        err = NULL;
    }
    mfa_close(ctx);
}

int main(void) {
    make_temp_dir("mfa-audit-trail");
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", temp_dir);
    test_stored_as_reported();
    remove_store();
    /* A store of its own: the first one's chain was broken on purpose. */
    snprintf(store_path, sizeof store_path, "%s/second.sqlite", temp_dir);
    test_purge_and_chains();
    test_bad_input();
    remove_store();
    remove_temp_dir();
    return engine_report();
}
