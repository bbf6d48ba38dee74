//! QR codes of otpauth:// URIs (or any text), by libqrencode.

use std::ptr;

use crate::cstr::with_c_str;
use crate::error::{check, Result};
use crate::strings::Buffer;

/// What a QR code is rendered as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QrFormat {
    /// A PNG image (scale 8, quiet zone 4).
    Png,
    /// An SVG document (UTF-8 text: [`Buffer::as_str`]).
    Svg,
    /// UTF-8 half blocks for a terminal, dark on light ([`Buffer::as_str`]).
    Text,
}

impl QrFormat {
    fn raw(self) -> i32 {
        match self {
            QrFormat::Png => mfa_sys::MFA_QR_PNG,
            QrFormat::Svg => mfa_sys::MFA_QR_SVG,
            QrFormat::Text => mfa_sys::MFA_QR_TEXT,
        }
    }
}

/// `text` (usually an otpauth:// URI) as a QR code. The image holds what
/// `text` holds: for a key URI it is the secret, treat it as one (the
/// buffer is wiped when dropped).
///
/// Errors: `InvalidArgument` (empty or too-long text, a NUL).
pub fn qr_code(text: &str, format: QrFormat) -> Result<Buffer> {
    let mut out = ptr::null_mut();
    let mut len = 0usize;
    let status =
        with_c_str(text, "the text", |text| unsafe { mfa_sys::mfa_qr_encode(&mut out, &mut len, text, format.raw()) })?;
    let buffer = unsafe { Buffer::from_raw(out, len) };
    check(status)?;
    Ok(buffer)
}
