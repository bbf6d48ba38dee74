/*
 * rlm_mfa.h: what the files of rlm_mfa, libmfa's FreeRADIUS module, share:
 * the module instance (its options, as mods-available/mfa documents them,
 * and its libmfa context) and the steps of a sign-in.
 */
#ifndef RLM_MFA_H
#define RLM_MFA_H

#include <freeradius/build.h>
#include <freeradius/radiusd.h>

#include <pthread.h>

#include "challenges.h"
#include "key_file.h"
#include "mfa.h"

/*
 * What rlm_mfa logs, with the request's number, whatever the debug level:
 * MFA_REFUSED for a sign-in refused (an "Auth:" line, as the server's own
 * "Login incorrect"), MFA_ERROR for a store or set-up failure (an "Error:"
 * line). Both also become the request's Module-Failure-Message, which the
 * server's "Login incorrect (...)" line shows.
 */
#define MFA_REFUSED(fmt, ...) radlog_request_error(L_AUTH, L_DBG_LVL_OFF, request, fmt, ##__VA_ARGS__)
#define MFA_ERROR(fmt, ...) radlog_request_error(L_ERR, L_DBG_LVL_OFF, request, fmt, ##__VA_ARGS__)

/** One `mfa { ... }` (or `mfa NAME { ... }`) section of the modules. */
typedef struct rlm_mfa_t {
    /* Options (mods-available/mfa). */
    char const *store;
    char const *key_file;
    char const *key_id;
    char const *hsm_module;
    char const *hsm_token;
    char const *hsm_slot;
    char const *hsm_key;
    char const *hsm_pin_file;
    char const *tenant;
    char const *sms_outbox;
    char const *sms_program;
    uint32_t sms_timeout;
    bool one_field;
    uint32_t code_length;
    char const *code_attribute;
    char const *no_factor;
    uint32_t challenge_timeout;
    uint32_t max_challenges;
    uint32_t deadline;
    char const *prompt;
    char const *recovery_prompt;
    char const *sms_prompt;
    char const *choose_prompt;
    char const *backoff_message;
    char const *recovery_message;

    /* Set up by instantiate. */
    char const *name;
    int auth_type;
    bool accept_without_factor;
    DICT_ATTR const *code_da;
    char *store_location;
    mfa_pam_keys keys;
    /** hsm_slot as a number; -1 when hsm_slot is not given. */
    int64_t hsm_slot_id;
    mfa_ctx *ctx;
    pthread_mutex_t open_lock;
    mfa_radius_challenges *challenges;
} rlm_mfa_t;

/** The libmfa context, opened now if the store could not be reached at start; NULL (logged) if it still cannot. */
mfa_ctx *rlm_mfa_context(rlm_mfa_t *inst, REQUEST *request);

/** Opens the libmfa context of an instance. 0, or -1 with the reason in `why` (`*unreachable` set when the store is down). */
int rlm_mfa_open(rlm_mfa_t *inst, char *why, size_t why_size, bool *unreachable);

/** The request being handled on this thread, for the audit callback (NULL outside a request). */
void rlm_mfa_audit_request(REQUEST *request);

/** The audit callback: libmfa's events, into FreeRADIUS's log. */
void rlm_mfa_audit(void *context, const mfa_audit_event *event);

/** The user name given to libmfa: Stripped-User-Name if a realm module set it, else User-Name; NULL if none. */
char const *rlm_mfa_uid(REQUEST *request);

/** The NAS a request came from, as the string a challenge is bound to. */
void rlm_mfa_nas(REQUEST *request, char *out, size_t out_size);

/** Adds Reply-Message: `template` with each `{name}` replaced by `value` (at most 253 bytes). */
void rlm_mfa_reply_message(REQUEST *request, char const *template, char const *name, char const *value);

/**
 * Reports the first factor to libmfa. RLM_MODULE_UPDATED with `*out` the
 * resolver (free it) when a second factor is needed; else the answer (a user
 * with no factor: no_factor; the store down: RLM_MODULE_FAIL), `*out` NULL.
 */
rlm_rcode_t rlm_mfa_sign_in(rlm_mfa_t *inst, REQUEST *request, mfa_ctx *ctx, char const *uid, mfa_resolver **out);

/** The module's answer to libmfa's `status` for a second factor of `uid`; frees `result`. */
rlm_rcode_t rlm_mfa_finish(rlm_mfa_t *inst, REQUEST *request, char const *uid, int32_t status,
                           mfa_sign_in_result *result);

/** After the first factor: sends the Access-Challenge, or decides at once (no factor, store down). */
rlm_rcode_t rlm_mfa_start(rlm_mfa_t *inst, REQUEST *request);

/** The reply to a challenge (the request carries rlm_mfa's State). */
rlm_rcode_t rlm_mfa_answer(rlm_mfa_t *inst, REQUEST *request, VALUE_PAIR *state);

/** One field: authorize takes the code off the end of User-Password. */
rlm_rcode_t rlm_mfa_split(rlm_mfa_t *inst, REQUEST *request);

/** One field: after the first factor, the code taken off is checked. */
rlm_rcode_t rlm_mfa_one_field(rlm_mfa_t *inst, REQUEST *request);

#endif
