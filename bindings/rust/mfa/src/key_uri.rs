//! `otpauth://` key URIs (the Google Authenticator key URI format).

use std::fmt;
use std::ptr;

use crate::cstr::{bytes, c_optional, c_string, optional_text, ptr_of, text, with_c_str};
use crate::error::{check, Error, ErrSlot, Result};
use crate::otp::{Algorithm, Hotp, Totp, TotpParams};
use crate::strings::MfaString;

/// Time-based or counter-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OtpKind {
    /// `otpauth://totp/` (RFC 6238).
    Totp,
    /// `otpauth://hotp/` (RFC 4226).
    Hotp,
}

impl OtpKind {
    fn raw(self) -> i32 {
        match self {
            OtpKind::Totp => mfa_sys::MFA_OTP_TOTP,
            OtpKind::Hotp => mfa_sys::MFA_OTP_HOTP,
        }
    }
}

/// The fields of an otpauth:// key URI. Build one and call
/// [`to_uri`](KeyUri::to_uri), or [`parse`](KeyUri::parse) one. The secret
/// is left out of `Debug`; it is a plain `Vec<u8>` of the caller's (a
/// [`Totp`] made from it keeps and wipes its own copy).
#[derive(Clone, PartialEq, Eq)]
pub struct KeyUri {
    /// TOTP or HOTP.
    pub kind: OtpKind,
    /// The service's name, or None.
    pub issuer: Option<String>,
    /// The account name, usually an email address (not empty).
    pub account: String,
    /// The raw shared secret (1 to 1024 bytes).
    pub secret: Vec<u8>,
    /// The HMAC.
    pub algorithm: Algorithm,
    /// Digits per code, 6 to 8.
    pub digits: u32,
    /// TOTP time step in seconds (ignored for HOTP).
    pub period: i64,
    /// HOTP initial counter (ignored for TOTP).
    pub counter: u64,
}

impl KeyUri {
    /// A TOTP key URI with the defaults (SHA1, 6 digits, 30 s).
    pub fn totp(account: &str, issuer: Option<&str>, secret: &[u8]) -> KeyUri {
        KeyUri {
            kind: OtpKind::Totp,
            issuer: issuer.map(str::to_string),
            account: account.to_string(),
            secret: secret.to_vec(),
            algorithm: Algorithm::Sha1,
            digits: 6,
            period: 30,
            counter: 0,
        }
    }

    /// The URI text: issuer and account percent-encoded (spaces, colons,
    /// `@`, `&` and non-ASCII are safe), the secret as unpadded base32.
    ///
    /// Errors: `InvalidArgument` (an empty, overlong or NUL-holding name, a
    /// secret length, digits or period out of range; the message says which).
    pub fn to_uri(&self) -> Result<MfaString> {
        let issuer = c_optional(self.issuer.as_deref(), "the issuer")?;
        let account = c_string(&self.account, "the account")?;
        let mut uri = unsafe { std::mem::zeroed::<mfa_sys::mfa_key_uri>() };
        check(unsafe { mfa_sys::mfa_key_uri_init(&mut uri, mfa_sys::MFA_KEY_URI_VERSION) })?;
        uri.r#type = self.kind.raw();
        uri.issuer = ptr_of(&issuer);
        uri.account = account.as_ptr();
        uri.secret = if self.secret.is_empty() { ptr::null() } else { self.secret.as_ptr() };
        uri.secret_len = self.secret.len();
        uri.algorithm = self.algorithm.raw();
        uri.digits = i32::try_from(self.digits).unwrap_or(i32::MAX);
        uri.period = self.period;
        uri.counter = self.counter;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_key_uri_build(&mut out, &uri, err.as_out()) };
        let built = unsafe { MfaString::from_raw(out) };
        err.check(status)?;
        built.ok_or_else(|| Error::Internal("no URI returned".to_string()))
    }

    /// Parses a key URI.
    ///
    /// Errors: `InvalidUri` (the message says why; it never holds the
    /// secret), `InvalidArgument` (a NUL, text over 64 KiB).
    pub fn parse(text_: &str) -> Result<KeyUri> {
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = with_c_str(text_, "the URI", |uri| unsafe { mfa_sys::mfa_key_uri_parse(&mut out, uri, err.as_out()) })?;
        let guard = ParsedUri(out);
        err.check(status)?;
        if guard.0.is_null() {
            return Err(Error::Internal("no URI returned".to_string()));
        }
        let fields = unsafe { &*guard.0 };
        Ok(KeyUri {
            kind: if fields.r#type == mfa_sys::MFA_OTP_HOTP { OtpKind::Hotp } else { OtpKind::Totp },
            issuer: unsafe { optional_text(fields.issuer) }.map(str::to_string),
            account: unsafe { text(fields.account) }.to_string(),
            secret: unsafe { bytes(fields.secret, fields.secret_len) }.to_vec(),
            algorithm: Algorithm::from_raw(fields.algorithm)?,
            digits: fields.digits as u32,
            period: fields.period,
            counter: fields.counter,
        })
    }

    /// A [`Totp`] with this URI's secret and parameters (for a TOTP URI).
    pub fn to_totp(&self) -> Result<Totp> {
        Totp::with_params(
            &self.secret,
            TotpParams { algorithm: self.algorithm, digits: self.digits, period: self.period, t0: 0 },
        )
    }

    /// An [`Hotp`] with this URI's secret and parameters (pass
    /// [`counter`](KeyUri::counter) to its calls).
    pub fn to_hotp(&self) -> Result<Hotp> {
        Hotp::new(&self.secret, self.digits, self.algorithm)
    }
}

/// What mfa_key_uri_parse returned, freed on every path.
struct ParsedUri(*mut mfa_sys::mfa_key_uri);

impl Drop for ParsedUri {
    fn drop(&mut self) {
        unsafe { mfa_sys::mfa_key_uri_free(self.0) };
    }
}

impl fmt::Debug for KeyUri {
    /// Every field but the secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyUri")
            .field("kind", &self.kind)
            .field("issuer", &self.issuer)
            .field("account", &self.account)
            .field("algorithm", &self.algorithm)
            .field("digits", &self.digits)
            .field("period", &self.period)
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}
