/// A channel's operations on its tables: reserving a send within its
/// budgets, cancelling one that could not be sent, reading, judging and
/// claiming a code.
extension SentCodeChannel {
    /// Takes the row locks of `scopes` (creating their rows), in one order
    /// for every send so that two sends never wait on each other in a circle.
    func lockBudgets(_ db: SQLConnection, _ scopes: [String], now: Int64) throws(MFAError) {
        let sorted = Array(Set(scopes)).sorted()
        guard !sorted.isEmpty else { return }
        try db.execute("""
            INSERT INTO \(budgets) (scope, touched_at) VALUES \
            \(Array(repeating: "(?, ?)", count: sorted.count).joined(separator: ", ")) \
            ON CONFLICT (scope) DO UPDATE SET touched_at = excluded.touched_at
            """, sorted.flatMap { [SQLValue.text($0), .int(now)] })
    }

    /// Reserves a send atomically: locks the row of every budget it
    /// touches, checks the resend cooldown and every quota, then records the
    /// send and the code's verification. Sends that share a budget (an
    /// address, a user, a tenant) run one after another, so a burst never
    /// passes a cap; others do not wait. A send with no cooldown scope and
    /// no quota (a test number) is only recorded.
    /// - Throws: `tooManyAttemptsTryLater` (cooldown), `quotaExceeded`.
    package func reserve(_ verification: SentCodeRecord, cooldownScopes: [String], cooldown: Int64,
                         quotas: [CodeQuota], now: Int64, _ store: MFAStore) throws(MFAError) {
        try store.database.transaction { (db) throws(MFAError) in
            try lockBudgets(db, cooldownScopes + quotas.flatMap { [$0.scope] + $0.aliases }, now: now)
            if !cooldownScopes.isEmpty, cooldown > 0 {
                let recent = try db.query("""
                    SELECT 1 FROM \(sends) WHERE scope IN (\(MFAStore.placeholders(cooldownScopes.count))) \
                    AND sent_at > ? LIMIT 1
                    """, cooldownScopes.map(SQLValue.text) + [.int(now.minus(cooldown))])
                guard recent.isEmpty else {
                    throw MFAError(.tooManyAttemptsTryLater, "a code was just sent; wait before resending")
                }
            }
            for quota in quotas {
                let counts = try db.query("""
                    SELECT COUNT(*), COALESCE(SUM(CASE WHEN sent_at > ? THEN 1 ELSE 0 END), 0) \
                    FROM \(sends) WHERE scope IN (\(MFAStore.placeholders(quota.aliases.count + 1))) \
                    AND sent_at > ?
                    """, [.int(now.minus(3600))] + ([quota.scope] + quota.aliases).map(SQLValue.text)
                        + [.int(now.minus(86_400))]).first
                let day = counts?[0].int ?? 0
                let hour = counts?[1].int ?? 0
                guard hour < quota.perHour, day < quota.perDay else {
                    throw MFAError(.quotaExceeded, "the sending quota is used up; try again later")
                }
            }
            for quota in quotas {
                try db.execute("INSERT INTO \(sends) (scope, sent_at, verification_id) VALUES (?, ?, ?)",
                               [.text(quota.scope), .int(now), .text(verification.verificationID)])
            }
            try db.execute(insertVerification, verification.values)
        }
    }

    /// Undoes a reservation whose code could not be sent: the send counts
    /// and the verification go, so the failure costs the user nothing.
    package func cancel(verificationID: String, _ store: MFAStore) throws(MFAError) {
        try store.database.transaction { (db) throws(MFAError) in
            try db.execute("DELETE FROM \(sends) WHERE verification_id = ?", [.text(verificationID)])
            try db.execute("DELETE FROM \(verifications) WHERE verification_id = ?", [.text(verificationID)])
        }
    }

    /// A verification by id.
    package func verification(_ db: SQLConnection, _ id: String) throws(MFAError) -> SentCodeRecord? {
        try db.query(selectVerification, [.text(id)]).first.map { (row) throws(MFAError) in
            try SentCodeRecord(row: row)
        }
    }

    /// Judges a code of an enrollment: `judge` sees the verification (it
    /// throws to refuse it, and says whether the code matches), read without
    /// waiting for any lock; a wrong code is then counted with a conditional
    /// update, only while the verification is unused and has tries left. A
    /// right code racing with it claims the verification with the same row
    /// (`claim`): whichever updates the row first wins, and a wrong try
    /// behind a right code's claim is not counted (the code was used:
    /// `invalidSession`), so a wrong last try cannot kill a code that was
    /// judged right before it.
    /// - Returns: the verification, whether the code matched, and its wrong tries.
    package func judge(verificationID: String, maxAttempts: Int64, _ store: MFAStore,
                       _ judge: (SentCodeRecord?) throws(MFAError) -> Bool) throws(MFAError)
        -> (record: SentCodeRecord?, matched: Bool, attempts: Int64) {
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
    package func countWrongCode(_ db: SQLConnection, _ verificationID: String,
                                maxAttempts: Int64) throws(MFAError) -> Bool {
        try countWrongCode(verificationID, maxAttempts: maxAttempts).run(db)
    }

    /// The count of a wrong try as a claim: when it changes nothing, a
    /// racing right code used the verification, or its tries are used up.
    func countWrongCode(_ verificationID: String, maxAttempts: Int64) -> FactorClaim {
        FactorClaim(wrongCodeShape, [.text(verificationID), .int(maxAttempts)])
    }

    /// Uses up a code, if it still can be: unused, tries left, unexpired.
    package func claim(_ db: SQLConnection, _ id: String, maxAttempts: Int64, now: Int64) throws(MFAError) {
        guard try claim(id, maxAttempts: maxAttempts, now: now).run(db) else {
            throw MFAError(.invalidSession, "this code was already used")
        }
    }

    /// The claim of a code: unused, tries left, unexpired.
    func claim(_ id: String, maxAttempts: Int64, now: Int64) -> FactorClaim {
        FactorClaim(claimShape, [.text(id), .int(maxAttempts), .int(now)])
    }

    /// Deletes codes past their expiry, sends older than a day and budgets untouched for a day.
    func purge(_ db: SQLConnection, now: Int64) throws(MFAError) {
        try db.execute("DELETE FROM \(verifications) WHERE expires < ?", [.int(now)])
        try db.execute("DELETE FROM \(sends) WHERE sent_at < ?", [.int(now.minus(86_400))])
        try db.execute("DELETE FROM \(budgets) WHERE touched_at < ?", [.int(now.minus(86_400))])
    }
}
