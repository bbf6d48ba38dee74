//! Recovery codes: a set of single-use codes for the user who lost their
//! other factors. A set is one factor (factor id "recovery"); it does not
//! count toward the factor limit, and a new set replaces the old one.
//! libmfa keeps only the codes' keyed hashes: show them to the user once.

use std::fmt;
use std::ptr;

use crate::cstr::{c_optional, ptr_of, text};
use crate::error::{Error, ErrSlot, Result};
use crate::factor::FactorInfo;
use crate::flow::Session;

c_owned!(
    /// A freshly generated recovery-code set: the codes, to show once, and
    /// the set as a factor. Wiped when dropped; the codes are left out of `Debug`.
    RecoveryCodes,
    mfa_sys::mfa_recovery_codes,
    mfa_sys::mfa_recovery_codes_free
);

impl RecoveryCodes {
    /// The codes, `"xxxx-xxxx-xx"` (10 by default).
    pub fn codes(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let raw = self.raw();
        let count = if raw.codes.is_null() { 0 } else { raw.count };
        (0..count).map(move |index| unsafe { text(*raw.codes.add(index)) })
    }

    /// The set as a factor (its hint says how many codes are left).
    pub fn factor(&self) -> &FactorInfo {
        FactorInfo::of(&self.raw().factor)
    }
}

impl fmt::Debug for RecoveryCodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecoveryCodes").field("count", &self.codes().len()).field("factor", self.factor()).finish()
    }
}

impl<'a> Session<'a> {
    /// Generates a new recovery-code set for the user of this session,
    /// replacing the previous set. Like any enrollment, it revokes the
    /// user's earlier credentials and tokens.
    ///
    /// Errors: `OperationNotAllowed` (recovery codes disabled),
    /// `InvalidSession`, `UserTokenExpired`, `InvalidArgument`, `Crypto`, `StorageError`.
    pub fn generate_recovery_codes(&self, display_name: Option<&str>) -> Result<RecoveryCodes> {
        let token = self.c_token()?;
        let name = c_optional(display_name, "the display name")?;
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_recovery_codes_generate(handle, &mut out, token.as_ptr(), ptr_of(&name), err.as_out())
        };
        let codes = unsafe { RecoveryCodes::from_raw(out) };
        err.check(status)?;
        codes.ok_or_else(|| Error::Internal("libmfa returned no codes".into()))
    }
}
