//! What the integration tests share: stores (a new SQLite file, or a schema
//! of its own on the PostgreSQL server of MFA_TEST_POSTGRES_URL), a context
//! on an injected clock with an audit log and an SMS outbox, and users.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mfa::{AuditEvent, Context, Options, User};

/// A fixed start time for the injected clocks: the start of a 30 s time step.
pub const T0: i64 = 1_700_000_010;
/// The master key the tests open their contexts with.
pub const KEY: [u8; 32] = [1u8; 32];
/// TOTP, phone and recovery codes enabled; SMS app verification off.
pub const CONFIG: &str = r#"{"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "ENABLED", "recovery": "ENABLED"}, "phone": {"appVerification": "DISABLED"}}"#;

/// A folder of its own under the system's temporary folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let dir = std::env::temp_dir().join(format!(
            "mfa-rust-{}-{}-{}-{}",
            what,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst),
            nanos
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a test's state lives.
pub enum Store {
    /// A new SQLite file in a folder of its own.
    Sqlite(TempDir),
    /// A schema of its own on the test server (dropped at the end).
    Postgres { server: String, schema: String },
}

/// The test server's URL: None when MFA_TEST_POSTGRES_URL is not set (then
/// the PostgreSQL runs are left out, except under CI=true, where that is a
/// failure: nothing skips in CI).
pub fn postgres_url() -> Option<String> {
    match std::env::var("MFA_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var("CI").map(|value| value == "true").unwrap_or(false) {
                panic!("MFA_TEST_POSTGRES_URL is not set (scripts/test.sh starts the server)");
            }
            eprintln!("note: MFA_TEST_POSTGRES_URL is not set: the PostgreSQL run is left out");
            None
        }
    }
}

/// Runs one SQL statement on the server with psql.
pub fn psql(url: &str, sql: &str) {
    let status = Command::new("psql")
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-X", url, "-c", sql])
        .env("PGOPTIONS", "--client-min-messages=warning")
        .status()
        .expect("psql runs");
    assert!(status.success(), "psql: {}", sql);
}

impl Store {
    pub fn sqlite() -> Store {
        Store::Sqlite(TempDir::new("store"))
    }

    pub fn postgres(server: &str) -> Store {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let schema = format!("r_{}_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst), nanos);
        psql(server, &format!("CREATE SCHEMA {}", schema));
        Store::Postgres { server: server.to_string(), schema }
    }

    /// Every store the suite runs on: SQLite, and PostgreSQL when the server is there.
    pub fn all() -> Vec<Store> {
        let mut stores = vec![Store::sqlite()];
        if let Some(url) = postgres_url() {
            stores.push(Store::postgres(&url));
        }
        stores
    }

    /// What `Options::new` gets.
    pub fn location(&self) -> String {
        match self {
            Store::Sqlite(dir) => dir.path().join("mfa.sqlite3").to_string_lossy().into_owned(),
            Store::Postgres { server, schema } => format!(
                "{}{}options=-csearch_path%3D{}",
                server,
                if server.contains('?') { '&' } else { '?' },
                schema
            ),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres { .. } => "postgres",
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Store::Postgres { server, schema } = self {
            psql(server, &format!("DROP SCHEMA IF EXISTS {} CASCADE", schema));
        }
    }
}

/// A context on an injected clock, with its audit events and an SMS outbox.
pub struct Kit {
    pub ctx: Context,
    pub clock: Arc<AtomicI64>,
    pub events: Arc<Mutex<Vec<AuditEvent>>>,
    pub outbox: PathBuf,
    _dir: TempDir,
}

impl Kit {
    pub fn open(location: &str) -> Kit {
        Kit::open_with(location, |options| options)
    }

    /// A kit whose options `adjust` may change (callbacks, keys).
    pub fn open_with(location: &str, adjust: impl FnOnce(Options) -> Options) -> Kit {
        let dir = TempDir::new("kit");
        let outbox = dir.path().join("outbox.jsonl");
        let clock = Arc::new(AtomicI64::new(T0));
        let events = Arc::new(Mutex::new(Vec::new()));
        let reading = clock.clone();
        let log = events.clone();
        let options = Options::new(location, "k1", &KEY)
            .clock(move || reading.load(Ordering::SeqCst))
            .audit(move |event| log.lock().unwrap().push(event))
            .sms_outbox(&outbox);
        let ctx = Context::open(adjust(options)).expect("the context opens");
        ctx.set_config(CONFIG, None).expect("the configuration is stored");
        Kit { ctx, clock, events, outbox, _dir: dir }
    }

    pub fn now(&self) -> i64 {
        self.clock.load(Ordering::SeqCst)
    }

    /// Moves the clock `seconds` on; the new time.
    pub fn advance(&self, seconds: i64) -> i64 {
        self.clock.fetch_add(seconds, Ordering::SeqCst) + seconds
    }

    /// A user who passed a password first factor just now, with a verified email.
    pub fn user(&self, uid: &str) -> User {
        User::new(uid, self.now()).with_email(format!("{}@example.com", uid), true)
    }

    /// The kind names of the audit events so far.
    pub fn kinds(&self) -> Vec<String> {
        self.events.lock().unwrap().iter().map(|event| event.kind_name.clone()).collect()
    }

    /// The newest SMS code sent to `number`.
    pub fn sms_code(&self, number: &str) -> String {
        mfa::outbox::code(&self.outbox, Some(number)).unwrap().expect("an SMS was sent")
    }

    /// Enrolls a TOTP factor for `user`: the factor's id and the app's Totp.
    pub fn enroll_totp(&self, user: &User) -> (String, mfa::Totp) {
        let mf = self.ctx.multi_factor(user);
        let secret = mf.session().unwrap().totp_secret().unwrap();
        let app = secret.authenticator().unwrap();
        let code = app.at(self.now()).unwrap();
        let factor = mf.enroll(&mfa::Assertion::totp_enrollment(&secret, &code), Some("app")).unwrap();
        (factor.uid().to_string(), app)
    }
}

/// Asserts that `result` failed with the error whose name is `name`.
#[track_caller]
pub fn assert_error<T: std::fmt::Debug>(result: mfa::Result<T>, name: &str) {
    match result {
        Err(error) => assert_eq!(error.name(), name, "{}", error),
        Ok(value) => panic!("expected {}, got Ok({:?})", name, value),
    }
}

/// A six-digit code that no step within +/-10 of `at` takes (a random secret's
/// neighbours take 11 or 21 codes in a million; a fixed "wrong" code would be
/// right now and then).
pub fn wrong_code(app: &mfa::Totp, at: i64) -> String {
    let right: u32 = app.at(at).unwrap().parse().unwrap();
    (1..)
        .map(|offset| format!("{:06}", (right + offset) % 1_000_000))
        .find(|code| !app.verify(code, at, 10).unwrap())
        .unwrap()
}
