//! [`User`]: who passed the first factor, as the host knows them.

use std::ffi::CString;

use crate::cstr::{c_optional, c_string, ptr_of};
use crate::error::{check, Result};

/// A user as the host knows them after the first factor (`mfa_user`).
///
/// libmfa keeps no accounts: the host says who signed in, how and when,
/// and libmfa decides what the second factor requires.
///
/// ```
/// let user = mfa::User::new("alice", 1_700_000_000)
///     .with_email("alice@example.com", true)
///     .with_tenant("acme");
/// assert_eq!(user.provider, "password");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct User {
    /// The user's id, 1 to 128 bytes.
    pub uid: String,
    /// The tenant, or None for the project.
    pub tenant: Option<String>,
    /// The email address, or None.
    pub email: Option<String>,
    /// Whether the host verified the email address (enrolling needs it).
    pub email_verified: bool,
    /// The first-factor provider id: "password" (the default), "emailLink",
    /// "google.com", ... ("phone", "anonymous", "custom" and "gc.apple.com"
    /// cannot carry a second factor).
    pub provider: String,
    /// When the user passed the first factor (Unix seconds): what the
    /// recent-login checks look at.
    pub auth_time: i64,
}

impl User {
    /// A user who passed a password first factor at `auth_time`.
    pub fn new(uid: impl Into<String>, auth_time: i64) -> User {
        User {
            uid: uid.into(),
            tenant: None,
            email: None,
            email_verified: false,
            provider: "password".to_string(),
            auth_time,
        }
    }

    /// The same user in `tenant`.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> User {
        self.tenant = Some(tenant.into());
        self
    }

    /// The same user with an email address, verified or not.
    pub fn with_email(mut self, email: impl Into<String>, verified: bool) -> User {
        self.email = Some(email.into());
        self.email_verified = verified;
        self
    }

    /// The same user with another first-factor provider id.
    pub fn with_provider(mut self, provider: impl Into<String>) -> User {
        self.provider = provider.into();
        self
    }

    /// The same user, authenticated at `auth_time`.
    pub fn with_auth_time(mut self, auth_time: i64) -> User {
        self.auth_time = auth_time;
        self
    }
}

/// A [`User`] as an `mfa_user`, with the C strings it points to.
pub(crate) struct CUser {
    pub(crate) raw: mfa_sys::mfa_user,
    _strings: (CString, Option<CString>, Option<CString>, CString),
}

impl CUser {
    pub(crate) fn new(user: &User) -> Result<CUser> {
        let uid = c_string(&user.uid, "the uid")?;
        let tenant = c_optional(user.tenant.as_deref(), "the tenant")?;
        let email = c_optional(user.email.as_deref(), "the email")?;
        let provider = c_string(&user.provider, "the provider")?;
        let mut raw = unsafe { std::mem::zeroed::<mfa_sys::mfa_user>() };
        check(unsafe { mfa_sys::mfa_user_init(&mut raw, mfa_sys::MFA_USER_VERSION) })?;
        raw.uid = uid.as_ptr();
        raw.tenant = ptr_of(&tenant);
        raw.email = ptr_of(&email);
        raw.email_verified = user.email_verified as i32;
        raw.provider = provider.as_ptr();
        raw.auth_time = user.auth_time;
        Ok(CUser { raw, _strings: (uid, tenant, email, provider) })
    }
}
