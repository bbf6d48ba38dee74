//! The host's callbacks as closures: what each receives, what its failure
//! and its panic do (caught at the C boundary, never a crash), and that a
//! callback cannot call back into the context. Also the options' bad input.

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mfa::{AppAction, Assertion, Context, FactorKind, Options, SignIn};
use support::{assert_error, Kit, Store, KEY, T0};

const PHONE: &str = r#"{"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "ENABLED"}}"#;

#[test]
fn the_random_callback_makes_the_secrets_and_its_failures_are_crypto_errors() {
    let store = Store::sqlite();
    let mode = Arc::new(Mutex::new("fill"));
    let setting = mode.clone();
    let kit = Kit::open_with(&store.location(), move |options| {
        options.random(move |out| {
            let mode = *setting.lock().unwrap();
            match mode {
            "fill" => {
                out.iter_mut().for_each(|byte| *byte = 0x42);
                Ok(())
            }
            "fail" => Err("no entropy today".into()),
            _ => panic!("the random source panics"),
            }
        })
    });
    let user = kit.user("alice");
    let secret = kit.ctx.multi_factor(&user).session().unwrap().totp_secret().unwrap();
    assert_eq!(&*mfa::base32_decode(secret.shared_secret_key()).unwrap(), &[0x42u8; 20][..]);
    *mode.lock().unwrap() = "fail";
    assert_error(kit.ctx.multi_factor(&user).session().and_then(|s| s.totp_secret()), "CRYPTO");
    *mode.lock().unwrap() = "panic";
    assert_error(kit.ctx.multi_factor(&user).session().and_then(|s| s.totp_secret()), "CRYPTO");
}

#[test]
fn a_panicking_clock_falls_back_to_the_system_clock() {
    let store = Store::sqlite();
    let ctx = Context::open(Options::new(store.location(), "k1", &KEY).clock(|| panic!("the clock panics"))).unwrap();
    ctx.set_config(PHONE, None).unwrap();
    let now = mfa::unix_now();
    let user = mfa::User::new("alice", now).with_email("a@example.com", true);
    let secret = ctx.multi_factor(&user).session().unwrap().totp_secret().unwrap();
    let deadline = secret.enrollment_completion_deadline();
    assert!(deadline > now && deadline < now + 24 * 3600, "deadline {} from the system clock {}", deadline, now);
}

#[test]
fn audit_events_arrive_and_a_panicking_audit_callback_changes_nothing() {
    let store = Store::sqlite();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let kit = Kit::open_with(&store.location(), move |options| {
        options.audit(move |event| {
            counter.fetch_add(1, Ordering::SeqCst);
            assert!(!event.kind_name.is_empty());
            panic!("the audit callback panics");
        })
    });
    let user = kit.user("alice");
    let (eid, app) = kit.enroll_totp(&user);
    kit.advance(30);
    let resolver = kit.ctx.sign_in(&user).unwrap().resolver().unwrap();
    let result = resolver.resolve_sign_in(&Assertion::totp_sign_in(&eid, &app.at(kit.now()).unwrap())).unwrap();
    assert_eq!(result.uid(), "alice");
    assert!(calls.load(Ordering::SeqCst) >= 3, "config, enroll and sign-in are audited");
}

#[test]
fn the_sms_sender_gets_the_number_and_the_code_and_its_failures_count_nothing() {
    let store = Store::sqlite();
    let sent = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
    let mode = Arc::new(Mutex::new("send"));
    let (log, setting) = (sent.clone(), mode.clone());
    let options = Options::new(store.location(), "k1", &KEY)
        .clock(|| T0)
        .app_verifier(|_, _| true)
        .sms_sender(move |number, message| {
            let mode = *setting.lock().unwrap();
            match mode {
            "send" => {
                log.lock().unwrap().push((number.to_string(), message.to_string()));
                Ok(())
            }
            "fail" => Err("the gateway is down".into()),
            _ => panic!("the sender panics"),
            }
        });
    let ctx = Context::open(options).unwrap();
    ctx.set_config(PHONE, None).unwrap();
    let user = mfa::User::new("alice", T0).with_email("a@example.com", true);
    let session = ctx.multi_factor(&user).session().unwrap();
    *mode.lock().unwrap() = "fail";
    assert_error(session.verify_phone_number("+15105550100", Some("token")), "SMS_SEND_FAILED");
    *mode.lock().unwrap() = "panic";
    assert_error(session.verify_phone_number("+15105550100", Some("token")), "SMS_SEND_FAILED");
    // Nothing was counted: no resend cooldown now.
    *mode.lock().unwrap() = "send";
    let verification_id = session.verify_phone_number("+15105550100", Some("token")).unwrap();
    let (number, message) = sent.lock().unwrap()[0].clone();
    assert_eq!(number, "+15105550100");
    let code = message.strip_suffix(" is your verification code.").expect("libmfa's message");
    assert_eq!(code.len(), 6);
    let factor = ctx.multi_factor(&user).enroll(&Assertion::phone(&verification_id, code), None).unwrap();
    assert_eq!(factor.kind(), FactorKind::Phone);
}

#[test]
fn the_app_verifier_decides_and_a_panic_refuses() {
    let store = Store::sqlite();
    let seen = Arc::new(Mutex::new(Vec::<(String, AppAction)>::new()));
    let log = seen.clone();
    let kit = Kit::open_with(&store.location(), move |options| {
        options.app_verifier(move |credential, action| {
            log.lock().unwrap().push((credential.to_string(), action));
            match credential {
                "good" => true,
                "boom" => panic!("the verifier panics"),
                _ => false,
            }
        })
    });
    kit.ctx.set_config(PHONE, None).unwrap(); // app verification REQUIRED (the default)
    let user = kit.user("alice");
    let session = kit.ctx.multi_factor(&user).session().unwrap();
    let number = "+15105550101";
    assert_error(session.verify_phone_number(number, None), "MISSING_APP_CREDENTIAL");
    assert_error(session.verify_phone_number(number, Some("bad")), "INVALID_APP_CREDENTIAL");
    assert_error(session.verify_phone_number(number, Some("boom")), "INVALID_APP_CREDENTIAL");
    let id = session.verify_phone_number(number, Some("good")).unwrap();
    kit.ctx.multi_factor(&user).enroll(&Assertion::phone(&id, &kit.sms_code(number)), None).unwrap();
    kit.advance(31);
    let resolver = kit.ctx.sign_in(&user).unwrap().resolver().unwrap();
    let hint = resolver.hint(FactorKind::Phone).unwrap();
    assert_error(resolver.verify_phone_number(hint.uid(), Some("bad")), "INVALID_APP_CREDENTIAL");
    resolver.verify_phone_number(hint.uid(), Some("good")).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], ("bad".to_string(), AppAction::Enrollment));
    assert_eq!(seen.last().unwrap(), &("good".to_string(), AppAction::SignIn));
}

#[test]
fn a_callback_cannot_call_back_into_the_context() {
    let store = Store::sqlite();
    let slot: Arc<Mutex<Option<Arc<Context>>>> = Arc::new(Mutex::new(None));
    let outcomes = Arc::new(Mutex::new(Vec::<String>::new()));
    let (reach, log) = (slot.clone(), outcomes.clone());
    let options = Options::new(store.location(), "k1", &KEY).clock(|| T0).audit(move |_event| {
        let ctx = reach.lock().unwrap().clone();
        if let Some(ctx) = ctx {
            let outcome = match ctx.check_token("alice", T0, None) {
                Ok(()) => "OK".to_string(),
                Err(error) => error.name().to_string(),
            };
            log.lock().unwrap().push(outcome);
        }
    });
    let ctx = Arc::new(Context::open(options).unwrap());
    *slot.lock().unwrap() = Some(ctx.clone());
    ctx.set_config(PHONE, None).unwrap();
    *slot.lock().unwrap() = None; // no cycle left behind
    assert_eq!(outcomes.lock().unwrap().as_slice(), ["INVALID_ARGUMENT"]);
    // Outside the callback the same call works.
    ctx.check_token("alice", T0, None).unwrap();
}

#[test]
fn the_webauthn_trust_callback_is_accepted_and_options_name_the_relying_party() {
    let store = Store::sqlite();
    let called = Arc::new(AtomicBool::new(false));
    let flag = called.clone();
    let kit = Kit::open_with(&store.location(), move |options| {
        options.webauthn_trust(move |attestation| {
            flag.store(true, Ordering::SeqCst);
            attestation.format == "none"
        })
    });
    kit.ctx
        .set_config(r#"{"state": "ENABLED", "providers": {"webauthn": "ENABLED"}, "webauthn": {"rpId": "example.com"}}"#, None)
        .unwrap();
    let user = kit.user("alice");
    let session = kit.ctx.multi_factor(&user).session().unwrap();
    let options = session.webauthn_registration_options("alice@example.com", Some("Alice")).unwrap();
    assert!(options.contains("\"challenge\""), "{}", options);
    assert!(options.contains("example.com"));
    assert_error(
        kit.ctx.multi_factor(&user).enroll(&Assertion::webauthn_enrollment("{not json"), None),
        "INVALID_ARGUMENT",
    );
    assert_error(mfa::webauthn::verify_registration("{}", "abc", "example.com", "https://example.com", false), "INVALID_ARGUMENT");
    assert_error(
        mfa::webauthn::verify_assertion("{}", "abc", "example.com", "https://example.com", &[1, 2, 3], false),
        "INVALID_ARGUMENT",
    );
    assert!(!called.load(Ordering::SeqCst), "no attestation reached the callback");
}

#[test]
fn options_bad_input() {
    let store = Store::sqlite();
    let location = store.location();
    assert_error(Context::open(Options::new(location.as_str(), "k1", &[0u8; 31])), "INVALID_ARGUMENT");
    assert_error(Context::open(Options::new(location.as_str(), "", &KEY)), "INVALID_ARGUMENT");
    assert_error(
        Context::open(Options::new(location.as_str(), "k1", &KEY).previous_key("k1", &[2u8; 32])),
        "INVALID_ARGUMENT",
    );
    assert_error(
        Context::open(Options::new(location.as_str(), "k1", &KEY).sms_outbox("/tmp/x").sms_sender(|_, _| Ok(()))),
        "INVALID_ARGUMENT",
    );
    assert_error(Context::open(Options::new("mysql://db/mfa", "k1", &KEY)), "INVALID_ARGUMENT");
    assert_error(Context::open(Options::new("a\u{0}b", "k1", &KEY)), "INVALID_ARGUMENT");
    assert_error(Context::open(Options::new("/nonexistent-dir/x/mfa.sqlite3", "k1", &KEY)), "STORAGE_ERROR");
    let ctx = Context::open(Options::new(location.as_str(), "k1", &KEY)).unwrap();
    assert_error(ctx.set_config(r#"{"totp": {"adjacentIntervals": 11}}"#, None), "INVALID_ARGUMENT");
    assert_error(ctx.set_config("{", None), "INVALID_ARGUMENT");
    assert_error(ctx.sign_in(&mfa::User::new("", T0)), "INVALID_ARGUMENT");
    assert_error(ctx.sign_in(&mfa::User::new("a\u{0}", T0)), "INVALID_ARGUMENT");
    assert!(matches!(ctx.sign_in(&mfa::User::new("nobody", T0)).unwrap(), SignIn::Complete));
    assert_error(ctx.admin(""), "INVALID_ARGUMENT");
    assert_error(ctx.admin(&"x".repeat(257)), "INVALID_ARGUMENT");
    assert!(!format!("{:?}", Options::new("postgres://u:secret@db/mfa", "k1", &KEY)).contains("secret"));
}
