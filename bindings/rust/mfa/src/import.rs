//! The operator's long calls, on [`Admin`]: imports from other systems
//! ([`Admin::import_factors`], [`Admin::import_google_authenticator`]), key
//! rotation ([`Admin::rotate_keys`]) and the seal check
//! ([`Admin::check_seals`]).
//!
//! Their report and progress callbacks are `FnMut` closures, called on the
//! calling thread. A panic in one stops the call after the batch in
//! progress (what was stored stays stored) and is resumed once the C call
//! has returned, as if the closure had been called from Rust.

use std::any::Any;
use std::fmt;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;

use crate::admin::Admin;
use crate::callbacks::Inside;
use crate::cstr::{c_optional, c_string, optional_text, ptr_of, text};
use crate::error::{check, Error, ErrSlot, Result};

/// The format of [`Admin::import_factors`]'s text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImportFormat {
    /// `otpauth://totp/...` key URIs, one per line; the account name is the uid, the issuer the factor's name.
    Otpauth,
    /// A pam_oath / liboath users file (`HOTP/T30/6 alice - <hex secret>`).
    UsersFile,
    /// CSV `uid,secret,issuer,digits,period,algorithm` (base32 secret; a header line allowed).
    Csv,
}

impl ImportFormat {
    fn raw(self) -> i32 {
        match self {
            ImportFormat::Otpauth => mfa_sys::MFA_IMPORT_OTPAUTH,
            ImportFormat::UsersFile => mfa_sys::MFA_IMPORT_USERS_FILE,
            ImportFormat::Csv => mfa_sys::MFA_IMPORT_CSV,
        }
    }
}

/// What an import did with one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImportOutcome {
    /// A factor (or a recovery code) was stored.
    Imported,
    /// The user already has a factor with this secret (a re-run); nothing was stored.
    AlreadyImported,
    /// The line names something libmfa does not do (HOTP); nothing was stored.
    Unsupported,
    /// The line is malformed or was refused; nothing was stored.
    Failed,
    /// How a setting maps onto libmfa (a google-authenticator option line).
    Note,
    /// A number this binding does not know.
    Other(i32),
}

impl ImportOutcome {
    fn from_raw(raw: i32) -> ImportOutcome {
        match raw {
            mfa_sys::MFA_IMPORT_IMPORTED => ImportOutcome::Imported,
            mfa_sys::MFA_IMPORT_ALREADY_IMPORTED => ImportOutcome::AlreadyImported,
            mfa_sys::MFA_IMPORT_UNSUPPORTED => ImportOutcome::Unsupported,
            mfa_sys::MFA_IMPORT_FAILED => ImportOutcome::Failed,
            mfa_sys::MFA_IMPORT_NOTE => ImportOutcome::Note,
            other => ImportOutcome::Other(other),
        }
    }
}

/// The report of one line of an import. Nothing secret is in it: no
/// secret, no code, not the line's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportLine {
    /// The line number, from 1.
    pub line: i64,
    /// The user the line is about, or None when it could not be read.
    pub uid: Option<String>,
    /// What was done.
    pub outcome: ImportOutcome,
    /// The outcome's name: "IMPORTED", "ALREADY_IMPORTED", "UNSUPPORTED", "FAILED", "NOTE".
    pub outcome_name: String,
    /// Why, in words, for people.
    pub reason: String,
    /// The factor stored or found, or None.
    pub enrollment_id: Option<String>,
}

/// How to import: the tenant, the batch size and the callbacks (all optional).
///
/// ```no_run
/// # fn demo(admin: &mfa::Admin, text: &str) -> mfa::Result<()> {
/// let mut failed = Vec::new();
/// let mut report = |line: mfa::ImportLine| {
///     if line.outcome == mfa::ImportOutcome::Failed {
///         failed.push(line.line)
///     }
/// };
/// let options = mfa::ImportOptions { tenant: Some("acme"), report: Some(&mut report), ..Default::default() };
/// let summary = admin.import_factors(text.as_bytes(), mfa::ImportFormat::Otpauth, options)?;
/// # Ok(()) }
/// ```
#[derive(Default)]
pub struct ImportOptions<'f> {
    /// The tenant of every user in the text, or None for the project.
    pub tenant: Option<&'f str>,
    /// Lines per transaction, 1 to 1000 (None: 500).
    pub batch_size: Option<u32>,
    /// Receives each line that has something to report, in line order.
    pub report: Option<&'f mut dyn FnMut(ImportLine)>,
    /// Called after each batch with (lines done, lines in all): false stops the import there.
    pub progress: Option<&'f mut dyn FnMut(i64, i64) -> bool>,
}

impl fmt::Debug for ImportOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportOptions")
            .field("tenant", &self.tenant)
            .field("batch_size", &self.batch_size)
            .field("report", &self.report.is_some())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// The totals of an import.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Lines read (blank lines and comments included).
    pub lines: i64,
    /// Factors stored.
    pub imported: i64,
    /// Lines whose factor the user already had.
    pub already_imported: i64,
    /// Lines naming something libmfa does not do.
    pub unsupported: i64,
    /// Malformed or refused lines.
    pub failed: i64,
    /// Recovery codes stored (google-authenticator scratch codes).
    pub recovery_codes: i64,
    /// Whether the progress callback stopped the import (run it again to go on).
    pub stopped: bool,
}

/// How a batched key rotation ended ([`Admin::rotate_keys`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RotationResult {
    /// Records re-encrypted by this run.
    pub rotated: i64,
    /// Records still not under the current key (0 when it finished).
    pub remaining: i64,
    /// Whether the progress callback stopped the run before the end.
    pub stopped: bool,
}

c_owned!(
    /// What [`Admin::check_seals`] found.
    SealCheck,
    mfa_sys::mfa_seal_check,
    mfa_sys::mfa_seal_check_free
);

impl SealCheck {
    /// Sealed records read.
    pub fn checked(&self) -> i64 {
        self.raw().checked
    }

    /// Records that did not open with the keys given.
    pub fn failed(&self) -> i64 {
        self.raw().failed
    }

    /// The ids of the first records that did not open (at most 100).
    pub fn failed_ids(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let raw = self.raw();
        let count = if raw.failed_ids.is_null() { 0 } else { raw.failed_id_count };
        (0..count).map(move |index| unsafe { text(*raw.failed_ids.add(index)) })
    }

    /// Whether the progress callback stopped the check before the end.
    pub fn stopped(&self) -> bool {
        self.raw().stopped
    }
}

impl fmt::Debug for SealCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealCheck")
            .field("checked", &self.checked())
            .field("failed", &self.failed())
            .field("failed_ids", &self.failed_ids().collect::<Vec<_>>())
            .field("stopped", &self.stopped())
            .finish()
    }
}

/// The callbacks of one long call, and the panic one of them raised.
struct CallState<'f> {
    report: Option<&'f mut dyn FnMut(ImportLine)>,
    progress: Option<&'f mut dyn FnMut(i64, i64) -> bool>,
    panic: Option<Box<dyn Any + Send + 'static>>,
}

impl<'f> CallState<'f> {
    fn context(&mut self) -> *mut c_void {
        self as *mut CallState<'f> as *mut c_void
    }

    /// After the C call: the callback's panic goes on from here.
    fn finish(self) {
        if let Some(panic) = self.panic {
            resume_unwind(panic);
        }
    }
}

unsafe extern "C" fn report_trampoline(context: *mut c_void, line: *const mfa_sys::mfa_import_line) {
    let state = &mut *(context as *mut CallState<'_>);
    if line.is_null() || state.panic.is_some() {
        return;
    }
    let fields = &*line;
    let copied = ImportLine {
        line: fields.line,
        uid: optional_text(fields.uid).map(str::to_string),
        outcome: ImportOutcome::from_raw(fields.outcome),
        outcome_name: text(fields.outcome_name).to_string(),
        reason: text(fields.reason).to_string(),
        enrollment_id: optional_text(fields.enrollment_id).map(str::to_string),
    };
    if let Some(report) = state.report.as_mut() {
        let _inside = Inside::enter();
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| report(copied))) {
            state.panic = Some(panic);
        }
    }
}

unsafe extern "C" fn progress_trampoline(context: *mut c_void, done: i64, total: i64) -> c_int {
    let state = &mut *(context as *mut CallState<'_>);
    if state.panic.is_some() {
        return 1;
    }
    let progress = match state.progress.as_mut() {
        Some(progress) => progress,
        None => return 0,
    };
    let _inside = Inside::enter();
    match catch_unwind(AssertUnwindSafe(|| progress(done, total))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(panic) => {
            state.panic = Some(panic);
            1
        }
    }
}

impl<'a> Admin<'a> {
    fn import_options(
        &self,
        tenant: &Option<std::ffi::CString>,
        batch_size: Option<u32>,
        state: &mut CallState<'_>,
    ) -> Result<mfa_sys::mfa_import_options> {
        let mut raw = unsafe { std::mem::zeroed::<mfa_sys::mfa_import_options>() };
        check(unsafe { mfa_sys::mfa_import_options_init(&mut raw, mfa_sys::MFA_IMPORT_OPTIONS_VERSION) })?;
        raw.actor = self.actor.as_ptr();
        raw.tenant = ptr_of(tenant);
        if let Some(size) = batch_size {
            raw.batch_size = i32::try_from(size).unwrap_or(i32::MAX);
        }
        let context = state.context();
        raw.report = Some(report_trampoline);
        raw.report_context = context;
        raw.progress = Some(progress_trampoline);
        raw.progress_context = context;
        Ok(raw)
    }

    /// Imports TOTP factors users already have in another system, one per
    /// line of `text` (UTF-8, at most 1 GiB). A bad line does not stop the
    /// import; lines are stored a batch at a time, each batch one
    /// transaction; re-running an import stores nothing twice. Each factor
    /// stored is audited (`Enroll`, detail "IMPORTED", with the actor).
    ///
    /// Errors: `InvalidArgument` (text that is not UTF-8 or too long, a bad
    /// tenant or batch size), `StorageError` (the batches before are stored:
    /// run it again to go on).
    pub fn import_factors(&self, text: &[u8], format: ImportFormat, options: ImportOptions<'_>) -> Result<ImportSummary> {
        let tenant = c_optional(options.tenant, "the tenant")?;
        let mut state = CallState { report: options.report, progress: options.progress, panic: None };
        let raw = self.import_options(&tenant, options.batch_size, &mut state)?;
        let handle = self.ctx.handle()?;
        let mut out = ImportRaw::zeroed();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_import(
                handle,
                &mut out.0,
                format.raw(),
                if text.is_empty() { ptr::null() } else { text.as_ptr() },
                text.len(),
                &raw,
                err.as_out(),
            )
        };
        state.finish();
        err.check(status)?;
        Ok(out.summary())
    }

    /// Imports one user's google-authenticator-libpam file
    /// (`~/.google_authenticator`): its TOTP secret as a factor, its scratch
    /// codes as the user's recovery codes, each option line reported as it
    /// maps onto libmfa. One file is one transaction (`progress` is not
    /// called).
    ///
    /// Errors: `InvalidArgument` (a bad uid or tenant, text that is not UTF-8), `StorageError`.
    pub fn import_google_authenticator(&self, text: &[u8], uid: &str, options: ImportOptions<'_>) -> Result<ImportSummary> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(options.tenant, "the tenant")?;
        let mut state = CallState { report: options.report, progress: options.progress, panic: None };
        let raw = self.import_options(&tenant, options.batch_size, &mut state)?;
        let handle = self.ctx.handle()?;
        let mut out = ImportRaw::zeroed();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_import_google_authenticator(
                handle,
                &mut out.0,
                uid.as_ptr(),
                if text.is_empty() { ptr::null() } else { text.as_ptr() },
                text.len(),
                &raw,
                err.as_out(),
            )
        };
        state.finish();
        err.check(status)?;
        Ok(out.summary())
    }

    /// Re-encrypts every stored secret that is not under the current master
    /// key, `batch_size` records (1 to 10,000) per transaction; `progress`
    /// gets (records done, total) after each batch and may stop the run
    /// (false). Running it again resumes. Audited (`KeysRotated`, with the actor).
    ///
    /// Errors: `Crypto` (a record's key was not given, or it does not decrypt
    /// for its row; the batches before stay done), `InvalidArgument`, `StorageError`.
    pub fn rotate_keys(
        &self,
        batch_size: u32,
        progress: Option<&mut dyn FnMut(i64, i64) -> bool>,
    ) -> Result<RotationResult> {
        let mut state = CallState { report: None, progress, panic: None };
        let context = state.context();
        let handle = self.ctx.handle()?;
        let mut out = unsafe { std::mem::zeroed::<mfa_sys::mfa_rotation_result>() };
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_rotate_keys_batched(
                handle,
                &mut out,
                i32::try_from(batch_size).unwrap_or(i32::MAX),
                self.actor.as_ptr(),
                Some(progress_trampoline),
                context,
                err.as_out(),
            )
        };
        state.finish();
        err.check(status)?;
        Ok(RotationResult { rotated: out.rotated, remaining: out.remaining, stopped: out.stopped })
    }

    /// Opens every sealed record with the context's keys, `batch_size`
    /// records (1 to 10,000) at a time, and reports those that do not open:
    /// after a rotation, a check on a context opened with the new key alone
    /// proves nothing still needs an old one. Nothing is written.
    ///
    /// Errors: `InvalidArgument`, `StorageError`.
    pub fn check_seals(&self, batch_size: u32, progress: Option<&mut dyn FnMut(i64, i64) -> bool>) -> Result<SealCheck> {
        let mut state = CallState { report: None, progress, panic: None };
        let context = state.context();
        let handle = self.ctx.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_check_seals(
                handle,
                &mut out,
                i32::try_from(batch_size).unwrap_or(i32::MAX),
                Some(progress_trampoline),
                context,
                err.as_out(),
            )
        };
        let check = unsafe { SealCheck::from_raw(out) };
        state.finish();
        err.check(status)?;
        check.ok_or_else(|| Error::Internal("libmfa returned no seal check".into()))
    }
}

/// An `mfa_import_summary` to fill.
struct ImportRaw(mfa_sys::mfa_import_summary);

impl ImportRaw {
    fn zeroed() -> ImportRaw {
        ImportRaw(unsafe { std::mem::zeroed() })
    }

    fn summary(&self) -> ImportSummary {
        ImportSummary {
            lines: self.0.lines,
            imported: self.0.imported,
            already_imported: self.0.already_imported,
            unsupported: self.0.unsupported,
            failed: self.0.failed,
            recovery_codes: self.0.recovery_codes,
            stopped: self.0.stopped,
        }
    }
}
