extension MFAStore {
    /// The user's record (defaults if the store has none).
    package func user(tenant: String, uid: String) throws(MFAError) -> UserRecord {
        try database.read { (db) throws(MFAError) in try Self.user(db, tenant, uid) }
    }

    /// Whether a single-use token was consumed (recorded in `mfa_consumed`
    /// or in the user's row), and the user's revocation epoch, in one read.
    package func tokenState(tokenID: [UInt8], tenant: String, uid: String) throws(MFAError)
        -> (consumed: Bool, epoch: Int64) {
        try database.read { (db) throws(MFAError) in
            guard let row = try db.query("""
                SELECT (SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), u.token_epoch, u.consumed \
                FROM (SELECT 1 AS one) o LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ?
                """, [.blob(tokenID), .text(tenant), .text(uid)]).first, row.count == 3,
                let count = row[0].int, row[1].int != nil || row[1] == .null else {
                throw MFAError(.storageError, "the token state query returned no row")
            }
            let recorded = try ConsumedTokens(row[2])
            return (count > 0 || recorded.contains(tokenID), row[1].int ?? 0)
        }
    }

    /// Revokes the user's credentials and libmfa tokens: moves the epoch on
    /// and records the time (ms), and forgets the user's remembered devices,
    /// in one transaction (with `audit`'s events, built from the devices forgotten).
    /// - Returns: the ids of the devices forgotten.
    @discardableResult
    package func revokeTokens(tenant: String, uid: String, nowMs: Int64,
                              audit: AuditNote<[String]>? = nil) throws(MFAError) -> [String] {
        try database.transaction { (db) throws(MFAError) -> [String] in
            // The upsert takes the user's row lock itself.
            try Self.revokeTokens(db, tenant, uid, nowMs, dialect)
            let forgotten = try DeviceStore.deleteAll(db, tenant, uid)
            try audit?.record(db, forgotten, dialect)
            return forgotten
        }
    }

    /// Deletes consumed-token records, pending secrets and sent codes (SMS,
    /// email) past their deadline, send records older than a day, and
    /// remembered devices past their expiry.
    package func purgeExpired(now: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute("DELETE FROM mfa_consumed WHERE expires < ?", [.int(now)])
            try db.execute("DELETE FROM mfa_pending WHERE deadline < ?", [.int(now)])
            for channel in SentCodeChannel.all { try channel.purge(db, now: now) }
            try db.execute("DELETE FROM \(DeviceStore.table) WHERE expires_at <= ?", [.int(now)])
        }
    }

    /// Takes the user's row lock until the transaction ends, creating the
    /// user's row if there is none: every write of a user's factors,
    /// backoff and credentials holds it first, so they run one after
    /// another (one statement; on SQLite the write transaction already
    /// holds the whole database).
    static func lockUser(_ db: SQLConnection, _ tenant: String, _ uid: String,
                         _ dialect: any SQLDialect) throws(MFAError) {
        try db.execute(dialect.rowLock.isEmpty ? insertUserSQL : lockUserSQL, [.text(tenant), .text(uid)])
    }

    /// Locks the user's row if the store has one, creating none, and says
    /// whether it had one (admin calls that must not leave a row behind for
    /// a user they do not find; on SQLite the write transaction already
    /// holds the whole database).
    static func lockStoredUser(_ db: SQLConnection, _ tenant: String, _ uid: String,
                               _ dialect: any SQLDialect) throws(MFAError) -> Bool {
        try !db.query("SELECT 1 FROM mfa_users WHERE tenant = ? AND uid = ?" + dialect.rowLock,
                      [.text(tenant), .text(uid)]).isEmpty
    }

    private static let insertUserSQL = usersUpsertSQL(rows: 1, locking: false)
    private static let lockUserSQL = usersUpsertSQL(rows: 1, locking: true)

    /// The users' rows of `rows` (tenant, uid) pairs created where missing;
    /// with `locking`, an upsert that changes nothing but locks each row (a
    /// row lock is all CockroachDB and YugabyteDB offer; no advisory locks).
    static func usersUpsertSQL(rows: Int, locking: Bool) -> String {
        "INSERT INTO mfa_users (tenant, uid) VALUES \(rowPlaceholders(rows, columns: 2)) ON CONFLICT (tenant, uid) "
            + (locking ? "DO UPDATE SET failures = mfa_users.failures" : "DO NOTHING")
    }

    static let userColumns = "revoked_at_ms, token_epoch, last_second_factor_at, locked_until"

    static func user(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> UserRecord {
        guard let row = try db.query("SELECT \(userColumns) FROM mfa_users WHERE tenant = ? AND uid = ?",
                                     [.text(tenant), .text(uid)]).first else { return UserRecord() }
        return try userRecord(row)
    }

    /// Reads the four `userColumns` (all NULL when the user has no row).
    static func userRecord(_ row: [SQLValue]) throws(MFAError) -> UserRecord {
        try userRecord(row[...])
    }

    /// Reads the four `userColumns` from a part of a longer row.
    static func userRecord(_ row: ArraySlice<SQLValue>) throws(MFAError) -> UserRecord {
        guard row.count == 4 else { throw MFAError(.storageError, "a stored user is malformed") }
        return try userRecord(row, from: 0)
    }

    /// Reads the four `userColumns` that begin at `start` in a longer row
    /// (all NULL: the user has no row yet).
    static func userRecord(_ row: any SQLColumns, from start: Int) throws(MFAError) -> UserRecord {
        guard row.count - start >= 4 else { throw MFAError(.storageError, "a stored user is malformed") }
        let revoked = row.int(start)
        guard let epoch = row.int(start + 1) else {
            if (start..<start + 4).allSatisfy(row.isNull) { return UserRecord() }
            throw MFAError(.storageError, "a stored user is malformed")
        }
        guard revoked != nil || row.isNull(start), epoch >= 0, let last = row.int(start + 2),
              let locked = row.int(start + 3) else {
            throw MFAError(.storageError, "a stored user is malformed")
        }
        return UserRecord(revokedAtMs: revoked, tokenEpoch: epoch, lastSecondFactorAt: last, lockedUntil: locked)
    }

    /// Records a single-use token as consumed until `until`; throws
    /// `invalidSession` if it already was.
    static func consume(_ db: SQLConnection, _ tokenID: [UInt8], until: Int64,
                        _ dialect: any SQLDialect) throws(MFAError) {
        let inserted = try db.execute(consumeSQL, [.blob(tokenID), .int(until)])
        guard inserted == 1 else { throw MFAError(.invalidSession, "this session was already used") }
    }

    private static let consumeSQL =
        "INSERT INTO mfa_consumed (token_id, expires) VALUES (?, ?) ON CONFLICT (token_id) DO NOTHING"

    /// Throws `userTokenExpired` unless `epoch` is the user's current one
    /// (read inside the caller's transaction, under the user's lock).
    static func checkEpoch(_ db: SQLConnection, _ tenant: String, _ uid: String,
                           _ epoch: Int64) throws(MFAError) {
        let current = try user(db, tenant, uid).tokenEpoch
        guard epoch == current else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this one was issued")
        }
    }

    static func revokeTokens(_ db: SQLConnection, _ tenant: String, _ uid: String, _ nowMs: Int64,
                             _ dialect: any SQLDialect) throws(MFAError) {
        try db.execute(dialect.upsert(
            into: "mfa_users", columns: ["tenant", "uid", "token_epoch", "revoked_at_ms"], conflict: ["tenant", "uid"],
            update: [
                .expression("token_epoch", "mfa_users.token_epoch + 1"),
                .expression("revoked_at_ms", """
                    CASE WHEN mfa_users.revoked_at_ms IS NULL OR \(dialect.proposed("revoked_at_ms")) > \
                    mfa_users.revoked_at_ms THEN \(dialect.proposed("revoked_at_ms")) ELSE mfa_users.revoked_at_ms END
                    """),
            ]), [.text(tenant), .text(uid), .int(1), .int(nowMs)])
    }
}
