/// What the TOTP factor stores: its code parameters and the step it was
/// stored with, in columns of its own in the factor's row of `mfa_factors`
/// (`factorColumns`, NULL in other kinds' rows), and `mfa_pending`
/// (secrets waiting for their enrollment to be finished). The steps
/// sign-ins accept later are recorded in the user's row (`UsedStep`).
package enum TOTPStore {
    /// The TOTP track of the schema.
    package static let migrations: [Migration] = [
        // Version 1: the TOTP columns move out of mfa_factors.
        { d, _ in [
            d.createKeyedTable("mfa_totp_factors", """
                enrollment_id TEXT PRIMARY KEY, algorithm BIGINT NOT NULL, digits BIGINT NOT NULL, \
                period BIGINT NOT NULL, last_step BIGINT NOT NULL DEFAULT -1
                """),
            """
            INSERT INTO mfa_totp_factors (enrollment_id, algorithm, digits, period, last_step) \
            SELECT enrollment_id, algorithm, digits, period, last_step FROM mfa_factors WHERE factor_id = 'totp'
            """,
            "ALTER TABLE mfa_factors DROP COLUMN algorithm",
            "ALTER TABLE mfa_factors DROP COLUMN digits",
            "ALTER TABLE mfa_factors DROP COLUMN period",
            "ALTER TABLE mfa_factors DROP COLUMN last_step",
        ] },
        // Version 2: sign-ins record each factor's last accepted step in the
        // user's row (`ConsumedTokens`), no longer in last_step, which keeps
        // the step the factor was stored with. Nothing moves: both are read.
        // An older libmfa, which would drop those entries, refuses the store.
        { _, _ in [] },
        // Version 3: the parameters and the stored step, fixed once the factor
        // is stored, move into the factor's row: the sign-in read gets them
        // without a join (on PostgreSQL each table a statement touches costs
        // its set-up on every execution; bench/probes/pg_read_parts.sh).
        // Only rows found in mfa_totp_factors are filled: with schema changes
        // one per transaction an opener that came late may have made the
        // table again, empty, and must not blank what another one moved.
        { _, _ in [
            "ALTER TABLE mfa_factors ADD COLUMN totp_algorithm BIGINT",
            "ALTER TABLE mfa_factors ADD COLUMN totp_digits BIGINT",
            "ALTER TABLE mfa_factors ADD COLUMN totp_period BIGINT",
            "ALTER TABLE mfa_factors ADD COLUMN totp_last_step BIGINT",
            """
            UPDATE mfa_factors SET (totp_algorithm, totp_digits, totp_period, totp_last_step) = \
            (SELECT t.algorithm, t.digits, t.period, t.last_step FROM mfa_totp_factors t \
            WHERE t.enrollment_id = mfa_factors.enrollment_id) WHERE factor_id = 'totp' \
            AND EXISTS (SELECT 1 FROM mfa_totp_factors t WHERE t.enrollment_id = mfa_factors.enrollment_id)
            """,
            "DROP TABLE IF EXISTS mfa_totp_factors",
        ] },
        // Version 4: hardware tokens. A factor's own window (±steps; NULL: the
        // configuration's adjacentIntervals), read with the parameters, and the
        // serial number of the token it was assigned from. HOTP factors keep
        // their parameters, counter and look-ahead in these OATH columns too.
        { _, _ in [
            "ALTER TABLE mfa_factors ADD COLUMN totp_window BIGINT",
            "ALTER TABLE mfa_factors ADD COLUMN totp_serial TEXT",
        ] },
    ]

    /// The OATH columns of a factor's row of `mfa_factors` (TOTP's, filled
    /// by HOTP factors too): algorithm, digits, period (NULL for HOTP), the
    /// last step (HOTP: counter) accepted before the factor was stored, the
    /// factor's own window (NULL: the configuration's), and the serial of
    /// the hardware token it came from (NULL for an app).
    package static let factorColumns = ["totp_algorithm", "totp_digits", "totp_period", "totp_last_step",
                                         "totp_window", "totp_serial"]

    /// The columns an attempt reads from the factor row `f` (kept: every
    /// sign-in read checks its row against their count): all but the serial.
    package static let attemptColumns = factorColumns.dropLast().map { "f." + $0 }

    /// The values of `factorColumns` for a new factor (`lastStep` -1: none;
    /// `period` nil for HOTP; `window` nil: the configuration's).
    package static func values(_ totp: TOTPParameters, lastStep: Int64, window: Int? = nil,
                               serial: String? = nil) -> [SQLValue] {
        [.int(Int64(totp.algorithm.rawValue)), .int(Int64(totp.digits)), .int(totp.period), .int(lastStep),
         window.map { .int(Int64($0)) } ?? .null, serial.map(SQLValue.text) ?? .null]
    }

    /// The values of `factorColumns` for an HOTP factor whose next code is
    /// the one of counter `next`.
    package static func hotpValues(algorithm: OTPAlgorithm, digits: Int, next: Int64, lookAhead: Int? = nil,
                                   serial: String? = nil) -> [SQLValue] {
        [.int(Int64(algorithm.rawValue)), .int(Int64(digits)), .null, .int(next - 1),
         lookAhead.map { .int(Int64($0)) } ?? .null, serial.map(SQLValue.text) ?? .null]
    }

    /// A factor's own window as read with an attempt (the fifth column):
    /// nil for none, a value out of range `storageError`.
    package static func window(_ row: [SQLValue]) throws(MFAError) -> Int? {
        guard row.count >= 5 else { throw MFAError(.storageError, "a stored OATH factor has no window column") }
        if row[4] == .null { return nil }
        guard let raw = row[4].int, let window = Int(exactly: raw), OTPLimits.window.contains(window) else {
            throw MFAError(.storageError, "a stored OATH factor's window is out of range")
        }
        return window
    }

    /// The algorithm and digits of a factor as read with an attempt, checked.
    package static func oath(_ row: [SQLValue]) throws(MFAError) -> (algorithm: OTPAlgorithm, digits: Int) {
        guard row.count >= 2, row[0] != .null else {
            throw MFAError(.storageError, "a stored OATH factor has no parameters")
        }
        guard let rawAlgorithm = row[0].int, let rawDigits = row[1].int,
              let algorithm = Int32(exactly: rawAlgorithm).flatMap(OTPAlgorithm.init(rawValue:)),
              let digits = Int(exactly: rawDigits), OTPLimits.digits.contains(digits) else {
            throw MFAError(.storageError, "a stored OATH factor has parameters out of range")
        }
        return (algorithm, digits)
    }

    /// Pending secrets, sealed for their pending id.
    package static let pendingTable = SealedTable(table: "mfa_pending", idColumn: "pending_id", record: "pending",
                                          kind: TOTPMultiFactorID)

    /// A TOTP secret waiting for its enrollment.
    package struct Pending: Sendable {
        var pendingID: String
        var tenant: String
        var uid: String
        var keyID: String
        var sealed: [UInt8]
        var deadline: Int64

        var binding: SealBinding {
            SealBinding(record: "pending", kind: TOTPMultiFactorID, tenant: tenant, uid: uid, id: pendingID)
        }
    }

    /// Stores a pending secret.
    package static func insertPending(_ pending: Pending, _ store: MFAStore) throws(MFAError) {
        try store.database.transaction { (db) throws(MFAError) in
            try db.execute("""
                INSERT INTO mfa_pending (pending_id, tenant, uid, key_id, sealed, deadline) VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(pending.pendingID), .text(pending.tenant), .text(pending.uid), .text(pending.keyID),
                      .blob(pending.sealed), .int(pending.deadline)])
        }
    }

    /// A pending secret by id.
    package static func pending(id: String, _ store: MFAStore) throws(MFAError) -> Pending? {
        try store.database.read { (db) throws(MFAError) -> Pending? in
            guard let row = try db.query("""
                SELECT pending_id, tenant, uid, key_id, sealed, deadline FROM mfa_pending WHERE pending_id = ?
                """, [.text(id)]).first else { return nil }
            guard row.count == 6, let pendingID = row[0].text, let tenant = row[1].text, let uid = row[2].text,
                  let keyID = row[3].text, let sealed = row[4].blob, let deadline = row[5].int else {
                throw MFAError(.storageError, "a stored pending enrollment is malformed")
            }
            return Pending(pendingID: pendingID, tenant: tenant, uid: uid, keyID: keyID, sealed: sealed,
                           deadline: deadline)
        }
    }

    /// Uses up a pending secret; throws `invalidSession` if it already was.
    package static func claimPending(_ db: SQLConnection, _ id: String) throws(MFAError) {
        guard try db.execute("DELETE FROM mfa_pending WHERE pending_id = ?", [.text(id)]) == 1 else {
            throw MFAError(.invalidSession, "this enrollment was already finished")
        }
    }

    /// A factor's parameters as read with an attempt (algorithm, digits,
    /// period, then the stored step), checked: a value out of range is
    /// `storageError`, never a trap.
    package static func parameters(_ row: [SQLValue]) throws(MFAError) -> TOTPParameters {
        guard row.count >= 3, row[0] != .null else {
            throw MFAError(.storageError, "a stored TOTP factor has no parameters")
        }
        guard let rawAlgorithm = row[0].int, let rawDigits = row[1].int, let period = row[2].int,
              let algorithm = Int32(exactly: rawAlgorithm).flatMap(OTPAlgorithm.init(rawValue:)),
              let digits = Int(exactly: rawDigits), OTPLimits.digits.contains(digits),
              OTPLimits.period.contains(period) else {
            throw MFAError(.storageError, "a stored TOTP factor has parameters out of range")
        }
        return TOTPParameters(algorithm: algorithm, digits: digits, period: period)
    }

    /// The step a factor was stored with, as read with an attempt (the
    /// fourth column), checked: anything but an integer is `storageError`.
    package static func storedStep(_ row: [SQLValue]) throws(MFAError) -> Int64 {
        guard row.count >= 4, let step = row[3].int else {
            throw MFAError(.storageError, "a stored TOTP step is malformed")
        }
        return step
    }

    /// The claim of `step`: it must be later than the step the factor was
    /// stored with (`stored`) and than every step accepted since, else the
    /// code was used already (a wrong attempt). A hardware token's `drift`
    /// is remembered with it.
    package static func claim(_ enrollmentID: String, step: Int64, stored: Int64 = -1,
                              drift: Int64? = nil) -> FactorClaim {
        FactorClaim(step: UsedStep(enrollmentID: enrollmentID, step: step, stored: stored, drift: drift))
    }
}

/// How a stored TOTP factor computes its codes.
package struct TOTPParameters: Sendable, Equatable {
    package var algorithm: OTPAlgorithm
    package var digits: Int
    package var period: Int64

    package init(algorithm: OTPAlgorithm, digits: Int, period: Int64) {
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    /// SHA1, 6 digits, 30 s: what enrollment gives every new factor.
    package static let standard = TOTPParameters(algorithm: .sha1, digits: OTPLimits.defaultDigits,
                                         period: OTPLimits.defaultPeriod)
}
