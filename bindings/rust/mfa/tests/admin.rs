//! The operator's calls through the binding: users and their factors,
//! rename, unenroll, erasure, counts; imports with reports, re-runs,
//! progress that stops and a report that panics; key rotation and the seal
//! check. On SQLite, and the imports and rotation on PostgreSQL too.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use mfa::{Assertion, Context, FactorKind, ImportFormat, ImportLine, ImportOptions, ImportOutcome, Options, Tenants, Totp};
use support::{assert_error, Kit, Store, KEY, T0};

const RFC_BASE32: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const RFC_KEY: &[u8] = b"12345678901234567890";

fn otpauth_text() -> String {
    format!(
        "otpauth://totp/ACME:ot-alice?secret={0}&issuer=ACME\n# a comment\n\notpauth://hotp/ACME:ot-bob?secret={0}&counter=3\n\
         otpauth://totp/ACME:ot-carol?secret=not*base32\nhttps://example.com/\n",
        RFC_BASE32
    )
}

fn letters(lines: &[ImportLine]) -> String {
    lines
        .iter()
        .map(|line| {
            assert!(!line.reason.contains(RFC_BASE32), "no secret in a report");
            let letter = match line.outcome {
                ImportOutcome::Imported => "I",
                ImportOutcome::AlreadyImported => "A",
                ImportOutcome::Unsupported => "U",
                ImportOutcome::Failed => "F",
                ImportOutcome::Note => "N",
                _ => "?",
            };
            format!("{}:{}", line.line, letter)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn users_factors_rename_unenroll_delete_and_stats() {
    let store = Store::sqlite();
    let kit = Kit::open(&store.location());
    let alice = kit.user("alice");
    let (eid, _) = kit.enroll_totp(&alice);
    let number = "+15105550142";
    let mf = kit.ctx.multi_factor(&alice);
    let id = mf.session().unwrap().verify_phone_number(number, None).unwrap();
    mf.enroll(&Assertion::phone(&id, &kit.sms_code(number)), Some("mobile")).unwrap();
    kit.enroll_totp(&kit.user("bob").with_tenant("acme"));

    let admin = kit.ctx.admin("ops:bob").unwrap();
    assert_eq!(admin.actor(), "ops:bob");
    let page = admin.list_users(Tenants::All, None, 1, None).unwrap();
    assert_eq!(page.users().len(), 1);
    assert_eq!(page.users()[0].uid(), "alice");
    assert_eq!(page.users()[0].factor_total(), 2);
    let counts: Vec<(String, i64)> =
        page.users()[0].factor_counts().iter().map(|count| (count.factor_id().to_string(), count.count())).collect();
    assert_eq!(counts, vec![("phone".to_string(), 1), ("totp".to_string(), 1)]);
    let second = admin.list_users(Tenants::All, None, 1, page.next_cursor()).unwrap();
    assert_eq!(second.users()[0].tenant(), Some("acme"));
    assert!(second.next_cursor().is_none());
    let all: Vec<String> =
        admin.pages(Tenants::All, None, 1).flat_map(|page| page.unwrap().iter().map(|u| u.uid().to_string()).collect::<Vec<_>>()).collect();
    assert_eq!(all, vec!["alice", "bob"]);
    assert_eq!(admin.list_users(Tenants::Project, None, 10, None).unwrap().len(), 1);
    assert_eq!(admin.list_users(Tenants::Tenant("acme"), Some("totp"), 10, None).unwrap().len(), 1);
    assert_eq!(admin.list_users(Tenants::All, Some("phone"), 10, None).unwrap().len(), 1);
    assert_error(admin.list_users(Tenants::All, None, 0, None), "INVALID_ARGUMENT");
    assert_error(admin.list_users(Tenants::All, Some("fax"), 10, None), "INVALID_ARGUMENT");
    assert_error(admin.list_users(Tenants::All, None, 10, Some("not a cursor")), "INVALID_ARGUMENT");

    let masked = admin.user_factors("alice", None, false).unwrap();
    assert_eq!(masked[1].phone_number(), Some("+1******0142"));
    let shown = admin.user_factors("alice", None, true).unwrap();
    assert_eq!(shown[1].phone_number(), Some(number));
    let renamed = admin.rename(&eid, Some("Old phone")).unwrap();
    assert_eq!(renamed.info().display_name(), Some("Old phone"));
    assert_eq!(renamed.uid(), "alice");
    assert!(kit.events.lock().unwrap().iter().any(|e| e.kind_name == "FACTOR_RENAMED" && e.actor == "ops:bob"));
    assert_error(admin.rename("nope", None), "MFA_ENROLLMENT_NOT_FOUND");

    let stats = admin.stats().unwrap();
    assert_eq!((stats.total_users(), stats.total_factors()), (2, 3));
    assert_eq!(stats.rows().len(), 3);
    assert_eq!(stats.tenants()[1].tenant(), Some("acme"));

    kit.advance(2);
    let removed = admin.unenroll(&eid).unwrap();
    assert_eq!(removed.info().kind(), FactorKind::Totp);
    assert_error(kit.ctx.check_token("alice", kit.now() - 1, None), "USER_TOKEN_EXPIRED");
    let deleted = admin.delete_user("alice", None).unwrap();
    assert_eq!(deleted.len(), 1);
    assert_error(admin.delete_user("never-seen", None), "MFA_ENROLLMENT_NOT_FOUND");
    assert!(kit.kinds().contains(&"USER_DELETED".to_string()));
}

fn imports(kit: &Kit) {
    let admin = kit.ctx.admin("ops:import").unwrap();
    let mut lines = Vec::new();
    let mut report = |line: ImportLine| lines.push(line);
    let summary = admin
        .import_factors(otpauth_text().as_bytes(), ImportFormat::Otpauth, ImportOptions { report: Some(&mut report), ..Default::default() })
        .unwrap();
    assert_eq!((summary.lines, summary.imported, summary.unsupported, summary.failed), (6, 2, 0, 2));
    assert_eq!(letters(&lines), "1:I 4:I 5:F 6:F"); // line 4: an HOTP factor
    let alice = lines[0].enrollment_id.clone().unwrap();
    assert_eq!(lines[0].uid.as_deref(), Some("ot-alice"));
    // The imported factor signs in.
    kit.advance(30);
    let resolver = kit.ctx.sign_in(&kit.user("ot-alice")).unwrap().resolver().unwrap();
    let code = Totp::new(RFC_KEY).unwrap().at(kit.now()).unwrap();
    assert_eq!(resolver.resolve_sign_in(&Assertion::totp_sign_in(&alice, &code)).unwrap().enrollment_id(), alice);
    // A re-run stores nothing.
    let again = admin.import_factors(otpauth_text().as_bytes(), ImportFormat::Otpauth, ImportOptions::default()).unwrap();
    assert_eq!((again.imported, again.already_imported), (0, 2));

    let users_file = format!("HOTP/T30/6 uf-alice - {}\nHOTP/T30 uf-erin - 12345\n", hex(RFC_KEY));
    let summary = admin
        .import_factors(users_file.as_bytes(), ImportFormat::UsersFile, ImportOptions { tenant: Some("corp"), ..Default::default() })
        .unwrap();
    assert_eq!((summary.imported, summary.failed), (1, 1));
    assert_eq!(admin.user_factors("uf-alice", Some("corp"), false).unwrap().len(), 1);

    let csv = "uid,secret,issuer,digits,period,algorithm\ncsv-bob,JBSWY3DPEHPK3PXP,\"ACME, Inc.\",8,60,SHA256\n";
    let summary = admin.import_factors(csv.as_bytes(), ImportFormat::Csv, ImportOptions::default()).unwrap();
    assert_eq!(summary.imported, 1);
    assert_eq!(admin.user_factors("csv-bob", None, false).unwrap()[0].display_name(), Some("ACME, Inc."));

    let ga = format!("{}\n\" RATE_LIMIT 3 30 1700000000\n\" TOTP_AUTH\n12345678\n87654321\n", RFC_BASE32);
    let mut notes = Vec::new();
    let mut report = |line: ImportLine| notes.push(line);
    let summary = admin
        .import_google_authenticator(ga.as_bytes(), "ga-alice", ImportOptions { report: Some(&mut report), ..Default::default() })
        .unwrap();
    assert_eq!((summary.imported, summary.recovery_codes), (1, 2));
    assert_eq!(letters(&notes), "1:I 2:N 3:N 4:I 5:I");
    let kinds: Vec<FactorKind> = admin.user_factors("ga-alice", None, false).unwrap().iter().map(|f| f.kind()).collect();
    assert_eq!(kinds, vec![FactorKind::Totp, FactorKind::RecoveryCodes]);

    // Progress: false stops after the first batch; a re-run goes on.
    let many: String = (0..5).map(|i| format!("otpauth://totp/X:batch-{}?secret={}\n", i, RFC_BASE32)).collect();
    let mut calls = Vec::new();
    let mut stop = |done: i64, total: i64| {
        calls.push((done, total));
        false
    };
    let stopped = admin
        .import_factors(many.as_bytes(), ImportFormat::Otpauth, ImportOptions { batch_size: Some(2), progress: Some(&mut stop), ..Default::default() })
        .unwrap();
    assert!(stopped.stopped);
    assert_eq!(stopped.imported, 2);
    assert_eq!(calls, vec![(2, 5)]);
    // A panic in the report stops the import after its batch and goes on once the C call returned.
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let mut boom = |_line: ImportLine| panic!("the report panics");
        admin.import_factors(many.as_bytes(), ImportFormat::Otpauth, ImportOptions { batch_size: Some(1), report: Some(&mut boom), ..Default::default() })
    }));
    let message = caught.expect_err("the panic goes on");
    assert_eq!(message.downcast_ref::<&str>(), Some(&"the report panics"));
    let rest = admin.import_factors(many.as_bytes(), ImportFormat::Otpauth, ImportOptions::default()).unwrap();
    assert_eq!(rest.already_imported + rest.imported, 5);
    // Two before the stop; the panicking run stopped after its first batch (line 1, already there).
    assert_eq!((rest.already_imported, rest.imported), (2, 3));
    assert_error(admin.import_factors(b"\xff\xfe", ImportFormat::Otpauth, ImportOptions::default()), "INVALID_ARGUMENT");
    assert_error(
        admin.import_factors(b"x", ImportFormat::Csv, ImportOptions { batch_size: Some(0), ..Default::default() }),
        "INVALID_ARGUMENT",
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{:02x}", byte)).collect()
}

fn rotation(location: &str) {
    let old = [3u8; 32];
    let new = [4u8; 32];
    {
        let kit = Kit::open_with(location, |_| Options::new(location, "old", &old).clock(|| T0));
        for uid in ["r1", "r2", "r3"] {
            kit.enroll_totp(&kit.user(uid));
        }
        kit.ctx.import_totp(&kit.user("r4"), &Totp::new(&[9u8; 20]).unwrap(), Some("imported")).unwrap();
        kit.ctx
            .import_uri(&kit.user("r5"), &Totp::new(&[8u8; 20]).unwrap().provisioning_uri("r5", None).unwrap(), None)
            .unwrap();
        assert_error(kit.ctx.import_uri(&kit.user("r6"), "otpauth://hotp/x?secret=GEZD&counter=1", None), "INVALID_ARGUMENT");
    }
    let ctx = Context::open(Options::new(location, "new", &new).previous_key("old", &old).clock(|| T0)).unwrap();
    let admin = ctx.admin("ops:keys").unwrap();
    let mut calls = Vec::new();
    let mut progress = |done: i64, total: i64| {
        calls.push((done, total));
        true
    };
    let result = admin.rotate_keys(2, Some(&mut progress)).unwrap();
    assert_eq!((result.rotated, result.remaining, result.stopped), (5, 0, false));
    assert_eq!(calls.last(), Some(&(5, 5)));
    assert_eq!(admin.rotate_keys(10, None).unwrap().rotated, 0);
    assert_eq!(ctx.rotate_keys().unwrap(), 0);
    drop(admin);
    drop(ctx);
    let alone = Context::open(Options::new(location, "new", &new).clock(|| T0)).unwrap();
    let check = alone.admin("ops:keys").unwrap().check_seals(2, None).unwrap();
    assert_eq!((check.checked(), check.failed(), check.failed_ids().len(), check.stopped()), (5, 0, 0, false));
    assert_error(alone.admin("ops:keys").unwrap().rotate_keys(0, None), "INVALID_ARGUMENT");
    alone.purge_expired().unwrap();
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let mut boom = |_: i64, _: i64| -> bool { panic!("the progress panics") };
        alone.admin("ops:keys").unwrap().check_seals(1, Some(&mut boom))
    }));
    assert!(caught.is_err());
    let old_only = Context::open(Options::new(location, "old", &old).clock(|| T0)).unwrap();
    let check = old_only.admin("ops:keys").unwrap().check_seals(100, None).unwrap();
    assert_eq!(check.failed(), 5);
    assert_eq!(check.failed_ids().len(), 5);
    let _ = KEY;
}

#[test]
fn imports_sqlite() {
    let store = Store::sqlite();
    imports(&Kit::open(&store.location()));
}

#[test]
fn imports_postgres() {
    if let Some(url) = support::postgres_url() {
        let store = Store::postgres(&url);
        imports(&Kit::open(&store.location()));
    }
}

#[test]
fn rotation_sqlite() {
    let store = Store::sqlite();
    rotation(&store.location());
}

#[test]
fn rotation_postgres() {
    if let Some(url) = support::postgres_url() {
        let store = Store::postgres(&url);
        rotation(&store.location());
    }
}
