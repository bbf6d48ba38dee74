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
        return Search.run(algorithm, key: key, code: code, digits: digits, first: counter) { add in
            for ahead in 1...max(1, min(lookAhead, maxCandidates - 1))
            where ahead <= lookAhead && counter <= UInt64.max - UInt64(ahead) {
                add(counter + UInt64(ahead))
            }
        }
    }

    /// Looks for two consecutive codes, `first` at some counter `c` in
    /// `from ... through` and `second` at `c + 1`, keying the HMAC once and
    /// computing the counters in batches. Returns `c + 1`, the counter of the
    /// later code, or nil.
    ///
    /// The search computes one value per counter and compares it with both
    /// codes, so it costs `through - from + 2` MACs whatever it finds.
    package static func resyncHOTP(key: UnsafeRawBufferPointer, first: UnsafeRawBufferPointer,
                                   second: UnsafeRawBufferPointer, from: UInt64, through: UInt64, digits: Int,
                                   algorithm: OTPAlgorithm) -> UInt64? {
        switch algorithm {
        case .sha1: resync(SHA1Mac.self, key, first, second, from, through, digits)
        case .sha256: resync(SHA256Mac.self, key, first, second, from, through, digits)
        case .sha512: resync(SHA512Mac.self, key, first, second, from, through, digits)
        }
    }

    private static func resync<M: OTPMac>(_: M.Type, _ key: UnsafeRawBufferPointer, _ first: UnsafeRawBufferPointer,
                                          _ second: UnsafeRawBufferPointer, _ from: UInt64, _ through: UInt64,
                                          _ digits: Int) -> UInt64? {
        guard let one = OTPCode.parse(first, digits: digits), let two = OTPCode.parse(second, digits: digits),
              from <= through, through < UInt64.max else { return nil }
        var mac = M(key: key)
        let batch = 32
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { counters in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch) { values in
                // Whether the last value of the batch before matched `first`.
                var previousMatched = false
                var next = from
                var found: UInt64?
                while found == nil {
                    // The counters up to `through + 1`, the later code of the last pair.
                    var count = 0
                    while count < batch && next <= through + 1 {
                        counters[count] = next
                        count += 1
                        if next == UInt64.max { break }
                        next += 1
                    }
                    guard count > 0 else { break }
                    let taken = UnsafeBufferPointer(rebasing: counters[0..<count])
                    mac.truncated(counters: taken, into: values)
                    for index in 0..<count {
                        let value = OTPCode.reduce(values[index], digits: digits)
                        if previousMatched && OTPCode.equal(value, two) && found == nil { found = taken[index] }
                        previousMatched = taken[index] <= through && OTPCode.equal(value, one)
                    }
                    if taken[count - 1] >= through + 1 { break }
                }
                return found
            }
        }
    }

    /// Checks a code against the TOTP steps `step - window ... step + window`,
    /// trying the current step first, then the nearest ones outwards, and only
    /// steps after `after` (the last accepted step, for replay protection).
    ///
    /// The HMAC is keyed before anything else happens: `prepare` (which checks
    /// the caller's remaining arguments and returns the typed code and the
    /// current step) runs while the CPU is still hashing the key, since the
    /// hashing is the critical path of a verification.
    /// - Returns: the step that matched, or nil.
    package static func verifyTOTP(key: UnsafeRawBufferPointer, window: Int, after: Int64?, digits: Int,
                                   algorithm: OTPAlgorithm,
                                   prepare: () throws(MFAError) -> (code: UnsafeRawBufferPointer, step: Int64))
        throws(MFAError) -> Int64? {
        let window = min(max(window, 0), (maxCandidates - 1) / 2)
        let floor = after ?? -1
        let found: UInt64?
        switch algorithm {
        case .sha1: found = try totp(SHA1Mac.self, key, window, floor, digits, prepare)
        case .sha256: found = try totp(SHA256Mac.self, key, window, floor, digits, prepare)
        case .sha512: found = try totp(SHA512Mac.self, key, window, floor, digits, prepare)
        }
        return found.map { Int64($0) }
    }

    @inline(__always)
    private static func totp<M: OTPMac>(_: M.Type, _ key: UnsafeRawBufferPointer, _ window: Int, _ floor: Int64,
                                        _ digits: Int,
                                        _ prepare: () throws(MFAError) -> (code: UnsafeRawBufferPointer, step: Int64))
        throws(MFAError) -> UInt64? {
        var mac = M(key: key)
        let (code, step) = try prepare()
        guard step >= 0 else { return nil }
        return Search.run(&mac, code: code, digits: digits, first: step > floor ? UInt64(step) : nil) { add in
            for candidate in TOTPStepOrder(center: step, window: window).dropFirst() where candidate > floor {
                add(UInt64(candidate))
            }
        }
    }

    /// The most counters one verification tries (±10 steps).
    private static let maxCandidates = 21

    /// One verification: the code wanted, the counter to try first (the right
    /// code is usually the current step), and the others, collected and tried
    /// as one batch only if the first fails, so that the MAC can overlap their
    /// independent hash computations.
    private enum Search {
        static func run(_ algorithm: OTPAlgorithm, key: UnsafeRawBufferPointer, code: UnsafeRawBufferPointer,
                        digits: Int, first: UInt64?, others: ((UInt64) -> Void) -> Void) -> UInt64? {
            switch algorithm {
            case .sha1: run(SHA1Mac.self, key, code, digits, first, others)
            case .sha256: run(SHA256Mac.self, key, code, digits, first, others)
            case .sha512: run(SHA512Mac.self, key, code, digits, first, others)
            }
        }

        /// Keys the MAC before parsing the code, so that the hashing (the
        /// critical path) starts as early as possible.
        @inline(__always)
        private static func run<M: OTPMac>(_: M.Type, _ key: UnsafeRawBufferPointer,
                                           _ code: UnsafeRawBufferPointer, _ digits: Int, _ first: UInt64?,
                                           _ others: ((UInt64) -> Void) -> Void) -> UInt64? {
            var mac = M(key: key)
            return run(&mac, code: code, digits: digits, first: first, others: others)
        }

        /// Runs the search with a keyed MAC.
        @inline(__always)
        static func run<M: OTPMac>(_ mac: inout M, code: UnsafeRawBufferPointer, digits: Int, first: UInt64?,
                                   others: ((UInt64) -> Void) -> Void) -> UInt64? {
            guard let wanted = OTPCode.parse(code, digits: digits) else { return nil }
            if let first, OTPCode.equal(OTPCode.reduce(mac.truncated(counter: first), digits: digits), wanted) {
                return first
            }
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: maxCandidates) { counters in
                var count = 0
                others { counter in
                    if count < counters.count {
                        counters[count] = counter
                        count += 1
                    }
                }
                guard count > 0 else { return nil }
                return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { values in
                    let batch = UnsafeBufferPointer(rebasing: counters[0..<count])
                    mac.truncated(counters: batch, into: values)
                    for index in 0..<count where OTPCode.equal(OTPCode.reduce(values[index], digits: digits), wanted) {
                        return batch[index]
                    }
                    return nil
                }
            }
        }
    }

    @inline(__always)
    private static func value<M: OTPMac>(_: M.Type, key: UnsafeRawBufferPointer,
                                         counter: UInt64, digits: Int) -> UInt32 {
        var mac = M(key: key)
        return OTPCode.reduce(mac.truncated(counter: counter), digits: digits)
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
