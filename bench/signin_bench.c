/*
 * Complete TOTP sign-ins per second on the embedded SQLite store, against
 * liboath's oath_authenticate_usersfile (what pam_oath uses) with the same
 * number of enrolled users, in one run.
 *
 * One libmfa sign-in is the whole second-factor flow a server runs:
 * mfa_sign_in (first factor reported, resolver returned) then
 * mfa_resolve_totp (pending credential opened, secret decrypted, code
 * checked, time step claimed and credential consumed in one transaction).
 * One liboath sign-in is oath_authenticate_usersfile: find the user in the
 * file, check the code, rewrite the file with the step used.
 * Both use SHA1, 6 digits, 30 s, a window of +/-5 steps and replay protection.
 *
 * usage: signin_bench USERS MFA_SIGNINS OATH_SIGNINS WORKDIR
 * Built and run by bench/signin.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <liboath/oath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_support.h"

static double bench_libmfa(long users, long signins, const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/libmfa-%ld.sqlite", dir, users);
    remove(path);
    mfa_options options;
    mfa_ctx *ctx = NULL;
    char *err = NULL;
    int status;
    unsigned char key[MFA_MASTER_KEY_BYTES];
    if ((status = mfa_random_secret(key, sizeof key)) != MFA_OK) die("key", status, NULL);
    if ((status = mfa_options_init(&options, MFA_OPTIONS_VERSION)) != MFA_OK) die("options", status, NULL);
    options.store = path;
    options.master_key.id = "bench";
    options.master_key.key = key;
    options.clock = bench_clock;
    if ((status = mfa_open(&ctx, &options, &err)) != MFA_OK) die("open", status, err);
    if ((status = mfa_config_set_json(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\"}}",
                                      &err)) != MFA_OK)
        die("config", status, err);

    double start = seconds();
    for (long u = 0; u < users; u++) {
        char uid[32];
        unsigned char secret[20];
        mfa_user user;
        mfa_factor_info *info = NULL;
        user_name(u, uid);
        user_secret(u, secret);
        if ((status = mfa_user_init(&user, MFA_USER_VERSION)) != MFA_OK) die("user", status, NULL);
        user.uid = uid;
        if ((status = mfa_totp_import(ctx, &info, &user, secret, 20, NULL, "app", &err)) != MFA_OK)
            die("import", status, err);
        mfa_factor_info_free(info);
    }
    fprintf(stderr, "  libmfa: %ld users imported in %.1f s\n", users, seconds() - start);

    start = seconds();
    for (long i = 0; i < signins; i++) {
        if (i > 0 && i % users == 0) bench_now += 30; /* each user signs in once per time step */
        long u = (i * 7919) % users;
        char uid[32], code[MFA_CODE_BUFFER_SIZE];
        unsigned char secret[20];
        mfa_user user;
        mfa_resolver *resolver = NULL;
        mfa_sign_in_result *result = NULL;
        user_name(u, uid);
        user_secret(u, secret);
        if ((status = mfa_user_init(&user, MFA_USER_VERSION)) != MFA_OK) die("user", status, NULL);
        user.uid = uid;
        user.auth_time = bench_now;
        status = mfa_sign_in(ctx, &resolver, &user, NULL);
        if (status != MFA_ERR_SECOND_FACTOR_REQUIRED || resolver->hint_count != 1) die("sign in", status, NULL);
        if ((status = mfa_totp_generate(code, sizeof code, secret, 20, NULL, bench_now)) != MFA_OK)
            die("code", status, NULL);
        status = mfa_resolve_totp(ctx, &result, resolver->session, NULL, resolver->hints[0].uid, code, &err);
        if (status != MFA_OK) die("resolve", status, err);
        mfa_sign_in_result_free(result);
        mfa_resolver_free(resolver);
    }
    double rate = signins / (seconds() - start);
    mfa_close(ctx);
    remove(path);
    return rate;
}

static double bench_liboath(long users, long signins, const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/users-%ld.oath", dir, users);
    FILE *file = fopen(path, "w");
    if (!file) die("usersfile", 0, NULL);
    for (long u = 0; u < users; u++) {
        unsigned char secret[20];
        char uid[32];
        user_name(u, uid);
        user_secret(u, secret);
        fprintf(file, "HOTP/T30 %s - ", uid);
        for (int i = 0; i < 20; i++) fprintf(file, "%02x", secret[i]);
        fputc('\n', file);
    }
    fclose(file);

    double start = seconds();
    for (long i = 0; i < signins; i++) {
        long u = (i * 7919) % users;
        char uid[32], code[MFA_CODE_BUFFER_SIZE];
        unsigned char secret[20];
        time_t last = 0;
        user_name(u, uid);
        user_secret(u, secret);
        if (mfa_totp_generate(code, sizeof code, secret, 20, NULL, (int64_t)time(NULL)) != MFA_OK)
            die("code", 0, NULL);
        int rc = oath_authenticate_usersfile(path, uid, code, 5, NULL, &last);
        if (rc != OATH_OK) {
            fprintf(stderr, "liboath: %s\n", oath_strerror(rc));
            exit(1);
        }
    }
    double rate = signins / (seconds() - start);
    remove(path);
    char backup[600];
    snprintf(backup, sizeof backup, "%s.new", path);
    remove(backup);
    return rate;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s USERS MFA_SIGNINS OATH_SIGNINS WORKDIR\n", argv[0]);
        return 2;
    }
    long users = atol(argv[1]), mfa_signins = atol(argv[2]), oath_signins = atol(argv[3]);
    if (oath_init() != OATH_OK) return 1;
    double mine = bench_libmfa(users, mfa_signins, argv[4]);
    double theirs = oath_signins > 0 ? bench_liboath(users, oath_signins, argv[4]) : 0;
    printf("%-10ld %16.0f %16.1f %9.1fx\n", users, mine, theirs, theirs > 0 ? mine / theirs : 0.0);
    oath_done();
    return 0;
}
