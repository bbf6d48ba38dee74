//! The example sign-in server (examples/sign_in_server.rs), run as its users
//! run it and driven over HTTP on loopback: a TOTP enrollment, a sign-in
//! with the second factor, a replayed code and a wrong password refused.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// POSTs a form; (status, body).
fn post(address: &str, path: &str, fields: &[(&str, &str)]) -> (u16, String) {
    let body: Vec<String> = fields.iter().map(|(name, value)| format!("{}={}", name, encode(value))).collect();
    let body = body.join("&");
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{}",
        path,
        address,
        body.len(),
        body
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (byte as char).to_string(),
            _ => format!("%{:02X}", byte),
        })
        .collect()
}

/// The string value of `"name":"..."` in a flat JSON answer (no escapes in the values read here).
fn field(body: &str, name: &str) -> String {
    let key = format!("\"{}\":\"", name);
    let start = body.find(&key).unwrap_or_else(|| panic!("{} in {}", name, body)) + key.len();
    body[start..].split('"').next().unwrap().to_string()
}

#[test]
fn the_example_server_enrolls_and_signs_in_over_http() {
    // Cargo builds the examples before it runs the tests: target/<profile>/examples/.
    let exe = std::env::current_exe().unwrap();
    let program = exe.parent().unwrap().parent().unwrap().join("examples").join("sign_in_server");
    let child = Command::new(&program)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{}: {}", program.display(), error));
    let mut server = Server(child);
    let mut first = String::new();
    BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let address = first.trim().strip_prefix("listening on http://").expect("the address").to_string();

    let (status, body) = post(&address, "/enroll/start", &[("uid", "alice"), ("password", "demo")]);
    assert_eq!(status, 200, "{}", body);
    assert!(field(&body, "uri").starts_with("otpauth://totp/libmfa%20demo:alice%40example.com?"));
    let key = mfa::base32_decode(&field(&body, "secret")).unwrap();
    let app = mfa::Totp::new(&key).unwrap();
    let now = mfa::unix_now();
    let session_info = field(&body, "session_info");
    let (status, body) =
        post(&address, "/enroll/finish", &[("uid", "alice"), ("password", "demo"), ("session_info", &session_info), ("code", "000000x")]);
    assert_eq!((status, field(&body, "error")), (401, "INVALID_VERIFICATION_CODE".to_string()));
    let code = app.at(now).unwrap();
    let (status, body) =
        post(&address, "/enroll/finish", &[("uid", "alice"), ("password", "demo"), ("session_info", &session_info), ("code", &code)]);
    assert_eq!(status, 200, "{}", body);
    let enrollment_id = field(&body, "enrollment_id");

    let (status, _) = post(&address, "/sign-in", &[("uid", "alice"), ("password", "wrong")]);
    assert_eq!(status, 400);
    let (status, body) = post(&address, "/sign-in", &[("uid", "alice"), ("password", "demo")]);
    assert_eq!((status, field(&body, "status")), (200, "second_factor_required".to_string()));
    assert_eq!(field(&body, "uid"), enrollment_id);
    let pending = field(&body, "pending_credential");
    let next = app.at(now + 30).unwrap(); // a step after the enrollment's
    let form = [("pending_credential", pending.as_str()), ("enrollment_id", enrollment_id.as_str()), ("code", next.as_str())];
    let (status, body) = post(&address, "/sign-in/totp", &form);
    assert_eq!(status, 200, "{}", body);
    assert_eq!(field(&body, "status"), "signed_in");
    assert_eq!(field(&body, "factor_id"), "totp");
    // The same code again, with a new pending credential: refused.
    let (_, body) = post(&address, "/sign-in", &[("uid", "alice"), ("password", "demo")]);
    let pending = field(&body, "pending_credential");
    let form = [("pending_credential", pending.as_str()), ("enrollment_id", enrollment_id.as_str()), ("code", next.as_str())];
    let (status, body) = post(&address, "/sign-in/totp", &form);
    assert_eq!((status, field(&body, "error")), (401, "INVALID_VERIFICATION_CODE".to_string()));
    let (status, body) = post(&address, "/nowhere", &[]);
    assert_eq!((status, field(&body, "error")), (404, "INVALID_ARGUMENT".to_string()));
}
