/*
 * The flow contract through the C ABI: what every second-factor kind must
 * do, run over TOTP, phone, recovery codes, WebAuthn, email, HOTP tokens and
 * YubiKeys (Yubico OTP) through the generic
 * entry points (mfa_enroll and mfa_resolve with an mfa_assertion, and
 * mfa_recovery_codes_generate, which is how a recovery-code set is
 * enrolled; WebAuthn's options come from mfa_webauthn_registration_options
 * and mfa_webauthn_authentication_options, its answers from a software
 * authenticator, test_webauthn_authenticator.h; HOTP tokens and YubiKeys are
 * imported unassigned with mfa_token_import and claimed by their user with
 * mfa_enroll, a YubiKey's OTPs made by test_yubikey.h). A new kind gets a
 * driver here and passes these first.
 *
 *   enroll      listed and hinted with its kind and a hint, audited; earlier
 *               credentials and enrollment sessions revoked
 *   wrong code  INVALID_VERIFICATION_CODE, audited; the credential still works
 *   sign-in     the result names the user, the factor, its kind and the time,
 *               with the claims sign_in_second_factor and
 *               second_factor_identifier; audited; step-up passes
 *   replay      the pending credential is single-use (also for
 *               mfa_resolver_load); what was accepted once is refused
 *   unenroll    audited; credentials of that second and before, pending
 *               credentials, sessions and resolvers minted before are
 *               USER_TOKEN_EXPIRED (mfa_token_check_ms orders by the ms)
 *   revocation  mfa_revoke_tokens: the same, audited TOKENS_REVOKED, factors kept
 *   backoff     failures beyond the free ones are refused for a while, then
 *               the factor works
 *
 * The store is the optional argument (test_pg_store.h): a new SQLite file by
 * default, or a PostgreSQL server (env:NAME, postgres://...), where the test
 * works in a schema of its own. Each case has users of its own.
 *
 * Usage: engine_flow_contract_test [LOCATION]
 * Built by CTest with gcc and clang at -std=c99 -Wall -Wextra -pedantic -Werror.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_engine_fixture.h"
#include "test_pg_store.h"
#include "test_webauthn_authenticator.h"
#include "test_yubikey.h"

static test_store store;

#define CONTRACT_CONFIG                                                                                       \
    "{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\",\"recovery\":\"ENABLED\"," \
    "\"webauthn\":\"ENABLED\",\"email\":\"ENABLED\",\"hotp\":\"ENABLED\",\"yubico_otp\":\"ENABLED\"},"               \
    "\"webauthn\":{\"rpId\":\"example.com\"}}"

/* What proves a factor for one sign-in: an assertion and the strings it points to. */
typedef struct proof {
    mfa_assertion assertion;
    char code[32];
    char vid[TOKEN_MAX];
} proof;

/* How the contract drives one kind, as a user of it would. */
typedef struct driver {
    const char *factor_id;
    int32_t kind;
    /* The status a replayed assertion gets with a fresh pending credential. */
    int replay_status;
    /* Enrolls a factor of this kind for `user`; the status. */
    int (*enroll_factor)(mfa_ctx *ctx, const mfa_user *user, factor *f, int line);
    /* Fills `p` with the right proof for pending credential `cred` (use n is a new one each
     * time); the status of getting it (an SMS kind sends a code). */
    int (*right)(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line);
    /* The same with a wrong code. */
    int (*wrong)(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line);
} driver;

static void proof_init(proof *p, int32_t kind) {
    memset(p, 0, sizeof *p);
    p->assertion = assertion_of(kind);
}

/* TOTP: the fixture's enroll (session, secret, mfa_enroll with the app's code). */
static int totp_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    return enroll_at(ctx, user, "app", f, line);
}

/* Use n is the code of the step n + 1 steps ahead (within the window): each a new, later step. */
static int totp_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)ctx;
    (void)cred;
    proof_init(p, MFA_FACTOR_TOTP);
    CHECK_STATUS_AT(app_code(p->code, f->key, g_now + 30 * (use + 1)), MFA_OK, line);
    p->assertion.enrollment_id = f->eid;
    p->assertion.code = p->code;
    return MFA_OK;
}

static int totp_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    (void)ctx;
    (void)cred;
    (void)line;
    proof_init(p, MFA_FACTOR_TOTP);
    wrong_totp_code(p->code, f->key, g_now);
    p->assertion.enrollment_id = f->eid;
    p->assertion.code = p->code;
    return MFA_OK;
}

/* Phone: a number of the user's own, the SMS code, mfa_enroll with the verification id. */
static int phone_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    mfa_user fresh = *user;
    mfa_assertion a = assertion_of(MFA_FACTOR_PHONE);
    mfa_factor_info *info = NULL;
    char vid[TOKEN_MAX], code[MFA_CODE_BUFFER_SIZE];
    char *err = NULL;
    unsigned hash = 0;
    int status;
    memset(f, 0, sizeof *f);
    f->kind = MFA_FACTOR_PHONE;
    for (const char *c = user->uid; *c; c++) hash = hash * 31u + (unsigned char)*c;
    snprintf(f->number, sizeof f->number, "+1510%07u", hash % 10000000u);
    fresh.auth_time = g_now;
    status = start_enroll_at(ctx, &fresh, f->number, GOOD_CRED, vid, line);
    if (status != MFA_OK) return status;
    if (!sms_code_at(f->number, code, line)) return MFA_ERR_INTERNAL;
    a.verification_id = vid;
    a.code = code;
    status = mfa_enroll(ctx, &info, &fresh, &a, "phone", &err);
    CHECK_AT((status == MFA_OK) == (info != NULL), line);
    if (info) {
        snprintf(f->eid, sizeof f->eid, "%s", info->uid);
        CHECK_AT(info->phone_number && strcmp(info->phone_number, f->number) == 0, line);
        f->enrolled_at = g_now;
    }
    mfa_factor_info_free(info);
    mfa_free(err);
    return status;
}

/* Past the resend cooldown, an SMS for the factor; its code (or a wrong one). */
static int phone_proof(mfa_ctx *ctx, const char *cred, const factor *f, int right, proof *p, int line) {
    char code[MFA_CODE_BUFFER_SIZE];
    int status;
    proof_init(p, MFA_FACTOR_PHONE);
    g_now += 31;
    status = start_sign_in_at(ctx, cred, NULL, f->eid, GOOD_CRED, p->vid, line);
    if (status != MFA_OK) return status;
    if (!sms_code_at(f->number, code, line)) return MFA_ERR_INTERNAL;
    if (right) snprintf(p->code, sizeof p->code, "%s", code);
    else wrong_sms_code(p->code, code);
    p->assertion.verification_id = p->vid;
    p->assertion.code = p->code;
    return MFA_OK;
}

static int phone_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)use;
    return phone_proof(ctx, cred, f, 1, p, line);
}

static int phone_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    return phone_proof(ctx, cred, f, 0, p, line);
}

/* Email: an address of the user's own (its domain in capitals, which libmfa lowers), the
 * mailed code, mfa_enroll with the verification id. */
static int email_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    mfa_user fresh = *user;
    mfa_assertion a = assertion_of(MFA_FACTOR_EMAIL);
    mfa_factor_info *info = NULL;
    char session[TOKEN_MAX], given[96], code[MFA_CODE_BUFFER_SIZE];
    char *vid = NULL, *out = NULL, *err = NULL;
    int status;
    memset(f, 0, sizeof *f);
    f->kind = MFA_FACTOR_EMAIL;
    snprintf(given, sizeof given, "%s@Example.COM", user->uid);
    snprintf(f->address, sizeof f->address, "%s@example.com", user->uid);
    fresh.auth_time = g_now;
    CHECK_STATUS_AT(mfa_session_new(ctx, &out, &fresh, NULL), MFA_OK, line);
    snprintf(session, sizeof session, "%s", out ? out : "");
    mfa_free(out);
    status = mfa_email_start_enrollment(ctx, &vid, session, given, NULL);
    if (status != MFA_OK) return status;
    if (!mail_code_at(f->address, code, line)) {
        mfa_free(vid);
        return MFA_ERR_INTERNAL;
    }
    a.verification_id = vid;
    a.code = code;
    status = mfa_enroll(ctx, &info, &fresh, &a, "mail", &err);
    mfa_free(vid);
    CHECK_AT((status == MFA_OK) == (info != NULL), line);
    if (info) {
        snprintf(f->eid, sizeof f->eid, "%s", info->uid);
        CHECK_AT(strcmp(info->hint, f->address) == 0 && info->phone_number == NULL, line);
        f->enrolled_at = g_now;
    }
    mfa_factor_info_free(info);
    mfa_free(err);
    return status;
}

/* Past the resend cooldown, an email for the factor; its code (or a wrong one). */
static int email_proof(mfa_ctx *ctx, const char *cred, const factor *f, int right, proof *p, int line) {
    char code[MFA_CODE_BUFFER_SIZE];
    char *vid = NULL;
    int status;
    proof_init(p, MFA_FACTOR_EMAIL);
    g_now += 31;
    status = mfa_email_start_sign_in(ctx, &vid, cred, NULL, f->eid, NULL);
    if (status != MFA_OK) return status;
    snprintf(p->vid, sizeof p->vid, "%s", vid);
    mfa_free(vid);
    CHECK_AT(g_mail.sent > 0 && g_mail.ring[(g_mail.sent - 1) % MAIL_RING].purpose == MFA_EMAIL_SIGN_IN, line);
    if (!mail_code_at(f->address, code, line)) return MFA_ERR_INTERNAL;
    if (right) snprintf(p->code, sizeof p->code, "%s", code);
    else wrong_sms_code(p->code, code);
    p->assertion.verification_id = p->vid;
    p->assertion.code = p->code;
    return MFA_OK;
}

static int email_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)use;
    return email_proof(ctx, cred, f, 1, p, line);
}

static int email_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    return email_proof(ctx, cred, f, 0, p, line);
}

/* Recovery codes: a set is generated, and each of its codes is a proof. */
static int recovery_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    return generate_codes_at(ctx, user, "paper", f, line);
}

static int recovery_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)ctx;
    (void)cred;
    (void)line;
    proof_init(p, MFA_FACTOR_RECOVERY_CODES);
    snprintf(p->code, sizeof p->code, "%s", f->codes[use]);
    p->assertion.enrollment_id = use % 2 ? NULL : f->eid; /* the set's id is optional */
    p->assertion.code = p->code;
    return MFA_OK;
}

static int recovery_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    (void)ctx;
    (void)cred;
    (void)line;
    proof_init(p, MFA_FACTOR_RECOVERY_CODES);
    snprintf(p->code, sizeof p->code, "zzzz-zzzz-zz");
    p->assertion.enrollment_id = f->eid;
    p->assertion.code = p->code;
    return MFA_OK;
}

/* WebAuthn: a software authenticator per factor, found again by the factor's enrollment id. */
static struct {
    char eid[64];
    webauthn_key key;
} authenticators[64];
static int authenticator_count;

static webauthn_key *authenticator_of(const factor *f) {
    for (int i = 0; i < authenticator_count; i++) {
        if (strcmp(authenticators[i].eid, f->eid) == 0) return &authenticators[i].key;
    }
    return NULL;
}

static int webauthn_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    mfa_user fresh = *user;
    mfa_assertion a = assertion_of(MFA_FACTOR_WEBAUTHN);
    mfa_factor_info *info = NULL;
    char *session = NULL, *options = NULL, json[4096];
    webauthn_key key;
    int status;
    memset(f, 0, sizeof *f);
    f->kind = MFA_FACTOR_WEBAUTHN;
    fresh.auth_time = g_now;
    webauthn_key_new(&key, NULL);
    CHECK_STATUS_AT(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK, line);
    status = mfa_webauthn_registration_options(ctx, &options, session, fresh.uid, NULL, NULL);
    mfa_free(session);
    if (status != MFA_OK) return status;
    CHECK_AT(webauthn_register(json, sizeof json, &key, options), line);
    mfa_free(options);
    a.credential = json;
    status = mfa_enroll(ctx, &info, &fresh, &a, "key", NULL);
    CHECK_AT((status == MFA_OK) == (info != NULL), line);
    if (info && authenticator_count < 64) {
        snprintf(f->eid, sizeof f->eid, "%s", info->uid);
        f->enrolled_at = g_now;
        snprintf(authenticators[authenticator_count].eid, sizeof authenticators[0].eid, "%s", info->uid);
        authenticators[authenticator_count++].key = key;
    }
    mfa_factor_info_free(info);
    return status;
}

/* The authenticator's answer to this pending credential's challenge (the credential JSON in `vid`). */
static int webauthn_proof(mfa_ctx *ctx, const char *cred, const factor *f, int corrupt, proof *p, int line) {
    webauthn_key *key = authenticator_of(f);
    char *options = NULL;
    int status;
    proof_init(p, MFA_FACTOR_WEBAUTHN);
    CHECK_AT(key != NULL, line);
    if (!key) return MFA_ERR_INTERNAL;
    status = mfa_webauthn_authentication_options(ctx, &options, cred, NULL, f->eid, NULL);
    if (status != MFA_OK) return status;
    CHECK_AT(webauthn_assert(p->vid, sizeof p->vid, key, options, corrupt), line);
    mfa_free(options);
    p->assertion.credential = p->vid;
    p->assertion.enrollment_id = f->eid;
    return MFA_OK;
}

static int webauthn_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)use;
    return webauthn_proof(ctx, cred, f, 0, p, line);
}

static int webauthn_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    return webauthn_proof(ctx, cred, f, 1, p, line);
}

/* Hardware tokens: imported unassigned by an operator, claimed by the user with an enrollment session. */
static struct {
    char eid[64];
    uint8_t secret[20];
    yubikey key;
} tokens[128];
static int token_count;

static int token_index(const factor *f) {
    for (int i = 0; i < token_count; i++) {
        if (strcmp(tokens[i].eid, f->eid) == 0) return i;
    }
    return -1;
}

/* Imports the seed unassigned, then claims it for `user` with `code` (the enrollment session in session_info). */
static int claim_token(mfa_ctx *ctx, const mfa_user *user, const mfa_token_seed *seed, int32_t kind,
                       const char *serial, const char *code, factor *f, int line) {
    mfa_user fresh = *user;
    mfa_assertion a = assertion_of(kind);
    mfa_factor_info *info = NULL;
    char *session = NULL;
    int status;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    fresh.auth_time = g_now;
    CHECK_STATUS_AT(mfa_token_import(ctx, NULL, seed, NULL, NULL, NULL, "ops", NULL), MFA_OK, line);
    CHECK_STATUS_AT(mfa_session_new(ctx, &session, &fresh, NULL), MFA_OK, line);
    a.session_info = session;
    a.serial = serial;
    a.code = code;
    status = mfa_enroll(ctx, &info, &fresh, &a, "token", NULL);
    mfa_free(session);
    CHECK_AT((status == MFA_OK) == (info != NULL), line);
    if (info) {
        snprintf(f->eid, sizeof f->eid, "%s", info->uid);
        f->enrolled_at = g_now;
    }
    mfa_factor_info_free(info);
    return status;
}

/* HOTP: a token of its own (counter 0 claims it); use n is the code of counter n + 1. */
static int hotp_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    mfa_token_seed seed = MFA_TOKEN_SEED_INIT;
    char serial[64], code[MFA_CODE_BUFFER_SIZE];
    int slot = token_count;
    int status;
    if (slot >= 128) return MFA_ERR_INTERNAL;
    for (size_t i = 0; i < 20; i++) tokens[slot].secret[i] = (uint8_t)(slot * 37 + i * 11 + 1);
    snprintf(serial, sizeof serial, "hotp-%d-%s", slot, user->uid);
    seed.kind = MFA_FACTOR_HOTP;
    seed.secret = tokens[slot].secret;
    seed.secret_len = 20;
    seed.serial = serial;
    CHECK_STATUS_AT(mfa_hotp_generate(code, sizeof code, tokens[slot].secret, 20, 0, 6, MFA_ALG_SHA1), MFA_OK, line);
    status = claim_token(ctx, user, &seed, MFA_FACTOR_HOTP, serial, code, f, line);
    if (status == MFA_OK) {
        snprintf(tokens[slot].eid, sizeof tokens[slot].eid, "%s", f->eid);
        token_count++;
    }
    return status;
}

static int hotp_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    int slot = token_index(f);
    (void)ctx;
    (void)cred;
    proof_init(p, MFA_FACTOR_HOTP);
    CHECK_AT(slot >= 0, line);
    if (slot < 0) return MFA_ERR_INTERNAL;
    CHECK_STATUS_AT(mfa_hotp_generate(p->code, sizeof p->code, tokens[slot].secret, 20, (uint64_t)use + 1, 6,
                                      MFA_ALG_SHA1), MFA_OK, line);
    p->assertion.enrollment_id = f->eid;
    p->assertion.code = p->code;
    return MFA_OK;
}

/* A code no counter within reach gives. */
static int hotp_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    int slot = token_index(f);
    char reach[41][MFA_CODE_BUFFER_SIZE];
    (void)ctx;
    (void)cred;
    proof_init(p, MFA_FACTOR_HOTP);
    if (slot < 0) return MFA_ERR_INTERNAL;
    for (uint64_t c = 0; c <= 40; c++) {
        CHECK_STATUS_AT(mfa_hotp_generate(reach[c], sizeof reach[c], tokens[slot].secret, 20, c, 6, MFA_ALG_SHA1),
                        MFA_OK, line);
    }
    for (unsigned guess = 0;; guess++) {
        int taken = 0;
        snprintf(p->code, sizeof p->code, "%06u", guess);
        for (int c = 0; c <= 40; c++) taken |= strcmp(reach[c], p->code) == 0;
        if (!taken) break;
    }
    p->assertion.enrollment_id = f->eid;
    p->assertion.code = p->code;
    return MFA_OK;
}

/* Yubico OTP: a key of its own, claimed with its first touch; use n is session counter n + 1. */
static int yubico_enroll(mfa_ctx *ctx, const mfa_user *user, factor *f, int line) {
    mfa_token_seed seed = MFA_TOKEN_SEED_INIT;
    char otp[YUBIKEY_OTP_MAX];
    int slot = token_count;
    int status;
    if (slot >= 128) return MFA_ERR_INTERNAL;
    yubikey_make(&tokens[slot].key, (uint32_t)slot * 7919u + (uint32_t)strlen(user->uid));
    seed.kind = MFA_FACTOR_YUBICO_OTP;
    seed.secret = tokens[slot].key.key;
    seed.secret_len = 16;
    seed.public_id = tokens[slot].key.public_id;
    seed.private_id = tokens[slot].key.private_id;
    seed.private_id_len = 6;
    yubikey_touch(otp, &tokens[slot].key);
    status = claim_token(ctx, user, &seed, MFA_FACTOR_YUBICO_OTP, NULL, otp, f, line);
    if (status == MFA_OK) {
        snprintf(tokens[slot].eid, sizeof tokens[slot].eid, "%s", f->eid);
        token_count++;
    }
    return status;
}

static int yubico_proof(const factor *f, int use, const uint8_t *key, proof *p, int line) {
    int slot = token_index(f);
    proof_init(p, MFA_FACTOR_YUBICO_OTP);
    CHECK_AT(slot >= 0, line);
    if (slot < 0) return MFA_ERR_INTERNAL;
    yubikey_otp(p->vid, &tokens[slot].key, tokens[slot].key.use, (uint8_t)(use + 1), key);
    p->assertion.code = p->vid;
    p->assertion.enrollment_id = use % 2 ? f->eid : NULL; /* the OTP names its key */
    return MFA_OK;
}

static int yubico_right(mfa_ctx *ctx, const char *cred, const factor *f, int use, proof *p, int line) {
    (void)ctx;
    (void)cred;
    return yubico_proof(f, use, NULL, p, line);
}

/* An OTP of the key's public id, encrypted with another key. */
static int yubico_wrong(mfa_ctx *ctx, const char *cred, const factor *f, proof *p, int line) {
    static const uint8_t other[16] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    (void)ctx;
    (void)cred;
    return yubico_proof(f, 200, other, p, line);
}

static const driver drivers[] = {
    {"totp", MFA_FACTOR_TOTP, MFA_ERR_INVALID_VERIFICATION_CODE, totp_enroll, totp_right, totp_wrong},
    /* A verification id belongs to the pending credential it was sent for. */
    {"phone", MFA_FACTOR_PHONE, MFA_ERR_INVALID_SESSION, phone_enroll, phone_right, phone_wrong},
    {"recovery", MFA_FACTOR_RECOVERY_CODES, MFA_ERR_INVALID_VERIFICATION_CODE, recovery_enroll, recovery_right,
     recovery_wrong},
    /* A WebAuthn answer carries the challenge of the sign-in it was made for. */
    {"webauthn", MFA_FACTOR_WEBAUTHN, MFA_ERR_INVALID_SESSION, webauthn_enroll, webauthn_right, webauthn_wrong},
    /* An email verification id, as an SMS one, belongs to the pending credential it was sent for. */
    {"email", MFA_FACTOR_EMAIL, MFA_ERR_INVALID_SESSION, email_enroll, email_right, email_wrong},
    /* A counter (HOTP) or a YubiKey's counters, once accepted, lie below the next. */
    {"hotp", MFA_FACTOR_HOTP, MFA_ERR_INVALID_VERIFICATION_CODE, hotp_enroll, hotp_right, hotp_wrong},
    {"yubico_otp", MFA_FACTOR_YUBICO_OTP, MFA_ERR_INVALID_VERIFICATION_CODE, yubico_enroll, yubico_right, yubico_wrong},
};
#define DRIVERS ((int)(sizeof drivers / sizeof drivers[0]))

/* ------------------------------------------------------------------ */
/* Steps                                                                */
/* ------------------------------------------------------------------ */

/* A user of this case and kind ("contract-<case>-<kind>"). */
static void case_user(mfa_user *user, char uid[64], const char *name, const driver *d) {
    snprintf(uid, 64, "contract-%s-%s", name, d->factor_id);
    user_make(user, uid, NULL);
}

/* mfa_resolve with a proof; on MFA_OK the result is checked against the factor and freed. */
static int resolve_proof_at(mfa_ctx *ctx, const char *cred, const proof *p, const driver *d, const factor *f,
                            const mfa_user *user, int line) {
    mfa_sign_in_result *result = NULL;
    char *err = NULL;
    int status = mfa_resolve(ctx, &result, cred, NULL, &p->assertion, &err);
    CHECK_AT((status == MFA_OK) == (result != NULL), line);
    CHECK_AT((status == MFA_OK) == (err == NULL), line);
    if (result) {
        CHECK_AT(strcmp(result->uid, user->uid) == 0 && result->tenant == NULL, line);
        CHECK_AT(strcmp(result->factor_id, d->factor_id) == 0 && result->kind == d->kind, line);
        CHECK_AT(strcmp(result->enrollment_id, f->eid) == 0, line);
        CHECK_AT(result->time == g_now, line);
        CHECK_AT(result->claim_count >= 2, line);
        if (result->claim_count >= 2) {
            CHECK_AT(strcmp(result->claims[0].name, "sign_in_second_factor") == 0, line);
            CHECK_AT(strcmp(result->claims[0].value, d->factor_id) == 0, line);
            CHECK_AT(strcmp(result->claims[1].name, "second_factor_identifier") == 0, line);
            CHECK_AT(strcmp(result->claims[1].value, f->eid) == 0, line);
        }
    }
    mfa_sign_in_result_free(result);
    mfa_free(err);
    return status;
}
#define resolve_proof(ctx, cred, p, d, f, user) resolve_proof_at(ctx, cred, p, d, f, user, __LINE__)

/* The right proof for `cred` (use n), then mfa_resolve: the first status that is not MFA_OK. */
static int sign_in_with_at(mfa_ctx *ctx, const char *cred, const driver *d, const factor *f, const mfa_user *user,
                           int use, int line) {
    proof p;
    int status = d->right(ctx, cred, f, use, &p, line);
    return status == MFA_OK ? resolve_proof_at(ctx, cred, &p, d, f, user, line) : status;
}
#define sign_in_with(ctx, cred, d, f, user, use) sign_in_with_at(ctx, cred, d, f, user, use, __LINE__)

/* An enrollment session for `user`, into `session` (TOKEN_MAX); the status. */
static int session_for(mfa_ctx *ctx, const mfa_user *user, char session[TOKEN_MAX]) {
    mfa_user fresh = *user;
    char *out = NULL;
    int status;
    fresh.auth_time = g_now;
    status = mfa_session_new(ctx, &out, &fresh, NULL);
    snprintf(session, TOKEN_MAX, "%s", out ? out : "");
    mfa_free(out);
    return status;
}

/* ------------------------------------------------------------------ */
/* The contract                                                         */
/* ------------------------------------------------------------------ */

static void contract_enroll(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], early[TOKEN_MAX];
    factor f;
    mfa_factor_list *list = NULL;
    mfa_resolver *resolver = NULL;
    size_t mark = g_audit.count;
    int64_t before;

    case_user(&user, uid, "enroll", d);
    CHECK_STATUS(session_for(ctx, &user, early), MFA_OK);
    g_now += 1;
    before = g_now - 1;
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    /* Listed, with its kind and a hint. */
    CHECK_STATUS(mfa_factors_list(ctx, &list, &user, NULL), MFA_OK);
    CHECK(list && list->count == 1);
    if (list && list->count == 1) {
        CHECK(strcmp(list->items[0].uid, f.eid) == 0 && strcmp(list->items[0].factor_id, d->factor_id) == 0);
        CHECK(list->items[0].kind == d->kind && list->items[0].hint && list->items[0].hint[0] != '\0');
        CHECK((list->items[0].remaining_codes >= 0) == (d->kind == MFA_FACTOR_RECOVERY_CODES));
    }
    mfa_factor_list_free(list);
    /* Hinted: the hint never shows a phone number or an email address in full. */
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == 1);
    if (resolver && resolver->hint_count == 1) {
        const mfa_factor_info *h = &resolver->hints[0];
        CHECK(strcmp(h->uid, f.eid) == 0 && strcmp(h->factor_id, d->factor_id) == 0 && h->kind == d->kind);
        CHECK(h->hint && h->hint[0] != '\0' && !contains(h->hint, f.number[0] ? f.number + 2 : "\x01"));
        CHECK(!f.address[0] || (!contains(h->hint, f.address) && strchr(h->hint, '*') != NULL));
    }
    mfa_resolver_free(resolver);
    /* Audited. */
    {
        const audit_record *e = audit_find(mark, MFA_AUDIT_ENROLL, "", uid, f.eid, NULL);
        CHECK(e != NULL && strcmp(e->factor_id, d->factor_id) == 0);
    }
    /* Enrolling revoked what came before: credentials of that second and earlier, sessions. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, before), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, g_now), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, g_now + 1), MFA_OK);
    {
        mfa_totp_secret *secret = NULL;
        CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, early, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
        CHECK(secret == NULL);
    }
}

static void contract_wrong_code(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX];
    factor f;
    proof p;
    size_t mark;
    const audit_record *e;

    case_user(&user, uid, "wrong", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(d->wrong(ctx, cred, &f, &p, __LINE__), MFA_OK);
    mark = g_audit.count;
    CHECK_STATUS(resolve_proof(ctx, cred, &p, d, &f, &user), MFA_ERR_INVALID_VERIFICATION_CODE);
    e = audit_last(-1);
    CHECK(e && e->kind == MFA_AUDIT_SIGN_IN_FAILURE && strcmp(e->factor_id, d->factor_id) == 0);
    CHECK(e && strcmp(e->detail, "INVALID_VERIFICATION_CODE") == 0 && strcmp(e->uid, uid) == 0);
    CHECK(audit_count(mark, MFA_AUDIT_SIGN_IN_FAILURE, NULL) == 1);
    /* The credential was not used up. */
    CHECK_STATUS(sign_in_with(ctx, cred, d, &f, &user, 0), MFA_OK);
}

static void contract_sign_in(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX];
    factor f;
    bool passed = false;
    const audit_record *e;

    case_user(&user, uid, "sign-in", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, uid, 3600), MFA_OK);
    CHECK(!passed);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(sign_in_with(ctx, cred, d, &f, &user, 0), MFA_OK);
    e = audit_last(MFA_AUDIT_SIGN_IN_SUCCESS);
    CHECK(e && strcmp(e->factor_id, d->factor_id) == 0 && strcmp(e->enrollment_id, f.eid) == 0 &&
          strcmp(e->uid, uid) == 0 && e->time == g_now);
    CHECK_STATUS(mfa_step_up_check(ctx, &passed, NULL, uid, 1), MFA_OK);
    CHECK(passed);
}

static void contract_replay(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX], again[TOKEN_MAX];
    factor f;
    proof first;
    mfa_resolver *resolver = (mfa_resolver *)&resolver;

    case_user(&user, uid, "replay", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(d->right(ctx, cred, &f, 0, &first, __LINE__), MFA_OK);
    CHECK_STATUS(resolve_proof(ctx, cred, &first, d, &f, &user), MFA_OK);
    /* The pending credential was used, even with a new proof, and cannot be rebuilt. */
    CHECK_STATUS(sign_in_with(ctx, cred, d, &f, &user, 1), MFA_ERR_INVALID_SESSION);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, NULL, NULL), MFA_ERR_INVALID_SESSION);
    CHECK(resolver == NULL);
    /* What was accepted once is refused with a fresh credential; a new proof works. */
    SIGN_IN_REQUIRED(ctx, &user, again);
    CHECK_STATUS(resolve_proof(ctx, again, &first, d, &f, &user), d->replay_status);
    CHECK_STATUS(sign_in_with(ctx, again, d, &f, &user, 1), MFA_OK);
}

static void contract_unenroll(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX], session[TOKEN_MAX];
    factor f, totp;
    mfa_resolver *resolver = (mfa_resolver *)&resolver;
    mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
    int64_t issued;

    case_user(&user, uid, "unenroll", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    g_now += 30;
    ENROLL_OK(ctx, &user, "stays", &totp);
    g_now += 30;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(session_for(ctx, &user, session), MFA_OK);
    g_now += 1;
    issued = g_now;
    user.auth_time = g_now;
    CHECK_STATUS(mfa_unenroll(ctx, &user, f.eid, NULL), MFA_OK);
    {
        const audit_record *e = audit_last(MFA_AUDIT_UNENROLL);
        CHECK(e && strcmp(e->factor_id, d->factor_id) == 0 && strcmp(e->enrollment_id, f.eid) == 0);
    }
    /* A credential of the revoking second is revoked; milliseconds order it exactly. */
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, issued), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, issued + 1), MFA_OK);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, uid, issued * 1000), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check_ms(ctx, NULL, uid, issued * 1000 + 1), MFA_OK);
    /* libmfa's own tokens minted before: the pending credential (with the factor that
     * stays), the enrollment session, the resolver. */
    CHECK_STATUS(sign_in_with(ctx, cred, &drivers[0], &totp, &user, 0), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(secret == NULL);
    CHECK_STATUS(mfa_resolver_load(ctx, &resolver, cred, NULL, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(resolver == NULL);
    /* The factor is gone from the hints; the other one signs in. */
    CHECK_STATUS(mfa_sign_in(ctx, &resolver, &user, NULL), MFA_ERR_SECOND_FACTOR_REQUIRED);
    CHECK(resolver && resolver->hint_count == 1 && strcmp(resolver->hints[0].uid, totp.eid) == 0);
    if (resolver) CHECK_STATUS(sign_in_with(ctx, resolver->session, &drivers[0], &totp, &user, 1), MFA_OK);
    mfa_resolver_free(resolver);
}

static void contract_revocation(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX], session[TOKEN_MAX], fresh[TOKEN_MAX];
    factor f;
    mfa_totp_secret *secret = (mfa_totp_secret *)&secret;
    char *err = NULL;
    int64_t issued;
    const audit_record *e;

    case_user(&user, uid, "revoke", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    g_now += 10;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(session_for(ctx, &user, session), MFA_OK);
    issued = g_now;
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, issued), MFA_OK);
    CHECK_ERR(mfa_revoke_tokens(ctx, NULL, uid, &err), MFA_OK, err);
    e = audit_last(-1);
    CHECK(e && e->kind == MFA_AUDIT_TOKENS_REVOKED && strcmp(e->kind_name, "TOKENS_REVOKED") == 0);
    CHECK(e && strcmp(e->uid, uid) == 0 && strcmp(e->tenant, "") == 0 && e->time == g_now);
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, issued), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_token_check(ctx, NULL, uid, issued + 1), MFA_OK);
    CHECK_STATUS(sign_in_with(ctx, cred, d, &f, &user, 0), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK_STATUS(mfa_totp_generate_secret(ctx, &secret, session, NULL), MFA_ERR_USER_TOKEN_EXPIRED);
    CHECK(secret == NULL);
    /* The factor stays, and a new sign-in works. */
    CHECK(factor_count(ctx, &user) == 1);
    SIGN_IN_REQUIRED(ctx, &user, fresh);
    CHECK_STATUS(sign_in_with(ctx, fresh, d, &f, &user, 1), MFA_OK);
}

static void contract_backoff(mfa_ctx *ctx, const driver *d) {
    mfa_user user;
    char uid[64], cred[TOKEN_MAX];
    factor f;
    proof wrong;
    int refused = 0;

    case_user(&user, uid, "backoff", d);
    CHECK_STATUS(d->enroll_factor(ctx, &user, &f, __LINE__), MFA_OK);
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(d->wrong(ctx, cred, &f, &wrong, __LINE__), MFA_OK);
    for (int i = 0; i < 9; i++) {
        int status = resolve_proof(ctx, cred, &wrong, d, &f, &user);
        if (status == MFA_ERR_INVALID_SESSION) {
            /* An SMS verification takes 5 wrong tries; then a new code is needed. */
            int sent = d->wrong(ctx, cred, &f, &wrong, __LINE__);
            status = sent == MFA_OK ? resolve_proof(ctx, cred, &wrong, d, &f, &user) : sent;
        }
        refused += status == MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER;
        if (status != MFA_ERR_INVALID_VERIFICATION_CODE && status != MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER) {
            fprintf(stderr, "backoff (%s), try %d: %s\n", d->factor_id, i, mfa_status_name(status));
            CHECK(!"a wrong code is evaluated or refused by the backoff");
        }
    }
    CHECK(refused > 0);
    CHECK(audit_last(MFA_AUDIT_BACKOFF) && strcmp(audit_last(MFA_AUDIT_BACKOFF)->uid, uid) == 0);
    g_now += 3600;
    SIGN_IN_REQUIRED(ctx, &user, cred);
    CHECK_STATUS(sign_in_with(ctx, cred, d, &f, &user, 2), MFA_OK);
}

typedef void (*contract_case)(mfa_ctx *ctx, const driver *d);

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        contract_case run;
    } cases[] = {
        {"enroll", contract_enroll},         {"wrong code", contract_wrong_code}, {"sign-in", contract_sign_in},
        {"replay", contract_replay},         {"unenroll", contract_unenroll},    {"revocation", contract_revocation},
        {"backoff", contract_backoff},
    };
    mfa_options options;
    mfa_ctx *ctx;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [STORE]\n", argv[0]);
        return 2;
    }
    if (test_store_make(&store, argc > 1 ? argv[1] : NULL, "libmfa-contract") != 0) return 2;
    printf("store: %s\n", store.postgres ? "PostgreSQL" : "SQLite");
    fixture_options(&options, store.location);
    ctx = open_with(&options);
    if (ctx) {
        set_config(ctx, NULL, CONTRACT_CONFIG);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            for (int k = 0; k < DRIVERS; k++) {
                int before = failures;
                cases[c].run(ctx, &drivers[k]);
                if (failures != before) fprintf(stderr, "(in the %s case, %s)\n", cases[c].name, drivers[k].factor_id);
                g_now += 60;
            }
        }
    }
    mfa_close(ctx);
    test_store_remove(&store);
    return engine_report();
}
