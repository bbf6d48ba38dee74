/*
 * module.c: the addon's entry point. Loading it loads libmfa (lib.c) and makes the
 * environment's state (env.c); lib/native.js then hands over the JS helpers (setHelpers).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "addon.h"

bool env_init(napi_env env);

/* What the stateless part needs: a library without one of them is refused at load. */
#define REQUIRED(X)                                                                                          \
    X(mfa_version_string) X(mfa_random_secret) X(mfa_totp_params_init) X(mfa_totp_generate)                   \
    X(mfa_totp_verify) X(mfa_hotp_generate) X(mfa_hotp_verify) X(mfa_base32_encode) X(mfa_base32_decode)      \
    X(mfa_key_uri_build) X(mfa_key_uri_parse) X(mfa_key_uri_free)

static long live[LIVE_KINDS];

void live_count(live_kind kind, int delta) {
    __atomic_add_fetch(&live[kind], delta, __ATOMIC_RELAXED);
}

/* liveObjects() -> {jobs, asks, events, contexts, otpKeys}: the addon's objects not yet freed,
 * in this process (every environment). */
static napi_value js_live_objects(napi_env env, napi_callback_info info) {
    (void)info;
    static const char *const names[LIVE_KINDS] = {"jobs", "asks", "events", "contexts", "otpKeys"};
    napi_value o = js_object(env);
    for (int k = 0; k < LIVE_KINDS; k++) {
        if (!set(env, o, names[k], js_int64(env, __atomic_load_n(&live[k], __ATOMIC_RELAXED)))) return throw_napi(env, 0);
    }
    return o;
}

/* setHelpers(makeError, warn): the JS functions that make libmfa's errors and report warnings. */
static napi_value js_set_helpers(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    env_state *st = env_get(env);
    if (!get_args(env, info, 2, argv) || !st) return NULL;
    napi_ref make_error = NULL, warn = NULL;
    if (!arg_function(env, argv[0], "makeError", &make_error) || !arg_function(env, argv[1], "warn", &warn)) {
        return NULL;
    }
    if (st->make_error) napi_delete_reference(env, st->make_error);
    if (st->warn) napi_delete_reference(env, st->warn);
    st->make_error = make_error;
    st->warn = warn;
    return js_undefined(env);
}

static napi_value init(napi_env env, napi_value exports) {
    char error[600];
    if (mfa_node_lib_load(NULL, error, sizeof error) != 0) {
        napi_throw_error(env, "ERR_LIBMFA_NOT_LOADED", error);
        return NULL;
    }
#define CHECK_REQUIRED(name)                                                                              \
    if (!L.name) {                                                                                        \
        snprintf(error, sizeof error, "%s is too old for this binding: it has no %s", mfa_node_lib_path(), \
                 #name);                                                                                  \
        napi_throw_error(env, "ERR_LIBMFA_NOT_LOADED", error);                                            \
        return NULL;                                                                                      \
    }
    REQUIRED(CHECK_REQUIRED)
#undef CHECK_REQUIRED
    if (!env_init(env)) return NULL;
    if (!export_stateless(env, exports) || !export_context(env, exports) || !export_engine(env, exports) ||
        !export_admin(env, exports) || !export_fn(env, exports, "setHelpers", js_set_helpers) ||
        !export_fn(env, exports, "liveObjects", js_live_objects)) {
        return throw_napi(env, 0);
    }
    return exports;
}

NAPI_MODULE_INIT() {
    return init(env, exports);
}
