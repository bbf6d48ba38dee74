//! Enrolled second factors: [`FactorInfo`] (one factor, of any kind, as a
//! view), [`Factor`] (one that libmfa returned) and [`FactorList`].

use std::fmt;
use std::ops::Deref;

use crate::cstr::{optional_text, text};
use crate::generated::FactorKind;

view!(
    /// One enrolled second factor, of any kind, as listed and as shown in
    /// sign-in hints (`MultiFactorInfo`). Borrowed from the value that holds it.
    FactorInfo,
    mfa_sys::mfa_factor_info
);

impl FactorInfo {
    /// The enrollment id (28 URL-safe characters).
    pub fn uid(&self) -> &str {
        unsafe { text(self.0.uid) }
    }

    /// The factor id: "totp", "phone", "recovery", "webauthn", ...
    pub fn factor_id(&self) -> &str {
        unsafe { text(self.0.factor_id) }
    }

    /// The kind of factor.
    pub fn kind(&self) -> FactorKind {
        FactorKind::from_raw(self.0.kind)
    }

    /// The name the user gave the factor, or None.
    pub fn display_name(&self) -> Option<&str> {
        unsafe { optional_text(self.0.display_name) }
    }

    /// When it was enrolled (Unix seconds).
    pub fn enrollment_time(&self) -> i64 {
        self.0.enrollment_time
    }

    /// For a phone factor the number (masked in hints, e.g. `+1******1234`), else None.
    pub fn phone_number(&self) -> Option<&str> {
        unsafe { optional_text(self.0.phone_number) }
    }

    /// What identifies the factor to its user, never secret: "authenticator
    /// app", a masked number, "7 codes left". Show it in the list the user
    /// picks a factor from.
    pub fn hint(&self) -> &str {
        unsafe { text(self.0.hint) }
    }

    /// For a recovery-code set, how many codes are left; None for other kinds.
    pub fn remaining_codes(&self) -> Option<i64> {
        if self.0.remaining_codes >= 0 {
            Some(self.0.remaining_codes)
        } else {
            None
        }
    }
}

impl fmt::Debug for FactorInfo {
    /// Every field but the phone number (which may be in full): its hint is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FactorInfo")
            .field("uid", &self.uid())
            .field("factor_id", &self.factor_id())
            .field("kind", &self.kind())
            .field("display_name", &self.display_name())
            .field("enrollment_time", &self.enrollment_time())
            .field("hint", &self.hint())
            .field("remaining_codes", &self.remaining_codes())
            .finish_non_exhaustive()
    }
}

impl PartialEq for FactorInfo {
    fn eq(&self, other: &FactorInfo) -> bool {
        self.uid() == other.uid()
            && self.factor_id() == other.factor_id()
            && self.kind() == other.kind()
            && self.display_name() == other.display_name()
            && self.enrollment_time() == other.enrollment_time()
            && self.phone_number() == other.phone_number()
            && self.hint() == other.hint()
            && self.remaining_codes() == other.remaining_codes()
    }
}

c_owned!(
    /// A factor libmfa returned (a new enrollment, an import): derefs to [`FactorInfo`].
    Factor,
    mfa_sys::mfa_factor_info,
    mfa_sys::mfa_factor_info_free
);

impl Deref for Factor {
    type Target = FactorInfo;
    fn deref(&self) -> &FactorInfo {
        FactorInfo::of(self.raw())
    }
}

impl fmt::Debug for Factor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

c_owned!(
    /// A list of factors, oldest first: derefs to `[FactorInfo]`.
    FactorList,
    mfa_sys::mfa_factor_list,
    mfa_sys::mfa_factor_list_free
);

impl Deref for FactorList {
    type Target = [FactorInfo];
    fn deref(&self) -> &[FactorInfo] {
        unsafe { FactorInfo::slice(self.raw().items, self.raw().count) }
    }
}

impl fmt::Debug for FactorList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
