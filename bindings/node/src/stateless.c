/*
 * stateless.c: the calls that need no context, made synchronously on the JS thread (they
 * touch no store and call no host callback): one-time passwords, base32, key URIs, QR codes,
 * WebAuthn responses checked against the host's own challenge, versions and status names.
 *
 * A TOTP or HOTP object keeps its key and parameters in C (an External), so that verify()
 * is one libmfa call with no copy of the key and no allocation.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------ */
/* Keys of TOTP and HOTP objects                                        */
/* ------------------------------------------------------------------ */

typedef struct otp_key {
    uint8_t *key;
    size_t len;
    mfa_totp_params params; /* TOTP */
    int32_t digits;         /* HOTP */
    int32_t algorithm;      /* HOTP */
} otp_key;

static void otp_key_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    otp_key *k = data;
    live_count(LIVE_OTP_KEY, -1);
    explicit_bzero(k->key, k->len);
    free(k->key);
    free(k);
}

/* A copy of `value`'s bytes (1 to MFA_KEY_MAX_BYTES) in a new otp_key; NULL after throwing. */
static otp_key *otp_key_new(napi_env env, napi_value value) {
    const uint8_t *data;
    size_t len;
    char message[120];
    if (!arg_bytes(env, value, "secret", &data, &len)) return NULL;
    if (len < 1 || len > MFA_KEY_MAX_BYTES) {
        snprintf(message, sizeof message, "secret must be 1 to %d bytes, got %zu", MFA_KEY_MAX_BYTES, len);
        throw_status(env, MFA_ERR_INVALID_ARGUMENT, message);
        return NULL;
    }
    otp_key *k = calloc(1, sizeof *k);
    if (k) k->key = malloc(len);
    if (!k || !k->key) {
        free(k);
        throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL);
        return NULL;
    }
    memcpy(k->key, data, len);
    k->len = len;
    live_count(LIVE_OTP_KEY, 1);
    return k;
}

static napi_value otp_key_external(napi_env env, otp_key *k) {
    napi_value external;
    if (napi_create_external(env, k, otp_key_finalize, NULL, &external) != napi_ok) {
        otp_key_finalize(env, k, NULL);
        return throw_napi(env, 0);
    }
    return external;
}

static otp_key *otp_key_from(napi_env env, napi_value value) {
    void *data = NULL;
    if (napi_get_value_external(env, value, &data) != napi_ok || !data) {
        throw_type(env, "not a libmfa OTP handle");
        return NULL;
    }
    return data;
}

/* A code argument: into `buf` (size 64) when it fits, else into a new allocation in *heap. */
static const char *code_arg(napi_env env, napi_value value, char *buf, char **heap) {
    size_t copied = 0;
    *heap = NULL;
    napi_status status = napi_get_value_string_utf8(env, value, buf, 64, &copied);
    if (status == napi_string_expected) return throw_type(env, "code must be a string"), NULL;
    if (status != napi_ok) return throw_napi(env, status), NULL;
    const char *code = buf;
    if (copied == 63) { /* maybe cut short: read it whole (libmfa judges its length) */
        size_t len = 0;
        if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok) return throw_napi(env, 0), NULL;
        if (len > 63) {
            if (!arg_string(env, value, "code", false, heap)) return NULL;
            return *heap;
        }
    }
    if (strlen(code) != copied) return throw_status(env, MFA_ERR_INVALID_ARGUMENT, "code contains a NUL character"), NULL;
    return code;
}

/* totpNew(secret, algorithm, digits, period, t0) -> handle */
static napi_value js_totp_new(napi_env env, napi_callback_info info) {
    napi_value argv[5];
    if (!get_args(env, info, 5, argv) || !REQUIRE(env, mfa_totp_params_init)) return NULL;
    otp_key *k = otp_key_new(env, argv[0]);
    if (!k) return NULL;
    int32_t status = L.mfa_totp_params_init(&k->params, MFA_TOTP_PARAMS_VERSION);
    if (status != MFA_OK || !arg_int32(env, argv[1], "algorithm", &k->params.algorithm) ||
        !arg_int32(env, argv[2], "digits", &k->params.digits) || !arg_int64(env, argv[3], "period", &k->params.period) ||
        !arg_int64(env, argv[4], "t0", &k->params.t0)) {
        otp_key_finalize(env, k, NULL);
        return status != MFA_OK ? throw_status(env, status, NULL) : NULL;
    }
    /* libmfa checks the parameters: generate once, at T0, to reject bad ones now. */
    char out[MFA_CODE_BUFFER_SIZE];
    status = L.mfa_totp_generate(out, sizeof out, k->key, k->len, &k->params, k->params.t0);
    explicit_bzero(out, sizeof out);
    if (status != MFA_OK) {
        otp_key_finalize(env, k, NULL);
        return throw_status(env, status, "digits, period or algorithm out of range");
    }
    return otp_key_external(env, k);
}

/* totpGenerate(handle, unixTime) -> code */
static napi_value js_totp_generate(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    int64_t when;
    char out[MFA_CODE_BUFFER_SIZE];
    if (!get_args(env, info, 2, argv)) return NULL;
    otp_key *k = otp_key_from(env, argv[0]);
    if (!k || !arg_int64(env, argv[1], "time", &when)) return NULL;
    int32_t status = L.mfa_totp_generate(out, sizeof out, k->key, k->len, &k->params, when);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    napi_value code = js_string(env, out);
    explicit_bzero(out, sizeof out);
    return code;
}

/* totpVerify(handle, code, unixTime, window) -> boolean: the hot path, kept short. */
static napi_value js_totp_verify(napi_env env, napi_callback_info info) {
    napi_value argv[4], result;
    size_t argc = 4;
    char buf[64], *heap;
    int64_t when;
    int32_t window;
    void *data;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4) {
        return throw_type(env, "totpVerify(handle, code, time, window)");
    }
    if (napi_get_value_external(env, argv[0], &data) != napi_ok || !data) return throw_type(env, "not a libmfa OTP handle");
    if (napi_get_value_int64(env, argv[2], &when) != napi_ok) return throw_type(env, "time must be a number");
    if (napi_get_value_int32(env, argv[3], &window) != napi_ok) return throw_type(env, "window must be a number");
    const char *code = code_arg(env, argv[1], buf, &heap);
    if (!code) return NULL;
    const otp_key *k = data;
    int32_t status = L.mfa_totp_verify(NULL, k->key, k->len, &k->params, when, window, code);
    explicit_bzero(buf, sizeof buf);
    wipe_free(heap);
    if (status == MFA_OK || status == MFA_ERR_INVALID_VERIFICATION_CODE) {
        napi_get_boolean(env, status == MFA_OK, &result);
        return result;
    }
    return throw_status(env, status, NULL);
}

/* totpMatch(handle, code, unixTime, window) -> step | null */
static napi_value js_totp_match(napi_env env, napi_callback_info info) {
    napi_value argv[4];
    char buf[64], *heap;
    int64_t when, step = 0;
    int32_t window;
    if (!get_args(env, info, 4, argv)) return NULL;
    otp_key *k = otp_key_from(env, argv[0]);
    if (!k || !arg_int64(env, argv[2], "time", &when) || !arg_int32(env, argv[3], "window", &window)) return NULL;
    const char *code = code_arg(env, argv[1], buf, &heap);
    if (!code) return NULL;
    int32_t status = L.mfa_totp_verify(&step, k->key, k->len, &k->params, when, window, code);
    explicit_bzero(buf, sizeof buf);
    wipe_free(heap);
    if (status == MFA_OK) return js_int64(env, step);
    if (status == MFA_ERR_INVALID_VERIFICATION_CODE) return js_null(env);
    return throw_status(env, status, NULL);
}

/* hotpNew(secret, digits, algorithm) -> handle */
static napi_value js_hotp_new(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    char out[MFA_CODE_BUFFER_SIZE];
    if (!get_args(env, info, 3, argv)) return NULL;
    otp_key *k = otp_key_new(env, argv[0]);
    if (!k) return NULL;
    if (!arg_int32(env, argv[1], "digits", &k->digits) || !arg_int32(env, argv[2], "algorithm", &k->algorithm)) {
        otp_key_finalize(env, k, NULL);
        return NULL;
    }
    int32_t status = L.mfa_hotp_generate(out, sizeof out, k->key, k->len, 0, k->digits, k->algorithm);
    explicit_bzero(out, sizeof out);
    if (status != MFA_OK) {
        otp_key_finalize(env, k, NULL);
        return throw_status(env, status, "digits or algorithm out of range");
    }
    return otp_key_external(env, k);
}

/* hotpGenerate(handle, counter) -> code */
static napi_value js_hotp_generate(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    uint64_t counter;
    char out[MFA_CODE_BUFFER_SIZE];
    if (!get_args(env, info, 2, argv)) return NULL;
    otp_key *k = otp_key_from(env, argv[0]);
    if (!k || !arg_uint64(env, argv[1], "counter", &counter)) return NULL;
    int32_t status = L.mfa_hotp_generate(out, sizeof out, k->key, k->len, counter, k->digits, k->algorithm);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    napi_value code = js_string(env, out);
    explicit_bzero(out, sizeof out);
    return code;
}

/* hotpMatch(handle, code, counter, lookAhead) -> counter | null */
static napi_value js_hotp_match(napi_env env, napi_callback_info info) {
    napi_value argv[4], value;
    uint64_t counter, matched = 0;
    int32_t look_ahead;
    char buf[64], *heap;
    if (!get_args(env, info, 4, argv)) return NULL;
    otp_key *k = otp_key_from(env, argv[0]);
    if (!k || !arg_uint64(env, argv[2], "counter", &counter) || !arg_int32(env, argv[3], "lookAhead", &look_ahead))
        return NULL;
    const char *code = code_arg(env, argv[1], buf, &heap);
    if (!code) return NULL;
    int32_t status = L.mfa_hotp_verify(&matched, k->key, k->len, counter, look_ahead, k->digits, k->algorithm, code);
    explicit_bzero(buf, sizeof buf);
    wipe_free(heap);
    if (status == MFA_ERR_INVALID_VERIFICATION_CODE) return js_null(env);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    if (matched > 9007199254740991ULL) {
        if (napi_create_bigint_uint64(env, matched, &value) != napi_ok) return throw_napi(env, 0);
        return value;
    }
    return js_int64(env, (int64_t)matched);
}

/* randomSecret(length) -> Buffer */
static napi_value js_random_secret(napi_env env, napi_callback_info info) {
    napi_value argv[1], buffer;
    int32_t len;
    void *data;
    if (!get_args(env, info, 1, argv) || !arg_int32(env, argv[0], "length", &len)) return NULL;
    if (len < MFA_SECRET_MIN_BYTES || len > MFA_SECRET_MAX_BYTES) {
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, "length must be 16 to 128 bytes");
    }
    if (napi_create_buffer(env, (size_t)len, &data, &buffer) != napi_ok) return throw_napi(env, 0);
    int32_t status = L.mfa_random_secret(data, (size_t)len);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    return buffer;
}

/* ------------------------------------------------------------------ */
/* Codecs                                                               */
/* ------------------------------------------------------------------ */

/* base32Encode(bytes, noPadding) -> string */
static napi_value js_base32_encode(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    const uint8_t *data;
    size_t len;
    bool no_padding;
    char *out = NULL;
    if (!get_args(env, info, 2, argv) || !arg_bytes(env, argv[0], "data", &data, &len) ||
        !arg_bool(env, argv[1], "noPadding", &no_padding)) {
        return NULL;
    }
    int32_t status = L.mfa_base32_encode(&out, data, len, no_padding ? MFA_BASE32_NO_PADDING : 0);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    napi_value text = js_string(env, out);
    explicit_bzero(out, strlen(out));
    L.mfa_free(out);
    return text;
}

/* base32Decode(text) -> Buffer */
static napi_value js_base32_decode(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    char *text;
    uint8_t *out = NULL;
    size_t len = 0;
    if (!get_args(env, info, 1, argv) || !arg_string(env, argv[0], "text", false, &text)) return NULL;
    int32_t status = L.mfa_base32_decode(&out, &len, text);
    wipe_free(text);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    napi_value buffer = js_buffer(env, out, len);
    explicit_bzero(out, len);
    L.mfa_free(out);
    return buffer;
}

/* keyUriBuild({type, issuer, account, secret, algorithm, digits, period, counter}) -> string */
static napi_value js_key_uri_build(napi_env env, napi_callback_info info) {
    napi_value argv[1], v;
    mfa_key_uri uri;
    char *issuer = NULL, *account = NULL, *out = NULL, *err = NULL;
    const uint8_t *secret;
    napi_value result = NULL;
    if (!get_args(env, info, 1, argv) || !REQUIRE(env, mfa_key_uri_init)) return NULL;
    if (L.mfa_key_uri_init(&uri, MFA_KEY_URI_VERSION) != MFA_OK) return throw_status(env, MFA_ERR_INTERNAL, NULL);
    if ((v = prop(env, argv[0], "type")) && arg_int32(env, v, "type", &uri.type) &&
        (v = prop(env, argv[0], "issuer")) && arg_string(env, v, "issuer", true, &issuer) &&
        (v = prop(env, argv[0], "account")) && arg_string(env, v, "account", false, &account) &&
        (v = prop(env, argv[0], "secret")) && arg_bytes(env, v, "secret", &secret, &uri.secret_len) &&
        (v = prop(env, argv[0], "algorithm")) && arg_int32(env, v, "algorithm", &uri.algorithm) &&
        (v = prop(env, argv[0], "digits")) && arg_int32(env, v, "digits", &uri.digits) &&
        (v = prop(env, argv[0], "period")) && arg_int64(env, v, "period", &uri.period) &&
        (v = prop(env, argv[0], "counter")) && arg_uint64(env, v, "counter", &uri.counter)) {
        uri.issuer = issuer;
        uri.account = account;
        uri.secret = secret;
        int32_t status = L.mfa_key_uri_build(&out, &uri, &err);
        if (status == MFA_OK) result = js_string(env, out);
        else throw_status(env, status, err);
    }
    wipe_free(issuer);
    wipe_free(account);
    if (out) explicit_bzero(out, strlen(out));
    L.mfa_free(out);
    L.mfa_free(err);
    return result;
}

/* keyUriParse(text) -> {type, issuer, account, secret, algorithm, digits, period, counter} */
static napi_value js_key_uri_parse(napi_env env, napi_callback_info info) {
    napi_value argv[1], o = NULL;
    char *text, *err = NULL;
    mfa_key_uri *uri = NULL;
    if (!get_args(env, info, 1, argv) || !arg_string(env, argv[0], "uri", false, &text)) return NULL;
    int32_t status = L.mfa_key_uri_parse(&uri, text, &err);
    wipe_free(text);
    if (status != MFA_OK) {
        throw_status(env, status, err);
        L.mfa_free(err);
        return NULL;
    }
    napi_value counter;
    if (napi_create_bigint_uint64(env, uri->counter, &counter) != napi_ok) counter = NULL;
    if (uri->counter <= 9007199254740991ULL) counter = js_int64(env, (int64_t)uri->counter);
    o = js_object(env);
    if (!set(env, o, "type", js_int64(env, uri->type)) || !set(env, o, "issuer", js_string(env, uri->issuer)) ||
        !set(env, o, "account", js_string(env, uri->account)) ||
        !set(env, o, "secret", js_buffer(env, uri->secret, uri->secret_len)) ||
        !set(env, o, "algorithm", js_int64(env, uri->algorithm)) || !set(env, o, "digits", js_int64(env, uri->digits)) ||
        !set(env, o, "period", js_int64(env, uri->period)) || !set(env, o, "counter", counter)) {
        o = throw_napi(env, 0);
    }
    L.mfa_key_uri_free(uri);
    return o;
}

/* qrEncode(text, format) -> Buffer */
static napi_value js_qr_encode(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    char *text;
    int32_t format;
    uint8_t *out = NULL;
    size_t len = 0;
    if (!get_args(env, info, 2, argv) || !REQUIRE(env, mfa_qr_encode) ||
        !arg_int32(env, argv[1], "format", &format) || !arg_string(env, argv[0], "text", false, &text)) {
        return NULL;
    }
    int32_t status = L.mfa_qr_encode(&out, &len, text, format);
    wipe_free(text);
    if (status != MFA_OK) return throw_status(env, status, NULL);
    /* MFA_QR_TEXT is NUL-terminated; the length counts the NUL or not: leave it out either way. */
    if (format != MFA_QR_PNG && len && out[len - 1] == '\0') len--;
    napi_value buffer = js_buffer(env, out, len);
    explicit_bzero(out, len);
    L.mfa_free(out);
    return buffer;
}

/* totpSecretUri({sharedSecretKey, algorithm, digits, period, deadline, sessionInfo}, account, issuer|null) */
static napi_value js_totp_secret_uri(napi_env env, napi_callback_info info) {
    napi_value argv[3], v, result = NULL;
    mfa_totp_secret secret = {0};
    char *key = NULL, *session = NULL, *account = NULL, *issuer = NULL, *out = NULL, *err = NULL;
    if (!get_args(env, info, 3, argv) || !REQUIRE(env, mfa_totp_secret_uri)) return NULL;
    if ((v = prop(env, argv[0], "sharedSecretKey")) && arg_string(env, v, "sharedSecretKey", false, &key) &&
        (v = prop(env, argv[0], "sessionInfo")) && arg_string(env, v, "sessionInfo", false, &session) &&
        (v = prop(env, argv[0], "algorithm")) && arg_int32(env, v, "algorithm", &secret.algorithm) &&
        (v = prop(env, argv[0], "digits")) && arg_int32(env, v, "digits", &secret.digits) &&
        (v = prop(env, argv[0], "period")) && arg_int64(env, v, "period", &secret.period) &&
        (v = prop(env, argv[0], "deadline")) && arg_int64(env, v, "deadline", &secret.deadline) &&
        arg_string(env, argv[1], "accountName", false, &account) && arg_string(env, argv[2], "issuer", true, &issuer)) {
        secret.shared_secret_key = key;
        secret.session_info = session;
        int32_t status = L.mfa_totp_secret_uri(&out, &secret, account, issuer, &err);
        if (status == MFA_OK) result = js_string(env, out);
        else throw_status(env, status, err);
    }
    wipe_free(key);
    wipe_free(session);
    wipe_free(account);
    wipe_free(issuer);
    if (out) explicit_bzero(out, strlen(out));
    L.mfa_free(out);
    L.mfa_free(err);
    return result;
}

/* ------------------------------------------------------------------ */
/* WebAuthn, against the host's own challenge                           */
/* ------------------------------------------------------------------ */

typedef struct webauthn_args {
    char *credential, *challenge, *rp_id, *origin;
    bool uv;
} webauthn_args;

static bool webauthn_read(napi_env env, napi_value *argv, webauthn_args *a) {
    memset(a, 0, sizeof *a);
    return arg_string(env, argv[0], "credential", false, &a->credential) &&
           arg_string(env, argv[1], "challenge", false, &a->challenge) &&
           arg_string(env, argv[2], "rpId", false, &a->rp_id) && arg_string(env, argv[3], "origin", false, &a->origin) &&
           arg_bool(env, argv[4], "requireUserVerification", &a->uv);
}

static void webauthn_free(webauthn_args *a) {
    free(a->credential);
    free(a->challenge);
    free(a->rp_id);
    free(a->origin);
}

/* webauthnVerifyRegistration(credentialJson, challenge, rpId, origin, requireUserVerification) -> credential */
static napi_value js_webauthn_verify_registration(napi_env env, napi_callback_info info) {
    napi_value argv[5], o = NULL;
    webauthn_args a;
    mfa_webauthn_credential *c = NULL;
    char *err = NULL;
    if (!get_args(env, info, 5, argv) || !REQUIRE(env, mfa_webauthn_verify_registration)) return NULL;
    if (webauthn_read(env, argv, &a)) {
        int32_t status = L.mfa_webauthn_verify_registration(&c, a.credential, a.challenge, a.rp_id, a.origin, a.uv, &err);
        if (status != MFA_OK) {
            throw_status(env, status, err);
        } else {
            napi_value certs;
            o = js_object(env);
            if (!o || napi_create_array_with_length(env, c->certificate_count, &certs) != napi_ok) o = NULL;
            for (size_t i = 0; o && i < c->certificate_count; i++) {
                napi_value cert = js_buffer(env, c->certificates[i], c->certificate_lengths[i]);
                if (!cert || napi_set_element(env, certs, (uint32_t)i, cert) != napi_ok) o = NULL;
            }
            if (!o || !set(env, o, "credentialId", js_buffer(env, c->credential_id, c->credential_id_len)) ||
                !set(env, o, "publicKey", js_buffer(env, c->public_key, c->public_key_len)) ||
                !set(env, o, "algorithm", js_int64(env, c->algorithm)) ||
                !set(env, o, "signCount", js_int64(env, c->sign_count)) ||
                !set(env, o, "flags", js_int64(env, c->flags)) || !set(env, o, "aaguid", js_buffer(env, c->aaguid, 16)) ||
                !set(env, o, "format", js_string(env, c->format)) ||
                !set(env, o, "attestationKind", js_string(env, c->attestation_kind)) ||
                !set(env, o, "certificates", certs)) {
                o = throw_napi(env, 0);
            }
        }
    }
    webauthn_free(&a);
    L.mfa_free(c);
    L.mfa_free(err);
    return o;
}

/* webauthnVerifyAssertion(credentialJson, challenge, rpId, origin, requireUserVerification, publicKey) */
static napi_value js_webauthn_verify_assertion(napi_env env, napi_callback_info info) {
    napi_value argv[6], o = NULL;
    webauthn_args a;
    const uint8_t *key;
    size_t key_len;
    uint32_t count = 0, flags = 0;
    char *err = NULL;
    if (!get_args(env, info, 6, argv) || !REQUIRE(env, mfa_webauthn_verify_assertion)) return NULL;
    if (webauthn_read(env, argv, &a) && arg_bytes(env, argv[5], "publicKey", &key, &key_len)) {
        int32_t status = L.mfa_webauthn_verify_assertion(&count, &flags, a.credential, a.challenge, a.rp_id, a.origin,
                                                         a.uv, key, key_len, &err);
        if (status != MFA_OK) {
            throw_status(env, status, err);
        } else {
            o = js_object(env);
            if (!set(env, o, "signCount", js_int64(env, count)) || !set(env, o, "flags", js_int64(env, flags))) {
                o = throw_napi(env, 0);
            }
        }
    }
    webauthn_free(&a);
    L.mfa_free(err);
    return o;
}

/* ------------------------------------------------------------------ */
/* Versions, statuses, constants                                        */
/* ------------------------------------------------------------------ */

static napi_value js_version(napi_env env, napi_callback_info info) {
    (void)info;
    return js_int64(env, L.mfa_version());
}

static napi_value js_version_string(napi_env env, napi_callback_info info) {
    (void)info;
    return js_string(env, L.mfa_version_string ? L.mfa_version_string() : "");
}

static napi_value js_library_path(napi_env env, napi_callback_info info) {
    (void)info;
    return js_string(env, mfa_node_lib_path());
}

static napi_value js_missing(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value array;
    const char *const *missing = mfa_node_lib_missing();
    uint32_t i = 0;
    if (napi_create_array(env, &array) != napi_ok) return throw_napi(env, 0);
    for (; missing[i]; i++) {
        if (napi_set_element(env, array, i, js_string(env, missing[i])) != napi_ok) return throw_napi(env, 0);
    }
    return array;
}

/* statuses() -> [[code, name, message]] for every status the loaded library names. */
static napi_value js_statuses(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value array;
    uint32_t n = 0;
    if (napi_create_array(env, &array) != napi_ok) return throw_napi(env, 0);
    for (int32_t code = 0; code >= -1000; code--) {
        const char *name = L.mfa_status_name(code);
        if (strcmp(name, "UNKNOWN") == 0) continue;
        napi_value row;
        if (napi_create_array_with_length(env, 3, &row) != napi_ok ||
            napi_set_element(env, row, 0, js_int64(env, code)) != napi_ok ||
            napi_set_element(env, row, 1, js_string(env, name)) != napi_ok ||
            napi_set_element(env, row, 2, js_string(env, L.mfa_errstr(code))) != napi_ok ||
            napi_set_element(env, array, n++, row) != napi_ok) {
            return throw_napi(env, 0);
        }
    }
    return array;
}

static napi_value js_status_name(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    int32_t code;
    if (!get_args(env, info, 1, argv) || !arg_int32(env, argv[0], "status", &code)) return NULL;
    return js_string(env, L.mfa_status_name(code));
}

static napi_value js_errstr(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    int32_t code;
    if (!get_args(env, info, 1, argv) || !arg_int32(env, argv[0], "status", &code)) return NULL;
    return js_string(env, L.mfa_errstr(code));
}

/* The header's constants this addon was built with. */
static bool export_constants(napi_env env, napi_value exports) {
    static const struct {
        const char *name;
        int64_t value;
    } constants[] = {
#define C(name) {#name, MFA_##name}
        C(VERSION_MAJOR), C(VERSION_MINOR), C(VERSION_PATCH), C(VERSION_NUMBER),
        C(ALG_SHA1), C(ALG_SHA256), C(ALG_SHA512), C(OTP_TOTP), C(OTP_HOTP),
        C(DIGITS_MIN), C(DIGITS_MAX), C(DIGITS_DEFAULT), C(PERIOD_DEFAULT), C(PERIOD_MAX), C(WINDOW_MAX),
        C(CODE_BUFFER_SIZE), C(KEY_MAX_BYTES), C(SECRET_DEFAULT_BYTES), C(SECRET_MIN_BYTES), C(SECRET_MAX_BYTES),
        C(STRING_MAX_BYTES), C(BASE32_NO_PADDING), C(TOTP_PARAMS_VERSION), C(KEY_URI_VERSION),
        C(AUDIT_ENROLL), C(AUDIT_UNENROLL), C(AUDIT_SIGN_IN_SUCCESS), C(AUDIT_SIGN_IN_FAILURE), C(AUDIT_BACKOFF),
        C(AUDIT_CONFIG_CHANGE), C(AUDIT_SMS_SENT), C(AUDIT_INTEGRITY_FAILURE), C(AUDIT_TOKENS_REVOKED),
        C(AUDIT_FACTOR_RENAMED), C(AUDIT_USER_RESET), C(AUDIT_USER_DELETED), C(AUDIT_KEYS_ROTATED),
        C(AUDIT_DEVICE_REMEMBERED), C(AUDIT_DEVICE_REFUSED), C(AUDIT_DEVICE_REVOKED), C(AUDIT_EMAIL_SENT),
        C(AUDIT_TOKEN_IMPORTED), C(AUDIT_TOKEN_ASSIGNED), C(AUDIT_TOKEN_RESYNCED), C(AUDIT_TOKEN_REMOVED),
        C(AUDIT_PASSKEY_SIGN_IN_SUCCESS), C(AUDIT_PASSKEY_SIGN_IN_FAILURE),
        C(APP_ACTION_ENROLLMENT), C(APP_ACTION_SIGN_IN), C(MASTER_KEY_BYTES), C(OPTIONS_VERSION), C(USER_VERSION),
        C(FACTOR_TOTP), C(FACTOR_PHONE), C(FACTOR_RECOVERY_CODES), C(FACTOR_WEBAUTHN), C(FACTOR_EMAIL), C(FACTOR_HOTP),
        C(FACTOR_YUBICO_OTP), C(ASSERTION_VERSION),
        C(WEBAUTHN_FLAG_UP), C(WEBAUTHN_FLAG_UV), C(WEBAUTHN_FLAG_BE), C(WEBAUTHN_FLAG_BS),
        C(QR_PNG), C(QR_SVG), C(QR_TEXT), C(ACTOR_MAX_BYTES), C(ADMIN_PAGE_MAX), C(ADMIN_SHOW_PHONE_NUMBERS),
        C(IMPORT_OTPAUTH), C(IMPORT_USERS_FILE), C(IMPORT_CSV), C(IMPORT_IMPORTED), C(IMPORT_ALREADY_IMPORTED),
        C(IMPORT_UNSUPPORTED), C(IMPORT_FAILED), C(IMPORT_NOTE), C(IMPORT_MAX_BYTES), C(IMPORT_BATCH_DEFAULT),
        C(IMPORT_BATCH_MAX), C(IMPORT_OPTIONS_VERSION), C(ROTATION_BATCH_MAX),
#undef C
    };
    napi_value object;
    if (napi_create_object(env, &object) != napi_ok) return false;
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        if (!set(env, object, constants[i].name, js_int64(env, constants[i].value))) return false;
    }
    return set(env, exports, "constants", object);
}

bool export_stateless(napi_env env, napi_value exports) {
    static const struct {
        const char *name;
        napi_callback fn;
    } table[] = {
        {"totpNew", js_totp_new},
        {"totpGenerate", js_totp_generate},
        {"totpVerify", js_totp_verify},
        {"totpMatch", js_totp_match},
        {"hotpNew", js_hotp_new},
        {"hotpGenerate", js_hotp_generate},
        {"hotpMatch", js_hotp_match},
        {"randomSecret", js_random_secret},
        {"base32Encode", js_base32_encode},
        {"base32Decode", js_base32_decode},
        {"keyUriBuild", js_key_uri_build},
        {"keyUriParse", js_key_uri_parse},
        {"qrEncode", js_qr_encode},
        {"totpSecretUri", js_totp_secret_uri},
        {"webauthnVerifyRegistration", js_webauthn_verify_registration},
        {"webauthnVerifyAssertion", js_webauthn_verify_assertion},
        {"version", js_version},
        {"versionString", js_version_string},
        {"libraryPath", js_library_path},
        {"missingFunctions", js_missing},
        {"statuses", js_statuses},
        {"statusName", js_status_name},
        {"errstr", js_errstr},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!export_fn(env, exports, table[i].name, table[i].fn)) return false;
    }
    return export_constants(env, exports);
}
