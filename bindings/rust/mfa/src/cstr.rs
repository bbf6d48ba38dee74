//! Rust strings into C and C strings out: NUL-terminated copies of
//! arguments, borrowed `&str` views of what libmfa returns.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr;

use crate::error::{Error, Result};

/// A NUL-terminated copy of `value`; `InvalidArgument` naming `what` if it holds a NUL.
pub(crate) fn c_string(value: &str, what: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error::invalid(format!("{} contains a NUL byte", what)))
}

/// `c_string` of an optional value.
pub(crate) fn c_optional(value: Option<&str>, what: &str) -> Result<Option<CString>> {
    value.map(|value| c_string(value, what)).transpose()
}

/// The pointer of an optional C string (NULL for None).
pub(crate) fn ptr_of(value: &Option<CString>) -> *const c_char {
    value.as_ref().map_or(ptr::null(), |value| value.as_ptr())
}

/// Runs `call` with `value` NUL-terminated, copied on the stack when it is
/// short (codes, ids): no allocation on the hot paths.
pub(crate) fn with_c_str<T>(value: &str, what: &str, call: impl FnOnce(*const c_char) -> T) -> Result<T> {
    const STACK: usize = 64;
    let bytes = value.as_bytes();
    if bytes.len() < STACK {
        let mut buffer = [0u8; STACK];
        buffer[..bytes.len()].copy_from_slice(bytes);
        if bytes.contains(&0) {
            return Err(Error::invalid(format!("{} contains a NUL byte", what)));
        }
        return Ok(call(buffer.as_ptr() as *const c_char));
    }
    let owned = c_string(value, what)?;
    Ok(call(owned.as_ptr()))
}

/// A borrowed C string as `&str` ("" for NULL; libmfa's strings are UTF-8,
/// anything else reads as U+FFFD).
///
/// # Safety
/// `pointer` is NULL or a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn text<'a>(pointer: *const c_char) -> &'a str {
    if pointer.is_null() {
        return "";
    }
    CStr::from_ptr(pointer).to_str().unwrap_or("\u{fffd}")
}

/// Like [`text`], with NULL as None.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn optional_text<'a>(pointer: *const c_char) -> Option<&'a str> {
    if pointer.is_null() {
        None
    } else {
        Some(text(pointer))
    }
}

/// Borrowed bytes (empty for NULL).
///
/// # Safety
/// `pointer` is NULL or points to `len` bytes that outlive `'a`.
pub(crate) unsafe fn bytes<'a>(pointer: *const u8, len: usize) -> &'a [u8] {
    if pointer.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(pointer, len)
    }
}

/// Overwrites `data` with zeros in a way the optimizer keeps (secrets, keys).
pub(crate) fn wipe(data: &mut [u8]) {
    for byte in data.iter_mut() {
        unsafe { ptr::write_volatile(byte, 0) };
    }
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}
