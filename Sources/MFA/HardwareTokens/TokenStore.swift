/// The inventory of hardware tokens imported without a user
/// (`mfa_tokens`), each known by its serial number within its tenant,
/// kept until it is assigned: then its row becomes a factor's (the seed
/// re-sealed for the factor) and leaves the inventory, in one transaction.
///
/// The seed is sealed for the token's row (record `token`, bound to its
/// kind, tenant and id); key rotation re-seals it with the factors
/// (`sealedTable`). A wrong code given to claim a token counts against the
/// token with the backoff a factor has, so a serial read off a token in a
/// drawer does not let anyone guess its codes.
package enum TokenStore {
    /// The tokens track of the schema (`schema_version:tokens`).
    package static let migrations: [Migration] = [
        { d, _ in [
            d.createKeyedTable("mfa_tokens", """
                token_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, uid TEXT NOT NULL DEFAULT '', \
                serial TEXT NOT NULL, factor_id TEXT NOT NULL, key_id TEXT NOT NULL, sealed \(d.blobType) NOT NULL, \
                algorithm BIGINT, digits BIGINT, period BIGINT, counter BIGINT NOT NULL, time_window BIGINT, \
                public_id TEXT, issuer TEXT, imported_at BIGINT NOT NULL, failures BIGINT NOT NULL DEFAULT 0, \
                last_failure_at BIGINT NOT NULL DEFAULT 0, locked_until BIGINT NOT NULL DEFAULT 0
                """),
            "CREATE UNIQUE INDEX mfa_tokens_serial ON mfa_tokens (tenant, serial)",
            "CREATE INDEX mfa_tokens_public_id ON mfa_tokens (public_id)",
        ] },
    ]

    /// The track's name in `mfa_meta`.
    package static let track = "schema_version:tokens"

    /// The inventory's sealed seeds, for key rotation and seal checks (its
    /// `uid` column is always empty: a token in the inventory has no user).
    package static let sealedTable = SealedTable(table: "mfa_tokens", idColumn: "token_id", record: "token",
                                                 kindColumn: "factor_id")

    /// The longest serial number, in bytes.
    package static let maxSerialBytes = 64

    /// Why `serial` cannot be a token's serial, or nil: 1 to 64 printable
    /// ASCII characters, no space.
    package static func serialProblem(_ serial: String) -> String? {
        guard !serial.isEmpty, serial.utf8.count <= maxSerialBytes,
              serial.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "a serial number must be 1 to 64 printable ASCII characters without spaces"
        }
        return nil
    }

    /// One token of the inventory.
    package struct Row: Sendable {
        package var tokenID: String
        package var tenant: String
        package var serial: String
        package var keyID: String
        package var sealed: [UInt8]
        package var importedAt: Int64
        package var failures: Int64 = 0
        package var lastFailureAt: Int64 = 0
        package var lockedUntil: Int64 = 0
        /// Everything but the secret (and a YubiKey's private id), which stay sealed.
        package var seed: HardwareTokenSeed

        /// The binding of its sealed seed.
        package var binding: SealBinding {
            SealBinding(record: "token", kind: seed.kind.factorID, tenant: tenant, uid: "", id: tokenID)
        }
    }

    private static let columns = """
        token_id, tenant, serial, factor_id, key_id, sealed, algorithm, digits, period, counter, time_window, \
        public_id, issuer, imported_at, failures, last_failure_at, locked_until
        """

    /// Stores a token.
    package static func insert(_ db: SQLConnection, _ row: Row) throws(MFAError) {
        let seed = row.seed
        try db.execute("INSERT INTO mfa_tokens (\(columns)) VALUES (\(MFAStore.placeholders(17)))", [
            .text(row.tokenID), .text(row.tenant), .text(row.serial), .text(seed.kind.factorID), .text(row.keyID),
            .blob(row.sealed), .int(Int64(seed.algorithm.rawValue)), .int(Int64(seed.digits)), .int(seed.period),
            .int(seed.counter), seed.window.map { .int(Int64($0)) } ?? .null, seed.publicID.map(SQLValue.text) ?? .null,
            seed.issuer.map(SQLValue.text) ?? .null, .int(row.importedAt), .int(0), .int(0), .int(0),
        ])
    }

    /// The unassigned token of `tenant` with this serial, if any.
    package static func find(_ db: SQLConnection, tenant: String, serial: String) throws(MFAError) -> Row? {
        try db.query("SELECT \(columns) FROM mfa_tokens WHERE tenant = ? AND serial = ?",
                     [.text(tenant), .text(serial)]).first.map { (row) throws(MFAError) in try read(row) }
    }

    /// The unassigned YubiKey of `tenant` with this public id, if any.
    package static func find(_ db: SQLConnection, tenant: String, publicID: String) throws(MFAError) -> Row? {
        try db.query("""
            SELECT \(columns) FROM mfa_tokens WHERE public_id = ? AND tenant = ? AND factor_id = ? \
            ORDER BY serial LIMIT 1
            """, [.text(publicID), .text(tenant), .text(HardwareTokenSeed.Kind.yubicoOTP.factorID)])
            .first.map { (row) throws(MFAError) in try read(row) }
    }

    /// The unassigned tokens of `tenant` (nil: every tenant) after `after`
    /// (tenant, serial), at most `limit`, by tenant then serial.
    package static func list(_ db: SQLConnection, tenant: String?, after: (String, String)?,
                             limit: Int) throws(MFAError) -> [Row] {
        var conditions: [String] = []
        var parameters: [SQLValue] = []
        if let tenant {
            conditions.append("tenant = ?")
            parameters.append(.text(tenant))
        }
        if let after {
            conditions.append("(tenant > ? OR (tenant = ? AND serial > ?))")
            parameters += [.text(after.0), .text(after.0), .text(after.1)]
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try db.query("SELECT \(columns) FROM mfa_tokens\(filter) ORDER BY tenant, serial LIMIT ?",
                            parameters + [.int(Int64(limit))]).map { (row) throws(MFAError) in try read(row) }
    }

    /// Takes a token out of the inventory (it became a factor, or was
    /// removed); `invalidSession` if another call took it first.
    package static func take(_ db: SQLConnection, tokenID: String) throws(MFAError) {
        guard try db.execute("DELETE FROM mfa_tokens WHERE token_id = ?", [.text(tokenID)]) == 1 else {
            throw MFAError(.invalidSession, "this token was assigned or removed meanwhile")
        }
    }

    /// Counts a wrong code given to claim a token, with a factor's backoff.
    /// - Returns: until when the token refuses claims (0 when it does not).
    @discardableResult
    package static func countFailure(_ db: SQLConnection, tokenID: String, now: Int64,
                                     limits: MFALimits) throws(MFAError) -> Int64 {
        guard let row = try db.query("SELECT failures, last_failure_at FROM mfa_tokens WHERE token_id = ?",
                                     [.text(tokenID)]).first,
              row.count == 2, let failures = row[0].int, let last = row[1].int else { return 0 }
        let (count, until) = Backoff.next(failures: failures, lastFailure: last, now: now, limits: limits)
        try db.execute("UPDATE mfa_tokens SET failures = ?, last_failure_at = ?, locked_until = ? WHERE token_id = ?",
                       [.int(count), .int(now), .int(until), .text(tokenID)])
        return until
    }

    /// Whether a factor of `tenant` was made from the token `serial`, or the
    /// inventory holds it.
    package static func known(_ db: SQLConnection, tenant: String, serial: String) throws(MFAError) -> Bool {
        !(try db.query("""
            SELECT 1 FROM mfa_tokens WHERE tenant = ? AND serial = ? UNION ALL \
            SELECT 1 FROM mfa_factors WHERE tenant = ? AND (totp_serial = ? OR yubico_serial = ?)
            """, [.text(tenant), .text(serial), .text(tenant), .text(serial), .text(serial)]).isEmpty)
    }

    /// The factors made from hardware tokens, as (tenant, serial, factor id,
    /// public id, uid, enrollment id, enrolled at), of `tenant` (nil: every
    /// tenant) after `after`, at most `limit`, by tenant then serial.
    package static func assigned(_ db: SQLConnection, tenant: String?, after: (String, String)?,
                                 limit: Int) throws(MFAError) -> [HardwareToken] {
        var conditions = ["COALESCE(totp_serial, yubico_serial) IS NOT NULL"]
        var parameters: [SQLValue] = []
        if let tenant {
            conditions.append("tenant = ?")
            parameters.append(.text(tenant))
        }
        if let after {
            conditions.append("(tenant > ? OR (tenant = ? AND COALESCE(totp_serial, yubico_serial) > ?))")
            parameters += [.text(after.0), .text(after.0), .text(after.1)]
        }
        return try db.query("""
            SELECT tenant, COALESCE(totp_serial, yubico_serial) AS serial, factor_id, yubico_public_id, uid, \
            enrollment_id, enrolled_at FROM mfa_factors WHERE \(conditions.joined(separator: " AND ")) \
            ORDER BY tenant, serial LIMIT ?
            """, parameters + [.int(Int64(limit))]).map { (row) throws(MFAError) in
            guard row.count == 7, let tenant = row[0].text, let serial = row[1].text, let factorID = row[2].text,
                  let uid = row[4].text, let id = row[5].text, let time = row[6].int else {
                throw MFAError(.storageError, "a stored token factor is malformed")
            }
            return HardwareToken(serial: serial, factorID: factorID, tenant: tenant.isEmpty ? nil : tenant,
                                 publicID: row[3].text, issuer: nil, uid: uid, enrollmentID: id, time: time)
        }
    }

    /// Reads a row of `columns`.
    private static func read(_ row: SQLRow) throws(MFAError) -> Row {
        guard row.count == 17, let id = row[0].text, let tenant = row[1].text, let serial = row[2].text,
              let kind = row[3].text.flatMap(HardwareTokenSeed.Kind.init(rawValue:)), let keyID = row[4].text,
              let sealed = row[5].blob, let rawAlgorithm = row[6].int,
              let algorithm = Int32(exactly: rawAlgorithm).flatMap(OTPAlgorithm.init(rawValue:)),
              let digits = row[7].int.flatMap({ Int(exactly: $0) }), let period = row[8].int,
              let counter = row[9].int, row[10] == .null || row[10].int != nil,
              let importedAt = row[13].int, let failures = row[14].int, let lastFailure = row[15].int,
              let locked = row[16].int else {
            throw MFAError(.storageError, "a stored hardware token is malformed")
        }
        var seed = HardwareTokenSeed(kind: kind, secret: [], counter: counter)
        seed.algorithm = algorithm
        seed.digits = digits
        seed.period = period
        seed.window = row[10].int.flatMap { Int(exactly: $0) }
        seed.publicID = row[11].text
        seed.issuer = row[12].text
        seed.serial = serial
        seed.hardware = true
        return Row(tokenID: id, tenant: tenant, serial: serial, keyID: keyID, sealed: sealed, importedAt: importedAt,
                   failures: failures, lastFailureAt: lastFailure, lockedUntil: locked, seed: seed)
    }
}
