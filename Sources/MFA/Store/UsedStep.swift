/// A TOTP code's step claimed by a sign-in: it holds if the step is later
/// than every step the factor accepted before, and is then recorded in the
/// user's row (`ConsumedTokens`) as the factor's last step. The counters of
/// the other one-time-password kinds are claimed the same way: an HOTP
/// code's counter, a Yubico OTP's use and session counters as one value.
///
/// The factor's own row (`mfa_factors.totp_last_step`) keeps the step it
/// was stored with (the enrollment's code, an imported counter) and is
/// never written after; every later step lives in the user's row, which
/// the sign-in writes anyway.
package struct UsedStep: Sendable, Equatable {
    /// The factor's key in the user's row: a 128-bit FNV-1a hash of the
    /// enrollment id (two 64-bit lanes from different offsets). A key shared
    /// by two factors of one user could only refuse a code, never accept one
    /// twice: a key's step only grows, and a claim needs a later one.
    package let key: [UInt8]
    /// The step the code matched.
    package let step: Int64
    /// The step the factor's own row holds (-1 for none).
    package let stored: Int64
    /// A hardware TOTP token's drift (the step matched less the step of the
    /// clock), recorded beside the step, or nil.
    package let drift: Int64?
    /// The key of the factor's drift in the user's row (empty without a drift).
    package let driftKey: [UInt8]

    /// The claim of `step` for the factor `enrollmentID`, whose own row
    /// holds `stored`; `drift`, if any, is remembered with it.
    package init(enrollmentID: String, step: Int64, stored: Int64, drift: Int64? = nil) {
        key = Self.key(enrollmentID)
        self.step = step
        self.stored = stored
        self.drift = drift.map { min(max($0, -Self.maxDrift), Self.maxDrift) }
        driftKey = drift == nil ? [] : Self.driftKey(enrollmentID)
    }

    /// The largest drift remembered, in steps either way.
    package static let maxDrift: Int64 = 1 << 32

    /// The key of the factor `enrollmentID`'s drift in its user's row.
    package static func driftKey(_ enrollmentID: String) -> [UInt8] {
        key(enrollmentID + "\u{0}drift")
    }

    /// The key of the factor `enrollmentID` in its user's row.
    package static func key(_ enrollmentID: String) -> [UInt8] {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x6c62_272e_07bb_0142
        var text = enrollmentID
        text.withUTF8 { utf8 in
            for byte in utf8 {
                high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
                low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        low ^= high >> 29
        // Both lanes big-endian, high first.
        let lanes = (high.bigEndian, low.bigEndian)
        return withUnsafeBytes(of: lanes) { Array($0) }
    }

    /// Whether the claim holds against the user's row as read.
    package func holds(in recorded: ConsumedTokens) -> Bool {
        step >= 0 && step > stored && step > (recorded.lastStep(key) ?? -1)
    }
}
