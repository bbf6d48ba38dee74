package mfa

// #include <mfa.h>
import "C"

import (
	"context"
	"encoding/json"
	"unsafe"
)

// The WebAuthn authenticator data flags.
const (
	// WebAuthnFlagUP: the user was present.
	WebAuthnFlagUP = C.MFA_WEBAUTHN_FLAG_UP
	// WebAuthnFlagUV: the user was verified (PIN, biometrics).
	WebAuthnFlagUV = C.MFA_WEBAUTHN_FLAG_UV
	// WebAuthnFlagBE: the credential may be backed up (a synced passkey).
	WebAuthnFlagBE = C.MFA_WEBAUTHN_FLAG_BE
	// WebAuthnFlagBS: the credential is backed up.
	WebAuthnFlagBS = C.MFA_WEBAUTHN_FLAG_BS
)

// WebAuthnRegistrationOptions returns the PublicKeyCredentialCreationOptions
// (JSON) for registering a security key or passkey for the user of session:
// hand it to navigator.credentials.create({publicKey:
// PublicKeyCredential.parseCreationOptionsFromJSON(options)}), then enroll
// the answer with WebAuthnEnrollmentAssertion. userName is the account name
// the authenticator shows (1 to 256 bytes); userDisplayName "" is userName.
// Errors: OPERATION_NOT_ALLOWED (WebAuthn disabled or no webauthn.rpId),
// INVALID_SESSION, USER_TOKEN_EXPIRED, SECOND_FACTOR_LIMIT_EXCEEDED,
// INVALID_ARGUMENT, STORAGE_ERROR.
func (c *Context) WebAuthnRegistrationOptions(ctx context.Context, session Session, userName,
	userDisplayName string) (json.RawMessage, error) {
	var args cArgs
	defer args.free()
	s := args.secret(string(session), "session")
	name, display := args.str(userName, "user name"), args.optional(userDisplayName, "user display name")
	text, err := c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_webauthn_registration_options(h, out, s, name, display, message)
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(text), nil
}

// WebAuthnAuthenticationOptions returns the PublicKeyCredentialRequestOptions
// (JSON) for this sign-in: hand it to navigator.credentials.get({publicKey:
// PublicKeyCredential.parseRequestOptionsFromJSON(options)}), then resolve
// with WebAuthnSignInAssertion. enrollmentID is the hint the user chose, or
// "" for every WebAuthn credential of the user. Errors: INVALID_SESSION,
// USER_TOKEN_EXPIRED, TENANT_MISMATCH, MFA_ENROLLMENT_NOT_FOUND,
// OPERATION_NOT_ALLOWED (no webauthn.rpId), INVALID_ARGUMENT, STORAGE_ERROR.
func (r *Resolver) WebAuthnAuthenticationOptions(ctx context.Context, enrollmentID string) (json.RawMessage, error) {
	var args cArgs
	defer args.free()
	p, t := args.secret(r.Session, "pending credential"), args.optional(r.Tenant, "tenant")
	id := args.optional(enrollmentID, "enrollment id")
	text, err := r.c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_webauthn_authentication_options(h, out, p, t, id, message)
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(text), nil
}

// WebAuthnAttestation is a registration's attestation, as an
// Options.WebAuthnTrust callback sees it (after its signature checked out).
type WebAuthnAttestation struct {
	// Format is "none", "packed" or "fido-u2f".
	Format string
	// Kind is "none", "self" or "basic" (a certificate chain).
	Kind string
	// AAGUID is the authenticator model's AAGUID (16 bytes).
	AAGUID []byte
	// Certificates is the chain, leaf first, DER.
	Certificates [][]byte
	// ChainTrusted says whether the chain leads to a configured webauthn.attestationRoots entry.
	ChainTrusted bool
	// Tenant is the tenant ("" for the project); UID the user enrolling.
	Tenant string
	UID    string
}

func certificates(list **C.uint8_t, lengths *C.size_t, n C.size_t) [][]byte {
	out := make([][]byte, 0, int(n))
	if n == 0 {
		return out
	}
	sizes := unsafe.Slice(lengths, int(n))
	for i, cert := range unsafe.Slice(list, int(n)) {
		out = append(out, goBytes(unsafe.Pointer(cert), sizes[i]))
	}
	return out
}

func webAuthnAttestation(c *C.mfa_webauthn_attestation) WebAuthnAttestation {
	return WebAuthnAttestation{
		Format:       goOptional(c.format),
		Kind:         goOptional(c.kind),
		AAGUID:       goBytes(unsafe.Pointer(c.aaguid), 16),
		Certificates: certificates(c.certificates, c.certificate_lengths, c.certificate_count),
		ChainTrusted: c.chain_trusted != 0,
		Tenant:       goOptional(c.tenant),
		UID:          goOptional(c.uid),
	}
}

// WebAuthnCredential is a registration verified by VerifyWebAuthnRegistration.
type WebAuthnCredential struct {
	// CredentialID is the credential id.
	CredentialID []byte
	// PublicKey is the COSE public key: keep it for VerifyWebAuthnAssertion.
	PublicKey []byte
	// Algorithm is its COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
	Algorithm int
	// SignCount is the signature counter at registration.
	SignCount uint32
	// Flags are the authenticator data flags (WebAuthnFlagUP, ...).
	Flags uint32
	// AAGUID is the authenticator model's AAGUID (16 bytes).
	AAGUID []byte
	// Format is "none", "packed" or "fido-u2f"; AttestationKind "none",
	// "self" or "basic".
	Format          string
	AttestationKind string
	// Certificates is the attestation chain, leaf first, DER (not judged here).
	Certificates [][]byte
}

// VerifyWebAuthnRegistration verifies a registration response against the
// host's own challenge, without libmfa's state (for hosts that keep their
// own credentials): credentialJSON is credential.toJSON() of
// navigator.credentials.create(), challenge the base64url challenge the
// host's options carried. Errors: INVALID_ARGUMENT (malformed),
// INVALID_SESSION (another challenge), ORIGIN_MISMATCH, RP_ID_MISMATCH,
// USER_VERIFICATION_REQUIRED, INVALID_VERIFICATION_CODE (a statement that
// does not verify), CRYPTO.
func VerifyWebAuthnRegistration(credentialJSON, challenge, rpID, origin string,
	requireUserVerification bool) (*WebAuthnCredential, error) {
	var args cArgs
	defer args.free()
	cred, ch := args.str(credentialJSON, "credential"), args.str(challenge, "challenge")
	rp, o := args.str(rpID, "rp id"), args.str(origin, "origin")
	if args.err != nil {
		return nil, args.err
	}
	var out *C.mfa_webauthn_credential
	var message *C.char
	status := C.mfa_webauthn_verify_registration(&out, cred, ch, rp, o, cBool(requireUserVerification), &message)
	defer C.mfa_free(unsafe.Pointer(out))
	if err := check(status, message); err != nil {
		return nil, err
	}
	return &WebAuthnCredential{
		CredentialID:    goBytes(unsafe.Pointer(out.credential_id), out.credential_id_len),
		PublicKey:       goBytes(unsafe.Pointer(out.public_key), out.public_key_len),
		Algorithm:       int(out.algorithm),
		SignCount:       uint32(out.sign_count),
		Flags:           uint32(out.flags),
		AAGUID:          goBytes(unsafe.Pointer(out.aaguid), 16),
		Format:          goOptional(out.format),
		AttestationKind: goOptional(out.attestation_kind),
		Certificates:    certificates(out.certificates, out.certificate_lengths, out.certificate_count),
	}, nil
}

// VerifyWebAuthnAssertion verifies an assertion response (of
// navigator.credentials.get()) with the credential's stored COSE public key,
// without libmfa's state, and returns the signature counter (check that it
// went up, unless it was and stays 0) and the flags. A wrong signature is
// INVALID_VERIFICATION_CODE; the other errors are those of
// VerifyWebAuthnRegistration.
func VerifyWebAuthnAssertion(credentialJSON, challenge, rpID, origin string, requireUserVerification bool,
	publicKey []byte) (signCount uint32, flags uint32, err error) {
	var args cArgs
	defer args.free()
	cred, ch := args.str(credentialJSON, "credential"), args.str(challenge, "challenge")
	rp, o := args.str(rpID, "rp id"), args.str(origin, "origin")
	key := args.bytes(publicKey, false)
	if args.err != nil {
		return 0, 0, args.err
	}
	var count, bits C.uint32_t
	var message *C.char
	status := C.mfa_webauthn_verify_assertion(&count, &bits, cred, ch, rp, o, cBool(requireUserVerification), key,
		C.size_t(len(publicKey)), &message)
	if err := check(status, message); err != nil {
		return 0, 0, err
	}
	return uint32(count), uint32(bits), nil
}

func cBool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}
