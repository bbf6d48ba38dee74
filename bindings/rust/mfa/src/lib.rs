//! libmfa for Rust: an embeddable multi-factor authentication engine
//! (Firebase Authentication's model: TOTP, SMS, recovery codes and WebAuthn
//! second factors, enrollment sessions, sign-in resolvers, token
//! revocation) and the one-time-password primitives under it, on libmfa's
//! C interface (the `mfa-sys` crate).
//!
//! ```no_run
//! use mfa::{Assertion, Context, Options, SignIn, User};
//!
//! # fn main() -> mfa::Result<()> {
//! let key = [7u8; 32]; // the master key, from the host's secret store
//! let ctx = Context::open(Options::new("mfa.sqlite3", "k1", &key))?;
//! ctx.set_config(r#"{"state": "ENABLED", "providers": {"totp": "ENABLED"}}"#, None)?;
//!
//! let user = User::new("alice", mfa::unix_now()).with_email("alice@example.com", true);
//! let mf = ctx.multi_factor(&user);
//! let secret = mf.session()?.totp_secret()?;
//! println!("scan {}", secret.qr_code_url("alice@example.com", Some("ACME"))?);
//! let code = secret.authenticator()?.now()?; // what the user's app shows
//! mf.enroll(&Assertion::totp_enrollment(&secret, &code), Some("phone"))?;
//!
//! match ctx.sign_in(&user)? {
//!     SignIn::Complete => println!("no second factor needed"),
//!     SignIn::SecondFactorRequired(resolver) => {
//!         let hint = &resolver.hints()[0];
//!         let code = "123456"; // typed by the user
//!         match resolver.resolve_sign_in(&Assertion::totp_sign_in(hint.uid(), code)) {
//!             Ok(result) => println!("signed in with {}", result.factor_id()),
//!             Err(mfa::Error::InvalidVerificationCode(_)) => println!("wrong code"),
//!             Err(other) => return Err(other),
//!         }
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! * Errors: every call returns [`Result`]; [`Error`] has one variant per
//!   libmfa status name, each with libmfa's message.
//! * Memory: what libmfa allocates is owned by a Rust value that frees it
//!   when dropped ([`Factor`], [`FactorList`], [`Resolver`],
//!   [`SignInResult`], [`TotpSecret`], [`MfaString`], ...); the values inside
//!   ([`FactorInfo`], [`Claim`], ...) are borrowed from them. Secrets are
//!   wiped before they are freed.
//! * Threads: [`Context`] is `Send + Sync` (share one by every thread);
//!   results are `Send + Sync` plain data; callbacks must be `Send + Sync`.
//! * Callbacks: closures in [`Options`]; see [`callbacks`] for what a panic does.
//!
//! The library is found at link time through `LIBMFA_LIB_DIR`,
//! `LIBMFA_LIBRARY`, pkg-config's `mfa` or the linker's default paths (see
//! the mfa-sys build script), and at run time like any shared library.

#![warn(missing_docs)]

#[macro_use]
mod owned;

pub mod callbacks;
pub mod outbox;
pub mod webauthn;

mod admin;
mod assertion;
mod base32;
mod context;
mod cstr;
mod error;
mod factor;
mod flow;
mod generated;
mod import;
mod key_uri;
mod options;
mod otp;
mod phone;
mod qr;
mod recovery;
mod strings;
mod totp;
mod user;

pub use admin::{
    Admin, AdminFactor, AdminPages, AdminStats, AdminStatsRow, AdminUser, AdminUserPage, FactorCount, TenantUsers,
    Tenants,
};
pub use assertion::Assertion;
pub use base32::{base32_decode, base32_encode};
pub use callbacks::{AppAction, AuditEvent, CallbackError, WebAuthnAttestation};
pub use context::Context;
pub use error::{errstr, status_name, Error, Result};
pub use factor::{Factor, FactorInfo, FactorList};
pub use flow::{Claim, MultiFactor, Resolver, Session, SignIn, SignInResult};
pub use generated::{AuditKind, FactorKind};
pub use import::{ImportFormat, ImportLine, ImportOptions, ImportOutcome, ImportSummary, RotationResult, SealCheck};
pub use key_uri::{KeyUri, OtpKind};
pub use options::Options;
pub use otp::{random_secret, unix_now, Algorithm, Code, Hotp, Totp, TotpParams};
pub use qr::{qr_code, QrFormat};
pub use recovery::RecoveryCodes;
pub use strings::{Buffer, MfaString};
pub use totp::TotpSecret;
pub use user::User;

/// The raw C interface, for what this crate does not wrap.
pub use mfa_sys as sys;

/// The version of the loaded libmfa, as MAJOR * 10000 + MINOR * 100 + PATCH.
pub fn version() -> i32 {
    unsafe { mfa_sys::mfa_version() }
}

/// The version of the loaded libmfa, as "MAJOR.MINOR.PATCH".
pub fn version_string() -> &'static str {
    unsafe { std::ffi::CStr::from_ptr(mfa_sys::mfa_version_string()) }.to_str().unwrap_or("")
}

/// The factor id of TOTP second factors ("totp").
pub const TOTP_FACTOR_ID: &str = "totp";
/// The factor id of SMS second factors ("phone").
pub const PHONE_FACTOR_ID: &str = "phone";
/// The factor id of recovery-code sets ("recovery").
pub const RECOVERY_CODES_FACTOR_ID: &str = "recovery";
/// The factor id of WebAuthn credentials ("webauthn").
pub const WEBAUTHN_FACTOR_ID: &str = "webauthn";
