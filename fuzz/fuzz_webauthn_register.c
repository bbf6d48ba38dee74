/*
 * WebAuthn registration responses through mfa_webauthn_verify_registration():
 * the CBOR of the attestation object (libcbor's decoder, the authenticator
 * data, the COSE key, the attestation statements, X.509 certificates through
 * GnuTLS; the TPM structures, the Android key description and Apple's
 * nonce through libmfa's DER reader), the credential JSON and clientDataJSON.
 *
 * byte 0 (mod 3) says what the rest of the input is:
 *   0: the attestation object, in a credential whose clientDataJSON is genuine
 *      and whose rawId is FUZZ_CREDENTIAL_ID;
 *   1: the whole credential JSON;
 *   2: the clientDataJSON, beside a genuine `none` attestation object.
 * Invariants: the status is one the function documents; on MFA_OK the
 * credential is well formed (an id of 1 to 1023 bytes, and in modes 0 and 2
 * the rawId given; a supported algorithm and format; an attestation kind that
 * fits the format, with certificates when it has a chain; the UP flag) and
 * *out is set; otherwise *out is NULL.
 */
#include "fuzz_webauthn_support.h"

static const char *const ALLOWED = "OK INVALID_ARGUMENT INVALID_SESSION ORIGIN_MISMATCH RP_ID_MISMATCH "
                                   "USER_VERIFICATION_REQUIRED INVALID_VERIFICATION_CODE OUT_OF_MEMORY";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint8_t none_object[256];
    static size_t none_object_len;
    if (!none_object_len) none_object_len = fw_none_attestation(none_object, FW_KEY_X);
    if (size < 1) return 0;
    int mode = data[0] % 3;
    const uint8_t *rest = data + 1;
    size_t rest_len = size - 1;
    char *json;
    if (mode == 1) {
        json = fuzz_string(rest, rest_len);
    } else {
        char client[256];
        int client_len = snprintf(client, sizeof client, FW_CLIENT_DATA, "webauthn.create");
        json = fw_registration_json(FW_CREDENTIAL_ID, sizeof FW_CREDENTIAL_ID,
                                    mode == 2 ? rest : (const uint8_t *)client,
                                    mode == 2 ? rest_len : (size_t)client_len,
                                    mode == 0 ? rest : none_object, mode == 0 ? rest_len : none_object_len);
    }
    mfa_webauthn_credential *out = (mfa_webauthn_credential *)1;
    int status = mfa_webauthn_verify_registration(&out, json, FW_CHALLENGE, "example.com", "https://example.com",
                                                  0, NULL);
    FUZZ_CHECK(fw_status_in(status, ALLOWED), "unexpected status %s", mfa_status_name(status));
    if (status != MFA_OK) {
        FUZZ_CHECK(out == NULL, "*out is set on failure");
    } else {
        FUZZ_CHECK(out != NULL, "*out is NULL on success");
        FUZZ_CHECK(out->credential_id_len >= 1 && out->credential_id_len <= 1023, "credential id length");
        if (mode != 1) {
            FUZZ_CHECK(out->credential_id_len == sizeof FW_CREDENTIAL_ID &&
                           memcmp(out->credential_id, FW_CREDENTIAL_ID, sizeof FW_CREDENTIAL_ID) == 0,
                       "the credential id is not the rawId given");
        }
        FUZZ_CHECK(out->algorithm == MFA_COSE_ES256 || out->algorithm == MFA_COSE_EDDSA ||
                       out->algorithm == MFA_COSE_RS256 || out->algorithm == MFA_COSE_ES384 ||
                       out->algorithm == MFA_COSE_ES512 || out->algorithm == MFA_COSE_PS256,
                   "algorithm %d", (int)out->algorithm);
        FUZZ_CHECK(out->public_key_len > 0 && (out->flags & MFA_WEBAUTHN_FLAG_UP), "key or UP flag");
        int none = strcmp(out->format, "none") == 0;
        const char *kind = out->attestation_kind;
        FUZZ_CHECK(none || !strcmp(out->format, "packed") || !strcmp(out->format, "fido-u2f") ||
                       !strcmp(out->format, "tpm") || !strcmp(out->format, "android-key") || !strcmp(out->format, "apple"),
                   "format %s", out->format);
        FUZZ_CHECK(none == (strcmp(kind, "none") == 0), "kind %s for %s", kind, out->format);
        FUZZ_CHECK(strcmp(out->format, "tpm") != 0 || strcmp(kind, "attca") == 0, "kind %s for tpm", kind);
        FUZZ_CHECK(strcmp(out->format, "apple") != 0 || strcmp(kind, "anonca") == 0, "kind %s for apple", kind);
        FUZZ_CHECK((strcmp(kind, "basic") != 0 && strcmp(kind, "attca") != 0 && strcmp(kind, "anonca") != 0) ||
                       out->certificate_count >= 1,
                   "an attestation with a chain but no certificates");
        mfa_free(out);
    }
    free(json);
    return 0;
}
