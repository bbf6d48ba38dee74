/// A time-based one-time password generator and verifier (RFC 6238).
///
/// ```swift
/// let totp = try TOTP(secret: SecureRandom.secret())
/// let code = try totp.code(at: 1_700_000_000)
/// let step = try totp.verify(code, at: 1_700_000_000, window: 1)  // the matched step
/// ```
public struct TOTP: Sendable {
    /// The shared secret.
    public let secret: [UInt8]
    /// The HMAC hash.
    public let algorithm: OTPAlgorithm
    /// Code length, 6 to 8.
    public let digits: Int
    /// Length of a time step, in seconds.
    public let period: Int64
    /// Unix time at which step 0 starts.
    public let t0: Int64

    /// Creates a generator.
    /// - Parameters:
    ///   - secret: the raw shared secret, 1 to 1024 bytes.
    ///   - algorithm: the HMAC hash (SHA1 by default).
    ///   - digits: the code length, 6 to 8.
    ///   - period: the time step in seconds, at least 1.
    ///   - t0: the Unix time at which step 0 starts.
    /// - Throws: `invalidArgument` for any value out of range.
    public init(secret: [UInt8], algorithm: OTPAlgorithm = .sha1, digits: Int = OTPLimits.defaultDigits,
                period: Int64 = OTPLimits.defaultPeriod, t0: Int64 = 0) throws(MFAError) {
        try OTPLimits.check(keyBytes: secret.count)
        try OTPLimits.check(digits: digits)
        try OTPLimits.check(period: period)
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.t0 = t0
    }

    /// The time step that contains `time`: ⌊(time − T0) / period⌋.
    /// - Throws: `invalidArgument` if `time` is before T0.
    public func step(at time: Int64) throws(MFAError) -> Int64 {
        try Self.step(at: time, t0: t0, period: period)
    }

    /// The code for the step that contains `time`.
    /// - Throws: `invalidArgument` if `time` is before T0.
    public func code(at time: Int64) throws(MFAError) -> String {
        let step = try step(at: time)
        let value = secret.withUnsafeBytes {
            OTPCore.hotp(key: $0, counter: UInt64(step), digits: digits, algorithm: algorithm)
        }
        return OTPCode.string(value, digits: digits)
    }

    /// Checks `code` against the step at `time` and `window` steps either side.
    /// - Parameters:
    ///   - code: what the user typed.
    ///   - time: Unix time of the check.
    ///   - window: how many adjacent steps to accept on each side, 0 to 10.
    ///   - after: if given, only steps later than this one are accepted
    ///     (the last accepted step, so that a code is used once).
    /// - Returns: the step that matched, or nil for a wrong or malformed code.
    /// - Throws: `invalidArgument` for a window out of range or a time before T0.
    public func verify(_ code: String, at time: Int64, window: Int = 1,
                       after: Int64? = nil) throws(MFAError) -> Int64? {
        try OTPLimits.check(window: window)
        let step = try step(at: time)
        var code = code
        let result: Result<Int64?, MFAError> = code.withUTF8 { typed in
            secret.withUnsafeBytes { key in
                Result { () throws(MFAError) in
                    try OTPCore.verifyTOTP(key: key, window: window, after: after, digits: digits,
                                           algorithm: algorithm) { (UnsafeRawBufferPointer(typed), step) }
                }
            }
        }
        return try result.get()
    }

    /// ⌊(time − t0) / period⌋, refusing times before `t0`.
    package static func step(at time: Int64, t0: Int64, period: Int64) throws(MFAError) -> Int64 {
        let (elapsed, overflow) = time.subtractingReportingOverflow(t0)
        guard !overflow, elapsed >= 0, period > 0 else {
            throw MFAError(.invalidArgument, "time is before T0")
        }
        return elapsed / period
    }
}
