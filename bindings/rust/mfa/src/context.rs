//! [`Context`]: the MFA engine on one store (`mfa_ctx`): configuration,
//! first-factor sign-in, tokens, key rotation and imports. The flows of
//! each kind of second factor start from [`Context::multi_factor`] and
//! [`Context::sign_in`]; the operator's calls from [`Context::admin`].

use std::ffi::CString;
use std::fmt;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};

use crate::admin::Admin;
use crate::callbacks::{self, Callbacks};
use crate::cstr::{c_optional, c_string, ptr_of};
use crate::error::{check, Error, ErrSlot, Result};
use crate::factor::Factor;
use crate::flow::{MultiFactor, Resolver, Session, SignIn};
use crate::options::Options;
use crate::otp::Totp;
use crate::strings::MfaString;
use crate::user::{CUser, User};

/// The MFA engine on one store (`mfa_ctx`).
///
/// A context is `Send + Sync`: libmfa's context is thread-safe, so share one
/// between every thread of a process (in an `Arc`, or by reference from
/// scoped threads). Dropping it closes the store; Rust's ownership makes
/// sure no call is in progress then.
pub struct Context {
    handle: NonNull<mfa_sys::mfa_ctx>,
    /// Kept until the context is closed: libmfa holds their addresses.
    _callbacks: Box<Callbacks>,
}

// mfa_types.h: "Thread-safe: one context may be shared by every thread of a
// process." The callbacks it calls are Send + Sync.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// Opens the engine on `options`' store, creating and migrating it as needed.
    ///
    /// Errors: `InvalidArgument` (a key that is not 32 bytes, a bad key id,
    /// duplicate key ids, more than 64 previous keys, both an SMS sender and
    /// an outbox, a store location meant for another database, a NUL),
    /// `StorageError` (the store cannot be opened, or was written by a newer
    /// libmfa).
    pub fn open(options: Options) -> Result<Context> {
        let mut options = options;
        if options.sms_outbox.is_some() && options.callbacks.sms_sender.is_some() {
            return Err(Error::invalid("give an SMS sender or an SMS outbox, not both"));
        }
        let check_key = |key: &[u8], what: &str| -> Result<()> {
            if key.len() != mfa_sys::MFA_MASTER_KEY_BYTES as usize {
                return Err(Error::invalid(format!(
                    "{} must be {} bytes, got {}",
                    what,
                    mfa_sys::MFA_MASTER_KEY_BYTES,
                    key.len()
                )));
            }
            Ok(())
        };
        check_key(&options.master_key, "the master key")?;
        let store = c_string(&options.store, "the store")?;
        let key_id = c_string(&options.key_id, "the key id")?;
        let mut previous_ids = Vec::with_capacity(options.previous_keys.len());
        let mut previous = Vec::with_capacity(options.previous_keys.len());
        for (id, key) in &options.previous_keys {
            check_key(key, "a previous key")?;
            let id = c_string(id, "a previous key id")?;
            previous.push(mfa_sys::mfa_master_key { id: id.as_ptr(), key: key.as_ptr() });
            previous_ids.push(id);
        }
        let outbox = match &options.sms_outbox {
            Some(path) => {
                use std::os::unix::ffi::OsStrExt;
                let bytes = path.as_os_str().as_bytes();
                if bytes.is_empty() {
                    return Err(Error::invalid("the SMS outbox path is empty"));
                }
                Some(CString::new(bytes).map_err(|_| Error::invalid("the SMS outbox path contains a NUL byte"))?)
            }
            None => None,
        };
        let callbacks = Box::new(std::mem::take(&mut options.callbacks));

        let mut raw = unsafe { std::mem::zeroed::<mfa_sys::mfa_options>() };
        check(unsafe { mfa_sys::mfa_options_init(&mut raw, mfa_sys::MFA_OPTIONS_VERSION) })?;
        raw.store = store.as_ptr();
        raw.master_key = mfa_sys::mfa_master_key { id: key_id.as_ptr(), key: options.master_key.as_ptr() };
        if !previous.is_empty() {
            raw.previous_keys = previous.as_ptr();
            raw.previous_key_count = previous.len();
        }
        if let Some(clock) = &callbacks.clock {
            raw.clock = Some(callbacks::clock_trampoline);
            raw.clock_context = callbacks::context_of(clock);
        }
        if let Some(random) = &callbacks.random {
            raw.random = Some(callbacks::random_trampoline);
            raw.random_context = callbacks::context_of(random);
        }
        if let Some(audit) = &callbacks.audit {
            raw.audit = Some(callbacks::audit_trampoline);
            raw.audit_context = callbacks::context_of(audit);
        }
        if let Some(sender) = &callbacks.sms_sender {
            raw.sms_sender = Some(callbacks::sms_sender_trampoline);
            raw.sms_sender_context = callbacks::context_of(sender);
        }
        raw.sms_outbox = ptr_of(&outbox);
        if let Some(verifier) = &callbacks.app_verifier {
            raw.app_verifier = Some(callbacks::app_verifier_trampoline);
            raw.app_verifier_context = callbacks::context_of(verifier);
        }
        if let Some(trust) = &callbacks.webauthn_trust {
            raw.webauthn_trust = Some(callbacks::webauthn_trust_trampoline);
            raw.webauthn_trust_context = callbacks::context_of(trust);
        }
        let mut handle = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_open(&mut handle, &raw, err.as_out()) };
        drop(options); // wipes the keys: mfa_open copied them
        err.check(status)?;
        let handle = NonNull::new(handle).ok_or_else(|| Error::Internal("mfa_open returned no context".into()))?;
        Ok(Context { handle, _callbacks: callbacks })
    }

    /// The C handle, for a call; `InvalidArgument` from inside a callback.
    pub(crate) fn handle(&self) -> Result<*mut mfa_sys::mfa_ctx> {
        if callbacks::inside() {
            return Err(Error::invalid("a libmfa callback must not call back into the context"));
        }
        Ok(self.handle.as_ptr())
    }

    /// The C handle, for programs that also use `mfa_sys` directly. It
    /// stays valid while the context lives; do not close it.
    pub fn as_raw(&self) -> *mut mfa_sys::mfa_ctx {
        self.handle.as_ptr()
    }

    /// Calls an engine function that returns a new string (`ctx, out, ..., err`).
    pub(crate) fn string_call(
        &self,
        call: impl FnOnce(*mut mfa_sys::mfa_ctx, *mut *mut c_char, *mut *mut c_char) -> i32,
    ) -> Result<MfaString> {
        let handle = self.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = call(handle, &mut out, err.as_out());
        let text = unsafe { MfaString::from_raw(out) };
        err.check(status)?;
        text.ok_or_else(|| Error::Internal("libmfa returned no string".into()))
    }

    /// Calls an engine function that returns a new factor (`ctx, out, user, ..., err`).
    pub(crate) fn factor_call(
        &self,
        user: &User,
        call: impl FnOnce(
            *mut mfa_sys::mfa_ctx,
            *mut *mut mfa_sys::mfa_factor_info,
            *const mfa_sys::mfa_user,
            *mut *mut c_char,
        ) -> i32,
    ) -> Result<Factor> {
        let user = CUser::new(user)?;
        let handle = self.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = call(handle, &mut out, &user.raw, err.as_out());
        let factor = unsafe { Factor::from_raw(out) };
        err.check(status)?;
        factor.ok_or_else(|| Error::Internal("libmfa returned no factor".into()))
    }

    /// Calls an engine function that returns only a status (`ctx, ..., err`).
    pub(crate) fn status_call(
        &self,
        call: impl FnOnce(*mut mfa_sys::mfa_ctx, *mut *mut c_char) -> i32,
    ) -> Result<()> {
        let handle = self.handle()?;
        let mut err = ErrSlot::new();
        let status = call(handle, err.as_out());
        err.check(status)
    }

    // --- configuration ------------------------------------------------------------------

    /// Stores the MFA configuration of the project (`tenant` None) or of a
    /// tenant, replacing the previous one (a field it does not name takes its
    /// default: a document without `state` turns MFA off), as JSON:
    /// `{"state": "ENABLED", "providers": {"totp": "ENABLED", "phone":
    /// "ENABLED", "recovery": "ENABLED"}, "totp": {"adjacentIntervals": 5},
    /// "testPhoneNumbers": {...}, "limits": {...}}`, or the shapes the
    /// Firebase guides write (the Admin SDK's `multiFactorConfig`, the REST
    /// API's `mfa`).
    ///
    /// Errors: `InvalidArgument` (malformed JSON, an unknown field, a value
    /// out of range; the message names the field), `StorageError`.
    pub fn set_config(&self, json: &str, tenant: Option<&str>) -> Result<()> {
        self.config_call(json, tenant, mfa_sys::mfa_config_set_json)
    }

    /// Changes only what `json` names in the configuration of the project or
    /// a tenant (objects merge field by field; `testPhoneNumbers` is replaced
    /// whole). On an error nothing is changed.
    pub fn update_config(&self, json: &str, tenant: Option<&str>) -> Result<()> {
        self.config_call(json, tenant, mfa_sys::mfa_config_update_json)
    }

    fn config_call(
        &self,
        json: &str,
        tenant: Option<&str>,
        function: unsafe extern "C" fn(*mut mfa_sys::mfa_ctx, *const c_char, *const c_char, *mut *mut c_char) -> i32,
    ) -> Result<()> {
        let json = c_string(json, "the configuration")?;
        let tenant = c_optional(tenant, "the tenant")?;
        self.status_call(|handle, err| unsafe { function(handle, ptr_of(&tenant), json.as_ptr(), err) })
    }

    /// The effective configuration of the project or a tenant, every field written out, as JSON.
    pub fn config(&self, tenant: Option<&str>) -> Result<MfaString> {
        let tenant = c_optional(tenant, "the tenant")?;
        self.string_call(|handle, out, err| unsafe { mfa_sys::mfa_config_get_json(handle, out, ptr_of(&tenant), err) })
    }

    // --- metrics ------------------------------------------------------------------------

    /// The context's metrics (sign-ins, enrollments, code sends, backoffs,
    /// store latency, counted since it opened) in Prometheus' text exposition
    /// format, version 0.0.4, in one call: what a `/metrics` endpoint serves,
    /// as `text/plain; version=0.0.4; charset=utf-8`. Empty when the context
    /// keeps no metrics. Never waits for the store.
    pub fn metrics_text(&self) -> Result<MfaString> {
        self.string_call(|handle, out, err| unsafe { mfa_sys::mfa_metrics_prometheus(handle, out, err) })
    }

    // --- users and sign-in --------------------------------------------------------------

    /// The second factors of `user` (Firebase's `user.multiFactor`): enroll, list, unenroll.
    pub fn multi_factor<'a>(&'a self, user: &'a User) -> MultiFactor<'a> {
        MultiFactor::new(self, user)
    }

    /// A [`Session`] rebuilt from the token of one a client sent back.
    pub fn session(&self, token: &str) -> Session<'_> {
        Session::new(self, token.to_string())
    }

    /// Reports a successful first factor for `user`.
    ///
    /// Returns [`SignIn::Complete`] when no second factor is needed (the user
    /// has none and MFA is not MANDATORY), or
    /// [`SignIn::SecondFactorRequired`] with the [`Resolver`] (hints and
    /// pending credential) that finishes the sign-in.
    ///
    /// Errors: `EnrollmentRequired` (MANDATORY and the user has no factor),
    /// `UnsupportedFirstFactor`, `InvalidArgument`, `StorageError`.
    pub fn sign_in(&self, user: &User) -> Result<SignIn<'_>> {
        let c_user = CUser::new(user)?;
        let handle = self.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe { mfa_sys::mfa_sign_in(handle, &mut out, &c_user.raw, err.as_out()) };
        let resolver = unsafe { Resolver::from_raw(self, out) };
        match (status, resolver) {
            (mfa_sys::MFA_OK, _) => Ok(SignIn::Complete),
            (mfa_sys::MFA_ERR_SECOND_FACTOR_REQUIRED, Some(resolver)) => Ok(SignIn::SecondFactorRequired(resolver)),
            _ => err.check(status).map(|_| SignIn::Complete),
        }
    }

    /// Rebuilds a [`Resolver`] from a pending credential a client sent back;
    /// `tenant` is the tenant this request is served for.
    ///
    /// Errors: `InvalidSession` (tampered, expired or used),
    /// `UserTokenExpired` (revoked since), `TenantMismatch`, `InvalidArgument`,
    /// `StorageError`.
    pub fn resolver(&self, pending_credential: &str, tenant: Option<&str>) -> Result<Resolver<'_>> {
        let credential = c_string(pending_credential, "the pending credential")?;
        let tenant = c_optional(tenant, "the tenant")?;
        let handle = self.handle()?;
        let mut out = ptr::null_mut();
        let mut err = ErrSlot::new();
        let status = unsafe {
            mfa_sys::mfa_resolver_load(handle, &mut out, credential.as_ptr(), ptr_of(&tenant), err.as_out())
        };
        let resolver = unsafe { Resolver::from_raw(self, out) };
        err.check(status)?;
        resolver.ok_or_else(|| Error::Internal("libmfa returned no resolver".into()))
    }

    // --- tokens -------------------------------------------------------------------------

    /// Whether a credential the host issued to `uid` at `issued_at` (Unix
    /// seconds) is still valid. Enrolling, unenrolling, generating recovery
    /// codes and [`revoke_tokens`](Context::revoke_tokens) revoke earlier
    /// credentials; one issued in the same second as a revocation counts as
    /// earlier (see [`check_token_ms`](Context::check_token_ms)).
    ///
    /// Errors: `UserTokenExpired` (the user must sign in again), `InvalidArgument`, `StorageError`.
    pub fn check_token(&self, uid: &str, issued_at: i64, tenant: Option<&str>) -> Result<()> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        check(unsafe { mfa_sys::mfa_token_check(self.handle()?, ptr_of(&tenant), uid.as_ptr(), issued_at) })
    }

    /// Like [`check_token`](Context::check_token) for a credential issued at
    /// `issued_at_ms` (Unix milliseconds): valid if issued strictly after the
    /// user's last revocation.
    pub fn check_token_ms(&self, uid: &str, issued_at_ms: i64, tenant: Option<&str>) -> Result<()> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        check(unsafe { mfa_sys::mfa_token_check_ms(self.handle()?, ptr_of(&tenant), uid.as_ptr(), issued_at_ms) })
    }

    /// Revokes every credential and libmfa token issued to `uid` so far (a
    /// password reset, a compromised account): sessions, secrets waiting for
    /// enrollment, verification ids and pending credentials fail with
    /// `UserTokenExpired`. Factors stay enrolled. Audited (`TokensRevoked`).
    pub fn revoke_tokens(&self, uid: &str, tenant: Option<&str>) -> Result<()> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        self.status_call(|handle, err| unsafe { mfa_sys::mfa_revoke_tokens(handle, ptr_of(&tenant), uid.as_ptr(), err) })
    }

    /// Step-up: whether `uid` passed a second factor in the last `within_seconds` seconds.
    pub fn passed_second_factor(&self, uid: &str, within_seconds: i64, tenant: Option<&str>) -> Result<bool> {
        let uid = c_string(uid, "the uid")?;
        let tenant = c_optional(tenant, "the tenant")?;
        let mut out = false;
        check(unsafe {
            mfa_sys::mfa_step_up_check(self.handle()?, &mut out, ptr_of(&tenant), uid.as_ptr(), within_seconds)
        })?;
        Ok(out)
    }

    // --- administration -----------------------------------------------------------------

    /// The administrative calls on this context, made by `actor` (1 to 256
    /// bytes, such as an operator's name, recorded in their audit events).
    ///
    /// Errors: `InvalidArgument` (an empty or overlong actor, a NUL).
    pub fn admin(&self, actor: &str) -> Result<Admin<'_>> {
        Admin::new(self, actor)
    }

    /// Imports a TOTP factor the user already has elsewhere, without a code
    /// (an administrative call: the host decides who may make it). Only
    /// `user.uid` and `user.tenant` are used; `totp` carries the secret (10
    /// to 128 bytes) and its parameters (T0 must be 0).
    ///
    /// Errors: `InvalidArgument`, `SecondFactorLimitExceeded`, `StorageError`.
    pub fn import_totp(&self, user: &User, totp: &Totp, display_name: Option<&str>) -> Result<Factor> {
        let params = totp.params().to_c()?;
        let name = c_optional(display_name, "the display name")?;
        let secret = totp.secret();
        self.factor_call(user, |handle, out, user, err| unsafe {
            mfa_sys::mfa_totp_import(handle, out, user, secret.as_ptr(), secret.len(), &params, ptr_of(&name), err)
        })
    }

    /// Imports a TOTP factor from an `otpauth://totp/...` URI (see [`import_totp`](Context::import_totp)).
    ///
    /// Errors: `InvalidUri`, `InvalidArgument` (an HOTP URI, a secret length),
    /// `SecondFactorLimitExceeded`, `StorageError`.
    pub fn import_uri(&self, user: &User, uri: &str, display_name: Option<&str>) -> Result<Factor> {
        let uri = c_string(uri, "the URI")?;
        let name = c_optional(display_name, "the display name")?;
        self.factor_call(user, |handle, out, user, err| unsafe {
            mfa_sys::mfa_totp_import_uri(handle, out, user, uri.as_ptr(), ptr_of(&name), err)
        })
    }

    /// Re-encrypts every stored secret that is not under the current master
    /// key, in batches of 500; the number of records re-encrypted.
    /// [`Admin::rotate_keys`] takes the batch size and reports progress.
    ///
    /// Errors: `Crypto` (a record's key was not given), `StorageError`.
    pub fn rotate_keys(&self) -> Result<usize> {
        let mut count = 0usize;
        self.status_call(|handle, err| unsafe { mfa_sys::mfa_rotate_keys(handle, &mut count, err) })?;
        Ok(count)
    }

    /// Deletes pending TOTP secrets past their deadline and the records of expired used tokens.
    pub fn purge_expired(&self) -> Result<()> {
        self.status_call(|handle, err| unsafe { mfa_sys::mfa_purge_expired(handle, err) })
    }
}

impl fmt::Debug for Context {
    /// No store location (a URL may hold a password), no keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context").finish_non_exhaustive()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // No call is in progress: every borrow of the context has ended.
        unsafe { mfa_sys::mfa_close(self.handle.as_ptr()) };
    }
}
