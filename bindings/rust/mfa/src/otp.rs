//! One-time passwords without state: random secrets, [`Totp`] (RFC 6238)
//! and [`Hotp`] (RFC 4226), and the [`Code`]s they make.
//!
//! Both are plain values, `Send` and `Sync`: every call writes into its own
//! buffers. They do not remember which codes were used; the engine
//! ([`crate::Context`]) does that for enrolled factors.

use std::fmt;
use std::ops::Deref;
use std::ptr;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cstr::{wipe, with_c_str};
use crate::error::{check, Error, Result};
use crate::strings::MfaString;

/// The HMAC a code is computed with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// HMAC-SHA1: the default, and what every authenticator app supports.
    #[default]
    Sha1,
    /// HMAC-SHA256.
    Sha256,
    /// HMAC-SHA512.
    Sha512,
}

impl Algorithm {
    /// The C number (`MFA_ALG_*`).
    pub fn raw(self) -> i32 {
        match self {
            Algorithm::Sha1 => mfa_sys::MFA_ALG_SHA1,
            Algorithm::Sha256 => mfa_sys::MFA_ALG_SHA256,
            Algorithm::Sha512 => mfa_sys::MFA_ALG_SHA512,
        }
    }

    /// The algorithm of a C number; `InvalidArgument` for another number.
    pub fn from_raw(raw: i32) -> Result<Algorithm> {
        match raw {
            mfa_sys::MFA_ALG_SHA1 => Ok(Algorithm::Sha1),
            mfa_sys::MFA_ALG_SHA256 => Ok(Algorithm::Sha256),
            mfa_sys::MFA_ALG_SHA512 => Ok(Algorithm::Sha512),
            other => Err(Error::invalid(format!("unknown algorithm {}", other))),
        }
    }

    /// "SHA1", "SHA256" or "SHA512", as key URIs write it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sha1 => "SHA1",
            Algorithm::Sha256 => "SHA256",
            Algorithm::Sha512 => "SHA512",
        }
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;
    /// "SHA1", "SHA256", "SHA512" in any case.
    fn from_str(text: &str) -> Result<Algorithm> {
        match text.to_ascii_uppercase().as_str() {
            "SHA1" => Ok(Algorithm::Sha1),
            "SHA256" => Ok(Algorithm::Sha256),
            "SHA512" => Ok(Algorithm::Sha512),
            _ => Err(Error::invalid("the algorithm must be SHA1, SHA256 or SHA512")),
        }
    }
}

/// A one-time code (6 to 8 digits), kept on the stack: derefs to `&str`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Code {
    digits: [u8; mfa_sys::MFA_CODE_BUFFER_SIZE as usize],
    len: u8,
}

impl Code {
    fn from_buffer(buffer: &[u8; mfa_sys::MFA_CODE_BUFFER_SIZE as usize]) -> Code {
        let len = buffer.iter().position(|&byte| byte == 0).unwrap_or(0);
        Code { digits: *buffer, len: len as u8 }
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.digits[..self.len as usize]).unwrap_or("")
    }
}

impl Deref for Code {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Code {
    /// Hidden: a code is a secret while it is valid.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Code(..)")
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A fresh random OTP secret of `len` bytes from libsodium's CSPRNG:
/// [`SECRET_MIN_BYTES`](mfa_sys::MFA_SECRET_MIN_BYTES) (16) to
/// [`SECRET_MAX_BYTES`](mfa_sys::MFA_SECRET_MAX_BYTES) (128); 20 (160 bits)
/// is what RFC 4226 recommends.
///
/// Errors: `InvalidArgument` (a length out of range), `Crypto`.
pub fn random_secret(len: usize) -> Result<Vec<u8>> {
    let mut secret = vec![0u8; len];
    check(unsafe { mfa_sys::mfa_random_secret(secret.as_mut_ptr(), len) })?;
    Ok(secret)
}

/// The current Unix time in seconds, from the system clock.
pub fn unix_now() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(elapsed) => elapsed.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    }
}

fn check_key(secret: &[u8]) -> Result<()> {
    if secret.is_empty() || secret.len() > mfa_sys::MFA_KEY_MAX_BYTES as usize {
        return Err(Error::invalid(format!(
            "the secret must be 1 to {} bytes, got {}",
            mfa_sys::MFA_KEY_MAX_BYTES,
            secret.len()
        )));
    }
    Ok(())
}

fn check_digits(digits: u32) -> Result<i32> {
    if !(mfa_sys::MFA_DIGITS_MIN as u32..=mfa_sys::MFA_DIGITS_MAX as u32).contains(&digits) {
        return Err(Error::invalid(format!("digits must be 6 to 8, got {}", digits)));
    }
    Ok(digits as i32)
}

fn check_window(window: u32, what: &str) -> Result<i32> {
    if window > mfa_sys::MFA_WINDOW_MAX as u32 {
        return Err(Error::invalid(format!("{} must be 0 to {}, got {}", what, mfa_sys::MFA_WINDOW_MAX, window)));
    }
    Ok(window as i32)
}

/// Time-based one-time passwords (RFC 6238) for one secret.
///
/// ```no_run
/// let secret = mfa::random_secret(20)?;
/// let totp = mfa::Totp::new(&secret)?;
/// let code = totp.now()?;
/// assert!(totp.verify(&code, mfa::unix_now(), 1)?);
/// # Ok::<(), mfa::Error>(())
/// ```
#[derive(Clone)]
pub struct Totp {
    key: Vec<u8>,
    params: mfa_sys::mfa_totp_params,
    /// Whether the parameters are libmfa's defaults (then the C calls get NULL).
    defaults: bool,
}

/// How a TOTP code is computed: [`Totp::with_params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TotpParams {
    /// The HMAC (SHA1 by default).
    pub algorithm: Algorithm,
    /// Digits per code, 6 (the default) to 8.
    pub digits: u32,
    /// The time step in seconds, 1 to one year (30 by default).
    pub period: i64,
    /// The Unix time at which step 0 starts (RFC 6238's T0, 0 by default).
    pub t0: i64,
}

impl Default for TotpParams {
    fn default() -> TotpParams {
        TotpParams { algorithm: Algorithm::Sha1, digits: 6, period: 30, t0: 0 }
    }
}

impl TotpParams {
    pub(crate) fn to_c(self) -> Result<mfa_sys::mfa_totp_params> {
        let mut params = unsafe { std::mem::zeroed::<mfa_sys::mfa_totp_params>() };
        check(unsafe { mfa_sys::mfa_totp_params_init(&mut params, mfa_sys::MFA_TOTP_PARAMS_VERSION) })?;
        params.algorithm = self.algorithm.raw();
        params.digits = check_digits(self.digits)?;
        if !(1..=mfa_sys::MFA_PERIOD_MAX as i64).contains(&self.period) {
            return Err(Error::invalid(format!("the period must be 1 to {} seconds", mfa_sys::MFA_PERIOD_MAX)));
        }
        params.period = self.period;
        params.t0 = self.t0;
        Ok(params)
    }
}

impl Totp {
    /// TOTP with the defaults: SHA1, 6 digits, 30 s, T0 = 0.
    ///
    /// Errors: `InvalidArgument` (a secret of 0 or more than 1024 bytes).
    pub fn new(secret: &[u8]) -> Result<Totp> {
        Totp::with_params(secret, TotpParams::default())
    }

    /// TOTP with other parameters.
    ///
    /// Errors: `InvalidArgument` (secret length, digits, period).
    pub fn with_params(secret: &[u8], params: TotpParams) -> Result<Totp> {
        check_key(secret)?;
        let c = params.to_c()?;
        Ok(Totp { key: secret.to_vec(), params: c, defaults: params == TotpParams::default() })
    }

    /// The raw shared secret.
    pub fn secret(&self) -> &[u8] {
        &self.key
    }

    /// The parameters.
    pub fn params(&self) -> TotpParams {
        TotpParams {
            algorithm: Algorithm::from_raw(self.params.algorithm).unwrap_or_default(),
            digits: self.params.digits as u32,
            period: self.params.period,
            t0: self.params.t0,
        }
    }

    fn c_params(&self) -> *const mfa_sys::mfa_totp_params {
        if self.defaults {
            ptr::null()
        } else {
            &self.params
        }
    }

    /// The time step that contains `unix_time`: `(unix_time - t0) / period`, rounded down.
    pub fn timecode(&self, unix_time: i64) -> i64 {
        (unix_time - self.params.t0).div_euclid(self.params.period)
    }

    /// The code for the time step that contains `unix_time`.
    ///
    /// Errors: `InvalidArgument` (a time before T0).
    pub fn at(&self, unix_time: i64) -> Result<Code> {
        let mut out = [0u8; mfa_sys::MFA_CODE_BUFFER_SIZE as usize];
        check(unsafe {
            mfa_sys::mfa_totp_generate(
                out.as_mut_ptr() as *mut _,
                out.len(),
                self.key.as_ptr(),
                self.key.len(),
                self.c_params(),
                unix_time,
            )
        })?;
        Ok(Code::from_buffer(&out))
    }

    /// The code for now (the system clock).
    pub fn now(&self) -> Result<Code> {
        self.at(unix_now())
    }

    /// Whether `code` is right at `unix_time`, give or take `window` time
    /// steps (0 to 10). A malformed code (letters, another length) is
    /// `Ok(false)`. Stateless: to make codes single-use, use
    /// [`matching_step`](Totp::matching_step) and refuse steps at or before
    /// the last accepted one, or let the engine do it.
    ///
    /// Errors: `InvalidArgument` (a NUL in the code, a window over 10, a time before T0).
    #[inline]
    pub fn verify(&self, code: &str, unix_time: i64, window: u32) -> Result<bool> {
        let window = check_window(window, "the window")?;
        let status = with_c_str(code, "the code", |code| unsafe {
            mfa_sys::mfa_totp_verify(
                ptr::null_mut(),
                self.key.as_ptr(),
                self.key.len(),
                self.c_params(),
                unix_time,
                window,
                code,
            )
        })?;
        match status {
            mfa_sys::MFA_OK => Ok(true),
            mfa_sys::MFA_ERR_INVALID_VERIFICATION_CODE => Ok(false),
            other => check(other).map(|_| false),
        }
    }

    /// Like [`verify`](Totp::verify), but the time step that matched, or None.
    pub fn matching_step(&self, code: &str, unix_time: i64, window: u32) -> Result<Option<i64>> {
        let window = check_window(window, "the window")?;
        let mut step = 0i64;
        let status = with_c_str(code, "the code", |code| unsafe {
            mfa_sys::mfa_totp_verify(
                &mut step,
                self.key.as_ptr(),
                self.key.len(),
                self.c_params(),
                unix_time,
                window,
                code,
            )
        })?;
        match status {
            mfa_sys::MFA_OK => Ok(Some(step)),
            mfa_sys::MFA_ERR_INVALID_VERIFICATION_CODE => Ok(None),
            other => check(other).map(|_| None),
        }
    }

    /// The `otpauth://totp/...` key URI of this secret (what a QR code
    /// holds), issuer and account percent-encoded.
    ///
    /// Errors: `InvalidArgument` (an empty account, a T0 other than 0, which a URI cannot carry).
    pub fn provisioning_uri(&self, account: &str, issuer: Option<&str>) -> Result<MfaString> {
        if self.params.t0 != 0 {
            return Err(Error::invalid("a key URI cannot carry t0: only t0 = 0 can be provisioned"));
        }
        let params = self.params();
        let uri = crate::key_uri::KeyUri {
            kind: crate::key_uri::OtpKind::Totp,
            issuer: issuer.map(str::to_string),
            account: account.to_string(),
            secret: self.key.clone(),
            algorithm: params.algorithm,
            digits: params.digits,
            period: params.period,
            counter: 0,
        };
        uri.to_uri()
    }
}

impl fmt::Debug for Totp {
    /// The parameters, never the secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Totp").field("params", &self.params()).finish_non_exhaustive()
    }
}

impl Drop for Totp {
    fn drop(&mut self) {
        wipe(&mut self.key);
    }
}

/// Counter-based one-time passwords (RFC 4226) for one secret.
#[derive(Clone)]
pub struct Hotp {
    key: Vec<u8>,
    digits: i32,
    algorithm: Algorithm,
}

impl Hotp {
    /// HOTP with `digits` (6 to 8) and `algorithm`.
    ///
    /// Errors: `InvalidArgument` (secret length, digits).
    pub fn new(secret: &[u8], digits: u32, algorithm: Algorithm) -> Result<Hotp> {
        check_key(secret)?;
        Ok(Hotp { key: secret.to_vec(), digits: check_digits(digits)?, algorithm })
    }

    /// The raw shared secret.
    pub fn secret(&self) -> &[u8] {
        &self.key
    }

    /// The code length.
    pub fn digits(&self) -> u32 {
        self.digits as u32
    }

    /// The HMAC.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The code for `counter`.
    pub fn at(&self, counter: u64) -> Result<Code> {
        let mut out = [0u8; mfa_sys::MFA_CODE_BUFFER_SIZE as usize];
        check(unsafe {
            mfa_sys::mfa_hotp_generate(
                out.as_mut_ptr() as *mut _,
                out.len(),
                self.key.as_ptr(),
                self.key.len(),
                counter,
                self.digits,
                self.algorithm.raw(),
            )
        })?;
        Ok(Code::from_buffer(&out))
    }

    /// Whether `code` is right for `counter` or up to `look_ahead` (0 to 10) counters after it.
    pub fn verify(&self, code: &str, counter: u64, look_ahead: u32) -> Result<bool> {
        self.matching_counter(code, counter, look_ahead).map(|found| found.is_some())
    }

    /// Like [`verify`](Hotp::verify), but the counter that matched, or None:
    /// the next expected counter is that plus one.
    pub fn matching_counter(&self, code: &str, counter: u64, look_ahead: u32) -> Result<Option<u64>> {
        let look_ahead = check_window(look_ahead, "the look-ahead")?;
        let mut matched = 0u64;
        let status = with_c_str(code, "the code", |code| unsafe {
            mfa_sys::mfa_hotp_verify(
                &mut matched,
                self.key.as_ptr(),
                self.key.len(),
                counter,
                look_ahead,
                self.digits,
                self.algorithm.raw(),
                code,
            )
        })?;
        match status {
            mfa_sys::MFA_OK => Ok(Some(matched)),
            mfa_sys::MFA_ERR_INVALID_VERIFICATION_CODE => Ok(None),
            other => check(other).map(|_| None),
        }
    }
}

impl fmt::Debug for Hotp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hotp")
            .field("digits", &self.digits)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Drop for Hotp {
    fn drop(&mut self) {
        wipe(&mut self.key);
    }
}
