/*
 * Key rotation in batches and the seal check through the C ABI
 * (mfa_rotate_keys_batched, mfa_check_seals), on a store of imported factors
 * and secrets in flight under key k1, with k2 the new current key.
 *
 *   check      with k2 alone every record fails to open (ids reported, at
 *              most 100), nothing is written; with k1 and k2 none fails;
 *              progress after each batch, a stop between batches
 *   rotation   a run stopped after its first batch leaves exactly the rest
 *              (remaining), a second run resumes and finishes; progress
 *              (done, total) after each batch; KEYS_ROTATED with the actor,
 *              or "" without one; afterwards k2 alone opens everything and the
 *              factors sign in; a run with nothing to do
 *   refusals   batch sizes outside 1..MFA_ROTATION_BATCH_MAX, actors "", too
 *              long or not UTF-8, NULL out and context (the result zeroed);
 *              a record whose key was not given is CRYPTO; free(NULL)
 *   formats    issue 45 item 8: every row is checked whatever its seal_format:
 *              a factor whose format was altered counts as failed, and the
 *              schema-2 fixture (Tests/fixtures/store-v2.sqlite, sealed the old
 *              way under k1) opened with a new key alone reports its factors
 *              failed, never "checked 0"
 *
 * The store is a new SQLite file, or the location given as the argument
 * (test_pg_store.h: CTest runs it on the PostgreSQL fixture too).
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"
#include "test_store_sql.h"

#define USERS 30
#define ACTOR "ops:keys"

static test_store store;

static const uint8_t K3[MFA_MASTER_KEY_BYTES] = {
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40,
    0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50};

/* A context on the store with `current` and the previous keys given. */
static mfa_ctx *open_keys(mfa_master_key current, const mfa_master_key *previous, size_t previous_count) {
    mfa_options options;
    fixture_options(&options, store.location);
    options.master_key = current;
    options.previous_keys = previous;
    options.previous_key_count = previous_count;
    return open_with(&options);
}

typedef struct progress_log {
    size_t calls;
    size_t stop_at; /* stop on this call (from 1); 0: never */
    int64_t last_done, last_total;
    int monotonic;
} progress_log;

static int record_progress(void *context, int64_t done, int64_t total) {
    progress_log *log = context;
    if (log->calls && done < log->last_done) log->monotonic = 0;
    if (done > total) log->monotonic = 0;
    log->last_done = done;
    log->last_total = total;
    log->calls++;
    return log->stop_at != 0 && log->calls >= log->stop_at;
}

static progress_log progress_new(size_t stop_at) {
    progress_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = stop_at;
    log.monotonic = 1;
    return log;
}

/* mfa_check_seals: the status; the record counts in *checked, *failed (-1 if no result). */
static int check_seals(mfa_ctx *ctx, int32_t batch, progress_log *progress, int64_t *checked, int64_t *failed,
                       size_t *ids, int *stopped) {
    mfa_seal_check *result = NULL;
    char *err = NULL;
    int status = mfa_check_seals(ctx, &result, batch, progress ? record_progress : NULL, progress, &err);
    *checked = *failed = -1;
    if (ids) *ids = 0;
    if (stopped) *stopped = -1;
    CHECK((status == MFA_OK) == (result != NULL));
    CHECK((status == MFA_OK) == (err == NULL));
    if (result) {
        *checked = result->checked;
        *failed = result->failed;
        if (ids) *ids = result->failed_id_count;
        if (stopped) *stopped = result->stopped;
        for (size_t i = 0; i < result->failed_id_count; i++) CHECK(result->failed_ids[i] && *result->failed_ids[i]);
    }
    mfa_seal_check_free(result);
    mfa_free(err);
    return status;
}

/* Issue 45 item 8: rows of every seal format are checked; a format libmfa cannot read fails. */
static void test_check_seals_every_format(mfa_master_key current) {
    mfa_ctx *ctx;
    int64_t checked, failed, before;
    size_t ids;
    ctx = open_keys(current, NULL, 0);
    CHECK_STATUS(check_seals(ctx, 10, NULL, &checked, &failed, NULL, NULL), MFA_OK);
    CHECK(failed == 0 && checked > 0);
    before = checked;
    /* One factor's format altered to one libmfa does not know: still checked, and failed. */
    CHECK(test_store_sql(&store, "UPDATE mfa_factors SET seal_format = 9 WHERE enrollment_id = "
                                 "(SELECT MIN(enrollment_id) FROM mfa_factors)") == 0);
    CHECK_STATUS(check_seals(ctx, 10, NULL, &checked, &failed, &ids, NULL), MFA_OK);
    CHECK(checked == before && failed == 1 && ids == 1);
    CHECK(test_store_sql(&store, "UPDATE mfa_factors SET seal_format = 2 WHERE seal_format = 9") == 0);
    CHECK_STATUS(check_seals(ctx, 10, NULL, &checked, &failed, NULL, NULL), MFA_OK);
    CHECK(checked == before && failed == 0);
    mfa_close(ctx);
}

/* Issue 45 item 8: the schema-2 fixture, whose factors are sealed the old way under k1
 * (32 bytes of 7), opened with a new key only: both factors reported failed. */
static void test_check_seals_schema_two_fixture(void) {
    mfa_master_key fresh = {"k-new", K3};
    mfa_options options;
    mfa_ctx *ctx;
    test_store copy;
    char source[1024], command[2600];
    int64_t checked, failed;
    size_t ids;
    const char *slash = strrchr(TEST_FILE, '/');
    int length = slash ? (int)(slash - TEST_FILE) : 1;
    if (test_store_make(&copy, NULL, "libmfa-keys-v2") != 0) {
        CHECK(0);
        return;
    }
    snprintf(source, sizeof source, "%.*s/../fixtures/store-v2.sqlite", length, slash ? TEST_FILE : ".");
    snprintf(command, sizeof command, "cp '%s' '%s'", source, copy.location);
    CHECK(system(command) == 0);
    fixture_options(&options, copy.location);
    options.master_key = fresh;
    ctx = open_with(&options);
    CHECK_STATUS(check_seals(ctx, 10, NULL, &checked, &failed, &ids, NULL), MFA_OK);
    printf("store-v2 with a new key only: checked %lld, failed %lld\n", (long long)checked, (long long)failed);
    CHECK(checked == 2 && failed == 2 && ids == 2);
    mfa_close(ctx);
    CHECK(test_store_sql(&copy, "SELECT COUNT(*) FROM mfa_factors WHERE seal_format = 1") == 2);
    test_store_remove(&copy);
}

int main(int argc, char **argv) {
    mfa_master_key k1 = {"k1", K1}, k2 = {"k2", K2}, k3 = {"k3", K3};
    mfa_master_key both[1];
    mfa_ctx *ctx;
    mfa_rotation_result result;
    progress_log progress;
    int64_t checked, failed, total;
    size_t ids;
    int stopped;
    char *err = NULL;
    char first_eid[64] = "";
    mfa_user user;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-keys") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    both[0] = k1;

    /* Under k1: USERS imported factors, and a TOTP secret waiting for its enrollment. */
    ctx = open_keys(k1, NULL, 0);
    if (!ctx) return engine_report();
    set_config(ctx, NULL, ENABLE_TOTP);
    {
        char text[USERS * 80];
        size_t used = 0;
        mfa_import_summary summary;
        mfa_import_options o = MFA_IMPORT_OPTIONS_INIT;
        o.actor = ACTOR;
        for (int i = 0; i < USERS; i++) {
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "otpauth://totp/key-u%02d?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ%c\n", i,
                                     'A' + i % 26);
        }
        CHECK_ERR(mfa_import(ctx, &summary, MFA_IMPORT_OTPAUTH, (const uint8_t *)text, used, &o, &err), MFA_OK, err);
        CHECK(summary.imported == USERS);
    }
    user_make(&user, "key-u00", NULL);
    CHECK(list_factors_at(ctx, &user, first_eid, 0, __LINE__) == 1);
    {
        char *session = NULL;
        mfa_totp_secret *secret = NULL;
        mfa_user pending;
        user_make(&pending, "key-pending", NULL);
        CHECK_STATUS(mfa_session_new(ctx, &session, &pending, NULL), MFA_OK);
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_OK);
        mfa_totp_secret_free(secret);
        mfa_free(session);
    }
    CHECK_STATUS(check_seals(ctx, 7, NULL, &checked, &failed, NULL, NULL), MFA_OK);
    total = checked;
    CHECK(total == USERS + 1 && failed == 0); /* the factors and the pending secret */
    mfa_close(ctx);

    /* k2 alone opens none of it; the check reports each record and writes nothing. */
    ctx = open_keys(k2, NULL, 0);
    progress = progress_new(0);
    CHECK_STATUS(check_seals(ctx, 8, &progress, &checked, &failed, &ids, &stopped), MFA_OK);
    CHECK(checked == total && failed == total && ids == (size_t)total && stopped == 0);
    /* Batches are per table: the factors in batches of 8, then the pending secret. */
    CHECK(progress.calls == (size_t)((USERS + 7) / 8) + 1);
    CHECK(progress.monotonic && progress.last_done == total && progress.last_total == total);
    progress = progress_new(1);
    CHECK_STATUS(check_seals(ctx, 8, &progress, &checked, &failed, NULL, &stopped), MFA_OK);
    CHECK(checked == 8 && stopped == 1 && progress.calls == 1);
    /* Rotating without the old key: CRYPTO, nothing lost. */
    CHECK_ERR(mfa_rotate_keys_batched(ctx, &result, 10, ACTOR, NULL, NULL, &err), MFA_ERR_CRYPTO, err);
    CHECK(result.rotated == 0 && result.remaining == 0 && !result.stopped);
    mfa_close(ctx);

    /* k2 current, k1 previous: a run stopped after its first batch, then resumed. */
    ctx = open_keys(k2, both, 1);
    CHECK_STATUS(check_seals(ctx, 100, NULL, &checked, &failed, NULL, NULL), MFA_OK);
    CHECK(checked == total && failed == 0);
    reset_recorders();
    progress = progress_new(1);
    CHECK_ERR(mfa_rotate_keys_batched(ctx, &result, 10, ACTOR, record_progress, &progress, &err), MFA_OK, err);
    CHECK(result.rotated == 10 && result.remaining == total - 10 && result.stopped);
    CHECK(progress.calls == 1 && progress.last_done == 10 && progress.last_total == total);
    {
        const audit_record *e = audit_last(MFA_AUDIT_KEYS_ROTATED);
        CHECK(e && strcmp(e->actor, ACTOR) == 0 && strcmp(e->kind_name, "KEYS_ROTATED") == 0);
        CHECK(e && strcmp(e->tenant, "") == 0 && strcmp(e->uid, "") == 0);
    }
    progress = progress_new(0);
    CHECK_ERR(mfa_rotate_keys_batched(ctx, &result, 7, NULL, record_progress, &progress, &err), MFA_OK, err);
    CHECK(result.rotated == total - 10 && result.remaining == 0 && !result.stopped);
    /* Batches are per table: the factors left in batches of 7, then the pending secret. */
    CHECK(progress.monotonic && progress.last_done == total - 10 && progress.last_total == total - 10);
    CHECK(progress.calls == (size_t)((USERS - 10 + 6) / 7) + 1);
    CHECK(audit_last(MFA_AUDIT_KEYS_ROTATED) && strcmp(audit_last(MFA_AUDIT_KEYS_ROTATED)->actor, "") == 0);
    /* Nothing left to do. */
    CHECK_ERR(mfa_rotate_keys_batched(ctx, &result, MFA_ROTATION_BATCH_MAX, ACTOR, NULL, NULL, &err), MFA_OK, err);
    CHECK(result.rotated == 0 && result.remaining == 0 && !result.stopped);

    /* Refusals: the result is zeroed, nothing is audited. */
    {
        const int32_t sizes[] = {0, -1, MFA_ROTATION_BATCH_MAX + 1, INT32_MIN, INT32_MAX};
        char long_actor[MFA_ACTOR_MAX_BYTES + 2];
        const char *actors[4];
        mfa_seal_check *check = NULL;
        size_t mark = g_audit.count;
        memset(long_actor, 'a', sizeof long_actor - 1);
        long_actor[sizeof long_actor - 1] = '\0';
        actors[0] = "";
        actors[1] = long_actor;
        actors[2] = "\xed\xa0\x80";
        actors[3] = "ops\xff";
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            memset(&result, 0xFF, sizeof result);
            CHECK_STATUS(mfa_rotate_keys_batched(ctx, &result, sizes[i], ACTOR, NULL, NULL, NULL),
                         MFA_ERR_INVALID_ARGUMENT);
            CHECK(result.rotated == 0 && result.remaining == 0 && !result.stopped);
            CHECK_STATUS(mfa_check_seals(ctx, &check, sizes[i], NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
            CHECK(check == NULL);
        }
        for (size_t i = 0; i < sizeof actors / sizeof actors[0]; i++) {
            CHECK_STATUS(mfa_rotate_keys_batched(ctx, &result, 10, actors[i], NULL, NULL, NULL),
                         MFA_ERR_INVALID_ARGUMENT);
        }
        CHECK_STATUS(mfa_rotate_keys_batched(ctx, NULL, 10, ACTOR, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        memset(&result, 0xFF, sizeof result);
        CHECK_STATUS(mfa_rotate_keys_batched(NULL, &result, 10, ACTOR, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(result.rotated == 0 && !result.stopped);
        CHECK_STATUS(mfa_check_seals(ctx, NULL, 10, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(mfa_check_seals(NULL, &check, 10, NULL, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
        CHECK(check == NULL);
        CHECK(g_audit.count == mark);
        mfa_seal_check_free(NULL);
    }
    mfa_close(ctx);

    /* k2 alone now opens everything, and the factors sign in. */
    ctx = open_keys(k2, NULL, 0);
    CHECK_STATUS(check_seals(ctx, MFA_ROTATION_BATCH_MAX, NULL, &checked, &failed, &ids, NULL), MFA_OK);
    CHECK(checked == total && failed == 0 && ids == 0);
    g_now += 30;
    {
        factor f;
        memset(&f, 0, sizeof f);
        snprintf(f.eid, sizeof f.eid, "%s", first_eid);
        snprintf(f.key, sizeof f.key, "%s", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJA");
        SIGN_IN_OK(ctx, &user, &f);
    }
    mfa_close(ctx);

    /* A key nobody gave (k3 current, k1 previous): k2's records are CRYPTO to rotate. */
    ctx = open_keys(k3, both, 1);
    CHECK_ERR(mfa_rotate_keys_batched(ctx, &result, 10, ACTOR, NULL, NULL, &err), MFA_ERR_CRYPTO, err);
    mfa_close(ctx);

    test_check_seals_every_format(k2);
    test_check_seals_schema_two_fixture();

    test_store_remove(&store);
    return engine_report();
}
