/// The recovery-code factor's own table: one row per code of a set, keyed
/// by the set's enrollment id and the code's keyed hash.
enum RecoveryCodeStore {
    /// The recovery-codes track of the schema.
    static let migrations: [Migration] = [
        { d, _ in [
            d.createKeyedTable("mfa_recovery_codes", """
                enrollment_id TEXT NOT NULL, code_hash \(d.blobType) NOT NULL, used_at BIGINT NOT NULL DEFAULT 0, \
                PRIMARY KEY (enrollment_id, code_hash)
                """),
        ] },
    ]

    /// The number of unused codes of the set `f`.
    static let remainingSQL =
        "SELECT COUNT(*) FROM mfa_recovery_codes c WHERE c.enrollment_id = f.enrollment_id AND c.used_at = 0"

    /// Stores a set's code hashes.
    static func insert(_ db: SQLConnection, _ enrollmentID: String, hashes: [[UInt8]]) throws(MFAError) {
        for hash in hashes {
            try db.execute("INSERT INTO mfa_recovery_codes (enrollment_id, code_hash) VALUES (?, ?)",
                           [.text(enrollmentID), .blob(hash)])
        }
    }

    /// The claim of the code with this hash: in the set and unused.
    static func claim(_ enrollmentID: String, hash: [UInt8], now: Int64) -> FactorClaim {
        FactorClaim(claimShape, [.int(max(now, 1)), .text(enrollmentID), .blob(hash)])
    }

    private static let claimShape = ClaimShape(
        table: "mfa_recovery_codes", assignments: "used_at = ?",
        condition: "enrollment_id = ? AND code_hash = ? AND used_at = 0",
        missed: .wrong("the recovery code is wrong or was already used"))

    /// The unused codes of a set.
    static func remaining(_ db: SQLConnection, _ enrollmentID: String) throws(MFAError) -> Int64 {
        try db.query("SELECT COUNT(*) FROM mfa_recovery_codes WHERE enrollment_id = ? AND used_at = 0",
                     [.text(enrollmentID)]).first?.first?.int ?? 0
    }

    /// The enrollment id of the user's set, if any.
    static func setID(_ db: SQLConnection, tenant: String, uid: String) throws(MFAError) -> String? {
        try db.query("SELECT enrollment_id FROM mfa_factors WHERE tenant = ? AND uid = ? AND factor_id = ?",
                     [.text(tenant), .text(uid), .text(RecoveryCodesMultiFactorID)]).first?.first?.text
    }
}
