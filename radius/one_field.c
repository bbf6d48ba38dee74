/*
 * one_field.c: rlm_mfa with the password and the code in one field
 * (one_field = yes), for RADIUS clients that cannot show a challenge.
 *
 * In authorize, before pap, the code is taken off the end of User-Password:
 * its last code_length characters, or the last twelve when they are a
 * recovery code (xxxx-xxxx-xx) and the user has recovery codes left. A user
 * with no factor typed unprompted keeps the whole field as the password
 * (and no_factor decides). After pap passed the rest, authenticate checks
 * the code against the user's typed factors.
 */
#define _GNU_SOURCE
#include "rlm_mfa.h"

#include <string.h>

#include "code_input.h"
#include "second_factor.h"

/* The code taken off the field, kept with the request until authenticate; wiped when freed. */
static int wipe_code(char *code) {
    explicit_bzero(code, talloc_get_size(code));
    return 0;
}

rlm_rcode_t rlm_mfa_split(rlm_mfa_t *inst, REQUEST *request) {
    VALUE_PAIR *password = fr_pair_find_by_num(request->packet->vps, PW_USER_PASSWORD, 0, TAG_ANY);
    char const *uid = rlm_mfa_uid(request);
    if (!password || !uid) {
        RDEBUG2("no User-Name or User-Password: no code to take off");
        return RLM_MODULE_NOOP;
    }
    mfa_ctx *ctx = rlm_mfa_context(inst, request);
    if (!ctx) return RLM_MODULE_FAIL;
    mfa_user user = MFA_USER_INIT;
    user.uid = uid;
    user.tenant = inst->tenant;
    mfa_factor_list *factors = NULL;
    char *err = NULL;
    int32_t status = mfa_factors_list(ctx, &factors, &user, &err);
    if (status != MFA_OK) {
        if (status == MFA_ERR_INVALID_ARGUMENT) {
            MFA_REFUSED("user name refused by libmfa: %s", err ? err : mfa_errstr(status));
        } else {
            MFA_ERROR("factors of user \"%s\" not read: %s: %s", uid, mfa_status_name(status),
                   err ? err : mfa_errstr(status));
        }
        mfa_free(err);
        return status == MFA_ERR_INVALID_ARGUMENT ? RLM_MODULE_REJECT : RLM_MODULE_FAIL;
    }
    int typed = 0, recovery = 0, yubikey = 0;
    for (size_t i = 0; i < factors->count; i++) {
        if (mfa_radius_factor_use(&factors->items[i]) != MFA_RADIUS_TYPED) continue;
        typed = 1;
        if (factors->items[i].kind == MFA_FACTOR_RECOVERY_CODES) recovery = 1;
        if (factors->items[i].kind == MFA_FACTOR_YUBICO_OTP) yubikey = 1;
    }
    mfa_factor_list_free(factors);
    if (!typed) {
        RDEBUG2("user \"%s\" has no factor typed in one field: the whole field is the password", uid);
        return RLM_MODULE_NOOP;
    }

    char *line = talloc_strndup(request, password->vp_strvalue, password->vp_length);
    if (!line) return RLM_MODULE_FAIL;
    talloc_set_destructor(line, wipe_code);
    size_t offset = mfa_pam_code_offset(line, recovery, yubikey, inst->code_length);
    char *code = talloc_strdup(request, line + offset);
    if (!code || request_data_add(request, inst, 0, code, true) != 0) {
        talloc_free(line);
        talloc_free(code);
        return RLM_MODULE_FAIL;
    }
    talloc_set_destructor(code, wipe_code);
    fr_pair_value_bstrncpy(password, line, offset);
    talloc_free(line);
    RDEBUG2("took the code off the end of User-Password");
    return RLM_MODULE_UPDATED;
}

rlm_rcode_t rlm_mfa_one_field(rlm_mfa_t *inst, REQUEST *request) {
    char *code = request_data_get(request, inst, 0);
    char const *uid = rlm_mfa_uid(request);
    mfa_ctx *ctx = uid ? rlm_mfa_context(inst, request) : NULL;
    mfa_resolver *r = NULL;
    rlm_rcode_t rcode;
    if (!uid) {
        REDEBUG("no User-Name");
        rcode = RLM_MODULE_INVALID;
    } else if (!ctx) {
        rcode = RLM_MODULE_FAIL;
    } else if ((rcode = rlm_mfa_sign_in(inst, request, ctx, uid, &r)) == RLM_MODULE_UPDATED) {
        if (!code) {
            MFA_REFUSED("user \"%s\" has no factor typed in one field (SMS needs the challenge)", uid);
            rcode = RLM_MODULE_REJECT;
        } else {
            mfa_sign_in_result *result = NULL;
            int32_t status = mfa_radius_resolve_typed(ctx, &result, r, r->session, inst->tenant, NULL, 0, code, NULL);
            rcode = rlm_mfa_finish(inst, request, uid, status, result);
        }
    }
    mfa_resolver_free(r);
    talloc_free(code);
    return rcode;
}
