//! [`Options`]: how to open a [`Context`](crate::Context): the store, the
//! master keys and the host's callbacks.

use std::fmt;
use std::path::Path;

use crate::callbacks::{AppAction, AuditEvent, CallbackError, Callbacks, WebAuthnAttestation};
use crate::cstr::wipe;

/// How to open a [`Context`](crate::Context).
///
/// ```no_run
/// let key = [7u8; 32]; // from the host's secret store
/// let options = mfa::Options::new("mfa.sqlite3", "k1", &key)
///     .clock(|| mfa::unix_now())
///     .audit(|event| eprintln!("audit {} {}", event.kind_name, event.uid))
///     .sms_sender(|number, message| {
///         // hand `message` to the SMS gateway for `number`
///         Ok(())
///     })
///     .app_verifier(|token, _action| !token.is_empty());
/// let ctx = mfa::Context::open(options)?;
/// # Ok::<(), mfa::Error>(())
/// ```
///
/// Every callback runs on the thread that made the libmfa call, so it must
/// be `Send + Sync`; it must not call back into the context (such a call
/// fails with `InvalidArgument`). A panic in a callback is caught at the C
/// boundary: see the [`callbacks`](crate::callbacks) module for what
/// libmfa then does.
pub struct Options {
    pub(crate) store: String,
    pub(crate) key_id: String,
    pub(crate) master_key: Vec<u8>,
    pub(crate) previous_keys: Vec<(String, Vec<u8>)>,
    pub(crate) sms_outbox: Option<std::path::PathBuf>,
    pub(crate) callbacks: Callbacks,
}

impl Options {
    /// Options for `store` with the master key `master_key` (32 bytes, id
    /// `key_id`: 1 to 64 printable ASCII characters).
    ///
    /// `store` is an SQLite file path (created and migrated as needed),
    /// `":memory:"` for a private in-memory store, or a `postgres://` URL
    /// for a store shared by many servers (libpq's URL, plus libmfa's
    /// `mfa_deadline_ms`). The key is copied (and the copy wiped once the
    /// context is open); a key of another length fails at
    /// [`Context::open`](crate::Context::open).
    pub fn new(store: impl Into<String>, key_id: impl Into<String>, master_key: &[u8]) -> Options {
        Options {
            store: store.into(),
            key_id: key_id.into(),
            master_key: master_key.to_vec(),
            previous_keys: Vec::new(),
            sms_outbox: None,
            callbacks: Callbacks::default(),
        }
    }

    /// An earlier master key, still needed to read records not yet rotated
    /// (see [`Context::rotate_keys`](crate::Context::rotate_keys)). Up to 64.
    pub fn previous_key(mut self, key_id: impl Into<String>, key: &[u8]) -> Options {
        self.previous_keys.push((key_id.into(), key.to_vec()));
        self
    }

    /// The clock: the current Unix time in seconds (the system clock if not set).
    pub fn clock(mut self, clock: impl Fn() -> i64 + Send + Sync + 'static) -> Options {
        self.callbacks.clock = Some(Box::new(clock));
        self
    }

    /// The random source for secrets, ids and codes (never for encryption
    /// nonces): fill the buffer, or fail (the call fails with `Crypto`).
    /// libsodium's CSPRNG if not set.
    pub fn random(
        mut self,
        random: impl Fn(&mut [u8]) -> Result<(), CallbackError> + Send + Sync + 'static,
    ) -> Options {
        self.callbacks.random = Some(Box::new(random));
        self
    }

    /// Receives each [`AuditEvent`], on the calling thread, after the change it reports is stored.
    pub fn audit(mut self, audit: impl Fn(AuditEvent) + Send + Sync + 'static) -> Options {
        self.callbacks.audit = Some(Box::new(audit));
        self
    }

    /// The SMS gateway: `(phone_number, message)`, the number strict E.164
    /// and the text `"<code> is your verification code."`. An error makes
    /// the send fail with `SmsSendFailed`, and then neither the send nor
    /// any quota or cooldown is counted. Without a sender (or an outbox),
    /// sends fail, except to the configuration's test numbers.
    pub fn sms_sender(
        mut self,
        sender: impl Fn(&str, &str) -> Result<(), CallbackError> + Send + Sync + 'static,
    ) -> Options {
        self.callbacks.sms_sender = Some(Box::new(sender));
        self
    }

    /// Instead of an SMS sender, a file to append each SMS to as a JSON line
    /// (development and tests: it holds live codes; see [`crate::outbox`]).
    pub fn sms_outbox(mut self, path: impl AsRef<Path>) -> Options {
        self.sms_outbox = Some(path.as_ref().to_path_buf());
        self
    }

    /// The check of the app credential a client sends with each SMS request
    /// (its reCAPTCHA token or APNs-style receipt): true accepts it. Without
    /// a verifier, SMS requests fail with `OperationNotAllowed` unless the
    /// configuration sets `"phone": {"appVerification": "DISABLED"}`.
    pub fn app_verifier(mut self, verifier: impl Fn(&str, AppAction) -> bool + Send + Sync + 'static) -> Options {
        self.callbacks.app_verifier = Some(Box::new(verifier));
        self
    }

    /// Decides which WebAuthn attestations are trusted at registration:
    /// true accepts the credential. Without it the configuration decides.
    pub fn webauthn_trust(
        mut self,
        trust: impl Fn(&WebAuthnAttestation) -> bool + Send + Sync + 'static,
    ) -> Options {
        self.callbacks.webauthn_trust = Some(Box::new(trust));
        self
    }
}

impl fmt::Debug for Options {
    /// The key ids and which callbacks are set; never the keys, nor the store (a URL may hold a password).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("key_id", &self.key_id)
            .field("previous_keys", &self.previous_keys.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>())
            .field("clock", &self.callbacks.clock.is_some())
            .field("random", &self.callbacks.random.is_some())
            .field("audit", &self.callbacks.audit.is_some())
            .field("sms_sender", &self.callbacks.sms_sender.is_some())
            .field("sms_outbox", &self.sms_outbox)
            .field("app_verifier", &self.callbacks.app_verifier.is_some())
            .field("webauthn_trust", &self.callbacks.webauthn_trust.is_some())
            .finish_non_exhaustive()
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        wipe(&mut self.master_key);
        for (_, key) in self.previous_keys.iter_mut() {
            wipe(key);
        }
    }
}
