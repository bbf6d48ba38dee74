//! The generated files are what scripts/gen_rust_sys.py makes of the headers
//! today: a header change without a regeneration fails here.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn generated_files_match_the_headers() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let output = Command::new("python3")
        .arg(root.join("scripts/gen_rust_sys.py"))
        .arg("--check")
        .output()
        .expect("python3 runs scripts/gen_rust_sys.py");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_loaded_library_is_the_headers_version() {
    let loaded = unsafe { mfa_sys::mfa_version() };
    assert_eq!(loaded, mfa_sys::MFA_VERSION_NUMBER);
    let name = unsafe { std::ffi::CStr::from_ptr(mfa_sys::mfa_status_name(mfa_sys::MFA_ERR_INVALID_SESSION)) };
    assert_eq!(name.to_str().unwrap(), "INVALID_SESSION");
}
