//! The flow contract through the Rust binding, as the C and Python suites
//! run it: prerequisites, TOTP enrollment and resolver sign-in, replay
//! refused, wrong code, SMS through the outbox, recovery codes, revocation,
//! an operator's reset, and the metrics those flows count. Each case runs on SQLite and on PostgreSQL
//! (MFA_TEST_POSTGRES_URL), each in a store of its own.

mod support;

use mfa::{Assertion, FactorKind, SignIn};
use support::{assert_error, Kit, Store};

/// One #[test] per store for each case.
macro_rules! contract {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $case() {
                let store = super::Store::sqlite();
                super::$case(&super::Kit::open(&store.location()));
            })*
        }
        mod postgres {
            $(#[test] fn $case() {
                if let Some(url) = super::support::postgres_url() {
                    let store = super::Store::postgres(&url);
                    super::$case(&super::Kit::open(&store.location()));
                }
            })*
        }
    };
}

contract!(
    prerequisites,
    totp_enrollment_and_sign_in,
    replay_is_refused,
    wrong_code,
    sms_through_the_outbox,
    recovery_codes,
    revocation,
    admin_reset,
    metrics_text,
);

fn resolver<'a>(kit: &'a Kit, user: &mfa::User) -> mfa::Resolver<'a> {
    match kit.ctx.sign_in(user).unwrap() {
        SignIn::SecondFactorRequired(resolver) => resolver,
        SignIn::Complete => panic!("a second factor should be required"),
    }
}

fn prerequisites(kit: &Kit) {
    let unverified = kit.user("unverified").with_email("u@example.com", false);
    assert_error(kit.ctx.multi_factor(&unverified).session(), "UNVERIFIED_EMAIL");
    let phone_first = kit.user("phone-first").with_provider("phone");
    assert_error(kit.ctx.multi_factor(&phone_first).session(), "UNSUPPORTED_FIRST_FACTOR");
    let stale = kit.user("stale").with_auth_time(kit.now() - 3600);
    assert_error(kit.ctx.multi_factor(&stale).session(), "REQUIRES_RECENT_LOGIN");

    let full = kit.user("full");
    for _ in 0..5 {
        kit.enroll_totp(&kit.user("full"));
    }
    assert_eq!(kit.ctx.multi_factor(&full).enrolled_factors().unwrap().len(), 5);
    let sixth = kit.ctx.multi_factor(&full).session().and_then(|session| session.totp_secret());
    assert_error(sixth, "SECOND_FACTOR_LIMIT_EXCEEDED");

    kit.ctx.set_config(r#"{"state": "DISABLED"}"#, None).unwrap();
    assert_error(kit.ctx.multi_factor(&kit.user("off")).session(), "OPERATION_NOT_ALLOWED");
    kit.ctx.set_config(r#"{"state": "MANDATORY", "providers": {"totp": "ENABLED"}}"#, None).unwrap();
    assert_error(kit.ctx.sign_in(&kit.user("nobody")), "ENROLLMENT_REQUIRED");
    kit.ctx.set_config(support::CONFIG, None).unwrap();
    assert!(matches!(kit.ctx.sign_in(&kit.user("nobody")).unwrap(), SignIn::Complete));
}

fn totp_enrollment_and_sign_in(kit: &Kit) {
    let user = kit.user("alice");
    let mf = kit.ctx.multi_factor(&user);
    let secret = mf.session().unwrap().totp_secret().unwrap();
    assert_eq!(secret.digits(), 6);
    assert_eq!(secret.period(), 30);
    assert!(secret.enrollment_completion_deadline() > kit.now());
    let uri = secret.qr_code_url("alice@example.com", Some("ACME Co")).unwrap();
    assert!(uri.starts_with("otpauth://totp/ACME%20Co:alice%40example.com?"), "{}", uri);
    let app = secret.authenticator().unwrap();
    let wrong = support::wrong_code(&app, kit.now());
    assert_error(mf.enroll(&Assertion::totp_enrollment(&secret, &wrong), None), "INVALID_VERIFICATION_CODE");
    let factor = mf.enroll(&Assertion::totp_enrollment(&secret, &app.at(kit.now()).unwrap()), Some("Work phone")).unwrap();
    assert_eq!(factor.factor_id(), "totp");
    assert_eq!(factor.kind(), FactorKind::Totp);
    assert_eq!(factor.display_name(), Some("Work phone"));
    assert_eq!(factor.hint(), "authenticator app");
    let listed = mf.enrolled_factors().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(&listed[0], &*factor);

    kit.advance(30);
    let resolver = resolver(kit, &user);
    assert_eq!(resolver.uid(), "alice");
    assert_eq!(resolver.tenant(), None);
    assert_eq!(resolver.hints().len(), 1);
    let hint = resolver.hint(FactorKind::Totp).unwrap();
    assert_eq!(hint.uid(), factor.uid());
    // A client sends the pending credential back: the resolver is rebuilt from it.
    let loaded = kit.ctx.resolver(resolver.session(), None).unwrap();
    let code = app.at(kit.now()).unwrap();
    let result = loaded.resolve_sign_in(&Assertion::totp_sign_in(hint.uid(), &code)).unwrap();
    assert_eq!(result.uid(), "alice");
    assert_eq!(result.factor_id(), "totp");
    assert_eq!(result.enrollment_id(), factor.uid());
    assert_eq!(result.kind(), FactorKind::Totp);
    assert_eq!(result.time(), kit.now());
    assert_eq!(result.claim("sign_in_second_factor"), Some("totp"));
    assert_eq!(result.claim("second_factor_identifier"), Some(factor.uid()));
    assert!(kit.ctx.passed_second_factor("alice", 60, None).unwrap());
    let kinds = kit.kinds();
    assert!(kinds.contains(&"ENROLL".to_string()), "{:?}", kinds);
    assert!(kinds.contains(&"SIGN_IN_SUCCESS".to_string()), "{:?}", kinds);

    mf.unenroll(factor.uid()).unwrap();
    assert!(mf.enrolled_factors().unwrap().is_empty());
    assert_error(mf.unenroll(factor.uid()), "MFA_ENROLLMENT_NOT_FOUND");
}

fn replay_is_refused(kit: &Kit) {
    let user = kit.user("bob");
    let (eid, app) = kit.enroll_totp(&user);
    kit.advance(30);
    let code = app.at(kit.now()).unwrap();
    let first = resolver(kit, &user);
    first.resolve_sign_in(&Assertion::totp_sign_in(&eid, &code)).unwrap();
    // The pending credential is single-use...
    assert_error(first.resolve_sign_in(&Assertion::totp_sign_in(&eid, &code)), "INVALID_SESSION");
    assert_error(kit.ctx.resolver(first.session(), None), "INVALID_SESSION");
    // ...and so is the code, with a new pending credential.
    let second = resolver(kit, &user);
    assert_error(second.resolve_sign_in(&Assertion::totp_sign_in(&eid, &code)), "INVALID_VERIFICATION_CODE");
    // An earlier step than the one accepted is refused too.
    let earlier = app.at(kit.now() - 30).unwrap();
    assert_error(second.resolve_sign_in(&Assertion::totp_sign_in(&eid, &earlier)), "INVALID_VERIFICATION_CODE");
    let later = app.at(kit.now() + 30).unwrap();
    second.resolve_sign_in(&Assertion::totp_sign_in(&eid, &later)).unwrap();
}

fn metrics_text(kit: &Kit) {
    let user = kit.user("dora");
    let (eid, app) = kit.enroll_totp(&user);
    kit.advance(30);
    let wrong = support::wrong_code(&app, kit.now());
    let pending = resolver(kit, &user);
    assert_error(pending.resolve_sign_in(&Assertion::totp_sign_in(&eid, &wrong)), "INVALID_VERIFICATION_CODE");
    pending.resolve_sign_in(&Assertion::totp_sign_in(&eid, &app.at(kit.now()).unwrap())).unwrap();
    let text = kit.ctx.metrics_text().unwrap();
    assert!(text.starts_with("# HELP libmfa_"), "{}", &text[..80]);
    for line in [
        "\n# TYPE libmfa_sign_ins_total counter\n",
        "\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"success\"} 1\n",
        "\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"wrong_code\"} 1\n",
        "\nlibmfa_enrollments_total{kind=\"totp\",outcome=\"success\"} 1\n",
        "\nlibmfa_sign_in_duration_seconds_count{kind=\"totp\"} 2\n",
    ] {
        assert!(text.contains(line), "{} not in the metrics", line);
    }
    assert!(!text.contains("dora"));
}

fn wrong_code(kit: &Kit) {
    let user = kit.user("carol");
    let (eid, app) = kit.enroll_totp(&user);
    kit.advance(30);
    let resolver = resolver(kit, &user);
    let right = app.at(kit.now()).unwrap();
    let wrong = support::wrong_code(&app, kit.now());
    assert_error(resolver.resolve_sign_in(&Assertion::totp_sign_in(&eid, &wrong)), "INVALID_VERIFICATION_CODE");
    assert_error(resolver.resolve_sign_in(&Assertion::totp_sign_in(&eid, "12ab56")), "INVALID_VERIFICATION_CODE");
    assert!(kit.kinds().contains(&"SIGN_IN_FAILURE".to_string()));
    assert_error(resolver.resolve_sign_in(&Assertion::totp_sign_in("no-such-factor", &right)), "MFA_ENROLLMENT_NOT_FOUND");
    // The pending credential still works after the failures.
    let result = resolver.resolve_sign_in(&Assertion::totp_sign_in(&eid, &right)).unwrap();
    assert_eq!(result.uid(), "carol");
    assert_error(kit.ctx.resolver("not a pending credential", None), "INVALID_SESSION");
}

fn sms_through_the_outbox(kit: &Kit) {
    let user = kit.user("dave");
    let number = "+15105550123";
    let mf = kit.ctx.multi_factor(&user);
    let session = mf.session().unwrap();
    assert_error(session.verify_phone_number("5105550123", None), "INVALID_PHONE_NUMBER");
    let verification_id = session.verify_phone_number(number, None).unwrap();
    let code = kit.sms_code(number);
    assert_error(mf.enroll(&Assertion::phone(&verification_id, "000000x"), None), "INVALID_VERIFICATION_CODE");
    let factor = mf.enroll(&Assertion::phone(&verification_id, &code), Some("mobile")).unwrap();
    assert_eq!(factor.kind(), FactorKind::Phone);
    assert_eq!(factor.phone_number(), Some(number));

    kit.advance(31);
    let resolver = resolver(kit, &user);
    let hint = resolver.hint(FactorKind::Phone).unwrap();
    assert_eq!(hint.phone_number(), Some("+1******0123"));
    let verification_id = resolver.verify_phone_number(hint.uid(), None).unwrap();
    let code = kit.sms_code(number);
    let result = resolver.resolve_sign_in(&Assertion::phone(&verification_id, &code)).unwrap();
    assert_eq!(result.factor_id(), "phone");
    // The code is used up.
    let again = kit.ctx.resolver(&resolver_session(kit, &user), None).unwrap();
    assert_error(again.resolve_sign_in(&Assertion::phone(&verification_id, &code)), "INVALID_SESSION");
    assert!(kit.kinds().contains(&"SMS_SENT".to_string()));
}

fn resolver_session(kit: &Kit, user: &mfa::User) -> String {
    resolver(kit, user).session().to_string()
}

fn recovery_codes(kit: &Kit) {
    let user = kit.user("erin");
    let (_eid, _app) = kit.enroll_totp(&user);
    let codes = kit.ctx.multi_factor(&user).session().unwrap().generate_recovery_codes(None).unwrap();
    assert_eq!(codes.codes().len(), 10);
    assert_eq!(codes.factor().kind(), FactorKind::RecoveryCodes);
    assert_eq!(codes.factor().remaining_codes(), Some(10));
    let first: Vec<String> = codes.codes().map(str::to_string).collect();
    kit.advance(1);
    let resolver = resolver(kit, &kit.user("erin"));
    assert!(resolver.hint(FactorKind::RecoveryCodes).is_some());
    let result = resolver.resolve_sign_in(&Assertion::recovery_code(&first[0].to_uppercase(), None)).unwrap();
    assert!(result.used_recovery_code());
    assert_eq!(result.claim("recovery_codes_remaining"), Some("9"));
    let again = self::resolver(kit, &kit.user("erin"));
    assert_error(again.resolve_sign_in(&Assertion::recovery_code(&first[0], None)), "INVALID_VERIFICATION_CODE");
    again.resolve_sign_in(&Assertion::recovery_code(&first[1], Some(codes.factor().uid()))).unwrap();
}

fn revocation(kit: &Kit) {
    let user = kit.user("frank");
    let issued = kit.now() - 10;
    kit.ctx.check_token("frank", issued, None).unwrap();
    kit.enroll_totp(&user);
    assert_error(kit.ctx.check_token("frank", issued, None), "USER_TOKEN_EXPIRED");
    kit.advance(2);
    kit.ctx.check_token("frank", kit.now(), None).unwrap();
    kit.ctx.check_token_ms("frank", kit.now() * 1000, None).unwrap();

    let pending = resolver(kit, &user);
    let session = kit.ctx.multi_factor(&user).session().unwrap();
    kit.advance(2);
    kit.ctx.revoke_tokens("frank", None).unwrap();
    assert_error(kit.ctx.check_token("frank", kit.now() - 1, None), "USER_TOKEN_EXPIRED");
    assert_error(kit.ctx.resolver(pending.session(), None), "USER_TOKEN_EXPIRED");
    assert_error(session.totp_secret(), "USER_TOKEN_EXPIRED");
    assert!(kit.kinds().contains(&"TOKENS_REVOKED".to_string()));
    // Factors stay enrolled.
    assert_eq!(kit.ctx.multi_factor(&user).enrolled_factors().unwrap().len(), 1);
}

fn admin_reset(kit: &Kit) {
    let user = kit.user("grace");
    let (eid, _) = kit.enroll_totp(&user);
    let pending = resolver(kit, &user);
    let admin = kit.ctx.admin("ops:test").unwrap();
    let found = admin.factor(&eid, false).unwrap();
    assert_eq!(found.uid(), "grace");
    let removed = admin.reset_user("grace", None).unwrap();
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].uid(), eid);
    assert_error(kit.ctx.resolver(pending.session(), None), "USER_TOKEN_EXPIRED");
    assert!(matches!(kit.ctx.sign_in(&user).unwrap(), SignIn::Complete));
    let events = kit.events.lock().unwrap();
    let reset = events.iter().find(|event| event.kind_name == "USER_RESET").expect("a USER_RESET event");
    assert_eq!(reset.actor, "ops:test");
    assert_eq!(reset.uid, "grace");
    drop(events);
    assert_error(admin.reset_user("nobody-at-all", None), "MFA_ENROLLMENT_NOT_FOUND");
}
