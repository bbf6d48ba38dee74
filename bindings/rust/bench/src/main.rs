//! Stateless TOTP verification (SHA1, 6 digits, 30 s, window +/-5) in one
//! process: libmfa's C ABI from C, the Rust binding (`mfa::Totp::verify`)
//! and totp-rs (`TOTP::check`, skew 5), for a right code (the current step)
//! and a wrong one (every step of the window tried). Prints the rates and
//! the binding's ratios to each; `count` mode runs one loop for callgrind.
//! Run by bench/rust_verify.sh.

use std::os::raw::c_char;
use std::time::Instant;

const KEYS: usize = 64;
const WINDOW: u32 = 5;
const WHEN: i64 = 1_700_000_000;

extern "C" {
    fn mfa_bench_c_verify(keys: *const u8, codes: *const c_char, count: usize, n: i64, when: i64, window: i32) -> i64;
}

struct Samples {
    keys: Vec<u8>,        // KEYS * 20
    right: Vec<u8>,       // KEYS * 16, NUL-padded
    wrong: Vec<u8>,       // KEYS * 16
    right_text: Vec<String>,
    wrong_text: Vec<String>,
    binding: Vec<mfa::Totp>,
    peer: Vec<totp_rs::TOTP<Vec<u8>>>,
}

fn samples() -> Samples {
    let mut s = Samples {
        keys: Vec::new(),
        right: Vec::new(),
        wrong: Vec::new(),
        right_text: Vec::new(),
        wrong_text: Vec::new(),
        binding: Vec::new(),
        peer: Vec::new(),
    };
    for _ in 0..KEYS {
        let key = mfa::random_secret(20).unwrap();
        let totp = mfa::Totp::new(&key).unwrap();
        let right = totp.at(WHEN).unwrap().to_string();
        // A code that matches none of the 11 steps.
        let wrong = (0u32..)
            .map(|candidate| format!("{:06}", (candidate * 7919) % 1_000_000))
            .find(|code| !totp.verify(code, WHEN, WINDOW).unwrap())
            .unwrap();
        let peer = totp_rs::TOTP::new(totp_rs::Algorithm::SHA1, 6, WINDOW as u8, 30, key.clone()).unwrap();
        // All three must agree before they are timed.
        assert!(peer.check(&right, WHEN as u64) && !peer.check(&wrong, WHEN as u64), "totp-rs disagrees");
        for (code, out) in [(&right, &mut s.right), (&wrong, &mut s.wrong)] {
            let mut padded = [0u8; 16];
            padded[..6].copy_from_slice(code.as_bytes());
            out.extend_from_slice(&padded);
        }
        s.keys.extend_from_slice(&key);
        s.right_text.push(right);
        s.wrong_text.push(wrong);
        s.binding.push(totp);
        s.peer.push(peer);
    }
    s
}

fn rate(n: i64, run: impl FnOnce() -> i64) -> (f64, i64) {
    let start = Instant::now();
    let accepted = run();
    (n as f64 / start.elapsed().as_secs_f64(), accepted)
}

#[inline(never)]
fn run_c(s: &Samples, right: bool, n: i64) -> f64 {
    let codes = if right { &s.right } else { &s.wrong };
    let (per_second, accepted) = rate(n, || unsafe {
        mfa_bench_c_verify(s.keys.as_ptr(), codes.as_ptr() as *const c_char, KEYS, n, WHEN, WINDOW as i32)
    });
    assert_eq!(accepted, if right { n } else { 0 });
    per_second
}

#[inline(never)]
fn run_binding(s: &Samples, right: bool, n: i64) -> f64 {
    let codes = if right { &s.right_text } else { &s.wrong_text };
    let (per_second, accepted) = rate(n, || {
        let mut accepted = 0;
        for i in 0..n as usize {
            let k = i % KEYS;
            accepted += s.binding[k].verify(&codes[k], WHEN, WINDOW).unwrap() as i64;
        }
        accepted
    });
    assert_eq!(accepted, if right { n } else { 0 });
    per_second
}

#[inline(never)]
fn run_peer(s: &Samples, right: bool, n: i64) -> f64 {
    let codes = if right { &s.right_text } else { &s.wrong_text };
    let (per_second, accepted) = rate(n, || {
        let mut accepted = 0;
        for i in 0..n as usize {
            let k = i % KEYS;
            accepted += s.peer[k].check(&codes[k], WHEN as u64) as i64;
        }
        accepted
    });
    assert_eq!(accepted, if right { n } else { 0 });
    per_second
}

/// `mfa-bench count c|binding|totp-rs right|wrong N`: one run of N verifications and
/// nothing printed, for bench/rust_verify.sh to count its instructions under callgrind.
fn count(args: &[String]) {
    let s = samples();
    let right = args[3] == "right";
    let n: i64 = args[4].parse().unwrap();
    match args[2].as_str() {
        "c" => run_c(&s, right, n),
        "binding" => run_binding(&s, right, n),
        _ => run_peer(&s, right, n),
    };
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "count" {
        return count(&args);
    }
    // Many short rounds, the three taking turns, and the best of each: on a shared machine
    // every contender then meets a quiet moment or two.
    let n: i64 = args.get(1).and_then(|arg| arg.parse().ok()).unwrap_or(50_000);
    let rounds = 25;
    let s = samples();
    println!(
        "{:<28} {:>12} {:>14} {:>12} {:>10} {:>12}",
        "case (SHA1, 6 digits, +/-5)", "C ABI /s", "Rust binding /s", "totp-rs /s", "binding/C", "binding/totp-rs"
    );
    for (right, name) in [(false, "wrong code (11 steps)"), (true, "right code (current step)")] {
        let (mut c, mut binding, mut peer) = (0f64, 0f64, 0f64);
        for _ in 0..rounds {
            c = c.max(run_c(&s, right, n));
            binding = binding.max(run_binding(&s, right, n));
            peer = peer.max(run_peer(&s, right, n / 5)); // ten times slower: fewer of them
        }
        println!(
            "{:<28} {:>12.0} {:>14.0} {:>12.0} {:>9.2}x {:>11.2}x",
            name,
            c,
            binding,
            peer,
            binding / c,
            binding / peer
        );
    }
}
