package mfa

// #include <mfa.h>
import "C"

import (
	"context"
	"fmt"
)

// Session is a MultiFactorSession: the opaque, expiring token, bound to the
// user, that proves a recent first factor and starts an enrollment (hand it
// to a client; a token a client sends back is Session(token)).
type Session string

// Assertion proves a second factor of any kind, to finish an enrollment
// (MultiFactor.Enroll) or a sign-in (Resolver.ResolveSignIn). Kind names the
// kind; the fields that kind reads are set, the others are ignored (the
// constructors TOTPEnrollmentAssertion, PhoneAssertion, ... set them):
//
//	kind                  enroll                       sign in
//	FactorTOTP            SessionInfo, Code            EnrollmentID, Code
//	FactorPhone           VerificationID, Code         VerificationID, Code
//	FactorRecoveryCodes   (generated, not enrolled)    Code, EnrollmentID or ""
//	FactorWebAuthn        Credential                   Credential, EnrollmentID or ""
//
// A kind libmfa adds later is an Assertion with its number and the fields
// it reads.
type Assertion struct {
	// Kind is the factor kind.
	Kind FactorKind
	// EnrollmentID is the factor signed in with.
	EnrollmentID string
	// SessionInfo is the TOTPSecret being enrolled.
	SessionInfo string
	// VerificationID is the id of an SMS code.
	VerificationID string
	// Code is the code from the app, the SMS or a recovery code as typed.
	Code string
	// Credential is a WebAuthn PublicKeyCredential's JSON (credential.toJSON()).
	Credential string
}

// String describes the assertion without its code, session info or credential.
func (a Assertion) String() string {
	return fmt.Sprintf("mfa.Assertion{Kind: %s, EnrollmentID: %q}", a.Kind, a.EnrollmentID)
}

// cAssertion fills an mfa_assertion from a, its strings in args.
func (a Assertion) cAssertion(args *cArgs) (C.mfa_assertion, error) {
	var out C.mfa_assertion
	if err := check(C.mfa_assertion_init(&out, C.MFA_ASSERTION_VERSION), nil); err != nil {
		return out, err
	}
	out.kind = C.int32_t(a.Kind)
	out.enrollment_id = args.optional(a.EnrollmentID, "enrollment id")
	if a.SessionInfo != "" {
		out.session_info = args.secret(a.SessionInfo, "session info")
	}
	if a.VerificationID != "" {
		out.verification_id = args.secret(a.VerificationID, "verification id")
	}
	out.code = args.secret(a.Code, "code")
	if a.Credential != "" {
		out.credential = args.str(a.Credential, "credential")
	}
	return out, args.err
}

// TOTPEnrollmentAssertion finishes enrolling secret with a code from the app.
func TOTPEnrollmentAssertion(secret *TOTPSecret, code string) Assertion {
	return Assertion{Kind: FactorTOTP, SessionInfo: secret.SessionInfo, Code: code}
}

// TOTPSignInAssertion resolves a sign-in with the enrolled TOTP factor
// enrollmentID (a hint's UID) and a code from the app.
func TOTPSignInAssertion(enrollmentID, code string) Assertion {
	return Assertion{Kind: FactorTOTP, EnrollmentID: enrollmentID, Code: code}
}

// PhoneAssertion proves a phone number with the verification id that
// Context.VerifyPhoneNumber (enrollment) or Resolver.VerifyPhoneNumber
// (sign-in) returned and the SMS code the user typed.
func PhoneAssertion(verificationID, code string) Assertion {
	return Assertion{Kind: FactorPhone, VerificationID: verificationID, Code: code}
}

// RecoveryCodeAssertion resolves a sign-in with a recovery code as the user
// typed it (any case; dashes and spaces ignored), of the set enrollmentID
// ("" for the user's set).
func RecoveryCodeAssertion(code, enrollmentID string) Assertion {
	return Assertion{Kind: FactorRecoveryCodes, Code: code, EnrollmentID: enrollmentID}
}

// WebAuthnEnrollmentAssertion enrolls the credential the browser created
// (navigator.credentials.create(), credential.toJSON() as JSON text).
func WebAuthnEnrollmentAssertion(credentialJSON string) Assertion {
	return Assertion{Kind: FactorWebAuthn, Credential: credentialJSON}
}

// WebAuthnSignInAssertion resolves a sign-in with the credential the browser
// returned (navigator.credentials.get()), of the factor enrollmentID ("" for
// whichever of the user's credentials answered).
func WebAuthnSignInAssertion(credentialJSON, enrollmentID string) Assertion {
	return Assertion{Kind: FactorWebAuthn, Credential: credentialJSON, EnrollmentID: enrollmentID}
}

// MultiFactor is one user's second factors: list, enroll, unenroll
// (Firebase's user.multiFactor).
type MultiFactor struct {
	// User is the user, as the host knows them after the first factor.
	User User
	c    *Context
}

// MultiFactor returns the second factors of user.
func (c *Context) MultiFactor(user User) *MultiFactor { return &MultiFactor{User: user, c: c} }

// Session returns a MultiFactorSession that starts an enrollment of any
// kind. Errors: OPERATION_NOT_ALLOWED (MFA or every provider disabled),
// UNSUPPORTED_FIRST_FACTOR, UNVERIFIED_EMAIL, REQUIRES_RECENT_LOGIN,
// SECOND_FACTOR_LIMIT_EXCEEDED, INVALID_ARGUMENT, STORAGE_ERROR.
func (m *MultiFactor) Session(ctx context.Context) (Session, error) {
	var args cArgs
	defer args.free()
	user, err := m.User.cUser(&args)
	if err != nil {
		return "", err
	}
	token, err := m.c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_session_new(h, out, &user, message)
	})
	return Session(token), err
}

// EnrolledFactors returns the user's factors of every kind, oldest first.
func (m *MultiFactor) EnrolledFactors(ctx context.Context) ([]FactorInfo, error) {
	var args cArgs
	defer args.free()
	user, err := m.User.cUser(&args)
	if err != nil {
		return nil, err
	}
	var out *C.mfa_factor_list
	err = m.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_factors_list(h, &out, &user, message)
	})
	defer C.mfa_factor_list_free(out)
	if err != nil {
		return nil, err
	}
	return factorInfos(out.items, out.count), nil
}

// Enroll finishes an enrollment of any kind with assertion and an optional
// display name (at most 256 bytes). The new factor is returned (a phone
// factor with its full number), and the user's earlier credentials and
// libmfa tokens are revoked. Errors: INVALID_VERIFICATION_CODE (the user may
// retry), CODE_EXPIRED, INVALID_SESSION, USER_TOKEN_EXPIRED,
// TENANT_MISMATCH, SECOND_FACTOR_EXISTS, SECOND_FACTOR_LIMIT_EXCEEDED,
// OPERATION_NOT_ALLOWED, INVALID_ARGUMENT, STORAGE_ERROR.
func (m *MultiFactor) Enroll(ctx context.Context, assertion Assertion, displayName string) (*FactorInfo, error) {
	var args cArgs
	defer args.free()
	user, err := m.User.cUser(&args)
	if err != nil {
		return nil, err
	}
	a, err := assertion.cAssertion(&args)
	if err != nil {
		return nil, err
	}
	name := args.optional(displayName, "display name")
	return m.c.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_info, message **C.char) C.int32_t {
		return C.mfa_enroll(h, out, &user, &a, name, message)
	})
}

// Unenroll removes the user's factor enrollmentID and revokes the user's
// earlier credentials. Errors: REQUIRES_RECENT_LOGIN,
// MFA_ENROLLMENT_NOT_FOUND, INVALID_ARGUMENT, STORAGE_ERROR.
func (m *MultiFactor) Unenroll(ctx context.Context, enrollmentID string) error {
	var args cArgs
	defer args.free()
	user, err := m.User.cUser(&args)
	if err != nil {
		return err
	}
	id := args.str(enrollmentID, "enrollment id")
	return m.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_unenroll(h, &user, id, message)
	})
}

// Resolver is what a sign-in of a user with second factors gets
// (MultiFactorResolver): the hints to choose from and the pending credential.
type Resolver struct {
	// Session is the pending credential: opaque, expiring, single-use, bound
	// to the user and tenant. Hand it to the client.
	Session string
	// UID is the user signing in; Tenant the tenant ("" for the project).
	UID    string
	Tenant string
	// Hints are the user's factors of every kind (phone numbers masked).
	Hints []FactorInfo
	c     *Context
}

// String describes the resolver without its pending credential.
func (r *Resolver) String() string {
	return fmt.Sprintf("mfa.Resolver{UID: %q, Tenant: %q, Hints: %d}", r.UID, r.Tenant, len(r.Hints))
}

func (c *Context) resolverOf(out *C.mfa_resolver) *Resolver {
	r := &Resolver{Session: goOptional(out.session), UID: goOptional(out.uid), Tenant: goOptional(out.tenant), c: c}
	r.Hints = factorInfos(out.hints, out.hint_count)
	return r
}

// SignIn reports a successful first factor for user. When no second factor
// is needed (the user has none and MFA is not MANDATORY) it returns a
// SignInResult without a factor. When the user has second factors it
// returns a *SecondFactorRequired error, whose Resolver finishes the
// sign-in. Other errors: ENROLLMENT_REQUIRED (MANDATORY, no factor),
// UNSUPPORTED_FIRST_FACTOR, INVALID_ARGUMENT, STORAGE_ERROR.
func (c *Context) SignIn(ctx context.Context, user User) (*SignInResult, error) {
	var args cArgs
	defer args.free()
	u, err := user.cUser(&args)
	if err != nil {
		return nil, err
	}
	h, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	var out *C.mfa_resolver
	var message *C.char
	status := C.mfa_sign_in(h, &out, &u, &message)
	c.end()
	defer C.mfa_resolver_free(out)
	text := takeMessage(message)
	switch {
	case status == C.MFA_OK:
		return &SignInResult{UID: user.UID, Tenant: user.Tenant, Time: c.now(), Claims: map[string]string{}}, nil
	case status == C.MFA_ERR_SECOND_FACTOR_REQUIRED && out != nil:
		return nil, &SecondFactorRequired{Resolver: c.resolverOf(out), err: newError(status, text)}
	}
	return nil, newError(status, text)
}

// Resolver rebuilds the resolver of a pending credential a client sent back,
// for a request served for tenant ("" for the project). Errors:
// INVALID_SESSION, USER_TOKEN_EXPIRED, TENANT_MISMATCH, INVALID_ARGUMENT,
// STORAGE_ERROR.
func (c *Context) Resolver(ctx context.Context, pendingCredential, tenant string) (*Resolver, error) {
	var args cArgs
	defer args.free()
	p, t := args.secret(pendingCredential, "pending credential"), args.optional(tenant, "tenant")
	var out *C.mfa_resolver
	err := c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_resolver_load(h, &out, p, t, message)
	})
	defer C.mfa_resolver_free(out)
	if err != nil {
		return nil, err
	}
	return c.resolverOf(out), nil
}

// ResolveSignIn finishes the sign-in with a second factor of any kind. The
// result names the factor used, with its claims; the pending credential is
// used up, and so is the TOTP code's time step, the SMS code or the
// recovery code. Errors: INVALID_VERIFICATION_CODE (wrong, malformed or
// replayed), CODE_EXPIRED, INVALID_SESSION, USER_TOKEN_EXPIRED,
// TENANT_MISMATCH, MFA_ENROLLMENT_NOT_FOUND, TOO_MANY_ATTEMPTS_TRY_LATER,
// INVALID_ARGUMENT, CRYPTO, STORAGE_ERROR.
func (r *Resolver) ResolveSignIn(ctx context.Context, assertion Assertion) (*SignInResult, error) {
	var args cArgs
	defer args.free()
	a, err := assertion.cAssertion(&args)
	if err != nil {
		return nil, err
	}
	p, t := args.secret(r.Session, "pending credential"), args.optional(r.Tenant, "tenant")
	var out *C.mfa_sign_in_result
	err = r.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_resolve(h, &out, p, t, &a, message)
	})
	defer C.mfa_sign_in_result_free(out)
	if err != nil {
		return nil, err
	}
	return signInResult(out), nil
}
