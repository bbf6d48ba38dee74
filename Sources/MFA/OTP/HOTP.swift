/// A counter-based one-time password generator (RFC 4226).
///
/// ```swift
/// let hotp = try HOTP(secret: Array("12345678901234567890".utf8))
/// hotp.code(counter: 0)   // "755224"
/// ```
public struct HOTP: Sendable {
    /// The shared secret.
    public let secret: [UInt8]
    /// Code length, 6 to 8.
    public let digits: Int
    /// The HMAC hash.
    public let algorithm: OTPAlgorithm

    /// Creates a generator.
    /// - Parameters:
    ///   - secret: the raw shared secret, 1 to 1024 bytes.
    ///   - digits: the code length, 6 to 8.
    ///   - algorithm: the HMAC hash.
    /// - Throws: `invalidArgument` for an empty or overlong secret or a bad digit count.
    public init(secret: [UInt8], digits: Int = OTPLimits.defaultDigits,
                algorithm: OTPAlgorithm = .sha1) throws(MFAError) {
        try OTPLimits.check(keyBytes: secret.count)
        try OTPLimits.check(digits: digits)
        self.secret = secret
        self.digits = digits
        self.algorithm = algorithm
    }

    /// The code for `counter` as a number.
    public func value(counter: UInt64) -> UInt32 {
        secret.withUnsafeBytes {
            OTPCore.hotp(key: $0, counter: counter, digits: digits, algorithm: algorithm)
        }
    }

    /// The code for `counter`, zero-padded to `digits` digits.
    public func code(counter: UInt64) -> String {
        OTPCode.string(value(counter: counter), digits: digits)
    }

    /// Checks `code` against `counter` and up to `lookAhead` counters after it.
    /// - Parameters:
    ///   - code: what the user typed.
    ///   - counter: the next expected counter.
    ///   - lookAhead: how many further counters to accept, 0 to 10.
    /// - Returns: the counter that matched (store `match + 1` as the next expected one), or nil.
    /// - Throws: `invalidArgument` if `lookAhead` is out of range.
    public func verify(_ code: String, counter: UInt64, lookAhead: Int = 0) throws(MFAError) -> UInt64? {
        try OTPLimits.check(window: lookAhead)
        var code = code
        return code.withUTF8 { typed in
            secret.withUnsafeBytes {
                OTPCore.verifyHOTP(key: $0, code: UnsafeRawBufferPointer(typed), counter: counter,
                                   lookAhead: lookAhead, digits: digits, algorithm: algorithm)
            }
        }
    }
}
