/*
 * GnuTLS's X.509 types for libmfa, without linking GnuTLS: libmfa loads
 * libgnutls.so.30 with dlopen the first time a WebAuthn attestation carries
 * a certificate (Factors/WebAuthn/Attestation/GnuTLS.swift), and calls it
 * through the function pointer types below, taken from GnuTLS's own headers
 * so that they cannot drift from them.
 */
#ifndef MFA_CGNUTLS_SHIM_H
#define MFA_CGNUTLS_SHIM_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#define MFA_GNUTLS_FN(name) typedef __typeof__(name) *mfa_##name##_fn;
MFA_GNUTLS_FN(gnutls_x509_crt_init)
MFA_GNUTLS_FN(gnutls_x509_crt_deinit)
MFA_GNUTLS_FN(gnutls_x509_crt_import)
MFA_GNUTLS_FN(gnutls_x509_crt_get_version)
MFA_GNUTLS_FN(gnutls_x509_crt_get_pk_algorithm)
MFA_GNUTLS_FN(gnutls_x509_crt_get_pk_ecc_raw)
MFA_GNUTLS_FN(gnutls_x509_crt_get_pk_rsa_raw)
MFA_GNUTLS_FN(gnutls_x509_crt_get_dn_by_oid)
MFA_GNUTLS_FN(gnutls_x509_crt_get_basic_constraints)
MFA_GNUTLS_FN(gnutls_x509_crt_get_extension_by_oid)
MFA_GNUTLS_FN(gnutls_x509_crt_get_activation_time)
MFA_GNUTLS_FN(gnutls_x509_crt_get_expiration_time)
MFA_GNUTLS_FN(gnutls_x509_trust_list_init)
MFA_GNUTLS_FN(gnutls_x509_trust_list_deinit)
MFA_GNUTLS_FN(gnutls_x509_trust_list_add_trust_mem)
MFA_GNUTLS_FN(gnutls_x509_trust_list_verify_crt2)
#undef MFA_GNUTLS_FN

#endif
