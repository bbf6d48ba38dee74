//! Send and Sync where libmfa's threading rules allow them: the context is
//! thread-safe (mfa_types.h: "one context may be shared by every thread of
//! a process"), and every result is plain data nobody writes to. Checked at
//! compile time, and by one context shared with scoped threads.

mod support;

use mfa::*;
use support::{Kit, Store};

fn send_sync<T: Send + Sync>() {}

#[test]
fn the_context_and_every_result_are_send_and_sync() {
    send_sync::<Context>();
    send_sync::<Options>();
    send_sync::<MultiFactor<'static>>();
    send_sync::<Session<'static>>();
    send_sync::<Resolver<'static>>();
    send_sync::<SignIn<'static>>();
    send_sync::<Admin<'static>>();
    send_sync::<Factor>();
    send_sync::<FactorInfo>();
    send_sync::<FactorList>();
    send_sync::<SignInResult>();
    send_sync::<Claim>();
    send_sync::<TotpSecret>();
    send_sync::<RecoveryCodes>();
    send_sync::<AdminUserPage>();
    send_sync::<AdminFactor>();
    send_sync::<AdminStats>();
    send_sync::<SealCheck>();
    send_sync::<webauthn::WebAuthnCredential>();
    send_sync::<MfaString>();
    send_sync::<Buffer>();
    send_sync::<Totp>();
    send_sync::<Hotp>();
    send_sync::<KeyUri>();
    send_sync::<Error>();
    send_sync::<AuditEvent>();
}

#[test]
fn one_context_serves_scoped_threads_and_results_move_between_them() {
    let store = Store::sqlite();
    let kit = Kit::open(&store.location());
    let users: Vec<_> = (0..4).map(|i| kit.user(&format!("thread-{}", i))).collect();
    let enrolled: Vec<_> = users.iter().map(|user| kit.enroll_totp(user)).collect();
    kit.advance(30);
    let ctx = &kit.ctx;
    let now = kit.now();
    // Resolvers made on this thread are finished on others, and the results come back.
    let resolvers: Vec<Resolver<'_>> = users.iter().map(|user| ctx.sign_in(user).unwrap().resolver().unwrap()).collect();
    let results: Vec<SignInResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = resolvers
            .into_iter()
            .zip(enrolled.iter())
            .map(|(resolver, (eid, app))| {
                scope.spawn(move || {
                    let code = app.at(now).unwrap();
                    resolver.resolve_sign_in(&Assertion::totp_sign_in(eid, &code)).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join().unwrap()).collect()
    });
    let uids: Vec<&str> = results.iter().map(SignInResult::uid).collect();
    assert_eq!(uids, vec!["thread-0", "thread-1", "thread-2", "thread-3"]);
}
