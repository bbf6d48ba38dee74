/// The HOTP and TOTP computations on raw key bytes, shared by the Swift types
/// and the C exports. Parameters are checked by the callers.
package enum OTPCore {
    /// The HOTP value of `counter`, already reduced to `digits` digits.
    package static func hotp(key: UnsafeRawBufferPointer, counter: UInt64, digits: Int,
                     algorithm: OTPAlgorithm) -> UInt32 {
        switch algorithm {
        case .sha1: value(SHA1Mac.self, key: key, counter: counter, digits: digits)
        case .sha256: value(SHA256Mac.self, key: key, counter: counter, digits: digits)
        case .sha512: value(SHA512Mac.self, key: key, counter: counter, digits: digits)
        }
    }

    /// Checks `code` against the counters `counter ... counter + lookAhead`,
    /// keying the HMAC once. Returns the counter that matched, or nil.
    package static func verifyHOTP(key: UnsafeRawBufferPointer, code: UnsafeRawBufferPointer,
                           counter: UInt64, lookAhead: Int, digits: Int,
                           algorithm: OTPAlgorithm) -> UInt64? {
        guard let wanted = OTPCode.parse(code, digits: digits) else { return nil }
        let candidates = (0...lookAhead).lazy.map { UInt64($0) }
            .filter { counter <= UInt64.max - $0 }.map { counter + $0 }
        return match(algorithm, key: key, wanted: wanted, digits: digits, candidates: candidates)
    }

    /// Checks `code` against the TOTP steps `step - window ... step + window`,
    /// trying the current step first, then the nearest ones outwards, and only
    /// steps after `after` (the last accepted step, for replay protection).
    /// Returns the step that matched, or nil.
    package static func verifyTOTP(key: UnsafeRawBufferPointer, code: UnsafeRawBufferPointer,
                           step: Int64, window: Int, after: Int64?, digits: Int,
                           algorithm: OTPAlgorithm) -> Int64? {
        guard let wanted = OTPCode.parse(code, digits: digits) else { return nil }
        let floor = after ?? -1
        let candidates = TOTPStepOrder(center: step, window: window).lazy.filter { $0 > floor }
            .map { UInt64($0) }
        return match(algorithm, key: key, wanted: wanted, digits: digits, candidates: candidates)
            .map { Int64($0) }
    }

    private static func match(_ algorithm: OTPAlgorithm, key: UnsafeRawBufferPointer,
                              wanted: UInt32, digits: Int,
                              candidates: some Sequence<UInt64>) -> UInt64? {
        switch algorithm {
        case .sha1: firstMatch(SHA1Mac.self, key: key, wanted: wanted, digits: digits, candidates)
        case .sha256: firstMatch(SHA256Mac.self, key: key, wanted: wanted, digits: digits, candidates)
        case .sha512: firstMatch(SHA512Mac.self, key: key, wanted: wanted, digits: digits, candidates)
        }
    }

    @inline(__always)
    private static func value<M: OTPMac>(_: M.Type, key: UnsafeRawBufferPointer,
                                         counter: UInt64, digits: Int) -> UInt32 {
        var mac = M(key: key)
        return mac.truncated(counter: counter) % OTPCode.modulus(digits: digits)
    }

    @inline(__always)
    private static func firstMatch<M: OTPMac>(_: M.Type, key: UnsafeRawBufferPointer,
                                              wanted: UInt32, digits: Int,
                                              _ candidates: some Sequence<UInt64>) -> UInt64? {
        var mac = M(key: key)
        let modulus = OTPCode.modulus(digits: digits)
        for counter in candidates
        where OTPCode.equal(mac.truncated(counter: counter) % modulus, wanted) {
            return counter
        }
        return nil
    }
}

/// The TOTP steps around `center` in the order they are tried: the center,
/// then -1, +1, -2, +2, ... up to ±window; negative steps are left out.
struct TOTPStepOrder: Sequence, IteratorProtocol {
    let center: Int64
    let window: Int
    private var index = 0

    /// Creates the order for `center` ± `window`.
    init(center: Int64, window: Int) {
        self.center = center
        self.window = window
    }

    mutating func next() -> Int64? {
        while index <= 2 * window {
            let distance = Int64((index + 1) / 2)
            let (candidate, overflow) = index % 2 == 1
                ? center.subtractingReportingOverflow(distance)
                : center.addingReportingOverflow(distance)
            index += 1
            if !overflow && candidate >= 0 { return candidate }
        }
        return nil
    }
}
