//! What every kind of second factor shares: [`MultiFactor`] (one user's
//! factors: enroll, list, unenroll), [`Session`] (proof of a recent
//! sign-in, to enroll), [`SignIn`] and [`Resolver`] (a sign-in waiting for
//! its second factor) and [`SignInResult`]. Each kind adds its own calls to
//! `Session` and `Resolver` in its module (totp, phone, recovery, webauthn).

use std::fmt;
use std::ptr::{self, NonNull};

use crate::assertion::{Assertion, CAssertion};
use crate::context::Context;
use crate::cstr::{c_optional, c_string, optional_text, ptr_of, text};
use crate::error::{Error, ErrSlot, Result};
use crate::factor::{Factor, FactorInfo, FactorList};
use crate::generated::FactorKind;
use crate::user::{CUser, User};

/// One user's second factors (Firebase's `user.multiFactor`): get one with
/// [`Context::multi_factor`].
#[derive(Clone, Copy)]
pub struct MultiFactor<'a> {
    ctx: &'a Context,
    user: &'a User,
}

impl<'a> MultiFactor<'a> {
    pub(crate) fn new(ctx: &'a Context, user: &'a User) -> MultiFactor<'a> {
        MultiFactor { ctx, user }
    }

    /// The user.
    pub fn user(&self) -> &'a User {
        self.user
    }

    /// A [`Session`] for enrolling a new factor (or generating recovery codes).
    ///
    /// Errors: `OperationNotAllowed` (MFA or every provider disabled),
    /// `UnsupportedFirstFactor`, `UnverifiedEmail`, `RequiresRecentLogin`,
    /// `SecondFactorLimitExceeded`, `InvalidArgument`, `StorageError`.
    pub fn session(&self) -> Result<Session<'a>> {
        let user = CUser::new(self.user)?;
        let token =
            self.ctx.string_call(|handle, out, err| unsafe { mfa_sys::mfa_session_new(handle, out, &user.raw, err) })?;
        Ok(Session::new(self.ctx, token.as_str().to_string()))
    }

    /// The enrolled factors of every kind, oldest first.
    pub fn enrolled_factors(&self) -> Result<FactorList> {
        let user = CUser::new(self.user)?;
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_factors_list(handle, &mut out, &user.raw, err.as_out()) };
        let list = unsafe { FactorList::from_raw(out) };
        err.check(status)?;
        list.ok_or_else(|| Error::Internal("libmfa returned no list".into()))
    }

    /// Finishes an enrollment, of any kind (`mfa_enroll`), with an optional
    /// name for the factor (at most 256 bytes). The user's earlier
    /// credentials and libmfa tokens are revoked.
    ///
    /// Errors: `InvalidVerificationCode` (the user may retry),
    /// `CodeExpired`, `InvalidSession`, `UserTokenExpired`, `TenantMismatch`,
    /// `SecondFactorExists`, `SecondFactorLimitExceeded`,
    /// `OperationNotAllowed`, `InvalidArgument` (a sign-in assertion, a
    /// missing field), `StorageError`.
    pub fn enroll(&self, assertion: &Assertion<'_>, display_name: Option<&str>) -> Result<Factor> {
        let assertion = CAssertion::new(assertion)?;
        let name = c_optional(display_name, "the display name")?;
        self.ctx.factor_call(self.user, |handle, out, user, err| unsafe {
            mfa_sys::mfa_enroll(handle, out, user, &assertion.raw, ptr_of(&name), err)
        })
    }

    /// Removes the factor `enrollment_id` and revokes the user's earlier credentials.
    ///
    /// Errors: `RequiresRecentLogin`, `MfaEnrollmentNotFound`, `InvalidArgument`, `StorageError`.
    pub fn unenroll(&self, enrollment_id: &str) -> Result<()> {
        let user = CUser::new(self.user)?;
        let id = c_string(enrollment_id, "the enrollment id")?;
        self.ctx.status_call(|handle, err| unsafe { mfa_sys::mfa_unenroll(handle, &user.raw, id.as_ptr(), err) })
    }
}

impl fmt::Debug for MultiFactor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MultiFactor").field("uid", &self.user.uid).field("tenant", &self.user.tenant).finish()
    }
}

/// Proof that a user recently passed the first factor (`MultiFactorSession`),
/// needed to enroll: opaque, expiring, bound to the user.
#[derive(Clone)]
pub struct Session<'a> {
    pub(crate) ctx: &'a Context,
    token: String,
}

impl<'a> Session<'a> {
    pub(crate) fn new(ctx: &'a Context, token: String) -> Session<'a> {
        Session { ctx, token }
    }

    /// The token, to hand to a client ([`Context::session`] rebuilds the session from it).
    pub fn token(&self) -> &str {
        &self.token
    }

    pub(crate) fn c_token(&self) -> Result<std::ffi::CString> {
        c_string(&self.token, "the session")
    }
}

impl fmt::Debug for Session<'_> {
    /// The token is left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Session(..)")
    }
}

/// How a first-factor sign-in went on ([`Context::sign_in`]).
#[must_use]
#[derive(Debug)]
pub enum SignIn<'a> {
    /// No second factor is needed: the user has none and MFA is not MANDATORY.
    Complete,
    /// The user has second factors: finish with the [`Resolver`].
    SecondFactorRequired(Resolver<'a>),
}

impl<'a> SignIn<'a> {
    /// The resolver, if a second factor is required.
    pub fn resolver(self) -> Option<Resolver<'a>> {
        match self {
            SignIn::Complete => None,
            SignIn::SecondFactorRequired(resolver) => Some(resolver),
        }
    }
}

/// A sign-in waiting for its second factor (`MultiFactorResolver`): the
/// user's factors as hints, and the pending credential.
pub struct Resolver<'a> {
    pub(crate) ctx: &'a Context,
    raw: NonNull<mfa_sys::mfa_resolver>,
}

// Plain data nobody writes to, and a shared reference to a Sync context.
unsafe impl Send for Resolver<'_> {}
unsafe impl Sync for Resolver<'_> {}

impl<'a> Resolver<'a> {
    pub(crate) unsafe fn from_raw(ctx: &'a Context, raw: *mut mfa_sys::mfa_resolver) -> Option<Resolver<'a>> {
        NonNull::new(raw).map(|raw| Resolver { ctx, raw })
    }

    fn raw(&self) -> &mfa_sys::mfa_resolver {
        unsafe { self.raw.as_ref() }
    }

    /// The pending credential: opaque, expiring, single-use, bound to the
    /// user and tenant. Hand it to the client ([`Context::resolver`]
    /// rebuilds the resolver from it).
    pub fn session(&self) -> &str {
        unsafe { text(self.raw().session) }
    }

    /// The user signing in.
    pub fn uid(&self) -> &str {
        unsafe { text(self.raw().uid) }
    }

    /// The tenant, or None.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.raw().tenant) }
    }

    /// The user's factors of every kind (phone numbers masked), to pick from.
    pub fn hints(&self) -> &[FactorInfo] {
        unsafe { FactorInfo::slice(self.raw().hints, self.raw().hint_count) }
    }

    /// The first hint of `kind`, if any.
    pub fn hint(&self, kind: FactorKind) -> Option<&FactorInfo> {
        self.hints().iter().find(|hint| hint.kind() == kind)
    }

    /// The C strings of the pending credential and tenant.
    pub(crate) fn c_parts(&self) -> Result<(std::ffi::CString, Option<std::ffi::CString>)> {
        Ok((c_string(self.session(), "the pending credential")?, c_optional(self.tenant(), "the tenant")?))
    }

    /// Finishes the sign-in with a second factor of any kind (`mfa_resolve`).
    /// The pending credential is used up, and so is what the factor proved
    /// (the TOTP code's time step, the SMS code, the recovery code).
    ///
    /// Errors: `InvalidVerificationCode` (a wrong, malformed or replayed
    /// code), `CodeExpired`, `InvalidSession` (a tampered, expired or used
    /// pending credential, another user's factor), `UserTokenExpired`,
    /// `TenantMismatch`, `MfaEnrollmentNotFound`, `TooManyAttemptsTryLater`
    /// (backoff), `InvalidArgument`, `Crypto`, `StorageError`.
    pub fn resolve_sign_in(&self, assertion: &Assertion<'_>) -> Result<SignInResult> {
        let assertion = CAssertion::new(assertion)?;
        let (credential, tenant) = self.c_parts()?;
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_resolve(handle, &mut out, credential.as_ptr(), ptr_of(&tenant), &assertion.raw, err.as_out())
        };
        let result = unsafe { SignInResult::from_raw(out) };
        err.check(status)?;
        result.ok_or_else(|| Error::Internal("libmfa returned no result".into()))
    }
}

impl fmt::Debug for Resolver<'_> {
    /// The pending credential is left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resolver")
            .field("uid", &self.uid())
            .field("tenant", &self.tenant())
            .field("hints", &self.hints())
            .finish_non_exhaustive()
    }
}

impl Drop for Resolver<'_> {
    fn drop(&mut self) {
        unsafe { mfa_sys::mfa_resolver_free(self.raw.as_ptr()) };
    }
}

view!(
    /// One claim of a sign-in result: a name and its value.
    Claim,
    mfa_sys::mfa_claim
);

impl Claim {
    /// The claim's name ("sign_in_second_factor", ...).
    pub fn name(&self) -> &str {
        unsafe { text(self.0.name) }
    }

    /// Its value.
    pub fn value(&self) -> &str {
        unsafe { text(self.0.value) }
    }
}

impl fmt::Debug for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name(), self.value())
    }
}

c_owned!(
    /// A finished sign-in: who, with which factor, when, and the claims to
    /// put in the credential the host issues.
    SignInResult,
    mfa_sys::mfa_sign_in_result,
    mfa_sys::mfa_sign_in_result_free
);

impl SignInResult {
    /// The user.
    pub fn uid(&self) -> &str {
        unsafe { text(self.raw().uid) }
    }

    /// The tenant, or None.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.raw().tenant) }
    }

    /// The factor id used ("totp", "phone", "recovery", ...): the claim `sign_in_second_factor`.
    pub fn factor_id(&self) -> &str {
        unsafe { text(self.raw().factor_id) }
    }

    /// The enrollment id of the factor used: the claim `second_factor_identifier`.
    pub fn enrollment_id(&self) -> &str {
        unsafe { text(self.raw().enrollment_id) }
    }

    /// The kind of the factor used.
    pub fn kind(&self) -> FactorKind {
        FactorKind::from_raw(self.raw().kind)
    }

    /// When the sign-in finished (Unix seconds, by the context's clock).
    pub fn time(&self) -> i64 {
        self.raw().time
    }

    /// The claims: `sign_in_second_factor`, `second_factor_identifier` and
    /// any the kind adds (a recovery code adds `recovery_codes_remaining`).
    pub fn claims(&self) -> &[Claim] {
        unsafe { Claim::slice(self.raw().claims, self.raw().claim_count) }
    }

    /// The value of the claim `name`, if present.
    pub fn claim(&self, name: &str) -> Option<&str> {
        self.claims().iter().find(|claim| claim.name() == name).map(Claim::value)
    }

    /// Whether the user signed in with a recovery code: warn them, and offer a new set.
    pub fn used_recovery_code(&self) -> bool {
        self.kind() == FactorKind::RecoveryCodes
    }
}

impl fmt::Debug for SignInResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignInResult")
            .field("uid", &self.uid())
            .field("tenant", &self.tenant())
            .field("factor_id", &self.factor_id())
            .field("enrollment_id", &self.enrollment_id())
            .field("kind", &self.kind())
            .field("time", &self.time())
            .field("claims", &self.claims())
            .finish()
    }
}
