//! Finds libmfa.so to link against, in this order:
//!
//! 1. `LIBMFA_LIB_DIR`: the folder that holds libmfa.so;
//! 2. `LIBMFA_LIBRARY`: the full path of libmfa.so (the variable the Python
//!    binding and the project's scripts use);
//! 3. pkg-config's `mfa` (what `cmake --install` puts in place);
//! 4. the linker's default paths.
//!
//! The folder found is passed on to crates that depend on this one as
//! `DEP_MFA_LIB_DIR` (the safe crate puts it in the run path of its tests
//! and examples).

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LIBMFA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=LIBMFA_LIBRARY");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let dir = lib_dir();
    if let Some(dir) = &dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:lib_dir={}", dir.display());
        // This crate's own tests run against that library without LD_LIBRARY_PATH.
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=mfa");
}

fn lib_dir() -> Option<PathBuf> {
    if let Some(dir) = env::var_os("LIBMFA_LIB_DIR").filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(file) = env::var_os("LIBMFA_LIBRARY").filter(|file| !file.is_empty()) {
        if let Some(parent) = PathBuf::from(file).parent() {
            return Some(parent.to_path_buf());
        }
    }
    let output = Command::new("pkg-config").args(["--libs-only-L", "mfa"]).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let found = text.split_whitespace().find_map(|flag| flag.strip_prefix("-L")).map(PathBuf::from);
    found
}
