/// An SMS code waiting to be used: for enrolling a number, or for signing in
/// with an enrolled phone factor.
package struct SMSVerificationRecord: Sendable, Equatable {
    /// Why the code was sent.
    package enum Purpose: Int64, Sendable {
        case enrollment = 1
        case signIn = 2
    }

    package var verificationID: String
    package var tenant: String
    package var uid: String
    package var purpose: Purpose
    /// The phone factor signed in with (sign-in only).
    package var enrollmentID: String?
    /// The token the code belongs to: the enrollment session or the pending credential.
    package var boundToken: [UInt8]
    package var keyID: String
    /// The phone number, sealed.
    package var sealed: [UInt8]
    /// A keyed hash of the code; the code itself is never stored.
    package var codeHash: [UInt8]
    package var expires: Int64
    package var attempts: Int64 = 0
    package var used = false

    package static let columns = """
        verification_id, tenant, uid, purpose, enrollment_id, bound_token, key_id, sealed, code_hash, expires, \
        attempts, used
        """

    package init(verificationID: String, tenant: String, uid: String, purpose: Purpose, enrollmentID: String?,
                 boundToken: [UInt8], keyID: String, sealed: [UInt8], codeHash: [UInt8], expires: Int64) {
        self.verificationID = verificationID
        self.tenant = tenant
        self.uid = uid
        self.purpose = purpose
        self.enrollmentID = enrollmentID
        self.boundToken = boundToken
        self.keyID = keyID
        self.sealed = sealed
        self.codeHash = codeHash
        self.expires = expires
    }

    init(row: SQLRow) throws(MFAError) {
        guard row.count == 12, let id = row[0].text, let tenant = row[1].text, let uid = row[2].text,
              let purpose = row[3].int.flatMap(Purpose.init(rawValue:)), row[4].text != nil || row[4] == .null,
              let bound = row[5].blob, let keyID = row[6].text, let sealed = row[7].blob, let hash = row[8].blob,
              let expires = row[9].int, let attempts = row[10].int, let used = row[11].int else {
            throw MFAError(.storageError, "a stored SMS verification is malformed")
        }
        self.init(verificationID: id, tenant: tenant, uid: uid, purpose: purpose, enrollmentID: row[4].text,
                  boundToken: bound, keyID: keyID, sealed: sealed, codeHash: hash, expires: expires)
        self.attempts = attempts
        self.used = used != 0
    }

    var values: [SQLValue] {
        [.text(verificationID), .text(tenant), .text(uid), .int(purpose.rawValue),
         enrollmentID.map(SQLValue.text) ?? .null, .blob(boundToken), .text(keyID), .blob(sealed), .blob(codeHash),
         .int(expires), .int(attempts), .int(used ? 1 : 0)]
    }

    /// What the sealed number is bound to.
    var binding: SealBinding {
        SealBinding(record: "sms", kind: PhoneMultiFactorID, tenant: tenant, uid: uid, id: verificationID)
    }
}

/// One SMS budget: at most `perHour` and `perDay` sends in `scope`.
package struct SMSQuota: Sendable, Equatable {
    /// The name new sends are recorded under.
    package var scope: String
    /// Earlier names of the same budget (under previous master keys), counted but not written.
    package var aliases: [String] = []
    package var perHour: Int64
    package var perDay: Int64

    package init(scope: String, aliases: [String] = [], perHour: Int64, perDay: Int64) {
        self.scope = scope
        self.aliases = aliases
        self.perHour = perHour
        self.perDay = perDay
    }
}

/// The phone factor's operations on its tables (`mfa_sms_verifications`,
/// `mfa_sms_sends`, created by the core schema's version 2 where they began;
/// `mfa_sms_budgets`, its own track's first).
package enum SMSStore {
    /// The phone track of the schema.
    package static let migrations: [Migration] = [
        // Version 1: one row per budget, locked by each send that spends it
        // (so that the count and the send are ordered per budget, not store-wide).
        { d, _ in [d.createKeyedTable("mfa_sms_budgets", "scope TEXT PRIMARY KEY, touched_at BIGINT NOT NULL")] },
    ]

    /// Takes the row locks of `scopes` (creating their rows), in one order
    /// for every send so that two sends never wait on each other in a circle.
    static func lockBudgets(_ db: SQLConnection, _ scopes: [String], now: Int64) throws(MFAError) {
        let sorted = Array(Set(scopes)).sorted()
        guard !sorted.isEmpty else { return }
        try db.execute("""
            INSERT INTO mfa_sms_budgets (scope, touched_at) VALUES \
            \(Array(repeating: "(?, ?)", count: sorted.count).joined(separator: ", ")) \
            ON CONFLICT (scope) DO UPDATE SET touched_at = excluded.touched_at
            """, sorted.flatMap { [SQLValue.text($0), .int(now)] })
    }

    /// Verifications hold the number sealed for their verification id.
    package static let verificationsTable = SealedTable(table: "mfa_sms_verifications", idColumn: "verification_id",
                                                record: "sms", kind: PhoneMultiFactorID)

    /// Reserves an SMS atomically: locks the row of every budget it
    /// touches, checks the resend cooldown and every quota, then records the
    /// send and the code's verification. Sends that share a budget (a
    /// number, a user, a tenant) run one after another, so a burst never
    /// passes a cap; others do not wait. Test numbers pass no quotas and no
    /// cooldown scope.
    /// - Throws: `tooManyAttemptsTryLater` (cooldown), `quotaExceeded`.
    package static func reserve(_ verification: SMSVerificationRecord, cooldownScopes: [String], cooldown: Int64,
                        quotas: [SMSQuota], now: Int64, _ store: MFAStore) throws(MFAError) {
        try store.database.transaction { (db) throws(MFAError) in
            try lockBudgets(db, cooldownScopes + quotas.flatMap { [$0.scope] + $0.aliases }, now: now)
            if !cooldownScopes.isEmpty, cooldown > 0 {
                let recent = try db.query("""
                    SELECT 1 FROM mfa_sms_sends WHERE scope IN (\(MFAStore.placeholders(cooldownScopes.count))) \
                    AND sent_at > ? LIMIT 1
                    """, cooldownScopes.map(SQLValue.text) + [.int(now.minus(cooldown))])
                guard recent.isEmpty else {
                    throw MFAError(.tooManyAttemptsTryLater, "a code was just sent; wait before resending")
                }
            }
            for quota in quotas {
                let counts = try db.query("""
                    SELECT COUNT(*), COALESCE(SUM(CASE WHEN sent_at > ? THEN 1 ELSE 0 END), 0) \
                    FROM mfa_sms_sends WHERE scope IN (\(MFAStore.placeholders(quota.aliases.count + 1))) \
                    AND sent_at > ?
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
    package static func cancel(verificationID: String, _ store: MFAStore) throws(MFAError) {
        try store.database.transaction { (db) throws(MFAError) in
            try db.execute("DELETE FROM mfa_sms_sends WHERE verification_id = ?", [.text(verificationID)])
            try db.execute("DELETE FROM mfa_sms_verifications WHERE verification_id = ?", [.text(verificationID)])
        }
    }

    /// A verification by id.
    package static func verification(_ db: SQLConnection, _ id: String) throws(MFAError) -> SMSVerificationRecord? {
        try db.query(select, [.text(id)]).first.map { (row) throws(MFAError) in try SMSVerificationRecord(row: row) }
    }

    private static let select =
        "SELECT \(SMSVerificationRecord.columns) FROM mfa_sms_verifications WHERE verification_id = ?"

    /// Judges an SMS code of an enrollment: `judge` sees the verification
    /// (it throws to refuse it, and says whether the code matches), read
    /// without waiting for any lock; a wrong code is then counted with a
    /// conditional update, only while the verification is unused and has
    /// tries left. A right code racing with it claims the verification with
    /// the same row (`claim`): whichever updates the row first wins, and a
    /// wrong try behind a right code's claim is not counted (the code was
    /// used: `invalidSession`), so a wrong last try cannot kill a code that
    /// was judged right before it.
    /// - Returns: the verification, whether the code matched, and its wrong tries.
    package static func judge(verificationID: String, maxAttempts: Int64, _ store: MFAStore,
                              _ judge: (SMSVerificationRecord?) throws(MFAError) -> Bool) throws(MFAError)
        -> (record: SMSVerificationRecord?, matched: Bool, attempts: Int64) {
        var record = try store.database.read { (db) throws(MFAError) in try verification(db, verificationID) }
        guard try judge(record) else {
            guard try store.database.write({ (db) throws(MFAError) -> Bool in
                try countWrongCode(db, verificationID, maxAttempts: maxAttempts)
            }) else {
                throw MFAError(.invalidSession, "this code was already used")
            }
            record?.attempts += 1
            return (record, false, record?.attempts ?? 0)
        }
        return (record, true, record?.attempts ?? 0)
    }

    /// Counts a wrong try against an unused verification with tries left;
    /// false if it was used meanwhile (a racing right code won) or has no
    /// try left, so the try is not counted.
    package static func countWrongCode(_ db: SQLConnection, _ verificationID: String,
                                       maxAttempts: Int64) throws(MFAError) -> Bool {
        try countWrongCode(verificationID, maxAttempts: maxAttempts).run(db)
    }

    /// The count of a wrong try as a claim: when it changes nothing, a
    /// racing right code used the verification, or its tries are used up.
    static func countWrongCode(_ verificationID: String, maxAttempts: Int64) -> FactorClaim {
        FactorClaim(wrongCodeShape, [.text(verificationID), .int(maxAttempts)])
    }

    private static let wrongCodeShape = ClaimShape(
        table: "mfa_sms_verifications", assignments: "attempts = attempts + 1",
        condition: "verification_id = ? AND used = 0 AND attempts < ?",
        missed: .refuse(MFAError(.invalidSession, "this code was already used")))

    /// Uses up a code, if it still can be: unused, tries left, unexpired.
    package static func claim(_ db: SQLConnection, _ id: String, maxAttempts: Int64, now: Int64) throws(MFAError) {
        guard try claim(id, maxAttempts: maxAttempts, now: now).run(db) else {
            throw MFAError(.invalidSession, "this code was already used")
        }
    }

    /// The claim of a code: unused, tries left, unexpired.
    static func claim(_ id: String, maxAttempts: Int64, now: Int64) -> FactorClaim {
        FactorClaim(claimShape, [.text(id), .int(maxAttempts), .int(now)])
    }

    private static let claimShape = ClaimShape(
        table: "mfa_sms_verifications", assignments: "used = 1",
        condition: "verification_id = ? AND used = 0 AND attempts < ? AND expires >= ?",
        missed: .refuse(MFAError(.invalidSession, "this code was already used")))
}
