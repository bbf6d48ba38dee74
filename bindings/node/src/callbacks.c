/*
 * callbacks.c: libmfa's host callbacks, answered by JS functions.
 *
 * libmfa calls a callback on the thread that runs the call: one of the
 * addon's workers. A callback that returns something (clock, random, the
 * SMS sender, the app verifier, the WebAuthn trust decision, progress) is an
 * "ask": the worker copies its arguments into a request, posts it to the JS
 * thread through the dispatch, and waits for the answer, at most the
 * context's callbackTimeoutMs. The JS function is called as fn(reply, ...args)
 * and answers by calling reply(value), at once or later (after an await);
 * the JS layer (lib/callbacks.js) turns exceptions and bad values into the
 * safe answer. If no answer comes in time (the JS thread is blocked, or the
 * function never replies), the worker goes on with the safe answer: the
 * system clock, a failed random source, a failed send, a rejected
 * credential or attestation, a stopped batch. A late answer is ignored.
 *
 * A callback asked on the JS thread itself (a call made synchronously from
 * JS) is called directly: it must reply before it returns, else the safe
 * answer is used. Nothing ever waits on the thread that would answer.
 *
 * Callbacks that return nothing (audit, import reports) are "events": the
 * worker posts a copy and goes on; the JS thread calls the function in
 * order, before the promise of the call that raised them settles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addon.h"

const char *const cb_names[CB_KINDS] = {
    "clock", "random", "audit", "smsSender", "appVerifier", "webauthnTrust", "report", "progress",
};

enum { PENDING, DONE, ABANDONED };

/* One question for a JS callback. Shared by the worker and the JS thread: refs under st->lock. */
typedef struct ask_req {
    dispatch_msg msg;
    env_state *st;
    cb_kind kind;
    napi_ref fn;
    int state;
    int refs;
    /* Inputs, owned. */
    char *text[4];
    int64_t num[3];
    uint8_t aaguid[16];
    size_t cert_count;
    uint8_t **certs;
    size_t *cert_lens;
    /* Outputs. */
    int64_t value;
    uint8_t *buf;
    size_t len;
} ask_req;

static void req_free(ask_req *r) {
    live_count(LIVE_ASK, -1);
    for (size_t i = 0; i < sizeof r->text / sizeof r->text[0]; i++) wipe_free(r->text[i]);
    for (size_t i = 0; i < r->cert_count; i++) free(r->certs ? r->certs[i] : NULL);
    free(r->certs);
    free(r->cert_lens);
    if (r->buf) {
        explicit_bzero(r->buf, r->len);
        free(r->buf);
    }
    free(r);
}

static void req_release(ask_req *r) {
    pthread_mutex_lock(&r->st->lock);
    int left = --r->refs;
    pthread_mutex_unlock(&r->st->lock);
    if (left == 0) req_free(r);
}

/* Stores the answer, if the question is still open; wakes the worker. */
static void req_answer(ask_req *r, int64_t value) {
    pthread_mutex_lock(&r->st->lock);
    if (r->state == PENDING) {
        r->value = value;
        r->state = DONE;
        pthread_cond_broadcast(&r->st->answers);
    }
    pthread_mutex_unlock(&r->st->lock);
}

/* reply(value): the JS function's answer. */
static napi_value reply_call(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1];
    void *data = NULL;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok || !data) return NULL;
    ask_req *r = data;
    napi_valuetype type = napi_undefined;
    if (argc < 1 && napi_get_undefined(env, &argv[0]) != napi_ok) return NULL;
    napi_typeof(env, argv[0], &type);
    int64_t value = 1; /* the safe answer: failure, reject, stop */
    switch (r->kind) {
    case CB_CLOCK: {
        double seconds;
        bool lossless;
        int64_t wide;
        if (type == napi_number && napi_get_value_double(env, argv[0], &seconds) == napi_ok &&
            seconds >= -9.2e18 && seconds <= 9.2e18) {
            value = (int64_t)seconds;
        } else if (type == napi_bigint && napi_get_value_bigint_int64(env, argv[0], &wide, &lossless) == napi_ok &&
                   lossless) {
            value = wide;
        } else {
            value = (int64_t)time(NULL);
        }
        break;
    }
    case CB_RANDOM: {
        bool typed = false;
        void *bytes = NULL;
        size_t len = 0;
        if (napi_is_buffer(env, argv[0], &typed) == napi_ok && typed &&
            napi_get_buffer_info(env, argv[0], &bytes, &len) == napi_ok && len == r->len) {
            pthread_mutex_lock(&r->st->lock);
            if (r->state == PENDING && r->buf) memcpy(r->buf, bytes, len);
            pthread_mutex_unlock(&r->st->lock);
            value = 0;
        }
        break;
    }
    default: {
        bool yes = false;
        if (type == napi_boolean && napi_get_value_bool(env, argv[0], &yes) == napi_ok) value = yes ? 0 : 1;
    }
    }
    req_answer(r, value);
    return NULL;
}

/* The reply function was collected: the JS side's share of the request goes. */
static void reply_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    req_release(data);
}

static bool push_string(napi_env env, napi_value *argv, size_t *argc, const char *text) {
    return (argv[(*argc)++] = js_string(env, text ? text : "")) != NULL;
}

static napi_value attestation_value(napi_env env, ask_req *r) {
    napi_value o = js_object(env), certs;
    if (!o || napi_create_array_with_length(env, r->cert_count, &certs) != napi_ok) return NULL;
    for (size_t i = 0; i < r->cert_count; i++) {
        napi_value cert = js_buffer(env, r->certs[i], r->cert_lens[i]);
        if (!cert || napi_set_element(env, certs, (uint32_t)i, cert) != napi_ok) return NULL;
    }
    if (!set(env, o, "format", js_string(env, r->text[0])) || !set(env, o, "kind", js_string(env, r->text[1])) ||
        !set(env, o, "aaguid", js_buffer(env, r->aaguid, 16)) || !set(env, o, "certificates", certs) ||
        !set(env, o, "chainTrusted", js_bool(env, r->num[0] != 0)) ||
        !set(env, o, "tenant", js_string(env, r->text[2])) || !set(env, o, "uid", js_string(env, r->text[3]))) {
        return NULL;
    }
    return o;
}

/* Calls fn(reply, ...args) on the JS thread. On any failure the question is answered with the safe value. */
static void ask_deliver(napi_env env, env_state *st, dispatch_msg *m) {
    ask_req *r = (ask_req *)m;
    (void)st;
    pthread_mutex_lock(&r->st->lock);
    bool live = r->state == PENDING && !r->st->shutdown;
    pthread_mutex_unlock(&r->st->lock);
    if (!live) {
        req_release(r);
        return;
    }
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) {
        req_answer(r, r->kind == CB_CLOCK ? (int64_t)time(NULL) : 1);
        req_release(r);
        return;
    }
    napi_value fn, reply, global, argv[4];
    size_t argc = 0;
    bool ok = napi_get_reference_value(env, r->fn, &fn) == napi_ok && fn &&
              napi_get_global(env, &global) == napi_ok &&
              napi_create_function(env, "reply", NAPI_AUTO_LENGTH, reply_call, r, &reply) == napi_ok;
    bool owned = ok && napi_add_finalizer(env, reply, r, reply_finalize, NULL, NULL) == napi_ok;
    if (ok && !owned) ok = false;
    if (ok) {
        argv[argc++] = reply;
        switch (r->kind) {
        case CB_CLOCK: break;
        case CB_RANDOM: ok = (argv[argc++] = js_int64(env, (int64_t)r->len)) != NULL; break;
        case CB_SMS_SENDER: ok = push_string(env, argv, &argc, r->text[0]) && push_string(env, argv, &argc, r->text[1]); break;
        case CB_APP_VERIFIER:
            ok = push_string(env, argv, &argc, r->text[0]) && (argv[argc++] = js_int64(env, r->num[0])) != NULL;
            break;
        case CB_WEBAUTHN_TRUST: ok = (argv[argc++] = attestation_value(env, r)) != NULL; break;
        case CB_PROGRESS:
            ok = (argv[argc++] = js_int64(env, r->num[0])) != NULL && (argv[argc++] = js_int64(env, r->num[1])) != NULL;
            break;
        default: ok = false;
        }
    }
    if (ok && napi_call_function(env, global, fn, argc, argv, NULL) != napi_ok) ok = false;
    if (!ok) {
        napi_value ignored;
        bool pending = false;
        napi_is_exception_pending(env, &pending);
        if (pending) napi_get_and_clear_last_exception(env, &ignored);
        req_answer(r, r->kind == CB_CLOCK ? (int64_t)time(NULL) : 1);
    }
    if (!owned) req_release(r);
    napi_close_handle_scope(env, scope);
}

static void ask_drop(dispatch_msg *m) {
    ask_req *r = (ask_req *)m;
    req_answer(r, r->kind == CB_CLOCK ? (int64_t)time(NULL) : 1);
    req_release(r);
}

static ask_req *req_new(env_state *st, cb_kind kind, napi_ref fn) {
    ask_req *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    live_count(LIVE_ASK, 1);
    r->msg.type = MSG_ASK;
    r->msg.deliver = ask_deliver;
    r->msg.drop = ask_drop;
    r->st = st;
    r->kind = kind;
    r->fn = fn;
    r->state = PENDING;
    r->refs = 2; /* the asking thread, and the JS side (delivery, then the reply function) */
    return r;
}

/*
 * Asks the JS function the question in `r` and waits for the answer (at most
 * timeout_ms). Returns true with r->value (and r->buf) set if it was
 * answered; false otherwise. Consumes the asking thread's reference:
 * copy what is needed before calling req_release().
 */
static bool ask(ask_req *r, uint32_t timeout_ms) {
    env_state *st = r->st;
    if (env_on_js_thread(st)) {
        ask_deliver(st->env, st, &r->msg);
    } else if (!env_post(st, &r->msg)) {
        pthread_mutex_lock(&st->lock);
        if (r->state == PENDING) r->state = ABANDONED;
        pthread_mutex_unlock(&st->lock);
        return false;
    } else {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&st->lock);
        while (r->state == PENDING && !st->shutdown) {
            if (pthread_cond_timedwait(&st->answers, &st->lock, &deadline) == ETIMEDOUT) break;
        }
        pthread_mutex_unlock(&st->lock);
    }
    pthread_mutex_lock(&st->lock);
    bool answered = r->state == DONE;
    if (!answered) r->state = ABANDONED;
    pthread_mutex_unlock(&st->lock);
    if (!answered) {
        char text[200];
        snprintf(text, sizeof text,
                 env_on_js_thread(st)
                     ? "libmfa: the %s callback did not answer before returning (a callback called on the JS "
                       "thread must answer at once); the safe answer was used"
                     : "libmfa: the %s callback did not answer within %u ms; the safe answer was used",
                 cb_names[r->kind], (unsigned)timeout_ms);
        if (!st->shutdown) env_warn(st, text);
    }
    return answered;
}

static char *copy_text(const char *text) {
    return strdup(text ? text : "");
}

/* ------------------------------------------------------------------ */
/* The context's callbacks                                              */
/* ------------------------------------------------------------------ */

int64_t cb_clock(void *context) {
    node_ctx *ctx = context;
    ask_req *r = req_new(ctx->st, CB_CLOCK, ctx->callbacks[CB_CLOCK]);
    if (!r) return (int64_t)time(NULL);
    int64_t now = ask(r, ctx->timeout_ms) ? r->value : (int64_t)time(NULL);
    req_release(r);
    return now;
}

int cb_random(void *context, uint8_t *out, size_t len) {
    node_ctx *ctx = context;
    if (len > (1u << 20)) return 1;
    ask_req *r = req_new(ctx->st, CB_RANDOM, ctx->callbacks[CB_RANDOM]);
    if (!r) return 1;
    r->len = len;
    r->buf = calloc(1, len ? len : 1);
    int result = 1;
    if (r->buf && ask(r, ctx->timeout_ms) && r->value == 0) {
        if (len) memcpy(out, r->buf, len);
        result = 0;
    }
    req_release(r);
    return result;
}

int cb_sms_sender(void *context, const char *phone_number, const char *message_text) {
    node_ctx *ctx = context;
    ask_req *r = req_new(ctx->st, CB_SMS_SENDER, ctx->callbacks[CB_SMS_SENDER]);
    if (!r) return 1;
    r->text[0] = copy_text(phone_number);
    r->text[1] = copy_text(message_text);
    int result = r->text[0] && r->text[1] && ask(r, ctx->timeout_ms) ? (int)r->value : 1;
    req_release(r);
    return result;
}

int cb_app_verifier(void *context, const char *app_credential, int32_t action) {
    node_ctx *ctx = context;
    ask_req *r = req_new(ctx->st, CB_APP_VERIFIER, ctx->callbacks[CB_APP_VERIFIER]);
    if (!r) return 1;
    r->text[0] = copy_text(app_credential);
    r->num[0] = action;
    int result = r->text[0] && ask(r, ctx->timeout_ms) ? (int)r->value : 1;
    req_release(r);
    return result;
}

int cb_webauthn_trust(void *context, const mfa_webauthn_attestation *a) {
    node_ctx *ctx = context;
    ask_req *r = req_new(ctx->st, CB_WEBAUTHN_TRUST, ctx->callbacks[CB_WEBAUTHN_TRUST]);
    if (!r || !a) {
        if (r) req_release(r), req_release(r);
        return 1;
    }
    bool ok = (r->text[0] = copy_text(a->format)) && (r->text[1] = copy_text(a->kind)) &&
              (r->text[2] = copy_text(a->tenant)) && (r->text[3] = copy_text(a->uid));
    if (a->aaguid) memcpy(r->aaguid, a->aaguid, 16);
    r->num[0] = a->chain_trusted;
    size_t count = a->certificate_count > 64 ? 64 : a->certificate_count;
    if (ok && count) {
        r->certs = calloc(count, sizeof *r->certs);
        r->cert_lens = calloc(count, sizeof *r->cert_lens);
        ok = r->certs && r->cert_lens;
        for (size_t i = 0; ok && i < count; i++) {
            size_t len = a->certificate_lengths ? a->certificate_lengths[i] : 0;
            r->certs[i] = malloc(len ? len : 1);
            ok = r->certs[i] != NULL;
            if (ok && len && a->certificates && a->certificates[i]) memcpy(r->certs[i], a->certificates[i], len);
            r->cert_lens[i] = len;
            r->cert_count = i + 1;
        }
    }
    int result = ok && ask(r, ctx->timeout_ms) ? (int)r->value : 1;
    req_release(r);
    return result;
}

/* ------------------------------------------------------------------ */
/* The calls' own callbacks                                              */
/* ------------------------------------------------------------------ */

int cb_progress(void *context, int64_t done, int64_t total) {
    job *j = context;
    uint32_t timeout = j->ctx ? j->ctx->timeout_ms : MFA_NODE_CALLBACK_TIMEOUT_DEFAULT;
    if (!j->callbacks[CB_PROGRESS]) return 0;
    ask_req *r = req_new(j->st, CB_PROGRESS, j->callbacks[CB_PROGRESS]);
    if (!r) return 1;
    r->num[0] = done;
    r->num[1] = total;
    int result = ask(r, timeout) ? (int)r->value : 1;
    req_release(r);
    return result;
}

/* ------------------------------------------------------------------ */
/* Events: audit, import reports                                        */
/* ------------------------------------------------------------------ */

typedef struct event_msg {
    dispatch_msg msg;
    cb_kind kind;
    node_ctx *ctx; /* audit */
    job *call;     /* import report */
    int64_t num[3];
    char *text[7];
} event_msg;

static void event_free(event_msg *e) {
    live_count(LIVE_EVENT, -1);
    for (size_t i = 0; i < sizeof e->text / sizeof e->text[0]; i++) free(e->text[i]);
    free(e);
}

static napi_value event_value(napi_env env, event_msg *e) {
    napi_value o = js_object(env);
    if (!o) return NULL;
    if (e->kind == CB_AUDIT) {
        static const char *const names[] = {"kindName", "tenant", "uid", "factorId", "enrollmentId", "detail", "actor"};
        if (!set(env, o, "kind", js_int64(env, e->num[0])) || !set(env, o, "time", js_int64(env, e->num[1])))
            return NULL;
        for (size_t i = 0; i < 7; i++) {
            if (!set(env, o, names[i], js_string(env, e->text[i] ? e->text[i] : ""))) return NULL;
        }
        return o;
    }
    if (!set(env, o, "line", js_int64(env, e->num[0])) || !set(env, o, "uid", js_string(env, e->text[0])) ||
        !set(env, o, "outcome", js_int64(env, e->num[1])) ||
        !set(env, o, "outcomeName", js_string(env, e->text[1] ? e->text[1] : "")) ||
        !set(env, o, "reason", js_string(env, e->text[2] ? e->text[2] : "")) ||
        !set(env, o, "enrollmentId", js_string(env, e->text[3]))) {
        return NULL;
    }
    return o;
}

static void event_deliver(napi_env env, env_state *st, dispatch_msg *m) {
    event_msg *e = (event_msg *)m;
    (void)st;
    napi_ref ref = e->kind == CB_AUDIT ? e->ctx->callbacks[CB_AUDIT] : e->call->callbacks[CB_IMPORT_REPORT];
    napi_handle_scope scope;
    if (ref && napi_open_handle_scope(env, &scope) == napi_ok) {
        napi_value fn, global, arg;
        if (napi_get_reference_value(env, ref, &fn) == napi_ok && fn && napi_get_global(env, &global) == napi_ok &&
            (arg = event_value(env, e)) != NULL) {
            napi_call_function(env, global, fn, 1, &arg, NULL);
        }
        napi_value ignored;
        bool pending = false;
        napi_is_exception_pending(env, &pending);
        if (pending) napi_get_and_clear_last_exception(env, &ignored);
        napi_close_handle_scope(env, scope);
    }
    event_free(e);
}

static void event_drop(dispatch_msg *m) {
    event_free((event_msg *)m);
}

static void post_event(env_state *st, event_msg *e) {
    live_count(LIVE_EVENT, 1);
    e->msg.type = MSG_EVENT;
    e->msg.deliver = event_deliver;
    e->msg.drop = event_drop;
    if (env_on_js_thread(st)) event_deliver(st->env, st, &e->msg);
    else env_post(st, &e->msg);
}

static char *copy_optional(const char *text) {
    return text ? strdup(text) : NULL;
}

void cb_audit(void *context, const mfa_audit_event *event) {
    node_ctx *ctx = context;
    if (!event || !ctx->callbacks[CB_AUDIT]) return;
    event_msg *e = calloc(1, sizeof *e);
    if (!e) return;
    e->kind = CB_AUDIT;
    e->ctx = ctx;
    e->num[0] = event->kind;
    e->num[1] = event->time;
    e->text[0] = copy_optional(event->kind_name);
    e->text[1] = copy_optional(event->tenant);
    e->text[2] = copy_optional(event->uid);
    e->text[3] = copy_optional(event->factor_id);
    e->text[4] = copy_optional(event->enrollment_id);
    e->text[5] = copy_optional(event->detail);
    e->text[6] = copy_optional(event->actor);
    post_event(ctx->st, e);
}

void cb_import_report(void *context, const mfa_import_line *line) {
    job *j = context;
    if (!line || !j->callbacks[CB_IMPORT_REPORT]) return;
    event_msg *e = calloc(1, sizeof *e);
    if (!e) return;
    e->kind = CB_IMPORT_REPORT;
    e->call = j;
    e->num[0] = line->line;
    e->num[1] = line->outcome;
    e->text[0] = copy_optional(line->uid);
    e->text[1] = copy_optional(line->outcome_name);
    e->text[2] = copy_optional(line->reason);
    e->text[3] = copy_optional(line->enrollment_id);
    post_event(j->st, e);
}
