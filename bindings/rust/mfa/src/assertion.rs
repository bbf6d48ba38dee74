//! [`Assertion`]: what proves a second factor, of any kind, to enroll it
//! ([`MultiFactor::enroll`](crate::MultiFactor::enroll)) or to finish a
//! sign-in ([`Resolver::resolve_sign_in`](crate::Resolver::resolve_sign_in)).

use std::ffi::CString;
use std::fmt;

use crate::cstr::{c_optional, ptr_of};
use crate::error::{check, Result};
use crate::generated::FactorKind;
use crate::totp::TotpSecret;

/// Proof of a second factor (`mfa_assertion`): a kind and the fields that
/// kind reads. The constructors make the usual ones; [`Assertion::new`] and
/// the `with_*` setters make any (a kind this binding has no constructor
/// for yet, with the fields the header documents for it).
///
/// | kind          | enroll                          | sign in                             |
/// |---------------|---------------------------------|-------------------------------------|
/// | TOTP          | [`totp_enrollment`](Assertion::totp_enrollment) | [`totp_sign_in`](Assertion::totp_sign_in) |
/// | phone         | [`phone`](Assertion::phone)     | [`phone`](Assertion::phone)         |
/// | recovery code | (generated, not enrolled)       | [`recovery_code`](Assertion::recovery_code) |
/// | WebAuthn      | [`webauthn_enrollment`](Assertion::webauthn_enrollment) | [`webauthn_sign_in`](Assertion::webauthn_sign_in) |
///
/// The code and the credential are left out of `Debug`.
#[derive(Clone, Copy)]
pub struct Assertion<'a> {
    kind: FactorKind,
    enrollment_id: Option<&'a str>,
    session_info: Option<&'a str>,
    verification_id: Option<&'a str>,
    code: Option<&'a str>,
    credential: Option<&'a str>,
}

impl<'a> Assertion<'a> {
    /// An assertion of `kind` with no field set.
    pub fn new(kind: FactorKind) -> Assertion<'a> {
        Assertion { kind, enrollment_id: None, session_info: None, verification_id: None, code: None, credential: None }
    }

    /// Finishes enrolling a TOTP `secret` with a `code` from the app.
    pub fn totp_enrollment(secret: &'a TotpSecret, code: &'a str) -> Assertion<'a> {
        Assertion::new(FactorKind::Totp).with_session_info(secret.session_info()).with_code(code)
    }

    /// Resolves a sign-in with the TOTP factor `enrollment_id` (a hint's uid) and a code from the app.
    pub fn totp_sign_in(enrollment_id: &'a str, code: &'a str) -> Assertion<'a> {
        Assertion::new(FactorKind::Totp).with_enrollment_id(enrollment_id).with_code(code)
    }

    /// An SMS code with its verification id: enrolls a phone (the id of
    /// [`Session::verify_phone_number`](crate::Session::verify_phone_number)) or resolves a
    /// sign-in (the id of [`Resolver::verify_phone_number`](crate::Resolver::verify_phone_number)).
    pub fn phone(verification_id: &'a str, code: &'a str) -> Assertion<'a> {
        Assertion::new(FactorKind::Phone).with_verification_id(verification_id).with_code(code)
    }

    /// Resolves a sign-in with a recovery code as the user typed it (any
    /// case; dashes and spaces ignored), from the set `enrollment_id` or the user's set.
    pub fn recovery_code(code: &'a str, enrollment_id: Option<&'a str>) -> Assertion<'a> {
        let assertion = Assertion::new(FactorKind::RecoveryCodes).with_code(code);
        match enrollment_id {
            Some(id) => assertion.with_enrollment_id(id),
            None => assertion,
        }
    }

    /// Enrolls the WebAuthn credential the browser created (`credential.toJSON()` as JSON text).
    pub fn webauthn_enrollment(credential_json: &'a str) -> Assertion<'a> {
        Assertion::new(FactorKind::Webauthn).with_credential(credential_json)
    }

    /// Resolves a sign-in with the credential the browser returned, for the
    /// hint `enrollment_id` or whichever of the user's credentials answered.
    pub fn webauthn_sign_in(credential_json: &'a str, enrollment_id: Option<&'a str>) -> Assertion<'a> {
        let assertion = Assertion::new(FactorKind::Webauthn).with_credential(credential_json);
        match enrollment_id {
            Some(id) => assertion.with_enrollment_id(id),
            None => assertion,
        }
    }

    /// The factor this proves (sign-in: TOTP, a recovery set, WebAuthn).
    pub fn with_enrollment_id(mut self, enrollment_id: &'a str) -> Assertion<'a> {
        self.enrollment_id = Some(enrollment_id);
        self
    }

    /// The session info of a TOTP secret being enrolled.
    pub fn with_session_info(mut self, session_info: &'a str) -> Assertion<'a> {
        self.session_info = Some(session_info);
        self
    }

    /// The verification id of an SMS code.
    pub fn with_verification_id(mut self, verification_id: &'a str) -> Assertion<'a> {
        self.verification_id = Some(verification_id);
        self
    }

    /// The code the user typed.
    pub fn with_code(mut self, code: &'a str) -> Assertion<'a> {
        self.code = Some(code);
        self
    }

    /// A WebAuthn credential, as JSON.
    pub fn with_credential(mut self, credential_json: &'a str) -> Assertion<'a> {
        self.credential = Some(credential_json);
        self
    }

    /// The kind.
    pub fn kind(&self) -> FactorKind {
        self.kind
    }
}

impl fmt::Debug for Assertion<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Assertion")
            .field("kind", &self.kind)
            .field("enrollment_id", &self.enrollment_id)
            .finish_non_exhaustive()
    }
}

/// An [`Assertion`] as an `mfa_assertion`, with the C strings it points to.
pub(crate) struct CAssertion {
    pub(crate) raw: mfa_sys::mfa_assertion,
    _strings: [Option<CString>; 5],
}

impl CAssertion {
    pub(crate) fn new(assertion: &Assertion<'_>) -> Result<CAssertion> {
        let strings = [
            c_optional(assertion.enrollment_id, "the enrollment id")?,
            c_optional(assertion.session_info, "the session info")?,
            c_optional(assertion.verification_id, "the verification id")?,
            c_optional(assertion.code, "the code")?,
            c_optional(assertion.credential, "the credential")?,
        ];
        let mut raw = unsafe { std::mem::zeroed::<mfa_sys::mfa_assertion>() };
        check(unsafe { mfa_sys::mfa_assertion_init(&mut raw, mfa_sys::MFA_ASSERTION_VERSION) })?;
        raw.kind = assertion.kind.raw();
        raw.enrollment_id = ptr_of(&strings[0]);
        raw.session_info = ptr_of(&strings[1]);
        raw.verification_id = ptr_of(&strings[2]);
        raw.code = ptr_of(&strings[3]);
        raw.credential = ptr_of(&strings[4]);
        Ok(CAssertion { raw, _strings: strings })
    }
}
