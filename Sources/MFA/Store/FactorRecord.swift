/// An enrolled factor as stored in `mfa_factors`: what every kind shares.
/// `sealed` is the kind's payload (a TOTP secret, a phone number, a
/// recovery set's hashing key), encrypted under the master key `keyID` and
/// bound to this row's kind, tenant, user and enrollment id.
package struct FactorRecord: Sendable, Equatable {
    package var enrollmentID: String
    package var tenant: String
    package var uid: String
    package var factorID: String
    package var displayName: String?
    package var enrolledAt: Int64
    package var keyID: String
    package var sealed: [UInt8]
    package var lockedUntil: Int64
    /// How the payload is sealed: 2 binds it to kind, tenant, user and id;
    /// 1 (stores before schema version 3) is re-sealed at open.
    package var sealFormat: Int64
    /// The kind's summary (`SecondFactor.summarySQL`), when it has one.
    package var summary: Int64?
    /// The values of its kind's own columns (`SecondFactor.factorColumns`),
    /// written with the row; empty in a record read back (the reads that
    /// need them name them: the sign-in attempt's `attemptColumns`).
    package var kindValues: [SQLValue] = []

    /// The current seal format.
    package static let currentSealFormat: Int64 = 2
    /// The seal format of schema versions 1 and 2 (bound to id and tenant
    /// only), re-sealed at open (`MFAContext.upgradeSeals`).
    package static let legacySealFormat: Int64 = 1

    package init(enrollmentID: String, tenant: String, uid: String, factorID: String, displayName: String?,
                 enrolledAt: Int64, keyID: String, sealed: [UInt8], lockedUntil: Int64 = 0,
                 sealFormat: Int64 = FactorRecord.currentSealFormat, summary: Int64? = nil) {
        self.enrollmentID = enrollmentID
        self.tenant = tenant
        self.uid = uid
        self.factorID = factorID
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.keyID = keyID
        self.sealed = sealed
        self.lockedUntil = lockedUntil
        self.sealFormat = sealFormat
        self.summary = summary
    }

    /// Oldest first, then by enrollment id (sorted here: a user has a
    /// handful of factors, and the database then needs no sort of its own).
    static func enrollmentOrder(_ a: FactorRecord, _ b: FactorRecord) -> Bool {
        (a.enrolledAt, a.enrollmentID) < (b.enrolledAt, b.enrollmentID)
    }

    /// The stored columns, in the order of `init(row:)`.
    static let storedColumns = [
        "enrollment_id", "tenant", "uid", "factor_id", "display_name", "enrolled_at", "key_id", "sealed",
        "locked_until", "seal_format",
    ]

    /// The columns a query selects from `mfa_factors f`, the summary last.
    static let selectList = selectList(summary: summaryExpression)

    /// The columns a query selects from `mfa_factors f`, then `summary`
    /// (an expression over `f`, or `NULL` where no summary is wanted: on
    /// PostgreSQL each kind's summary subquery costs its setup on every
    /// execution, even when the CASE never reaches it).
    static func selectList(summary: String) -> String {
        storedColumns.map { "f." + $0 }.joined(separator: ", ") + ", " + summary
    }

    /// The kinds' summaries, one CASE over the factor id.
    static var summaryExpression: String {
        let cases = FactorRegistry.all.compactMap { kind in
            kind.summarySQL.map { "WHEN '\(kind.id)' THEN (\($0))" }
        }
        return cases.isEmpty ? "NULL" : "CASE f.factor_id \(cases.joined(separator: " ")) END"
    }

    /// Reads a row of `selectList`.
    /// - Throws: `storageError` for a missing column, a wrong type or a value out of range.
    init(row: [SQLValue]) throws(MFAError) {
        try self.init(row: row[...])
    }

    /// Reads a row of `selectList` from a part of a longer row.
    init(row: ArraySlice<SQLValue>) throws(MFAError) {
        let at = row.startIndex
        guard row.count == Self.storedColumns.count + 1, let tenant = row[at + 1].text, let uid = row[at + 2].text,
              row[at + 10].int != nil || row[at + 10] == .null else {
            throw MFAError(.storageError, "a stored factor is malformed")
        }
        try self.init(row, from: 0, Self.storedPlaces, tenant: tenant, uid: uid)
        summary = row[at + 10].int
    }

    /// The stored columns but the owner's, for a read that names the owner
    /// itself (each column a statement returns costs PostgreSQL its setup
    /// on every execution).
    static let ownedColumns = storedColumns.filter { $0 != "tenant" && $0 != "uid" }

    /// The columns a query selects from `mfa_factors f` when it names the owner.
    static let ownedSelectList = ownedColumns.map { "f." + $0 }.joined(separator: ", ")

    /// Reads the columns of `ownedSelectList` (no summary) that begin at
    /// `start` in a longer row: a factor of the user `tenant`, `uid`.
    init(owned row: any SQLColumns, from start: Int, tenant: String, uid: String) throws(MFAError) {
        guard row.count - start >= Self.ownedColumns.count else {
            throw MFAError(.storageError, "a stored factor is malformed")
        }
        try self.init(row, from: start, Self.ownedPlaces, tenant: tenant, uid: uid)
    }

    /// Where `init(_:_:tenant:uid:)` finds each column but the owner's, from
    /// the slice's start: in a row of `selectList`, and of `ownedSelectList`.
    private static let storedPlaces = [0, 3, 4, 5, 6, 7, 8, 9]
    private static let ownedPlaces = [0, 1, 2, 3, 4, 5, 6, 7]

    /// Reads the columns but the owner's at `places` from `start` (enrollment
    /// id, factor id, display name, enrollment time, key id, sealed, lock, seal format).
    private init(_ row: any SQLColumns, from start: Int, _ places: [Int], tenant: String,
                 uid: String) throws(MFAError) {
        let displayName = row.text(start + places[2])
        guard let id = row.text(start + places[0]), let factorID = row.text(start + places[1]),
              displayName != nil || row.isNull(start + places[2]),
              let enrolledAt = row.int(start + places[3]), let keyID = row.text(start + places[4]),
              let sealed = row.blob(start + places[5]), let lockedUntil = row.int(start + places[6]),
              let format = row.int(start + places[7]), format == 1 || format == 2 else {
            throw MFAError(.storageError, "a stored factor is malformed")
        }
        self.init(enrollmentID: id, tenant: tenant, uid: uid, factorID: factorID, displayName: displayName,
                  enrolledAt: enrolledAt, keyID: keyID, sealed: sealed, lockedUntil: lockedUntil, sealFormat: format)
    }

    /// The values of `storedColumns`, for an insert.
    var storedValues: [SQLValue] {
        [.text(enrollmentID), .text(tenant), .text(uid), .text(factorID), displayName.map(SQLValue.text) ?? .null,
         .int(enrolledAt), .text(keyID), .blob(sealed), .int(lockedUntil), .int(sealFormat)]
    }

    /// The columns an insert writes: `storedColumns`, then every kind's own.
    static let insertColumns = storedColumns + FactorRegistry.factorColumns

    /// The values of `insertColumns`: its kind's own (or those of the kind
    /// whose columns it fills) from `kindValues`, NULL in every other kind's
    /// (and in its own when `kindValues` is empty: such a factor's attempts
    /// find no parameters, a `storageError`).
    /// - Throws: `storageError` if `kindValues` is not one value for each of its kind's columns.
    func insertValues() throws(MFAError) -> [SQLValue] {
        // A kind may fill another kind's columns (`SecondFactor.columnKind`).
        let owner = FactorRegistry.kind(factorID).flatMap { FactorRegistry.kind($0.columnKind) }
        let own = owner?.factorColumns.count ?? 0
        guard kindValues.isEmpty || kindValues.count == own else {
            throw MFAError(.storageError, "a new factor's values do not fit its kind's columns")
        }
        var values = storedValues
        values.reserveCapacity(Self.insertColumns.count)
        for kind in FactorRegistry.all {
            if kind.id == owner?.id, !kindValues.isEmpty {
                values += kindValues
            } else {
                values += Array(repeating: SQLValue.null, count: kind.factorColumns.count)
            }
        }
        return values
    }
}

/// What the store keeps about a user beyond the factors.
package struct UserRecord: Sendable, Equatable {
    /// When the user's credentials were last revoked (milliseconds), or nil if never.
    package var revokedAtMs: Int64?
    /// The revocation epoch: tokens minted in an earlier epoch are refused.
    package var tokenEpoch: Int64 = 0
    /// When the user last passed a second factor.
    package var lastSecondFactorAt: Int64 = 0
    /// Until when the user's second-factor attempts are refused.
    package var lockedUntil: Int64 = 0

    package init(revokedAtMs: Int64? = nil, tokenEpoch: Int64 = 0, lastSecondFactorAt: Int64 = 0,
                 lockedUntil: Int64 = 0) {
        self.revokedAtMs = revokedAtMs
        self.tokenEpoch = tokenEpoch
        self.lastSecondFactorAt = lastSecondFactorAt
        self.lockedUntil = lockedUntil
    }
}

/// The stored configuration documents that apply to one tenant.
package struct ConfigDocuments: Sendable, Equatable, Hashable {
    /// The project's document, if one was stored.
    package var project: String?
    /// The tenant's document, if one was stored (nil for the project itself).
    package var tenant: String?
}

/// What a sign-in attempt finds in the store.
package struct AttemptView: Sendable {
    /// The factor named by the attempt, if it exists.
    package var factor: FactorRecord?
    /// The user's record.
    package var user: UserRecord
    /// Whether the pending credential was already used.
    package var consumed: Bool
    /// The credentials recorded as used in the user's row.
    package var consumedTokens = ConsumedTokens()
    /// The configuration documents of the user's tenant.
    package var documents: ConfigDocuments
    /// The factor kind's `attemptColumns` (NULL when the factor is missing).
    package var state: [SQLValue] = []
    /// Whether the user has a row in `mfa_users` (`user` holds the defaults when not).
    package var userStored = false
    /// The factor's failure count (0 when the factor is missing).
    package var factorFailures: Int64 = 0
    /// The user's failure count and last failure time as read: every
    /// counted failure changes them.
    package var userFailures: (count: Int64, last: Int64) = (0, 0)

    /// Whether the factor has no failure count or backoff to clear.
    package var factorClear: Bool { factorFailures == 0 && factor?.lockedUntil == 0 }
}

/// The outcome of a backoff-counted failure.
package struct FailureOutcome: Sendable, Equatable {
    /// Until when attempts are refused now (0 when not locked).
    package var lockedUntil: Int64
    /// Whether this failure started (or lengthened) a backoff.
    package var startedBackoff: Bool

    package init(lockedUntil: Int64, startedBackoff: Bool) {
        self.lockedUntil = lockedUntil
        self.startedBackoff = startedBackoff
    }

    mutating func merge(_ until: Int64) {
        if until > lockedUntil { lockedUntil = until }
        if until > 0 { startedBackoff = true }
    }
}

/// A table whose rows hold a value sealed under a master key, for key
/// rotation and the seal upgrade.
package struct SealedTable: Sendable, Equatable {
    /// The table.
    package var table: String
    /// Its key column.
    package var idColumn: String
    /// The `SealBinding.record` of its values.
    package var record: String
    /// The column that holds the factor id, or nil when every row is of `kind`.
    package var kindColumn: String?
    /// The factor id of every row, when `kindColumn` is nil.
    package var kind: String

    package init(table: String, idColumn: String, record: String, kindColumn: String? = nil, kind: String = "") {
        self.table = table
        self.idColumn = idColumn
        self.record = record
        self.kindColumn = kindColumn
        self.kind = kind
    }

    /// The enrolled factors.
    package static let factors = SealedTable(table: "mfa_factors", idColumn: "enrollment_id", record: "factor",
                                             kindColumn: "factor_id")
}
