//! Puts the folder mfa-sys linked libmfa.so from into the run path of this
//! crate's tests and examples, so that they run without LD_LIBRARY_PATH.
//! Programs that depend on this crate find the library as any shared
//! library (installed, LD_LIBRARY_PATH, or their own run path).

fn main() {
    if let Some(dir) = std::env::var_os("DEP_MFA_LIB_DIR") {
        let dir = dir.to_string_lossy();
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir);
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{}", dir);
    }
}
