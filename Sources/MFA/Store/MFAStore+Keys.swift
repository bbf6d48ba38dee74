/// A sealed value found by `MFAStore.sealedRecords`.
package struct SealedRow: Sendable, Equatable {
    package var table: SealedTable
    package var id: String
    package var keyID: String
    package var sealed: [UInt8]
    package var binding: SealBinding
    /// How the value is sealed (`FactorRecord.currentSealFormat` for every
    /// table but the factors', whose `seal_format` column says it).
    package var format: Int64 = FactorRecord.currentSealFormat
}

extension MFAStore {
    /// Every table holding sealed values: the factors, each kind's own, and
    /// the hardware tokens not yet assigned.
    static var sealedTables: [SealedTable] {
        [SealedTable.factors] + FactorRegistry.all.flatMap { $0.sealedTables } + [TokenStore.sealedTable]
    }

    /// Sealed values not under `keyID` (or, with `legacy`, factors still
    /// sealed the schema-2 way under one of `keys`), at most `limit` per table.
    package func sealedRecords(notUnder keyID: String?, legacy: Bool = false, keys: [String] = [],
                               after: String = "", limit: Int) throws(MFAError) -> [SealedRow] {
        try database.read { (db) throws(MFAError) in
            var out: [SealedRow] = []
            for table in legacy ? [SealedTable.factors] : Self.sealedTables {
                let (sql, parameters) = Self.sealedQuery(table, notUnder: keyID, legacy: legacy, keys: keys,
                                                         after: after, limit: limit)
                for row in try db.query(sql, parameters) {
                    guard row.count == 6, let id = row[0].text, let key = row[1].text, let sealed = row[2].blob,
                          let tenant = row[3].text, let uid = row[4].text, let kind = row[5].text else {
                        throw MFAError(.storageError, "a sealed record is malformed")
                    }
                    out.append(SealedRow(table: table, id: id, keyID: key, sealed: sealed, binding: SealBinding(
                        record: table.record, kind: kind, tenant: tenant, uid: uid, id: id)))
                }
            }
            return out
        }
    }

    /// The factors still sealed the schema-2 way: the predicate of the index
    /// `mfa_factors_legacy_seal` and of the query that reads it.
    static let legacySealPredicate = "seal_format = 1"

    /// The statement `sealedRecords` runs on `table`, with its parameters.
    /// With `legacy`, its `seal_format = 1` is the predicate of the index
    /// `mfa_factors_legacy_seal` (core schema 6), which it reads instead of
    /// every factor.
    package static func sealedQuery(_ table: SealedTable, notUnder keyID: String?, legacy: Bool, keys: [String],
                                    after: String, limit: Int) -> (sql: String, parameters: [SQLValue]) {
        let kind = table.kindColumn ?? "'\(table.kind)'"
        var conditions: [String] = []
        var parameters: [SQLValue] = []
        if let keyID {
            conditions.append("key_id <> ?")
            parameters.append(.text(keyID))
        }
        if legacy {
            conditions.append("\(legacySealPredicate) AND key_id IN (\(placeholders(max(keys.count, 1))))")
            parameters += keys.isEmpty ? [.text("")] : keys.map(SQLValue.text)
        }
        if !after.isEmpty {
            conditions.append("\(table.idColumn) > ?")
            parameters.append(.text(after))
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return ("""
            SELECT \(table.idColumn), key_id, sealed, tenant, uid, \(kind) FROM \(table.table)\(whereClause) \
            ORDER BY \(table.idColumn) LIMIT ?
            """, parameters + [.int(Int64(limit))])
    }

    /// Replaces sealed values, each only if it is still under the key (and
    /// the seal format) it was read with.
    package func reseal(_ updates: [(row: SealedRow, keyID: String, sealed: [UInt8])]) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            for update in updates {
                let table = update.row.table
                let format = table == .factors ? ", seal_format = \(FactorRecord.currentSealFormat)" : ""
                try db.execute("""
                    UPDATE \(table.table) SET key_id = ?, sealed = ?\(format) WHERE \(table.idColumn) = ? \
                    AND key_id = ? AND sealed = ?
                    """, [.text(update.keyID), .blob(update.sealed), .text(update.row.id), .text(update.row.keyID),
                          .blob(update.row.sealed)])
            }
        }
    }
}
