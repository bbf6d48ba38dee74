/// What a user has used up, kept in the user's own row (`mfa_users.consumed`):
/// the pending credentials used (instead of in `mfa_consumed`), and the last
/// step accepted from each of the user's TOTP factors.
///
/// A sign-in writes the user's row anyway (the step-up time, the failures
/// cleared): recording there what the sign-in used saves every other write.
/// On SQLite the sign-in dirties one page, the user's; on PostgreSQL it
/// updates one row. Credentials past their date are dropped whenever the
/// row is written. A user with `capacity` live credentials (many sign-ins
/// within a credential's lifetime) goes on in `mfa_consumed`: every check
/// reads both. A factor's step stays until the factor is removed.
///
/// The column begins with a generation (8 bytes, big-endian), which every
/// write moves on, also one that records the credential in `mfa_consumed`:
/// a statement that locks the user's row and finds the column as it read it
/// before knows that nothing of the user was used in between. Then come
/// entries of 24 bytes: 16 bytes of id, then a big-endian signed value:
/// - a used credential: its token id, then until when the record must be
///   kept (a Unix time, never negative);
/// - a TOTP factor's last accepted step (or an HOTP counter, a Yubico OTP's
///   counters): the factor's key (`UsedStep.key`), then the step's bitwise
///   complement (negative: steps are never);
/// - a hardware TOTP token's drift: the key `UsedStep.driftKey`, then the
///   complement of the drift plus `driftBias` (negative as well).
///
/// NULL is generation 0 with no entries.
package struct ConsumedTokens: Sendable, Equatable {
    /// The most credentials one user's row holds.
    package static let capacity = 32
    private static let headerBytes = 8
    private static let idBytes = 16
    private static let entryBytes = idBytes + 8

    /// The column as stored (`.null` or `.blob`).
    package let stored: SQLValue
    private let bytes: [UInt8]

    /// No entries (a NULL column).
    package init() {
        stored = .null
        bytes = []
    }

    /// Reads the column.
    /// - Throws: `storageError` if it is not a generation and whole entries.
    package init(_ value: SQLValue) throws(MFAError) {
        switch value {
        case .null: bytes = []
        case .blob(let column) where column.count >= Self.headerBytes
            && (column.count - Self.headerBytes) % Self.entryBytes == 0:
            bytes = column
        default: throw MFAError(.storageError, "a user's consumed-credential record is malformed")
        }
        stored = value
    }

    /// How many credentials the column holds (past their date or not).
    package var count: Int { offsets.lazy.filter { value(at: $0) >= 0 }.count }

    /// How many factors' steps the column holds.
    package var stepCount: Int { offsets.lazy.filter { value(at: $0) < 0 }.count }

    /// Whether the credential `id` is recorded (past its date or not).
    package func contains(_ id: [UInt8]) -> Bool {
        guard id.count == Self.idBytes else { return false }
        return offsets.contains { value(at: $0) >= 0 && bytes[$0..<$0 + Self.idBytes].elementsEqual(id) }
    }

    /// The last step recorded for the factor whose key is `key`, if any.
    package func lastStep(_ key: [UInt8]) -> Int64? {
        guard key.count == Self.idBytes else { return nil }
        for at in offsets where value(at: at) < 0 && bytes[at..<at + Self.idBytes].elementsEqual(key) {
            return ~value(at: at)
        }
        return nil
    }

    /// The drift recorded for the factor whose drift key is `key`, if any.
    package func drift(_ key: [UInt8]) -> Int64? {
        lastStep(key).map { $0 - Self.driftBias }
    }

    /// What a drift is stored as, added to it: drifts are within ±2^32 steps.
    private static let driftBias: Int64 = 1 << 40

    /// The column's next value with the credential `id` recorded until
    /// `until` (and `step`, if any, as its factor's last step) and the
    /// credentials whose date is before `now` dropped; nil if the row holds
    /// `capacity` credentials (or `id` is not a token id, or `until` is
    /// negative): record it in `mfa_consumed`, and the column's
    /// `touched(now:step:)`.
    package func adding(_ id: [UInt8], until: Int64, now: Int64, step: UsedStep? = nil) -> [UInt8]? {
        guard id.count == Self.idBytes, until >= 0 else { return nil }
        // The credentials `touched` keeps: recorded, and not past their date.
        let kept = offsets.lazy.filter { let value = value(at: $0); return value >= 0 && value >= now }.count
        guard kept < Self.capacity else { return nil }
        var next = touched(now: now, step: step)
        next += id
        Self.append(until, to: &next)
        return next
    }

    /// The column's next value without a new credential: the generation
    /// moved on, the credentials whose date is before `now` dropped, and
    /// `step`, if any, recorded as its factor's last step.
    package func touched(now: Int64, step: UsedStep? = nil) -> [UInt8] {
        // A step is recorded only as a key and a step that the column can hold.
        let recording = step.flatMap { $0.key.count == Self.idBytes && $0.step >= 0 ? $0 : nil }
        let drift = recording.flatMap { $0.driftKey.count == Self.idBytes ? $0.drift : nil }
        var next = Self.nextHeader(bytes)
        for at in offsets {
            let value = value(at: at)
            if value < 0 {
                if let recording, bytes[at..<at + Self.idBytes].elementsEqual(recording.key) { continue }
                if drift != nil, let recording, bytes[at..<at + Self.idBytes].elementsEqual(recording.driftKey) {
                    continue
                }
                next += bytes[at..<at + Self.entryBytes]
            } else if value >= now {
                next += bytes[at..<at + Self.entryBytes]
            }
        }
        if let recording {
            next += recording.key
            Self.append(~recording.step, to: &next)
            if let drift {
                next += recording.driftKey
                Self.append(~(drift + Self.driftBias), to: &next)
            }
        }
        return next
    }

    /// The column's next value without the step of the factor whose key is
    /// `key` (the factor was removed), nor any of `others` (its drift); the rest as it is.
    package func removingStep(_ key: [UInt8], _ others: [[UInt8]] = []) -> [UInt8] {
        var next = Self.nextHeader(bytes)
        for at in offsets {
            let entry = bytes[at..<at + Self.idBytes]
            if value(at: at) < 0 && (entry.elementsEqual(key) || others.contains { entry.elementsEqual($0) }) {
                continue
            }
            next += bytes[at..<at + Self.entryBytes]
        }
        return next
    }

    /// Each entry's offset.
    private var offsets: StrideTo<Int> { stride(from: Self.headerBytes, to: bytes.count, by: Self.entryBytes) }

    /// The value of the entry at `at`.
    private func value(at: Int) -> Int64 { Self.integer(bytes[at + Self.idBytes..<at + Self.entryBytes]) }

    /// The generation after the one of `bytes`, with room for the entries.
    private static func nextHeader(_ bytes: [UInt8]) -> [UInt8] {
        var next: [UInt8] = []
        next.reserveCapacity(bytes.count + 2 * entryBytes)
        append(bytes.isEmpty ? 1 : integer(bytes[0..<headerBytes]) &+ 1, to: &next)
        return next
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64 {
        bytes.reduce(0) { $0 << 8 | Int64($1) }
    }

    private static func append(_ value: Int64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
