//! TOTP second factors (authenticator apps): [`TotpSecret`], made by
//! [`Session::totp_secret`], and enrolled with
//! [`Assertion::totp_enrollment`](crate::Assertion::totp_enrollment).
//!
//! ```no_run
//! # fn demo(ctx: &mfa::Context, user: &mfa::User, code: &str) -> mfa::Result<()> {
//! let mf = ctx.multi_factor(user);
//! let secret = mf.session()?.totp_secret()?;
//! println!("{}", secret.qr_code_url("alice@example.com", Some("ACME"))?);
//! let factor = mf.enroll(&mfa::Assertion::totp_enrollment(&secret, code), Some("phone"))?;
//! # Ok(()) }
//! ```

use std::fmt;
use std::ptr;

use crate::base32::base32_decode;
use crate::cstr::{c_optional, c_string, ptr_of, text};
use crate::error::{Error, ErrSlot, Result};
use crate::flow::Session;
use crate::otp::{Algorithm, Totp, TotpParams};
use crate::qr::{qr_code, QrFormat};
use crate::strings::{Buffer, MfaString};

c_owned!(
    /// A fresh TOTP shared secret waiting for the user to prove they have it
    /// (`TOTPSecret`). libmfa keeps it, encrypted, until the enrollment
    /// finishes or its deadline passes. Wiped when dropped; the key and the
    /// session info are left out of `Debug`.
    TotpSecret,
    mfa_sys::mfa_totp_secret,
    mfa_sys::mfa_totp_secret_free
);

impl TotpSecret {
    /// The secret as RFC 4648 base32 without padding, for users who type it in.
    pub fn shared_secret_key(&self) -> &str {
        unsafe { text(self.raw().shared_secret_key) }
    }

    /// The HMAC (SHA1: what every authenticator app supports).
    pub fn algorithm(&self) -> Algorithm {
        Algorithm::from_raw(self.raw().algorithm).unwrap_or_default()
    }

    /// Digits per code (6).
    pub fn digits(&self) -> u32 {
        self.raw().digits as u32
    }

    /// The time step in seconds (30).
    pub fn period(&self) -> i64 {
        self.raw().period
    }

    /// Unix time by which the enrollment must finish.
    pub fn enrollment_completion_deadline(&self) -> i64 {
        self.raw().deadline
    }

    /// The opaque token naming this pending enrollment.
    pub fn session_info(&self) -> &str {
        unsafe { text(self.raw().session_info) }
    }

    /// The `otpauth://totp/...` URI an authenticator app reads from a QR code
    /// (`generateQRCodeURL`), issuer and account name percent-encoded.
    ///
    /// Errors: `InvalidArgument` (an empty or overlong account name, a NUL).
    pub fn qr_code_url(&self, account_name: &str, issuer: Option<&str>) -> Result<MfaString> {
        let account = c_string(account_name, "the account name")?;
        let issuer = c_optional(issuer, "the issuer")?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_totp_secret_uri(&mut out, self.raw(), account.as_ptr(), ptr_of(&issuer), err.as_out())
        };
        let uri = unsafe { MfaString::from_raw(out) };
        err.check(status)?;
        uri.ok_or_else(|| Error::Internal("libmfa returned no URI".into()))
    }

    /// The QR code of [`qr_code_url`](TotpSecret::qr_code_url) (PNG, SVG or
    /// terminal text). It holds the secret.
    pub fn qr_code(&self, account_name: &str, issuer: Option<&str>, format: QrFormat) -> Result<Buffer> {
        qr_code(&self.qr_code_url(account_name, issuer)?, format)
    }

    /// What the user's authenticator app computes with this secret: a [`Totp`].
    pub fn authenticator(&self) -> Result<Totp> {
        let key = base32_decode(self.shared_secret_key())?;
        Totp::with_params(
            &key,
            TotpParams { algorithm: self.algorithm(), digits: self.digits(), period: self.period(), t0: 0 },
        )
    }
}

impl fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TotpSecret")
            .field("algorithm", &self.algorithm())
            .field("digits", &self.digits())
            .field("period", &self.period())
            .field("enrollment_completion_deadline", &self.enrollment_completion_deadline())
            .finish_non_exhaustive()
    }
}

impl<'a> Session<'a> {
    /// Generates a TOTP secret for the user of this session
    /// (`TOTPMultiFactorGenerator.generateSecret`).
    ///
    /// Errors: `InvalidSession` (missing, tampered, expired or used),
    /// `UserTokenExpired`, `OperationNotAllowed` (TOTP disabled),
    /// `SecondFactorLimitExceeded`, `Crypto` (the random callback), `StorageError`.
    pub fn totp_secret(&self) -> Result<TotpSecret> {
        let token = self.c_token()?;
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_totp_generate_secret(handle, &mut out, token.as_ptr(), err.as_out()) };
        let secret = unsafe { TotpSecret::from_raw(out) };
        err.check(status)?;
        secret.ok_or_else(|| Error::Internal("libmfa returned no secret".into()))
    }
}
