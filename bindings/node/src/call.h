/*
 * call.h: the shape every asynchronous call shares (engine.c, admin.c).
 *
 *     static napi_value js_x(napi_env env, napi_callback_info info) {
 *         CALL_BEGIN(3, mfa_x, x_run, done_string, free_string);   // argv[0] is the context handle
 *         if (!job_string(env, j, argv[1], "tenant", true, &j->s0)) CALL_FAIL;
 *         CALL_END;
 *     }
 */
#ifndef MFA_NODE_CALL_H
#define MFA_NODE_CALL_H

#include "addon.h"

#define CALL_BEGIN(argc, fn, run, done, release)                                                 \
    napi_value argv[(argc)], promise;                                                            \
    if (!get_args(env, info, (argc), argv)) return NULL;                                         \
    if (!REQUIRE(env, fn)) return NULL;                                                          \
    node_ctx *ctx = ctx_from(env, argv[0]);                                                      \
    if (!ctx) return NULL;                                                                       \
    job *j = job_new(env, ctx, (run), (done), (release), &promise);                              \
    if (!j) return NULL

#define CALL_FAIL                                                                                \
    do {                                                                                         \
        job_discard(env, j);                                                                     \
        return NULL;                                                                             \
    } while (0)

#define CALL_END return job_submit(env, j, promise)

/* Results most calls share (engine.c). */
napi_value done_void(napi_env env, job *j);
napi_value done_string(napi_env env, job *j);
void free_string(job *j);
napi_value done_factor(napi_env env, job *j);
void free_factor(job *j);
napi_value done_factor_list(napi_env env, job *j);
void free_factor_list(job *j);
napi_value js_resolver(napi_env env, const mfa_resolver *r);

#endif /* MFA_NODE_CALL_H */
