/// The HMAC hash behind a one-time password.
///
/// The raw values are the C constants `MFA_ALG_*`.
public enum OTPAlgorithm: Int32, Sendable, CaseIterable {
    /// HMAC-SHA1: the default, and the only one every authenticator app supports.
    case sha1 = 1
    /// HMAC-SHA256.
    case sha256 = 2
    /// HMAC-SHA512.
    case sha512 = 3

    /// The name used in otpauth URIs and by the service: `"SHA1"`, `"SHA256"`, `"SHA512"`.
    public var name: String {
        switch self {
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512: "SHA512"
        }
    }

    /// Finds an algorithm by its name, ignoring case (`"sha256"` works).
    /// - Parameter name: `SHA1`, `SHA256` or `SHA512`.
    public init?(name: some StringProtocol) {
        switch name.uppercased() {
        case "SHA1": self = .sha1
        case "SHA256": self = .sha256
        case "SHA512": self = .sha512
        default: return nil
        }
    }
}
