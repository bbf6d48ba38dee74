//! Builds c_verify.c with the C compiler (cc, or $CC) at -O2 into a static
//! library linked into the benchmark.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let include = manifest.join("../../../include");
    let object = out.join("c_verify.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-O2", "-std=c99", "-fPIC", "-c"])
        .arg("-I")
        .arg(&include)
        .arg(manifest.join("c_verify.c"))
        .arg("-o")
        .arg(&object)
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "c_verify.c compiles");
    let status = Command::new("ar").arg("crs").arg(out.join("libmfa_bench_c.a")).arg(&object).status().expect("ar runs");
    assert!(status.success());
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=mfa_bench_c");
    println!("cargo:rerun-if-changed=c_verify.c");
    // The folder of libmfa.so into the run path (LIBMFA_LIB_DIR, as mfa-sys reads it).
    println!("cargo:rerun-if-env-changed=LIBMFA_LIB_DIR");
    if let Some(dir) = std::env::var_os("LIBMFA_LIB_DIR").filter(|dir| !dir.is_empty()) {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
