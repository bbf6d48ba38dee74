/// Where a code, or two consecutive codes, fall on an HOTP token's counters.
///
/// A token's next counter is `from`: the one after the last code accepted
/// (or the counter it was stored with). One code is looked for in `from ...
/// from + lookAhead`; two consecutive codes (a resynchronization) anywhere
/// in `from ... from + resyncWindow`, the second at the counter after the
/// first. What is claimed is the counter of the last code matched, so that
/// both codes are used up.
package enum HOTPSearch {
    /// A match: the counter to claim, and whether it took a resynchronization
    /// (the first code lies beyond the look-ahead window).
    package struct Match: Sendable, Equatable {
        package var counter: Int64
        package var resynced: Bool
    }

    /// Looks for `code` (and `next`, if given) on the token `secret`.
    /// - Returns: the match, or nil for a wrong code (a malformed one is wrong too).
    package static func find(_ code: String, next: String?, secret: SecureBytes, algorithm: OTPAlgorithm,
                             digits: Int, from: Int64, lookAhead: Int, resyncWindow: Int) throws(MFAError) -> Match? {
        try OTPLimits.check(keyBytes: secret.count)
        guard from >= 0 else { return nil }
        var first = code
        guard let next else {
            let found: UInt64? = first.withUTF8 { typed in
                secret.withBytes { key in
                    OTPCore.verifyHOTP(key: key, code: UnsafeRawBufferPointer(typed), counter: UInt64(from),
                                       lookAhead: lookAhead, digits: digits, algorithm: algorithm)
                }
            }
            return found.flatMap { Int64(exactly: $0) }.map { Match(counter: $0, resynced: false) }
        }
        var second = next
        let (through, overflow) = from.addingReportingOverflow(Int64(resyncWindow))
        guard !overflow, through < Int64.max else { return nil }
        let found: UInt64? = first.withUTF8 { one in
            second.withUTF8 { two in
                secret.withBytes { key in
                    OTPCore.resyncHOTP(key: key, first: UnsafeRawBufferPointer(one), second: UnsafeRawBufferPointer(two),
                                       from: UInt64(from), through: UInt64(through), digits: digits,
                                       algorithm: algorithm)
                }
            }
        }
        guard let counter = found.flatMap({ Int64(exactly: $0) }) else { return nil }
        return Match(counter: counter, resynced: counter - 1 > from + Int64(lookAhead))
    }
}
