/* env.c: one state per environment: the dispatch to the JS thread and the teardown. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* The dispatch's call_js: delivers a message on the JS thread, or drops it at teardown. */
static void dispatch_call(napi_env env, napi_value js_callback, void *context, void *data) {
    (void)js_callback;
    env_state *st = context;
    dispatch_msg *m = data;
    if (!m) return;
    if (!env || !st) {
        m->drop(m);
        return;
    }
    m->deliver(env, st, m);
}

bool env_post(env_state *st, dispatch_msg *m) {
    if (napi_call_threadsafe_function(st->dispatch, m, napi_tsfn_nonblocking) != napi_ok) {
        m->drop(m);
        return false;
    }
    return true;
}

bool env_on_js_thread(const env_state *st) {
    return pthread_equal(pthread_self(), st->js_thread) != 0;
}

env_state *env_get(napi_env env) {
    void *data = NULL;
    if (napi_get_instance_data(env, &data) != napi_ok) return NULL;
    return data;
}

/* A warning for the JS thread's warn(). */
typedef struct warning {
    dispatch_msg msg;
    char text[320];
} warning;

static void warning_deliver(napi_env env, env_state *st, dispatch_msg *m) {
    warning *w = (warning *)m;
    napi_value fn, arg, global;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) == napi_ok) {
        if (st->warn && napi_get_reference_value(env, st->warn, &fn) == napi_ok && fn &&
            napi_create_string_utf8(env, w->text, NAPI_AUTO_LENGTH, &arg) == napi_ok &&
            napi_get_global(env, &global) == napi_ok) {
            if (napi_call_function(env, global, fn, 1, &arg, NULL) != napi_ok) {
                napi_value ignored;
                napi_get_and_clear_last_exception(env, &ignored);
            }
        }
        napi_close_handle_scope(env, scope);
    }
    free(w);
}

static void warning_drop(dispatch_msg *m) {
    free(m);
}

void env_warn(env_state *st, const char *text) {
    warning *w = calloc(1, sizeof *w);
    if (!w) return;
    w->msg.type = MSG_WARNING;
    w->msg.deliver = warning_deliver;
    w->msg.drop = warning_drop;
    snprintf(w->text, sizeof w->text, "%s", text);
    if (env_on_js_thread(st)) {
        warning_deliver(st->env, st, &w->msg);
        return;
    }
    env_post(st, &w->msg);
}

/*
 * The teardown of an environment (process exit, a Worker's end): workers
 * stop (a worker waiting for a callback gives up at once), every context
 * still open is closed, then the JS helpers are released. Registered after
 * the dispatch was made, so it runs before the dispatch's own teardown
 * (cleanup hooks run in reverse order), while workers may still post.
 */
static void env_teardown(void *data) {
    env_state *st = data;
    pool_stop(st);
    ctx_close_all(st);
    napi_release_threadsafe_function(st->dispatch, napi_tsfn_abort);
    st->dispatch = NULL;
}

static void env_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    env_state *st = data;
    pthread_mutex_destroy(&st->lock);
    pthread_cond_destroy(&st->work);
    pthread_cond_destroy(&st->answers);
    free(st);
}

/* Makes the environment's state: called once per environment by module.c. */
bool env_init(napi_env env) {
    env_state *st = calloc(1, sizeof *st);
    napi_value name;
    if (!st) return throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL), false;
    st->env = env;
    st->js_thread = pthread_self();
    pthread_mutex_init(&st->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&st->work, NULL);
    pthread_cond_init(&st->answers, &attr);
    pthread_condattr_destroy(&attr);
    if (napi_create_string_utf8(env, "libmfa", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, st, dispatch_call,
                                        &st->dispatch) != napi_ok ||
        napi_unref_threadsafe_function(env, st->dispatch) != napi_ok ||
        napi_set_instance_data(env, st, env_finalize, NULL) != napi_ok ||
        napi_add_env_cleanup_hook(env, env_teardown, st) != napi_ok) {
        throw_napi(env, napi_generic_failure);
        return false;
    }
    return true;
}
