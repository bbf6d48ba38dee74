/// The ranges every one-time-password function checks its input against.
///
/// They match the `MFA_*` macros of `include/mfa_types.h`.
public enum OTPLimits {
    /// Allowed code lengths.
    public static let digits: ClosedRange<Int> = 6...8
    /// The default code length.
    public static let defaultDigits = 6
    /// Allowed TOTP periods, in seconds.
    public static let period: ClosedRange<Int64> = 1...31_536_000
    /// The default TOTP period, in seconds.
    public static let defaultPeriod: Int64 = 30
    /// Allowed verification windows (± steps for TOTP, look-ahead for HOTP).
    public static let window: ClosedRange<Int> = 0...10
    /// Allowed HMAC key lengths, in bytes.
    public static let keyBytes: ClosedRange<Int> = 1...1024
    /// Lengths `SecureRandom.secret` makes, in bytes (RFC 4226: at least 128 bits).
    public static let secretBytes: ClosedRange<Int> = 16...128
    /// The default secret length in bytes (160 bits, as RFC 4226 recommends).
    public static let defaultSecretBytes = 20

    /// Throws `invalidArgument` unless `digits` is allowed.
    package static func check(digits: Int) throws(MFAError) {
        guard Self.digits.contains(digits) else {
            throw MFAError(.invalidArgument, "digits must be 6 to 8")
        }
    }

    /// Throws `invalidArgument` unless `period` is allowed.
    package static func check(period: Int64) throws(MFAError) {
        guard Self.period.contains(period) else {
            throw MFAError(.invalidArgument, "period must be 1 to 31536000 seconds")
        }
    }

    /// Throws `invalidArgument` unless `window` is allowed.
    package static func check(window: Int) throws(MFAError) {
        guard Self.window.contains(window) else {
            throw MFAError(.invalidArgument, "window must be 0 to 10")
        }
    }

    /// Throws `invalidArgument` unless `count` is an allowed key length.
    package static func check(keyBytes count: Int) throws(MFAError) {
        guard keyBytes.contains(count) else {
            throw MFAError(.invalidArgument, "key must be 1 to 1024 bytes")
        }
    }
}
