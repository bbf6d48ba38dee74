/*
 * mfa-enroll: enrolls an authenticator app (TOTP) for a local user in the
 * store that pam_mfa.so reads, on libmfa's public C API only.
 *
 * It shows the QR code in the terminal (and the key, for typing), asks for
 * the code the app then shows, enrolls the app in place of any earlier one,
 * and prints a new set of recovery codes. It takes the same store=,
 * key_file=, key_id= and tenant= words as the module's line, and must run as
 * root (the key file is root's). See `mfa-enroll --help`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mfa.h"
#include "module_options.h"
#include "store_open.h"

/* Code tries before giving up. */
#define CODE_TRIES 3

static const char usage[] =
    "usage: mfa-enroll [store=... key_file=... key_id=... tenant=...] [options] USER\n"
    "       mfa-enroll [store=... ...] --config=JSON\n"
    "\n"
    "Enrolls an authenticator app (TOTP) for the local user USER in the store\n"
    "that pam_mfa.so reads: shows a QR code, asks for the code the app shows,\n"
    "replaces any earlier app of the user, and prints new recovery codes.\n"
    "The store=, key_file=, key_id= and tenant= words (or, with the key in an HSM,\n"
    "hsm_module=, hsm_token= or hsm_slot=, hsm_key= and hsm_pin_file= instead of\n"
    "key_file=) are those of the module's line (defaults: store=" MFA_PAM_DEFAULT_STORE " key_file=" MFA_PAM_DEFAULT_KEY_FILE " key_id=" MFA_PAM_DEFAULT_KEY_ID ").\n"
    "\n"
    "options:\n"
    "  --issuer=NAME          the issuer the app shows (default: this host's name)\n"
    "  --name=TEXT            the factor's name (default: USER@host)\n"
    "  --no-qr                print the key and the otpauth:// URI, no QR code\n"
    "  --no-recovery-codes    make no recovery codes\n"
    "  --config=JSON          first merge JSON into the store's configuration\n"
    "                         (mfa_config_update_json: limits, adjacentIntervals, state)\n"
    "  --list                 list the user's second factors\n"
    "  --remove               remove all the user's second factors\n"
    "  -h, --help             this text\n";

typedef struct settings {
    mfa_pam_options store;
    const char *issuer, *name, *config, *uid;
    int qr, recovery_codes, list, remove;
} settings;

static mfa_ctx *ctx;

static void die(const char *what, int32_t status, char *err) {
    fprintf(stderr, "mfa-enroll: %s: %s: %s\n", what, mfa_status_name(status), err ? err : mfa_errstr(status));
    mfa_free(err);
    mfa_close(ctx);
    exit(1);
}

static void check(const char *what, int32_t status, char *err) {
    if (status != MFA_OK) die(what, status, err);
    mfa_free(err);
}

/* Makes a configuration change the enrollment needs, and says so. */
static void enable(const char *tenant, const char *json, const char *what) {
    char *err = NULL;
    check("configuration", mfa_config_update_json(ctx, tenant, json, &err), err);
    printf("mfa-enroll: turned %s on in the store's configuration%s%s.\n", what, tenant ? " of tenant " : "",
           tenant ? tenant : "");
}

/* An enrollment session; turns TOTP (and MFA) on in the configuration if it is off. */
static char *new_session(const settings *s, const mfa_user *user, const char *provider) {
    char *session = NULL, *err = NULL, *config = NULL;
    int32_t status = mfa_session_new(ctx, &session, user, &err);
    if (status == MFA_ERR_OPERATION_NOT_ALLOWED) {
        mfa_free(err);
        err = NULL;
        check("configuration", mfa_config_get_json(ctx, &config, s->store.tenant, &err), err);
        err = NULL;
        int disabled = strstr(config, "\"state\":\"DISABLED\"") != NULL;
        mfa_free(config);
        if (disabled) enable(s->store.tenant, "{\"state\":\"ENABLED\"}", "MFA");
        char json[128];
        snprintf(json, sizeof json, "{\"providers\":{\"%s\":\"ENABLED\"}}", provider);
        enable(s->store.tenant, json, strcmp(provider, "totp") == 0 ? "TOTP" : provider);
        status = mfa_session_new(ctx, &session, user, &err);
    }
    check("enrollment session", status, err);
    return session;
}

/* Reads a line from stdin without its newline; NULL at the end of input. */
static char *read_line(char *buffer, size_t size) {
    if (!fgets(buffer, (int)size, stdin)) return NULL;
    buffer[strcspn(buffer, "\r\n")] = '\0';
    return buffer;
}

static void list_factors(const mfa_user *user) {
    mfa_factor_list *list = NULL;
    char *err = NULL;
    check("list", mfa_factors_list(ctx, &list, user, &err), err);
    if (list->count == 0) printf("%s has no second factor.\n", user->uid);
    for (size_t i = 0; i < list->count; i++) {
        const mfa_factor_info *f = &list->items[i];
        char when[32];
        time_t t = (time_t)f->enrollment_time;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime(&t));
        printf("%s  %-8s  %s  \"%s\"  %s UTC\n", f->uid, f->factor_id, f->hint, f->display_name ? f->display_name : "",
               when);
    }
    mfa_factor_list_free(list);
}

/* Removes the user's factors of `kind` (0: all) except `keep`; returns how many. */
static size_t remove_factors(const mfa_user *user, int32_t kind, const char *keep) {
    mfa_factor_list *list = NULL;
    char *err = NULL;
    size_t removed = 0;
    check("list", mfa_factors_list(ctx, &list, user, &err), err);
    for (size_t i = 0; i < list->count; i++) {
        const mfa_factor_info *f = &list->items[i];
        if ((kind && f->kind != kind) || (keep && strcmp(f->uid, keep) == 0)) continue;
        err = NULL;
        check("remove", mfa_unenroll(ctx, user, f->uid, &err), err);
        removed++;
    }
    mfa_factor_list_free(list);
    return removed;
}

/* Prints the key in groups of four for typing. */
static void print_key(const char *key) {
    printf("Key: ");
    for (size_t i = 0; key[i]; i++) printf("%s%c", i && i % 4 == 0 ? " " : "", key[i]);
    printf("\n");
}

static void enroll(const settings *s, const mfa_user *user) {
    char *session = new_session(s, user, "totp"), *err = NULL, *uri = NULL;
    mfa_totp_secret *secret = NULL;
    check("secret", mfa_totp_generate_secret(ctx, &secret, session, &err), err);
    mfa_free(session);
    err = NULL;
    check("otpauth URI", mfa_totp_secret_uri(&uri, secret, s->name, s->issuer, &err), err);
    if (s->qr) {
        uint8_t *qr = NULL;
        size_t qr_len = 0;
        check("QR code", mfa_qr_encode(&qr, &qr_len, uri, MFA_QR_TEXT), NULL);
        printf("Scan this QR code with the authenticator app:\n\n%s\n", (const char *)qr);
        explicit_bzero(qr, qr_len);
        mfa_free(qr);
    }
    printf("Or add it by hand (time-based, SHA1, %d digits, %lld s):\n", secret->digits, (long long)secret->period);
    print_key(secret->shared_secret_key);
    printf("URI: %s\n", uri);
    explicit_bzero(uri, strlen(uri));
    mfa_free(uri);

    mfa_factor_info *factor = NULL;
    char line[128];
    int32_t status = MFA_ERR_INVALID_VERIFICATION_CODE;
    for (int tries = 0; tries < CODE_TRIES && status == MFA_ERR_INVALID_VERIFICATION_CODE; tries++) {
        printf("Code from the app: ");
        fflush(stdout);
        if (!read_line(line, sizeof line)) {
            fprintf(stderr, "\nmfa-enroll: no code given: nothing enrolled\n");
            mfa_totp_secret_free(secret);
            mfa_close(ctx);
            exit(1);
        }
        mfa_assertion assertion = MFA_ASSERTION_INIT;
        assertion.kind = MFA_FACTOR_TOTP;
        assertion.session_info = secret->session_info;
        assertion.code = line;
        mfa_free(err);
        err = NULL;
        status = mfa_enroll(ctx, &factor, user, &assertion, s->name, &err);
        if (status == MFA_ERR_INVALID_VERIFICATION_CODE) printf("That code is wrong; try the next one.\n");
    }
    explicit_bzero(line, sizeof line);
    mfa_totp_secret_free(secret);
    check("enroll", status, err);
    printf("Enrolled the authenticator app for %s (enrollment id %s).\n", user->uid, factor->uid);
    size_t removed = remove_factors(user, MFA_FACTOR_TOTP, factor->uid);
    if (removed) printf("Removed %zu earlier authenticator app%s.\n", removed, removed == 1 ? "" : "s");
    mfa_factor_info_free(factor);

    if (!s->recovery_codes) return;
    session = new_session(s, user, "totp");
    mfa_recovery_codes *codes = NULL;
    err = NULL;
    status = mfa_recovery_codes_generate(ctx, &codes, session, NULL, &err);
    if (status == MFA_ERR_OPERATION_NOT_ALLOWED) {
        mfa_free(err);
        err = NULL;
        enable(s->store.tenant, "{\"providers\":{\"recovery\":\"ENABLED\"}}", "recovery codes");
        status = mfa_recovery_codes_generate(ctx, &codes, session, NULL, &err);
    }
    mfa_free(session);
    check("recovery codes", status, err);
    printf("Recovery codes (each works once in place of a code; keep them somewhere safe):\n");
    for (size_t i = 0; i < codes->count; i++) printf("  %s\n", codes->codes[i]);
    mfa_recovery_codes_free(codes);
}

static int parse(settings *s, int argc, char **argv) {
    char why[256];
    mfa_pam_options_init(&s->store);
    s->qr = s->recovery_codes = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else if (strncmp(arg, "--issuer=", 9) == 0) s->issuer = arg + 9;
        else if (strncmp(arg, "--name=", 7) == 0) s->name = arg + 7;
        else if (strncmp(arg, "--config=", 9) == 0) s->config = arg + 9;
        else if (strcmp(arg, "--no-qr") == 0) s->qr = 0;
        else if (strcmp(arg, "--no-recovery-codes") == 0) s->recovery_codes = 0;
        else if (strcmp(arg, "--list") == 0) s->list = 1;
        else if (strcmp(arg, "--remove") == 0) s->remove = 1;
        else if (arg[0] == '-') {
            fprintf(stderr, "mfa-enroll: unknown option %s\n%s", arg, usage);
            return -1;
        } else if (strchr(arg, '=')) {
            if (mfa_pam_option(&s->store, arg, 1, why, sizeof why) != 0) {
                fprintf(stderr, "mfa-enroll: %s\n", why);
                return -1;
            }
        } else if (!s->uid) s->uid = arg;
        else {
            fprintf(stderr, "mfa-enroll: one user at a time\n%s", usage);
            return -1;
        }
    }
    if (!s->uid && !s->config) {
        fputs(usage, stderr);
        return -1;
    }
    if (s->list + s->remove > 1) {
        fprintf(stderr, "mfa-enroll: --list or --remove, not both\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    settings s;
    memset(&s, 0, sizeof s);
    if (parse(&s, argc, argv) != 0) return 2;
    if (geteuid() != 0) {
        fprintf(stderr, "mfa-enroll: must run as root: the master key file and the store are root's alone "
                        "(run it with sudo, or as root for the user)\n");
        return 1;
    }
    umask(077);
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    char account[512] = "";
    if (s.uid) {
        if (!getpwnam(s.uid)) {
            fprintf(stderr, "mfa-enroll: no local user named %s\n", s.uid);
            return 1;
        }
        snprintf(account, sizeof account, "%s@%s", s.uid, host);
    }
    if (!s.issuer) s.issuer = host;
    if (!s.name) s.name = account;

    /* A new SQLite store gets a folder of its own, root's only. */
    if (!mfa_pam_store_is_postgres(s.store.store)) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s", s.store.store);
        if (mkdir(dirname(folder), 0700) == 0) printf("mfa-enroll: made the folder %s\n", folder);
    }
    char why[1024];
    if (mfa_pam_open_store(&ctx, &s.store, why, sizeof why, NULL) != MFA_PAM_OPENED) {
        fprintf(stderr, "mfa-enroll: %s\n", why);
        return 1;
    }
    if (s.config) {
        char *err = NULL;
        check("configuration", mfa_config_update_json(ctx, s.store.tenant, s.config, &err), err);
        printf("mfa-enroll: configuration updated.\n");
    }
    if (s.uid) {
        mfa_user user = MFA_USER_INIT;
        user.uid = s.uid;
        user.tenant = s.store.tenant;
        user.email = account;
        user.email_verified = 1;
        user.provider = "password";
        user.auth_time = (int64_t)time(NULL);
        if (s.list) list_factors(&user);
        else if (s.remove) {
            size_t removed = remove_factors(&user, 0, NULL);
            printf("Removed %zu second factor%s of %s.\n", removed, removed == 1 ? "" : "s", s.uid);
        } else enroll(&s, &user);
    }
    mfa_close(ctx);
    return 0;
}
