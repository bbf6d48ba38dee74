/*
 * The admin API through the C ABI (mfa_admin_*): the operator's calls, with no
 * user sign-in, on a store of users with every factor kind in the project and
 * in a tenant.
 *
 *   list       pages of users in tenant-then-uid order, cursors, the last page,
 *              filters by tenant (every one, the project, one) and factor kind,
 *              per-kind counts; limits, factor ids and cursors refused
 *   factors    one user's factors (numbers masked, or shown with
 *              MFA_ADMIN_SHOW_PHONE_NUMBERS), one factor by its id with its owner
 *   rename     the new name, a name removed, FACTOR_RENAMED with the actor
 *   unenroll   the factor gone, the owner's sign-in in progress and earlier
 *              credentials refused, UNENROLL (detail ADMIN) with the actor
 *   reset      every factor gone in one call, a sign-in in progress, an
 *              enrollment session and credentials refused, the user signs in
 *              with the first factor alone; UNENROLL per factor and USER_RESET
 *   delete     nothing left of the user but the revocation, USER_DELETED
 *   nothing    reset and delete of a user with nothing to remove (a stranger, a user reset or
 *              deleted before): MFA_ENROLLMENT_NOT_FOUND, nothing written or audited
 *   stats      users and factors per tenant and kind, before and after
 *   bad input  NULL context and out (and `out` NULL where it is optional),
 *              actors NULL, empty, one byte too long or not UTF-8 (nothing
 *              written, nothing audited; the longest actor accepted), uids,
 *              tenants, enrollment ids and names empty, too long or not UTF-8,
 *              limits out of range, unknown factor ids, cursors libmfa did
 *              not make, unknown ids and users, bad flags; free(NULL)
 *
 * The store is a new SQLite file, or the location given as the argument
 * (test_pg_store.h: CTest runs it on the PostgreSQL fixture too).
 *
 * Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"
#include "test_pg_store.h"

#define ACTOR "ops:bob"
#define ALICE_PHONE "+15105551234"
#define DAVE_PHONE "+15105557777"

static test_store store;

/* An identifier one byte over the 128 a uid, tenant or enrollment id may have. */
static char long_id[130];

/* The population every test starts from. */
static mfa_user alice, bob, carol, acme_alice, acme_dave;
/* A user of the project enrolled, unenrolled, reset and deleted with `out` NULL. */
static mfa_user erin;
static factor alice_totp, bob_totp, carol_codes, acme_alice_totp;
static char alice_phone[64], dave_phone[64];

static void populate(mfa_ctx *ctx) {
    user_make(&alice, "u-alice", NULL);
    user_make(&bob, "u-bob", NULL);
    user_make(&carol, "u-carol", NULL);
    user_make(&acme_alice, "u-alice", "acme");
    user_make(&acme_dave, "u-dave", "acme");
    user_make(&erin, "u-erin", NULL);
    ENROLL_OK(ctx, &alice, "Alice's app", &alice_totp);
    g_now += 10;
    ENROLL_PHONE_OK(ctx, &alice, ALICE_PHONE, "Alice's phone", alice_phone);
    g_now += 10;
    ENROLL_OK(ctx, &bob, NULL, &bob_totp);
    CHECK_STATUS(generate_codes(ctx, &carol, NULL, &carol_codes), MFA_OK);
    ENROLL_OK(ctx, &acme_alice, NULL, &acme_alice_totp);
    ENROLL_PHONE_OK(ctx, &acme_dave, DAVE_PHONE, NULL, dave_phone);
    g_now += 60;
}

/* One page: its status; the users as "tenant/uid" lines in `seen` (NULL tenant as "-"). */
static int list_page(mfa_ctx *ctx, const char *tenant, const char *factor_id, int32_t limit, const char *cursor,
                     char *seen, size_t size, char next[512]) {
    mfa_admin_user_page *page = (mfa_admin_user_page *)&store; /* a sentinel */
    char *err = NULL;
    int status = mfa_admin_list_users(ctx, &page, tenant, factor_id, limit, cursor, &err);
    seen[0] = '\0';
    next[0] = '\0';
    if (status != MFA_OK) {
        CHECK(page == NULL && err != NULL);
        mfa_free(err);
        return status;
    }
    CHECK(page != NULL && err == NULL);
    for (size_t i = 0; page && i < page->count; i++) {
        size_t used = strlen(seen);
        snprintf(seen + used, size - used, "%s/%s ", page->users[i].tenant ? page->users[i].tenant : "-",
                 page->users[i].uid);
    }
    if (page && page->next_cursor) snprintf(next, 512, "%s", page->next_cursor);
    mfa_admin_user_page_free(page);
    return status;
}

static void test_list_users(mfa_ctx *ctx) {
    char seen[1024], next[512], cursor[512];
    mfa_admin_user_page *page = NULL;
    char *err = NULL;

    /* Three pages of two, in tenant (the project first) then uid order. */
    CHECK_STATUS(list_page(ctx, NULL, NULL, 2, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-alice -/u-bob ") == 0);
    CHECK(next[0] != '\0');
    snprintf(cursor, sizeof cursor, "%s", next);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 2, cursor, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-carol acme/u-alice ") == 0);
    snprintf(cursor, sizeof cursor, "%s", next);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 2, cursor, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "acme/u-dave ") == 0);
    CHECK(next[0] == '\0'); /* the last page */
    CHECK_STATUS(list_page(ctx, NULL, NULL, MFA_ADMIN_PAGE_MAX, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-alice -/u-bob -/u-carol acme/u-alice acme/u-dave ") == 0 && next[0] == '\0');

    /* Filters: the project only, one tenant, one kind, both. */
    CHECK_STATUS(list_page(ctx, "", NULL, 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-alice -/u-bob -/u-carol ") == 0);
    CHECK_STATUS(list_page(ctx, "acme", NULL, 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "acme/u-alice acme/u-dave ") == 0);
    CHECK_STATUS(list_page(ctx, "other", NULL, 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "") == 0);
    CHECK_STATUS(list_page(ctx, NULL, "phone", 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-alice acme/u-dave ") == 0);
    CHECK_STATUS(list_page(ctx, NULL, "recovery", 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "-/u-carol ") == 0);
    CHECK_STATUS(list_page(ctx, "acme", "totp", 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "acme/u-alice ") == 0);

    /* Per-kind counts, in factor-id order. */
    CHECK_STATUS(mfa_admin_list_users(ctx, &page, "", NULL, 1, NULL, &err), MFA_OK);
    if (page && page->count == 1) {
        const mfa_admin_user *u = &page->users[0];
        CHECK(u->tenant == NULL && strcmp(u->uid, "u-alice") == 0 && u->factor_total == 2);
        CHECK(u->kind_count == 2);
        if (u->kind_count == 2) {
            CHECK(strcmp(u->kinds[0].factor_id, "phone") == 0 && u->kinds[0].kind == MFA_FACTOR_PHONE);
            CHECK(strcmp(u->kinds[1].factor_id, "totp") == 0 && u->kinds[1].kind == MFA_FACTOR_TOTP);
            CHECK(u->kinds[0].count == 1 && u->kinds[1].count == 1);
        }
        CHECK(page->next_cursor != NULL);
    }
    mfa_admin_user_page_free(page);
    page = NULL;

    /* Refused: limits, kinds, cursors, tenants. */
    CHECK_STATUS(list_page(ctx, NULL, NULL, 0, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, -1, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, MFA_ADMIN_PAGE_MAX + 1, NULL, seen, sizeof seen, next),
                 MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, "sms", 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, "", 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "garbage!", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, "\xff", NULL, 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, long_id, NULL, 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, INT32_MIN, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, INT32_MAX, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, "TOTP", 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, "totp\xff", 10, NULL, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "AQB4\xff", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    /* A cursor is base64url of a version byte 1, the tenant's length, the tenant and the uid:
     * another version, a tenant longer than the bytes, a uid missing, a cursor over 400
     * bytes are refused. */
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "AgB4", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "AQV4", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "AQA", seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    {
        char huge[600];
        memset(huge, 'A', sizeof huge - 1);
        huge[sizeof huge - 1] = '\0';
        CHECK_STATUS(list_page(ctx, NULL, NULL, 10, huge, seen, sizeof seen, next), MFA_ERR_INVALID_ARGUMENT);
    }
    /* A cursor made by hand only moves the position (the project's "x": after u-carol). */
    CHECK_STATUS(list_page(ctx, NULL, NULL, 10, "AQB4", seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "acme/u-alice acme/u-dave ") == 0 && next[0] == '\0');
    CHECK_STATUS(mfa_admin_list_users(NULL, &page, NULL, NULL, 10, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_list_users(ctx, NULL, NULL, NULL, 10, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(page == NULL);
}

static void test_user_factors(mfa_ctx *ctx) {
    mfa_factor_list *list = NULL;
    mfa_admin_factor *found = NULL;
    char *err = NULL;

    /* Oldest first; the number masked, as in hints, unless asked for. */
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-alice", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 2);
    if (list && list->count == 2) {
        CHECK(strcmp(list->items[0].uid, alice_totp.eid) == 0 && list->items[0].kind == MFA_FACTOR_TOTP);
        CHECK(strcmp(list->items[0].display_name, "Alice's app") == 0);
        CHECK(strcmp(list->items[1].uid, alice_phone) == 0 && list->items[1].kind == MFA_FACTOR_PHONE);
        CHECK(strcmp(list->items[1].phone_number, "+1******1234") == 0);
        CHECK(strcmp(list->items[1].hint, "+1******1234") == 0);
    }
    mfa_factor_list_free(list);
    list = NULL;
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-alice", MFA_ADMIN_SHOW_PHONE_NUMBERS, &err), MFA_OK, err);
    CHECK(list && list->count == 2 && strcmp(list->items[1].phone_number, ALICE_PHONE) == 0);
    mfa_factor_list_free(list);
    list = NULL;
    /* The tenant's u-alice is someone else. */
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, "acme", "u-alice", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 1 && strcmp(list->items[0].uid, acme_alice_totp.eid) == 0);
    mfa_factor_list_free(list);
    list = NULL;
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-carol", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 1 && list->items[0].kind == MFA_FACTOR_RECOVERY_CODES &&
          list->items[0].remaining_codes == (int64_t)carol_codes.code_count);
    mfa_factor_list_free(list);
    list = NULL;
    /* Someone with no factor: an empty list. */
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "nobody", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 0);
    mfa_factor_list_free(list);
    list = NULL;
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "u-alice", 2, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "u-alice", -1, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, NULL, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "u-alice\xff", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, long_id, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, "", "u-alice", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, "\xe2\x82", "u-alice", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, long_id, "u-alice", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, &list, NULL, "u-alice", INT32_MIN, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(ctx, NULL, NULL, "u-alice", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_user_factors(NULL, &list, NULL, "u-alice", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);

    /* One factor by its id alone, with its owner. */
    CHECK_ERR(mfa_admin_factor_get(ctx, &found, dave_phone, 0, &err), MFA_OK, err);
    CHECK(found && found->tenant && strcmp(found->tenant, "acme") == 0 && strcmp(found->uid, "u-dave") == 0);
    CHECK(found && strcmp(found->info.uid, dave_phone) == 0 && strcmp(found->info.phone_number, "+1******7777") == 0);
    mfa_admin_factor_free(found);
    found = NULL;
    CHECK_ERR(mfa_admin_factor_get(ctx, &found, dave_phone, MFA_ADMIN_SHOW_PHONE_NUMBERS, &err), MFA_OK, err);
    CHECK(found && strcmp(found->info.phone_number, DAVE_PHONE) == 0);
    mfa_admin_factor_free(found);
    found = NULL;
    CHECK_ERR(mfa_admin_factor_get(ctx, &found, bob_totp.eid, 0, &err), MFA_OK, err);
    CHECK(found && found->tenant == NULL && strcmp(found->uid, "u-bob") == 0 && found->info.kind == MFA_FACTOR_TOTP);
    mfa_admin_factor_free(found);
    found = NULL;
    CHECK_ERR(mfa_admin_factor_get(ctx, &found, "no-such-factor", 0, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, NULL, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, bob_totp.eid, 4, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, NULL, bob_totp.eid, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(NULL, &found, bob_totp.eid, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, "", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, "\xff\xfe", 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, long_id, 0, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, bob_totp.eid, -1, NULL), MFA_ERR_INVALID_ARGUMENT);
    /* An enrollment id is not a uid. */
    CHECK_STATUS(mfa_admin_factor_get(ctx, &found, "u-bob", 0, NULL), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND);
    CHECK(found == NULL);
}

static void test_stats(mfa_ctx *ctx, int64_t users, int64_t factors) {
    mfa_admin_stats *stats = NULL;
    char *err = NULL;
    CHECK_ERR(mfa_admin_stats_get(ctx, &stats, &err), MFA_OK, err);
    if (!stats) return;
    CHECK(stats->total_users == users && stats->total_factors == factors);
    if (users == 5) {
        /* project: phone 1/1, recovery 1/1, totp 2/2; acme: phone 1/1, totp 1/1 */
        CHECK(stats->row_count == 5 && stats->tenant_count == 2);
        if (stats->row_count == 5) {
            CHECK(stats->rows[0].tenant == NULL && strcmp(stats->rows[0].factor_id, "phone") == 0);
            CHECK(stats->rows[0].kind == MFA_FACTOR_PHONE && stats->rows[0].factors == 1);
            CHECK(strcmp(stats->rows[1].factor_id, "recovery") == 0 && stats->rows[1].kind == MFA_FACTOR_RECOVERY_CODES);
            CHECK(strcmp(stats->rows[2].factor_id, "totp") == 0 && stats->rows[2].factors == 2 &&
                  stats->rows[2].users == 2);
            CHECK(stats->rows[3].tenant && strcmp(stats->rows[3].tenant, "acme") == 0);
        }
        if (stats->tenant_count == 2) {
            CHECK(stats->tenants[0].tenant == NULL && stats->tenants[0].users == 3);
            CHECK(stats->tenants[1].tenant && strcmp(stats->tenants[1].tenant, "acme") == 0 &&
                  stats->tenants[1].users == 2);
        }
    }
    mfa_admin_stats_free(stats);
    stats = NULL;
    CHECK_STATUS(mfa_admin_stats_get(NULL, &stats, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_stats_get(ctx, NULL, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(stats == NULL);
}

/* Actors every changing call refuses, with nothing written and nothing audited:
 * NULL, "", one byte too long, not UTF-8 (a stray byte, an overlong NUL, a surrogate). */
static const char *bad_actors[6];
static char long_actor[MFA_ACTOR_MAX_BYTES + 2];
/* The longest actor there may be. */
static char max_actor[MFA_ACTOR_MAX_BYTES + 1];

static void test_rename(mfa_ctx *ctx) {
    mfa_admin_factor *renamed = NULL;
    mfa_factor_list *list = NULL;
    const audit_record *e;
    char long_name[300];
    char *err = NULL;
    size_t mark = g_audit.count;

    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, "Work phone", ACTOR, &err), MFA_OK, err);
    CHECK(renamed && strcmp(renamed->uid, "u-bob") == 0 && strcmp(renamed->info.display_name, "Work phone") == 0);
    mfa_admin_factor_free(renamed);
    renamed = NULL;
    e = audit_find(mark, MFA_AUDIT_FACTOR_RENAMED, "", "u-bob", bob_totp.eid, NULL);
    CHECK(e && strcmp(e->actor, ACTOR) == 0 && strcmp(e->kind_name, "FACTOR_RENAMED") == 0);
    CHECK(e && strcmp(e->factor_id, "totp") == 0);
    CHECK(list_factors_at(ctx, &bob, NULL, 0, __LINE__) == 1);
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-bob", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 1 && strcmp(list->items[0].display_name, "Work phone") == 0);
    mfa_factor_list_free(list);
    list = NULL;
    /* NULL (or "") removes the name; out may be NULL. */
    CHECK_ERR(mfa_admin_rename(ctx, NULL, bob_totp.eid, NULL, ACTOR, &err), MFA_OK, err);
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-bob", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 1 && list->items[0].display_name == NULL);
    mfa_factor_list_free(list);
    list = NULL;
    /* The longest name and the longest actor there may be; then "" removes the name. */
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[256] = '\0';
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, long_name, max_actor, &err), MFA_OK, err);
    CHECK(renamed && strcmp(renamed->info.display_name, long_name) == 0);
    mfa_admin_factor_free(renamed);
    renamed = NULL;
    e = audit_find(mark, MFA_AUDIT_FACTOR_RENAMED, "", "u-bob", bob_totp.eid, NULL);
    CHECK(e && strcmp(e->actor, max_actor) == 0);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, "", ACTOR, &err), MFA_OK, err);
    CHECK(renamed && renamed->info.display_name == NULL);
    mfa_admin_factor_free(renamed);
    renamed = NULL;

    memset(long_name, 'n', sizeof long_name - 1);
    long_name[257] = '\0';
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, long_name, ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    long_name[sizeof long_name - 1] = '\0';
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, long_name, ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, "Work \xff", ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, NULL, "x", ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, "", "x", ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, long_id, "x", ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, "\xc3\x28", "x", ACTOR, &err), MFA_ERR_INVALID_ARGUMENT, err);
    CHECK_ERR(mfa_admin_rename(ctx, &renamed, "no-such-factor", "x", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
              err);
    for (size_t i = 0; i < sizeof bad_actors / sizeof bad_actors[0]; i++) {
        CHECK_ERR(mfa_admin_rename(ctx, &renamed, bob_totp.eid, "x", bad_actors[i], &err), MFA_ERR_INVALID_ARGUMENT,
                  err);
    }
    CHECK_STATUS(mfa_admin_rename(NULL, &renamed, bob_totp.eid, "x", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(renamed == NULL);
    CHECK(audit_count(mark, MFA_AUDIT_FACTOR_RENAMED, NULL) == 0);
    /* Nothing was renamed by the refused calls. */
    CHECK_ERR(mfa_admin_user_factors(ctx, &list, NULL, "u-bob", 0, &err), MFA_OK, err);
    CHECK(list && list->count == 1 && list->items[0].display_name == NULL);
    mfa_factor_list_free(list);
}

static void test_unenroll(mfa_ctx *ctx) {
    mfa_admin_factor *removed = NULL;
    mfa_resolver *resolver = NULL;
    char cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    const audit_record *e;
    char *err = NULL;
    size_t mark;

    /* The owner is half-way through a sign-in when the operator removes the factor. */
    SIGN_IN_REQUIRED(ctx, &acme_alice, cred);
    g_now += 5;
    mark = g_audit.count;
    for (size_t i = 0; i < sizeof bad_actors / sizeof bad_actors[0]; i++) {
        CHECK_ERR(mfa_admin_unenroll(ctx, &removed, acme_alice_totp.eid, bad_actors[i], &err),
                  MFA_ERR_INVALID_ARGUMENT, err);
    }
    CHECK(g_audit.count == mark);
    CHECK_ERR(mfa_admin_unenroll(ctx, &removed, acme_alice_totp.eid, ACTOR, &err), MFA_OK, err);
    CHECK(removed && removed->tenant && strcmp(removed->tenant, "acme") == 0 &&
          strcmp(removed->uid, "u-alice") == 0 && strcmp(removed->info.uid, acme_alice_totp.eid) == 0);
    mfa_admin_factor_free(removed);
    removed = NULL;
    e = audit_find(mark, MFA_AUDIT_UNENROLL, "acme", "u-alice", acme_alice_totp.eid, "ADMIN");
    CHECK(e && strcmp(e->actor, ACTOR) == 0);
    CHECK(factor_count(ctx, &acme_alice) == 0);
    /* The sign-in in progress and the credentials issued before are refused: the pending
     * credential is revoked (USER_TOKEN_EXPIRED, though its factor is gone too). */
    code_at(code, acme_alice_totp.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, "acme", acme_alice_totp.eid, code), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, "acme", NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(resolver == NULL);
    CHECK_STATUS(mfa_token_check(ctx, "acme", "u-alice", g_now - 1), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, "acme", "u-alice", g_now + 1), MFA_OK);
    /* The project's u-alice is untouched. */
    CHECK(factor_count(ctx, &alice) == 2);
    CHECK_ERR(mfa_admin_unenroll(ctx, NULL, acme_alice_totp.eid, ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_STATUS(mfa_admin_unenroll(ctx, &removed, NULL, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_unenroll(ctx, &removed, "", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_unenroll(ctx, &removed, long_id, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_unenroll(ctx, &removed, "\xed\xa0\x80", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_unenroll(NULL, &removed, bob_totp.eid, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(removed == NULL && factor_count(ctx, &bob) == 1);

    /* out may be NULL: u-erin's only factor, removed with the longest actor. */
    {
        factor erin_totp;
        mark = g_audit.count;
        ENROLL_OK(ctx, &erin, NULL, &erin_totp);
        g_now += 5;
        CHECK_ERR(mfa_admin_unenroll(ctx, NULL, erin_totp.eid, max_actor, &err), MFA_OK, err);
        e = audit_find(mark, MFA_AUDIT_UNENROLL, "", "u-erin", erin_totp.eid, "ADMIN");
        CHECK(e && strcmp(e->actor, max_actor) == 0);
        CHECK(factor_count(ctx, &erin) == 0);
    }
}

static void test_reset(mfa_ctx *ctx) {
    mfa_factor_list *removed = NULL;
    char cred[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    char *session = NULL;
    char *err = NULL;
    mfa_resolver *resolver = NULL;
    const audit_record *e;
    size_t mark;
    mfa_user fresh = alice;

    /* Alice lost her phone: a sign-in and an enrollment were in progress. */
    SIGN_IN_REQUIRED(ctx, &alice, cred);
    fresh.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK);
    g_now += 5;
    mark = g_audit.count;
    for (size_t i = 0; i < sizeof bad_actors / sizeof bad_actors[0]; i++) {
        CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-alice", bad_actors[i], &err), MFA_ERR_INVALID_ARGUMENT,
                  err);
    }
    CHECK(g_audit.count == mark && factor_count(ctx, &alice) == 2);
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-alice", "helpdesk:42", &err), MFA_OK, err);
    CHECK(removed && removed->count == 2);
    if (removed && removed->count == 2) {
        CHECK(strcmp(removed->items[0].uid, alice_totp.eid) == 0 || strcmp(removed->items[1].uid, alice_totp.eid) == 0);
        CHECK(strcmp(removed->items[0].uid, alice_phone) == 0 || strcmp(removed->items[1].uid, alice_phone) == 0);
    }
    mfa_factor_list_free(removed);
    removed = NULL;
    CHECK(audit_count(mark, MFA_AUDIT_UNENROLL, "ADMIN") == 2);
    e = audit_find(mark, MFA_AUDIT_USER_RESET, "", "u-alice", NULL, NULL);
    CHECK(e && strcmp(e->actor, "helpdesk:42") == 0 && strcmp(e->kind_name, "USER_RESET") == 0);
    e = audit_find(mark, MFA_AUDIT_UNENROLL, "", "u-alice", alice_phone, "ADMIN");
    CHECK(e && strcmp(e->actor, "helpdesk:42") == 0);
    CHECK(factor_count(ctx, &alice) == 0);

    /* Everything from before is refused; the first factor alone signs her in. */
    code_at(code, alice_totp.key, g_now);
    CHECK_STATUS(resolve(ctx, cred, NULL, alice_totp.eid, code), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(resolver == NULL);
    {
        mfa_totp_secret *secret = NULL;
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        mfa_totp_secret_free(secret);
    }
    mfa_free(session);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "u-alice", g_now), MFA_ERR_USER_TOKEN_EXPIRED);
    fresh.auth_time = g_now;
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &fresh, NULL), MFA_OK);
    CHECK(resolver == NULL);
    mfa_resolver_free(resolver);

    /* A reset of a user with nothing left to reset, like one of a stranger, finds nothing:
     * nothing written (a credential issued since stays valid), nothing audited. */
    g_now += 5;
    mark = g_audit.count;
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "u-alice", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
              err);
    CHECK(removed == NULL);
    CHECK_STATUS(mfa_token_check(ctx, NULL, "u-alice", g_now - 1), MFA_OK);
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, NULL, "nobody", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_admin_reset_user(ctx, &removed, "acme", "u-bob", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK(g_audit.count == mark);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, NULL, NULL, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, NULL, "", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, NULL, "u-bob\xff", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, NULL, long_id, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, "\xc0\x80", "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, "", "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(ctx, &removed, long_id, "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_reset_user(NULL, &removed, NULL, "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(removed == NULL && factor_count(ctx, &bob) == 1);
    CHECK(g_audit.count == mark);

    /* out may be NULL: u-erin, whose factor went in test_unenroll, enrolled again. */
    {
        factor erin_again;
        ENROLL_OK(ctx, &erin, NULL, &erin_again);
        mark = g_audit.count;
        CHECK_ERR(mfa_admin_reset_user(ctx, NULL, NULL, "u-erin", ACTOR, &err), MFA_OK, err);
        e = audit_find(mark, MFA_AUDIT_USER_RESET, "", "u-erin", NULL, NULL);
        CHECK(e && strcmp(e->actor, ACTOR) == 0);
    }
}

static void test_delete(mfa_ctx *ctx) {
    mfa_factor_list *removed = NULL;
    char seen[1024], next[512];
    const audit_record *e;
    char *session = NULL;
    char *err = NULL;
    size_t mark;
    mfa_user fresh = acme_dave;

    fresh.auth_time = g_now;
    CHECK_STATUS(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK);
    g_now += 5;
    mark = g_audit.count;
    for (size_t i = 0; i < sizeof bad_actors / sizeof bad_actors[0]; i++) {
        CHECK_ERR(mfa_admin_delete_user(ctx, &removed, "acme", "u-dave", bad_actors[i], &err),
                  MFA_ERR_INVALID_ARGUMENT, err);
    }
    CHECK(g_audit.count == mark);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, "acme", "u-dave", "dpo", &err), MFA_OK, err);
    CHECK(removed && removed->count == 1 && strcmp(removed->items[0].uid, dave_phone) == 0);
    CHECK(removed && removed->count == 1 && removed->items[0].phone_number == NULL); /* nothing of the number */
    mfa_factor_list_free(removed);
    removed = NULL;
    e = audit_find(mark, MFA_AUDIT_USER_DELETED, "acme", "u-dave", NULL, NULL);
    CHECK(e && strcmp(e->actor, "dpo") == 0 && strcmp(e->kind_name, "USER_DELETED") == 0);
    CHECK_STATUS(list_page(ctx, "acme", NULL, 10, NULL, seen, sizeof seen, next), MFA_OK);
    CHECK(strcmp(seen, "") == 0); /* acme's u-alice lost her factor in test_unenroll */
    /* A session from before stays refused. */
    {
        char *vid = NULL;
        CHECK_STATUS(mfa_phone_start_enrollment(ctx, &vid, session, DAVE_PHONE, GOOD_CRED, NULL),
                     MFA_ERR_USER_TOKEN_EXPIRED);
        mfa_free(vid);
    }
    mfa_free(session);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, NULL, "nobody", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    CHECK_ERR(mfa_admin_delete_user(ctx, &removed, "acme", "u-bob", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
              err);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, NULL, "", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, NULL, NULL, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, NULL, "u-bob\xff", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, NULL, long_id, ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, "", "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, "\xe2\x82", "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(ctx, &removed, long_id, "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(mfa_admin_delete_user(NULL, &removed, NULL, "u-bob", ACTOR, NULL), MFA_ERR_INVALID_ARGUMENT);
    CHECK(removed == NULL && factor_count(ctx, &bob) == 1);

    /* out may be NULL: u-erin, reset in test_reset (nothing left to delete), enrolled again. */
    CHECK_ERR(mfa_admin_delete_user(ctx, NULL, NULL, "u-erin", ACTOR, &err), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, err);
    {
        factor erin_again;
        ENROLL_OK(ctx, &erin, NULL, &erin_again);
        mark = g_audit.count;
        CHECK_ERR(mfa_admin_delete_user(ctx, NULL, NULL, "u-erin", ACTOR, &err), MFA_OK, err);
        CHECK(audit_find(mark, MFA_AUDIT_USER_DELETED, "", "u-erin", NULL, NULL) != NULL);
    }
}

int main(int argc, char **argv) {
    mfa_options options;
    mfa_ctx *ctx;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-admin") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    memset(long_actor, 'a', MFA_ACTOR_MAX_BYTES + 1);
    memset(max_actor, 'm', MFA_ACTOR_MAX_BYTES);
    memset(long_id, 'i', sizeof long_id - 1);
    bad_actors[0] = NULL;
    bad_actors[1] = "";
    bad_actors[2] = long_actor;
    bad_actors[3] = "ops\xff";
    bad_actors[4] = "ops\xc0\x80";
    bad_actors[5] = "ops\xed\xa0\x80";

    fixture_options(&options, store.location);
    ctx = open_with(&options);
    if (ctx) {
        set_config(ctx, NULL, ALL_KINDS_ON);
        set_config(ctx, "acme", ALL_KINDS_ON);
        populate(ctx);
        test_list_users(ctx);
        test_user_factors(ctx);
        test_stats(ctx, 5, 6);
        test_rename(ctx);
        test_unenroll(ctx);
        test_reset(ctx);
        test_delete(ctx);
        test_stats(ctx, 2, 2); /* u-bob's TOTP and u-carol's recovery codes */
    }
    mfa_admin_user_page_free(NULL);
    mfa_admin_factor_free(NULL);
    mfa_admin_stats_free(NULL);
    mfa_close(ctx);
    test_store_remove(&store);
    return engine_report();
}
