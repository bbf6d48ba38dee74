//! RFC 4648 base32, as authenticator apps show secrets.

use std::ptr;

use crate::cstr::with_c_str;
use crate::error::{check, Result};
use crate::strings::{Buffer, MfaString};

/// `data` as upper-case base32, with `=` padding when `padding` is true.
///
/// Errors: `InvalidArgument` (more than 32 KiB of data).
pub fn base32_encode(data: &[u8], padding: bool) -> Result<MfaString> {
    let mut out = ptr::null_mut();
    let flags = if padding { 0 } else { mfa_sys::MFA_BASE32_NO_PADDING };
    let pointer = if data.is_empty() { ptr::null() } else { data.as_ptr() };
    check(unsafe { mfa_sys::mfa_base32_encode(&mut out, pointer, data.len(), flags) })?;
    Ok(unsafe { MfaString::from_raw(out) }.expect("libmfa returned a string"))
}

/// The bytes of base32 `text` (either case, with or without padding),
/// wiped when dropped.
///
/// Errors: `InvalidBase32` (a character outside the alphabet, spaces
/// included, misplaced padding, an impossible length), `InvalidArgument`
/// (a NUL, text over 64 KiB).
pub fn base32_decode(text: &str) -> Result<Buffer> {
    let mut out = ptr::null_mut();
    let mut len = 0usize;
    let status = with_c_str(text, "the text", |text| unsafe { mfa_sys::mfa_base32_decode(&mut out, &mut len, text) })?;
    let buffer = unsafe { Buffer::from_raw(out, len) };
    check(status)?;
    Ok(buffer)
}
