/* pool.c: the environment's worker threads, the jobs they run and how a job's promise settles. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static void job_free(job *j) {
    if (!j) return;
    live_count(LIVE_JOB, -1);
    if (j->release) j->release(j);
    for (int i = 0; i < j->nstrings; i++) wipe_free(j->s[i]);
    if (j->bytes) {
        explicit_bzero(j->bytes, j->bytes_len);
        free(j->bytes);
    }
    if (j->keys) {
        explicit_bzero(j->keys, j->keys_len);
        free(j->keys);
    }
    free(j->previous);
    free(j->options);
    if (j->err && L.mfa_free) L.mfa_free(j->err);
    free(j);
}

/* The promise settles on the JS thread: resolve with done()'s value, or reject. */
static void job_deliver(napi_env env, env_state *st, dispatch_msg *m) {
    job *j = (job *)m;
    napi_handle_scope scope;
    napi_value value = NULL;
    if (napi_open_handle_scope(env, &scope) != napi_ok) scope = NULL;
    if (j->status != MFA_OK && !j->own_status) {
        value = make_error(env, j->status, j->err);
        if (value) napi_reject_deferred(env, j->deferred, value);
    } else {
        value = j->done ? j->done(env, j) : js_undefined(env);
        if (value) {
            napi_resolve_deferred(env, j->deferred, value);
        } else {
            napi_value error = NULL;
            bool pending = false;
            napi_is_exception_pending(env, &pending);
            if (pending) napi_get_and_clear_last_exception(env, &error);
            if (!error) error = make_error(env, MFA_ERR_INTERNAL, "the result could not be converted");
            if (error) napi_reject_deferred(env, j->deferred, error);
        }
    }
    /* Per-call callbacks go with the call. */
    for (int k = 0; k < CB_KINDS; k++) {
        if (j->callbacks[k]) napi_delete_reference(env, j->callbacks[k]);
    }
    node_ctx *ctx = j->ctx;
    job_free(j);
    if (ctx) {
        ctx->busy--;
        ctx_job_finished(env, ctx);
    }
    if (st->inflight && --st->inflight == 0 && st->dispatch) napi_unref_threadsafe_function(env, st->dispatch);
    if (scope) napi_close_handle_scope(env, scope);
}

/* At teardown: the promise can no longer settle. */
static void job_drop(dispatch_msg *m) {
    job_free((job *)m);
}

job *job_new(napi_env env, node_ctx *ctx, job_run_fn run, job_done_fn done, job_free_fn release,
             napi_value *promise) {
    env_state *st = env_get(env);
    if (!st) return throw_napi(env, napi_generic_failure), NULL;
    if (ctx && (ctx->closing || ctx->closed || !ctx->handle)) {
        throw_status(env, MFA_ERR_INVALID_ARGUMENT, "the context is closed");
        return NULL;
    }
    job *j = calloc(1, sizeof *j);
    if (!j) return throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL), NULL;
    live_count(LIVE_JOB, 1);
    if (napi_create_promise(env, &j->deferred, promise) != napi_ok) {
        job_free(j);
        throw_napi(env, napi_generic_failure);
        return NULL;
    }
    j->msg.type = MSG_DONE;
    j->msg.deliver = job_deliver;
    j->msg.drop = job_drop;
    j->st = st;
    j->ctx = ctx;
    j->run = run;
    j->done = done;
    j->release = release;
    return j;
}

void job_discard(napi_env env, job *j) {
    if (!j) return;
    /* The promise was never handed out: settle it so that nothing waits on it. */
    napi_value undefined;
    if (napi_get_undefined(env, &undefined) == napi_ok) napi_resolve_deferred(env, j->deferred, undefined);
    for (int k = 0; k < CB_KINDS; k++) {
        if (j->callbacks[k]) napi_delete_reference(env, j->callbacks[k]);
    }
    job_free(j);
}

napi_value job_submit(napi_env env, job *j, napi_value promise) {
    env_state *st = j->st;
    if (!pool_ensure(st, 1)) {
        job_discard(env, j);
        return throw_status(env, MFA_ERR_INTERNAL, "libmfa: no worker thread could be started");
    }
    if (j->ctx) j->ctx->busy++;
    if (st->inflight++ == 0) napi_ref_threadsafe_function(env, st->dispatch);
    pthread_mutex_lock(&st->lock);
    j->next = NULL;
    if (st->tail) st->tail->next = j;
    else st->head = j;
    st->tail = j;
    pthread_cond_signal(&st->work);
    pthread_mutex_unlock(&st->lock);
    return promise;
}

static void *worker_main(void *data) {
    env_state *st = data;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        while (!st->head && !st->shutdown) pthread_cond_wait(&st->work, &st->lock);
        if (st->shutdown) {
            pthread_mutex_unlock(&st->lock);
            return NULL;
        }
        job *j = st->head;
        st->head = j->next;
        if (!st->head) st->tail = NULL;
        pthread_mutex_unlock(&st->lock);
        j->run(j);
        env_post(st, &j->msg);
    }
}

bool pool_ensure(env_state *st, int count) {
    if (count < 1) count = 1;
    if (count > MFA_NODE_THREADS_MAX) count = MFA_NODE_THREADS_MAX;
    pthread_mutex_lock(&st->lock);
    while (st->threads < count && !st->shutdown) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        /* libmfa's calls (the Swift runtime, SQLite, libpq) want more than a small stack. */
        pthread_attr_setstacksize(&attr, 4u << 20);
        int failed = pthread_create(&st->thread[st->threads], &attr, worker_main, st);
        pthread_attr_destroy(&attr);
        if (failed) break;
        st->threads++;
    }
    bool ok = st->threads > 0;
    pthread_mutex_unlock(&st->lock);
    return ok;
}

void pool_stop(env_state *st) {
    pthread_mutex_lock(&st->lock);
    st->shutdown = true;
    job *queued = st->head;
    st->head = st->tail = NULL;
    pthread_cond_broadcast(&st->work);
    pthread_cond_broadcast(&st->answers);
    int threads = st->threads;
    pthread_mutex_unlock(&st->lock);
    for (int i = 0; i < threads; i++) pthread_join(st->thread[i], NULL);
    while (queued) {
        job *next = queued->next;
        job_free(queued);
        queued = next;
    }
}
