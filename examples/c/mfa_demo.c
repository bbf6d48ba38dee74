/*
 * The libmfa demo: the Firebase MFA model, end to end, on the embedded
 * SQLite store, through the C API.
 *
 *   1. enable TOTP, SMS and recovery codes for the project;
 *   2. sign alice in with her password (no second factor yet);
 *   3. enroll an authenticator app, showing the QR code in the terminal;
 *   4. enroll her phone by SMS (the development outbox stands in for a gateway);
 *   5. give her a set of recovery codes, to keep on paper;
 *   6. sign in again: the second factor is required, the hints are shown,
 *      and a code computed like the app computes it resolves the sign-in;
 *   7. sign in once more, this time with a code sent by SMS;
 *   8. and once with a recovery code, as when the phone is lost;
 *   9. unenroll, and show that her earlier credentials are revoked.
 *
 * Every kind of second factor is enrolled with mfa_enroll() (recovery codes
 * are generated instead) and signed in with mfa_resolve(), each given an
 * mfa_assertion that names the kind and carries its proof.
 *
 * The demo's clock starts at the real time and is moved forward by hand,
 * so that it never has to wait 30 s for the next TOTP step.
 *
 * usage: mfa_demo [store.sqlite [outbox.jsonl]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfa.h"

static int64_t demo_time;

static int64_t demo_clock(void *context) {
    (void)context;
    return demo_time;
}

/* The app verifier: a real host checks a reCAPTCHA or APNs token here. */
static int verify_app(void *context, const char *app_credential, int32_t action) {
    (void)context;
    (void)action;
    return strcmp(app_credential, "demo-app-token") == 0 ? 0 : 1;
}

/* The code in the last message of the outbox (what the user reads on the phone). */
static void sms_code(const char *outbox, char code[MFA_CODE_BUFFER_SIZE]) {
    FILE *file = fopen(outbox, "r");
    char line[1024], last[1024] = "";
    while (file && fgets(line, sizeof line, file)) strcpy(last, line);
    if (file) fclose(file);
    const char *message = strstr(last, "\"message\":\"");
    if (!message || sscanf(message + 11, "%6[0-9]", code) != 1) {
        fprintf(stderr, "no code in the outbox\n");
        exit(1);
    }
}

static void on_audit(void *context, const mfa_audit_event *event) {
    (void)context;
    printf("   [audit] %-15s uid=%s factor=%s %s\n", event->kind_name, event->uid, event->factor_id, event->detail);
}

static void check(const char *step, int status, char *err) {
    if (status == MFA_OK) return;
    fprintf(stderr, "%s failed: %s: %s\n", step, mfa_status_name(status), err ? err : mfa_errstr(status));
    mfa_free(err);
    exit(1);
}

/* The code an authenticator app shows now for a base32 key. */
static void app_code(const char *base32_key, char code[MFA_CODE_BUFFER_SIZE]) {
    uint8_t *key = NULL;
    size_t key_len = 0;
    check("decode key", mfa_base32_decode(&key, &key_len, base32_key), NULL);
    check("app code", mfa_totp_generate(code, MFA_CODE_BUFFER_SIZE, key, key_len, NULL, demo_time), NULL);
    mfa_free(key);
}

/* The claims the host puts in the credential it issues after a sign-in. */
static void show_claims(const mfa_sign_in_result *result) {
    printf("   signed in: uid=%s, claims", result->uid);
    for (size_t i = 0; i < result->claim_count; i++) {
        printf(" %s=%s", result->claims[i].name, result->claims[i].value);
    }
    printf("\n");
}

/* The first factor again; the answer must be "second factor required", with the hints. */
static mfa_resolver *second_factor_required(mfa_ctx *ctx, const mfa_user *user, int show_hints) {
    mfa_resolver *resolver = NULL;
    char *err = NULL;
    int status = mfa_sign_in(ctx, &resolver, user, &err);
    mfa_free(err);
    printf("   first factor accepted: %s\n", mfa_status_name(status));
    if (status != MFA_ERR_SECOND_FACTOR_REQUIRED) exit(1);
    for (size_t i = 0; show_hints && i < resolver->hint_count; i++) {
        printf("   hint %zu: %-8s \"%s\" (%s)\n", i, resolver->hints[i].factor_id, resolver->hints[i].display_name,
               resolver->hints[i].hint);
    }
    return resolver;
}

int main(int argc, char **argv) {
    const char *store = argc > 1 ? argv[1] : "mfa-demo.sqlite";
    const char *outbox = argc > 2 ? argv[2] : "mfa-demo-outbox.jsonl";
    uint8_t master_key[MFA_MASTER_KEY_BYTES];
    mfa_options options;
    mfa_ctx *ctx = NULL;
    mfa_user alice;
    char *err = NULL;

    demo_time = (int64_t)time(NULL);
    check("master key", mfa_random_secret(master_key, sizeof master_key), NULL);
    check("options", mfa_options_init(&options, MFA_OPTIONS_VERSION), NULL);
    options.store = store;
    options.master_key.id = "demo-key-1";
    options.master_key.key = master_key;
    options.clock = demo_clock;
    options.audit = on_audit;
    options.sms_outbox = outbox;
    options.app_verifier = verify_app;
    remove(store);
    remove(outbox);
    check("open", mfa_open(&ctx, &options, &err), err);
    printf("libmfa %s, store %s\n\n", mfa_version_string(), store);

    printf("1. Enable TOTP, SMS and recovery codes for the project\n");
    check("config", mfa_config_set_json(ctx, NULL, "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\","
                                                   "\"phone\":\"ENABLED\",\"recovery\":\"ENABLED\"},"
                                                   "\"totp\":{\"adjacentIntervals\":5}}", &err), err);

    printf("\n2. alice signs in with her password\n");
    check("user", mfa_user_init(&alice, MFA_USER_VERSION), NULL);
    alice.uid = "alice";
    alice.email = "alice@example.com";
    alice.email_verified = 1;
    alice.provider = "password";
    alice.auth_time = demo_time;
    mfa_resolver *resolver = NULL;
    check("sign in", mfa_sign_in(ctx, &resolver, &alice, &err), err);
    int64_t credential_issued = demo_time;
    printf("   no second factor yet: signed in (the host issues a credential at %lld)\n",
           (long long)credential_issued);

    printf("\n3. alice enrolls an authenticator app\n");
    demo_time += 5;
    alice.auth_time = demo_time;
    char *session = NULL;
    mfa_totp_secret *secret = NULL;
    char *uri = NULL;
    uint8_t *qr = NULL;
    size_t qr_len = 0;
    check("session", mfa_session_new(ctx, &session, &alice, &err), err);
    check("secret", mfa_totp_generate_secret(ctx, &secret, session, &err), err);
    check("uri", mfa_totp_secret_uri(&uri, secret, "alice@example.com", "ACME Co", &err), err);
    check("qr", mfa_qr_encode(&qr, &qr_len, uri, MFA_QR_TEXT), NULL);
    printf("   key %s (%s, %d digits, %llds); scan this with the app:\n\n%s\n   %s\n",
           secret->shared_secret_key, secret->algorithm == MFA_ALG_SHA1 ? "SHA1" : "?", secret->digits,
           (long long)secret->period, (char *)qr, uri);
    char code[MFA_CODE_BUFFER_SIZE];
    app_code(secret->shared_secret_key, code);
    printf("   the app shows %s; alice types it in\n", code);
    mfa_assertion assertion = MFA_ASSERTION_INIT;
    assertion.kind = MFA_FACTOR_TOTP;
    assertion.session_info = secret->session_info;
    assertion.code = code;
    mfa_factor_info *factor = NULL;
    check("enroll", mfa_enroll(ctx, &factor, &alice, &assertion, "Work phone", &err), err);
    printf("   enrolled \"%s\" (%s), enrollment id %s\n", factor->display_name, factor->factor_id, factor->uid);
    int status = mfa_token_check(ctx, NULL, "alice", credential_issued);
    printf("   her earlier credential: %s (enrolling revokes older credentials)\n", mfa_status_name(status));
    if (status != MFA_ERR_USER_TOKEN_EXPIRED) return 1;

    printf("\n4. alice adds her phone: an SMS code goes to the outbox %s\n", outbox);
    demo_time += 10;
    alice.auth_time = demo_time;
    char *phone_session = NULL, *verification = NULL;
    mfa_factor_info *phone = NULL;
    check("session", mfa_session_new(ctx, &phone_session, &alice, &err), err);
    check("send code", mfa_phone_start_enrollment(ctx, &verification, phone_session, "+15105551234",
                                                  "demo-app-token", &err), err);
    sms_code(outbox, code);
    printf("   the SMS says %s; alice types it in\n", code);
    assertion = (mfa_assertion)MFA_ASSERTION_INIT;
    assertion.kind = MFA_FACTOR_PHONE;
    assertion.verification_id = verification;
    assertion.code = code;
    check("enroll phone", mfa_enroll(ctx, &phone, &alice, &assertion, "Mobile", &err), err);
    printf("   enrolled \"%s\" (%s %s)\n", phone->display_name, phone->factor_id, phone->phone_number);
    mfa_free(verification);
    verification = NULL;

    printf("\n5. alice gets recovery codes, for the day her phone is lost\n");
    demo_time += 10;
    alice.auth_time = demo_time;
    char *codes_session = NULL;
    mfa_recovery_codes *codes = NULL;
    check("session", mfa_session_new(ctx, &codes_session, &alice, &err), err);
    check("recovery codes", mfa_recovery_codes_generate(ctx, &codes, codes_session, "Paper", &err), err);
    printf("   %zu codes, each good once; libmfa keeps only their hashes, so she writes them down now:\n",
           codes->count);
    for (size_t i = 0; i < codes->count; i += 2) {
        printf("      %s   %s\n", codes->codes[i], i + 1 < codes->count ? codes->codes[i + 1] : "");
    }
    char recovery_code[32];
    snprintf(recovery_code, sizeof recovery_code, "%s", codes->codes[3]);

    printf("\n6. 30 seconds later alice signs in again\n");
    demo_time += 30;
    alice.auth_time = demo_time;
    mfa_resolver_free(resolver);
    resolver = second_factor_required(ctx, &alice, 1);
    app_code(secret->shared_secret_key, code);
    printf("   the app shows %s\n", code);
    assertion = (mfa_assertion)MFA_ASSERTION_INIT;
    assertion.kind = MFA_FACTOR_TOTP;
    assertion.enrollment_id = factor->uid;
    assertion.code = code;
    mfa_sign_in_result *result = NULL;
    check("resolve", mfa_resolve(ctx, &result, resolver->session, NULL, &assertion, &err), err);
    show_claims(result);
    mfa_sign_in_result_free(result);
    result = NULL;
    mfa_resolver *again = second_factor_required(ctx, &alice, 0);
    status = mfa_resolve(ctx, &result, again->session, NULL, &assertion, NULL);
    printf("   the same code a second time: %s (each code works once)\n", mfa_status_name(status));
    if (status != MFA_ERR_INVALID_VERIFICATION_CODE) return 1;

    printf("\n7. alice signs in with an SMS code instead\n");
    demo_time += 60;
    check("send code", mfa_phone_start_sign_in(ctx, &verification, again->session, NULL, phone->uid,
                                               "demo-app-token", &err), err);
    sms_code(outbox, code);
    printf("   the SMS to her phone says %s\n", code);
    assertion = (mfa_assertion)MFA_ASSERTION_INIT;
    assertion.kind = MFA_FACTOR_PHONE;
    assertion.verification_id = verification;
    assertion.code = code;
    check("resolve", mfa_resolve(ctx, &result, again->session, NULL, &assertion, &err), err);
    show_claims(result);
    mfa_sign_in_result_free(result);
    result = NULL;
    mfa_free(verification);

    printf("\n8. alice lost her phone: she signs in with a recovery code from her paper\n");
    demo_time += 60;
    alice.auth_time = demo_time;
    mfa_resolver_free(again);
    again = second_factor_required(ctx, &alice, 0);
    printf("   she types %s\n", recovery_code);
    assertion = (mfa_assertion)MFA_ASSERTION_INIT;
    assertion.kind = MFA_FACTOR_RECOVERY_CODES;
    assertion.code = recovery_code;
    check("resolve", mfa_resolve(ctx, &result, again->session, NULL, &assertion, &err), err);
    show_claims(result);
    int64_t recovery_credential = demo_time;
    mfa_sign_in_result_free(result);
    result = NULL;
    mfa_factor_list *list = NULL;
    check("list", mfa_factors_list(ctx, &list, &alice, &err), err);
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i].kind == MFA_FACTOR_RECOVERY_CODES) {
            printf("   her set's hint now says \"%s\" (remaining_codes %lld)\n", list->items[i].hint,
                   (long long)list->items[i].remaining_codes);
        }
    }

    printf("\n9. alice removes her factors\n");
    demo_time += 60;
    alice.auth_time = demo_time;
    for (size_t i = 0; i < list->count; i++) check("unenroll", mfa_unenroll(ctx, &alice, list->items[i].uid, &err), err);
    mfa_factor_list_free(list);
    status = mfa_token_check(ctx, NULL, "alice", recovery_credential);
    printf("   her credential from step 8: %s: she must sign in again\n", mfa_status_name(status));
    if (status != MFA_ERR_USER_TOKEN_EXPIRED) return 1;
    mfa_resolver_free(resolver);
    check("sign in", mfa_sign_in(ctx, &resolver, &alice, &err), err);
    printf("   signing in now needs no second factor: OK\n");

    mfa_recovery_codes_free(codes);
    mfa_resolver_free(again);
    mfa_factor_info_free(factor);
    mfa_factor_info_free(phone);
    mfa_free(codes_session);
    mfa_free(phone_session);
    mfa_free(qr);
    mfa_free(uri);
    mfa_free(session);
    mfa_totp_secret_free(secret);
    mfa_close(ctx);
    remove(store);
    remove(outbox);
    printf("\ndone\n");
    return 0;
}
