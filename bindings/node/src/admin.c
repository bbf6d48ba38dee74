/*
 * admin.c: the operator's calls (mfa_admin_*, imports, batched key rotation, seal checks).
 * As engine.c: arguments copied on the JS thread, the call on a worker, plain objects back.
 * The imports' report and progress callbacks and the rotation's progress are the call's own
 * (callbacks.c: reports are events, progress is asked and may stop the call).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "call.h"

/* ------------------------------------------------------------------ */
/* Results                                                              */
/* ------------------------------------------------------------------ */

static napi_value admin_factor_value(napi_env env, const mfa_admin_factor *f) {
    napi_value o = js_object(env);
    if (!set(env, o, "tenant", js_string(env, f->tenant)) || !set(env, o, "uid", js_string(env, f->uid)) ||
        !set(env, o, "info", js_factor_info(env, &f->info))) {
        return throw_napi(env, 0);
    }
    return o;
}

static napi_value done_admin_factor(napi_env env, job *j) {
    return j->out ? admin_factor_value(env, j->out) : js_null(env);
}

static void free_admin_factor(job *j) {
    L.mfa_admin_factor_free(j->out);
    j->out = NULL;
}

static napi_value done_page(napi_env env, job *j) {
    const mfa_admin_user_page *page = j->out;
    napi_value o = js_object(env), users;
    if (!o || napi_create_array_with_length(env, page->count, &users) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < page->count; i++) {
        const mfa_admin_user *u = &page->users[i];
        napi_value user = js_object(env), counts;
        if (!user || napi_create_array_with_length(env, u->kind_count, &counts) != napi_ok) return throw_napi(env, 0);
        for (size_t k = 0; k < u->kind_count; k++) {
            napi_value count = js_object(env);
            if (!set(env, count, "factorId", js_string(env, u->kinds[k].factor_id)) ||
                !set(env, count, "kind", js_int64(env, u->kinds[k].kind)) ||
                !set(env, count, "count", js_int64(env, u->kinds[k].count)) ||
                napi_set_element(env, counts, (uint32_t)k, count) != napi_ok) {
                return throw_napi(env, 0);
            }
        }
        if (!set(env, user, "tenant", js_string(env, u->tenant)) || !set(env, user, "uid", js_string(env, u->uid)) ||
            !set(env, user, "factorTotal", js_int64(env, u->factor_total)) || !set(env, user, "kinds", counts) ||
            napi_set_element(env, users, (uint32_t)i, user) != napi_ok) {
            return throw_napi(env, 0);
        }
    }
    if (!set(env, o, "users", users) || !set(env, o, "nextCursor", js_string(env, page->next_cursor))) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_page(job *j) {
    L.mfa_admin_user_page_free(j->out);
    j->out = NULL;
}

static napi_value done_stats(napi_env env, job *j) {
    const mfa_admin_stats *s = j->out;
    napi_value o = js_object(env), rows, tenants;
    if (!o || napi_create_array_with_length(env, s->row_count, &rows) != napi_ok ||
        napi_create_array_with_length(env, s->tenant_count, &tenants) != napi_ok) {
        return throw_napi(env, 0);
    }
    for (size_t i = 0; i < s->row_count; i++) {
        const mfa_admin_stats_row *r = &s->rows[i];
        napi_value row = js_object(env);
        if (!set(env, row, "tenant", js_string(env, r->tenant)) ||
            !set(env, row, "factorId", js_string(env, r->factor_id)) ||
            !set(env, row, "kind", js_int64(env, r->kind)) || !set(env, row, "factors", js_int64(env, r->factors)) ||
            !set(env, row, "users", js_int64(env, r->users)) ||
            napi_set_element(env, rows, (uint32_t)i, row) != napi_ok) {
            return throw_napi(env, 0);
        }
    }
    for (size_t i = 0; i < s->tenant_count; i++) {
        napi_value t = js_object(env);
        if (!set(env, t, "tenant", js_string(env, s->tenants[i].tenant)) ||
            !set(env, t, "users", js_int64(env, s->tenants[i].users)) ||
            napi_set_element(env, tenants, (uint32_t)i, t) != napi_ok) {
            return throw_napi(env, 0);
        }
    }
    if (!set(env, o, "rows", rows) || !set(env, o, "tenantUsers", tenants) ||
        !set(env, o, "totalUsers", js_int64(env, s->total_users)) ||
        !set(env, o, "totalFactors", js_int64(env, s->total_factors))) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_stats(job *j) {
    L.mfa_admin_stats_free(j->out);
    j->out = NULL;
}

/* ------------------------------------------------------------------ */
/* Users and factors                                                    */
/* ------------------------------------------------------------------ */

static void list_users_run(job *j) {
    mfa_admin_user_page *out = NULL;
    j->status = L.mfa_admin_list_users(j->ctx->handle, &out, j->arg[0], j->arg[1], (int32_t)j->n[0], j->arg[2],
                                       &j->err);
    j->out = out;
}

/* (ctx, tenant|null (null: every tenant; "": the project), factorId|null, limit, cursor|null) -> page */
static napi_value js_list_users(napi_env env, napi_callback_info info) {
    CALL_BEGIN(5, mfa_admin_list_users, list_users_run, done_page, free_page);
    int32_t limit;
    if (!job_string(env, j, argv[1], "tenant", true, &j->arg[0]) ||
        !job_string(env, j, argv[2], "factorId", true, &j->arg[1]) || !arg_int32(env, argv[3], "limit", &limit) ||
        !job_string(env, j, argv[4], "cursor", true, &j->arg[2])) {
        CALL_FAIL;
    }
    j->n[0] = limit;
    CALL_END;
}

static void user_factors_run(job *j) {
    mfa_factor_list *out = NULL;
    j->status = L.mfa_admin_user_factors(j->ctx->handle, &out, j->arg[0], j->arg[1], (int32_t)j->n[0], &j->err);
    j->out = out;
}

/* (ctx, tenant|null, uid, flags) -> [factor] */
static napi_value js_user_factors(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_admin_user_factors, user_factors_run, done_factor_list, free_factor_list);
    int32_t flags;
    if (!job_string(env, j, argv[1], "tenant", true, &j->arg[0]) ||
        !job_string(env, j, argv[2], "uid", false, &j->arg[1]) || !arg_int32(env, argv[3], "flags", &flags)) {
        CALL_FAIL;
    }
    j->n[0] = flags;
    CALL_END;
}

static void factor_get_run(job *j) {
    mfa_admin_factor *out = NULL;
    j->status = L.mfa_admin_factor_get(j->ctx->handle, &out, j->arg[0], (int32_t)j->n[0], &j->err);
    j->out = out;
}

/* (ctx, enrollmentId, flags) -> {tenant, uid, info} */
static napi_value js_factor_get(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_admin_factor_get, factor_get_run, done_admin_factor, free_admin_factor);
    int32_t flags;
    if (!job_string(env, j, argv[1], "enrollmentId", false, &j->arg[0]) || !arg_int32(env, argv[2], "flags", &flags))
        CALL_FAIL;
    j->n[0] = flags;
    CALL_END;
}

static void admin_unenroll_run(job *j) {
    mfa_admin_factor *out = NULL;
    j->status = L.mfa_admin_unenroll(j->ctx->handle, &out, j->arg[0], j->arg[1], &j->err);
    j->out = out;
}

/* (ctx, enrollmentId, actor) -> {tenant, uid, info} */
static napi_value js_admin_unenroll(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_admin_unenroll, admin_unenroll_run, done_admin_factor, free_admin_factor);
    if (!job_string(env, j, argv[1], "enrollmentId", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "actor", false, &j->arg[1])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void rename_run(job *j) {
    mfa_admin_factor *out = NULL;
    j->status = L.mfa_admin_rename(j->ctx->handle, &out, j->arg[0], j->arg[1], j->arg[2], &j->err);
    j->out = out;
}

/* (ctx, enrollmentId, displayName|null, actor) -> {tenant, uid, info} */
static napi_value js_admin_rename(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_admin_rename, rename_run, done_admin_factor, free_admin_factor);
    if (!job_string(env, j, argv[1], "enrollmentId", false, &j->arg[0]) ||
        !job_string(env, j, argv[2], "displayName", true, &j->arg[1]) ||
        !job_string(env, j, argv[3], "actor", false, &j->arg[2])) {
        CALL_FAIL;
    }
    CALL_END;
}

static void reset_run(job *j) {
    mfa_factor_list *out = NULL;
    j->status = L.mfa_admin_reset_user(j->ctx->handle, &out, j->arg[0], j->arg[1], j->arg[2], &j->err);
    j->out = out;
}

static void delete_run(job *j) {
    mfa_factor_list *out = NULL;
    j->status = L.mfa_admin_delete_user(j->ctx->handle, &out, j->arg[0], j->arg[1], j->arg[2], &j->err);
    j->out = out;
}

/* (ctx, tenant|null, uid, actor) -> [removed factor] */
static napi_value removal(napi_env env, napi_callback_info info, bool reset) {
    CALL_BEGIN(4, mfa_admin_reset_user, reset ? reset_run : delete_run, done_factor_list, free_factor_list);
    if (!reset && !REQUIRE(env, mfa_admin_delete_user)) CALL_FAIL;
    if (!job_string(env, j, argv[1], "tenant", true, &j->arg[0]) ||
        !job_string(env, j, argv[2], "uid", false, &j->arg[1]) ||
        !job_string(env, j, argv[3], "actor", false, &j->arg[2])) {
        CALL_FAIL;
    }
    CALL_END;
}

static napi_value js_reset_user(napi_env env, napi_callback_info info) {
    return removal(env, info, true);
}

static napi_value js_delete_user(napi_env env, napi_callback_info info) {
    return removal(env, info, false);
}

static void stats_run(job *j) {
    mfa_admin_stats *out = NULL;
    j->status = L.mfa_admin_stats_get(j->ctx->handle, &out, &j->err);
    j->out = out;
}

static napi_value js_stats(napi_env env, napi_callback_info info) {
    CALL_BEGIN(1, mfa_admin_stats_get, stats_run, done_stats, free_stats);
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Imports                                                              */
/* ------------------------------------------------------------------ */

static napi_value done_summary(napi_env env, job *j) {
    const mfa_import_summary *s = &j->summary;
    napi_value o = js_object(env);
    if (!set(env, o, "lines", js_int64(env, s->lines)) || !set(env, o, "imported", js_int64(env, s->imported)) ||
        !set(env, o, "alreadyImported", js_int64(env, s->already_imported)) ||
        !set(env, o, "unsupported", js_int64(env, s->unsupported)) ||
        !set(env, o, "failed", js_int64(env, s->failed)) ||
        !set(env, o, "recoveryCodes", js_int64(env, s->recovery_codes)) ||
        !set(env, o, "stopped", js_bool(env, s->stopped))) {
        return throw_napi(env, 0);
    }
    return o;
}

/* The import options of a call: {actor, tenant, batchSize, report, progress} (batch size in n[1]). */
static bool import_options(napi_env env, job *j, napi_value value, mfa_import_options *o) {
    napi_value v;
    int32_t batch = MFA_IMPORT_BATCH_DEFAULT;
    napi_valuetype type;
    if (napi_typeof(env, value, &type) != napi_ok || type != napi_object) {
        throw_type(env, "options must be an object");
        return false;
    }
    if (!(v = prop(env, value, "actor")) || !job_string(env, j, v, "actor", false, &j->arg[2])) return false;
    if (!(v = prop(env, value, "tenant")) || !job_string(env, j, v, "tenant", true, &j->arg[3])) return false;
    if (!(v = prop(env, value, "batchSize"))) return false;
    napi_typeof(env, v, &type);
    if (type != napi_undefined && type != napi_null && !arg_int32(env, v, "batchSize", &batch)) return false;
    if (!(v = prop(env, value, "report")) || !arg_function(env, v, "report", &j->callbacks[CB_IMPORT_REPORT]))
        return false;
    if (!(v = prop(env, value, "progress")) || !arg_function(env, v, "progress", &j->callbacks[CB_PROGRESS]))
        return false;
    if (L.mfa_import_options_init(o, MFA_IMPORT_OPTIONS_VERSION) != MFA_OK) {
        throw_status(env, MFA_ERR_INTERNAL, "mfa_import_options_init failed");
        return false;
    }
    j->n[1] = batch;
    return true;
}

static void fill_import_options(job *j, mfa_import_options *o) {
    if (L.mfa_import_options_init(o, MFA_IMPORT_OPTIONS_VERSION) != MFA_OK) memset(o, 0, sizeof *o);
    o->actor = j->arg[2];
    o->tenant = j->arg[3];
    o->batch_size = (int32_t)j->n[1];
    if (j->callbacks[CB_IMPORT_REPORT]) o->report = cb_import_report, o->report_context = j;
    if (j->callbacks[CB_PROGRESS]) o->progress = cb_progress, o->progress_context = j;
}

static void import_run(job *j) {
    mfa_import_options o;
    fill_import_options(j, &o);
    j->status = L.mfa_import(j->ctx->handle, &j->summary, (int32_t)j->n[0], j->bytes, j->bytes_len, &o, &j->err);
}

static void import_ga_run(job *j) {
    mfa_import_options o;
    fill_import_options(j, &o);
    j->status = L.mfa_import_google_authenticator(j->ctx->handle, &j->summary, j->arg[0], j->bytes, j->bytes_len, &o,
                                                  &j->err);
}

/* Copies the text of an import (a Buffer of UTF-8) into the job. */
static bool import_text(napi_env env, job *j, napi_value value) {
    const uint8_t *data;
    size_t len;
    if (!arg_bytes(env, value, "text", &data, &len)) return false;
    if (len > MFA_IMPORT_MAX_BYTES) {
        throw_status(env, MFA_ERR_INVALID_ARGUMENT, "the text is longer than IMPORT_MAX_BYTES");
        return false;
    }
    j->bytes = malloc(len ? len : 1);
    if (!j->bytes) return throw_status(env, MFA_ERR_OUT_OF_MEMORY, NULL), false;
    memcpy(j->bytes, data, len);
    j->bytes_len = len;
    return true;
}

/* (ctx, format, text Buffer, {actor, tenant, batchSize, report, progress}) -> summary */
static napi_value js_import(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_import, import_run, done_summary, NULL);
    mfa_import_options o;
    int32_t format;
    if (!REQUIRE(env, mfa_import_options_init) || !arg_int32(env, argv[1], "format", &format) ||
        !import_text(env, j, argv[2]) || !import_options(env, j, argv[3], &o)) {
        CALL_FAIL;
    }
    j->n[0] = format;
    CALL_END;
}

/* (ctx, uid, text Buffer, {actor, tenant, report}) -> summary */
static napi_value js_import_google_authenticator(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_import_google_authenticator, import_ga_run, done_summary, NULL);
    mfa_import_options o;
    if (!REQUIRE(env, mfa_import_options_init) || !job_string(env, j, argv[1], "uid", false, &j->arg[0]) ||
        !import_text(env, j, argv[2]) || !import_options(env, j, argv[3], &o)) {
        CALL_FAIL;
    }
    CALL_END;
}

/* ------------------------------------------------------------------ */
/* Keys                                                                 */
/* ------------------------------------------------------------------ */

static void rotate_batched_run(job *j) {
    j->status = L.mfa_rotate_keys_batched(j->ctx->handle, &j->rotation, (int32_t)j->n[0], j->arg[0],
                                          j->callbacks[CB_PROGRESS] ? cb_progress : NULL, j, &j->err);
}

static napi_value done_rotation(napi_env env, job *j) {
    napi_value o = js_object(env);
    if (!set(env, o, "rotated", js_int64(env, j->rotation.rotated)) ||
        !set(env, o, "remaining", js_int64(env, j->rotation.remaining)) ||
        !set(env, o, "stopped", js_bool(env, j->rotation.stopped))) {
        return throw_napi(env, 0);
    }
    return o;
}

/* (ctx, batchSize, actor|null, progress|null) -> {rotated, remaining, stopped} */
static napi_value js_rotate_keys_batched(napi_env env, napi_callback_info info) {
    CALL_BEGIN(4, mfa_rotate_keys_batched, rotate_batched_run, done_rotation, NULL);
    int32_t batch;
    if (!arg_int32(env, argv[1], "batchSize", &batch) || !job_string(env, j, argv[2], "actor", true, &j->arg[0]) ||
        !arg_function(env, argv[3], "progress", &j->callbacks[CB_PROGRESS])) {
        CALL_FAIL;
    }
    j->n[0] = batch;
    CALL_END;
}

static void seals_run(job *j) {
    mfa_seal_check *out = NULL;
    j->status = L.mfa_check_seals(j->ctx->handle, &out, (int32_t)j->n[0],
                                  j->callbacks[CB_PROGRESS] ? cb_progress : NULL, j, &j->err);
    j->out = out;
}

static napi_value done_seals(napi_env env, job *j) {
    const mfa_seal_check *c = j->out;
    napi_value o = js_object(env), ids;
    if (!o || napi_create_array_with_length(env, c->failed_id_count, &ids) != napi_ok) return throw_napi(env, 0);
    for (size_t i = 0; i < c->failed_id_count; i++) {
        napi_value id = js_string(env, c->failed_ids[i]);
        if (!id || napi_set_element(env, ids, (uint32_t)i, id) != napi_ok) return throw_napi(env, 0);
    }
    if (!set(env, o, "checked", js_int64(env, c->checked)) || !set(env, o, "failed", js_int64(env, c->failed)) ||
        !set(env, o, "failedIds", ids) || !set(env, o, "stopped", js_bool(env, c->stopped))) {
        return throw_napi(env, 0);
    }
    return o;
}

static void free_seals(job *j) {
    L.mfa_seal_check_free(j->out);
    j->out = NULL;
}

/* (ctx, batchSize, progress|null) -> {checked, failed, failedIds, stopped} */
static napi_value js_check_seals(napi_env env, napi_callback_info info) {
    CALL_BEGIN(3, mfa_check_seals, seals_run, done_seals, free_seals);
    int32_t batch;
    if (!arg_int32(env, argv[1], "batchSize", &batch) ||
        !arg_function(env, argv[2], "progress", &j->callbacks[CB_PROGRESS])) {
        CALL_FAIL;
    }
    j->n[0] = batch;
    CALL_END;
}

bool export_admin(napi_env env, napi_value exports) {
    static const struct {
        const char *name;
        napi_callback fn;
    } table[] = {
        {"adminListUsers", js_list_users},
        {"adminUserFactors", js_user_factors},
        {"adminFactorGet", js_factor_get},
        {"adminUnenroll", js_admin_unenroll},
        {"adminRename", js_admin_rename},
        {"adminResetUser", js_reset_user},
        {"adminDeleteUser", js_delete_user},
        {"adminStats", js_stats},
        {"importFactors", js_import},
        {"importGoogleAuthenticator", js_import_google_authenticator},
        {"rotateKeysBatched", js_rotate_keys_batched},
        {"checkSeals", js_check_seals},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!export_fn(env, exports, table[i].name, table[i].fn)) return false;
    }
    return true;
}
