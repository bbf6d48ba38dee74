/*
 * lib.h: libmfa's C functions as the addon reaches them, through a table of
 * function pointers filled by dlopen()/dlsym() (lib.c), so that the library
 * can be chosen when the addon loads (LIBMFA_LIBRARY, the path found at build
 * time, or the system's search path) rather than when it is built.
 *
 * Each pointer has the type of the declaration in mfa.h (__typeof__), so the
 * compiler checks every call against the header. A function the loaded
 * library lacks (an older libmfa) stays NULL: mfa_node_require() turns a
 * call of it into an error that names it.
 */
#ifndef MFA_NODE_LIB_H
#define MFA_NODE_LIB_H

#include "mfa.h"

/* Every libmfa function the addon calls. */
#define MFA_NODE_FUNCTIONS(X)                                                                                   \
    X(mfa_version) X(mfa_version_string) X(mfa_errstr) X(mfa_status_name) X(mfa_free)                           \
    X(mfa_random_secret) X(mfa_totp_params_init) X(mfa_hotp_generate) X(mfa_hotp_verify)                         \
    X(mfa_totp_generate) X(mfa_totp_verify)                                                                     \
    X(mfa_base32_encode) X(mfa_base32_decode) X(mfa_key_uri_init) X(mfa_key_uri_build) X(mfa_key_uri_parse)     \
    X(mfa_key_uri_free) X(mfa_qr_encode)                                                                        \
    X(mfa_options_init) X(mfa_open) X(mfa_close) X(mfa_config_set_json) X(mfa_config_update_json)               \
    X(mfa_config_get_json) X(mfa_rotate_keys) X(mfa_purge_expired)                                              \
    X(mfa_user_init) X(mfa_session_new) X(mfa_assertion_init) X(mfa_enroll) X(mfa_factors_list)                 \
    X(mfa_factor_list_free) X(mfa_factor_info_free) X(mfa_unenroll)                                             \
    X(mfa_sign_in) X(mfa_resolver_load) X(mfa_resolve) X(mfa_resolver_free) X(mfa_sign_in_result_free)          \
    X(mfa_token_check) X(mfa_token_check_ms) X(mfa_revoke_tokens) X(mfa_step_up_check)                          \
    X(mfa_totp_generate_secret) X(mfa_totp_secret_free) X(mfa_totp_secret_uri) X(mfa_totp_import)               \
    X(mfa_totp_import_uri)                                                                                      \
    X(mfa_phone_start_enrollment) X(mfa_phone_start_sign_in)                                                    \
    X(mfa_recovery_codes_generate) X(mfa_recovery_codes_free)                                                   \
    X(mfa_webauthn_registration_options) X(mfa_webauthn_authentication_options)                                 \
    X(mfa_webauthn_verify_registration) X(mfa_webauthn_verify_assertion)                                        \
    X(mfa_admin_list_users) X(mfa_admin_user_page_free) X(mfa_admin_user_factors) X(mfa_admin_factor_get)       \
    X(mfa_admin_factor_free) X(mfa_admin_unenroll) X(mfa_admin_rename) X(mfa_admin_reset_user)                  \
    X(mfa_admin_delete_user) X(mfa_admin_stats_get) X(mfa_admin_stats_free)                                     \
    X(mfa_import_options_init) X(mfa_import) X(mfa_import_google_authenticator) X(mfa_rotate_keys_batched)      \
    X(mfa_check_seals) X(mfa_seal_check_free) X(mfa_metrics_prometheus)

/* The table: one pointer per function, typed as mfa.h declares it. */
typedef struct mfa_node_lib {
#define MFA_NODE_POINTER(name) __typeof__(&name) name;
    MFA_NODE_FUNCTIONS(MFA_NODE_POINTER)
#undef MFA_NODE_POINTER
} mfa_node_lib;

/* The loaded library's functions (all NULL until mfa_node_lib_load() succeeds). */
extern mfa_node_lib L;

/*
 * Loads libmfa once per process: `path` if not NULL, else the environment's
 * LIBMFA_LIBRARY (read with secure_getenv), else the path found at build
 * time (MFA_NODE_DEFAULT_LIBRARY), else "libmfa.so.0" on the search path.
 * Returns 0, or -1 with a message in `error` (`size` bytes). Thread-safe;
 * later calls return what the first one did.
 */
int mfa_node_lib_load(const char *path, char *error, size_t size);

/* The path (or name) the library was loaded from, or NULL. */
const char *mfa_node_lib_path(void);

/* Names, NULL-terminated, of the table's functions the loaded library lacks. */
const char *const *mfa_node_lib_missing(void);

#endif /* MFA_NODE_LIB_H */
