/// The version of libmfa this module is, as the C library's
/// `MFA_VERSION_STRING` and `mfa_version_string()` give it (a test keeps
/// the two equal).
public enum MFAVersion {
    /// "MAJOR.MINOR.PATCH".
    public static let string = "0.2.0"
}
