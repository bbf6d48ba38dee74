/*
 * addon.h: what the addon's files share.
 *
 * Threading model (see docs/bindings/node.md, "Threading"):
 *  - every call that takes a context runs on one of the addon's own worker
 *    threads (pool.c), never on libuv's thread pool, so that a host callback
 *    that awaits file or DNS work (which needs libuv's pool) cannot starve it;
 *  - each environment (the main thread, each worker_threads Worker) has one
 *    thread-safe function, the dispatch (env.c), through which workers hand
 *    the JS thread their finished calls, the host callbacks they need
 *    answered and the events (audit, import reports) they report, in order;
 *  - a worker that needs a host callback answered waits for it, at most the
 *    context's callbackTimeoutMs; a callback asked for on the JS thread
 *    itself is called directly (callbacks.c), so nothing waits on a thread
 *    that is waiting.
 */
#ifndef MFA_NODE_ADDON_H
#define MFA_NODE_ADDON_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib.h"

/* Most worker threads one environment runs. */
#define MFA_NODE_THREADS_MAX 64
/* Worker threads by default. */
#define MFA_NODE_THREADS_DEFAULT 4
/* Default bound on a host callback's answer, in milliseconds. */
#define MFA_NODE_CALLBACK_TIMEOUT_DEFAULT 30000
/* Strings a job copies at most (arguments, user and assertion fields). */
#define MFA_NODE_JOB_STRINGS 16

typedef struct env_state env_state;
typedef struct node_ctx node_ctx;
typedef struct job job;

/* ------------------------------------------------------------------ */
/* Host callbacks (callbacks.c)                                         */
/* ------------------------------------------------------------------ */

/* The host callbacks a context or a call can have. */
typedef enum cb_kind {
    CB_CLOCK,
    CB_RANDOM,
    CB_AUDIT,
    CB_SMS_SENDER,
    CB_APP_VERIFIER,
    CB_WEBAUTHN_TRUST,
    CB_IMPORT_REPORT,
    CB_PROGRESS,
    CB_KINDS
} cb_kind;

/* The JS names of the callbacks, for messages. */
extern const char *const cb_names[CB_KINDS];

/* The libmfa callbacks that forward to JS (their context is a node_ctx, or a job for per-call ones). */
int64_t cb_clock(void *context);
int cb_random(void *context, uint8_t *out, size_t len);
void cb_audit(void *context, const mfa_audit_event *event);
int cb_sms_sender(void *context, const char *phone_number, const char *message);
int cb_app_verifier(void *context, const char *app_credential, int32_t action);
int cb_webauthn_trust(void *context, const mfa_webauthn_attestation *attestation);
void cb_import_report(void *context, const mfa_import_line *line);
int cb_progress(void *context, int64_t done, int64_t total);

/* ------------------------------------------------------------------ */
/* The dispatch: messages from workers to the JS thread (env.c)        */
/* ------------------------------------------------------------------ */

typedef enum msg_type { MSG_DONE, MSG_ASK, MSG_EVENT, MSG_WARNING } msg_type;

/* One message for the JS thread; `free` releases it when it was not (or could not be) delivered. */
typedef struct dispatch_msg {
    msg_type type;
    void (*deliver)(napi_env env, env_state *st, struct dispatch_msg *m); /* on the JS thread; frees m */
    void (*drop)(struct dispatch_msg *m); /* at teardown, when env is gone; frees m */
} dispatch_msg;

/* Per environment: the dispatch, the workers, the JS helpers, the open contexts. */
struct env_state {
    napi_env env;
    pthread_t js_thread;
    napi_threadsafe_function dispatch;
    size_t inflight; /* jobs submitted and not delivered (JS thread only) */
    napi_ref make_error; /* makeError(status, name, message) -> Error */
    napi_ref warn;       /* warn(message) */
    /* The workers and their queue. */
    pthread_mutex_t lock;
    pthread_cond_t work;    /* a job was queued, or shutdown */
    pthread_cond_t answers; /* a callback was answered, or shutdown */
    job *head, *tail;
    int threads;
    pthread_t thread[MFA_NODE_THREADS_MAX];
    bool shutdown;
    node_ctx *contexts; /* open contexts, for the teardown (JS thread only) */
};

/* Posts `m` to the JS thread. Returns false (and drops m) when the environment is going away. */
bool env_post(env_state *st, dispatch_msg *m);
/* Whether the calling thread is the environment's JS thread. */
bool env_on_js_thread(const env_state *st);
/* Sends a warning (no secret in it) to the JS thread's warn(); from any thread. */
void env_warn(env_state *st, const char *text);
/* The environment's state (instance data). */
env_state *env_get(napi_env env);

/* ------------------------------------------------------------------ */
/* Contexts (context.c)                                                  */
/* ------------------------------------------------------------------ */

struct node_ctx {
    env_state *st;
    mfa_ctx *handle;           /* NULL until opened, and after closing */
    napi_ref callbacks[CB_KINDS]; /* the context's JS callbacks (CB_CLOCK .. CB_WEBAUTHN_TRUST) */
    uint32_t timeout_ms;
    size_t busy;               /* jobs in flight (JS thread only) */
    bool closing, closed, js_alive;
    napi_deferred *close_waiters;
    size_t close_waiter_count;
    node_ctx *next;            /* in st->contexts */
};

/* The node_ctx of a handle (an External made by open); throws and returns NULL otherwise. */
node_ctx *ctx_from(napi_env env, napi_value handle);
/* After the last job of a closing context: closes it (JS thread). */
void ctx_job_finished(napi_env env, node_ctx *ctx);
/* Closes every open context of an environment (teardown, workers stopped). */
void ctx_close_all(env_state *st);

/* ------------------------------------------------------------------ */
/* Jobs: one call run on a worker (pool.c)                              */
/* ------------------------------------------------------------------ */

/* Runs the libmfa call on a worker: sets j->status (and j->err, outputs). */
typedef void (*job_run_fn)(job *j);
/* Builds the value the promise resolves with, on the JS thread (NULL: an exception is pending). */
typedef napi_value (*job_done_fn)(napi_env env, job *j);
/* Frees what run left in the job's outputs (any thread). */
typedef void (*job_free_fn)(job *j);

struct job {
    dispatch_msg msg; /* MSG_DONE */
    job *next;
    env_state *st;
    node_ctx *ctx; /* NULL for a call without a context */
    napi_deferred deferred;
    job_run_fn run;
    job_done_fn done;
    job_free_fn release;
    bool own_status; /* done() handles every status (sign-in) */
    int32_t status;
    char *err; /* libmfa's message (mfa_free) */
    /* Arguments: copied strings (wiped and freed), numbers, bytes. */
    char *s[MFA_NODE_JOB_STRINGS];
    int nstrings;
    const char *arg[8]; /* the call's string arguments, in the call's order (NULL: none) */
    int64_t n[4];
    uint8_t *bytes;
    size_t bytes_len;
    mfa_user user;
    mfa_assertion assertion;
    mfa_totp_params params;
    bool has_params;
    mfa_options *options; /* open */
    uint8_t *keys; size_t keys_len; /* open: the master keys, wiped */
    mfa_master_key *previous;
    /* Per-call callbacks (imports, rotation, seal checks). */
    napi_ref callbacks[CB_KINDS];
    /* Outputs. */
    void *out;
    char *out_str;
    int64_t out_n;
    bool out_b;
    mfa_import_summary summary;
    mfa_rotation_result rotation;
};

/* A new job for `ctx` (may be NULL) with its promise in *promise; NULL after throwing. */
job *job_new(napi_env env, node_ctx *ctx, job_run_fn run, job_done_fn done, job_free_fn release,
             napi_value *promise);
/* Queues the job on a worker; returns the promise (or NULL after throwing, the job freed). */
napi_value job_submit(napi_env env, job *j, napi_value promise);
/* Frees a job that was never submitted. */
void job_discard(napi_env env, job *j);
/* Starts workers up to `count` (at least one). Returns false if none could be started. */
bool pool_ensure(env_state *st, int count);
/* Stops the workers (teardown): queued jobs are dropped, running ones finish. */
void pool_stop(env_state *st);

/* ------------------------------------------------------------------ */
/* Arguments and values (values.c)                                      */
/* ------------------------------------------------------------------ */

/* Throws a libmfa error (makeError(status, name, message)); returns NULL. */
napi_value throw_status(napi_env env, int32_t status, const char *message);
/* Throws a TypeError; returns NULL. */
napi_value throw_type(napi_env env, const char *message);
/* The Error for a status and message (NULL message: libmfa's short one). */
napi_value make_error(napi_env env, int32_t status, const char *message);
/* If a napi call failed without a pending exception, throws one. Returns NULL. */
napi_value throw_napi(napi_env env, napi_status status);

/* A JS string (or null/undefined when `optional`) copied into a new C string in *out (NULL for
 * null/undefined). `what` names it in errors. Returns false after throwing. */
bool arg_string(napi_env env, napi_value value, const char *what, bool optional, char **out);
/* Same, but the copy is kept by the job (freed and wiped with it). */
bool job_string(napi_env env, job *j, napi_value value, const char *what, bool optional, const char **out);
bool arg_int64(napi_env env, napi_value value, const char *what, int64_t *out);
bool arg_int32(napi_env env, napi_value value, const char *what, int32_t *out);
bool arg_uint64(napi_env env, napi_value value, const char *what, uint64_t *out);
bool arg_bool(napi_env env, napi_value value, const char *what, bool *out);
/* A Buffer, TypedArray, DataView or ArrayBuffer: its bytes (borrowed) and length. */
bool arg_bytes(napi_env env, napi_value value, const char *what, const uint8_t **data, size_t *len);
/* Property `name` of object `object` (undefined if absent). */
napi_value prop(napi_env env, napi_value object, const char *name);
/* Reads a user object ({uid, tenant, email, emailVerified, provider, authTime}) into j->user. */
bool arg_user(napi_env env, job *j, napi_value value);
/* Reads an assertion object ({kind, enrollmentId, sessionInfo, verificationId, code, credential}) into j->assertion. */
bool arg_assertion(napi_env env, job *j, napi_value value);
/* A function (or null/undefined) as a reference in *out (NULL for none). */
bool arg_function(napi_env env, napi_value value, const char *what, napi_ref *out);
/* Throws unless the loaded library has `fn`. */
bool require_fn(napi_env env, const void *fn, const char *name);
#define REQUIRE(env, name) require_fn((env), (const void *)L.name, #name)

/* Values to JS (NULL after a failed napi call, with an exception pending). */
napi_value js_string(napi_env env, const char *text); /* NULL text: null */
napi_value js_int64(napi_env env, int64_t value);
napi_value js_bool(napi_env env, bool value);
napi_value js_null(napi_env env);
napi_value js_undefined(napi_env env);
napi_value js_buffer(napi_env env, const void *data, size_t len);
napi_value js_object(napi_env env);
/* object[name] = value; returns false on failure. */
bool set(napi_env env, napi_value object, const char *name, napi_value value);
napi_value js_factor_info(napi_env env, const mfa_factor_info *info);
napi_value js_factor_list(napi_env env, const mfa_factor_list *list);

/* Wipes and frees a C string copied from JS. */
void wipe_free(char *text);

/* ------------------------------------------------------------------ */
/* Live objects (a leak check for the tests: liveObjects())             */
/* ------------------------------------------------------------------ */

typedef enum live_kind { LIVE_JOB, LIVE_ASK, LIVE_EVENT, LIVE_CONTEXT, LIVE_OTP_KEY, LIVE_KINDS } live_kind;
/* Counts an allocation (+1) or a release (-1) of a kind of the addon's own objects. */
void live_count(live_kind kind, int delta);

/* Exports of each file, called by module.c. */
bool export_stateless(napi_env env, napi_value exports);
bool export_context(napi_env env, napi_value exports);
bool export_engine(napi_env env, napi_value exports);
bool export_admin(napi_env env, napi_value exports);

/* Adds a function to `exports`. */
bool export_fn(napi_env env, napi_value exports, const char *name, napi_callback fn);

/* napi_get_cb_info for up to `max` arguments (missing ones undefined). */
bool get_args(napi_env env, napi_callback_info info, size_t max, napi_value *argv);

#endif /* MFA_NODE_ADDON_H */
