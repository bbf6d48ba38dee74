/// The master keys' check values (`KeyCheck`, table `mfa_key_checks`).
extension MFAStore {
    /// The stored check values of `ids` by `method`, by key id (ids without one are absent).
    package func keyChecks(ids: [String], method: String) throws(MFAError) -> [String: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        return try database.read { (db) throws(MFAError) in
            var out: [String: [UInt8]] = [:]
            for row in try db.query("""
                SELECT key_id, check_value FROM mfa_key_checks WHERE method = ? AND key_id IN (\(Self.placeholders(ids.count)))
                """, [.text(method)] + ids.map(SQLValue.text)) {
                guard row.count == 2, let id = row[0].text, let value = row[1].blob else {
                    throw MFAError(.storageError, "a stored key check value is malformed")
                }
                out[id] = value
            }
            return out
        }
    }

    /// Records `value` as the check value of `id` by `method` unless one is
    /// stored already (another process may have been first), and returns the
    /// value the store then holds.
    package func recordKeyCheck(id: String, method: String, value: [UInt8],
                                at time: Int64) throws(MFAError) -> [UInt8] {
        try database.transaction { (db) throws(MFAError) in
            try db.execute(database.dialect.upsert(into: "mfa_key_checks",
                                                   columns: ["key_id", "method", "check_value", "recorded_at"],
                                                   conflict: ["key_id", "method"], update: []),
                           [.text(id), .text(method), .blob(value), .int(time)])
            guard let stored = try db.query("SELECT check_value FROM mfa_key_checks WHERE key_id = ? AND method = ?",
                                            [.text(id), .text(method)]).first?.first?.blob else {
                throw MFAError(.storageError, "a key check value was not recorded")
            }
            return stored
        }
    }

    /// Up to `limit` sealed values under `keyID` from each sealed table, of
    /// any seal format: the records a key without a check value is tried on.
    package func sealedSample(under keyID: String, limit: Int) throws(MFAError) -> [SealedRow] {
        try database.read { (db) throws(MFAError) in
            var out: [SealedRow] = []
            for table in Self.sealedTables {
                let kind = table.kindColumn ?? "'\(table.kind)'"
                let format = table == .factors ? "seal_format" : "\(FactorRecord.currentSealFormat)"
                for row in try db.query("""
                    SELECT \(table.idColumn), key_id, sealed, tenant, uid, \(kind), \(format) FROM \(table.table) \
                    WHERE key_id = ? LIMIT ?
                    """, [.text(keyID), .int(Int64(limit))]) {
                    out.append(try Self.sealedRow(row, table))
                }
            }
            return out
        }
    }
}
