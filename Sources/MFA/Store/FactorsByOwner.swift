/// Core schema version 5: on SQLite, `mfa_factors` keyed by its owner.
///
/// A WITHOUT ROWID table is stored in the order of its primary key. Keyed
/// by `enrollment_id`, a user's factors lie wherever their random ids put
/// them, and the sign-in read went through the `(tenant, uid)` index and
/// then the table: two b-trees. Keyed by `(tenant, uid, enrollment_id)`,
/// they lie side by side and the read is one range of one b-tree; a unique
/// index keeps `enrollment_id` unique and finds a factor by its id alone.
/// With several processes on one file this matters most: each commit by
/// another connection empties a connection's page cache, so every b-tree
/// a read descends is read again from the file.
///
/// PostgreSQL stores rows in a heap whatever the key, so its table is left
/// as it is.
enum FactorsByOwner {
    /// The table the rows are copied into, renamed `mfa_factors` after.
    private static let building = "mfa_factors_by_owner"

    /// Whether `text` is made only of the bytes in `ranges` (the rebuild
    /// writes names, types and defaults into SQL as the table has them:
    /// libmfa's own are lowercase names, uppercase types and integers).
    private static func only(_ text: String, _ ranges: [ClosedRange<UInt8>]) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in ranges.contains { $0.contains(byte) } }
    }

    /// The statements that rebuild the table, read from its present columns
    /// (on a store older than the TOTP track, the TOTP columns are still in
    /// it: that track moves them out after this migration).
    static func migration(_ dialect: any SQLDialect, _ db: any SQLConnection) throws(MFAError) -> [String] {
        guard dialect is SQLiteDialect else { return [] }
        let key = ["tenant", "uid", "enrollment_id"]
        var definitions: [String] = []
        var names: [String] = []
        for row in try db.query("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info('mfa_factors')", []) {
            guard row.count == 4, let name = row[0].text, let type = row[1].text, let notNull = row[2].int,
                  only(name, [0x61...0x7a, 0x30...0x39, 0x5f...0x5f]), only(type, [0x41...0x5a]),
                  row[3] == .null || row[3].text.map({ only($0, [0x30...0x39, 0x2d...0x2d]) }) == true else {
                throw MFAError(.storageError, "mfa_factors has a column this libmfa cannot move")
            }
            var definition = "\(name) \(type)"
            if notNull != 0 || key.contains(name) { definition += " NOT NULL" }
            if let defaultValue = row[3].text { definition += " DEFAULT \(defaultValue)" }
            definitions.append(definition)
            names.append(name)
        }
        guard key.allSatisfy(names.contains) else {
            throw MFAError(.storageError, "mfa_factors lacks its owner or id columns")
        }
        let list = names.joined(separator: ", ")
        return [
            dialect.createKeyedTable(building, definitions.joined(separator: ", ")
                                     + ", PRIMARY KEY (\(key.joined(separator: ", ")))"),
            "INSERT INTO \(building) (\(list)) SELECT \(list) FROM mfa_factors",
            "DROP TABLE mfa_factors",
            "ALTER TABLE \(building) RENAME TO mfa_factors",
            "CREATE UNIQUE INDEX mfa_factors_id ON mfa_factors (enrollment_id)",
        ]
    }
}
