/*
 * Issue 45 item 7: a master key that is not the store's key of its id is
 * MFA_ERR_KEY_MISMATCH at mfa_open, naming the id, and nothing is written
 * with it (the store keeps a key check value per key id).
 *
 *   current        a store written under k1, opened with another key as "k1"
 *   two servers    one opens a new store with k1, another with a different
 *                  key under "k1" before anything is enrolled (PostgreSQL: two
 *                  servers with key files made apart)
 *   previous       an earlier key given for rotation under a known id is checked too
 *   from before    a store without check values (written before them): a wrong
 *                  key that opens none of its records is refused and not
 *                  recorded, the right one is recorded at its first open; the
 *                  schema-2 fixture Tests/fixtures/store-v2.sqlite likewise
 *   new key id     a key under a new id (a rotation) is recorded, not refused
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

static test_store store;

static const uint8_t K3[MFA_MASTER_KEY_BYTES] = {
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40,
    0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50};

/* mfa_open on `location` with `current` and the previous keys: the status; a context
 * opened is closed at once. A refusal must come with a message naming `named` (if not
 * NULL) in quotes, and no context. */
static int open_status_at(const char *location, mfa_master_key current, const mfa_master_key *previous,
                          size_t previous_count, const char *named, int line) {
    mfa_options options;
    mfa_ctx *ctx = (mfa_ctx *)&ctx;
    char *err = NULL;
    int status;
    fixture_options(&options, location);
    options.master_key = current;
    options.previous_keys = previous;
    options.previous_key_count = previous_count;
    status = mfa_open(&ctx, &options, &err);
    if (status == MFA_OK) {
        CHECK_AT(ctx != NULL && err == NULL, line);
        mfa_close(ctx);
    } else {
        CHECK_AT(ctx == NULL && err != NULL, line);
        if (named && err) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "\"%s\"", named);
            if (!strstr(err, quoted)) fprintf(stderr, "%s:%d: message without %s: %s\n", TEST_FILE, line, quoted, err);
            CHECK_AT(strstr(err, quoted) != NULL, line);
        }
    }
    mfa_free(err);
    return status;
}
#define open_status(location, current, previous, count, named) \
    open_status_at(location, current, previous, count, named, __LINE__)

static mfa_ctx *open_keys(const char *location, mfa_master_key current, const mfa_master_key *previous,
                          size_t previous_count) {
    mfa_options options;
    fixture_options(&options, location);
    options.master_key = current;
    options.previous_keys = previous;
    options.previous_key_count = previous_count;
    return open_with(&options);
}

/* A store written under k1 (one TOTP factor, `f`), then opened with another key as "k1". */
static void test_key_mismatch_current_key(void) {
    mfa_master_key k1 = {"k1", K1}, impostor = {"k1", K2};
    mfa_user alice;
    factor f;
    mfa_ctx *ctx;
    long factors;
    user_make(&alice, "mismatch-alice", NULL);
    ctx = open_keys(store.location, k1, NULL, 0);
    set_config(ctx, NULL, ENABLE_TOTP);
    ENROLL_OK(ctx, &alice, NULL, &f);
    mfa_close(ctx);
    factors = test_store_sql(&store, "SELECT COUNT(*) FROM mfa_factors");
    CHECK(factors == 1);

    CHECK_STATUS(open_status(store.location, impostor, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
    CHECK(strcmp(mfa_status_name(MFA_ERR_KEY_MISMATCH), "KEY_MISMATCH") == 0);
    CHECK(strstr(mfa_errstr(MFA_ERR_KEY_MISMATCH), "master key") != NULL);
    /* Nothing was written: the one check value, the one factor. */
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks") == 1);
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_factors") == factors);

    /* The right key still opens the store and signs in. */
    g_now += 30;
    ctx = open_keys(store.location, k1, NULL, 0);
    SIGN_IN_OK(ctx, &alice, &f);
    mfa_close(ctx);
}

/* Two servers on one new store, each with a key made apart but both called "k1": the
 * second is refused before it can enroll anyone under its key. */
static void test_key_mismatch_two_servers(const char *location) {
    mfa_master_key first = {"k1", K1}, second = {"k1", K3};
    mfa_ctx *a = open_keys(location, first, NULL, 0);
    CHECK_STATUS(open_status(location, second, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
    CHECK_STATUS(open_status(location, first, NULL, 0, NULL), MFA_OK);
    mfa_close(a);
}

/* An earlier key given for rotation is checked like the current one. */
static void test_key_mismatch_previous_key(void) {
    mfa_master_key k1 = {"k1", K1}, k2 = {"k2", K2}, wrong_k1 = {"k1", K3};
    CHECK_STATUS(open_status(store.location, k2, &wrong_k1, 1, "k1"), MFA_ERR_KEY_MISMATCH);
    /* Refused before k2 was recorded. */
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks WHERE key_id = 'k2'") == 0);
    /* A new id is recorded, not refused; the right earlier key passes. */
    CHECK_STATUS(open_status(store.location, k2, &k1, 1, NULL), MFA_OK);
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks WHERE key_id = 'k2'") == 1);
    CHECK_STATUS(open_status(store.location, k1, &k2, 1, NULL), MFA_OK);
    /* And k2, now known, is checked too. */
    {
        mfa_master_key wrong_k2 = {"k2", K3};
        CHECK_STATUS(open_status(store.location, k1, &wrong_k2, 1, "k2"), MFA_ERR_KEY_MISMATCH);
        CHECK_STATUS(open_status(store.location, wrong_k2, &k1, 1, "k2"), MFA_ERR_KEY_MISMATCH);
    }
}

/* A store written before check values: none is stored. */
static void test_key_mismatch_store_from_before(void) {
    mfa_master_key k1 = {"k1", K1}, impostor = {"k1", K2};
    CHECK(test_store_sql(&store, "DELETE FROM mfa_key_checks") == 0);
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks") == 0);
    /* A wrong key opens none of the records under "k1": refused, and not recorded. */
    CHECK_STATUS(open_status(store.location, impostor, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks") == 0);
    /* The right key is recorded at its first open, then the wrong one is refused as before. */
    CHECK_STATUS(open_status(store.location, k1, NULL, 0, NULL), MFA_OK);
    CHECK(test_store_sql(&store, "SELECT COUNT(*) FROM mfa_key_checks WHERE key_id = 'k1'") == 1);
    CHECK_STATUS(open_status(store.location, impostor, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
}

/* Tests/fixtures/store-v2.sqlite: written by libmfa 0.1.0 under "k1" (32 bytes of 7). */
static void test_key_mismatch_schema_two_fixture(void) {
    static const uint8_t fixture_key[MFA_MASTER_KEY_BYTES] = {
        7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
    mfa_master_key right = {"k1", fixture_key}, wrong = {"k1", K1};
    char source[1024], path[512], command[1600];
    const char *slash = strrchr(TEST_FILE, '/');
    int length = slash ? (int)(slash - TEST_FILE) : 1;
    snprintf(source, sizeof source, "%.*s/../fixtures/store-v2.sqlite", length, slash ? TEST_FILE : ".");
    snprintf(path, sizeof path, "%s/store-v2.sqlite", temp_dir);
    snprintf(command, sizeof command, "cp '%s' '%s'", source, path);
    CHECK(system(command) == 0);
    CHECK_STATUS(open_status(path, wrong, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
    CHECK_STATUS(open_status(path, right, NULL, 0, NULL), MFA_OK);
    CHECK_STATUS(open_status(path, wrong, NULL, 0, "k1"), MFA_ERR_KEY_MISMATCH);
    test_remove_sqlite(path);
}

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-key-mismatch") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    make_temp_dir("libmfa-key-mismatch-files");
    test_key_mismatch_current_key();
    test_key_mismatch_previous_key();
    test_key_mismatch_store_from_before();
    test_store_remove(&store);
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-key-mismatch") != 0) return 2;
    test_key_mismatch_two_servers(store.location);
    test_store_remove(&store);
    test_key_mismatch_schema_two_fixture();
    remove_temp_dir();
    return engine_report();
}
