//! WebAuthn: security keys and passkeys as a second factor, libmfa being the
//! relying party ([`Session::webauthn_registration_options`],
//! [`Resolver::webauthn_authentication_options`] and the WebAuthn
//! [`Assertion`](crate::Assertion)s), and the stateless checks
//! [`verify_registration`] and [`verify_assertion`] for hosts that keep their
//! own credentials.

use std::fmt;
use std::ptr;

use crate::cstr::{bytes, c_optional, c_string, ptr_of, text};
use crate::error::{Error, ErrSlot, Result};
use crate::flow::{Resolver, Session};
use crate::strings::MfaString;

impl<'a> Session<'a> {
    /// The `PublicKeyCredentialCreationOptions` for the user of this session,
    /// as JSON (hand it to `navigator.credentials.create`). `user_name` is the
    /// account name the authenticator shows (1 to 256 bytes).
    ///
    /// Errors: `OperationNotAllowed` (WebAuthn disabled, or no
    /// `webauthn.rpId`), `InvalidSession`, `UserTokenExpired`,
    /// `SecondFactorLimitExceeded`, `InvalidArgument`, `StorageError`.
    pub fn webauthn_registration_options(&self, user_name: &str, user_display_name: Option<&str>) -> Result<MfaString> {
        let token = self.c_token()?;
        let name = c_string(user_name, "the user name")?;
        let display = c_optional(user_display_name, "the user display name")?;
        self.ctx.string_call(|handle, out, err| unsafe {
            mfa_sys::mfa_webauthn_registration_options(handle, out, token.as_ptr(), name.as_ptr(), ptr_of(&display), err)
        })
    }
}

impl<'a> Resolver<'a> {
    /// The `PublicKeyCredentialRequestOptions` for this sign-in, as JSON
    /// (hand it to `navigator.credentials.get`), for the hint
    /// `enrollment_id` or every WebAuthn credential of the user.
    ///
    /// Errors: `InvalidSession`, `UserTokenExpired`, `TenantMismatch`,
    /// `MfaEnrollmentNotFound`, `OperationNotAllowed` (no `webauthn.rpId`), `StorageError`.
    pub fn webauthn_authentication_options(&self, enrollment_id: Option<&str>) -> Result<MfaString> {
        let (pending, tenant) = self.c_parts()?;
        let id = c_optional(enrollment_id, "the enrollment id")?;
        self.ctx.string_call(|handle, out, err| unsafe {
            mfa_sys::mfa_webauthn_authentication_options(handle, out, pending.as_ptr(), ptr_of(&tenant), ptr_of(&id), err)
        })
    }
}

c_owned!(
    /// A registration verified by [`verify_registration`]: the new credential and its attestation.
    WebAuthnCredential,
    mfa_sys::mfa_webauthn_credential,
    mfa_sys::mfa_free
);

impl WebAuthnCredential {
    /// The credential id.
    pub fn credential_id(&self) -> &[u8] {
        unsafe { bytes(self.raw().credential_id, self.raw().credential_id_len) }
    }

    /// The COSE public key: keep it for [`verify_assertion`].
    pub fn public_key(&self) -> &[u8] {
        unsafe { bytes(self.raw().public_key, self.raw().public_key_len) }
    }

    /// Its COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
    pub fn algorithm(&self) -> i32 {
        self.raw().algorithm
    }

    /// The signature counter at registration.
    pub fn sign_count(&self) -> u32 {
        self.raw().sign_count
    }

    /// The authenticator data flags (`MFA_WEBAUTHN_FLAG_*`).
    pub fn flags(&self) -> u32 {
        self.raw().flags
    }

    /// The AAGUID (16 bytes).
    pub fn aaguid(&self) -> &[u8] {
        unsafe { bytes(self.raw().aaguid, 16) }
    }

    /// The attestation format: "none", "packed" or "fido-u2f".
    pub fn format(&self) -> &str {
        unsafe { text(self.raw().format) }
    }

    /// How it was attested: "none", "self" or "basic".
    pub fn attestation_kind(&self) -> &str {
        unsafe { text(self.raw().attestation_kind) }
    }

    /// The attestation chain, leaf first, DER (not judged here).
    pub fn certificates(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        let raw = self.raw();
        let count = if raw.certificates.is_null() || raw.certificate_lengths.is_null() { 0 } else { raw.certificate_count };
        (0..count).map(move |index| unsafe { bytes(*raw.certificates.add(index), *raw.certificate_lengths.add(index)) })
    }
}

impl fmt::Debug for WebAuthnCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebAuthnCredential")
            .field("algorithm", &self.algorithm())
            .field("sign_count", &self.sign_count())
            .field("flags", &self.flags())
            .field("format", &self.format())
            .field("attestation_kind", &self.attestation_kind())
            .finish_non_exhaustive()
    }
}

/// What [`verify_assertion`] found: the host must check that the counter
/// went up (unless it was and stays 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssertionCheck {
    /// The signature counter.
    pub sign_count: u32,
    /// The authenticator data flags (`MFA_WEBAUTHN_FLAG_*`).
    pub flags: u32,
}

/// Verifies a registration response (`credential.toJSON()` of
/// `navigator.credentials.create`) against the host's own `challenge`
/// (base64url), relying party id and origin, without libmfa's state.
///
/// Errors: `InvalidArgument` (malformed), `InvalidSession` (another
/// challenge), `OriginMismatch`, `RpIdMismatch`, `UserVerificationRequired`,
/// `InvalidVerificationCode` (a statement that does not verify), `Crypto`.
pub fn verify_registration(
    credential_json: &str,
    challenge: &str,
    rp_id: &str,
    origin: &str,
    require_user_verification: bool,
) -> Result<WebAuthnCredential> {
    let strings = [
        c_string(credential_json, "the credential")?,
        c_string(challenge, "the challenge")?,
        c_string(rp_id, "the rp id")?,
        c_string(origin, "the origin")?,
    ];
    let mut out = ptr::null_mut();
    let mut err = ErrSlot::new();
    let status = unsafe {
        mfa_sys::mfa_webauthn_verify_registration(
            &mut out,
            strings[0].as_ptr(),
            strings[1].as_ptr(),
            strings[2].as_ptr(),
            strings[3].as_ptr(),
            require_user_verification as i32,
            err.as_out(),
        )
    };
    let credential = unsafe { WebAuthnCredential::from_raw(out) };
    err.check(status)?;
    credential.ok_or_else(|| Error::Internal("libmfa returned no credential".into()))
}

/// Verifies an assertion response (`credential.toJSON()` of
/// `navigator.credentials.get`) with a stored COSE `public_key`, without libmfa's state.
///
/// Errors: as [`verify_registration`]; `InvalidVerificationCode` for a wrong signature.
pub fn verify_assertion(
    credential_json: &str,
    challenge: &str,
    rp_id: &str,
    origin: &str,
    public_key: &[u8],
    require_user_verification: bool,
) -> Result<AssertionCheck> {
    let strings = [
        c_string(credential_json, "the credential")?,
        c_string(challenge, "the challenge")?,
        c_string(rp_id, "the rp id")?,
        c_string(origin, "the origin")?,
    ];
    let mut check = AssertionCheck { sign_count: 0, flags: 0 };
    let mut err = ErrSlot::new();
    let status = unsafe {
        mfa_sys::mfa_webauthn_verify_assertion(
            &mut check.sign_count,
            &mut check.flags,
            strings[0].as_ptr(),
            strings[1].as_ptr(),
            strings[2].as_ptr(),
            strings[3].as_ptr(),
            require_user_verification as i32,
            if public_key.is_empty() { ptr::null() } else { public_key.as_ptr() },
            public_key.len(),
            err.as_out(),
        )
    };
    err.check(status)?;
    Ok(check)
}
