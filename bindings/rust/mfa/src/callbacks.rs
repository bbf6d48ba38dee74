//! The host's callbacks (clock, randomness, audit, SMS sender, app
//! verifier, WebAuthn trust) behind C function pointers.
//!
//! Each callback is a closure, `Send + Sync` because libmfa calls it on
//! whichever thread made the call; its `void *context` is the address of the
//! boxed closure, which the [`Context`](crate::Context) keeps until it is
//! closed. A panic never crosses into C: it is caught at the boundary
//! (`catch_unwind`) and the callback gives libmfa its failure value:
//!
//! * clock: the system clock is used for that reading;
//! * random: the call that needed the bytes fails with `Error::Crypto`;
//! * audit: the event is dropped (the change it reports is already stored);
//! * SMS sender: the send fails (`Error::SmsSendFailed`); nothing is counted;
//! * app verifier and WebAuthn trust: the credential is refused.
//!
//! The panic's message is printed by the panic hook as usual. While a
//! callback runs, its thread is marked: a call into the context from inside
//! a callback (which libmfa forbids, and which could deadlock) fails with
//! `Error::InvalidArgument` instead.

use std::cell::Cell;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::cstr::{bytes, optional_text, text};
use crate::generated::AuditKind;

/// What a fallible callback returns on failure: any error (its text is not shown to anyone).
pub type CallbackError = Box<dyn std::error::Error + Send + Sync>;

pub(crate) type ClockFn = Box<dyn Fn() -> i64 + Send + Sync>;
pub(crate) type RandomFn = Box<dyn Fn(&mut [u8]) -> Result<(), CallbackError> + Send + Sync>;
pub(crate) type AuditFn = Box<dyn Fn(AuditEvent) + Send + Sync>;
pub(crate) type SmsSenderFn = Box<dyn Fn(&str, &str) -> Result<(), CallbackError> + Send + Sync>;
pub(crate) type AppVerifierFn = Box<dyn Fn(&str, AppAction) -> bool + Send + Sync>;
pub(crate) type WebAuthnTrustFn = Box<dyn Fn(&WebAuthnAttestation) -> bool + Send + Sync>;

/// The closures of one context, boxed so that their addresses stay put.
#[derive(Default)]
pub(crate) struct Callbacks {
    pub(crate) clock: Option<ClockFn>,
    pub(crate) random: Option<RandomFn>,
    pub(crate) audit: Option<AuditFn>,
    pub(crate) sms_sender: Option<SmsSenderFn>,
    pub(crate) app_verifier: Option<AppVerifierFn>,
    pub(crate) webauthn_trust: Option<WebAuthnTrustFn>,
}

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Marks the current thread as inside a libmfa callback while it lives.
pub(crate) struct Inside;

impl Inside {
    pub(crate) fn enter() -> Inside {
        DEPTH.with(|depth| depth.set(depth.get() + 1));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Whether the current thread is running a libmfa callback right now.
pub(crate) fn inside() -> bool {
    DEPTH.with(|depth| depth.get() > 0)
}

/// The address of a boxed closure, as the C `void *context` (the box's own
/// address: a thin pointer, where the closure's would be a fat one).
#[allow(clippy::borrowed_box)]
pub(crate) fn context_of<T: ?Sized>(closure: &Box<T>) -> *mut c_void {
    closure as *const Box<T> as *mut c_void
}

/// Why an SMS request's app credential is being checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AppAction {
    /// Enrolling a phone number (reCAPTCHA action mfaSmsEnrollment).
    Enrollment,
    /// Signing in with a phone factor (reCAPTCHA action mfaSmsSignIn).
    SignIn,
    /// A number this binding does not know.
    Other(i32),
}

/// One audit event, as the context's audit callback receives it. Events
/// carry ids and outcomes, never a secret, a code or a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    /// What happened.
    pub kind: AuditKind,
    /// The kind's name: "ENROLL", "SIGN_IN_SUCCESS", ...
    pub kind_name: String,
    /// The tenant, or None for the project.
    pub tenant: Option<String>,
    /// The user, or "".
    pub uid: String,
    /// The factor id ("totp", "phone", ...), or "".
    pub factor_id: String,
    /// The factor's enrollment id, or "".
    pub enrollment_id: String,
    /// Unix time of the event.
    pub time: i64,
    /// The outcome's status name ("OK", "INVALID_VERIFICATION_CODE", ...) or other detail ("ADMIN", "IMPORTED").
    pub detail: String,
    /// Who did it, for the administrative calls; "" for the user's own actions.
    pub actor: String,
}

/// A WebAuthn attestation, as the context's `webauthn_trust` callback sees it at a registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebAuthnAttestation {
    /// The statement format: "none", "packed" or "fido-u2f".
    pub format: String,
    /// How it was made: "none", "self" or "basic" (a certificate chain).
    pub kind: String,
    /// The authenticator model's AAGUID.
    pub aaguid: [u8; 16],
    /// The certificate chain, leaf first, each DER.
    pub certificates: Vec<Vec<u8>>,
    /// Whether the chain leads to one of the configured webauthn.attestationRoots.
    pub chain_trusted: bool,
    /// The tenant, or None for the project.
    pub tenant: Option<String>,
    /// The user enrolling.
    pub uid: String,
}

fn tenant_of(value: &str) -> Option<String> {
    if value.is_empty() {
        None
    } else {
        Some(value.to_string())
    }
}

/// Runs `body` marked as a callback, catching a panic (None then).
fn guarded<T>(body: impl FnOnce() -> T) -> Option<T> {
    let _inside = Inside::enter();
    catch_unwind(AssertUnwindSafe(body)).ok()
}

pub(crate) unsafe extern "C" fn clock_trampoline(context: *mut c_void) -> i64 {
    let closure = &*(context as *const ClockFn);
    guarded(closure).unwrap_or_else(crate::otp::unix_now)
}

pub(crate) unsafe extern "C" fn random_trampoline(context: *mut c_void, out: *mut u8, len: usize) -> c_int {
    let closure = &*(context as *const RandomFn);
    if out.is_null() && len > 0 {
        return 1;
    }
    let mut empty = [0u8; 0];
    let buffer: &mut [u8] = if len == 0 { &mut empty } else { std::slice::from_raw_parts_mut(out, len) };
    match guarded(|| closure(buffer)) {
        Some(Ok(())) => 0,
        _ => 1,
    }
}

pub(crate) unsafe extern "C" fn audit_trampoline(context: *mut c_void, event: *const mfa_sys::mfa_audit_event) {
    if event.is_null() {
        return;
    }
    let closure = &*(context as *const AuditFn);
    let fields = &*event;
    let copied = AuditEvent {
        kind: AuditKind::from_raw(fields.kind),
        kind_name: text(fields.kind_name).to_string(),
        tenant: tenant_of(text(fields.tenant)),
        uid: text(fields.uid).to_string(),
        factor_id: text(fields.factor_id).to_string(),
        enrollment_id: text(fields.enrollment_id).to_string(),
        time: fields.time,
        detail: text(fields.detail).to_string(),
        actor: text(fields.actor).to_string(),
    };
    let _ = guarded(|| closure(copied));
}

pub(crate) unsafe extern "C" fn sms_sender_trampoline(
    context: *mut c_void,
    phone_number: *const c_char,
    message: *const c_char,
) -> c_int {
    let closure = &*(context as *const SmsSenderFn);
    let (number, message) = (text(phone_number), text(message));
    match guarded(|| closure(number, message)) {
        Some(Ok(())) => 0,
        _ => 1,
    }
}

pub(crate) unsafe extern "C" fn app_verifier_trampoline(
    context: *mut c_void,
    credential: *const c_char,
    action: i32,
) -> c_int {
    let closure = &*(context as *const AppVerifierFn);
    let action = match action {
        mfa_sys::MFA_APP_ACTION_ENROLLMENT => AppAction::Enrollment,
        mfa_sys::MFA_APP_ACTION_SIGN_IN => AppAction::SignIn,
        other => AppAction::Other(other),
    };
    let credential = text(credential);
    match guarded(|| closure(credential, action)) {
        Some(true) => 0,
        _ => 1,
    }
}

pub(crate) unsafe extern "C" fn webauthn_trust_trampoline(
    context: *mut c_void,
    attestation: *const mfa_sys::mfa_webauthn_attestation,
) -> c_int {
    if attestation.is_null() {
        return 1;
    }
    let closure = &*(context as *const WebAuthnTrustFn);
    let fields = &*attestation;
    let mut aaguid = [0u8; 16];
    aaguid.copy_from_slice(bytes(fields.aaguid, 16).get(..16).unwrap_or(&[0u8; 16]));
    let count = if fields.certificates.is_null() || fields.certificate_lengths.is_null() {
        0
    } else {
        fields.certificate_count
    };
    let certificates = (0..count)
        .map(|index| bytes(*fields.certificates.add(index), *fields.certificate_lengths.add(index)).to_vec())
        .collect();
    let copied = WebAuthnAttestation {
        format: text(fields.format).to_string(),
        kind: text(fields.kind).to_string(),
        aaguid,
        certificates,
        chain_trusted: fields.chain_trusted != 0,
        tenant: optional_text(fields.tenant).and_then(tenant_of),
        uid: text(fields.uid).to_string(),
    };
    match guarded(|| closure(&copied)) {
        Some(true) => 0,
        _ => 1,
    }
}
