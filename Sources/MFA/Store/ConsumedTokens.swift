/// The pending credentials a user has used, kept in the user's own row
/// (`mfa_users.consumed`) instead of `mfa_consumed`, where the store's write
/// transaction holds the whole database (SQLite).
///
/// A sign-in writes the user's row anyway (the step-up time, the failures
/// cleared): recording the credential there too saves the insert into
/// `mfa_consumed` and its expiry index, two of the four pages a sign-in
/// wrote. Entries past their date are dropped whenever the row is written.
/// A user with more than `capacity` live entries (many sign-ins within a
/// credential's lifetime) goes on in `mfa_consumed`: every check reads both.
///
/// The column holds entries of 24 bytes: the token id (16 bytes), then
/// until when the record must be kept (a big-endian Unix time).
package struct ConsumedTokens: Sendable, Equatable {
    /// The most entries one user's row holds.
    package static let capacity = 32
    private static let idBytes = 16
    private static let entryBytes = idBytes + 8

    /// The stored entries, as stored.
    package private(set) var bytes: [UInt8]

    /// No entries.
    package init() { bytes = [] }

    /// Reads the column (NULL: none).
    /// - Throws: `storageError` if it is not a whole number of entries.
    package init(_ value: SQLValue) throws(MFAError) {
        switch value {
        case .null: bytes = []
        case .blob(let stored) where stored.count % Self.entryBytes == 0: bytes = stored
        default: throw MFAError(.storageError, "a user's consumed-credential record is malformed")
        }
    }

    /// Whether `id` is recorded (past its date or not).
    package func contains(_ id: [UInt8]) -> Bool {
        guard id.count == Self.idBytes else { return false }
        var at = 0
        while at < bytes.count {
            if bytes[at..<at + Self.idBytes].elementsEqual(id) { return true }
            at += Self.entryBytes
        }
        return false
    }

    /// The column's new value with `id` recorded until `until` and the
    /// entries whose date is before `now` dropped; nil if the row is full
    /// (or `id` is not a token id): record it in `mfa_consumed` instead.
    package func adding(_ id: [UInt8], until: Int64, now: Int64) -> [UInt8]? {
        guard id.count == Self.idBytes else { return nil }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count + Self.entryBytes)
        var at = 0
        while at < bytes.count {
            if Self.until(bytes[at + Self.idBytes..<at + Self.entryBytes]) >= now {
                kept += bytes[at..<at + Self.entryBytes]
            }
            at += Self.entryBytes
        }
        guard kept.count / Self.entryBytes < Self.capacity else { return nil }
        kept += id
        for shift in stride(from: 56, through: 0, by: -8) { kept.append(UInt8(truncatingIfNeeded: until >> shift)) }
        return kept
    }

    private static func until(_ bytes: ArraySlice<UInt8>) -> Int64 {
        bytes.reduce(0) { $0 << 8 | Int64($1) }
    }
}
