/// What the Yubico OTP factor stores in its row of `mfa_factors`: the key's
/// public id (typed at the start of every OTP, not secret: it finds the
/// factor), the counter value it was stored with, and the serial number of
/// the token it was assigned from. The AES key and the private id are the
/// sealed payload; the counters accepted later are recorded in the user's
/// row, as TOTP's steps are (`UsedStep`).
package enum YubicoOTPStore {
    /// The Yubico OTP track of the schema.
    package static let migrations: [Migration] = [
        { _, _ in [
            "ALTER TABLE mfa_factors ADD COLUMN yubico_public_id TEXT",
            "ALTER TABLE mfa_factors ADD COLUMN yubico_counter BIGINT",
            "ALTER TABLE mfa_factors ADD COLUMN yubico_serial TEXT",
            "CREATE INDEX mfa_factors_yubico_public_id ON mfa_factors (yubico_public_id) "
                + "WHERE yubico_public_id IS NOT NULL",
        ] },
    ]

    /// The kind's columns in its row of `mfa_factors`.
    package static let factorColumns = ["yubico_public_id", "yubico_counter", "yubico_serial"]

    /// What an attempt reads: the public id and the stored counter.
    package static let attemptColumns = ["f.yubico_public_id", "f.yubico_counter"]

    /// The values of `factorColumns` for a new factor (`counter` -1: none accepted yet).
    package static func values(publicID: String, counter: Int64, serial: String?) -> [SQLValue] {
        [.text(publicID), .int(counter), serial.map(SQLValue.text) ?? .null]
    }

    /// The public id and stored counter read with an attempt, checked.
    package static func state(_ row: [SQLValue]) throws(MFAError) -> (publicID: String, counter: Int64) {
        guard row.count == 2, let publicID = row[0].text, let counter = row[1].int,
              YubicoOTP.isPublicID(publicID) else {
            throw MFAError(.storageError, "a stored Yubico OTP factor is malformed")
        }
        return (publicID, counter)
    }

    /// The payload: the AES key, then the private id.
    package static func payload(key: [UInt8], privateID: [UInt8]) -> [UInt8] {
        key + privateID
    }

    /// The user's YubiKey factor with this public id, if any.
    package static func enrollmentID(_ db: SQLConnection, publicID: String, tenant: String,
                                     uid: String) throws(MFAError) -> String? {
        try db.query("""
            SELECT enrollment_id FROM mfa_factors WHERE tenant = ? AND uid = ? AND factor_id = ? \
            AND yubico_public_id = ?
            """, [.text(tenant), .text(uid), .text(YubicoOTPMultiFactorID), .text(publicID)]).first?.first?.text
    }

    /// One of the user's YubiKeys (the first by enrollment id), or nil: where
    /// an OTP of a key the user does not have is judged, and counted, as a
    /// wrong OTP.
    package static func anyEnrollmentID(_ db: SQLConnection, tenant: String, uid: String) throws(MFAError) -> String? {
        try db.query("""
            SELECT enrollment_id FROM mfa_factors WHERE tenant = ? AND uid = ? AND factor_id = ? \
            ORDER BY enrollment_id LIMIT 1
            """, [.text(tenant), .text(uid), .text(YubicoOTPMultiFactorID)]).first?.first?.text
    }

    /// Whether a factor of the tenant holds this public id already.
    package static func enrolled(_ db: SQLConnection, publicID: String, tenant: String) throws(MFAError) -> Bool {
        !(try db.query("SELECT 1 FROM mfa_factors WHERE yubico_public_id = ? AND tenant = ?",
                       [.text(publicID), .text(tenant)]).isEmpty)
    }
}
