//! A small sign-in server on the standard library's TCP listener: a password
//! first factor (every user's password is "demo"), then TOTP as the second,
//! with libmfa doing enrollment, sign-in, replay protection and backoff.
//!
//!     cargo run --example sign_in_server -- [--listen 127.0.0.1:8080] [--store mfa.sqlite3]
//!
//! With `--store`, the master key comes from MFA_DEMO_MASTER_KEY (64 hex
//! digits); without it, the store is in memory with a random key. Requests
//! are form-encoded POSTs; answers are JSON:
//!
//!     POST /enroll/start   uid, password                          -> secret, uri, session_info
//!     POST /enroll/finish  uid, password, session_info, code      -> enrollment_id, hint
//!     POST /sign-in        uid, password                          -> signed_in | second_factor_required
//!     POST /sign-in/totp   pending_credential, enrollment_id, code -> signed_in
//!
//! Four threads share the listener and one `mfa::Context`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use mfa::{Assertion, Context, Error, FactorKind, Options, SignIn, User};

const THREADS: usize = 4;
const MAX_HEADER_LINES: usize = 64;
const MAX_BODY: usize = 16 * 1024;

fn main() {
    let mut listen = "127.0.0.1:8080".to_string();
    let mut store = ":memory:".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = args.next().expect("--listen ADDRESS"),
            "--store" => store = args.next().expect("--store PATH"),
            _ => {
                eprintln!("usage: sign_in_server [--listen ADDRESS] [--store PATH]");
                std::process::exit(2);
            }
        }
    }
    let key = master_key(&store);
    let ctx = Context::open(Options::new(store, "demo", &key)).unwrap_or_else(|error| fail(&error));
    ctx.set_config(r#"{"state": "ENABLED", "providers": {"totp": "ENABLED"}}"#, None).unwrap_or_else(|e| fail(&e));
    let ctx = Arc::new(ctx);
    let listener = TcpListener::bind(&listen).unwrap_or_else(|error| fail(&error));
    println!("listening on http://{}", listener.local_addr().unwrap());
    std::io::stdout().flush().unwrap();
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (listener, ctx) = (listener.try_clone().unwrap(), ctx.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    if let Err(error) = serve(&ctx, stream) {
                        eprintln!("connection: {}", error);
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        let _ = thread.join();
    }
}

fn fail(error: &dyn std::fmt::Display) -> ! {
    eprintln!("sign_in_server: {}", error);
    std::process::exit(1);
}

/// The master key: MFA_DEMO_MASTER_KEY for a store on disk, else a random one.
fn master_key(store: &str) -> Vec<u8> {
    match std::env::var("MFA_DEMO_MASTER_KEY") {
        Ok(hex) if hex.len() == 64 => (0..32)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or_else(|e| fail(&e)))
            .collect(),
        _ if store != ":memory:" => fail(&"set MFA_DEMO_MASTER_KEY (64 hex digits) for a store on disk"),
        _ => mfa::random_secret(32).unwrap_or_else(|error| fail(&error)),
    }
}

/// One request on `stream`, one answer.
fn serve(ctx: &Context, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    for _ in 0..MAX_HEADER_LINES {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(usize::MAX);
            }
        }
    }
    let (status, body) = if length > MAX_BODY {
        (413, error_json("INVALID_ARGUMENT", "the request is too large"))
    } else {
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        let mut parts = request_line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        route(ctx, method, path, &form(&String::from_utf8_lossy(&body)))
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        status,
        if status == 200 { "OK" } else { "Error" },
        body.len(),
        body
    )
}

fn route(ctx: &Context, method: &str, path: &str, form: &HashMap<String, String>) -> (u16, String) {
    if method != "POST" {
        return (405, error_json("INVALID_ARGUMENT", "use POST"));
    }
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or("");
    let answer = match path {
        "/enroll/start" => first_factor(field("uid"), field("password")).and_then(|user| {
            let secret = ctx.multi_factor(&user).session()?.totp_secret()?;
            let uri = secret.qr_code_url(user.email.as_deref().unwrap_or(&user.uid), Some("libmfa demo"))?;
            Ok(json(&[
                ("secret", secret.shared_secret_key()),
                ("uri", &uri),
                ("session_info", secret.session_info()),
            ]))
        }),
        "/enroll/finish" => first_factor(field("uid"), field("password")).and_then(|user| {
            let assertion = Assertion::new(FactorKind::Totp).with_session_info(field("session_info")).with_code(field("code"));
            let factor = ctx.multi_factor(&user).enroll(&assertion, Some("authenticator"))?;
            Ok(json(&[("enrollment_id", factor.uid()), ("hint", factor.hint())]))
        }),
        "/sign-in" => first_factor(field("uid"), field("password")).and_then(|user| match ctx.sign_in(&user)? {
            SignIn::Complete => Ok(json(&[("status", "signed_in"), ("uid", &user.uid)])),
            SignIn::SecondFactorRequired(resolver) => {
                let hints: Vec<String> = resolver
                    .hints()
                    .iter()
                    .map(|hint| json(&[("uid", hint.uid()), ("factor_id", hint.factor_id()), ("hint", hint.hint())]))
                    .collect();
                Ok(format!(
                    "{{\"status\":\"second_factor_required\",\"pending_credential\":{},\"hints\":[{}]}}",
                    quote(resolver.session()),
                    hints.join(",")
                ))
            }
        }),
        "/sign-in/totp" => ctx.resolver(field("pending_credential"), None).and_then(|resolver| {
            let result = resolver.resolve_sign_in(&Assertion::totp_sign_in(field("enrollment_id"), field("code")))?;
            Ok(json(&[("status", "signed_in"), ("uid", result.uid()), ("factor_id", result.factor_id())]))
        }),
        _ => return (404, error_json("INVALID_ARGUMENT", "no such endpoint")),
    };
    match answer {
        Ok(body) => (200, body),
        Err(error) => (status_of(&error), error_json(error.name(), error.message())),
    }
}

/// The demo's first factor: any uid, the password "demo". A real server checks its own.
fn first_factor(uid: &str, password: &str) -> mfa::Result<User> {
    if uid.is_empty() || password != "demo" {
        return Err(Error::InvalidArgument("wrong user or password".into()));
    }
    Ok(User::new(uid, mfa::unix_now()).with_email(format!("{}@example.com", uid), true))
}

fn status_of(error: &Error) -> u16 {
    match error {
        Error::InvalidVerificationCode(_) | Error::InvalidSession(_) | Error::UserTokenExpired(_) => 401,
        Error::TooManyAttemptsTryLater(_) => 429,
        Error::StorageError(_) | Error::Internal(_) => 500,
        _ => 400,
    }
}

fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json(fields: &[(&str, &str)]) -> String {
    let inner: Vec<String> = fields.iter().map(|(name, value)| format!("{}:{}", quote(name), quote(value))).collect();
    format!("{{{}}}", inner.join(","))
}

fn error_json(name: &str, message: &str) -> String {
    json(&[("error", name), ("message", message)])
}

/// An application/x-www-form-urlencoded body.
fn form(body: &str) -> HashMap<String, String> {
    body.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| (decode(name), decode(value)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
