/// The pending credentials a user has used, kept in the user's own row
/// (`mfa_users.consumed`) instead of `mfa_consumed`.
///
/// A sign-in writes the user's row anyway (the step-up time, the failures
/// cleared): recording the credential there too saves an insert into
/// `mfa_consumed` and its expiry index (on SQLite two of the four pages a
/// sign-in wrote), and the purge that deleted it later. Entries past their
/// date are dropped whenever the row is written. A user with `capacity`
/// live entries (many sign-ins within a credential's lifetime) goes on in
/// `mfa_consumed`: every check reads both.
///
/// The column begins with a generation (8 bytes, big-endian), which every
/// write moves on, also one that records the credential in `mfa_consumed`:
/// a statement that locks the user's row and finds the column as it read it
/// before knows that no credential of the user was consumed in between.
/// Then come entries of 24 bytes: the token id (16 bytes), then until when
/// the record must be kept (a big-endian Unix time). NULL is generation 0
/// with no entries.
package struct ConsumedTokens: Sendable, Equatable {
    /// The most entries one user's row holds.
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

    /// How many entries the column holds (past their date or not).
    package var count: Int { bytes.isEmpty ? 0 : (bytes.count - Self.headerBytes) / Self.entryBytes }

    /// Whether `id` is recorded (past its date or not).
    package func contains(_ id: [UInt8]) -> Bool {
        guard id.count == Self.idBytes else { return false }
        var at = Self.headerBytes
        while at < bytes.count {
            if bytes[at..<at + Self.idBytes].elementsEqual(id) { return true }
            at += Self.entryBytes
        }
        return false
    }

    /// The column's next value with `id` recorded until `until` and the
    /// entries whose date is before `now` dropped; nil if the row is full
    /// (or `id` is not a token id): record it in `mfa_consumed`, and the
    /// column's `touched(now:)`.
    package func adding(_ id: [UInt8], until: Int64, now: Int64) -> [UInt8]? {
        guard id.count == Self.idBytes else { return nil }
        var next = touched(now: now)
        guard (next.count - Self.headerBytes) / Self.entryBytes < Self.capacity else { return nil }
        next += id
        Self.append(until, to: &next)
        return next
    }

    /// The column's next value without a new entry: the generation moved
    /// on, the entries whose date is before `now` dropped.
    package func touched(now: Int64) -> [UInt8] {
        var next: [UInt8] = []
        next.reserveCapacity(bytes.count + Self.entryBytes)
        Self.append(bytes.isEmpty ? 1 : Self.integer(bytes[0..<Self.headerBytes]) &+ 1, to: &next)
        var at = Self.headerBytes
        while at < bytes.count {
            if Self.integer(bytes[at + Self.idBytes..<at + Self.entryBytes]) >= now {
                next += bytes[at..<at + Self.entryBytes]
            }
            at += Self.entryBytes
        }
        return next
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64 {
        bytes.reduce(0) { $0 << 8 | Int64($1) }
    }

    private static func append(_ value: Int64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
