/*
 * The library's own single-factor import, called in a loop: one
 * mfa_totp_import_uri per otpauth URI, into a new SQLite store. The
 * baseline bench/import.sh compares `mfactl import otpauth` (batched) with.
 *
 *   import_bench write COUNT FILE    writes COUNT otpauth URIs, one per line
 *   import_bench loop FILE STORE     imports each line with mfa_totp_import_uri;
 *                                    prints "<count> <factors per second>"
 *
 * The URI of user N is for account userNNNNNNN (the uid), issuer ACME.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "bench_support.h"

/* RFC 4648 base32 of 20 bytes: 32 characters, no padding needed. */
static void base32_20(const unsigned char in[20], char out[33]) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    for (int group = 0; group < 4; group++) {
        unsigned long long bits = 0;
        for (int i = 0; i < 5; i++) bits = bits << 8 | in[group * 5 + i];
        for (int i = 0; i < 8; i++) out[group * 8 + i] = alphabet[(bits >> (35 - 5 * i)) & 31];
    }
    out[32] = 0;
}

static void write_uris(long count, const char *file) {
    FILE *out = fopen(file, "w");
    if (!out) die("open the URI file", MFA_ERR_INVALID_ARGUMENT, NULL);
    for (long u = 0; u < count; u++) {
        unsigned char secret[20];
        char b32[33];
        char uid[32];
        user_secret(u, secret);
        user_name(u, uid);
        base32_20(secret, b32);
        fprintf(out, "otpauth://totp/ACME:%s?secret=%s&issuer=ACME\n", uid, b32);
    }
    fclose(out);
}

static void import_loop(const char *file, const char *store) {
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    unsigned char key[MFA_MASTER_KEY_BYTES];
    remove(store);
    if ((status = mfa_random_secret(key, sizeof key)) != MFA_OK) die("key", status, NULL);
    if ((status = mfa_options_init(&options, MFA_OPTIONS_VERSION)) != MFA_OK) die("options", status, NULL);
    options.store = store;
    options.master_key.id = "bench";
    options.master_key.key = key;
    if ((status = mfa_open(&ctx, &options, &err)) != MFA_OK) die("open", status, err);
    FILE *in = fopen(file, "r");
    if (!in) die("open the URI file", MFA_ERR_INVALID_ARGUMENT, NULL);
    char line[512];
    long count = 0;
    double start = seconds();
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = 0;
        char uid[32];
        const char *account = strstr(line, "ACME:");
        const char *end = account ? strchr(account, '?') : NULL;
        if (!account || !end || end - account - 5 >= (long)sizeof uid) die("a URI line", MFA_ERR_INVALID_URI, NULL);
        memcpy(uid, account + 5, (size_t)(end - account - 5));
        uid[end - account - 5] = 0;
        mfa_user user;
        mfa_factor_info *info = NULL;
        if ((status = mfa_user_init(&user, MFA_USER_VERSION)) != MFA_OK) die("user", status, NULL);
        user.uid = uid;
        if ((status = mfa_totp_import_uri(ctx, &info, &user, line, "ACME", &err)) != MFA_OK)
            die("import", status, err);
        mfa_factor_info_free(info);
        count++;
    }
    double elapsed = seconds() - start;
    fclose(in);
    mfa_close(ctx);
    printf("%ld %.0f\n", count, (double)count / elapsed);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "write") == 0) {
        write_uris(atol(argv[2]), argv[3]);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "loop") == 0) {
        import_loop(argv[2], argv[3]);
        return 0;
    }
    fprintf(stderr, "usage: import_bench write COUNT FILE | loop FILE STORE\n");
    return 2;
}
