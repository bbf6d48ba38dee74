/*
 * Issue 8, item 9: "The derived subkeys stay in freed heap after mfa_close."
 *
 * test_regression_item9_no_key_material_after_close opens a context with a
 * master key the test drew, signs in with a TOTP factor (so that a secret is
 * decrypted with the derived keys), closes the context, and then reads every
 * writable mapping of its own process (/proc/self/maps, /proc/self/mem) for
 * the three subkeys libmfa derives (crypto_kdf_derive_from_key of the master
 * key, context "libmfa01", subkey ids 1, 2 and 3) and for the master key: none
 * may be found. Before the fix the subkeys were in freed heap memory.
 *
 * The test's own memory never holds the keys when it scans: the master key
 * comes from /dev/urandom straight into one buffer, wiped right after
 * mfa_open; the factor is enrolled, its code computed and the four needles
 * derived in a forked child, which sends the needles XORed with a random mask
 * (the scan unmasks byte by byte as it compares). The positive controls, that
 * the scan sees what it looks for: the master key is found before the test
 * wipes its copy, and while the context is open the subkeys are (libmfa keeps
 * them in sodium_malloc'd memory, which sodium_free unmaps).
 *
 * Linux only (/proc). Built twice by CTest, with gcc and with clang, at
 * -std=c99 -Wall -Wextra -pedantic -Werror; linked with libsodium.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "test_engine_fixture.h"

#define NEEDLES 4 /* the master key, then subkeys 1, 2, 3 */
#define KEY_BYTES MFA_MASTER_KEY_BYTES
#define CHUNK (1u << 20)

static const char *const needle_names[NEEDLES] = {"the master key", "subkey 1 (secrets at rest)",
                                                  "subkey 2 (tokens)", "subkey 3 (keyed hashes)"};

/* What the child sends: the needles XORed with the mask, the factor and its code. */
typedef struct from_child {
    uint8_t masked[NEEDLES][KEY_BYTES];
    char eid[64];
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
} from_child;

static uint8_t master_key[KEY_BYTES]; /* the only copy in the parent, wiped after mfa_open */
static uint8_t mask[KEY_BYTES];

/* Fills `out` from /dev/urandom with read(2) (no stdio buffer keeps a copy); 0 on success. */
static int urandom(uint8_t *out, size_t len) {
    int fd = open("/dev/urandom", O_RDONLY);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t got = read(fd, out + done, len - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += (size_t)got;
    }
    if (fd >= 0) close(fd);
    return done == len ? 0 : -1;
}

static void store_path(char *path, size_t size) {
    snprintf(path, size, "%s/key-memory.db", temp_dir);
}

/* The child: the needles, masked; a TOTP factor enrolled for "memory-user" at g_now; the
 * code the app shows 60 s later. It never returns. */
static void child(int out) {
    from_child msg;
    uint8_t key[KEY_BYTES];
    mfa_options options;
    mfa_ctx *ctx = NULL;
    mfa_user user;
    factor f;
    char path[512];
    memset(&msg, 0, sizeof msg);
    msg.status = sodium_init() < 0 ? MFA_ERR_CRYPTO : MFA_OK;
    for (int n = 0; n < NEEDLES && msg.status == MFA_OK; n++) {
        if (n == 0) memcpy(key, master_key, KEY_BYTES);
        else if (crypto_kdf_derive_from_key(key, KEY_BYTES, (uint64_t)n, "libmfa01", master_key) != 0) msg.status = MFA_ERR_CRYPTO;
        for (int j = 0; j < KEY_BYTES; j++) msg.masked[n][j] = key[j] ^ mask[j];
    }
    sodium_memzero(key, sizeof key);
    store_path(path, sizeof path);
    test_options(&options, path, &g_now);
    options.master_key.id = "memory";
    options.master_key.key = master_key;
    if (msg.status == MFA_OK) msg.status = mfa_open(&ctx, &options, NULL);
    if (msg.status == MFA_OK) msg.status = mfa_config_set_json(ctx, NULL, ENABLE_TOTP, NULL);
    if (msg.status == MFA_OK) {
        user_make(&user, "memory-user", NULL);
        msg.status = enroll(ctx, &user, NULL, &f);
    }
    if (msg.status == MFA_OK) {
        snprintf(msg.eid, sizeof msg.eid, "%s", f.eid);
        msg.status = app_code(msg.code, f.key, g_now + 60);
    }
    mfa_close(ctx);
    if (write(out, &msg, sizeof msg) != (ssize_t)sizeof msg) _exit(3);
    _exit(0);
}

/* Where each needle was found by one scan. */
typedef struct findings {
    int count[NEEDLES];
    char where[NEEDLES][160];
    size_t bytes; /* what was read */
} findings;

/* Whether `data` at `at` holds needle `n` (compared byte by byte through the mask). */
static int holds(const uint8_t *data, size_t at, const from_child *msg, int n) {
    for (int j = 0; j < KEY_BYTES; j++) {
        if ((uint8_t)(data[at + (size_t)j] ^ mask[j]) != msg->masked[n][j]) return 0;
    }
    return 1;
}

static void scan_block(const uint8_t *data, size_t len, uint64_t address, const char *region, const from_child *msg,
                       findings *found) {
    for (int n = 0; n < NEEDLES; n++) {
        uint8_t first = (uint8_t)(msg->masked[n][0] ^ mask[0]);
        const uint8_t *p = data;
        while (len >= KEY_BYTES && (p = memchr(p, first, (size_t)(data + len - KEY_BYTES + 1 - p))) != NULL) {
            size_t at = (size_t)(p - data);
            if (holds(data, at, msg, n)) {
                if (found->count[n]++ == 0) {
                    snprintf(found->where[n], sizeof found->where[n], "%s at 0x%" PRIx64, region[0] ? region : "an anonymous mapping",
                             address + at);
                }
            }
            p++;
        }
    }
}

/* Reads every writable mapping of this process, but the scan buffer itself, for the needles. */
static void scan_memory(const from_child *msg, findings *found) {
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    uint8_t *buffer = mmap(NULL, CHUNK + KEY_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char line[512];
    memset(found, 0, sizeof *found);
    CHECK(maps != NULL && mem >= 0 && buffer != MAP_FAILED);
    if (!maps || mem < 0 || buffer == MAP_FAILED) {
        if (maps) fclose(maps);
        if (mem >= 0) close(mem);
        return;
    }
    while (fgets(line, sizeof line, maps)) {
        uint64_t start, end;
        char perms[8] = "", region[256] = "";
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %255[^\n]", &start, &end, perms, region) < 3) continue;
        if (perms[0] != 'r' || perms[1] != 'w') continue;
        if (start == (uint64_t)(uintptr_t)buffer) continue;
        for (uint64_t at = start; at < end;) {
            size_t want = end - at > CHUNK ? CHUNK : (size_t)(end - at);
            ssize_t got = pread(mem, buffer, want, (off_t)at);
            if (got <= 0) { /* an unreadable page: skip it */
                at += 4096;
                continue;
            }
            found->bytes += (size_t)got;
            scan_block(buffer, (size_t)got, at, region, msg, found);
            /* Step back so that a needle across two chunks is seen whole. */
            at += (size_t)got > KEY_BYTES && at + (size_t)got < end ? (size_t)got - KEY_BYTES : (size_t)got;
        }
    }
    sodium_memzero(buffer, CHUNK + KEY_BYTES);
    munmap(buffer, CHUNK + KEY_BYTES);
    fclose(maps);
    close(mem);
}

static void test_regression_item9_no_key_material_after_close(void) {
    int pipe_fds[2];
    pid_t pid;
    int wstatus = 0;
    from_child msg;
    findings open_scan, closed_scan;
    mfa_options options;
    mfa_ctx *ctx;
    mfa_user user;
    char path[512], cred[TOKEN_MAX];

    CHECK(urandom(master_key, sizeof master_key) == 0);
    CHECK(urandom(mask, sizeof mask) == 0);
    CHECK(pipe(pipe_fds) == 0);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(pipe_fds[0]);
        child(pipe_fds[1]);
    }
    close(pipe_fds[1]);
    memset(&msg, 0, sizeof msg);
    CHECK(read(pipe_fds[0], &msg, sizeof msg) == (ssize_t)sizeof msg);
    close(pipe_fds[0]);
    CHECK(waitpid(pid, &wstatus, 0) == pid && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    CHECK_STATUS(msg.status, MFA_OK);

    /* The parent: open, wipe its key, sign in with the factor the child enrolled. */
    g_now += 60;
    store_path(path, sizeof path);
    test_options(&options, path, &g_now);
    options.master_key.id = "memory";
    options.master_key.key = master_key;
    ctx = open_with(&options);
    /* Positive control for the master key: the test's own copy, before it is wiped. */
    scan_memory(&msg, &open_scan);
    CHECK(open_scan.count[0] >= 1);
    sodium_memzero(master_key, sizeof master_key);
    options.master_key.key = NULL;
    user_make(&user, "memory-user", NULL);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(resolve(ctx, cred, NULL, msg.eid, msg.code), MFA_OK);

    /* Positive control: while the context is open, its subkeys are in (guarded) memory. */
    scan_memory(&msg, &open_scan);
    printf("open context: %zu MiB of writable memory read; subkeys found %d, %d, %d times, the master key %d times\n",
           open_scan.bytes >> 20, open_scan.count[1], open_scan.count[2], open_scan.count[3], open_scan.count[0]);
    for (int n = 1; n < NEEDLES; n++) CHECK(open_scan.count[n] >= 1);

    mfa_close(ctx);
    scan_memory(&msg, &closed_scan);
    printf("closed context: %zu MiB of writable memory read\n", closed_scan.bytes >> 20);
    for (int n = 0; n < NEEDLES; n++) {
        if (closed_scan.count[n] > 0) {
            fprintf(stderr, "after mfa_close, %s is still in memory %d time(s), first in %s\n", needle_names[n],
                    closed_scan.count[n], closed_scan.where[n]);
        }
        CHECK(closed_scan.count[n] == 0);
    }
    CHECK(closed_scan.bytes > 0);
    test_remove_sqlite(path);
}

int main(void) {
    make_temp_dir("libmfa-key-memory");
    test_regression_item9_no_key_material_after_close();
    remove_temp_dir();
    return test_report();
}
