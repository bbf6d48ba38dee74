/// The attempt to run in `MFAStore.resolveAttempt`.
package struct AttemptRequest: Sendable {
    /// The factor, when the assertion names it.
    package var enrollmentID: String?
    package var tenant: String
    package var uid: String
    /// The pending credential to consume on success.
    package var tokenID: [UInt8]
    package var now: Int64

    package init(enrollmentID: String?, tenant: String, uid: String, tokenID: [UInt8], now: Int64) {
        self.enrollmentID = enrollmentID
        self.tenant = tenant
        self.uid = uid
        self.tokenID = tokenID
        self.now = now
    }
}

/// What the engine decided about an attempt.
package enum AttemptDecision: Sendable {
    /// The code was wrong: count a failure under these limits.
    case wrong(MFALimits)
    /// The code was right (and the factor used up what it proved): consume
    /// the pending credential, recorded until this time.
    case accept(consumedUntil: Int64)
}

extension MFAStore {
    /// Everything a first-factor sign-in needs in one read: the user's
    /// factors, the user's record and the configuration documents.
    package func signInSnapshot(tenant: String, uid: String) throws(MFAError)
        -> (factors: [FactorRecord], user: UserRecord, documents: ConfigDocuments) {
        try database.read { (db) throws(MFAError) in
            // One statement: the documents and the user as a single row, the factors joined to it.
            let rows = try db.query("""
                SELECT d.project, d.tenant_document, u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, \
                u.locked_until, \(FactorRecord.selectList) FROM (SELECT \
                (SELECT document FROM mfa_config WHERE tenant = '') AS project, \
                (SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> '') AS tenant_document) d \
                LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? \
                LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ? ORDER BY f.enrolled_at, f.enrollment_id
                """, [.text(tenant), .text(tenant), .text(uid), .text(tenant), .text(uid)])
            var factors: [FactorRecord] = []
            for row in rows where row[6] != .null { factors.append(try FactorRecord(row: row.dropFirst(6))) }
            guard let first = rows.first else { throw MFAError(.storageError, "the sign-in query returned no row") }
            let documents = ConfigDocuments(project: first[0].text, tenant: first[1].text)
            return (factors, try Self.userRecord(first[2..<6]), documents)
        }
    }

    /// What an attempt would find, read without a transaction (to check a
    /// request before acting on it; the attempt itself checks again).
    package func attemptSnapshot(enrollmentID: String, tenant: String, uid: String,
                                 tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        try database.read { (db) throws(MFAError) in
            try Self.attemptView(db, enrollmentID: enrollmentID, tenant: tenant, uid: uid, tokenID: tokenID)
        }
    }

    /// One second-factor attempt, as one transaction. `locate` finds the
    /// factor when the request does not name it; `decide` sees the factor,
    /// the user, the pending credential's state and the configuration
    /// documents, judges the code (using up what it accepts) and decides; it
    /// throws to refuse the attempt without counting it. On `.wrong` the
    /// failure is counted and committed; on `.accept` the pending credential
    /// is consumed and the failure counters cleared. Because the backoff
    /// check, the comparison and the bookkeeping share one transaction,
    /// attempts racing from many threads, processes or servers are strictly
    /// ordered: a code is accepted once, and once the free attempts are used,
    /// every racing guess meets the backoff of the one before it.
    /// - Returns: nil when the attempt was accepted, else the failure's outcome.
    package func resolveAttempt(_ request: AttemptRequest,
                                locate: ((SQLConnection) throws(MFAError) -> String?)?,
                                decide: (AttemptView, SQLConnection) throws(MFAError) -> AttemptDecision)
        throws(MFAError) -> FailureOutcome? {
        try database.transaction { (db) throws(MFAError) -> FailureOutcome? in
            try db.serialize(Self.userKey(request.tenant, request.uid))
            var located = request.enrollmentID
            if located == nil, let locate { located = try locate(db) }
            guard let enrollmentID = located else {
                throw MFAError(.invalidSession, "the verification id is unknown or expired")
            }
            let view = try Self.attemptView(db, enrollmentID: enrollmentID, tenant: request.tenant,
                                            uid: request.uid, tokenID: request.tokenID)
            switch try decide(view, db) {
            case .wrong(let limits):
                return try Self.countFailure(db, enrollmentID: enrollmentID, tenant: request.tenant,
                                             uid: request.uid, now: request.now, limits: limits, dialect)
            case .accept(let consumedUntil):
                try db.execute("UPDATE mfa_factors SET failures = 0, locked_until = 0 WHERE enrollment_id = ?",
                               [.text(enrollmentID)])
                try Self.consume(db, request.tokenID, until: consumedUntil, dialect)
                try db.execute(dialect.upsert(
                    into: "mfa_users", columns: ["tenant", "uid", "last_second_factor_at"], conflict: ["tenant", "uid"],
                    update: [.proposed("last_second_factor_at"), .expression("failures", "0"),
                             .expression("locked_until", "0")]),
                    [.text(request.tenant), .text(request.uid), .int(request.now)])
                return nil
            }
        }
    }

    /// The factor, the user, the credential's state and the documents of an
    /// attempt, in one statement (one round trip on a networked store).
    static func attemptView(_ db: SQLConnection, enrollmentID: String, tenant: String, uid: String,
                            tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        guard let row = try db.query("""
            SELECT u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, u.locked_until, \
            (SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), \
            (SELECT document FROM mfa_config WHERE tenant = ''), \
            (SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> ''), \(FactorRecord.selectList) \
            FROM (SELECT 1 AS one) o LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? \
            LEFT JOIN mfa_factors f ON f.enrollment_id = ?
            """, [.blob(tokenID), .text(tenant), .text(tenant), .text(uid), .text(enrollmentID)]).first,
            row.count == 7 + FactorRecord.storedColumns.count + 1 else {
            throw MFAError(.storageError, "the attempt query returned no row")
        }
        guard let consumed = row[4].int else { throw MFAError(.storageError, "the attempt query is malformed") }
        return AttemptView(
            factor: row[7] == .null ? nil : try FactorRecord(row: row.dropFirst(7)),
            user: try userRecord(row[0..<4]), consumed: consumed > 0,
            documents: ConfigDocuments(project: row[5].text, tenant: row[6].text))
    }

    /// Counts a failed second-factor attempt against the factor and the user,
    /// and starts or lengthens their backoff once the free attempts are used.
    static func countFailure(_ db: SQLConnection, enrollmentID: String, tenant: String, uid: String,
                             now: Int64, limits: MFALimits, _ dialect: any SQLDialect) throws(MFAError)
        -> FailureOutcome {
        var outcome = FailureOutcome(lockedUntil: 0, startedBackoff: false)
        if let row = try db.query("SELECT failures, last_failure_at FROM mfa_factors WHERE enrollment_id = ?",
                                  [.text(enrollmentID)]).first {
            let (failures, until) = Backoff.next(failures: try counter(row[0]), lastFailure: try counter(row[1]),
                                                 now: now, limits: limits)
            try db.execute("""
                UPDATE mfa_factors SET failures = ?, last_failure_at = ?, locked_until = ? WHERE enrollment_id = ?
                """, [.int(failures), .int(now), .int(until), .text(enrollmentID)])
            outcome.merge(until)
        }
        try db.execute(dialect.upsert(into: "mfa_users", columns: ["tenant", "uid"], conflict: ["tenant", "uid"],
                                      update: []), [.text(tenant), .text(uid)])
        let row = try db.query("SELECT failures, last_failure_at FROM mfa_users WHERE tenant = ? AND uid = ?",
                               [.text(tenant), .text(uid)]).first
        let (failures, until) = Backoff.next(failures: try counter(row?[0] ?? .int(0)),
                                             lastFailure: try counter(row?[1] ?? .int(0)), now: now, limits: limits)
        try db.execute("""
            UPDATE mfa_users SET failures = ?, last_failure_at = ?, locked_until = ? WHERE tenant = ? AND uid = ?
            """, [.int(failures), .int(now), .int(until), .text(tenant), .text(uid)])
        outcome.merge(until)
        return outcome
    }

    /// An integer column of the backoff bookkeeping.
    private static func counter(_ value: SQLValue) throws(MFAError) -> Int64 {
        guard let number = value.int else { throw MFAError(.storageError, "a stored failure count is malformed") }
        return number
    }
}
