/// What `MFAStore.finishEnrollment` stores, in one transaction.
package struct EnrollmentCommit: Sendable {
    /// The new factor's row.
    package var factor: FactorRecord
    /// The session token that proved the user: consumed once.
    package var sessionTokenID: [UInt8]
    /// Until when its consumption is recorded.
    package var consumedUntil: Int64
    /// The session's revocation epoch: it must still be the user's.
    package var epoch: Int64
    /// The most factors that count toward the limit (nil: this kind does not count).
    package var maxFactors: Int64?
    /// Whether the user's earlier factor of this kind is replaced.
    package var replaces: Bool
    /// The kind's own rows and claims (see `FactorEnrollment.write`).
    package var write: @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void
    /// The kind's check of the user's factors (see `FactorEnrollment.admit`).
    package var admit: @Sendable ([FactorRecord]) throws(MFAError) -> Void
    /// The time of the revocation the enrollment makes (ms).
    package var nowMs: Int64
    /// The enrollment's audit events, stored with it (see `AuditNote`).
    package var audit: AuditNote<Void>?

    package init(factor: FactorRecord, sessionTokenID: [UInt8], consumedUntil: Int64, epoch: Int64,
                 maxFactors: Int64?, replaces: Bool,
                 write: @escaping @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void,
                 admit: @escaping @Sendable ([FactorRecord]) throws(MFAError) -> Void, nowMs: Int64) {
        self.factor = factor
        self.sessionTokenID = sessionTokenID
        self.consumedUntil = consumedUntil
        self.epoch = epoch
        self.maxFactors = maxFactors
        self.replaces = replaces
        self.write = write
        self.admit = admit
        self.nowMs = nowMs
    }
}

extension MFAStore {
    /// The factors of one user, oldest first.
    package func factors(tenant: String, uid: String) throws(MFAError) -> [FactorRecord] {
        try database.read { (db) throws(MFAError) in try Self.factors(db, tenant, uid) }
    }

    /// One factor by enrollment id.
    package func factor(enrollmentID: String) throws(MFAError) -> FactorRecord? {
        try database.read { (db) throws(MFAError) -> FactorRecord? in
            try db.query("SELECT \(FactorRecord.selectList) FROM mfa_factors f WHERE f.enrollment_id = ?",
                         [.text(enrollmentID)]).first.map { (row) throws(MFAError) in try FactorRecord(row: row) }
        }
    }

    /// Finishes an enrollment atomically: checks that the session is of the
    /// user's current epoch and consumes it, lets the kind use up what proved
    /// the factor and write its own rows, checks the factor limit, stores the
    /// factor (replacing the user's earlier one of its kind if asked) and
    /// revokes the user's earlier credentials and tokens.
    /// - Throws: `invalidSession` if the session or the proof was already
    ///   used; `userTokenExpired` if the user's tokens were revoked since the
    ///   session was minted; `secondFactorLimitExceeded` at the limit; what
    ///   the kind's `admit` and `write` throw.
    package func finishEnrollment(_ commit: EnrollmentCommit) throws(MFAError) {
        let factor = commit.factor
        try database.transaction { (db) throws(MFAError) in
            try Self.lockUser(db, factor.tenant, factor.uid, dialect)
            try Self.consume(db, commit.sessionTokenID, until: commit.consumedUntil, dialect)
            let existing = try Self.factors(db, factor.tenant, factor.uid)
            try commit.admit(existing)
            try Self.checkEpoch(db, factor.tenant, factor.uid, commit.epoch)
            if commit.replaces {
                for old in existing where old.factorID == factor.factorID {
                    try Self.delete(db, old)
                }
            }
            try commit.write(db, factor)
            try Self.insert(db, factor, maxFactors: commit.maxFactors)
            try Self.revokeTokens(db, factor.tenant, factor.uid, commit.nowMs, dialect)
            try commit.audit?.record(db, dialect)
        }
    }

    /// Stores an imported factor (no session, no revocation), within the
    /// user's factor limit; `write` stores the kind's own rows.
    /// - Throws: `secondFactorLimitExceeded` at the limit.
    package func insertFactor(_ factor: FactorRecord, maxFactors: Int64?, audit: AuditNote<Void>? = nil,
                              write: (SQLConnection, FactorRecord) throws(MFAError) -> Void) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try Self.lockUser(db, factor.tenant, factor.uid, dialect)
            try write(db, factor)
            try Self.insert(db, factor, maxFactors: maxFactors)
            try audit?.record(db, dialect)
        }
    }

    /// Removes a factor and its kind's rows, and revokes the user's earlier
    /// credentials and tokens; the user's last factor takes the user's
    /// remembered devices with it. `audit`'s events, built from what was
    /// removed, are stored in the same transaction.
    /// - Returns: the removed factor and the ids of the devices forgotten,
    ///   or nil if the user has no factor with this id.
    package func deleteFactor(tenant: String, uid: String, enrollmentID: String, nowMs: Int64,
                              audit: AuditNote<FactorRemoval>? = nil) throws(MFAError) -> FactorRemoval? {
        try database.transaction { (db) throws(MFAError) -> FactorRemoval? in
            try Self.lockUser(db, tenant, uid, dialect)
            guard let row = try db.query("""
                SELECT \(FactorRecord.selectList) FROM mfa_factors f \
                WHERE f.enrollment_id = ? AND f.tenant = ? AND f.uid = ?
                """, [.text(enrollmentID), .text(tenant), .text(uid)]).first else { return nil }
            let factor = try FactorRecord(row: row)
            try Self.delete(db, factor)
            try Self.revokeTokens(db, tenant, uid, nowMs, dialect)
            let removal: FactorRemoval = (factor, try DeviceStore.deleteIfNoFactor(db, tenant, uid))
            try audit?.record(db, removal, dialect)
            return removal
        }
    }

    static func factors(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> [FactorRecord] {
        var out: [FactorRecord] = []
        for row in try db.query("""
            SELECT \(FactorRecord.selectList) FROM mfa_factors f WHERE f.tenant = ? AND f.uid = ?
            """, [.text(tenant), .text(uid)]) {
            out.append(try FactorRecord(row: row))
        }
        return out.sorted(by: FactorRecord.enrollmentOrder)
    }

    /// Deletes a factor's row and its kind's own rows, and the last step (and
    /// drift) a kind that claims steps (`SecondFactor.claimsSteps`) recorded
    /// in the user's row. The caller holds the user's row lock (every caller
    /// does: the user's row is read, then written).
    static func delete(_ db: SQLConnection, _ factor: FactorRecord) throws(MFAError) {
        let kind = FactorRegistry.kind(factor.factorID)
        for table in kind?.stateTables ?? [] {
            try db.execute("DELETE FROM \(table) WHERE enrollment_id = ?", [.text(factor.enrollmentID)])
        }
        try db.execute("DELETE FROM mfa_factors WHERE enrollment_id = ?", [.text(factor.enrollmentID)])
        if kind?.claimsSteps == true,
           let row = try db.query("SELECT consumed FROM mfa_users WHERE tenant = ? AND uid = ?",
                                  [.text(factor.tenant), .text(factor.uid)]).first, let column = row.first {
            let recorded = try ConsumedTokens(column)
            let key = UsedStep.key(factor.enrollmentID)
            let driftKey = UsedStep.driftKey(factor.enrollmentID)
            guard recorded.lastStep(key) != nil || recorded.lastStep(driftKey) != nil else { return }
            try db.execute("UPDATE mfa_users SET consumed = ? WHERE tenant = ? AND uid = ?",
                           [.blob(recorded.removingStep(key, [driftKey])), .text(factor.tenant), .text(factor.uid)])
        }
    }

    /// Inserts a factor unless the user already has `maxFactors` that count (nil: no limit).
    static func insert(_ db: SQLConnection, _ factor: FactorRecord, maxFactors: Int64?) throws(MFAError) {
        if let maxFactors {
            let limited = FactorRegistry.limitedIDs
            let count = try db.query("""
                SELECT COUNT(*) FROM mfa_factors WHERE tenant = ? AND uid = ? \
                AND factor_id IN (\(placeholders(limited.count)))
                """, [.text(factor.tenant), .text(factor.uid)] + limited.map(SQLValue.text)).first?.first?.int ?? 0
            guard count < maxFactors else {
                throw MFAError(.secondFactorLimitExceeded, "a user may have at most \(maxFactors) second factors")
            }
        }
        try insert(db, [factor])
    }
}
