//! Errors: [`Error`] (generated from the header's status codes, one variant
//! per status name) and the checks that turn a C status into a `Result`.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;
use std::ptr;

pub use crate::generated::Error;

/// The result of every fallible call of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    /// `NAME: message`, e.g. `INVALID_VERIFICATION_CODE: the code is wrong`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.message())
    }
}

impl std::error::Error for Error {}

impl Error {
    /// An `InvalidArgument` error with a message (for what this binding checks itself).
    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::InvalidArgument(message.into())
    }
}

/// The stable name of a C status code ("OK", "INVALID_SESSION", ...; "UNKNOWN").
pub fn status_name(status: i32) -> &'static str {
    // The string is static in the library.
    unsafe { CStr::from_ptr(mfa_sys::mfa_status_name(status)) }.to_str().unwrap_or("UNKNOWN")
}

/// libmfa's short human message for a C status code ("unknown status code" if unknown).
pub fn errstr(status: i32) -> &'static str {
    unsafe { CStr::from_ptr(mfa_sys::mfa_errstr(status)) }.to_str().unwrap_or("unknown status code")
}

/// `Ok(())` for `MFA_OK`, else the error of `status` with libmfa's short message.
pub(crate) fn check(status: i32) -> Result<()> {
    if status == mfa_sys::MFA_OK {
        Ok(())
    } else {
        Err(Error::from_status(status, errstr(status).to_string()))
    }
}

/// An optional `char **err` out-parameter: pass [`ErrSlot::as_out`] to the
/// call, then [`ErrSlot::check`] with its status. The message is freed in
/// every case.
pub(crate) struct ErrSlot(*mut c_char);

impl ErrSlot {
    pub(crate) fn new() -> ErrSlot {
        ErrSlot(ptr::null_mut())
    }

    pub(crate) fn as_out(&mut self) -> *mut *mut c_char {
        &mut self.0
    }

    /// `Ok(())` for `MFA_OK`, else the error with the detailed message (or the short one).
    pub(crate) fn check(mut self, status: i32) -> Result<()> {
        if status == mfa_sys::MFA_OK {
            return Ok(());
        }
        let message = self.take().unwrap_or_else(|| errstr(status).to_string());
        Err(Error::from_status(status, message))
    }

    fn take(&mut self) -> Option<String> {
        if self.0.is_null() {
            return None;
        }
        let text = unsafe { CStr::from_ptr(self.0) }.to_string_lossy().into_owned();
        unsafe { mfa_sys::mfa_free(self.0 as *mut _) };
        self.0 = ptr::null_mut();
        Some(text)
    }
}

impl Drop for ErrSlot {
    fn drop(&mut self) {
        unsafe { mfa_sys::mfa_free(self.0 as *mut _) };
    }
}
