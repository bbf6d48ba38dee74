/*
 * engine.c: the context's calls for users (configuration, sessions, enrollment and sign-in of
 * every kind, tokens, TOTP, SMS, recovery codes, WebAuthn options). Each one copies its
 * arguments on the JS thread, runs the libmfa call on a worker and resolves with plain objects
 * (lib/ turns them into the classes users see). argv[0] is always the context handle.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "call.h"

/* ------------------------------------------------------------------ */
/* Shared results                                                       */
/* ------------------------------------------------------------------ */

napi_value done_void(napi_env env, job *j) {
    (void)j;
    return js_undefined(env);
}

napi_value done_string(napi_env env, job *j) {
    return js_string(env, j->out_str);
}

void free_string(job *j) {
    if (j->out_str) L.mfa_free(j->out_str);
    j->out_str = NULL;
}

static napi_value done_bool(napi_env env, job *j) {
    return js_bool(env, j->out_b);
}

static napi_value done_number(napi_env env, job *j) {
    return js_int64(env, j->out_n);
}

napi_value done_factor(napi_env env, job *j) {
    return j->out ? js_factor_info(env, j->out) : js_null(env);
}

void free_factor(job *j) {
    L.mfa_factor_info_free(j->out);
    j->out = NULL;
}

napi_value done_factor_list(napi_env env, job *j) {
    return js_factor_list(env, j->out);
}

void free_factor_list(job *j) {
    L.mfa_factor_list_free(j->out);
    j->out = NULL;
}

napi_value js_resolver(napi_env env, const mfa_resolver *r) {
    napi_value o = js_object(env), hints;
    if (!o || napi_create_array_with_length(env, r->hint_count, &hints) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < r->hint_count; i++) {
        napi_value hint = js_factor_info(env, &r->hints[i]);
        if (!hint || napi_set_element(env, hints, (uint32_t)i, hint) != napi_ok) return throw_napi(env, 0);
    }
    if (!set(env, o, "session", js_string(env, r->session)) || !set(env, o, "uid", js_string(env, r->uid)) ||
        !set(env, o, "tenant", js_string(env, r->tenant)) || !set(env, o, "hints", hints)) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_resolver(job *j) {
    L.mfa_resolver_free(j->out);
    j->out = NULL;
}

static napi_value done_resolver(napi_env env, job *j) {
    return js_resolver(env, j->out);
}

/* ------------------------------------------------------------------ */
/* Configuration and maintenance                                        */
/* ------------------------------------------------------------------ */

static void config_set_run(job *j) {
    j->status = L.mfa_config_set_json(j->ctx->handle, j->arg[0], j->arg[1], &j->err);
}

static void config_update_run(job *j) {
    j->status = L.mfa_config_update_json(j->ctx->handle, j->arg[0], j->arg[1], &j->err);
}

/* (ctx, tenant|null, json) */
static napi_value config_call(napi_env env, napi_callback_info info, bool update) {
    CALL_BEGIN(3, mfa_config_set_json, update ? config_update_run : config_set_run, done_void, NULL);
    if (update && !REQUIRE(env, mfa_config_update_json)) CALL_FAIL;
    if (!job_string(env, j, argv[1], "tenant", true, &j->arg[0]) ||
        !job_string(env, j, argv[2], "config", false, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

static napi_value js_config_set(napi_env env, napi_callback_info info) {
    return config_call(env, info, false);
}

static napi_value js_config_update(napi_env env, napi_callback_info info) {
    return config_call(env, info, true);
}

static void config_get_run(job *j) {
    j->status = L.mfa_config_get_json(j->ctx->handle, &j->out_str, j->arg[0], &j->err);
}

static napi_value js_config_get(napi_env env, napi_callback_info info) {
    CALL_BEGIN(2, mfa_config_get_json, config_get_run, done_string, free_string);
    if (!job_string(env, j, argv[1], "tenant", true, &j->arg[0])) CALL_FAIL;
    CALL_END;
}

static void rotate_run(job *j) {
    size_t count = 0;
    j->status = L.mfa_rotate_keys(j->ctx->handle, &count, &j->err);
    j->out_n = (int64_t)count;
}

static napi_value js_rotate_keys(napi_env env, napi_callback_info info) {
    CALL_BEGIN(1, mfa_rotate_keys, rotate_run, done_number, NULL);
    CALL_END;
}

static void purge_run(job *j) {
    j->status = L.mfa_purge_expired(j->ctx->handle, &j->err);
}

static napi_value js_purge_expired(napi_env env, napi_callback_info info) {
    CALL_BEGIN(1, mfa_purge_expired, purge_run, done_void, NULL);
    CALL_END;
}

static void metrics_text_run(job *j) {
    j->status = L.mfa_metrics_prometheus(j->ctx->handle, &j->out_str, &j->err);
}

static napi_value js_metrics_text(napi_env env, napi_callback_info info) {
    CALL_BEGIN(1, mfa_metrics_prometheus, metrics_text_run, done_string, free_string);
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Enrollment, every kind                                               */
/* ------------------------------------------------------------------ */

static void session_run(job *j) {
    j->status = L.mfa_session_new(j->ctx->handle, &j->out_str, &j->user, &j->err);
}

/* (ctx, user) -> session token */
static napi_value js_session_new(napi_env env, napi_callback_info info) {
    CALL_BEGIN(2, mfa_session_new, session_run, done_string, free_string);
    if (!arg_user(env, j, argv[1])) CALL_FAIL;
    CALL_END;
}

static void enroll_run(job *j) {
    mfa_factor_info *out = NULL;
    j->status = L.mfa_enroll(j->ctx->handle, &out, &j->user, &j->assertion, j->arg[0], &j->err);
    j->out = out;
}

/* (ctx, user, assertion, displayName|null) -> factor */
static napi_value js_enroll(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_enroll, enroll_run, done_factor, free_factor);
    if (!arg_user(env, j, argv[1]) || !arg_assertion(env, j, argv[2]) ||
        !job_string(env, j, argv[3], "displayName", true, &j->arg[0])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void factors_run(job *j) {
    mfa_factor_list *out = NULL;
    j->status = L.mfa_factors_list(j->ctx->handle, &out, &j->user, &j->err);
    j->out = out;
}

/* (ctx, user) -> [factor] */
static napi_value js_factors_list(napi_env env, napi_callback_info info) {
    CALL_BEGIN(2, mfa_factors_list, factors_run, done_factor_list, free_factor_list);
    if (!arg_user(env, j, argv[1])) CALL_FAIL;
    CALL_END;
}

static void unenroll_run(job *j) {
    j->status = L.mfa_unenroll(j->ctx->handle, &j->user, j->arg[0], &j->err);
}

/* (ctx, user, enrollmentId) */
static napi_value js_unenroll(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_unenroll, unenroll_run, done_void, NULL);
    if (!arg_user(env, j, argv[1]) || !job_string(env, j, argv[2], "enrollmentId", false, &j->arg[0])) CALL_FAIL;
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Sign-in, every kind                                                  */
/* ------------------------------------------------------------------ */

static void sign_in_run(job *j) {
    mfa_resolver *out = NULL;
    j->status = L.mfa_sign_in(j->ctx->handle, &out, &j->user, &j->err);
    j->out = out;
}

/* Resolves with null (no second factor needed) or {message, resolver} (SECOND_FACTOR_REQUIRED). */
static napi_value done_sign_in(napi_env env, job *j) {
    if (j->status == MFA_OK) return js_null(env);
    if (j->status == MFA_ERR_SECOND_FACTOR_REQUIRED && j->out) {
        napi_value o = js_object(env);
        if (!set(env, o, "resolver", js_resolver(env, j->out)) ||
            !set(env, o, "message", js_string(env, j->err ? j->err : L.mfa_errstr(j->status)))) {
            return throw_napi(env, 0);
        }
        return o;
    }
    return throw_status(env, j->status, j->err);
}

/* (ctx, user) */
static napi_value js_sign_in(napi_env env, napi_callback_info info) {
    CALL_BEGIN(2, mfa_sign_in, sign_in_run, done_sign_in, free_resolver);
    j->own_status = true;
    if (!arg_user(env, j, argv[1])) CALL_FAIL;
    CALL_END;
}

static void resolver_load_run(job *j) {
    mfa_resolver *out = NULL;
    j->status = L.mfa_resolver_load(j->ctx->handle, &out, j->arg[0], j->arg[1], &j->err);
    j->out = out;
}

/* (ctx, pendingCredential, tenant|null) -> resolver */
static napi_value js_resolver_load(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_resolver_load, resolver_load_run, done_resolver, free_resolver);
    if (!job_string(env, j, argv[1], "pendingCredential", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "tenant", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void resolve_run(job *j) {
    mfa_sign_in_result *out = NULL;
    j->status = L.mfa_resolve(j->ctx->handle, &out, j->arg[0], j->arg[1], &j->assertion, &j->err);
    j->out = out;
}

static napi_value done_sign_in_result(napi_env env, job *j) {
    const mfa_sign_in_result *r = j->out;
    napi_value o = js_object(env), claims;
    if (!o || napi_create_array_with_length(env, r->claim_count, &claims) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < r->claim_count; i++) {
        napi_value pair, name = js_string(env, r->claims[i].name), value = js_string(env, r->claims[i].value);
        if (!name || !value || napi_create_array_with_length(env, 2, &pair) != napi_ok ||
            napi_set_element(env, pair, 0, name) != napi_ok || napi_set_element(env, pair, 1, value) != napi_ok ||
            napi_set_element(env, claims, (uint32_t)i, pair) != napi_ok) {
            return throw_napi(env, 0);
        }
    }
    if (!set(env, o, "uid", js_string(env, r->uid)) || !set(env, o, "tenant", js_string(env, r->tenant)) ||
        !set(env, o, "factorId", js_string(env, r->factor_id)) ||
        !set(env, o, "enrollmentId", js_string(env, r->enrollment_id)) ||
        !set(env, o, "time", js_int64(env, r->time)) || !set(env, o, "kind", js_int64(env, r->kind)) ||
        !set(env, o, "claims", claims)) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_sign_in_result(job *j) {
    L.mfa_sign_in_result_free(j->out);
    j->out = NULL;
}

/* (ctx, pendingCredential, tenant|null, assertion) -> sign-in result */
static napi_value js_resolve(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_resolve, resolve_run, done_sign_in_result, free_sign_in_result);
    if (!job_string(env, j, argv[1], "pendingCredential", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "tenant", true, &j->arg[1]) || !arg_assertion(env, j, argv[3])) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Tokens and step-up                                                   */
/* ------------------------------------------------------------------ */

static void token_check_run(job *j) {
    j->status = L.mfa_token_check(j->ctx->handle, j->arg[1], j->arg[0], j->n[0]);
}

static void token_check_ms_run(job *j) {
    j->status = L.mfa_token_check_ms(j->ctx->handle, j->arg[1], j->arg[0], j->n[0]);
}

/* (ctx, uid, issuedAt, tenant|null) */
static napi_value token_call(napi_env env, napi_callback_info info, bool ms) {
    CALL_BEGIN(4, mfa_token_check, ms ? token_check_ms_run : token_check_run, done_void, NULL);
    if (ms && !REQUIRE(env, mfa_token_check_ms)) CALL_FAIL;
    if (!job_string(env, j, argv[1], "uid", false, &j->arg[0]) || !arg_int64(env, argv[2], "issuedAt", &j->n[0]) ||
        !job_string(env, j, argv[3], "tenant", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

static napi_value js_token_check(napi_env env, napi_callback_info info) {
    return token_call(env, info, false);
}

static napi_value js_token_check_ms(napi_env env, napi_callback_info info) {
    return token_call(env, info, true);
}

static void revoke_run(job *j) {
    j->status = L.mfa_revoke_tokens(j->ctx->handle, j->arg[1], j->arg[0], &j->err);
}

/* (ctx, uid, tenant|null) */
static napi_value js_revoke_tokens(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_revoke_tokens, revoke_run, done_void, NULL);
    if (!job_string(env, j, argv[1], "uid", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "tenant", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void step_up_run(job *j) {
    bool passed = false;
    j->status = L.mfa_step_up_check(j->ctx->handle, &passed, j->arg[1], j->arg[0], j->n[0]);
    j->out_b = passed;
}

/* (ctx, uid, withinSeconds, tenant|null) -> boolean */
static napi_value js_step_up_check(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_step_up_check, step_up_run, done_bool, NULL);
    if (!job_string(env, j, argv[1], "uid", false, &j->arg[0]) || !arg_int64(env, argv[2], "within", &j->n[0]) ||
        !job_string(env, j, argv[3], "tenant", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* TOTP                                                                 */
/* ------------------------------------------------------------------ */

static void totp_secret_run(job *j) {
    mfa_totp_secret *out = NULL;
    j->status = L.mfa_totp_generate_secret(j->ctx->handle, &out, j->arg[0], &j->err);
    j->out = out;
}

static napi_value done_totp_secret(napi_env env, job *j) {
    const mfa_totp_secret *s = j->out;
    napi_value o = js_object(env);
    if (!set(env, o, "sharedSecretKey", js_string(env, s->shared_secret_key)) ||
        !set(env, o, "algorithm", js_int64(env, s->algorithm)) || !set(env, o, "digits", js_int64(env, s->digits)) ||
        !set(env, o, "period", js_int64(env, s->period)) || !set(env, o, "deadline", js_int64(env, s->deadline)) ||
        !set(env, o, "sessionInfo", js_string(env, s->session_info))) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_totp_secret(job *j) {
    L.mfa_totp_secret_free(j->out);
    j->out = NULL;
}

/* (ctx, session) -> {sharedSecretKey, algorithm, digits, period, deadline, sessionInfo} */
static napi_value js_totp_generate_secret(napi_env env, napi_callback_info info) {
    CALL_BEGIN(2, mfa_totp_generate_secret, totp_secret_run, done_totp_secret, free_totp_secret);
    if (!job_string(env, j, argv[1], "session", false, &j->arg[0])) CALL_FAIL;
    CALL_END;
}

static void totp_import_run(job *j) {
    mfa_factor_info *out = NULL;
    j->status = L.mfa_totp_import(j->ctx->handle, &out, &j->user, j->bytes, j->bytes_len,
                                  j->has_params ? &j->params : NULL, j->arg[0], &j->err);
    j->out = out;
}

/* (ctx, user, secret bytes, params {algorithm, digits, period, t0}|null, displayName|null) -> factor */
static napi_value js_totp_import(napi_env env, napi_callback_info info) {
    CALL_BEGIN(5, mfa_totp_import, totp_import_run, done_factor, free_factor);
    const uint8_t *bytes;
    napi_valuetype type;
    if (!arg_user(env, j, argv[1]) || !arg_bytes(env, argv[2], "secret", &bytes, &j->bytes_len)) CALL_FAIL;
    j->bytes = malloc(j->bytes_len ? j->bytes_len : 1);
    if (!j->bytes) {
        throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL);
        CALL_FAIL;
    }
    memcpy(j->bytes, bytes, j->bytes_len);
    napi_typeof(env, argv[3], &type);
    if (type != napi_null && type != napi_undefined) {
        napi_value v;
        if (L.mfa_totp_params_init(&j->params, MFA_TOTP_PARAMS_VERSION) != MFA_OK) CALL_FAIL;
        if (!(v = prop(env, argv[3], "algorithm")) || !arg_int32(env, v, "algorithm", &j->params.algorithm) ||
            !(v = prop(env, argv[3], "digits")) || !arg_int32(env, v, "digits", &j->params.digits) ||
            !(v = prop(env, argv[3], "period")) || !arg_int64(env, v, "period", &j->params.period) ||
            !(v = prop(env, argv[3], "t0")) || !arg_int64(env, v, "t0", &j->params.t0)) {
            CALL_FAIL;
        }
        j->has_params = true;
    }
    if (!job_string(env, j, argv[4], "displayName", true, &j->arg[0])) CALL_FAIL;
    CALL_END;
}

static void totp_import_uri_run(job *j) {
    mfa_factor_info *out = NULL;
    j->status = L.mfa_totp_import_uri(j->ctx->handle, &out, &j->user, j->arg[0], j->arg[1], &j->err);
    j->out = out;
}

/* (ctx, user, uri, displayName|null) -> factor */
static napi_value js_totp_import_uri(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_totp_import_uri, totp_import_uri_run, done_factor, free_factor);
    if (!arg_user(env, j, argv[1]) || !job_string(env, j, argv[2], "uri", false, &j->arg[0]) ||
        !job_string(env, j, argv[3], "displayName", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* SMS                                                                  */
/* ------------------------------------------------------------------ */

static void phone_enroll_run(job *j) {
    j->status = L.mfa_phone_start_enrollment(j->ctx->handle, &j->out_str, j->arg[0], j->arg[1], j->arg[2], &j->err);
}

/* (ctx, session, phoneNumber, appCredential|null) -> verification id */
static napi_value js_phone_start_enrollment(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_phone_start_enrollment, phone_enroll_run, done_string, free_string);
    if (!job_string(env, j, argv[1], "session", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "phoneNumber", false, &j->arg[1]) ||
        !job_string(env, j, argv[3], "appCredential", true, &j->arg[2])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void phone_sign_in_run(job *j) {
    j->status = L.mfa_phone_start_sign_in(j->ctx->handle, &j->out_str, j->arg[0], j->arg[1], j->arg[2], j->arg[3],
                                          &j->err);
}

/* (ctx, pendingCredential, tenant|null, enrollmentId, appCredential|null) -> verification id */
static napi_value js_phone_start_sign_in(napi_env env, napi_callback_info info) {
    CALL_BEGIN(5, mfa_phone_start_sign_in, phone_sign_in_run, done_string, free_string);
    if (!job_string(env, j, argv[1], "pendingCredential", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "tenant", true, &j->arg[1]) ||
        !job_string(env, j, argv[3], "enrollmentId", false, &j->arg[2]) ||
        !job_string(env, j, argv[4], "appCredential", true, &j->arg[3])) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Recovery codes                                                       */
/* ------------------------------------------------------------------ */

static void recovery_run(job *j) {
    mfa_recovery_codes *out = NULL;
    j->status = L.mfa_recovery_codes_generate(j->ctx->handle, &out, j->arg[0], j->arg[1], &j->err);
    j->out = out;
}

static napi_value done_recovery(napi_env env, job *j) {
    const mfa_recovery_codes *c = j->out;
    napi_value o = js_object(env), codes;
    if (!o || napi_create_array_with_length(env, c->count, &codes) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < c->count; i++) {
        napi_value code = js_string(env, c->codes[i]);
        if (!code || napi_set_element(env, codes, (uint32_t)i, code) != napi_ok) return throw_napi(env, 0);
    }
    if (!set(env, o, "codes", codes) || !set(env, o, "factor", js_factor_info(env, &c->factor))) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_recovery(job *j) {
    L.mfa_recovery_codes_free(j->out);
    j->out = NULL;
}

/* (ctx, session, displayName|null) -> {codes, factor} */
static napi_value js_recovery_codes_generate(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_recovery_codes_generate, recovery_run, done_recovery, free_recovery);
    if (!REQUIRE(env, mfa_recovery_codes_free)) CALL_FAIL;
    if (!job_string(env, j, argv[1], "session", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "displayName", true, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* WebAuthn ceremony options                                            */
/* ------------------------------------------------------------------ */

static void webauthn_registration_run(job *j) {
    j->status = L.mfa_webauthn_registration_options(j->ctx->handle, &j->out_str, j->arg[0], j->arg[1], j->arg[2],
                                                    &j->err);
}

/* (ctx, session, userName, userDisplayName|null) -> options JSON */
static napi_value js_webauthn_registration_options(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_webauthn_registration_options, webauthn_registration_run, done_string, free_string);
    if (!job_string(env, j, argv[1], "session", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "userName", false, &j->arg[1]) ||
        !job_string(env, j, argv[3], "userDisplayName", true, &j->arg[2])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void webauthn_authentication_run(job *j) {
    j->status = L.mfa_webauthn_authentication_options(j->ctx->handle, &j->out_str, j->arg[0], j->arg[1], j->arg[2],
                                                      &j->err);
}

/* (ctx, pendingCredential, tenant|null, enrollmentId|null) -> options JSON */
static napi_value js_webauthn_authentication_options(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_webauthn_authentication_options, webauthn_authentication_run, done_string, free_string);
    if (!job_string(env, j, argv[1], "pendingCredential", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "tenant", true, &j->arg[1]) ||
        !job_string(env, j, argv[3], "enrollmentId", true, &j->arg[2])) {
        CALL_FAIL;
    }
    CALL_END;
}

bool export_engine(napi_env env, napi_value exports) {
    static const struct {
        const char *name;
        napi_callback fn;
    } table[] = {
        {"configSet", js_config_set},
        {"configUpdate", js_config_update},
        {"configGet", js_config_get},
        {"rotateKeys", js_rotate_keys},
        {"purgeExpired", js_purge_expired},
        {"metricsText", js_metrics_text},
        {"sessionNew", js_session_new},
        {"enroll", js_enroll},
        {"factorsList", js_factors_list},
        {"unenroll", js_unenroll},
        {"signIn", js_sign_in},
        {"resolverLoad", js_resolver_load},
        {"resolve", js_resolve},
        {"tokenCheck", js_token_check},
        {"tokenCheckMs", js_token_check_ms},
        {"revokeTokens", js_revoke_tokens},
        {"stepUpCheck", js_step_up_check},
        {"totpGenerateSecret", js_totp_generate_secret},
        {"totpImport", js_totp_import},
        {"totpImportUri", js_totp_import_uri},
        {"phoneStartEnrollment", js_phone_start_enrollment},
        {"phoneStartSignIn", js_phone_start_sign_in},
        {"recoveryCodesGenerate", js_recovery_codes_generate},
        {"webauthnRegistrationOptions", js_webauthn_registration_options},
        {"webauthnAuthenticationOptions", js_webauthn_authentication_options},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!export_fn(env, exports, table[i].name, table[i].fn)) return false;
    }
    return true;
}
