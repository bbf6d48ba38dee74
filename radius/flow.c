/*
 * flow.c: rlm_mfa's challenge-response.
 *
 * After the first factor, libmfa is told of the sign-in (mfa_sign_in). A
 * user with one factor usable over RADIUS gets an Access-Challenge for it
 * (an SMS factor's code is sent first); a user with several gets the list,
 * numbered, and may type a number (then a challenge for that factor follows)
 * or a code of a factor they type. The reply to a challenge carries the
 * code (in code_attribute) and the State, which names the sign-in kept in
 * the instance's table (challenges.h): taken out at its first use, bound to
 * the user and the NAS, expiring after challenge_timeout.
 */
#include "rlm_mfa.h"

#include <string.h>
#include <time.h>

#include "code_input.h"
#include "second_factor.h"

char const *rlm_mfa_uid(REQUEST *request) {
    VALUE_PAIR *vp = fr_pair_find_by_num(request->packet->vps, PW_STRIPPED_USER_NAME, 0, TAG_ANY);
    if (!vp) vp = fr_pair_find_by_num(request->packet->vps, PW_USER_NAME, 0, TAG_ANY);
    return vp && vp->vp_length ? vp->vp_strvalue : NULL;
}

/* Appends `value` to `out` as its length and itself, so that no value can pass for two. */
static void append_field(char *out, size_t out_size, char const *value) {
    size_t used = strlen(out);
    if (used < out_size) snprintf(out + used, out_size - used, "%zu:%s;", strlen(value), value);
}

void rlm_mfa_nas(REQUEST *request, char *out, size_t out_size) {
    static unsigned int const attributes[] = {PW_NAS_IDENTIFIER, PW_NAS_IP_ADDRESS, PW_NAS_IPV6_ADDRESS};
    char value[256];
    out[0] = '\0';
    append_field(out, out_size, ip_ntoh(&request->packet->src_ipaddr, value, sizeof value));
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        VALUE_PAIR *vp = fr_pair_find_by_num(request->packet->vps, attributes[i], 0, TAG_ANY);
        value[0] = '\0';
        if (vp) vp_prints_value(value, sizeof value, vp, '\0');
        append_field(out, out_size, value);
    }
}

/* Cuts `text` (`len` bytes) back to whole UTF-8 characters. */
static size_t utf8_boundary(char const *text, size_t len) {
    size_t end = len;
    while (end > 0 && ((unsigned char)text[end - 1] & 0xC0) == 0x80) end--;
    if (end > 0) {
        unsigned char lead = (unsigned char)text[end - 1];
        size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (len - (end - 1) >= need) return len;
        return end - 1;
    }
    return 0;
}

void rlm_mfa_reply_message(REQUEST *request, char const *template, char const *name, char const *value) {
    char text[254];
    size_t n = 0, name_len = strlen(name);
    for (char const *p = template; *p && n < sizeof text - 1;) {
        if (p[0] == '{' && strncmp(p + 1, name, name_len) == 0 && p[1 + name_len] == '}') {
            for (char const *v = value; *v && n < sizeof text - 1; v++) text[n++] = *v;
            p += name_len + 2;
        } else {
            text[n++] = *p++;
        }
    }
    n = utf8_boundary(text, n);
    text[n] = '\0';
    VALUE_PAIR *vp = fr_pair_afrom_num(request->reply, PW_REPLY_MESSAGE, 0);
    if (!vp) return;
    fr_pair_value_strcpy(vp, text);
    fr_pair_add(&request->reply->vps, vp);
}

rlm_rcode_t rlm_mfa_sign_in(rlm_mfa_t *inst, REQUEST *request, mfa_ctx *ctx, char const *uid, mfa_resolver **out) {
    mfa_user user = MFA_USER_INIT;
    user.uid = uid;
    user.tenant = inst->tenant;
    user.provider = "password";
    user.auth_time = (int64_t)time(NULL);
    char *err = NULL;
    *out = NULL;
    int32_t status = mfa_sign_in(ctx, out, &user, &err);
    rlm_rcode_t rcode;
    switch (status) {
    case MFA_ERR_SECOND_FACTOR_REQUIRED: rcode = RLM_MODULE_UPDATED; break;
    case MFA_OK:
        if (inst->accept_without_factor) {
            RDEBUG("user \"%s\" has no second factor: the password alone passes (no_factor = accept)", uid);
            rcode = RLM_MODULE_OK;
        } else {
            MFA_REFUSED("user \"%s\" has no second factor (no_factor = reject)", uid);
            rcode = RLM_MODULE_REJECT;
        }
        break;
    case MFA_ERR_ENROLLMENT_REQUIRED:
        MFA_REFUSED("user \"%s\" must enroll a second factor (MFA is mandatory in the store's configuration)", uid);
        rcode = RLM_MODULE_REJECT;
        break;
    case MFA_ERR_INVALID_ARGUMENT:
        MFA_REFUSED("user name refused by libmfa: %s", err ? err : mfa_errstr(status));
        rcode = RLM_MODULE_REJECT;
        break;
    default:
        MFA_ERROR("second factor of user \"%s\" not checked: %s: %s", uid, mfa_status_name(status),
               err ? err : mfa_errstr(status));
        rcode = RLM_MODULE_FAIL;
        break;
    }
    mfa_free(err);
    return rcode;
}

rlm_rcode_t rlm_mfa_finish(rlm_mfa_t *inst, REQUEST *request, char const *uid, int32_t status,
                           mfa_sign_in_result *result) {
    rlm_rcode_t rcode;
    switch (status) {
    case MFA_OK: {
        char const *remaining = mfa_radius_claim(result, "recovery_codes_remaining");
        if (remaining) rlm_mfa_reply_message(request, inst->recovery_message, "remaining", remaining);
        RDEBUG("second factor of user \"%s\" accepted (%s)", uid, result->factor_id);
        rcode = RLM_MODULE_OK;
        break;
    }
    case MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER:
        MFA_REFUSED("second factor of user \"%s\" refused: %s", uid, mfa_status_name(status));
        rlm_mfa_reply_message(request, inst->backoff_message, "", "");
        rcode = RLM_MODULE_REJECT;
        break;
    case MFA_ERR_STORAGE_ERROR:
    case MFA_ERR_CRYPTO:
    case MFA_ERR_OUT_OF_MEMORY:
    case MFA_ERR_INTERNAL:
        MFA_ERROR("second factor of user \"%s\" not checked: %s", uid, mfa_status_name(status));
        rcode = RLM_MODULE_FAIL;
        break;
    default:
        /* A wrong, malformed, replayed or expired code; a sign-in used up or revoked meanwhile. */
        MFA_REFUSED("second factor of user \"%s\" refused: %s", uid, mfa_status_name(status));
        rcode = RLM_MODULE_REJECT;
        break;
    }
    mfa_sign_in_result_free(result);
    return rcode;
}

/* Stores the challenge and turns the reply into an Access-Challenge with its State. */
static rlm_rcode_t send_challenge(rlm_mfa_t *inst, REQUEST *request, mfa_radius_challenge *challenge) {
    uint8_t state[MFA_RADIUS_STATE_BYTES];
    if (!challenge) {
        MFA_ERROR("out of memory");
        return RLM_MODULE_FAIL;
    }
    int put = mfa_radius_challenges_put(inst->challenges, challenge, (int64_t)time(NULL), state);
    if (put != MFA_RADIUS_PUT_OK) {
        MFA_ERROR("%s", put == MFA_RADIUS_PUT_FULL ? "max_challenges sign-ins are waiting for a code: refused"
                                                : "no random bytes for the State");
        return RLM_MODULE_FAIL;
    }
    VALUE_PAIR *vp = fr_pair_afrom_num(request->reply, PW_STATE, 0);
    if (!vp) return RLM_MODULE_FAIL;
    fr_pair_value_memcpy(vp, state, sizeof state);
    fr_pair_add(&request->reply->vps, vp);
    vp = radius_pair_create(request->reply, &request->reply->vps, PW_SESSION_TIMEOUT, 0);
    if (vp) vp->vp_integer = inst->challenge_timeout;
    request->reply->code = PW_CODE_ACCESS_CHALLENGE;
    return RLM_MODULE_HANDLED;
}

/* A challenge for one factor; an SMS factor's code is sent first. */
static rlm_rcode_t challenge_for(rlm_mfa_t *inst, REQUEST *request, mfa_ctx *ctx, char const *uid, char const *pending,
                                 mfa_factor_info const *hint) {
    char *verification_id = NULL;
    char nas[1024];
    char const *prompt = inst->prompt;
    if (mfa_radius_factor_use(hint) == MFA_RADIUS_SENT) {
        char *err = NULL;
        int32_t status = mfa_phone_start_sign_in(ctx, &verification_id, pending, inst->tenant, hint->uid, "radius", &err);
        if (status != MFA_OK) {
            mfa_free(err);
            return rlm_mfa_finish(inst, request, uid, status, NULL);
        }
        mfa_free(err);
        prompt = inst->sms_prompt;
    } else if (hint->kind == MFA_FACTOR_RECOVERY_CODES) {
        prompt = inst->recovery_prompt;
    }
    rlm_mfa_nas(request, nas, sizeof nas);
    mfa_radius_challenge *challenge =
        mfa_radius_challenge_new(uid, nas, pending, hint->uid, hint->kind, verification_id,
                                 (int64_t)time(NULL) + inst->challenge_timeout);
    mfa_free(verification_id);
    rlm_rcode_t rcode = send_challenge(inst, request, challenge);
    if (rcode == RLM_MODULE_HANDLED) {
        rlm_mfa_reply_message(request, prompt, "hint", hint->hint);
        RDEBUG("user \"%s\": challenge for factor %s (%s)", uid, hint->uid, hint->factor_id);
    }
    return rcode;
}

/* The numbered list of a user's factors, and a challenge whose reply is a number or a code. */
static rlm_rcode_t challenge_choice(rlm_mfa_t *inst, REQUEST *request, char const *uid, mfa_resolver const *r,
                                    size_t const *usable, size_t count) {
    char list[1024] = "", item[300], nas[1024];
    for (size_t i = 0; i < count; i++) {
        size_t used = strlen(list);
        mfa_radius_describe(item, sizeof item, &r->hints[usable[i]]);
        snprintf(list + used, sizeof list - used, "%s%zu) %s", i ? ", " : "", i + 1, item);
    }
    rlm_mfa_nas(request, nas, sizeof nas);
    rlm_rcode_t rcode = send_challenge(
        inst, request,
        mfa_radius_challenge_new(uid, nas, r->session, NULL, 0, NULL, (int64_t)time(NULL) + inst->challenge_timeout));
    if (rcode == RLM_MODULE_HANDLED) {
        rlm_mfa_reply_message(request, inst->choose_prompt, "list", list);
        RDEBUG("user \"%s\": %zu factors to choose from", uid, count);
    }
    return rcode;
}

rlm_rcode_t rlm_mfa_start(rlm_mfa_t *inst, REQUEST *request) {
    char const *uid = rlm_mfa_uid(request);
    if (!uid) {
        REDEBUG("no User-Name");
        return RLM_MODULE_INVALID;
    }
    mfa_ctx *ctx = rlm_mfa_context(inst, request);
    if (!ctx) return RLM_MODULE_FAIL;
    mfa_resolver *r = NULL;
    rlm_rcode_t rcode = rlm_mfa_sign_in(inst, request, ctx, uid, &r);
    if (!r) return rcode;
    size_t usable[MFA_RADIUS_FACTORS_MAX];
    size_t count = mfa_radius_usable_factors(r, usable, NULL);
    if (count == 0) {
        MFA_REFUSED("user \"%s\" has no second factor usable over RADIUS (WebAuthn needs a browser)", uid);
        rcode = RLM_MODULE_REJECT;
    } else if (count == 1) {
        rcode = challenge_for(inst, request, ctx, uid, r->session, &r->hints[usable[0]]);
    } else {
        rcode = challenge_choice(inst, request, uid, r, usable, count);
    }
    mfa_resolver_free(r);
    return rcode;
}

/* The reply to a choice list: a factor's number (a new challenge for it) or a code. */
static rlm_rcode_t answer_choice(rlm_mfa_t *inst, REQUEST *request, mfa_ctx *ctx, mfa_radius_challenge const *c,
                                 char const *typed) {
    mfa_resolver *r = NULL;
    char *err = NULL;
    int32_t status = mfa_resolver_load(ctx, &r, c->pending, inst->tenant, &err);
    mfa_free(err);
    if (status != MFA_OK) return rlm_mfa_finish(inst, request, c->uid, status, NULL);
    size_t usable[MFA_RADIUS_FACTORS_MAX];
    size_t count = mfa_radius_usable_factors(r, usable, NULL);
    int chosen = mfa_radius_choice(typed, count);
    rlm_rcode_t rcode;
    if (chosen >= 0) {
        rcode = challenge_for(inst, request, ctx, c->uid, c->pending, &r->hints[usable[chosen]]);
    } else {
        mfa_sign_in_result *result = NULL;
        status = mfa_radius_resolve_typed(ctx, &result, r, c->pending, inst->tenant, NULL, 0, typed, NULL);
        rcode = rlm_mfa_finish(inst, request, c->uid, status, result);
    }
    mfa_resolver_free(r);
    return rcode;
}

rlm_rcode_t rlm_mfa_answer(rlm_mfa_t *inst, REQUEST *request, VALUE_PAIR *state) {
    mfa_radius_challenge *c =
        mfa_radius_challenges_take(inst->challenges, state->vp_octets, state->vp_length, (int64_t)time(NULL));
    if (!c) {
        MFA_REFUSED("the State is unknown, already used or expired");
        return RLM_MODULE_REJECT;
    }
    char const *uid = rlm_mfa_uid(request);
    char nas[1024];
    rlm_mfa_nas(request, nas, sizeof nas);
    rlm_rcode_t rcode;
    VALUE_PAIR *code = fr_pair_find_by_da(request->packet->vps, inst->code_da, TAG_ANY);
    mfa_ctx *ctx;
    if (!uid || strcmp(uid, c->uid) != 0) {
        MFA_REFUSED("the State was issued to another user: refused");
        rcode = RLM_MODULE_REJECT;
    } else if (strcmp(nas, c->nas) != 0) {
        MFA_REFUSED("the State was issued to another NAS: refused");
        rcode = RLM_MODULE_REJECT;
    } else if (!code || !code->vp_length) {
        MFA_REFUSED("the reply to the challenge has no %s", inst->code_da->name);
        rcode = RLM_MODULE_REJECT;
    } else if (!(ctx = rlm_mfa_context(inst, request))) {
        rcode = RLM_MODULE_FAIL;
    } else if (!c->enrollment_id) {
        rcode = answer_choice(inst, request, ctx, c, code->vp_strvalue);
    } else if (c->verification_id) {
        char digits[MFA_CODE_BUFFER_SIZE];
        char const *typed = mfa_pam_totp_code(digits, sizeof digits, code->vp_strvalue) ? digits : code->vp_strvalue;
        mfa_sign_in_result *result = NULL;
        int32_t status = mfa_resolve_phone(ctx, &result, c->pending, inst->tenant, c->verification_id, typed, NULL);
        explicit_bzero(digits, sizeof digits);
        rcode = rlm_mfa_finish(inst, request, uid, status, result);
    } else {
        mfa_sign_in_result *result = NULL;
        int32_t status = mfa_radius_resolve_typed(ctx, &result, NULL, c->pending, inst->tenant, c->enrollment_id,
                                                  c->kind, code->vp_strvalue, NULL);
        rcode = rlm_mfa_finish(inst, request, uid, status, result);
    }
    mfa_radius_challenge_free(c);
    return rcode;
}
