package mfa

// #include <mfa.h>
import "C"

import "context"

// VerifyPhoneNumber sends an SMS code to a number the user of session wants
// to enroll (PhoneAuthProvider.verifyPhoneNumber) and returns the
// verification id; PhoneAssertion(id, code) then enrolls it. phoneNumber is
// strict E.164 ("+15105551234"); appCredential is the token of the client's
// app verification, handed to Options.AppVerifier with AppActionEnrollment.
// Errors: INVALID_PHONE_NUMBER, MISSING_APP_CREDENTIAL,
// INVALID_APP_CREDENTIAL, SECOND_FACTOR_EXISTS, TOO_MANY_ATTEMPTS_TRY_LATER
// (resend cooldown), QUOTA_EXCEEDED, SMS_SEND_FAILED (nothing counted),
// INVALID_SESSION, OPERATION_NOT_ALLOWED, INVALID_ARGUMENT, STORAGE_ERROR.
func (c *Context) VerifyPhoneNumber(ctx context.Context, session Session, phoneNumber, appCredential string) (string, error) {
	var args cArgs
	defer args.free()
	s := args.secret(string(session), "session")
	number := args.str(phoneNumber, "phone number")
	credential := args.optional(appCredential, "app credential")
	return c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_phone_start_enrollment(h, out, s, number, credential, message)
	})
}

// VerifyPhoneNumber sends an SMS code for signing in with the enrolled phone
// factor enrollmentID (one of the Hints; the full number never leaves
// libmfa) and returns the verification id; PhoneAssertion(id, code) then
// resolves the sign-in. The app verifier sees AppActionSignIn. Errors: those
// of Context.VerifyPhoneNumber but SECOND_FACTOR_EXISTS, and
// MFA_ENROLLMENT_NOT_FOUND, TENANT_MISMATCH, USER_TOKEN_EXPIRED.
func (r *Resolver) VerifyPhoneNumber(ctx context.Context, enrollmentID, appCredential string) (string, error) {
	var args cArgs
	defer args.free()
	p, t := args.secret(r.Session, "pending credential"), args.optional(r.Tenant, "tenant")
	id := args.str(enrollmentID, "enrollment id")
	credential := args.optional(appCredential, "app credential")
	return r.c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_phone_start_sign_in(h, out, p, t, id, credential, message)
	})
}
