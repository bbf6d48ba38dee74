/// The store side of the admin API: listing, counting and removing what is
/// stored about users, without a user's sign-in.
extension MFAStore {
    /// One page of the users that have factors, ordered by tenant then uid,
    /// strictly after `after` (a tenant and uid), with their factor counts
    /// per kind.
    /// - Parameters:
    ///   - tenant: only this tenant ("" for the project), or nil for every tenant.
    ///   - factorID: only users with a factor of this kind, or nil.
    ///   - after: the last user of the previous page, or nil for the first.
    ///   - limit: at most this many users.
    package func users(tenant: String?, factorID: String?, after: (tenant: String, uid: String)?,
                       limit: Int) throws(MFAError) -> [(tenant: String, uid: String, kinds: [(String, Int64)])] {
        try database.read { (db) throws(MFAError) in
            var conditions: [String] = []
            var parameters: [SQLValue] = []
            if let tenant {
                conditions.append("tenant = ?")
                parameters.append(.text(tenant))
            }
            if let factorID {
                conditions.append("factor_id = ?")
                parameters.append(.text(factorID))
            }
            if let after {
                conditions.append("(tenant > ? OR (tenant = ? AND uid > ?))")
                parameters += [.text(after.tenant), .text(after.tenant), .text(after.uid)]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            var page: [(tenant: String, uid: String, kinds: [(String, Int64)])] = []
            for row in try db.query("""
                SELECT DISTINCT tenant, uid FROM mfa_factors \(filter) ORDER BY tenant, uid LIMIT ?
                """, parameters + [.int(Int64(limit))]) {
                guard row.count == 2, let tenant = row[0].text, let uid = row[1].text else {
                    throw MFAError(.storageError, "a stored factor is malformed")
                }
                page.append((tenant, uid, []))
            }
            guard let first = page.first, let last = page.last else { return [] }
            // Every kind of the page's users: one query over the page's range.
            var index: [String: Int] = [:]
            for (position, user) in page.enumerated() { index[Self.pageKey(user.tenant, user.uid)] = position }
            for row in try db.query("""
                SELECT tenant, uid, factor_id, COUNT(*) FROM mfa_factors \
                WHERE (tenant > ? OR (tenant = ? AND uid >= ?)) AND (tenant < ? OR (tenant = ? AND uid <= ?)) \
                GROUP BY tenant, uid, factor_id ORDER BY tenant, uid, factor_id
                """, [.text(first.tenant), .text(first.tenant), .text(first.uid),
                      .text(last.tenant), .text(last.tenant), .text(last.uid)]) {
                guard row.count == 4, let tenant = row[0].text, let uid = row[1].text, let kind = row[2].text,
                      let count = row[3].int else {
                    throw MFAError(.storageError, "a stored factor is malformed")
                }
                if let position = index[Self.pageKey(tenant, uid)] { page[position].kinds.append((kind, count)) }
            }
            return page
        }
    }

    /// Factors and users per tenant and kind: `(tenant, factorID, factors, users)`.
    package func factorCounts() throws(MFAError) -> [(tenant: String, factorID: String, factors: Int64, users: Int64)] {
        try database.read { (db) throws(MFAError) in
            try db.query("""
                SELECT tenant, factor_id, COUNT(*), COUNT(DISTINCT uid) FROM mfa_factors \
                GROUP BY tenant, factor_id ORDER BY tenant, factor_id
                """, []).map { (row) throws(MFAError) in
                guard row.count == 4, let tenant = row[0].text, let kind = row[1].text, let factors = row[2].int,
                      let users = row[3].int else { throw MFAError(.storageError, "a stored factor is malformed") }
                return (tenant, kind, factors, users)
            }
        }
    }

    /// Users with at least one factor, per tenant.
    package func userCounts() throws(MFAError) -> [(tenant: String, users: Int64)] {
        try database.read { (db) throws(MFAError) in
            try db.query("""
                SELECT tenant, COUNT(DISTINCT uid) FROM mfa_factors GROUP BY tenant ORDER BY tenant
                """, []).map { (row) throws(MFAError) in
                guard row.count == 2, let tenant = row[0].text, let users = row[1].int else {
                    throw MFAError(.storageError, "a stored factor is malformed")
                }
                return (tenant, users)
            }
        }
    }

    /// Changes a factor's display name (nil removes it).
    /// - Returns: the factor as it is now, or nil if no factor has this id.
    package func renameFactor(enrollmentID: String, displayName: String?,
                              audit: AuditNote<FactorRecord>? = nil) throws(MFAError) -> FactorRecord? {
        try database.transaction { (db) throws(MFAError) -> FactorRecord? in
            guard try db.execute("UPDATE mfa_factors SET display_name = ? WHERE enrollment_id = ?",
                                 [displayName.map(SQLValue.text) ?? .null, .text(enrollmentID)]) == 1 else {
                return nil
            }
            let record = try db.query("SELECT \(FactorRecord.selectList) FROM mfa_factors f WHERE f.enrollment_id = ?",
                                      [.text(enrollmentID)]).first.map { (row) throws(MFAError) in
                try FactorRecord(row: row)
            }
            if let audit, let record { try audit.record(db, record, dialect) }
            return record
        }
    }

    /// Removes every factor of a user (and their kinds' rows, the user's
    /// pending TOTP secrets and sent codes, the user's remembered devices),
    /// clears the user's backoff and revokes the user's tokens, in one
    /// transaction (with `audit`'s events, built from what was removed).
    /// - Returns: the removed factors and forgotten devices, or nil (and
    ///   nothing written) if the user has neither a factor nor an enrollment,
    ///   a sent code or a remembered device (a uid never seen, a user deleted,
    ///   or reset with nothing since).
    package func resetUser(tenant: String, uid: String, nowMs: Int64,
                           audit: AuditNote<UserRemoval>? = nil) throws(MFAError) -> UserRemoval? {
        try database.transaction { (db) throws(MFAError) -> UserRemoval? in
            _ = try Self.lockStoredUser(db, tenant, uid, dialect)
            let factors = try Self.factors(db, tenant, uid)
            for factor in factors { try Self.delete(db, factor) }
            let inFlight = try Self.deleteInFlight(db, tenant, uid)
            let devices = try DeviceStore.deleteAll(db, tenant, uid)
            // No factor, nothing in flight, no device: nothing was deleted, and nothing is written.
            guard inFlight > 0 || !factors.isEmpty || !devices.isEmpty else { return nil }
            try Self.revokeTokens(db, tenant, uid, nowMs, dialect)
            try db.execute("""
                UPDATE mfa_users SET failures = 0, last_failure_at = 0, locked_until = 0 WHERE tenant = ? AND uid = ?
                """, [.text(tenant), .text(uid)])
            try audit?.record(db, (factors, devices), dialect)
            return (factors, devices)
        }
    }

    /// Deletes everything stored about a user: factors and their kinds'
    /// rows, pending secrets, sent codes and the user's send records,
    /// remembered devices, and
    /// the user's record, keeping only a revocation marker (tenant, uid,
    /// epoch, time) so that tokens issued before stay refused.
    /// - Returns: the removed factors, the forgotten devices, and whether
    ///   anything was stored beyond such a marker (if not, nothing was
    ///   written: a second delete finds nothing).
    package func deleteUser(tenant: String, uid: String, nowMs: Int64, audit: AuditNote<UserRemoval>? = nil)
        throws(MFAError) -> (factors: [FactorRecord], devices: [String], found: Bool) {
        try database.transaction { (db) throws(MFAError) in
            _ = try Self.lockStoredUser(db, tenant, uid, dialect)
            let factors = try Self.factors(db, tenant, uid)
            var removed = 0
            for channel in SentCodeChannel.all {
                for factor in factors {
                    try db.execute("DELETE FROM \(channel.sends) WHERE scope = ?",
                                   [.text(SentCodeChannel.factorScope(factor.enrollmentID))])
                }
                removed += try db.execute("DELETE FROM \(channel.sends) WHERE scope = ?",
                                          [.text(SentCodeChannel.userScope(tenant: tenant, uid: uid))])
            }
            for factor in factors { try Self.delete(db, factor) }
            removed += try Self.deleteInFlight(db, tenant, uid)
            let devices = try DeviceStore.deleteAll(db, tenant, uid)
            removed += devices.count
            let user = try Self.user(db, tenant, uid)
            // A row that holds a revocation and nothing more (what a delete or a
            // reset leaves) is no data of the user's: it is neither deleted nor counted.
            removed += try db.query(Self.userDataSQL, [.text(tenant), .text(uid)]).count
            let found = !factors.isEmpty || removed > 0
            if found {
                try db.execute("DELETE FROM mfa_users WHERE tenant = ? AND uid = ?", [.text(tenant), .text(uid)])
                try db.execute("INSERT INTO mfa_users (tenant, uid, token_epoch, revoked_at_ms) VALUES (?, ?, ?, ?)",
                               [.text(tenant), .text(uid), .int(user.tokenEpoch + 1),
                                .int(max(nowMs, user.revokedAtMs ?? nowMs))])
                try audit?.record(db, (factors, devices), dialect)
            }
            return (factors, devices, found)
        }
    }

    /// A row if the user's row holds more than a revocation (parameters: tenant, uid).
    private static let userDataSQL = """
        SELECT 1 FROM mfa_users WHERE tenant = ? AND uid = ? AND (last_second_factor_at <> 0 OR failures <> 0 \
        OR last_failure_at <> 0 OR locked_until <> 0 OR consumed IS NOT NULL)
        """

    /// A user's key in a page's index.
    private static func pageKey(_ tenant: String, _ uid: String) -> String { tenant + "\u{1f}" + uid }

    /// Deletes a user's pending TOTP secrets and sent codes (SMS, email).
    @discardableResult
    static func deleteInFlight(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> Int {
        var removed = try db.execute("DELETE FROM mfa_pending WHERE tenant = ? AND uid = ?", [.text(tenant), .text(uid)])
        for channel in SentCodeChannel.all {
            removed += try db.execute("DELETE FROM \(channel.verifications) WHERE tenant = ? AND uid = ?",
                                      [.text(tenant), .text(uid)])
        }
        return removed
    }

    /// How many sealed values are not under `keyID`, over every sealed table.
    package func sealedCount(notUnder keyID: String) throws(MFAError) -> Int64 {
        try database.read { (db) throws(MFAError) in
            var total: Int64 = 0
            for table in Self.sealedTables {
                total += try db.query("SELECT COUNT(*) FROM \(table.table) WHERE key_id <> ?",
                                      [.text(keyID)]).first?.first?.int ?? 0
            }
            return total
        }
    }

    /// Sealed values of one table, ordered by id, after `after`, not under
    /// `keyID` (nil: every value), at most `limit`. Factors are those of the
    /// current seal format, or with `everyFormat` those of any format (each
    /// row's `format` says which).
    package func sealedRecords(in table: SealedTable, notUnder keyID: String?, after: String,
                               limit: Int, everyFormat: Bool = false) throws(MFAError) -> [SealedRow] {
        try database.read { (db) throws(MFAError) in
            let kind = table.kindColumn ?? "'\(table.kind)'"
            let format = table == .factors ? "seal_format" : "\(FactorRecord.currentSealFormat)"
            var conditions = ["\(table.idColumn) > ?"]
            var parameters: [SQLValue] = [.text(after)]
            if let keyID {
                conditions.append("key_id <> ?")
                parameters.append(.text(keyID))
            }
            if table == .factors && !everyFormat {
                conditions.append("seal_format = \(FactorRecord.currentSealFormat)")
            }
            return try db.query("""
                SELECT \(table.idColumn), key_id, sealed, tenant, uid, \(kind), \(format) FROM \(table.table) \
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(table.idColumn) LIMIT ?
                """, parameters + [.int(Int64(limit))]).map { (row) throws(MFAError) in
                try Self.sealedRow(row, table)
            }
        }
    }

    /// A row of `SELECT id, key_id, sealed, tenant, uid, kind, format` on a sealed table.
    static func sealedRow(_ row: SQLRow, _ table: SealedTable) throws(MFAError) -> SealedRow {
        guard row.count == 7, let id = row[0].text, let key = row[1].text, let sealed = row[2].blob,
              let tenant = row[3].text, let uid = row[4].text, let kind = row[5].text, let format = row[6].int else {
            throw MFAError(.storageError, "a sealed record is malformed")
        }
        return SealedRow(table: table, id: id, keyID: key, sealed: sealed, binding: SealBinding(
            record: table.record, kind: kind, tenant: tenant, uid: uid, id: id), format: format)
    }
}
