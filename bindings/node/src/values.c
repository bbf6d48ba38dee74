/* values.c: JS arguments to C and C results to JS, and the errors thrown on the way. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

napi_value make_error(napi_env env, int32_t status, const char *message) {
    const char *name = L.mfa_status_name ? L.mfa_status_name(status) : "INTERNAL";
    const char *text = message && *message ? message : (L.mfa_errstr ? L.mfa_errstr(status) : "libmfa failed");
    env_state *st = env_get(env);
    napi_value fn, global, argv[3], error = NULL;
    if (st && st->make_error && napi_get_reference_value(env, st->make_error, &fn) == napi_ok && fn &&
        napi_get_global(env, &global) == napi_ok && napi_create_int32(env, status, &argv[0]) == napi_ok &&
        napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &argv[1]) == napi_ok &&
        napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &argv[2]) == napi_ok &&
        napi_call_function(env, global, fn, 3, argv, &error) == napi_ok) {
        return error;
    }
    napi_value code, msg;
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) napi_get_and_clear_last_exception(env, &code);
    if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code) != napi_ok ||
        napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg) != napi_ok ||
        napi_create_error(env, code, msg, &error) != napi_ok) {
        return NULL;
    }
    return error;
}

napi_value throw_status(napi_env env, int32_t status, const char *message) {
    napi_value error = make_error(env, status, message);
    if (error) napi_throw(env, error);
    return NULL;
}

napi_value throw_type(napi_env env, const char *message) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
    return NULL;
}

napi_value throw_napi(napi_env env, napi_status status) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) {
        const napi_extended_error_info *info = NULL;
        napi_get_last_error_info(env, &info);
        char text[200];
        snprintf(text, sizeof text, "Node-API call failed (%d%s%s)", (int)status,
                 info && info->error_message ? ": " : "", info && info->error_message ? info->error_message : "");
        napi_throw_error(env, NULL, text);
    }
    return NULL;
}

bool require_fn(napi_env env, const void *fn, const char *name) {
    if (fn) return true;
    char text[160];
    snprintf(text, sizeof text, "the loaded libmfa has no %s (it is older than this binding)", name);
    throw_status(env, MFA_ERR_INTERNAL, text);
    return false;
}

/* ------------------------------------------------------------------ */
/* Arguments                                                            */
/* ------------------------------------------------------------------ */

bool get_args(napi_env env, napi_callback_info info, size_t max, napi_value *argv) {
    size_t argc = max;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return throw_napi(env, 0), false;
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    for (size_t i = argc; i < max; i++) argv[i] = undefined;
    return true;
}

static bool is_nullish(napi_env env, napi_value value) {
    napi_valuetype type;
    return napi_typeof(env, value, &type) == napi_ok && (type == napi_null || type == napi_undefined);
}

void wipe_free(char *text) {
    if (!text) return;
    explicit_bzero(text, strlen(text));
    free(text);
}

bool arg_string(napi_env env, napi_value value, const char *what, bool optional, char **out) {
    napi_valuetype type;
    char message[160];
    *out = NULL;
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type == napi_null || type == napi_undefined) {
        if (optional) return true;
        snprintf(message, sizeof message, "%s must be a string", what);
        return throw_type(env, message), false;
    }
    if (type != napi_string) {
        snprintf(message, sizeof message, "%s must be a string%s", what, optional ? " or null" : "");
        return throw_type(env, message), false;
    }
    size_t len = 0;
    if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok) return throw_napi(env, 0), false;
    if (len > MFA_STRING_MAX_BYTES) {
        snprintf(message, sizeof message, "%s is longer than %d bytes", what, MFA_STRING_MAX_BYTES);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    char *copy = malloc(len + 1);
    if (!copy) return throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL), false;
    size_t copied = 0;
    if (napi_get_value_string_utf8(env, value, copy, len + 1, &copied) != napi_ok) {
        free(copy);
        return throw_napi(env, 0), false;
    }
    if (strlen(copy) != copied) {
        wipe_free(copy);
        snprintf(message, sizeof message, "%s contains a NUL character", what);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    *out = copy;
    return true;
}

bool job_string(napi_env env, job *j, napi_value value, const char *what, bool optional, const char **out) {
    char *copy = NULL;
    *out = NULL;
    if (j->nstrings >= MFA_NODE_JOB_STRINGS) return throw_status(env, MFA_ERR_INTERNAL, "too many strings"), false;
    if (!arg_string(env, value, what, optional, &copy)) return false;
    if (copy) j->s[j->nstrings++] = copy;
    *out = copy;
    return true;
}

bool arg_int64(napi_env env, napi_value value, const char *what, int64_t *out) {
    napi_valuetype type;
    char message[160];
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type == napi_bigint) {
        bool lossless = false;
        if (napi_get_value_bigint_int64(env, value, out, &lossless) != napi_ok) return throw_napi(env, 0), false;
        if (!lossless) {
            snprintf(message, sizeof message, "%s does not fit a 64-bit integer", what);
            return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
        }
        return true;
    }
    if (type != napi_number) {
        snprintf(message, sizeof message, "%s must be a number", what);
        return throw_type(env, message), false;
    }
    double number;
    if (napi_get_value_double(env, value, &number) != napi_ok) return throw_napi(env, 0), false;
    if (!isfinite(number) || number != floor(number) || number < -9223372036854775808.0 ||
        number >= 9223372036854775808.0) {
        snprintf(message, sizeof message, "%s must be an integer in the 64-bit range", what);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    *out = (int64_t)number;
    return true;
}

bool arg_int32(napi_env env, napi_value value, const char *what, int32_t *out) {
    int64_t wide;
    char message[160];
    if (!arg_int64(env, value, what, &wide)) return false;
    if (wide < INT32_MIN || wide > INT32_MAX) {
        snprintf(message, sizeof message, "%s is out of range", what);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    *out = (int32_t)wide;
    return true;
}

bool arg_uint64(napi_env env, napi_value value, const char *what, uint64_t *out) {
    napi_valuetype type;
    char message[160];
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type == napi_bigint) {
        bool lossless = false;
        if (napi_get_value_bigint_uint64(env, value, out, &lossless) != napi_ok) return throw_napi(env, 0), false;
        if (!lossless) {
            snprintf(message, sizeof message, "%s must be 0 to 2**64 - 1", what);
            return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
        }
        return true;
    }
    int64_t wide;
    if (!arg_int64(env, value, what, &wide)) return false;
    if (wide < 0) {
        snprintf(message, sizeof message, "%s must not be negative", what);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    *out = (uint64_t)wide;
    return true;
}

bool arg_bool(napi_env env, napi_value value, const char *what, bool *out) {
    napi_valuetype type;
    char message[160];
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type != napi_boolean) {
        snprintf(message, sizeof message, "%s must be a boolean", what);
        return throw_type(env, message), false;
    }
    return napi_get_value_bool(env, value, out) == napi_ok || (throw_napi(env, 0), false);
}

bool arg_bytes(napi_env env, napi_value value, const char *what, const uint8_t **data, size_t *len) {
    bool yes = false;
    void *raw = NULL;
    char message[160];
    *data = NULL;
    *len = 0;
    if (napi_is_typedarray(env, value, &yes) == napi_ok && yes) {
        napi_typedarray_type type;
        size_t count, offset;
        napi_value buffer;
        if (napi_get_typedarray_info(env, value, &type, &count, &raw, &buffer, &offset) != napi_ok)
            return throw_napi(env, 0), false;
        size_t width = 1;
        switch (type) {
        case napi_int16_array: case napi_uint16_array: width = 2; break;
        case napi_int32_array: case napi_uint32_array: case napi_float32_array: width = 4; break;
        case napi_float64_array: case napi_bigint64_array: case napi_biguint64_array: width = 8; break;
        default: width = 1;
        }
        *data = raw;
        *len = count * width;
        return true;
    }
    if (napi_is_dataview(env, value, &yes) == napi_ok && yes) {
        size_t length, offset;
        napi_value buffer;
        if (napi_get_dataview_info(env, value, &length, &raw, &buffer, &offset) != napi_ok)
            return throw_napi(env, 0), false;
        *data = raw;
        *len = length;
        return true;
    }
    if (napi_is_arraybuffer(env, value, &yes) == napi_ok && yes) {
        if (napi_get_arraybuffer_info(env, value, &raw, len) != napi_ok) return throw_napi(env, 0), false;
        *data = raw;
        return true;
    }
    snprintf(message, sizeof message, "%s must be a Buffer, a TypedArray or an ArrayBuffer", what);
    return throw_type(env, message), false;
}

napi_value prop(napi_env env, napi_value object, const char *name) {
    napi_value value = NULL;
    if (napi_get_named_property(env, object, name, &value) != napi_ok) return NULL;
    return value;
}

static bool require_object(napi_env env, napi_value value, const char *what) {
    napi_valuetype type;
    char message[160];
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type != napi_object) {
        snprintf(message, sizeof message, "%s must be an object", what);
        return throw_type(env, message), false;
    }
    return true;
}

bool arg_user(napi_env env, job *j, napi_value value) {
    napi_value v;
    if (!require_object(env, value, "user")) return false;
    if (!REQUIRE(env, mfa_user_init)) return false;
    int32_t status = L.mfa_user_init(&j->user, MFA_USER_VERSION);
    if (status != MFA_OK) return throw_status(env, status, NULL), false;
    const char *provider = NULL;
    if (!(v = prop(env, value, "uid")) || !job_string(env, j, v, "user.uid", false, &j->user.uid)) return false;
    if (!(v = prop(env, value, "tenant")) || !job_string(env, j, v, "user.tenant", true, &j->user.tenant)) return false;
    if (!(v = prop(env, value, "email")) || !job_string(env, j, v, "user.email", true, &j->user.email)) return false;
    if (!(v = prop(env, value, "provider")) || !job_string(env, j, v, "user.provider", true, &provider)) return false;
    if (provider) j->user.provider = provider;
    bool verified = false;
    if (!(v = prop(env, value, "emailVerified"))) return throw_napi(env, 0), false;
    if (!is_nullish(env, v) && !arg_bool(env, v, "user.emailVerified", &verified)) return false;
    j->user.email_verified = verified ? 1 : 0;
    if (!(v = prop(env, value, "authTime"))) return throw_napi(env, 0), false;
    if (is_nullish(env, v)) return throw_type(env, "user.authTime is required: when the user passed the first factor"), false;
    return arg_int64(env, v, "user.authTime", &j->user.auth_time);
}

bool arg_assertion(napi_env env, job *j, napi_value value) {
    napi_value v;
    if (!require_object(env, value, "assertion")) return false;
    if (!REQUIRE(env, mfa_assertion_init)) return false;
    int32_t status = L.mfa_assertion_init(&j->assertion, MFA_ASSERTION_VERSION);
    if (status != MFA_OK) return throw_status(env, status, NULL), false;
    if (!(v = prop(env, value, "kind")) || !arg_int32(env, v, "assertion.kind", &j->assertion.kind)) return false;
    static const struct {
        const char *name;
        size_t offset;
    } fields[] = {
        {"enrollmentId", offsetof(mfa_assertion, enrollment_id)},
        {"sessionInfo", offsetof(mfa_assertion, session_info)},
        {"verificationId", offsetof(mfa_assertion, verification_id)},
        {"code", offsetof(mfa_assertion, code)},
        {"credential", offsetof(mfa_assertion, credential)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "assertion.%s", fields[i].name);
        const char **slot = (const char **)((char *)&j->assertion + fields[i].offset);
        if (!(v = prop(env, value, fields[i].name)) || !job_string(env, j, v, what, true, slot)) return false;
    }
    return true;
}

bool arg_function(napi_env env, napi_value value, const char *what, napi_ref *out) {
    napi_valuetype type;
    char message[160];
    *out = NULL;
    if (napi_typeof(env, value, &type) != napi_ok) return throw_napi(env, 0), false;
    if (type == napi_null || type == napi_undefined) return true;
    if (type != napi_function) {
        snprintf(message, sizeof message, "%s must be a function", what);
        return throw_type(env, message), false;
    }
    return napi_create_reference(env, value, 1, out) == napi_ok || (throw_napi(env, 0), false);
}

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

napi_value js_string(napi_env env, const char *text) {
    napi_value value = NULL;
    if (!text) return js_null(env);
    if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_int64(napi_env env, int64_t number) {
    napi_value value = NULL;
    if (number > 9007199254740991LL || number < -9007199254740991LL) {
        if (napi_create_bigint_int64(env, number, &value) != napi_ok) return throw_napi(env, 0);
        return value;
    }
    if (napi_create_int64(env, number, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_bool(napi_env env, bool flag) {
    napi_value value = NULL;
    if (napi_get_boolean(env, flag, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_null(napi_env env) {
    napi_value value = NULL;
    if (napi_get_null(env, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_undefined(napi_env env) {
    napi_value value = NULL;
    if (napi_get_undefined(env, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_buffer(napi_env env, const void *data, size_t len) {
    napi_value value = NULL;
    void *copy = NULL;
    if (napi_create_buffer_copy(env, len, len ? data : "", &copy, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

napi_value js_object(napi_env env) {
    napi_value value = NULL;
    if (napi_create_object(env, &value) != napi_ok) return throw_napi(env, 0);
    return value;
}

bool set(napi_env env, napi_value object, const char *name, napi_value value) {
    return object && value && napi_set_named_property(env, object, name, value) == napi_ok;
}

napi_value js_factor_info(napi_env env, const mfa_factor_info *info) {
    napi_value o = js_object(env);
    if (!o || !set(env, o, "uid", js_string(env, info->uid)) ||
        !set(env, o, "factorId", js_string(env, info->factor_id)) ||
        !set(env, o, "displayName", js_string(env, info->display_name)) ||
        !set(env, o, "enrollmentTime", js_int64(env, info->enrollment_time)) ||
        !set(env, o, "phoneNumber", js_string(env, info->phone_number)) ||
        !set(env, o, "kind", js_int64(env, info->kind)) || !set(env, o, "hint", js_string(env, info->hint)) ||
        !set(env, o, "remainingCodes",
             info->remaining_codes >= 0 ? js_int64(env, info->remaining_codes) : js_null(env))) {
        return throw_napi(env, 0);
    }
    return o;
}

napi_value js_factor_list(napi_env env, const mfa_factor_list *list) {
    napi_value array;
    size_t count = list ? list->count : 0;
    if (napi_create_array_with_length(env, count, &array) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < count; i++) {
        napi_value item = js_factor_info(env, &list->items[i]);
        if (!item || napi_set_element(env, array, (uint32_t)i, item) != napi_ok) return throw_napi(env, 0);
    }
    return array;
}

bool export_fn(napi_env env, napi_value exports, const char *name, napi_callback fn) {
    napi_value value;
    return napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &value) == napi_ok &&
           napi_set_named_property(env, exports, name, value) == napi_ok;
}
