/*
 * The floor of a TOTP sign-in on SQLite: libmfa's own statements, in the
 * order libmfa runs them, written straight against SQLite with nothing else
 * (no tokens, no sealing, no code check, no Swift): what libmfa would cost
 * if everything but the database took no time. Between it and
 * bench/sqlite_baseline.c is what libmfa's guarantees cost the database:
 * the configuration and the user's record read with the factors, and the
 * user's row written instead of the factor's: the step-up time, the
 * pending credential's single use and the code's step (both recorded in
 * the row's `consumed` column, see ConsumedTokens.swift and UsedStep.swift).
 *
 * Per sign-in, as MFAStore.signInSnapshot and MFAStore.resolveAttempt
 * (Sources/MFA/Store/MFAStore+Attempts.swift) run them for a project user
 * whose row exists and whose factor has no failures, the resolve on the
 * context that signed in (AttemptMemo.swift):
 *   the sign-in read (configuration, user with its consumed column and
 *     failure counts, factors with their failure counts and TOTP rows)
 *   the user's conditional update, in autocommit (last_second_factor_at,
 *     failures cleared, the credential and the code's step added to the
 *     consumed column; only if the epoch, the backoff, the failure counts
 *     and the column are as read)
 * in WAL mode with synchronous=NORMAL and libmfa's 16 MiB page cache and
 * checkpoint policy (SQLiteCheckpoints.swift), statements prepared once.
 * Keep it in step with those files.
 *
 * FLOOR_WITHOUT=consumed|user measures what a guarantee costs: without
 * recording the credential's use (the step only), or without the user's
 * update at all (no write: neither the credential nor the step is used up).
 * Neither is libmfa: each drops a guarantee libmfa keeps.
 *
 * FLOOR_WITH=crypto adds libmfa's cryptography to the floor, done as
 * libmfa does it, with the same libraries. At the sign-in: one 40-byte
 * draw from the kernel (the pending credential's id and nonce), the
 * credential's claims sealed with XChaCha20-Poly1305 and written as
 * base64url (OpaqueToken.swift, Base64URL.swift). At the resolve: the
 * factor's 20-byte secret opened from its 60-byte seal under its binding
 * (RecordSealer.swift, SealBinding.swift), then the HMAC-SHA1 code of the
 * current step: two SHA-1 compressions on pre-padded blocks after two for
 * the key (SHA1Mac.swift). libmfa tries a window's steps from its centre
 * out and stops at the first that matches (OTPCore.swift), and every code
 * store_bench.c presents is the current step's. What is left between it and libmfa is libmfa's own
 * code: the Swift, the C ABI, the checks, the objects.
 *
 * usage: sqlite_floor FILE USERS SIGNINS_PER_PROCESS PROCESSES
 * FILE is a libmfa store holding USERS TOTP users (store_bench FILE USERS 0 1
 * makes one); each user's row is created first, as a first sign-in would,
 * and every user signs in once, untimed, before the timed sign-ins.
 * Prints: processes, sign-ins per second in all.
 * Built and run by bench/store.sh.
 */
#include "sqlite_bench_support.h" /* first: it sets _POSIX_C_SOURCE */

#include <string.h>

#include <nettle/sha1.h>
#include <sodium.h>

/* libmfa's own page cache (SQLiteDatabase.swift). */
#define PRAGMAS "PRAGMA cache_size=-16384"

/* The factor's columns but its owner's (the read names the owner). */
#define FACTOR_COLUMNS                                                                                           \
    "f.enrollment_id, f.factor_id, f.display_name, f.enrolled_at, f.key_id, f.sealed, f.locked_until, "        \
    "f.seal_format"

/* libmfa's checkpoint policy (SQLiteCheckpoints.swift), in place of
 * SQLite's: a passive checkpoint once the log holds 1,000 frames, then once
 * per 1,000 frames more until the log starts over, and after every commit
 * once it holds 8,000. `context` points to the log's size at the last
 * checkpoint. */
static int checkpoint_policy(void *context, sqlite3 *db, const char *schema, int frames) {
    int *last = context;
    if (frames < *last) *last = 0;
    if (frames < 1000 || (frames < 8000 && frames - *last < 1000)) return SQLITE_OK;
    *last = frames;
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

/* Runs a statement to its end. */
static void step_all(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    int status;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {}
    check(db, status, what);
    sqlite3_reset(statement);
}

/* A token id: 16 bytes from a xorshift generator (a benchmark, not a secret). */
static void token_id(unsigned long long *state, unsigned char out[16]) {
    for (int i = 0; i < 16; i++) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        out[i] = (unsigned char)(*state >> 24);
    }
}

/* What each client process needs. */
typedef struct run_args {
    const char *path;
    long signins, share;
    long start; /* the first time, so that a later run claims later steps */
    int consuming, updating, crypto;
    const struct factor_seal *seals; /* FLOOR_WITH=crypto: user u's factor's seal */
} run_args;

/* A key for the benchmark's seals (a benchmark, not a secret). */
static const unsigned char bench_key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES] = {42};

/* `bytes` as unpadded base64url after libmfa's prefix, into `out` (room for 4/3 of them and 4 more). */
static void base64url(const unsigned char *bytes, size_t count, char *out) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, i = 0;
    out[o++] = 'v', out[o++] = '2', out[o++] = '.';
    for (; i + 3 <= count; i += 3) {
        unsigned long n = (unsigned long)bytes[i] << 16 | (unsigned long)bytes[i + 1] << 8 | bytes[i + 2];
        out[o++] = digits[n >> 18], out[o++] = digits[n >> 12 & 63], out[o++] = digits[n >> 6 & 63];
        out[o++] = digits[n & 63];
    }
    if (count - i == 1) {
        out[o++] = digits[bytes[i] >> 2], out[o++] = digits[(bytes[i] & 3) << 4];
    } else if (count - i == 2) {
        unsigned long n = (unsigned long)bytes[i] << 8 | bytes[i + 1];
        out[o++] = digits[n >> 10], out[o++] = digits[n >> 4 & 63], out[o++] = digits[(n & 15) << 2];
    }
    out[o] = 0;
}

/* The sign-in's cryptography (FLOOR_WITH=crypto): the pending credential
 * of `uid` (kind, expiry, id, epoch, parent expiry, tenant, uid, reference),
 * sealed under a fresh nonce and written as base64url into `out`. */
static void seal_credential(const char *uid, long now, char out[256]) {
    unsigned char draw[16 + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES], plain[128];
    unsigned char sealed[sizeof draw + sizeof plain + crypto_aead_xchacha20poly1305_ietf_ABYTES];
    static const unsigned char associated[] = "libmfa token v2";
    size_t size = 0, uid_size = strlen(uid);
    unsigned long long written = 0;
    randombytes_buf(draw, sizeof draw);
    plain[size++] = 1;
    for (int b = 0; b < 8; b++) plain[size++] = (unsigned char)((unsigned long long)(now + 960) >> (56 - 8 * b));
    memcpy(plain + size, draw, 16);
    size += 16;
    memset(plain + size, 0, 16); /* the epoch and the parent's expiry */
    size += 16;
    plain[size++] = 0, plain[size++] = 0; /* the project's tenant: empty */
    plain[size++] = 0, plain[size++] = (unsigned char)uid_size;
    memcpy(plain + size, uid, uid_size);
    size += uid_size;
    plain[size++] = 0, plain[size++] = 0; /* no reference */
    memcpy(sealed, draw + 16, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    crypto_aead_xchacha20poly1305_ietf_encrypt(sealed + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &written,
                                               plain, size, associated, sizeof associated - 1, NULL,
                                               draw + 16, bench_key);
    base64url(sealed, (size_t)written + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, out);
}

/* The binding a factor's seal is opened under (SealBinding.swift): a
 * version, then the record, kind, tenant, owner and enrollment id, each
 * after a NUL; into `out`, returning its size. */
static size_t binding(const char *uid, const char *id, unsigned char out[192]) {
    const char *fields[] = {"libmfa seal v2", "factor", "totp", "", uid, id};
    size_t size = 0;
    for (int f = 0; f < 6; f++) {
        size_t length = strlen(fields[f]);
        if (f > 0 && size < 192) out[size++] = 0;
        if (length > 192 - size) length = 192 - size;
        memcpy(out + size, fields[f], length);
        size += length;
    }
    return size;
}

/* A factor's 60-byte seal of a 20-byte secret (nonce, ciphertext, tag). */
typedef struct factor_seal {
    unsigned char bytes[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + 20 + crypto_aead_xchacha20poly1305_ietf_ABYTES];
} factor_seal;

/* Seals a secret for `uid`'s factor `id`, as its enrollment would. */
static void seal_factor(const char *uid, const char *id, factor_seal *seal) {
    unsigned char secret[20] = {7}, associated[192];
    unsigned long long written = 0;
    size_t size = binding(uid, id, associated);
    randombytes_buf(seal->bytes, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    crypto_aead_xchacha20poly1305_ietf_encrypt(seal->bytes + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &written,
                                               secret, sizeof secret, associated, size, NULL, seal->bytes, bench_key);
}

/* A SHA-1 block of `size` message bytes after one keyed block: the bytes, the padding, the length. */
static void padded(unsigned char block[SHA1_BLOCK_SIZE], const unsigned char *message, size_t size) {
    unsigned long long bits = (unsigned long long)(SHA1_BLOCK_SIZE + size) * 8;
    memset(block, 0, SHA1_BLOCK_SIZE);
    memcpy(block, message, size);
    block[size] = 0x80;
    for (int b = 0; b < 8; b++) block[SHA1_BLOCK_SIZE - 1 - b] = (unsigned char)(bits >> (8 * b));
}

/* A chaining value as the digest's bytes (big-endian words). */
static void digest_bytes(const uint32_t state[5], unsigned char out[SHA1_DIGEST_SIZE]) {
    for (int w = 0; w < 5; w++)
        for (int b = 0; b < 4; b++) out[4 * w + b] = (unsigned char)(state[w] >> (24 - 8 * b));
}

/* The chaining value after SHA-1's initial value and one block. */
static void keyed(uint32_t state[5], const unsigned char block[SHA1_BLOCK_SIZE]) {
    static const uint32_t initial[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    memcpy(state, initial, sizeof initial);
    nettle_sha1_compress(state, block);
}

/* The resolve's cryptography: the factor's secret opened, then the code of
 * `step` (HMAC-SHA1, truncated to 6 digits), which it returns. */
static unsigned long check_code(const char *uid, const char *id, const factor_seal *seal, long step) {
    unsigned char secret[20], associated[192], pad[SHA1_BLOCK_SIZE], block[SHA1_BLOCK_SIZE];
    unsigned char counter[8], mac[SHA1_DIGEST_SIZE];
    unsigned long long opened = 0;
    size_t size = binding(uid, id, associated);
    uint32_t inner[5], outer[5];
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(secret, &opened, NULL,
                                                   seal->bytes + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
                                                   sizeof seal->bytes - crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
                                                   associated, size, seal->bytes, bench_key) != 0) {
        fprintf(stderr, "a factor's seal did not open\n");
        exit(1);
    }
    for (int b = 0; b < SHA1_BLOCK_SIZE; b++) pad[b] = (unsigned char)((b < 20 ? secret[b] : 0) ^ 0x36);
    keyed(inner, pad);
    for (int b = 0; b < SHA1_BLOCK_SIZE; b++) pad[b] ^= 0x36 ^ 0x5c;
    keyed(outer, pad);
    for (int b = 0; b < 8; b++) counter[b] = (unsigned char)((unsigned long long)step >> (56 - 8 * b));
    padded(block, counter, sizeof counter);
    nettle_sha1_compress(inner, block);
    digest_bytes(inner, mac);
    padded(block, mac, sizeof mac);
    nettle_sha1_compress(outer, block);
    digest_bytes(outer, mac);
    int at = mac[SHA1_DIGEST_SIZE - 1] & 0x0f;
    sodium_memzero(secret, sizeof secret);
    sodium_memzero(pad, sizeof pad);
    return (((unsigned long)mac[at] & 0x7f) << 24 | (unsigned long)mac[at + 1] << 16 |
            (unsigned long)mac[at + 2] << 8 | mac[at + 3]) % 1000000;
}

/* One client process: `signins` sign-ins over its share of the users. */
static void client(long p, void *context) {
    const run_args *args = context;
    long share = args->share;
    sqlite3 *mine = open_db(args->path, PRAGMAS);
    int last_checkpoint = 0;
    sqlite3_wal_hook(mine, checkpoint_policy, &last_checkpoint);
    sqlite3_stmt *read = prepare(mine,
        "SELECT d.project, u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, "
        "u.locked_until, " FACTOR_COLUMNS ", u.consumed, u.failures, u.last_failure_at, f.failures, "
        "f.totp_algorithm, f.totp_digits, f.totp_period, f.totp_last_step FROM (SELECT (SELECT document "
        "FROM mfa_config WHERE tenant = '') AS project) d LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? "
        "LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ?");
    sqlite3_stmt *account = prepare(mine,
        "UPDATE mfa_users SET last_second_factor_at = ?, failures = 0, locked_until = 0, consumed = ? "
        "WHERE tenant = ? AND uid = ? AND token_epoch = ? AND locked_until <= ? AND failures = ? "
        "AND last_failure_at = ? AND consumed IS NOT DISTINCT FROM ?");
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(p + 1);
    long now = 1800000000 + args->start;
    unsigned long checked = 0;
    for (long i = 0; i < args->signins; i++) {
        if (i > 0 && i % share == 0) now += 30;
        long u = p * share + (i * 7919) % share;
        char uid[32], id[64] = {0};
        unsigned char token[16], read_column[1024];
        int read_size;
        long long failures, last_failure;
        snprintf(uid, sizeof uid, "user%07ld", u);
        token_id(&state, token);
        sqlite3_bind_text(read, 1, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 2, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(read, 3, "", 0, SQLITE_STATIC);
        sqlite3_bind_text(read, 4, uid, -1, SQLITE_STATIC);
        if (sqlite3_step(read) != SQLITE_ROW) check(mine, SQLITE_ERROR, "read");
        snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(read, 5));
        /* The consumed column (13) as read, and the user's failure counts (14, 15). */
        read_size = sqlite3_column_bytes(read, 13);
        if (read_size > (int)sizeof read_column) read_size = (int)sizeof read_column;
        if (read_size > 0) memcpy(read_column, sqlite3_column_blob(read, 13), (size_t)read_size);
        int column_null = sqlite3_column_type(read, 13) == SQLITE_NULL;
        failures = sqlite3_column_int64(read, 14);
        last_failure = sqlite3_column_int64(read, 15);
        step_all(mine, read, "read");
        if (args->crypto) {
            char credential[256];
            seal_credential(uid, now, credential);
            checked += check_code(uid, id, &args->seals[u], now / 30) + (unsigned long)credential[0];
        }
        if (args->updating) {
            /* The column: a generation, the credential's entry (the user's only
             * live one: its id, then until when), the factor's step entry (a
             * key, then the step's complement). */
            unsigned char column[8 + 24 + 24];
            size_t size = 0;
            long long generation = i + 1, until = now + 960, step = ~(long long)(now / 30);
            for (int b = 0; b < 8; b++) column[size++] = (unsigned char)(generation >> (56 - 8 * b));
            if (args->consuming) {
                memcpy(column + size, token, sizeof token);
                size += sizeof token;
                for (int b = 0; b < 8; b++) column[size++] = (unsigned char)(until >> (56 - 8 * b));
            }
            memcpy(column + size, id, 16); /* the key: 16 bytes standing in for the enrollment id's hash */
            size += 16;
            for (int b = 0; b < 8; b++) column[size++] = (unsigned char)((unsigned long long)step >> (56 - 8 * b));
            sqlite3_bind_int64(account, 1, now);
            sqlite3_bind_blob(account, 2, column, (int)size, SQLITE_TRANSIENT);
            sqlite3_bind_text(account, 3, "", 0, SQLITE_STATIC);
            sqlite3_bind_text(account, 4, uid, -1, SQLITE_STATIC);
            sqlite3_bind_int64(account, 5, 0);
            sqlite3_bind_int64(account, 6, now);
            sqlite3_bind_int64(account, 7, failures);
            sqlite3_bind_int64(account, 8, last_failure);
            if (column_null) sqlite3_bind_null(account, 9);
            else sqlite3_bind_blob(account, 9, read_column, read_size, SQLITE_STATIC);
            step_all(mine, account, "account");
            if (sqlite3_changes(mine) != 1) check(mine, SQLITE_ERROR, "account: the checks did not hold");
        }
    }
    close_db(mine);
    if (checked == 1) puts(""); /* keeps the codes from being optimised away */
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE USERS SIGNINS_PER_PROCESS PROCESSES\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    long users = atol(argv[2]), signins = atol(argv[3]), processes = atol(argv[4]);
    bench_sqlite_host_config();
    sqlite3 *db = open_db(path, PRAGMAS);
    check(db, sqlite3_exec(db, "INSERT INTO mfa_users (tenant, uid) SELECT tenant, uid FROM mfa_factors WHERE true "
                               "ON CONFLICT (tenant, uid) DO NOTHING", NULL, NULL, NULL), "users");
    const char *without = getenv("FLOOR_WITHOUT"), *with = getenv("FLOOR_WITH");
    without = without ? without : "";
    int consuming = strcmp(without, "consumed") != 0, updating = strcmp(without, "user") != 0;
    int crypto = with && strcmp(with, "crypto") == 0;
    if (crypto && sodium_init() < 0) {
        fprintf(stderr, "libsodium did not start\n");
        return 1;
    }
    /* FLOOR_WITH=crypto: each user's factor sealed before the clock starts,
     * as its enrollment did (the read returns each factor's id). */
    factor_seal *seals = NULL;
    if (crypto) {
        sqlite3_stmt *ids = prepare(db, "SELECT uid, enrollment_id FROM mfa_factors WHERE tenant = ''");
        seals = calloc((size_t)users, sizeof *seals);
        if (!seals) check(db, SQLITE_NOMEM, "seals");
        while (sqlite3_step(ids) == SQLITE_ROW) {
            long u = atol((const char *)sqlite3_column_text(ids, 0) + 4);
            if (u >= 0 && u < users)
                seal_factor((const char *)sqlite3_column_text(ids, 0), (const char *)sqlite3_column_text(ids, 1),
                            &seals[u]);
        }
        sqlite3_finalize(ids);
    }
    close_db(db);

    /* Every user signs in once first, untimed: the timed run finds the rows
     * as a running store has them (a credential and a step recorded), not
     * as imported. */
    run_args warm = {path, users, users, 0, consuming, updating, crypto, seals};
    run_processes(1, client, &warm);
    run_args args = {path, signins, users / processes, 1000000, consuming, updating, crypto, seals};
    double elapsed = run_processes(processes, client, &args);
    printf("%ld %.0f\n", processes, processes * signins / elapsed);
    free(seals);
    return 0;
}
