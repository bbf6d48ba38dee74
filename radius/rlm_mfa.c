/*
 * rlm_mfa.c: libmfa's FreeRADIUS 3.2 module: a second factor after the
 * password that FreeRADIUS's own modules (pap, ldap, sql) checked, on
 * libmfa's public C API only.
 *
 * Two ways, one per instance (mods-available/mfa documents every option):
 *  - challenge-response: after the password, an Access-Challenge with a
 *    State and a Reply-Message; the next Access-Request carries the code
 *    and the State (flow.c);
 *  - one field (one_field = yes): the password and the code typed together,
 *    the code last (one_field.c).
 * This file holds the module's definition, its options, the libmfa context,
 * the audit callback and the authorize and authenticate entry points.
 */
#include "rlm_mfa.h"

#include <freeradius/modules.h>

#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sms_program.h"

static const CONF_PARSER module_config[] = {
    {"store", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_REQUIRED | PW_TYPE_NOT_EMPTY | PW_TYPE_SECRET, rlm_mfa_t, store), NULL},
    {"key_file", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, key_file), NULL},
    {"hsm_module", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, hsm_module), NULL},
    {"hsm_token", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, hsm_token), NULL},
    {"hsm_slot", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, hsm_slot), NULL},
    {"hsm_key", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, hsm_key), NULL},
    {"hsm_pin_file", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, hsm_pin_file), NULL},
    {"key_id", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, key_id), "radius"},
    {"tenant", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, tenant), NULL},
    {"sms_outbox", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, sms_outbox), NULL},
    {"sms_program", FR_CONF_OFFSET(PW_TYPE_STRING, rlm_mfa_t, sms_program), NULL},
    {"sms_timeout", FR_CONF_OFFSET(PW_TYPE_INTEGER, rlm_mfa_t, sms_timeout), "5000"},
    {"one_field", FR_CONF_OFFSET(PW_TYPE_BOOLEAN, rlm_mfa_t, one_field), "no"},
    {"code_length", FR_CONF_OFFSET(PW_TYPE_INTEGER, rlm_mfa_t, code_length), "6"},
    {"code_attribute", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, code_attribute), "User-Password"},
    {"no_factor", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, no_factor), "reject"},
    {"challenge_timeout", FR_CONF_OFFSET(PW_TYPE_INTEGER, rlm_mfa_t, challenge_timeout), "120"},
    {"max_challenges", FR_CONF_OFFSET(PW_TYPE_INTEGER, rlm_mfa_t, max_challenges), "10000"},
    {"deadline", FR_CONF_OFFSET(PW_TYPE_INTEGER, rlm_mfa_t, deadline), "2000"},
    {"prompt", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, prompt), "Verification code ({hint}): "},
    {"recovery_prompt", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, recovery_prompt),
     "Recovery code ({hint}): "},
    {"sms_prompt", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, sms_prompt),
     "Enter the code sent to {hint}: "},
    {"choose_prompt", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, choose_prompt),
     "Second factor: {list}. Type its number, or a code: "},
    {"backoff_message", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, backoff_message),
     "Too many failed attempts: wait a few minutes, then try again."},
    {"recovery_message", FR_CONF_OFFSET(PW_TYPE_STRING | PW_TYPE_NOT_EMPTY, rlm_mfa_t, recovery_message),
     "Signed in with a recovery code: {remaining} left."},
    CONF_PARSER_TERMINATOR};

/* ---- the audit callback -------------------------------------------------------------- */

static __thread REQUEST *audit_request;

void rlm_mfa_audit_request(REQUEST *request) { audit_request = request; }

void rlm_mfa_audit(void *context, const mfa_audit_event *event) {
    rlm_mfa_t const *inst = context;
    REQUEST *request = audit_request;
    /* Names, ids and status names only: libmfa puts no secret, code or token in an event. */
#define AUDIT_FORMAT "audit %s user \"%s\"%s%s factor %s%s%s: %s"
#define AUDIT_ARGUMENTS                                                                                              \
    event->kind_name, event->uid, *event->tenant ? " tenant " : "", event->tenant,                                  \
        *event->factor_id ? event->factor_id : "-", *event->enrollment_id ? " " : "", event->enrollment_id, event->detail
    if (request)
        radlog_request(L_AUTH, L_DBG_LVL_OFF, request, AUDIT_FORMAT, AUDIT_ARGUMENTS);
    else
        radlog(L_AUTH, "rlm_mfa (%s): " AUDIT_FORMAT, inst->name, AUDIT_ARGUMENTS);
#undef AUDIT_FORMAT
#undef AUDIT_ARGUMENTS
}

/* ---- the libmfa context -------------------------------------------------------------- */

/* libmfa's app check of an SMS sign-in: the NAS's shared secret and the password stand for it. */
static int nas_verifier(void *context, const char *credential, int32_t action) {
    (void)context;
    return action == MFA_APP_ACTION_SIGN_IN && credential && strcmp(credential, "radius") == 0 ? 0 : 1;
}

/* libmfa's SMS sender with sms_program: the operator's gateway program (sms_program.h). */
static int sms_send(void *context, const char *phone_number, const char *message) {
    rlm_mfa_t const *inst = context;
    char why[512];
    if (mfa_radius_sms_program(inst->sms_program, phone_number, message, (int)inst->sms_timeout, why, sizeof why) == 0)
        return 0;
    REQUEST *request = audit_request;
    if (request)
        MFA_ERROR("%s", why);
    else
        ERROR("rlm_mfa (%s): %s", inst->name, why);
    return 1;
}

int rlm_mfa_open(rlm_mfa_t *inst, char *why, size_t why_size, bool *unreachable) {
    mfa_options o = MFA_OPTIONS_INIT;
    o.store = inst->store_location;
    if (inst->hsm_module) {
        o.hsm_module = inst->hsm_module;
        o.hsm_token = inst->hsm_token;
        o.hsm_slot = inst->hsm_slot_id;
        o.hsm_key = inst->hsm_key;
        o.hsm_pin_file = inst->hsm_pin_file;
    } else {
        o.master_key = inst->keys.keys[0];
        o.previous_keys = inst->keys.count > 1 ? &inst->keys.keys[1] : NULL;
        o.previous_key_count = inst->keys.count - 1;
    }
    o.audit = rlm_mfa_audit;
    o.audit_context = inst;
    o.sms_outbox = inst->sms_outbox;
    if (inst->sms_program) {
        o.sms_sender = sms_send;
        o.sms_sender_context = inst;
    }
    o.app_verifier = nas_verifier;
    char *err = NULL;
    mfa_ctx *ctx = NULL;
    bool postgres = strncmp(inst->store_location, "postgres", 8) == 0;
    /* A new SQLite file (and its -wal and -shm files, which take its mode) is the server user's alone. Only an
     * SQLite store is opened at start, with one thread: the process's umask may change for it. */
    mode_t saved = postgres ? 0 : umask(077);
    int32_t status = mfa_open(&ctx, &o, &err);
    if (!postgres) umask(saved);
    /* A PostgreSQL server may be down for a while; an SQLite file that does not open is the set-up's fault. */
    *unreachable = status == MFA_ERR_STORAGE_ERROR && postgres;
    if (status != MFA_OK) {
        snprintf(why, why_size, "cannot open the store: %s: %s", mfa_status_name(status), err ? err : mfa_errstr(status));
        mfa_free(err);
        return -1;
    }
    __atomic_store_n(&inst->ctx, ctx, __ATOMIC_RELEASE);
    return 0;
}

mfa_ctx *rlm_mfa_context(rlm_mfa_t *inst, REQUEST *request) {
    mfa_ctx *ctx = __atomic_load_n(&inst->ctx, __ATOMIC_ACQUIRE);
    if (ctx) return ctx;
    /* One thread tries to reach the store; the others answer at once rather than queue behind it. */
    if (pthread_mutex_trylock(&inst->open_lock) != 0) {
        MFA_ERROR("the store is unreachable (another request is trying to open it)");
        return NULL;
    }
    char why[512];
    bool unreachable;
    if (!inst->ctx && rlm_mfa_open(inst, why, sizeof why, &unreachable) != 0) MFA_ERROR("%s", why);
    ctx = inst->ctx;
    pthread_mutex_unlock(&inst->open_lock);
    return ctx;
}

/* ---- instantiate and detach ---------------------------------------------------------- */

/* A PostgreSQL URL with libmfa's deadline added unless it names one; an SQLite path as it is. */
static char *store_location(rlm_mfa_t const *inst) {
    bool postgres = strncmp(inst->store, "postgres://", 11) == 0 || strncmp(inst->store, "postgresql://", 13) == 0;
    if (!postgres || strstr(inst->store, "mfa_deadline_ms=")) return talloc_strdup(inst, inst->store);
    return talloc_asprintf(inst, "%s%cmfa_deadline_ms=%u", inst->store, strchr(inst->store, '?') ? '&' : '?',
                           inst->deadline);
}

static int check_range(CONF_SECTION *conf, char const *name, uint32_t value, uint32_t low, uint32_t high) {
    if (value >= low && value <= high) return 0;
    cf_log_err_cs(conf, "%s = %u is out of range (%u to %u)", name, value, low, high);
    return -1;
}

/* Empty strings of the optional options are "not given". */
static char const *given(char const *value) { return value && *value ? value : NULL; }

/*
 * The key: key_file, or hsm_module with hsm_key, hsm_pin_file and one of
 * hsm_token or hsm_slot (a decimal slot id). The PIN file is read by
 * libmfa with the server user's rights: others may not read or write it.
 */
static int check_key_options(CONF_SECTION *conf, rlm_mfa_t *inst) {
    inst->key_file = given(inst->key_file);
    inst->hsm_module = given(inst->hsm_module);
    inst->hsm_token = given(inst->hsm_token);
    inst->hsm_slot = given(inst->hsm_slot);
    inst->hsm_key = given(inst->hsm_key);
    inst->hsm_pin_file = given(inst->hsm_pin_file);
    inst->hsm_slot_id = -1;
    if (!inst->hsm_module) {
        if (inst->hsm_token || inst->hsm_slot || inst->hsm_key || inst->hsm_pin_file) {
            cf_log_err_cs(conf, "hsm_token, hsm_slot, hsm_key and hsm_pin_file need hsm_module");
            return -1;
        }
        if (!inst->key_file) {
            cf_log_err_cs(conf, "key_file (or hsm_module) is required");
            return -1;
        }
        return 0;
    }
    if (inst->key_file) {
        cf_log_err_cs(conf, "key_file and hsm_module exclude each other: the HSM holds the key");
        return -1;
    }
    if (inst->hsm_module[0] != '/' || (inst->hsm_pin_file && inst->hsm_pin_file[0] != '/')) {
        cf_log_err_cs(conf, "hsm_module and hsm_pin_file are absolute paths");
        return -1;
    }
    if (!inst->hsm_token == !inst->hsm_slot) {
        cf_log_err_cs(conf, "hsm_module needs one of hsm_token or hsm_slot");
        return -1;
    }
    if (!inst->hsm_key || !inst->hsm_pin_file) {
        cf_log_err_cs(conf, "hsm_module needs hsm_key and hsm_pin_file");
        return -1;
    }
    if (inst->hsm_slot) {
        size_t n = strlen(inst->hsm_slot);
        if (n > 18 || strspn(inst->hsm_slot, "0123456789") != n) {
            cf_log_err_cs(conf, "hsm_slot is a decimal slot id");
            return -1;
        }
        inst->hsm_slot_id = 0;
        for (size_t i = 0; i < n; i++) inst->hsm_slot_id = inst->hsm_slot_id * 10 + (inst->hsm_slot[i] - '0');
    }
    struct stat st;
    if (stat(inst->hsm_pin_file, &st) != 0 || !S_ISREG(st.st_mode)) {
        cf_log_err_cs(conf, "hsm_pin_file %s is not a readable regular file", inst->hsm_pin_file);
        return -1;
    }
    if (st.st_mode & 007) {
        cf_log_err_cs(conf, "hsm_pin_file %s must not be readable or writable by others (mode %04o)",
                      inst->hsm_pin_file, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

static int mod_instantiate(CONF_SECTION *conf, void *instance) {
    rlm_mfa_t *inst = instance;
    inst->name = cf_section_name2(conf);
    if (!inst->name) inst->name = cf_section_name1(conf);
    pthread_mutex_init(&inst->open_lock, NULL);

    if (check_range(conf, "code_length", inst->code_length, MFA_DIGITS_MIN, MFA_DIGITS_MAX) ||
        check_range(conf, "challenge_timeout", inst->challenge_timeout, 10, 600) ||
        check_range(conf, "max_challenges", inst->max_challenges, 1, 1000000) ||
        check_range(conf, "deadline", inst->deadline, 100, 600000) ||
        check_range(conf, "sms_timeout", inst->sms_timeout, 100, 60000))
        return -1;
    if (strcmp(inst->no_factor, "reject") == 0) {
        inst->accept_without_factor = false;
    } else if (strcmp(inst->no_factor, "accept") == 0) {
        inst->accept_without_factor = true;
    } else {
        cf_log_err_cs(conf, "no_factor is \"reject\" or \"accept\", not \"%s\"", inst->no_factor);
        return -1;
    }
    if (inst->tenant && !*inst->tenant) inst->tenant = NULL;
    if (inst->sms_outbox && !*inst->sms_outbox) inst->sms_outbox = NULL;
    if (inst->sms_program && !*inst->sms_program) inst->sms_program = NULL;
    if (inst->sms_program && inst->sms_program[0] != '/') {
        cf_log_err_cs(conf, "sms_program is an absolute path");
        return -1;
    }
    inst->code_da = dict_attrbyname(inst->code_attribute);
    if (!inst->code_da || inst->code_da->type != PW_TYPE_STRING) {
        cf_log_err_cs(conf, "code_attribute \"%s\" is not a string attribute of the dictionary", inst->code_attribute);
        return -1;
    }
    DICT_VALUE const *auth_type = dict_valbyname(PW_AUTH_TYPE, 0, inst->name);
    inst->auth_type = auth_type ? auth_type->value : 0;
    if (!inst->auth_type && !inst->one_field)
        WARN("rlm_mfa (%s): authenticate has no \"Auth-Type %s\" section: replies to its challenges are not handled",
             inst->name, inst->name);

    /* The key file follows pam_mfa's rules (root's, mode 0600): read it with root's rights, which the server keeps
     * for such work, then drop them again. */
    char why[512];
    if (check_key_options(conf, inst) != 0) return -1;
    if (!inst->hsm_module) {
        rad_suid_up();
        int loaded = mfa_pam_keys_load(&inst->keys, inst->key_file, inst->key_id, why, sizeof why);
        rad_suid_down();
        if (loaded != 0) {
            cf_log_err_cs(conf, "%s", why);
            return -1;
        }
    }
    inst->store_location = store_location(inst);
    inst->challenges = mfa_radius_challenges_new(inst->max_challenges);
    if (!inst->store_location || !inst->challenges) {
        cf_log_err_cs(conf, "out of memory");
        return -1;
    }
    bool unreachable = false;
    if (rlm_mfa_open(inst, why, sizeof why, &unreachable) != 0) {
        if (!unreachable) {
            cf_log_err_cs(conf, "%s", why);
            return -1;
        }
        /* A store down at start: the server starts, and each request tries again (and is rejected meanwhile). */
        WARN("rlm_mfa (%s): %s; trying again at each request", inst->name, why);
    }
    INFO("rlm_mfa (%s): libmfa %s, %s store, %s", inst->name, mfa_version_string(),
         strncmp(inst->store_location, "postgres", 8) == 0 ? "PostgreSQL" : "SQLite",
         inst->one_field ? "password and code in one field" : "challenge-response");
    return 0;
}

static int mod_detach(void *instance) {
    rlm_mfa_t *inst = instance;
    mfa_close(inst->ctx);
    inst->ctx = NULL;
    mfa_radius_challenges_free(inst->challenges);
    inst->challenges = NULL;
    mfa_pam_keys_wipe(&inst->keys);
    pthread_mutex_destroy(&inst->open_lock);
    return 0;
}

/* ---- authorize and authenticate ------------------------------------------------------ */

/* The request's State, if rlm_mfa made it (a one-field instance makes none, and takes none). */
static VALUE_PAIR *our_state(rlm_mfa_t const *inst, REQUEST *request) {
    if (inst->one_field) return NULL;
    VALUE_PAIR *vp = fr_pair_find_by_num(request->packet->vps, PW_STATE, 0, TAG_ANY);
    return vp && mfa_radius_is_state(vp->vp_octets, vp->vp_length) ? vp : NULL;
}

/*
 * authorize: a reply to one of our challenges goes to "Auth-Type <name>"
 * (no password check: the State stands for it); with one_field, the code is
 * taken off the end of User-Password before pap sees it.
 */
static rlm_rcode_t CC_HINT(nonnull) mod_authorize(void *instance, REQUEST *request) {
    rlm_mfa_t *inst = instance;
    if (our_state(inst, request)) {
        if (!inst->auth_type) {
            MFA_ERROR("no \"Auth-Type %s\" section in authenticate for the reply to the challenge", inst->name);
            return RLM_MODULE_FAIL;
        }
        VALUE_PAIR *vp = fr_pair_find_by_num(request->config, PW_AUTH_TYPE, 0, TAG_ANY);
        if (!vp) vp = radius_pair_create(request, &request->config, PW_AUTH_TYPE, 0);
        vp->vp_integer = (uint32_t)inst->auth_type;
        RDEBUG2("a reply to a challenge: Auth-Type %s", inst->name);
        return RLM_MODULE_OK;
    }
    if (!inst->one_field) return RLM_MODULE_NOOP;
    rlm_mfa_audit_request(request);
    rlm_rcode_t rcode = rlm_mfa_split(inst, request);
    rlm_mfa_audit_request(NULL);
    return rcode;
}

/* A module's answer as unlang names it (radiusd's own table is not in its libraries). */
static char const *rcode_name(rlm_rcode_t rcode) {
    static char const *const names[] = {"reject", "fail", "ok", "handled", "invalid",
                                        "userlock", "notfound", "noop", "updated"};
    return (unsigned)rcode < sizeof names / sizeof names[0] ? names[rcode] : "unknown";
}

/*
 * authenticate: in "Auth-Type <name>", the reply to a challenge; right after
 * the password module (pap { ok = 1 } then mfa, in the password's Auth-Type),
 * the start of the second factor, which refuses to run unless that module
 * said ok. Only ok, handled (the Access-Challenge) and reject come out: a
 * failure must never let the password's ok stand.
 */
static rlm_rcode_t CC_HINT(nonnull) mod_authenticate(void *instance, REQUEST *request) {
    rlm_mfa_t *inst = instance;
    rlm_rcode_t rcode;
    VALUE_PAIR *state = our_state(inst, request);
    if (!state && request->rcode != RLM_MODULE_OK) {
        MFA_REFUSED("the password was not checked: the module before %s said \"%s\" (see sites-available/mfa)", inst->name,
              rcode_name(request->rcode));
        return RLM_MODULE_REJECT;
    }
    rlm_mfa_audit_request(request);
    if (state)
        rcode = rlm_mfa_answer(inst, request, state);
    else if (inst->one_field)
        rcode = rlm_mfa_one_field(inst, request);
    else
        rcode = rlm_mfa_start(inst, request);
    rlm_mfa_audit_request(NULL);
    return rcode == RLM_MODULE_OK || rcode == RLM_MODULE_HANDLED ? rcode : RLM_MODULE_REJECT;
}

extern module_t rlm_mfa;
module_t rlm_mfa = {
    .magic = RLM_MODULE_INIT,
    .name = "mfa",
    .type = RLM_TYPE_THREAD_SAFE,
    .inst_size = sizeof(rlm_mfa_t),
    .config = module_config,
    .instantiate = mod_instantiate,
    .detach = mod_detach,
    .methods = {[MOD_AUTHENTICATE] = mod_authenticate, [MOD_AUTHORIZE] = mod_authorize},
};
