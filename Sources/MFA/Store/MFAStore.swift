/// libmfa's state, as atomic operations over a SQL database.
///
/// Each method is one transaction, so every check-and-update (claim a TOTP
/// step, consume a token or a pending enrollment, count a failure) holds
/// across threads, processes and servers that share the database. The SQL is
/// written once for both backends (`SQLDatabase`).
package final class MFAStore: Sendable {
    package let database: SQLDatabase

    /// Wraps `database` and brings its schema up to date.
    package init(database: SQLDatabase) throws(MFAError) {
        self.database = database
        try Schema.migrate(database)
    }

    // MARK: Configuration

    /// Replaces the configuration document of `tenant`.
    package func setConfigDocument(_ document: String, tenant: String, now: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute("""
                INSERT INTO mfa_config (tenant, document, updated_at) VALUES (?, ?, ?) \
                ON CONFLICT (tenant) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """, [.text(tenant), .text(document), .int(now)])
        }
    }

    // MARK: Factors and users

    /// The factors of one user, oldest first.
    package func factors(tenant: String, uid: String) throws(MFAError) -> [FactorRecord] {
        try database.read { (db) throws(MFAError) in try Self.factors(db, tenant, uid) }
    }

    /// One factor by enrollment id.
    package func factor(enrollmentID: String) throws(MFAError) -> FactorRecord? {
        try database.read { (db) throws(MFAError) in
            try Self.factor(db, enrollmentID)
        }
    }

    /// The user's record (defaults if the store has none).
    package func user(tenant: String, uid: String) throws(MFAError) -> UserRecord {
        try database.read { (db) throws(MFAError) in try Self.user(db, tenant, uid) }
    }

    /// Everything the start of a sign-in step needs, in one read: the factor,
    /// its user's record, whether the pending credential `tokenID` was used,
    /// and the configuration documents.
    package func attempt(enrollmentID: String, tenant: String, uid: String,
                         tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        try database.read { (db) throws(MFAError) in
            try Self.attemptView(db, enrollmentID: enrollmentID, tenant: tenant, uid: uid, tokenID: tokenID)
        }
    }

    /// One second-factor attempt, as one transaction. `decide` sees the
    /// factor, the user, the pending credential's state, the configuration
    /// documents and the SMS verification (if any), checks the code and
    /// decides; it throws to refuse the attempt without counting it. On
    /// `.wrong` the failure is counted (and the SMS verification's wrong
    /// tries) and committed; on `.accept` the claim is used up, the pending
    /// credential consumed and the failure counters cleared. Because the
    /// backoff check, the comparison and the bookkeeping share one
    /// transaction, attempts racing from many threads, processes or servers
    /// are strictly ordered: a code is accepted once, and once the free
    /// attempts are used, every racing guess meets the backoff of the one
    /// before it.
    /// - Returns: nil when the attempt was accepted, else the failure's outcome.
    package func resolveAttempt(_ request: AttemptRequest,
                                decide: (AttemptView) throws(MFAError) -> AttemptDecision) throws(MFAError)
        -> FailureOutcome? {
        try database.transaction { (db) throws(MFAError) -> FailureOutcome? in
            try db.serialize(Self.userKey(request.tenant, request.uid))
            var sms: SMSVerificationRecord?
            if let id = request.smsVerificationID,
               let row = try db.query("""
                   SELECT \(SMSVerificationRecord.columns) FROM mfa_sms_verifications WHERE verification_id = ?
                   """, [.text(id)]).first {
                sms = try SMSVerificationRecord(row: row)
            }
            guard let enrollmentID = request.enrollmentID ?? sms?.enrollmentID else {
                throw MFAError(.invalidSession, "the verification id is unknown or expired")
            }
            var view = try Self.attemptView(db, enrollmentID: enrollmentID, tenant: request.tenant,
                                            uid: request.uid, tokenID: request.tokenID)
            view.sms = sms
            switch try decide(view) {
            case .wrong(let limits):
                if let id = request.smsVerificationID, try !Self.countWrongCode(db, id) {
                    throw MFAError(.invalidSession, "this code was already used")
                }
                return try Self.countFailure(db, enrollmentID: enrollmentID, tenant: request.tenant,
                                             uid: request.uid, now: request.now, limits: limits)
            case .accept(let claim):
                try Self.claim(db, claim, enrollmentID: enrollmentID)
                if case .totpStep = claim {
                    // The step claim cleared the counters in the same statement.
                } else {
                    try db.execute("UPDATE mfa_factors SET failures = 0, locked_until = 0 WHERE enrollment_id = ?",
                                   [.text(enrollmentID)])
                }
                try Self.consume(db, request.tokenID, expires: request.tokenExpires)
                try db.execute("""
                    INSERT INTO mfa_users (tenant, uid, last_second_factor_at) VALUES (?, ?, ?) \
                    ON CONFLICT (tenant, uid) DO UPDATE SET last_second_factor_at = excluded.last_second_factor_at, \
                    failures = 0, locked_until = 0
                    """, [.text(request.tenant), .text(request.uid), .int(request.now)])
                return nil
            }
        }
    }

    /// Everything a first-factor sign-in needs in one read: the user's
    /// factors and the configuration documents.
    package func signInSnapshot(tenant: String, uid: String) throws(MFAError)
        -> (factors: [FactorRecord], documents: ConfigDocuments) {
        try database.read { (db) throws(MFAError) in
            // One statement: the documents as a single row, the factors joined to it.
            let rows = try db.query("""
                SELECT d.project, d.tenant_document, \(FactorRecord.joinedColumns) FROM (SELECT \
                (SELECT document FROM mfa_config WHERE tenant = '') AS project, \
                (SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> '') AS tenant_document) d \
                LEFT JOIN mfa_factors f ON f.tenant = ? AND f.uid = ? ORDER BY f.enrolled_at, f.enrollment_id
                """, [.text(tenant), .text(tenant), .text(uid)])
            var factors: [FactorRecord] = []
            for row in rows where row[2] != .null { factors.append(try FactorRecord(row: Array(row.dropFirst(2)))) }
            let documents = ConfigDocuments(project: rows.first?[0].text, tenant: rows.first?[1].text)
            return (factors, documents)
        }
    }

    /// The configuration documents of the project and of `tenant`.
    package func configDocuments(tenant: String) throws(MFAError) -> ConfigDocuments {
        try database.read { (db) throws(MFAError) in try Self.documents(db, tenant) }
    }

    // MARK: Enrollment

    /// Stores a TOTP secret that waits for its enrollment to be finished.
    package func insertPending(_ pending: PendingRecord) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute("""
                INSERT INTO mfa_pending (pending_id, tenant, uid, key_id, sealed, deadline) VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(pending.pendingID), .text(pending.tenant), .text(pending.uid), .text(pending.keyID),
                      .blob(pending.sealed), .int(pending.deadline)])
        }
    }

    /// A pending enrollment by id.
    package func pending(id: String) throws(MFAError) -> PendingRecord? {
        try database.read { (db) throws(MFAError) -> PendingRecord? in
            guard let row = try db.query("""
                SELECT pending_id, tenant, uid, key_id, sealed, deadline FROM mfa_pending WHERE pending_id = ?
                """, [.text(id)]).first else { return nil }
            guard let pendingID = row[0].text, let tenant = row[1].text, let uid = row[2].text,
                  let keyID = row[3].text, let sealed = row[4].blob, let deadline = row[5].int else {
                throw MFAError(.storageError, "a stored pending enrollment is malformed")
            }
            return PendingRecord(pendingID: pendingID, tenant: tenant, uid: uid, keyID: keyID, sealed: sealed,
                                 deadline: deadline)
        }
    }

    /// Finishes an enrollment atomically: consumes the session token and what
    /// proved the factor (a pending TOTP secret or an SMS code), checks the
    /// factor limit, stores the factor and revokes the user's earlier credentials.
    /// - Throws: `invalidSession` if the session or the proof was already
    ///   used; `secondFactorLimitExceeded` at the limit.
    /// `admit` sees the user's factors inside the transaction, after the
    /// user's lock is taken, and throws to refuse the new one (a phone number
    /// the user already has: numbers are sealed, so no index can refuse it).
    package func finishEnrollment(_ factor: FactorRecord, claim: FactorClaim, sessionTokenID: [UInt8],
                                  sessionExpires: Int64, maxFactors: Int64, now: Int64,
                                  admit: ([FactorRecord]) throws(MFAError) -> Void = { _ in }) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.serialize(Self.userKey(factor.tenant, factor.uid))
            try admit(Self.factors(db, factor.tenant, factor.uid))
            try Self.consume(db, sessionTokenID, expires: sessionExpires)
            try Self.claim(db, claim, enrollmentID: factor.enrollmentID)
            try Self.insert(db, factor, maxFactors: maxFactors)
            try Self.revokeTokens(db, factor.tenant, factor.uid, now)
        }
    }

    /// Stores an imported factor, within the user's factor limit.
    /// - Throws: `secondFactorLimitExceeded` at the limit.
    package func insertFactor(_ factor: FactorRecord, maxFactors: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.serialize(Self.userKey(factor.tenant, factor.uid))
            try Self.insert(db, factor, maxFactors: maxFactors)
        }
    }

    /// Removes a factor and revokes the user's earlier credentials.
    /// - Returns: the removed factor's factor id, or nil if the user has no factor with this id.
    package func deleteFactor(tenant: String, uid: String, enrollmentID: String, now: Int64) throws(MFAError) -> String? {
        try database.transaction { (db) throws(MFAError) -> String? in
            let key: [SQLValue] = [.text(enrollmentID), .text(tenant), .text(uid)]
            guard let factorID = try db.query("""
                SELECT factor_id FROM mfa_factors WHERE enrollment_id = ? AND tenant = ? AND uid = ?
                """, key).first?.first?.text,
                try db.execute("DELETE FROM mfa_factors WHERE enrollment_id = ? AND tenant = ? AND uid = ?", key) == 1
            else { return nil }
            try Self.revokeTokens(db, tenant, uid, now)
            return factorID
        }
    }

    // MARK: Sign-in

    /// Whether a single-use token has been consumed.
    package func isConsumed(tokenID: [UInt8]) throws(MFAError) -> Bool {
        try database.read { (db) throws(MFAError) in try Self.isConsumed(db, tokenID) }
    }

    // MARK: Housekeeping

    /// Deletes consumed-token records, pending secrets and SMS codes past
    /// their deadline, and SMS send records older than a day.
    package func purgeExpired(now: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute("DELETE FROM mfa_consumed WHERE expires < ?", [.int(now)])
            try db.execute("DELETE FROM mfa_pending WHERE deadline < ?", [.int(now)])
            try db.execute("DELETE FROM mfa_sms_verifications WHERE expires < ?", [.int(now)])
            try db.execute("DELETE FROM mfa_sms_sends WHERE sent_at < ?", [.int(now.minus(86_400))])
        }
    }

    // MARK: SMS

    /// Reserves an SMS atomically: checks the resend cooldown of the number
    /// and every quota, then records the send and the code's verification.
    /// Test numbers pass no quotas and no cooldown scope.
    /// - Throws: `tooManyAttemptsTryLater` (cooldown), `quotaExceeded`.
    package func reserveSMS(_ verification: SMSVerificationRecord, cooldownScopes: [String], cooldown: Int64,
                            quotas: [SMSQuota], now: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.serialize("sms")
            if !cooldownScopes.isEmpty, cooldown > 0 {
                let recent = try db.query("""
                    SELECT 1 FROM mfa_sms_sends WHERE scope IN (\(Self.placeholders(cooldownScopes.count))) \
                    AND sent_at > ? LIMIT 1
                    """, cooldownScopes.map(SQLValue.text) + [.int(now.minus(cooldown))])
                guard recent.isEmpty else {
                    throw MFAError(.tooManyAttemptsTryLater, "a code was just sent to this number; wait before resending")
                }
            }
            for quota in quotas {
                let counts = try db.query("""
                    SELECT COUNT(*), COALESCE(SUM(CASE WHEN sent_at > ? THEN 1 ELSE 0 END), 0) \
                    FROM mfa_sms_sends WHERE scope IN (\(Self.placeholders(quota.aliases.count + 1))) AND sent_at > ?
                    """, [.int(now.minus(3600))] + ([quota.scope] + quota.aliases).map(SQLValue.text)
                        + [.int(now.minus(86_400))]).first
                let day = counts?[0].int ?? 0
                let hour = counts?[1].int ?? 0
                guard hour < quota.perHour, day < quota.perDay else {
                    throw MFAError(.quotaExceeded, "the SMS quota is used up; try again later")
                }
            }
            for quota in quotas {
                try db.execute("INSERT INTO mfa_sms_sends (scope, sent_at, verification_id) VALUES (?, ?, ?)",
                               [.text(quota.scope), .int(now), .text(verification.verificationID)])
            }
            try db.execute("""
                INSERT INTO mfa_sms_verifications (\(SMSVerificationRecord.columns)) \
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, verification.values)
        }
    }

    /// Undoes a reservation whose SMS could not be sent: the send counts and
    /// the verification go, so the failure costs the user nothing.
    package func cancelSMS(verificationID: String) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute("DELETE FROM mfa_sms_sends WHERE verification_id = ?", [.text(verificationID)])
            try db.execute("DELETE FROM mfa_sms_verifications WHERE verification_id = ?", [.text(verificationID)])
        }
    }

    /// An SMS verification by id.
    package func smsVerification(id: String) throws(MFAError) -> SMSVerificationRecord? {
        try database.read { (db) throws(MFAError) -> SMSVerificationRecord? in
            guard let row = try db.query("""
                SELECT \(SMSVerificationRecord.columns) FROM mfa_sms_verifications WHERE verification_id = ?
                """, [.text(id)]).first else { return nil }
            return try SMSVerificationRecord(row: row)
        }
    }

    /// Sealed records (factors and pending secrets) not under `keyID`, at most `limit` of them.
    package func sealedRecords(notUnder keyID: String, limit: Int) throws(MFAError)
        -> [(table: SealedTable, id: String, keyID: String, sealed: [UInt8], tenant: String)] {
        try database.read { (db) throws(MFAError) in
            var out: [(table: SealedTable, id: String, keyID: String, sealed: [UInt8], tenant: String)] = []
            for table in SealedTable.allCases {
                for row in try db.query("""
                    SELECT \(table.idColumn), key_id, sealed, tenant FROM \(table.rawValue) WHERE key_id <> ? LIMIT ?
                    """, [.text(keyID), .int(Int64(limit))]) {
                    guard let id = row[0].text, let key = row[1].text, let sealed = row[2].blob,
                          let tenant = row[3].text else {
                        throw MFAError(.storageError, "a sealed record is malformed")
                    }
                    out.append((table, id, key, sealed, tenant))
                }
            }
            return out
        }
    }

    /// Replaces sealed values, each only if it is still under the key it was read with.
    package func reseal(_ updates: [(table: SealedTable, id: String, oldKeyID: String, keyID: String,
                                     sealed: [UInt8])]) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            for update in updates {
                try db.execute("""
                    UPDATE \(update.table.rawValue) SET key_id = ?, sealed = ? WHERE \(update.table.idColumn) = ? \
                    AND key_id = ?
                    """, [.text(update.keyID), .blob(update.sealed), .text(update.id), .text(update.oldKeyID)])
            }
        }
    }

    // MARK: Shared steps

    private static func factors(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError)
        -> [FactorRecord] {
        var out: [FactorRecord] = []
        for row in try db.query("""
            SELECT \(FactorRecord.columns) FROM mfa_factors WHERE tenant = ? AND uid = ? \
            ORDER BY enrolled_at, enrollment_id
            """, [.text(tenant), .text(uid)]) {
            out.append(try FactorRecord(row: row))
        }
        return out
    }

    private static func documents(_ db: SQLConnection, _ tenant: String) throws(MFAError) -> ConfigDocuments {
        var documents = ConfigDocuments()
        for row in try db.query("SELECT tenant, document FROM mfa_config WHERE tenant = '' OR tenant = ?",
                                [.text(tenant)]) {
            if row[0].text == "" { documents.project = row[1].text } else { documents.tenant = row[1].text }
        }
        return documents
    }

    /// The factor, the user, the credential's state and the documents of an
    /// attempt, in one statement (one round trip on a networked store).
    private static func attemptView(_ db: SQLConnection, enrollmentID: String, tenant: String, uid: String,
                                    tokenID: [UInt8]) throws(MFAError) -> AttemptView {
        guard let row = try db.query("""
            SELECT \
            (SELECT tokens_valid_after FROM mfa_users WHERE tenant = ? AND uid = ?), \
            (SELECT last_second_factor_at FROM mfa_users WHERE tenant = ? AND uid = ?), \
            (SELECT locked_until FROM mfa_users WHERE tenant = ? AND uid = ?), \
            (SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), \
            (SELECT document FROM mfa_config WHERE tenant = ''), \
            (SELECT document FROM mfa_config WHERE tenant = ? AND tenant <> ''), \(FactorRecord.joinedColumns) \
            FROM (SELECT 1 AS one) o LEFT JOIN mfa_factors f ON f.enrollment_id = ?
            """, [.text(tenant), .text(uid), .text(tenant), .text(uid), .text(tenant), .text(uid), .blob(tokenID),
                  .text(tenant), .text(enrollmentID)]).first else {
            throw MFAError(.storageError, "the attempt query returned no row")
        }
        return AttemptView(
            factor: row[6] == .null ? nil : try FactorRecord(row: Array(row.dropFirst(6))),
            user: UserRecord(tokensValidAfter: row[0].int ?? 0, lastSecondFactorAt: row[1].int ?? 0,
                             lockedUntil: row[2].int ?? 0),
            consumed: (row[3].int ?? 0) > 0,
            documents: ConfigDocuments(project: row[4].text, tenant: row[5].text), sms: nil)
    }

    private static func factor(_ db: SQLConnection, _ enrollmentID: String) throws(MFAError) -> FactorRecord? {
        guard let row = try db.query("SELECT \(FactorRecord.columns) FROM mfa_factors WHERE enrollment_id = ?",
                                     [.text(enrollmentID)]).first else { return nil }
        return try FactorRecord(row: row)
    }

    private static func user(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> UserRecord {
        guard let row = try db.query("""
            SELECT tokens_valid_after, last_second_factor_at, locked_until FROM mfa_users WHERE tenant = ? AND uid = ?
            """, [.text(tenant), .text(uid)]).first else { return UserRecord() }
        return UserRecord(tokensValidAfter: row[0].int ?? 0, lastSecondFactorAt: row[1].int ?? 0,
                          lockedUntil: row[2].int ?? 0)
    }

    /// Counts a failed second-factor attempt against the factor and the user,
    /// and starts or lengthens their backoff once the free attempts are used.
    private static func countFailure(_ db: SQLConnection, enrollmentID: String, tenant: String, uid: String,
                                     now: Int64, limits: MFALimits) throws(MFAError) -> FailureOutcome {
        var outcome = FailureOutcome(lockedUntil: 0, startedBackoff: false)
        if let row = try db.query("SELECT failures, last_failure_at FROM mfa_factors WHERE enrollment_id = ?",
                                  [.text(enrollmentID)]).first {
            let (failures, until) = Backoff.next(failures: row[0].int ?? 0, lastFailure: row[1].int ?? 0,
                                                 now: now, limits: limits)
            try db.execute("""
                UPDATE mfa_factors SET failures = ?, last_failure_at = ?, locked_until = ? WHERE enrollment_id = ?
                """, [.int(failures), .int(now), .int(until), .text(enrollmentID)])
            outcome.merge(until)
        }
        try db.execute("INSERT INTO mfa_users (tenant, uid) VALUES (?, ?) ON CONFLICT (tenant, uid) DO NOTHING",
                       [.text(tenant), .text(uid)])
        let row = try db.query("SELECT failures, last_failure_at FROM mfa_users WHERE tenant = ? AND uid = ?",
                               [.text(tenant), .text(uid)]).first
        let (failures, until) = Backoff.next(failures: row?[0].int ?? 0, lastFailure: row?[1].int ?? 0,
                                             now: now, limits: limits)
        try db.execute("""
            UPDATE mfa_users SET failures = ?, last_failure_at = ?, locked_until = ? WHERE tenant = ? AND uid = ?
            """, [.int(failures), .int(now), .int(until), .text(tenant), .text(uid)])
        outcome.merge(until)
        return outcome
    }

    /// Uses up what proved a factor; throws if it was already used.
    private static func claim(_ db: SQLConnection, _ claim: FactorClaim, enrollmentID: String) throws(MFAError) {
        switch claim {
        case .pendingSecret(let id):
            guard try db.execute("DELETE FROM mfa_pending WHERE pending_id = ?", [.text(id)]) == 1 else {
                throw MFAError(.invalidSession, "this enrollment was already finished")
            }
        case .totpStep(let step):
            let claimed = try db.execute("""
                UPDATE mfa_factors SET last_step = ?, failures = 0, locked_until = 0 \
                WHERE enrollment_id = ? AND last_step < ?
                """, [.int(step), .text(enrollmentID), .int(step)])
            guard claimed == 1 else { throw MFAError(.invalidVerificationCode, "this code was already used") }
        case .smsCode(let id, let maxAttempts, let now):
            try db.serialize("sms-code\u{1f}" + id)
            let claimed = try db.execute("""
                UPDATE mfa_sms_verifications SET used = 1 \
                WHERE verification_id = ? AND used = 0 AND attempts < ? AND expires >= ?
                """, [.text(id), .int(maxAttempts), .int(now)])
            guard claimed == 1 else { throw MFAError(.invalidSession, "this code was already used") }
        }
    }

    /// Inserts a factor unless the user already has `maxFactors`.
    private static func insert(_ db: SQLConnection, _ factor: FactorRecord, maxFactors: Int64) throws(MFAError) {
        let count = try db.query("SELECT COUNT(*) FROM mfa_factors WHERE tenant = ? AND uid = ?",
                                 [.text(factor.tenant), .text(factor.uid)]).first?.first?.int ?? 0
        guard count < maxFactors else {
            throw MFAError(.secondFactorLimitExceeded, "a user may have at most \(maxFactors) second factors")
        }
        try db.execute("""
            INSERT INTO mfa_factors (\(FactorRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(factor.enrollmentID), .text(factor.tenant), .text(factor.uid), .text(factor.factorID),
                  factor.displayName.map(SQLValue.text) ?? .null, .int(factor.enrolledAt), .text(factor.keyID),
                  .blob(factor.sealed), .int(Int64(factor.algorithm)), .int(Int64(factor.digits)),
                  .int(factor.period), .int(factor.lastStep), .int(0)])
    }

    /// Counts a wrong try against an unused SMS verification; false if it was
    /// used meanwhile (a racing right code won), so the try is not judged.
    private static func countWrongCode(_ db: SQLConnection, _ verificationID: String) throws(MFAError) -> Bool {
        try db.execute("UPDATE mfa_sms_verifications SET attempts = attempts + 1 WHERE verification_id = ? AND used = 0",
                       [.text(verificationID)]) == 1
    }

    /// `?, ?, …` for `count` parameters.
    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Judges an SMS code of an enrollment in one transaction: `judge` sees
    /// the verification (it throws to refuse it, and says whether the code
    /// matches), and a wrong code is counted before the transaction ends, so
    /// concurrent guesses cannot share a try.
    /// - Returns: the verification, when the code matched.
    package func judgeSMSCode(verificationID: String,
                              judge: (SMSVerificationRecord?) throws(MFAError) -> Bool) throws(MFAError)
        -> (record: SMSVerificationRecord?, matched: Bool, attempts: Int64) {
        try database.transaction { (db) throws(MFAError) in
            try db.serialize("sms-code\u{1f}" + verificationID)
            var record = try db.query("""
                SELECT \(SMSVerificationRecord.columns) FROM mfa_sms_verifications WHERE verification_id = ?
                """, [.text(verificationID)]).first.map { (row) throws(MFAError) in try SMSVerificationRecord(row: row) }
            guard try judge(record) else {
                guard try Self.countWrongCode(db, verificationID) else {
                    throw MFAError(.invalidSession, "this code was already used")
                }
                record?.attempts += 1
                return (record, false, record?.attempts ?? 0)
            }
            return (record, true, record?.attempts ?? 0)
        }
    }

    /// The serialization key of one user's factors and attempts.
    private static func userKey(_ tenant: String, _ uid: String) -> String {
        "user\u{1f}" + tenant + "\u{1f}" + uid
    }

    private static func isConsumed(_ db: SQLConnection, _ tokenID: [UInt8]) throws(MFAError) -> Bool {
        try !db.query("SELECT 1 FROM mfa_consumed WHERE token_id = ?", [.blob(tokenID)]).isEmpty
    }

    /// Records a single-use token as consumed; throws `invalidSession` if it already was.
    private static func consume(_ db: SQLConnection, _ tokenID: [UInt8], expires: Int64) throws(MFAError) {
        let inserted = try db.execute("""
            INSERT INTO mfa_consumed (token_id, expires) VALUES (?, ?) ON CONFLICT (token_id) DO NOTHING
            """, [.blob(tokenID), .int(expires)])
        guard inserted == 1 else { throw MFAError(.invalidSession, "this session was already used") }
    }

    private static func revokeTokens(_ db: SQLConnection, _ tenant: String, _ uid: String,
                                     _ now: Int64) throws(MFAError) {
        try db.execute("""
            INSERT INTO mfa_users (tenant, uid, tokens_valid_after) VALUES (?, ?, ?) \
            ON CONFLICT (tenant, uid) DO UPDATE SET tokens_valid_after = CASE \
            WHEN excluded.tokens_valid_after > mfa_users.tokens_valid_after THEN excluded.tokens_valid_after \
            ELSE mfa_users.tokens_valid_after END
            """, [.text(tenant), .text(uid), .int(now)])
    }
}

/// The tables that hold sealed (encrypted) values.
package enum SealedTable: String, Sendable, CaseIterable {
    case factors = "mfa_factors"
    case pending = "mfa_pending"

    var idColumn: String { self == .factors ? "enrollment_id" : "pending_id" }
}

extension FailureOutcome {
    mutating func merge(_ until: Int64) {
        if until > lockedUntil { lockedUntil = until }
        if until > 0 { startedBackoff = true }
    }
}
