//! Two processes race to sign in with one TOTP code of one user, each with
//! its own context on the shared store (SQLite and PostgreSQL): exactly one
//! wins, the other is told INVALID_VERIFICATION_CODE (RFC 6238 section 5.2
//! across processes). The processes are this test binary again, running
//! `child_process` with the round's details in its environment.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mfa::{Assertion, Context, Options};
use support::{Kit, Store, KEY, T0};

const ROUNDS: i64 = 3;

fn unix_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()
}

/// One racer (only when run by `race` with MFA_RACE_LOCATION set).
#[test]
fn child_process() {
    let location = match std::env::var("MFA_RACE_LOCATION") {
        Ok(location) => location,
        Err(_) => return,
    };
    let var = |name: &str| std::env::var(name).unwrap();
    let now: i64 = var("MFA_RACE_NOW").parse().unwrap();
    let start: u128 = var("MFA_RACE_START_MS").parse().unwrap();
    let ctx = Context::open(Options::new(location, "k1", &KEY).clock(move || now)).unwrap();
    let user = mfa::User::new(var("MFA_RACE_UID"), now).with_email("racer@example.com", true);
    let resolver = ctx.sign_in(&user).unwrap().resolver().expect("a second factor is required");
    let (eid, code) = (var("MFA_RACE_EID"), var("MFA_RACE_CODE"));
    let assertion = Assertion::totp_sign_in(&eid, &code);
    while unix_ms() < start {
        std::thread::sleep(Duration::from_millis(1));
    }
    let outcome = match resolver.resolve_sign_in(&assertion) {
        Ok(_) => "OK".to_string(),
        Err(error) => error.name().to_string(),
    };
    println!("\nRACE-OUTCOME {}", outcome);
}

fn race(store: &Store) {
    let location = store.location();
    let kit = Kit::open(&location);
    let user = kit.user("racer");
    let (eid, app) = kit.enroll_totp(&user);
    let exe = std::env::current_exe().unwrap();
    for round in 1..=ROUNDS {
        let now = T0 + 30 * round;
        let code = app.at(now).unwrap();
        let start = unix_ms() + 500;
        let children: Vec<_> = (0..2)
            .map(|_| {
                Command::new(&exe)
                    .args(["--exact", "child_process", "--nocapture", "--test-threads", "1"])
                    .env("MFA_RACE_LOCATION", &location)
                    .env("MFA_RACE_NOW", now.to_string())
                    .env("MFA_RACE_START_MS", start.to_string())
                    .env("MFA_RACE_UID", "racer")
                    .env("MFA_RACE_EID", &eid)
                    .env("MFA_RACE_CODE", code.as_str())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut outcomes: Vec<String> = children
            .into_iter()
            .map(|child| {
                let output = child.wait_with_output().unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                assert!(output.status.success(), "a racer failed: {}{}", stdout, String::from_utf8_lossy(&output.stderr));
                stdout
                    .lines()
                    .find_map(|line| line.split("RACE-OUTCOME ").nth(1).map(|rest| rest.trim().to_string()))
                    .unwrap_or_else(|| panic!("no outcome in {}", stdout))
            })
            .collect();
        outcomes.sort();
        println!("{} round {}: {:?}", store.name(), round, outcomes);
        assert_eq!(outcomes, vec!["INVALID_VERIFICATION_CODE".to_string(), "OK".to_string()], "exactly one winner");
    }
}

#[test]
fn one_code_two_processes_one_winner_sqlite() {
    race(&Store::sqlite());
}

#[test]
fn one_code_two_processes_one_winner_postgres() {
    if let Some(url) = support::postgres_url() {
        race(&Store::postgres(&url));
    }
}
