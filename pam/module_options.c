/* module_options.c: the options of pam_mfa.so (see module_options.h). */
#include "module_options.h"

#include "code_input.h"
#include "mfa_types.h"

#include <stdio.h>
#include <string.h>

void mfa_pam_options_init(mfa_pam_options *options) {
    memset(options, 0, sizeof *options);
    options->store = MFA_PAM_DEFAULT_STORE;
    options->key_file = MFA_PAM_DEFAULT_KEY_FILE;
    options->key_id = MFA_PAM_DEFAULT_KEY_ID;
    options->digits = MFA_PAM_FORWARD_DIGITS;
    options->hsm_slot = -1;
}

/* The value of `word` if it is `name=value`, else NULL. */
static const char *value_of(const char *word, const char *name) {
    size_t n = strlen(name);
    return strncmp(word, name, n) == 0 && word[n] == '=' ? word + n + 1 : NULL;
}

int mfa_pam_store_is_postgres(const char *store) {
    return strncmp(store, "postgres://", 11) == 0 || strncmp(store, "postgresql://", 13) == 0;
}

int mfa_pam_options_check(const mfa_pam_options *options, char *why, size_t why_size) {
    if (!options->hsm_module) {
        if (options->hsm_token || options->hsm_slot >= 0 || options->hsm_key || options->hsm_pin_file) {
            snprintf(why, why_size, "hsm_token=, hsm_slot=, hsm_key= and hsm_pin_file= need hsm_module=");
            return -1;
        }
        return 0;
    }
    if (options->key_file_given) {
        snprintf(why, why_size, "key_file= and hsm_module= exclude each other: the HSM holds the key");
        return -1;
    }
    if (!options->hsm_token == (options->hsm_slot < 0)) {
        snprintf(why, why_size, "hsm_module= needs one of hsm_token= or hsm_slot=");
        return -1;
    }
    if (!options->hsm_key || !options->hsm_pin_file) {
        snprintf(why, why_size, "hsm_module= needs hsm_key= and hsm_pin_file=");
        return -1;
    }
    return 0;
}

int mfa_pam_option(mfa_pam_options *options, const char *word, int store_only, char *why, size_t why_size) {
    static const char *const flags[] = {"nullok", "forward_pass", "echo_code", "debug", "defer_code",
                                        "use_deferred_code"};
    int *const targets[] = {&options->nullok,     &options->forward_pass, &options->echo_code,
                            &options->debug,      &options->defer_code,   &options->use_deferred_code};
    const char *value;
    if (!word) return -1;
    if ((value = value_of(word, "store"))) {
        if (!*value) goto empty;
        if (!mfa_pam_store_is_postgres(value) && value[0] != '/') {
            snprintf(why, why_size, "store= is an absolute file path or a postgres:// URL");
            return -1;
        }
        options->store = value;
        return 0;
    }
    if ((value = value_of(word, "key_file"))) {
        if (value[0] != '/') {
            snprintf(why, why_size, "key_file= is an absolute file path");
            return -1;
        }
        options->key_file = value;
        options->key_file_given = 1;
        return 0;
    }
    if ((value = value_of(word, "hsm_module")) || (value = value_of(word, "hsm_pin_file"))) {
        int module = word[4] == 'm';
        if (value[0] != '/') {
            snprintf(why, why_size, "%s= is an absolute file path", module ? "hsm_module" : "hsm_pin_file");
            return -1;
        }
        *(module ? &options->hsm_module : &options->hsm_pin_file) = value;
        return 0;
    }
    if ((value = value_of(word, "hsm_token")) || (value = value_of(word, "hsm_key"))) {
        if (!*value) goto empty;
        if (strlen(value) > 255) {
            snprintf(why, why_size, "%.9s= is at most 255 bytes", word);
            return -1;
        }
        *(word[4] == 't' ? &options->hsm_token : &options->hsm_key) = value;
        return 0;
    }
    if ((value = value_of(word, "hsm_slot"))) {
        /* A decimal slot id: "", "-1", "0x1" or "1 " are mistakes. */
        long long slot = 0;
        size_t n = strlen(value);
        if (n == 0 || n > 18 || strspn(value, "0123456789") != n) {
            snprintf(why, why_size, "hsm_slot= is a decimal slot id");
            return -1;
        }
        for (size_t i = 0; i < n; i++) slot = slot * 10 + (value[i] - '0');
        options->hsm_slot = slot;
        return 0;
    }
    if ((value = value_of(word, "key_id"))) {
        if (!*value) goto empty;
        options->key_id = value;
        return 0;
    }
    if ((value = value_of(word, "tenant"))) {
        if (strlen(value) > 128) {
            snprintf(why, why_size, "tenant= is at most 128 bytes");
            return -1;
        }
        options->tenant = *value ? value : NULL;
        return 0;
    }
    if (!store_only) {
        if ((value = value_of(word, "prompt"))) {
            if (!*value) goto empty;
            options->prompt = value;
            return 0;
        }
        if ((value = value_of(word, "digits"))) {
            /* One digit, of libmfa's code lengths: "06", "+8" or "8x" are mistakes, not 6 and 8. */
            if (value[0] < '0' + MFA_DIGITS_MIN || value[0] > '0' + MFA_DIGITS_MAX || value[1]) {
                snprintf(why, why_size, "digits= is %d to %d", MFA_DIGITS_MIN, MFA_DIGITS_MAX);
                return -1;
            }
            options->digits = value[0] - '0';
            return 0;
        }
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (strcmp(word, flags[i]) == 0) {
                *targets[i] = 1;
                return 0;
            }
    }
    snprintf(why, why_size, "unknown option \"%.64s\"", word);
    return -1;
empty:
    snprintf(why, why_size, "option \"%.64s\" needs a value", word);
    return -1;
}
