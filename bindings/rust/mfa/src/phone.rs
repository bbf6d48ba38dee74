//! SMS second factors: sending the code (`PhoneAuthProvider.verifyPhoneNumber`),
//! to a number being enrolled ([`Session::verify_phone_number`]) or to an
//! enrolled factor at sign-in ([`Resolver::verify_phone_number`]); the code
//! and the verification id then make an [`Assertion::phone`](crate::Assertion::phone).
//!
//! Sends go through the context's SMS sender (or outbox) after its app
//! verifier accepted the client's app credential, and are held to a resend
//! cooldown and hourly and daily caps; test numbers of the configuration
//! never reach the sender.

use crate::cstr::{c_optional, c_string, ptr_of};
use crate::error::Result;
use crate::flow::{Resolver, Session};
use crate::strings::MfaString;

impl<'a> Session<'a> {
    /// Sends a code to `phone_number` (strict E.164: `+` then 7 to 15
    /// digits) for the user of this session to enroll; the verification id.
    /// `app_credential` is the reCAPTCHA- or APNs-style token the client
    /// sent, for the context's app verifier.
    ///
    /// Errors: `InvalidPhoneNumber`, `MissingAppCredential`,
    /// `InvalidAppCredential`, `OperationNotAllowed` (phone disabled, or no
    /// verifier while the configuration requires one), `SecondFactorExists`,
    /// `TooManyAttemptsTryLater` (resend cooldown), `QuotaExceeded`,
    /// `SmsSendFailed` (nothing counted), `InvalidSession`, `StorageError`.
    pub fn verify_phone_number(&self, phone_number: &str, app_credential: Option<&str>) -> Result<MfaString> {
        let token = self.c_token()?;
        let number = c_string(phone_number, "the phone number")?;
        let credential = c_optional(app_credential, "the app credential")?;
        self.ctx.string_call(|handle, out, err| unsafe {
            mfa_sys::mfa_phone_start_enrollment(
                handle,
                out,
                token.as_ptr(),
                number.as_ptr(),
                ptr_of(&credential),
                err,
            )
        })
    }
}

impl<'a> Resolver<'a> {
    /// Sends a code to the number of the enrolled phone factor
    /// `enrollment_id` (a hint's uid) to finish this sign-in; the
    /// verification id. The full number never leaves libmfa.
    ///
    /// Errors: as [`Session::verify_phone_number`] (but not
    /// `SecondFactorExists`), and `MfaEnrollmentNotFound`,
    /// `InvalidSession`, `TenantMismatch`, `UserTokenExpired`,
    /// `TooManyAttemptsTryLater` (cooldown or backoff), `QuotaExceeded`.
    pub fn verify_phone_number(&self, enrollment_id: &str, app_credential: Option<&str>) -> Result<MfaString> {
        let (pending, tenant) = self.c_parts()?;
        let id = c_string(enrollment_id, "the enrollment id")?;
        let credential = c_optional(app_credential, "the app credential")?;
        self.ctx.string_call(|handle, out, err| unsafe {
            mfa_sys::mfa_phone_start_sign_in(
                handle,
                out,
                pending.as_ptr(),
                ptr_of(&tenant),
                id.as_ptr(),
                ptr_of(&credential),
                err,
            )
        })
    }
}
