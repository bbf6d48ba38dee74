/*
 * The master key file of pam_mfa.so and mfa-enroll (pam/key_file.c,
 * mfa_pam_keys_parse): what an operator writes, in each form.
 *
 * A file that parses gives 1 to MFA_PAM_MAX_KEYS keys with valid, distinct
 * ids, each handed to libmfa as it was read (32 raw bytes are one key under
 * the default id), and writing the keys back as "<id> <hex>" lines parses to
 * the same keys. A file that does not parse leaves nothing behind and gives
 * a reason that holds no run of hex digits from which a key could be read.
 *
 * The parser is not part of libmfa: the module's source is compiled in.
 */
#define _GNU_SOURCE
#include "../pam/key_file.c"

#include <ctype.h>

#include "fuzz_support.h"

#define DEFAULT_ID "pam"

static void check_keys(const mfa_pam_keys *keys) {
    FUZZ_CHECK(keys->count >= 1 && keys->count <= MFA_PAM_MAX_KEYS, "%zu keys", keys->count);
    for (size_t i = 0; i < keys->count; i++) {
        size_t len = strlen(keys->ids[i]);
        FUZZ_CHECK(len >= 1 && len <= MFA_PAM_KEY_ID_MAX, "key %zu has an id of %zu bytes", i, len);
        for (size_t j = 0; j < len; j++)
            FUZZ_CHECK(keys->ids[i][j] > ' ' && keys->ids[i][j] <= '~', "key %zu's id has byte %d", i,
                       keys->ids[i][j]);
        FUZZ_CHECK(keys->keys[i].id == keys->ids[i] && keys->keys[i].key == keys->bytes[i],
                   "key %zu is not handed on as read", i);
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(keys->ids[i], keys->ids[j]) != 0, "id %s twice", keys->ids[i]);
    }
}

static int all_zero(const void *data, size_t size) {
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; i++)
        if (bytes[i]) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static mfa_pam_keys keys, again;
    static char text[MFA_PAM_MAX_KEYS * (MFA_PAM_KEY_ID_MAX + 2 + 2 * MFA_MASTER_KEY_BYTES) + 1];
    char why[200] = "";
    if (mfa_pam_keys_parse(&keys, (const char *)data, size, DEFAULT_ID, why, sizeof why) != 0) {
        FUZZ_CHECK(all_zero(&keys, sizeof keys), "a refused file left keys behind");
        FUZZ_CHECK(why[0], "a refusal without a reason");
        size_t run = 0;
        for (size_t i = 0; why[i]; i++) {
            run = isxdigit((unsigned char)why[i]) ? run + 1 : 0;
            FUZZ_CHECK(run < 16, "the reason holds a run of hex digits: %s", why);
        }
        return 0;
    }
    check_keys(&keys);
    if (size == MFA_MASTER_KEY_BYTES) {
        FUZZ_CHECK(keys.count == 1 && strcmp(keys.ids[0], DEFAULT_ID) == 0 &&
                       memcmp(keys.bytes[0], data, MFA_MASTER_KEY_BYTES) == 0,
                   "32 raw bytes are not one key under the default id");
        return 0;
    }
    size_t used = 0;
    for (size_t i = 0; i < keys.count; i++) {
        used += (size_t)snprintf(text + used, sizeof text - used, "%s ", keys.ids[i]);
        for (size_t j = 0; j < MFA_MASTER_KEY_BYTES; j++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%02x", keys.bytes[i][j]);
        used += (size_t)snprintf(text + used, sizeof text - used, "\n");
    }
    FUZZ_CHECK(mfa_pam_keys_parse(&again, text, used, DEFAULT_ID, why, sizeof why) == 0, "rewritten keys refused: %s",
               why);
    FUZZ_CHECK(again.count == keys.count, "%zu keys became %zu", keys.count, again.count);
    for (size_t i = 0; i < keys.count; i++)
        FUZZ_CHECK(strcmp(again.ids[i], keys.ids[i]) == 0 &&
                       memcmp(again.bytes[i], keys.bytes[i], MFA_MASTER_KEY_BYTES) == 0,
                   "key %zu changed when written back", i);
    mfa_pam_keys_wipe(&keys);
    mfa_pam_keys_wipe(&again);
    return 0;
}
