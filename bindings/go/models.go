package mfa

// #include <mfa.h>
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// FactorKind is the kind of a second factor (MFA_FACTOR_* in mfa_types.h).
// A kind this package does not name yet still arrives as its number.
type FactorKind int32

// The kinds of second factor.
const (
	// FactorTOTP is an authenticator app (factor id "totp").
	FactorTOTP FactorKind = C.MFA_FACTOR_TOTP
	// FactorPhone is SMS codes to a phone number (factor id "phone").
	FactorPhone FactorKind = C.MFA_FACTOR_PHONE
	// FactorRecoveryCodes is a set of single-use recovery codes (factor id "recovery").
	FactorRecoveryCodes FactorKind = C.MFA_FACTOR_RECOVERY_CODES
	// FactorWebAuthn is a security key or a passkey (factor id "webauthn").
	FactorWebAuthn FactorKind = C.MFA_FACTOR_WEBAUTHN
	// FactorEmail is codes sent to an email address (factor id "email").
	FactorEmail FactorKind = C.MFA_FACTOR_EMAIL
	// FactorHOTP is an HOTP hardware token (factor id "hotp").
	FactorHOTP FactorKind = C.MFA_FACTOR_HOTP
	// FactorYubicoOTP is a YubiKey typing Yubico OTPs (factor id "yubico_otp").
	FactorYubicoOTP FactorKind = C.MFA_FACTOR_YUBICO_OTP
)

// The factor ids of the kinds, as in MultiFactorInfo.factorId.
const (
	TOTPFactorID          = "totp"
	PhoneFactorID         = "phone"
	RecoveryCodesFactorID = "recovery"
	WebAuthnFactorID      = "webauthn"
	EmailFactorID         = "email"
	HOTPFactorID          = "hotp"
	YubicoOTPFactorID     = "yubico_otp"
)

// String returns the kind's factor id ("totp"), or "FactorKind(n)".
func (k FactorKind) String() string {
	switch k {
	case FactorTOTP:
		return TOTPFactorID
	case FactorPhone:
		return PhoneFactorID
	case FactorRecoveryCodes:
		return RecoveryCodesFactorID
	case FactorWebAuthn:
		return WebAuthnFactorID
	case FactorEmail:
		return EmailFactorID
	case FactorHOTP:
		return HOTPFactorID
	case FactorYubicoOTP:
		return YubicoOTPFactorID
	}
	return fmt.Sprintf("FactorKind(%d)", int32(k))
}

// User is a user as the host knows them after the first factor (mfa_user):
// libmfa keeps no accounts, the host says who signed in, how and when.
type User struct {
	// UID is the user's id, 1 to 128 bytes without a control character.
	UID string
	// Tenant is the tenant, or "" for the project; 1 to 128 bytes without a
	// control character, as a uid.
	Tenant string
	// Email is the email address, or "".
	Email string
	// EmailVerified says whether the host verified Email (enrolling needs it).
	EmailVerified bool
	// Provider is the first factor's provider id: "password" (for ""),
	// "emailLink", "google.com", ...; "phone", "anonymous", "custom" and
	// "gc.apple.com" cannot carry a second factor.
	Provider string
	// AuthTime is when the user passed the first factor (the recent-login
	// checks read it, to the second).
	AuthTime time.Time
}

// cUser fills an mfa_user from u, its strings copied into args.
func (u User) cUser(args *cArgs) (C.mfa_user, error) {
	var out C.mfa_user
	if err := check(C.mfa_user_init(&out, C.MFA_USER_VERSION), nil); err != nil {
		return out, err
	}
	out.uid = args.str(u.UID, "uid")
	out.tenant = args.optional(u.Tenant, "tenant")
	out.email = args.optional(u.Email, "email")
	if u.EmailVerified {
		out.email_verified = 1
	}
	if u.Provider != "" {
		out.provider = args.str(u.Provider, "provider")
	}
	out.auth_time = C.int64_t(u.AuthTime.Unix())
	return out, args.err
}

// FactorInfo is one enrolled second factor, of any kind, as listed and as
// shown in sign-in hints (MultiFactorInfo).
type FactorInfo struct {
	// UID is the enrollment id (28 URL-safe characters).
	UID string
	// FactorID is "totp", "phone", "recovery", "webauthn", ...
	FactorID string
	// Kind is the factor's kind.
	Kind FactorKind
	// DisplayName is the name the user gave the factor, or "".
	DisplayName string
	// EnrollmentTime is when it was enrolled.
	EnrollmentTime time.Time
	// PhoneNumber is a phone factor's number (masked in hints,
	// "+1******1234"), else "".
	PhoneNumber string
	// Hint is what identifies the factor to its user, never secret:
	// "authenticator app", the masked number, "7 codes left".
	Hint string
	// RemainingCodes is, for a recovery-code set, how many codes are left;
	// -1 for other kinds.
	RemainingCodes int
}

func factorInfo(c *C.mfa_factor_info) FactorInfo {
	return FactorInfo{
		UID:            goOptional(c.uid),
		FactorID:       goOptional(c.factor_id),
		Kind:           FactorKind(c.kind),
		DisplayName:    goOptional(c.display_name),
		EnrollmentTime: time.Unix(int64(c.enrollment_time), 0),
		PhoneNumber:    goOptional(c.phone_number),
		Hint:           goOptional(c.hint),
		RemainingCodes: int(c.remaining_codes),
	}
}

func factorInfos(items *C.mfa_factor_info, n C.size_t) []FactorInfo {
	out := make([]FactorInfo, 0, int(n))
	for _, item := range unsafe.Slice(items, int(n)) {
		item := item
		out = append(out, factorInfo(&item))
	}
	return out
}

// SignInResult is a finished sign-in.
type SignInResult struct {
	// UID is the user.
	UID string
	// Tenant is the tenant, or "" for the project.
	Tenant string
	// FactorID is the second factor used, or "" when none was needed.
	FactorID string
	// EnrollmentID is the enrollment id of the factor used, or "".
	EnrollmentID string
	// Kind is the kind of the factor used (0 when none was needed).
	Kind FactorKind
	// Time is when the sign-in finished, by the Context's clock.
	Time time.Time
	// Claims are the claims to put in the credential the host issues:
	// sign_in_second_factor, second_factor_identifier and any the factor
	// kind adds (a recovery code adds recovery_codes_remaining). Empty when
	// no second factor was used.
	Claims map[string]string
}

// UsedRecoveryCode tells whether the user signed in with a recovery code:
// warn them and offer a new set (Claims["recovery_codes_remaining"]).
func (r *SignInResult) UsedRecoveryCode() bool { return r.FactorID == RecoveryCodesFactorID }

func signInResult(c *C.mfa_sign_in_result) *SignInResult {
	claims := make(map[string]string, int(c.claim_count))
	if c.claim_count > 0 {
		for _, claim := range unsafe.Slice(c.claims, int(c.claim_count)) {
			claims[goOptional(claim.name)] = goOptional(claim.value)
		}
	}
	return &SignInResult{
		UID:          goOptional(c.uid),
		Tenant:       goOptional(c.tenant),
		FactorID:     goOptional(c.factor_id),
		EnrollmentID: goOptional(c.enrollment_id),
		Kind:         FactorKind(c.kind),
		Time:         time.Unix(int64(c.time), 0),
		Claims:       claims,
	}
}

// AuditKind is the kind of an audit event (MFA_AUDIT_* in mfa_types.h).
type AuditKind int32

// The kinds of audit event.
const (
	AuditEnroll           AuditKind = C.MFA_AUDIT_ENROLL
	AuditUnenroll         AuditKind = C.MFA_AUDIT_UNENROLL
	AuditSignInSuccess    AuditKind = C.MFA_AUDIT_SIGN_IN_SUCCESS
	AuditSignInFailure    AuditKind = C.MFA_AUDIT_SIGN_IN_FAILURE
	AuditBackoff          AuditKind = C.MFA_AUDIT_BACKOFF
	AuditConfigChange     AuditKind = C.MFA_AUDIT_CONFIG_CHANGE
	AuditSMSSent          AuditKind = C.MFA_AUDIT_SMS_SENT
	AuditIntegrityFailure AuditKind = C.MFA_AUDIT_INTEGRITY_FAILURE
	AuditTokensRevoked    AuditKind = C.MFA_AUDIT_TOKENS_REVOKED
	AuditFactorRenamed    AuditKind = C.MFA_AUDIT_FACTOR_RENAMED
	AuditUserReset        AuditKind = C.MFA_AUDIT_USER_RESET
	AuditUserDeleted      AuditKind = C.MFA_AUDIT_USER_DELETED
	AuditKeysRotated      AuditKind = C.MFA_AUDIT_KEYS_ROTATED
	// AuditDeviceRemembered, AuditDeviceRefused and AuditDeviceRevoked: remembered devices.
	AuditDeviceRemembered AuditKind = C.MFA_AUDIT_DEVICE_REMEMBERED
	AuditDeviceRefused    AuditKind = C.MFA_AUDIT_DEVICE_REFUSED
	AuditDeviceRevoked    AuditKind = C.MFA_AUDIT_DEVICE_REVOKED
	// AuditEmailSent: an email code was sent (detail EMAIL_SEND_FAILED when the sender failed).
	AuditEmailSent AuditKind = C.MFA_AUDIT_EMAIL_SENT
	// AuditTokenImported, AuditTokenAssigned, AuditTokenResynced and AuditTokenRemoved: hardware tokens.
	AuditTokenImported AuditKind = C.MFA_AUDIT_TOKEN_IMPORTED
	AuditTokenAssigned AuditKind = C.MFA_AUDIT_TOKEN_ASSIGNED
	AuditTokenResynced AuditKind = C.MFA_AUDIT_TOKEN_RESYNCED
	AuditTokenRemoved  AuditKind = C.MFA_AUDIT_TOKEN_REMOVED
	// AuditPasskeySignInSuccess and AuditPasskeySignInFailure: a sign-in with a passkey alone.
	AuditPasskeySignInSuccess AuditKind = C.MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS
	AuditPasskeySignInFailure AuditKind = C.MFA_AUDIT_PASSKEY_SIGN_IN_FAILURE
)

// AuditEvent is one audit event, as an Options.Audit callback receives it.
// Events carry ids and outcomes, never a secret, a code or a token.
type AuditEvent struct {
	// Kind is the event's kind; KindName its name ("ENROLL", "SIGN_IN_FAILURE", ...).
	Kind     AuditKind
	KindName string
	// Tenant is the tenant, "" for the project.
	Tenant string
	// UID is the user, or "".
	UID string
	// FactorID is "totp", "phone", ..., or "".
	FactorID string
	// EnrollmentID is the factor's enrollment id, or "".
	EnrollmentID string
	// Time is when it happened, by the Context's clock.
	Time time.Time
	// Detail is the outcome's status name ("OK", "INVALID_VERIFICATION_CODE")
	// or another detail ("ADMIN", "IMPORTED").
	Detail string
	// Actor is who made an administrative call, "" for the user's own actions.
	Actor string
}

func auditEvent(c *C.mfa_audit_event) AuditEvent {
	return AuditEvent{
		Kind:         AuditKind(c.kind),
		KindName:     goOptional(c.kind_name),
		Tenant:       goOptional(c.tenant),
		UID:          goOptional(c.uid),
		FactorID:     goOptional(c.factor_id),
		EnrollmentID: goOptional(c.enrollment_id),
		Time:         time.Unix(int64(c.time), 0),
		Detail:       goOptional(c.detail),
		Actor:        goOptional(c.actor),
	}
}

// AppAction is what an SMS request asks the app verifier to vouch for.
type AppAction int32

// The app verification actions (reCAPTCHA's mfaSmsEnrollment and mfaSmsSignIn).
const (
	AppActionEnrollment AppAction = C.MFA_APP_ACTION_ENROLLMENT
	AppActionSignIn     AppAction = C.MFA_APP_ACTION_SIGN_IN
)

// String returns "enrollment", "sign_in" or "AppAction(n)".
func (a AppAction) String() string {
	switch a {
	case AppActionEnrollment:
		return "enrollment"
	case AppActionSignIn:
		return "sign_in"
	}
	return fmt.Sprintf("AppAction(%d)", int32(a))
}
