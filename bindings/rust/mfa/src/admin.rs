//! The operator's side of the engine: [`Admin`] (`mfa_admin_*`). The calls
//! need no user sign-in: the host decides who may make them. An `Admin` is
//! made for one actor, which the audit events of every call that changes
//! something carry. Imports and key rotation are in the `import` module.
//!
//! ```no_run
//! # fn demo(ctx: &mfa::Context) -> mfa::Result<()> {
//! let admin = ctx.admin("ops:bob")?;
//! for page in admin.pages(mfa::Tenants::All, Some("totp"), 100) {
//!     for user in page?.users() {
//!         println!("{:?} {} {}", user.tenant(), user.uid(), user.factor_total());
//!     }
//! }
//! admin.reset_user("alice", None)?; // lost phone: every factor gone, tokens revoked
//! # Ok(()) }
//! ```

use std::ffi::CString;
use std::fmt;
use std::ops::Deref;
use std::os::raw::c_char;
use std::ptr;

use crate::context::Context;
use crate::cstr::{c_optional, c_string, optional_text, ptr_of, text};
use crate::error::{Error, ErrSlot, Result};
use crate::factor::{FactorInfo, FactorList};
use crate::generated::FactorKind;

/// Which users [`Admin::list_users`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tenants<'a> {
    /// The project and every tenant.
    All,
    /// The project only.
    Project,
    /// One tenant.
    Tenant(&'a str),
}

/// The administrative calls on a context, made by one actor: get one with [`Context::admin`].
pub struct Admin<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) actor: CString,
}

impl<'a> Admin<'a> {
    pub(crate) fn new(ctx: &'a Context, actor: &str) -> Result<Admin<'a>> {
        if actor.is_empty() || actor.len() > mfa_sys::MFA_ACTOR_MAX_BYTES as usize {
            return Err(Error::invalid(format!("the actor must be 1 to {} bytes", mfa_sys::MFA_ACTOR_MAX_BYTES)));
        }
        Ok(Admin { ctx, actor: c_string(actor, "the actor")? })
    }

    /// The actor.
    pub fn actor(&self) -> &str {
        self.actor.to_str().unwrap_or("")
    }

    /// One page of the users that have second factors, ordered by tenant (the
    /// project first) then uid: those of `tenants`, with a factor of
    /// `factor_id` if given ("totp", "phone", "recovery", ...), at most
    /// `limit` (1 to 1000), after `cursor` (the `next_cursor` of the page
    /// before, None for the first page).
    ///
    /// Errors: `InvalidArgument` (a limit out of range, an unknown factor id,
    /// a cursor libmfa did not make), `StorageError`.
    pub fn list_users(
        &self,
        tenants: Tenants<'_>,
        factor_id: Option<&str>,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<AdminUserPage> {
        let tenant = match tenants {
            Tenants::All => None,
            Tenants::Project => Some(CString::default()),
            Tenants::Tenant(tenant) => Some(c_string(tenant, "the tenant")?),
        };
        let factor_id = c_optional(factor_id, "the factor id")?;
        let cursor = c_optional(cursor, "the cursor")?;
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_admin_list_users(
                handle,
                &mut out,
                ptr_of(&tenant),
                ptr_of(&factor_id),
                limit,
                ptr_of(&cursor),
                err.as_out(),
            )
        };
        let page = unsafe { AdminUserPage::from_raw(out) };
        err.check(status)?;
        page.ok_or_else(|| Error::Internal("libmfa returned no page".into()))
    }

    /// Every page of [`list_users`](Admin::list_users), one after the other
    /// (it stops after the last page, or after an error).
    pub fn pages<'b>(&'b self, tenants: Tenants<'b>, factor_id: Option<&'b str>, limit: u32) -> AdminPages<'b> {
        AdminPages { admin: self, tenants, factor_id, limit, cursor: None, done: false }
    }

    /// One user's factors, oldest first; phone numbers masked as in hints
    /// unless `show_phone_numbers`.
    ///
    /// Errors: `InvalidArgument`, `Crypto` (a number that does not decrypt
    /// with the context's keys), `StorageError`.
    pub fn user_factors(&self, uid: &str, tenant: Option<&str>, show_phone_numbers: bool) -> Result<FactorList> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        let flags = if show_phone_numbers { mfa_sys::MFA_ADMIN_SHOW_PHONE_NUMBERS } else { 0 };
        self.list_call(|handle, out, err| unsafe {
            mfa_sys::mfa_admin_user_factors(handle, out, ptr_of(&tenant), uid.as_ptr(), flags, err)
        })
    }

    /// One factor, found by its enrollment id alone, with the user who has it.
    ///
    /// Errors: `MfaEnrollmentNotFound`, `InvalidArgument`, `Crypto`, `StorageError`.
    pub fn factor(&self, enrollment_id: &str, show_phone_numbers: bool) -> Result<AdminFactor> {
        let id = c_string(enrollment_id, "the enrollment id")?;
        let flags = if show_phone_numbers { mfa_sys::MFA_ADMIN_SHOW_PHONE_NUMBERS } else { 0 };
        self.factor_call(|handle, out, err| unsafe { mfa_sys::mfa_admin_factor_get(handle, out, id.as_ptr(), flags, err) })
    }

    /// Removes one factor, whoever has it, and revokes that user's
    /// credentials and tokens (audited: `Unenroll`, detail "ADMIN"). The removed factor.
    ///
    /// Errors: `MfaEnrollmentNotFound`, `InvalidArgument`, `StorageError`.
    pub fn unenroll(&self, enrollment_id: &str) -> Result<AdminFactor> {
        let id = c_string(enrollment_id, "the enrollment id")?;
        let actor = self.actor.as_ptr();
        self.factor_call(|handle, out, err| unsafe { mfa_sys::mfa_admin_unenroll(handle, out, id.as_ptr(), actor, err) })
    }

    /// Renames a factor (None or "" removes its name; at most 256 bytes);
    /// audited (`FactorRenamed`). The factor as it is now.
    ///
    /// Errors: `MfaEnrollmentNotFound`, `InvalidArgument`, `StorageError`.
    pub fn rename(&self, enrollment_id: &str, display_name: Option<&str>) -> Result<AdminFactor> {
        let id = c_string(enrollment_id, "the enrollment id")?;
        let name = c_optional(display_name, "the display name")?;
        let actor = self.actor.as_ptr();
        self.factor_call(|handle, out, err| unsafe {
            mfa_sys::mfa_admin_rename(handle, out, id.as_ptr(), ptr_of(&name), actor, err)
        })
    }

    /// Resets a user who lost their second factors: removes every factor
    /// (and any enrollment or SMS code in flight), clears their backoff and
    /// revokes their credentials and tokens, in one transaction. The removed factors.
    ///
    /// Errors: `MfaEnrollmentNotFound` (nothing is stored about the user),
    /// `InvalidArgument`, `StorageError`.
    pub fn reset_user(&self, uid: &str, tenant: Option<&str>) -> Result<FactorList> {
        self.removal(uid, tenant, mfa_sys::mfa_admin_reset_user)
    }

    /// Deletes everything stored about a user, for an erasure request; only
    /// a revocation marker stays. The removed factors.
    ///
    /// Errors: `MfaEnrollmentNotFound`, `InvalidArgument`, `StorageError`.
    pub fn delete_user(&self, uid: &str, tenant: Option<&str>) -> Result<FactorList> {
        self.removal(uid, tenant, mfa_sys::mfa_admin_delete_user)
    }

    /// Users and factors, counted per tenant and kind.
    pub fn stats(&self) -> Result<AdminStats> {
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_admin_stats_get(handle, &mut out, err.as_out()) };
        let stats = unsafe { AdminStats::from_raw(out) };
        err.check(status)?;
        stats.ok_or_else(|| Error::Internal("libmfa returned no counts".into()))
    }

    fn removal(
        &self,
        uid: &str,
        tenant: Option<&str>,
        function: unsafe extern "C" fn(
            *mut mfa_sys::mfa_ctx,
            *mut *mut mfa_sys::mfa_factor_list,
            *const c_char,
            *const c_char,
            *const c_char,
            *mut *mut c_char,
        ) -> i32,
    ) -> Result<FactorList> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        let actor = self.actor.as_ptr();
        self.list_call(|handle, out, err| unsafe { function(handle, out, ptr_of(&tenant), uid.as_ptr(), actor, err) })
    }

    fn list_call(
        &self,
        call: impl FnOnce(*mut mfa_sys::mfa_ctx, *mut *mut mfa_sys::mfa_factor_list, *mut *mut c_char) -> i32,
    ) -> Result<FactorList> {
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = call(handle, &mut out, err.as_out());
        let list = unsafe { FactorList::from_raw(out) };
        err.check(status)?;
        list.ok_or_else(|| Error::Internal("libmfa returned no list".into()))
    }

    fn factor_call(
        &self,
        call: impl FnOnce(*mut mfa_sys::mfa_ctx, *mut *mut mfa_sys::mfa_admin_factor, *mut *mut c_char) -> i32,
    ) -> Result<AdminFactor> {
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = call(handle, &mut out, err.as_out());
        let factor = unsafe { AdminFactor::from_raw(out) };
        err.check(status)?;
        factor.ok_or_else(|| Error::Internal("libmfa returned no factor".into()))
    }
}

impl fmt::Debug for Admin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admin").field("actor", &self.actor()).finish()
    }
}

/// The pages of [`Admin::pages`].
pub struct AdminPages<'a> {
    admin: &'a Admin<'a>,
    tenants: Tenants<'a>,
    factor_id: Option<&'a str>,
    limit: u32,
    cursor: Option<String>,
    done: bool,
}

impl Iterator for AdminPages<'_> {
    type Item = Result<AdminUserPage>;

    fn next(&mut self) -> Option<Result<AdminUserPage>> {
        if self.done {
            return None;
        }
        let page = self.admin.list_users(self.tenants, self.factor_id, self.limit, self.cursor.as_deref());
        match &page {
            Ok(page) => {
                self.cursor = page.next_cursor().map(str::to_string);
                self.done = self.cursor.is_none();
            }
            Err(_) => self.done = true,
        }
        Some(page)
    }
}

view!(
    /// How many factors of one kind a user has.
    FactorCount,
    mfa_sys::mfa_factor_count
);

impl FactorCount {
    /// The factor id.
    pub fn factor_id(&self) -> &str {
        unsafe { text(self.0.factor_id) }
    }

    /// The kind.
    pub fn kind(&self) -> FactorKind {
        FactorKind::from_raw(self.0.kind)
    }

    /// How many.
    pub fn count(&self) -> i64 {
        self.0.count
    }
}

impl fmt::Debug for FactorCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.factor_id(), self.count())
    }
}

view!(
    /// A user who has second factors, as [`Admin::list_users`] lists them.
    AdminUser,
    mfa_sys::mfa_admin_user
);

impl AdminUser {
    /// The tenant, or None for the project.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.0.tenant) }
    }

    /// The user's id.
    pub fn uid(&self) -> &str {
        unsafe { text(self.0.uid) }
    }

    /// How many factors the user has, of every kind.
    pub fn factor_total(&self) -> i64 {
        self.0.factor_total
    }

    /// The factors per kind, in factor-id order.
    pub fn factor_counts(&self) -> &[FactorCount] {
        unsafe { FactorCount::slice(self.0.kinds, self.0.kind_count) }
    }
}

impl fmt::Debug for AdminUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminUser")
            .field("tenant", &self.tenant())
            .field("uid", &self.uid())
            .field("factor_total", &self.factor_total())
            .field("factor_counts", &self.factor_counts())
            .finish()
    }
}

c_owned!(
    /// One page of [`Admin::list_users`].
    AdminUserPage,
    mfa_sys::mfa_admin_user_page,
    mfa_sys::mfa_admin_user_page_free
);

impl AdminUserPage {
    /// The users.
    pub fn users(&self) -> &[AdminUser] {
        unsafe { AdminUser::slice(self.raw().users, self.raw().count) }
    }

    /// The cursor of the next page; None when this page is the last.
    pub fn next_cursor(&self) -> Option<&str> {
        unsafe { optional_text(self.raw().next_cursor) }
    }
}

impl Deref for AdminUserPage {
    type Target = [AdminUser];
    fn deref(&self) -> &[AdminUser] {
        self.users()
    }
}

impl fmt::Debug for AdminUserPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminUserPage").field("users", &self.users()).field("more", &self.next_cursor().is_some()).finish()
    }
}

c_owned!(
    /// A factor and who has it ([`Admin::factor`], [`Admin::unenroll`], [`Admin::rename`]).
    AdminFactor,
    mfa_sys::mfa_admin_factor,
    mfa_sys::mfa_admin_factor_free
);

impl AdminFactor {
    /// The tenant, or None for the project.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.raw().tenant) }
    }

    /// The user who has (or had) the factor.
    pub fn uid(&self) -> &str {
        unsafe { text(self.raw().uid) }
    }

    /// The factor.
    pub fn info(&self) -> &FactorInfo {
        FactorInfo::of(&self.raw().info)
    }
}

impl fmt::Debug for AdminFactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminFactor").field("tenant", &self.tenant()).field("uid", &self.uid()).field("info", self.info()).finish()
    }
}

view!(
    /// One tenant's count of one factor kind ([`AdminStats::rows`]).
    AdminStatsRow,
    mfa_sys::mfa_admin_stats_row
);

impl AdminStatsRow {
    /// The tenant, or None for the project.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.0.tenant) }
    }

    /// The factor id.
    pub fn factor_id(&self) -> &str {
        unsafe { text(self.0.factor_id) }
    }

    /// The kind.
    pub fn kind(&self) -> FactorKind {
        FactorKind::from_raw(self.0.kind)
    }

    /// Factors of this kind in this tenant.
    pub fn factors(&self) -> i64 {
        self.0.factors
    }

    /// Users with at least one factor of this kind in this tenant.
    pub fn users(&self) -> i64 {
        self.0.users
    }
}

impl fmt::Debug for AdminStatsRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminStatsRow")
            .field("tenant", &self.tenant())
            .field("factor_id", &self.factor_id())
            .field("factors", &self.factors())
            .field("users", &self.users())
            .finish()
    }
}

view!(
    /// One tenant's users with factors ([`AdminStats::tenants`]).
    TenantUsers,
    mfa_sys::mfa_admin_tenant_users
);

impl TenantUsers {
    /// The tenant, or None for the project.
    pub fn tenant(&self) -> Option<&str> {
        unsafe { optional_text(self.0.tenant) }
    }

    /// Users with at least one factor.
    pub fn users(&self) -> i64 {
        self.0.users
    }
}

impl fmt::Debug for TenantUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}={}", self.tenant(), self.users())
    }
}

c_owned!(
    /// Users and factors, counted per tenant and kind ([`Admin::stats`]).
    AdminStats,
    mfa_sys::mfa_admin_stats,
    mfa_sys::mfa_admin_stats_free
);

impl AdminStats {
    /// Per tenant (the project first) and factor id.
    pub fn rows(&self) -> &[AdminStatsRow] {
        unsafe { AdminStatsRow::slice(self.raw().rows, self.raw().row_count) }
    }

    /// Users with factors per tenant (the project first).
    pub fn tenants(&self) -> &[TenantUsers] {
        unsafe { TenantUsers::slice(self.raw().tenants, self.raw().tenant_count) }
    }

    /// Users with at least one factor, over every tenant.
    pub fn total_users(&self) -> i64 {
        self.raw().total_users
    }

    /// Factors, over every tenant and kind.
    pub fn total_factors(&self) -> i64 {
        self.raw().total_factors
    }
}

impl fmt::Debug for AdminStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminStats")
            .field("rows", &self.rows())
            .field("tenants", &self.tenants())
            .field("total_users", &self.total_users())
            .field("total_factors", &self.total_factors())
            .finish()
    }
}
