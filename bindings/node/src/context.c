/*
 * context.c: opening and closing a context (mfa_open, mfa_close).
 *
 * open(options) resolves with an External that JS keeps in its Context. A
 * context stays alive while JS holds it or calls on it are in flight.
 * close() waits for the calls in flight; calls made after it reject with
 * INVALID_ARGUMENT. A context JS dropped without closing is closed when the
 * collector finalizes its handle (or at the environment's teardown).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static void ctx_unlink(node_ctx *ctx) {
    env_state *st = ctx->st;
    for (node_ctx **p = &st->contexts; *p; p = &(*p)->next) {
        if (*p == ctx) {
            *p = ctx->next;
            return;
        }
    }
}

/* Deletes the JS callback references (JS thread). */
static void ctx_drop_callbacks(napi_env env, node_ctx *ctx) {
    for (int k = 0; k < CB_KINDS; k++) {
        if (ctx->callbacks[k]) napi_delete_reference(env, ctx->callbacks[k]);
        ctx->callbacks[k] = NULL;
    }
}

static void ctx_free_if_unused(napi_env env, node_ctx *ctx) {
    if (ctx->js_alive || ctx->busy || !ctx->closed) return;
    ctx_drop_callbacks(env, ctx);
    free(ctx->close_waiters);
    free(ctx);
    live_count(LIVE_CONTEXT, -1);
}

/* ------------------------------------------------------------------ */
/* Closing                                                              */
/* ------------------------------------------------------------------ */

static void close_run(job *j) {
    L.mfa_close(j->ctx->handle);
    j->status = MFA_OK;
}

static napi_value close_done(napi_env env, job *j) {
    node_ctx *ctx = j->ctx;
    ctx->handle = NULL;
    ctx->closed = true;
    ctx_unlink(ctx);
    ctx_drop_callbacks(env, ctx);
    napi_value undefined = js_undefined(env);
    for (size_t i = 0; i < ctx->close_waiter_count; i++) napi_resolve_deferred(env, ctx->close_waiters[i], undefined);
    ctx->close_waiter_count = 0;
    return undefined;
}

/* Queues the mfa_close() of a closing context whose calls are all done: a job whose promise
 * nobody holds (close_done settles the waiters). It counts as the context's call while it runs. */
static void ctx_start_close(napi_env env, node_ctx *ctx) {
    napi_value promise;
    job *j = job_new(env, NULL, close_run, close_done, NULL, &promise);
    if (!j) {
        napi_value ignored;
        napi_get_and_clear_last_exception(env, &ignored);
        return;
    }
    j->ctx = ctx;
    job_submit(env, j, promise);
}

void ctx_job_finished(napi_env env, node_ctx *ctx) {
    if (ctx->closing && !ctx->closed && ctx->handle && ctx->busy == 0) ctx_start_close(env, ctx);
    else ctx_free_if_unused(env, ctx);
}

static napi_value ctx_close(napi_env env, napi_callback_info info) {
    napi_value argv[1], promise;
    napi_deferred deferred;
    if (!get_args(env, info, 1, argv)) return NULL;
    node_ctx *ctx = ctx_from(env, argv[0]);
    if (!ctx) return NULL;
    if (napi_create_promise(env, &deferred, &promise) != napi_ok) return throw_napi(env, 0);
    if (ctx->closed || !ctx->handle) {
        napi_resolve_deferred(env, deferred, js_undefined(env));
        return promise;
    }
    napi_deferred *grown = realloc(ctx->close_waiters, (ctx->close_waiter_count + 1) * sizeof *grown);
    if (!grown) {
        napi_reject_deferred(env, deferred, make_error(env, MFA_ERR_OUT_OF_MEMORY, NULL));
        return promise;
    }
    ctx->close_waiters = grown;
    ctx->close_waiters[ctx->close_waiter_count++] = deferred;
    if (!ctx->closing) {
        ctx->closing = true;
        if (ctx->busy == 0) ctx_start_close(env, ctx);
    }
    return promise;
}

/* The collector dropped the handle: close the context if nothing else holds it. */
static void ctx_finalize(napi_env env, void *data, void *hint) {
    (void)hint;
    node_ctx *ctx = data;
    ctx->js_alive = false;
    if (!ctx->closed && ctx->handle && ctx->busy == 0) {
        /* Nothing runs on it and nothing can call it any more: close it here. */
        L.mfa_close(ctx->handle);
        ctx->handle = NULL;
        ctx->closed = true;
        ctx_unlink(ctx);
    } else if (!ctx->closed) {
        ctx->closing = true; /* closed when its last call is done */
    }
    ctx_free_if_unused(env, ctx);
}

void ctx_close_all(env_state *st) {
    for (node_ctx *ctx = st->contexts; ctx; ctx = ctx->next) {
        if (ctx->handle) L.mfa_close(ctx->handle);
        ctx->handle = NULL;
        ctx->closed = true;
    }
    st->contexts = NULL;
}

node_ctx *ctx_from(napi_env env, napi_value handle) {
    napi_valuetype type;
    void *data = NULL;
    if (napi_typeof(env, handle, &type) != napi_ok || type != napi_external ||
        napi_get_value_external(env, handle, &data) != napi_ok || !data) {
        throw_type(env, "not a libmfa context handle");
        return NULL;
    }
    return data;
}

/* ------------------------------------------------------------------ */
/* Opening                                                              */
/* ------------------------------------------------------------------ */

static void open_run(job *j) {
    mfa_ctx *handle = NULL;
    j->status = L.mfa_open(&handle, j->options, &j->err);
    j->ctx->handle = j->status == MFA_OK ? handle : NULL;
    if (j->status != MFA_OK && handle) L.mfa_close(handle);
}

static napi_value open_done(napi_env env, job *j) {
    node_ctx *ctx = j->ctx;
    napi_value external;
    if (napi_create_external(env, ctx, ctx_finalize, NULL, &external) != napi_ok) {
        L.mfa_close(ctx->handle);
        ctx->handle = NULL;
        ctx->closed = true;
        return throw_napi(env, 0);
    }
    ctx->js_alive = true;
    ctx->next = j->st->contexts;
    j->st->contexts = ctx;
    return external;
}

/* A failed open leaves a context nobody holds: free it with the job. */
static void open_release(job *j) {
    node_ctx *ctx = j->ctx;
    if (ctx && !ctx->js_alive && !ctx->handle) {
        ctx->closed = true;
    }
}

/* Reads one master key {id, key} into `out`, copying its bytes into `keys` at `*used`. */
static bool master_key(napi_env env, job *j, napi_value value, const char *what, mfa_master_key *out, size_t *used) {
    napi_value id = prop(env, value, "id"), key = prop(env, value, "key");
    const uint8_t *bytes;
    size_t len;
    char message[160];
    if (!id || !key) return throw_napi(env, 0), false;
    if (!job_string(env, j, id, what, false, &out->id)) return false;
    if (!arg_bytes(env, key, what, &bytes, &len)) return false;
    if (len != MFA_MASTER_KEY_BYTES) {
        snprintf(message, sizeof message, "%s must be %d bytes, got %zu", what, MFA_MASTER_KEY_BYTES, len);
        return throw_status(env, MFA_ERR_INVALID_ARGUMENT, message), false;
    }
    memcpy(j->keys + *used, bytes, len);
    out->key = j->keys + *used;
    *used += len;
    return true;
}

/*
 * open({store, masterKey: {id, key}, previousKeys: [{id, key}], smsOutbox, clock, random, audit,
 *       smsSender, appVerifier, webauthnTrust, callbackTimeoutMs, threads}) -> Promise<External>
 */
static napi_value ctx_open(napi_env env, napi_callback_info info) {
    napi_value argv[1], promise, v;
    env_state *st = env_get(env);
    if (!get_args(env, info, 1, argv)) return NULL;
    if (!REQUIRE(env, mfa_open) || !REQUIRE(env, mfa_options_init) || !REQUIRE(env, mfa_close)) return NULL;
    napi_valuetype type;
    if (napi_typeof(env, argv[0], &type) != napi_ok || type != napi_object) return throw_type(env, "options must be an object");
    node_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL);
    live_count(LIVE_CONTEXT, 1);
    ctx->st = st;
    ctx->timeout_ms = MFA_NODE_CALLBACK_TIMEOUT_DEFAULT;
    job *j = job_new(env, NULL, open_run, open_done, open_release, &promise);
    if (!j) {
        free(ctx);
        return NULL;
    }
    bool ok = (j->options = calloc(1, sizeof *j->options)) != NULL;
    if (ok) {
        int32_t status = L.mfa_options_init(j->options, MFA_OPTIONS_VERSION);
        if (status != MFA_OK) ok = (throw_status(env, status, NULL), false);
    }
    if (!ok) goto fail;
    mfa_options *o = j->options;
    /* The keys: the current one and up to 64 previous ones, copied (wiped with the job). */
    napi_value previous = prop(env, argv[0], "previousKeys");
    uint32_t count = 0;
    bool is_array = false;
    if (!previous) goto fail;
    napi_typeof(env, previous, &type);
    if (type != napi_undefined && type != napi_null) {
        if (napi_is_array(env, previous, &is_array) != napi_ok || !is_array) {
            throw_type(env, "previousKeys must be an array of {id, key}");
            goto fail;
        }
        napi_get_array_length(env, previous, &count);
        if (count > 64) {
            throw_status(env, MFA_ERR_INVALID_ARGUMENT, "at most 64 previous keys");
            goto fail;
        }
    }
    j->keys_len = (size_t)(count + 1) * MFA_MASTER_KEY_BYTES;
    j->keys = calloc(1, j->keys_len);
    j->previous = calloc(count ? count : 1, sizeof *j->previous);
    if (!j->keys || !j->previous) {
        throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL);
        goto fail;
    }
    size_t used = 0;
    if (!(v = prop(env, argv[0], "masterKey"))) goto fail;
    napi_typeof(env, v, &type);
    if (type != napi_object) {
        throw_type(env, "masterKey must be {id, key}");
        goto fail;
    }
    if (!master_key(env, j, v, "masterKey", &o->master_key, &used)) goto fail;
    for (uint32_t i = 0; i < count; i++) {
        napi_value item;
        if (napi_get_element(env, previous, i, &item) != napi_ok) goto fail;
        napi_typeof(env, item, &type);
        if (type != napi_object) {
            throw_type(env, "previousKeys must be an array of {id, key}");
            goto fail;
        }
        if (!master_key(env, j, item, "previous key", &j->previous[i], &used)) goto fail;
    }
    o->previous_keys = count ? j->previous : NULL;
    o->previous_key_count = count;
    if (!(v = prop(env, argv[0], "store")) || !job_string(env, j, v, "store", false, &o->store)) goto fail;
    if (!(v = prop(env, argv[0], "smsOutbox")) || !job_string(env, j, v, "smsOutbox", true, &o->sms_outbox)) goto fail;
    /* The callbacks: JS functions of the (reply, ...args) form, from lib/callbacks.js. */
    static const char *const names[] = {"clock", "random", "audit", "smsSender", "appVerifier", "webauthnTrust"};
    for (int k = CB_CLOCK; k <= CB_WEBAUTHN_TRUST; k++) {
        if (!(v = prop(env, argv[0], names[k])) || !arg_function(env, v, names[k], &ctx->callbacks[k])) goto fail;
    }
    if (ctx->callbacks[CB_CLOCK]) o->clock = cb_clock, o->clock_context = ctx;
    if (ctx->callbacks[CB_RANDOM]) o->random = cb_random, o->random_context = ctx;
    if (ctx->callbacks[CB_AUDIT]) o->audit = cb_audit, o->audit_context = ctx;
    if (ctx->callbacks[CB_SMS_SENDER]) o->sms_sender = cb_sms_sender, o->sms_sender_context = ctx;
    if (ctx->callbacks[CB_APP_VERIFIER]) o->app_verifier = cb_app_verifier, o->app_verifier_context = ctx;
    if (ctx->callbacks[CB_WEBAUTHN_TRUST]) o->webauthn_trust = cb_webauthn_trust, o->webauthn_trust_context = ctx;
    int32_t number = 0;
    if (!(v = prop(env, argv[0], "callbackTimeoutMs"))) goto fail;
    napi_typeof(env, v, &type);
    if (type != napi_undefined && type != napi_null) {
        if (!arg_int32(env, v, "callbackTimeoutMs", &number)) goto fail;
        if (number < 1 || number > 600000) {
            throw_status(env, MFA_ERR_INVALID_ARGUMENT, "callbackTimeoutMs must be 1 to 600000");
            goto fail;
        }
        ctx->timeout_ms = (uint32_t)number;
    }
    int threads = MFA_NODE_THREADS_DEFAULT;
    if (!(v = prop(env, argv[0], "threads"))) goto fail;
    napi_typeof(env, v, &type);
    if (type != napi_undefined && type != napi_null) {
        if (!arg_int32(env, v, "threads", &number)) goto fail;
        if (number < 1 || number > MFA_NODE_THREADS_MAX) {
            throw_status(env, MFA_ERR_INVALID_ARGUMENT, "threads must be 1 to 64");
            goto fail;
        }
        threads = number;
    }
    if (!pool_ensure(st, threads)) {
        throw_status(env, MFA_ERR_INTERNAL, "libmfa: no worker thread could be started");
        goto fail;
    }
    /* The open job runs with the context (job_new refuses a context that is not open yet). */
    j->ctx = ctx;
    return job_submit(env, j, promise);
fail:
    ctx_drop_callbacks(env, ctx);
    free(ctx);
    live_count(LIVE_CONTEXT, -1);
    job_discard(env, j);
    return NULL;
}

bool export_context(napi_env env, napi_value exports) {
    return export_fn(env, exports, "open", ctx_open) && export_fn(env, exports, "close", ctx_close);
}
