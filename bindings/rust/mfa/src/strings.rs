//! What libmfa allocates and hands over: [`MfaString`] (a string) and
//! [`Buffer`] (bytes), each freed with `mfa_free` when dropped.

use std::fmt;
use std::ops::Deref;
use std::os::raw::c_char;
use std::ptr::NonNull;

use crate::cstr::wipe;

/// A string libmfa allocated (a token, a URI, JSON, base32 text): derefs to
/// `&str`, freed with `mfa_free` on drop. `to_string()` copies it.
pub struct MfaString {
    pointer: NonNull<c_char>,
    len: usize,
    /// libmfa's strings are UTF-8; anything else reads as U+FFFD.
    utf8: bool,
}

// A string nobody writes to: libmfa's plain data may be shared and moved between threads.
unsafe impl Send for MfaString {}
unsafe impl Sync for MfaString {}

impl MfaString {
    /// Takes ownership of a string libmfa returned (None for NULL).
    ///
    /// # Safety
    /// `pointer` is NULL or a NUL-terminated string from libmfa, owned by the caller.
    pub(crate) unsafe fn from_raw(pointer: *mut c_char) -> Option<MfaString> {
        let pointer = NonNull::new(pointer)?;
        let len = std::ffi::CStr::from_ptr(pointer.as_ptr()).to_bytes().len();
        let utf8 = std::str::from_utf8(std::slice::from_raw_parts(pointer.as_ptr() as *const u8, len)).is_ok();
        Some(MfaString { pointer, len, utf8 })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        if !self.utf8 {
            return "\u{fffd}";
        }
        // Checked to be UTF-8 when taken over.
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.pointer.as_ptr() as *const u8, self.len))
        }
    }
}

impl Deref for MfaString {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for MfaString {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for MfaString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for MfaString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for MfaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for MfaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<MfaString> for String {
    fn from(value: MfaString) -> String {
        value.as_str().to_string()
    }
}

impl Drop for MfaString {
    fn drop(&mut self) {
        unsafe { mfa_sys::mfa_free(self.pointer.as_ptr() as *mut _) };
    }
}

/// Bytes libmfa allocated (decoded base32, a QR image): derefs to `&[u8]`,
/// wiped and freed with `mfa_free` on drop (they may be a secret).
/// `to_vec()` copies them.
pub struct Buffer {
    pointer: *mut u8,
    len: usize,
}

unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Takes ownership of `len` bytes libmfa returned (`pointer` may be NULL when `len` is 0).
    ///
    /// # Safety
    /// `pointer` is NULL or an allocation of libmfa of at least `len` bytes, owned by the caller.
    pub(crate) unsafe fn from_raw(pointer: *mut u8, len: usize) -> Buffer {
        Buffer { pointer, len: if pointer.is_null() { 0 } else { len } }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        unsafe { crate::cstr::bytes(self.pointer, self.len) }
    }

    /// The bytes as text, if they are UTF-8 (an SVG or terminal QR code), without a final NUL.
    pub fn as_str(&self) -> Option<&str> {
        let bytes = self.as_bytes();
        let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        std::str::from_utf8(bytes).ok()
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for Buffer {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for Buffer {
    /// The length only: the bytes may be a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer({} bytes)", self.len)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if !self.pointer.is_null() {
            wipe(unsafe { std::slice::from_raw_parts_mut(self.pointer, self.len) });
            unsafe { mfa_sys::mfa_free(self.pointer as *mut _) };
        }
    }
}
