import CSystem
import Glibc

/// The process environment, as libmfa and its tools read it.
///
/// Every read goes through glibc's `secure_getenv`: in a secure-execution
/// process (the kernel's `AT_SECURE`: a setuid or setgid program such as
/// `sudo` and `su`, where PAM modules run, or one with file capabilities)
/// every variable reads as unset, since the caller who set it may be the
/// attacker. libmfa reads `LIBMFA_LIBPQ` and `LIBMFA_GNUTLS` (the client
/// libraries it loads); `mfactl` reads `MFA_STORE`, `MFA_MASTER_KEY`,
/// `MFA_MASTER_KEY_ID` and `MFA_PREVIOUS_KEYS`.
public enum ProcessEnvironment {
    /// Whether this process runs in secure-execution mode (`AT_SECURE`).
    public static var isSecureExecution: Bool { mfa_secure_execution() != 0 }

    /// The value of the variable `name`; nil if it is unset or empty, and
    /// always nil in a secure-execution process.
    /// - Parameter name: the variable's name.
    public static func value(_ name: String) -> String? {
        guard let raw = secure_getenv(name) else { return nil }
        let text = String(cString: raw)
        return text.isEmpty ? nil : text
    }
}
