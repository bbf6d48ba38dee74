//! The stateless calls: RFC 4226 and RFC 6238 known answers, base32
//! (RFC 4648 vectors), key URIs, QR codes, random secrets, and the named
//! error of each bad input.

mod support;

use mfa::{base32_decode, base32_encode, qr_code, Algorithm, Hotp, KeyUri, OtpKind, QrFormat, Totp, TotpParams};
use support::assert_error;

const SHA1_KEY: &[u8] = b"12345678901234567890";
const SHA256_KEY: &[u8] = b"12345678901234567890123456789012";
const SHA512_KEY: &[u8] = b"1234567890123456789012345678901234567890123456789012345678901234";

#[test]
fn hotp_rfc4226_appendix_d() {
    let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    let hotp = Hotp::new(SHA1_KEY, 6, Algorithm::Sha1).unwrap();
    for (counter, code) in expected.iter().enumerate() {
        assert_eq!(hotp.at(counter as u64).unwrap(), *code);
    }
    assert_eq!(hotp.matching_counter("969429", 1, 5).unwrap(), Some(3));
    assert_eq!(hotp.matching_counter("969429", 4, 5).unwrap(), None);
    assert!(!hotp.verify("abcdef", 0, 0).unwrap());
    assert_error(hotp.verify("755224", 0, 11), "INVALID_ARGUMENT");
    assert_error(Hotp::new(SHA1_KEY, 5, Algorithm::Sha1), "INVALID_ARGUMENT");
}

#[test]
fn totp_rfc6238_appendix_b() {
    let cases: [(i64, &str, &str, &str); 6] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ];
    for (algorithm, key, column) in [(Algorithm::Sha1, SHA1_KEY, 1), (Algorithm::Sha256, SHA256_KEY, 2), (Algorithm::Sha512, SHA512_KEY, 3)] {
        let totp = Totp::with_params(key, TotpParams { algorithm, digits: 8, ..TotpParams::default() }).unwrap();
        for case in cases.iter() {
            let expected = [case.1, case.2, case.3][column - 1];
            assert_eq!(totp.at(case.0).unwrap(), expected, "{:?} at {}", algorithm, case.0);
            assert!(totp.verify(expected, case.0, 0).unwrap());
        }
    }
}

#[test]
fn totp_windows_steps_and_bad_input() {
    let totp = Totp::new(SHA1_KEY).unwrap();
    let now = 1_700_000_000;
    let code = totp.at(now).unwrap();
    assert_eq!(code.len(), 6);
    assert_eq!(format!("{:?}", code), "Code(..)");
    assert_eq!(totp.matching_step(&code, now, 1).unwrap(), Some(totp.timecode(now)));
    assert_eq!(totp.matching_step(&code, now + 30, 1).unwrap(), Some(totp.timecode(now)));
    assert!(!totp.verify(&code, now + 90, 1).unwrap());
    assert!(totp.verify(&code, now + 90, 3).unwrap());
    assert!(!totp.verify("12345", now, 1).unwrap());
    assert!(!totp.verify("", now, 1).unwrap());
    assert_error(totp.verify("123\u{0}56", now, 1), "INVALID_ARGUMENT");
    assert_error(totp.verify(&code, now, 11), "INVALID_ARGUMENT");
    let long = "1".repeat(100);
    assert!(!totp.verify(&long, now, 1).unwrap());
    assert_error(Totp::new(&[]), "INVALID_ARGUMENT");
    assert_error(Totp::new(&[0u8; 1025]), "INVALID_ARGUMENT");
    assert_error(Totp::with_params(SHA1_KEY, TotpParams { digits: 9, ..TotpParams::default() }), "INVALID_ARGUMENT");
    assert_error(Totp::with_params(SHA1_KEY, TotpParams { period: 0, ..TotpParams::default() }), "INVALID_ARGUMENT");
    let shifted = Totp::with_params(SHA1_KEY, TotpParams { t0: 1000, ..TotpParams::default() }).unwrap();
    assert_error(shifted.at(999), "INVALID_ARGUMENT");
    assert_error(shifted.provisioning_uri("a@example.com", None), "INVALID_ARGUMENT");
    assert!(!format!("{:?}", totp).contains("12345678901234567890"));
}

#[test]
fn random_secrets() {
    let a = mfa::random_secret(20).unwrap();
    let b = mfa::random_secret(20).unwrap();
    assert_eq!(a.len(), 20);
    assert_ne!(a, b);
    assert_error(mfa::random_secret(15), "INVALID_ARGUMENT");
    assert_error(mfa::random_secret(129), "INVALID_ARGUMENT");
}

#[test]
fn base32_rfc4648_vectors() {
    let vectors = [
        ("", ""),
        ("f", "MY======"),
        ("fo", "MZXQ===="),
        ("foo", "MZXW6==="),
        ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI======"),
    ];
    for (plain, encoded) in vectors.iter() {
        assert_eq!(base32_encode(plain.as_bytes(), true).unwrap(), *encoded);
        assert_eq!(base32_encode(plain.as_bytes(), false).unwrap(), encoded.trim_end_matches('='));
        assert_eq!(&*base32_decode(encoded).unwrap(), plain.as_bytes());
        assert_eq!(&*base32_decode(&encoded.to_lowercase()).unwrap(), plain.as_bytes());
    }
    assert_error(base32_decode("MZ XW"), "INVALID_BASE32");
    assert_error(base32_decode("MZXW1"), "INVALID_BASE32");
    assert_error(base32_decode("M=ZX"), "INVALID_BASE32");
    assert_error(base32_decode("MZ\u{0}X"), "INVALID_ARGUMENT");
    assert_error(base32_encode(&vec![0u8; 40000], true), "INVALID_ARGUMENT");
}

#[test]
fn key_uris() {
    let uri = KeyUri::totp("alice@example.com", Some("ACME Co: Intl"), SHA1_KEY);
    let text = uri.to_uri().unwrap();
    assert_eq!(
        text.as_str(),
        "otpauth://totp/ACME%20Co%3A%20Intl:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co%3A%20Intl&algorithm=SHA1&digits=6&period=30"
    );
    let parsed = KeyUri::parse(&text).unwrap();
    assert_eq!(parsed, uri);
    assert!(!format!("{:?}", parsed).contains("GEZDGNBV"));
    let totp = parsed.to_totp().unwrap();
    assert_eq!(totp.at(59).unwrap(), "287082");
    assert_eq!(Totp::new(SHA1_KEY).unwrap().provisioning_uri("alice@example.com", Some("ACME Co: Intl")).unwrap(), text.as_str());

    let hotp = KeyUri { kind: OtpKind::Hotp, counter: 7, algorithm: Algorithm::Sha256, digits: 8, ..KeyUri::totp("bob", None, SHA1_KEY) };
    let parsed = KeyUri::parse(&hotp.to_uri().unwrap()).unwrap();
    assert_eq!(parsed.kind, OtpKind::Hotp);
    assert_eq!(parsed.counter, 7);
    assert_eq!(parsed.issuer, None);
    assert_eq!(parsed.to_hotp().unwrap().digits(), 8);

    assert_error(KeyUri::totp("", None, SHA1_KEY).to_uri(), "INVALID_ARGUMENT");
    assert_error(KeyUri::totp("a", None, &[]).to_uri(), "INVALID_ARGUMENT");
    assert_error(KeyUri { digits: 9, ..KeyUri::totp("a", None, SHA1_KEY) }.to_uri(), "INVALID_ARGUMENT");
    assert_error(KeyUri::totp("a\u{0}b", None, SHA1_KEY).to_uri(), "INVALID_ARGUMENT");
    assert_error(KeyUri::parse("https://example.com/"), "INVALID_URI");
    assert_error(KeyUri::parse("otpauth://totp/a?secret=1!"), "INVALID_URI");
}

#[test]
fn qr_codes() {
    let png = qr_code("otpauth://totp/a?secret=GEZDGNBV", QrFormat::Png).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(format!("{:?}", png), format!("Buffer({} bytes)", png.len()));
    let svg = qr_code("hello", QrFormat::Svg).unwrap();
    assert!(svg.as_str().unwrap().contains("<svg"));
    let text = qr_code("hello", QrFormat::Text).unwrap();
    assert!(text.as_str().unwrap().contains('\u{2588}') || text.as_str().unwrap().contains('\u{2580}'));
    assert_error(qr_code("", QrFormat::Png), "INVALID_ARGUMENT");
    assert_error(qr_code(&"x".repeat(70_000), QrFormat::Png), "INVALID_ARGUMENT");
}

#[test]
fn errors_and_versions() {
    let error = mfa::Error::from_status(mfa::sys::MFA_ERR_INVALID_SESSION, "gone".to_string());
    assert_eq!(error, mfa::Error::InvalidSession("gone".to_string()));
    assert_eq!(error.to_string(), "INVALID_SESSION: gone");
    assert_eq!(error.status(), -13);
    let unknown = mfa::Error::from_status(-999, "?".to_string());
    assert_eq!(unknown.name(), "UNKNOWN");
    assert_eq!(unknown.status(), -999);
    assert_eq!(mfa::status_name(-11), "INVALID_VERIFICATION_CODE");
    assert_eq!(mfa::status_name(-999), "UNKNOWN");
    assert!(!mfa::errstr(-11).is_empty());
    assert_eq!(mfa::version(), mfa::sys::MFA_VERSION_NUMBER);
    assert_eq!(mfa::version_string(), mfa::sys::MFA_VERSION_STRING);
    // Every status the header names maps onto its own variant, and back.
    for status in -33..=-1 {
        let error = mfa::Error::from_status(status, String::new());
        assert_eq!(error.status(), status);
        assert_eq!(error.name(), mfa::status_name(status));
    }
}
