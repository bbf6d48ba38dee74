/// The attempt to run in `MFAStore.resolveAttempt`.
package struct AttemptRequest: Sendable {
    /// The factor, when the assertion names it.
    package var enrollmentID: String?
    package var tenant: String
    package var uid: String
    /// The pending credential to consume on success.
    package var tokenID: [UInt8]
    /// The revocation epoch the pending credential was minted in.
    package var epoch: Int64
    package var now: Int64

    package init(enrollmentID: String?, tenant: String, uid: String, tokenID: [UInt8], epoch: Int64 = 0,
                 now: Int64) {
        self.enrollmentID = enrollmentID
        self.tenant = tenant
        self.uid = uid
        self.tokenID = tokenID
        self.epoch = epoch
        self.now = now
    }
}

/// What the engine decided about an attempt, from what it read.
package enum AttemptDecision: Sendable {
    /// The code was wrong: count a failure under these limits (after the
    /// kind's own `penalty`, if any).
    case wrong(MFALimits, penalty: FactorClaim?)
    /// The code is right if `claim` holds: then consume the pending
    /// credential, recorded until this time; if it does not, `claim.missed` says what follows.
    case accept(consumedUntil: Int64, limits: MFALimits, claim: FactorClaim)
}

/// How an attempt ended, when it was not refused.
package enum AttemptResult: Sendable, Equatable {
    /// The code was accepted.
    case accepted
    /// The code was wrong; the failure was counted.
    case failed(FailureOutcome, message: String?)
}

extension MFAStore {
    /// Everything a first-factor sign-in needs in one read: the user's
    /// factors, the user's record and the configuration documents; and for
    /// each factor in the OATH columns (TOTP, HOTP), the view its attempt
    /// would read (for `memo`).
    package func signInSnapshot(tenant: String, uid: String) throws(MFAError)
        -> (factors: [FactorRecord], user: UserRecord, documents: ConfigDocuments, views: [AttemptView]) {
        try database.read { (db) throws(MFAError) in
            // One statement: the documents and the user as a single row, the factors joined to it.
            let project = tenant.isEmpty
            // The layout: the documents (the tenant's only for a tenant's user), the user,
            // the factor, the user's used-up column and failures, the factor's failures, TOTP's columns.
            let user = project ? 1 : 2
            let factor = user + 4
            let extras = factor + FactorRecord.ownedColumns.count
            let totp = extras + 4
            var first: (documents: ConfigDocuments, user: UserRecord)?
            var factors: [FactorRecord] = []
            var views: [AttemptView] = []
            // Each row read where it is (`scan`): no row is built.
            try db.scan(project ? Self.projectSignInSQL : Self.tenantSignInSQL,
                        project ? [.text(tenant), .text(uid), .text(tenant), .text(uid)]
                                : [.text(tenant), .text(tenant), .text(uid), .text(tenant), .text(uid)]) {
                (row) throws(MFAError) in
                guard row.count == totp + TOTPFactor.attemptColumns.count else {
                    throw MFAError(.storageError, "the sign-in query returned no row")
                }
                let (documents, record): (ConfigDocuments, UserRecord)
                if let first {
                    (documents, record) = first
                } else {
                    documents = ConfigDocuments(project: row.text(0), tenant: project ? nil : row.text(1))
                    record = try Self.userRecord(row, from: user)
                    first = (documents, record)
                }
                guard !row.isNull(factor) else { return }
                let found = try FactorRecord(owned: row, from: factor, tenant: tenant, uid: uid)
                factors.append(found)
                guard Self.oathKinds.contains(found.factorID),
                      let failures = row.int(extras + 3), let userFailures = row.int(extras + 1),
                      let lastFailure = row.int(extras + 2),
                      let recorded = try? ConsumedTokens(row.value(extras)) else { return }
                views.append(AttemptView(
                    factor: found, user: record, consumed: false, consumedTokens: recorded, documents: documents,
                    state: row.values(from: totp), userStored: true, factorFailures: failures,
                    userFailures: (userFailures, lastFailure)))
            }
            guard let first else { throw MFAError(.storageError, "the sign-in query returned no row") }
            try Self.summarize(db, &factors)
            factors.sort(by: FactorRecord.enrollmentOrder)
            return (factors, first.user, first.documents, views)
        }
    }

    /// The kinds whose attempt reads what the sign-in read holds: the OATH
    /// columns of the factor's row, and nothing joined to it.
    private static let oathKinds: Set<String> = Set(FactorRegistry.all.filter {
        $0.columnKind == TOTPFactor.id && $0.attemptColumns == TOTPFactor.attemptColumns && $0.attemptJoin.isEmpty
    }.map { $0.id })

    /// The sign-in read of a project's user (parameters: tenant, uid, tenant, uid).
    private static let projectSignInSQL = signInSQL(tenantDocument: nil)
    /// The sign-in read of a tenant's user (parameters: tenant, tenant, uid, tenant, uid).
    private static let tenantSignInSQL =
        signInSQL(tenantDocument: "(SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> '')")

    /// The sign-in read: no column it could do without (the factors' owner
    /// is the user read, a project's user has no tenant document), as each
    /// column a statement returns costs PostgreSQL its setup on every execution.
    private static func signInSQL(tenantDocument: String?) -> String {
        """
        SELECT d.project, \(tenantDocument == nil ? "" : "d.tenant_document, ")u.revoked_at_ms, u.token_epoch, \
        u.last_second_factor_at, u.locked_until, \(FactorRecord.ownedSelectList), u.consumed, u.failures, \
        u.last_failure_at, f.failures, \(TOTPFactor.attemptColumns.joined(separator: ", ")) FROM (SELECT \
        (SELECT document FROM mfa_config WHERE tenant = '') AS project\
        \(tenantDocument.map { ", \($0) AS tenant_document" } ?? "")) d \
        LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? \
        LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ? \(TOTPFactor.attemptJoin)
        """
    }

    /// Reads the summaries of those of `factors` whose kind has one, in a
    /// second statement: the sign-in read leaves them out, so that a user
    /// whose factors have none (TOTP, SMS) costs no summary subqueries.
    private static func summarize(_ db: SQLConnection, _ factors: inout [FactorRecord]) throws(MFAError) {
        let wanted = factors.indices.filter { FactorRegistry.kind(factors[$0].factorID)?.summarySQL != nil }
        guard !wanted.isEmpty else { return }
        let ids = wanted.map { SQLValue.text(factors[$0].enrollmentID) }
        var summaries: [String: Int64] = [:]
        for row in try db.query("""
            SELECT f.enrollment_id, \(FactorRecord.summaryExpression) FROM mfa_factors f \
            WHERE f.enrollment_id IN (\(placeholders(ids.count)))
            """, ids) {
            guard row.count == 2, let id = row[0].text, row[1].int != nil || row[1] == .null else {
                throw MFAError(.storageError, "a stored factor's summary is malformed")
            }
            summaries[id] = row[1].int
        }
        for index in wanted { factors[index].summary = summaries[factors[index].enrollmentID] }
    }

    /// What an attempt would find, read without a transaction (to check a
    /// request before acting on it; the attempt itself checks again).
    package func attemptSnapshot(enrollmentID: String, tenant: String, uid: String,
                                 tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        try database.read { (db) throws(MFAError) in
            try Self.attemptView(db, kind: nil, enrollmentID: enrollmentID, tenant: tenant, uid: uid,
                                 tokenID: tokenID)
        }
    }

    /// One second-factor attempt. `locate` finds the factor when the
    /// request does not name it; `decide` sees the factor (with the kind's
    /// `attemptColumns`), the user, the pending credential's state and the
    /// configuration documents, judges the code and decides, touching no
    /// database; it throws to refuse the attempt without counting it.
    ///
    /// When this context minted the credential, the attempt first decides
    /// on what the sign-in read (`memo`): a TOTP code it accepts is recorded
    /// by one update of the user's row that checks everything again
    /// (`acceptRecorded`), on either store; anything else goes on below.
    ///
    /// Where statements can hold data-modifying CTEs (PostgreSQL and the
    /// databases of its dialect), the attempt first reads, then acts on the
    /// decision:
    /// - **Accepted, the fast way.** One statement, committed by itself,
    ///   checks again that no backoff runs, that the credential is unused
    ///   and of the user's epoch, runs the kind's claim, consumes the
    ///   credential and clears the failure counts (for a TOTP step, the
    ///   update of `acceptRecorded`; for other claims, a statement that
    ///   locks the user's and the factor's rows first). If it cannot (a
    ///   race changed something, the user has no row yet, the claim failed,
    ///   the user's row holds as many used credentials as it can), nothing
    ///   was written and the attempt goes the careful way.
    /// - **The careful way**, for every wrong code, and always on SQLite
    ///   (whose write transaction holds the whole database, so that a read
    ///   followed by a checking statement would cost more): one transaction
    ///   that takes the user's row lock first, reads everything, decides,
    ///   and then claims and does the bookkeeping, or counts the failure
    ///   (with the kind's penalty).
    ///
    /// Every write of a user's backoff, credentials and factors holds that
    /// user's row lock, so attempts racing from many threads, processes or
    /// servers are strictly ordered: a code is accepted once, and once the
    /// free attempts are used, every racing guess meets the backoff of the
    /// one before it.
    ///
    /// `audit`'s events are appended in the transaction that accepts the
    /// attempt or counts its failure (the fast ways then run as a
    /// transaction: the statement, then the append), if `decide` set its trail.
    package func resolveAttempt(_ request: AttemptRequest, kind: (any SecondFactor.Type)?,
                                locate: ((SQLConnection) throws(MFAError) -> String?)?,
                                audit: AuditNote<AttemptAudit>? = nil,
                                decide: (AttemptView) throws(MFAError) -> AttemptDecision) throws(MFAError)
        -> AttemptResult {
        // What the sign-in read, when this context minted the credential:
        // a right code then costs one write and no read.
        // A refusal on what may be stale goes on to read afresh.
        if let enrollmentID = request.enrollmentID,
           let view = memo.take(request.tokenID, enrollmentID: enrollmentID, now: request.now),
           kind?.id == view.factor?.factorID,
           let (claim, recorded) = Self.acceptance(try? decide(view), request, view), claim.shape == nil,
           try acceptRecorded(request, enrollmentID: enrollmentID, view: view, recorded: recorded, audit: audit) {
            return .accepted
        }
        // SQLite's write transaction holds the whole database: the careful way
        // costs it less than a read followed by the accepting statement.
        if dialect.writingCTEs {
            let first = try database.read { (db) throws(MFAError) -> (String, AttemptView) in
                let enrollmentID = try Self.locate(request, locate, db)
                return (enrollmentID, try Self.attemptView(db, kind: kind, enrollmentID: enrollmentID,
                                                           tenant: request.tenant, uid: request.uid,
                                                           tokenID: request.tokenID))
            }
            if let (claim, recorded) = Self.acceptance(try decide(first.1), request, first.1),
               try acceptFast(request, enrollmentID: first.0, view: first.1, claim: claim, recorded: recorded,
                              audit: audit) {
                return .accepted
            }
        }
        // Where a write transaction holds the whole database (SQLite), what the
        // attempt reads in it cannot change before it commits: the user's row
        // is created only if it is missing, and the factor's failure count
        // cleared only if it is not clear (each saves a statement).
        let wholeDatabase = dialect.rowLock.isEmpty
        return try database.transaction { (db) throws(MFAError) -> AttemptResult in
            if !wholeDatabase { try Self.lockUser(db, request.tenant, request.uid, dialect) }
            let enrollmentID = try Self.locate(request, locate, db)
            let view = try Self.attemptView(db, kind: kind, enrollmentID: enrollmentID, tenant: request.tenant,
                                            uid: request.uid, tokenID: request.tokenID)
            if wholeDatabase, !view.userStored { try Self.lockUser(db, request.tenant, request.uid, dialect) }
            let message: String?
            let limits: MFALimits
            switch try decide(view) {
            case .wrong(let wrongLimits, let penalty):
                if let penalty, try !penalty.run(db),
                   case .refuse(let error) = penalty.missed {
                    throw error
                }
                (message, limits) = (nil, wrongLimits)
            case .accept(let until, let acceptLimits, let claim):
                guard !view.consumed else { throw MFAError(.invalidSession, "the credential was already used") }
                if try claim.run(db, recorded: view.consumedTokens) {
                    if !wholeDatabase || !view.factorClear {
                        try db.execute(Self.clearFactorSQL, [.text(enrollmentID)])
                    }
                    // Under the user's row lock what the attempt read stands: the
                    // credential goes into the user's row, which the sign-in writes
                    // anyway, or into mfa_consumed when the row is full (`ConsumedTokens`);
                    // a claimed TOTP step goes into the row as well.
                    let recorded: [UInt8]
                    if let added = view.consumedTokens.adding(request.tokenID, until: until, now: request.now,
                                                              step: claim.step) {
                        recorded = added
                    } else {
                        try Self.consume(db, request.tokenID, until: until, dialect)
                        recorded = view.consumedTokens.touched(now: request.now, step: claim.step)
                    }
                    try db.execute(Self.recordUserSQL, [.int(request.now), .blob(recorded), .text(request.tenant),
                                                        .text(request.uid)])
                    if let audit, let factor = view.factor {
                        try audit.record(db, AttemptAudit(result: .accepted, factor: factor), dialect)
                    }
                    return .accepted
                }
                switch claim.missed {
                case .refuse(let error): throw error
                case .wrong(let text): (message, limits) = (text, acceptLimits)
                }
            }
            let result = AttemptResult.failed(try Self.countFailure(db, enrollmentID: enrollmentID,
                                                                    tenant: request.tenant, uid: request.uid,
                                                                    now: request.now, limits: limits),
                                              message: message)
            if let audit, let factor = view.factor {
                try audit.record(db, AttemptAudit(result: result, factor: factor), dialect)
            }
            return result
        }
    }

    /// The factor the request names, or that `locate` finds.
    private static func locate(_ request: AttemptRequest, _ locate: ((SQLConnection) throws(MFAError) -> String?)?,
                               _ db: SQLConnection) throws(MFAError) -> String {
        if let id = request.enrollmentID { return id }
        guard let locate, let id = try locate(db) else {
            throw MFAError(.invalidSession, "the verification id is unknown or expired")
        }
        return id
    }

    /// The claim of `decision` and the user's next `ConsumedTokens` column
    /// with the credential recorded, if `decision` accepts, its step (if
    /// any) holds in `view`, and the user's row has room for the credential.
    private static func acceptance(_ decision: AttemptDecision?, _ request: AttemptRequest,
                                   _ view: AttemptView) -> (claim: FactorClaim, recorded: [UInt8])? {
        guard case .accept(let until, _, let claim)? = decision, claim.step?.holds(in: view.consumedTokens) ?? true,
              let recorded = view.consumedTokens.adding(request.tokenID, until: until, now: request.now,
                                                        step: claim.step) else { return nil }
        return (claim, recorded)
    }

    /// The accepting statement: true if it accepted the attempt; false if
    /// its checks no longer held (nothing was accepted; the careful way
    /// decides). `view` is what the attempt read; `recorded` the user's
    /// `ConsumedTokens` column's next value, with the credential recorded.
    private func acceptFast(_ request: AttemptRequest, enrollmentID: String, view: AttemptView, claim: FactorClaim,
                            recorded: [UInt8], audit: AuditNote<AttemptAudit>?) throws(MFAError) -> Bool {
        // A step claimed in the user's row: one update of the user's row, which checks everything itself.
        if claim.shape == nil, view.factorClear {
            return try acceptRecorded(request, enrollmentID: enrollmentID, view: view, recorded: recorded,
                                      audit: audit)
        }
        let factorID = view.factor?.factorID ?? ""
        let account: [SQLValue] = [.int(request.now), .blob(recorded), .text(request.tenant), .text(request.uid)]
        let gate: [SQLValue] = [.text(enrollmentID), .text(factorID), .text(request.tenant), .text(request.uid),
                                .int(request.epoch), .int(request.now), .int(request.now), .blob(request.tokenID),
                                view.consumedTokens.stored]
        // A step claimed in the user's row holds as the gate finds the row: only the row is written.
        let sql = claim.shape?.acceptSQL ?? Self.recordingAcceptSQL
        let parameters = claim.shape.map {
            gate + claim.parameters.dropFirst($0.assignmentParameters) + account + claim.parameters
        } ?? gate + account
        return try writing(audit, view) { (db) throws(MFAError) -> Bool in
            let row = try db.query(sql, parameters + [.text(enrollmentID)]).first
            guard row?.first?.int == 1 else { return false }
            // Recorded under the locks that held the claim: it cannot have missed.
            guard row?[1].int == 1 else { throw MFAError(.internal, "the claim failed after its checks held") }
            return true
        }
    }

    /// Runs an accepting statement (`body`, true if it accepted): by itself,
    /// or, when `audit` stores its events, in a transaction that appends them
    /// after it (nothing is appended if it did not accept).
    private func writing(_ audit: AuditNote<AttemptAudit>?, _ view: AttemptView,
                         _ body: (SQLConnection) throws(MFAError) -> Bool) throws(MFAError) -> Bool {
        guard let audit, audit.stores, let factor = view.factor else { return try database.write(body) }
        return try database.transaction { (db) throws(MFAError) -> Bool in
            guard try body(db) else { return false }
            try audit.record(db, AttemptAudit(result: .accepted, factor: factor), dialect)
            return true
        }
    }

    /// Accepts a step claimed in the user's row (a TOTP code) with
    /// `recordingUpdateSQL`: true if it did; false, with nothing written,
    /// if anything the decision rests on moved since `view` was read, or the
    /// factor has failures to clear (the careful way clears them).
    func acceptRecorded(_ request: AttemptRequest, enrollmentID: String, view: AttemptView,
                        recorded: [UInt8], audit: AuditNote<AttemptAudit>? = nil) throws(MFAError) -> Bool {
        guard view.factorClear else { return false }
        // The decision admitted the factor as the user's (`MFAContext.admit`): so does the write.
        guard let factor = view.factor, factor.enrollmentID == enrollmentID, factor.tenant == request.tenant,
              factor.uid == request.uid else { return false }
        let parameters: [SQLValue] = [
            .int(request.now), .blob(recorded), .text(request.tenant), .text(request.uid),
            .int(request.epoch), .int(request.now), .int(view.userFailures.count), .int(view.userFailures.last),
            view.consumedTokens.stored,
        ]
        return try writing(audit, view) { (db) throws(MFAError) -> Bool in
            try db.execute(Self.recordingUpdateSQL, parameters) == 1
        }
    }

    /// The accepting statement of a claim made in the user's row (a TOTP
    /// step) when the factor has no failures to clear: one update of the
    /// user's row, which locks it and checks, on its newest version, what
    /// the attempt decided on:
    /// - the credential is of the user's epoch (every removal of a factor
    ///   revokes the user's credentials, which moves the epoch on);
    /// - no backoff runs, and no failure was counted since the attempt read
    ///   (every counted failure, the factor's too, changes the user's
    ///   failure count or time);
    /// - nothing of the user was used since (every consumption, also one
    ///   recorded in `mfa_consumed`, moves the `consumed` column's
    ///   generation on; the attempt's read found the credential in neither).
    /// The factor's row is not read again, because nothing that could turn
    /// the decision leaves the user's row as it was: the attempt found the
    /// factor the user's, of its kind, with no failures or backoff; a
    /// removal moves the epoch on (and drops the factor's step, if it has
    /// one, from `consumed`), a failure counted against the factor changes the user's
    /// count (it only grows, or restarts at 1 from a time long past) and
    /// time, and what else is ever written to a factor (its display name, a
    /// cleared count) cannot. Parameters: now, the next column, tenant,
    /// uid, epoch, now, failure count, last failure time, the column as read.
    private static let recordingUpdateSQL = """
        \(recordUserSQL) AND token_epoch = ? AND locked_until <= ? AND failures = ? AND last_failure_at = ? \
        AND consumed IS NOT DISTINCT FROM ?
        """

    /// The accepting statement of a claim, with data-modifying CTEs. The
    /// checks lock the user's and the factor's rows (`gate`), then the row
    /// the claim changes, if the claim holds (`target`: locked, its
    /// condition is checked again after any wait); only then is the user's
    /// row written, the credential recorded in it, and only if it was do the
    /// claim and the factor's counters follow. So the statement does all or
    /// nothing. A credential consumed by a racing attempt, even one
    /// committed after this statement began, is seen: every consumption
    /// moves the user's `consumed` column on, and the gate's check that the
    /// column is as the attempt read it is made again on the row it locks.
    static func acceptSQL(table: String, condition: String, claim: String) -> String {
        """
        WITH gate AS (\(gateSQL)), \
        target AS (SELECT 1 FROM \(table) WHERE (\(condition)) AND EXISTS (SELECT 1 FROM gate) FOR UPDATE), \
        account AS (\(recordUserSQL) AND EXISTS (SELECT 1 FROM target) RETURNING 1), \
        claim AS (\(claim) AND EXISTS (SELECT 1 FROM account) RETURNING 1), \
        factor AS (\(clearFactorSQL) AND EXISTS (SELECT 1 FROM account) RETURNING 1) \
        SELECT (SELECT COUNT(*) FROM account), (SELECT COUNT(*) FROM claim), (SELECT COUNT(*) FROM factor)
        """
    }

    /// The accepting statement of a claim made in the user's row (a TOTP
    /// step): the gate, then the user's row, then the factor's counters.
    private static let recordingAcceptSQL = """
        WITH gate AS (\(gateSQL)), \
        account AS (\(recordUserSQL) AND EXISTS (SELECT 1 FROM gate) RETURNING 1), \
        factor AS (\(clearFactorSQL) AND EXISTS (SELECT 1 FROM account) RETURNING 1) \
        SELECT (SELECT COUNT(*) FROM account), (SELECT COUNT(*) FROM account), (SELECT COUNT(*) FROM factor)
        """

    /// The checks of an accepting statement, as a query that returns a row
    /// if they hold: the factor is the user's and of its kind, neither the
    /// user nor the factor is in backoff, the credential is of the user's
    /// epoch and unused, and no credential of the user was consumed since
    /// the attempt read the user's `consumed` column. Parameters: enrollment
    /// id, factor id, tenant, uid, epoch, now, now, token id, the column read.
    private static let gateSQL = """
        SELECT 1 FROM mfa_users u JOIN mfa_factors f ON f.enrollment_id = ? AND f.factor_id = ? \
        AND f.tenant = u.tenant AND f.uid = u.uid WHERE u.tenant = ? AND u.uid = ? AND u.token_epoch = ? \
        AND u.locked_until <= ? AND f.locked_until <= ? \
        AND NOT EXISTS (SELECT 1 FROM mfa_consumed c WHERE c.token_id = ?) \
        AND u.consumed IS NOT DISTINCT FROM ? FOR UPDATE OF u, f
        """

    /// Clears a factor's failure count (parameter: enrollment id); writes nothing when it is clear.
    private static let clearFactorSQL = """
        UPDATE mfa_factors SET failures = 0, locked_until = 0 WHERE enrollment_id = ? \
        AND (failures <> 0 OR locked_until <> 0)
        """

    /// Records a passed second factor and the used credentials (the next
    /// `ConsumedTokens` column), and clears the user's failure count
    /// (parameters: now, the column, tenant, uid).
    private static let recordUserSQL = """
        UPDATE mfa_users SET last_second_factor_at = ?, failures = 0, locked_until = 0, consumed = ? \
        WHERE tenant = ? AND uid = ?
        """

    /// The factor (with the kind's `attemptColumns`), the user, the
    /// credential's state and the documents of an attempt, in one statement
    /// (one round trip on a networked store).
    static func attemptView(_ db: SQLConnection, kind: (any SecondFactor.Type)?, enrollmentID: String,
                            tenant: String, uid: String, tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        let columns = kind?.attemptColumns.count ?? 0
        let sql = viewSQL(kind, tenant: !tenant.isEmpty)
        let parameters: [SQLValue] = tenant.isEmpty
            ? [.blob(tokenID), .text(tenant), .text(uid), .text(enrollmentID)]
            : [.blob(tokenID), .text(tenant), .text(tenant), .text(uid), .text(enrollmentID)]
        let factorStart = 11
        let factorEnd = factorStart + FactorRecord.storedColumns.count + 1
        guard let row = try db.query(sql, parameters).first, row.count == factorEnd + columns else {
            throw MFAError(.storageError, "the attempt query returned no row")
        }
        guard let consumed = row[4].int, row[7].int != nil || row[7] == .null,
              row[9].int != nil || row[9] == .null, row[10].int != nil || row[10] == .null else {
            throw MFAError(.storageError, "the attempt query is malformed")
        }
        let recorded = try ConsumedTokens(row[8])
        return AttemptView(
            factor: row[factorStart] == .null ? nil : try FactorRecord(row: row[factorStart..<factorEnd]),
            user: try userRecord(row[0..<4]), consumed: consumed > 0 || recorded.contains(tokenID),
            consumedTokens: recorded, documents: ConfigDocuments(project: row[5].text, tenant: row[6].text),
            state: Array(row[factorEnd...]), userStored: row[1] != .null, factorFailures: row[7].int ?? 0,
            userFailures: (row[9].int ?? 0, row[10].int ?? 0))
    }

    /// The attempt view's statements for each kind (and for none), built
    /// once: for the project's users, and for a tenant's (which also read
    /// the tenant's document).
    private static let viewSQLs: [String: (project: String, tenant: String)] = {
        let every = FactorRecord.summaryExpression
        var out = ["": (viewSQL(join: "", columns: [], summary: every, tenant: false),
                        viewSQL(join: "", columns: [], summary: every, tenant: true))]
        for kind in FactorRegistry.all {
            // A kind without a summary reads none: the factor is of that kind.
            let summary = kind.summarySQL == nil ? "NULL" : every
            let (join, columns) = (kind.attemptJoin, kind.attemptColumns)
            out[kind.id] = (viewSQL(join: join, columns: columns, summary: summary, tenant: false),
                            viewSQL(join: join, columns: columns, summary: summary, tenant: true))
        }
        return out
    }()

    private static func viewSQL(_ kind: (any SecondFactor.Type)?, tenant: Bool) -> String {
        let statements = viewSQLs[kind?.id ?? ""] ?? viewSQLs[""]
        return (tenant ? statements?.tenant : statements?.project) ?? ""
    }

    /// Parameters: token id, [tenant,] tenant, uid, enrollment id.
    private static func viewSQL(join: String, columns: [String], summary: String, tenant: Bool) -> String {
        let tenantDocument = tenant ? "(SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> '')" : "NULL"
        return """
        SELECT u.revoked_at_ms, u.token_epoch, u.last_second_factor_at, u.locked_until, \
        (SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), \
        (SELECT document FROM mfa_config WHERE tenant = ''), \(tenantDocument), f.failures, u.consumed, \
        u.failures, u.last_failure_at, \
        \(FactorRecord.selectList(summary: summary))\(columns.map { ", " + $0 }.joined()) \
        FROM (SELECT 1 AS one) o LEFT JOIN mfa_users u ON u.tenant = ? AND u.uid = ? \
        LEFT JOIN mfa_factors f ON f.enrollment_id = ?\(join.isEmpty ? "" : " " + join)
        """
    }

    /// Counts a failed second-factor attempt against the factor and the user
    /// (whose row the caller has locked), and starts or lengthens their
    /// backoff once the free attempts are used.
    static func countFailure(_ db: SQLConnection, enrollmentID: String, tenant: String, uid: String,
                             now: Int64, limits: MFALimits) throws(MFAError) -> FailureOutcome {
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
