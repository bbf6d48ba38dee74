/// The store's operations on many users at once, for imports: one statement
/// per slice of rows instead of one per row, so that a batch of 1,000 lines
/// costs PostgreSQL a few round trips instead of thousands.
extension MFAStore {
    /// The most rows one bulk statement carries (14 parameters a factor row:
    /// far under SQLite's 32,766 and PostgreSQL's 65,535).
    package static let bulkRows = 128

    /// `0..<count` in slices of 128, 64, …, 1 rows, the largest that fit
    /// first: a bulk statement has one of eight shapes, so the prepared
    /// statements kept per connection stay few however the batches fall.
    package static func bulkSlices(_ count: Int) -> [Range<Int>] {
        var slices: [Range<Int>] = []
        var start = 0
        var size = bulkRows
        while start < count {
            while size > count - start { size /= 2 }
            slices.append(start..<start + size)
            start += size
        }
        return slices
    }

    /// `(?, ?), (?, ?), …`: `rows` rows of `columns` parameters.
    static func rowPlaceholders(_ rows: Int, columns: Int) -> String {
        Array(repeating: "(" + placeholders(columns) + ")", count: rows).joined(separator: ", ")
    }

    /// `lockUser` for each of `uids` (each once, in sorted order, so that two
    /// imports lock shared users in the same order): their rows created if
    /// missing and locked until the transaction ends.
    static func lockUsers(_ db: SQLConnection, _ tenant: String, _ uids: [String],
                          _ dialect: any SQLDialect) throws(MFAError) {
        let distinct = Set(uids).sorted()
        // SQLite's write transaction already holds the whole database.
        let locking = !dialect.rowLock.isEmpty
        for slice in bulkSlices(distinct.count) {
            var parameters: [SQLValue] = []
            for uid in distinct[slice] { parameters += [.text(tenant), .text(uid)] }
            try db.execute(usersUpsertSQL(rows: slice.count, locking: locking), parameters)
        }
    }

    /// The factors of each of `uids`, each user's in enrollment order (as
    /// `factors(_:_:_:)` reads one user's; no summaries); users without one
    /// are absent. One lookup per user joined with UNION ALL rather than an
    /// `IN` list: PostgreSQL plans a prepared statement once, and an `IN`
    /// list planned while the table is small (a new store's first batch) stays
    /// a full scan as the table grows; a lookup by user stays an index search.
    static func factors(_ db: SQLConnection, _ tenant: String,
                        _ uids: [String]) throws(MFAError) -> [String: [FactorRecord]] {
        let distinct = Set(uids).sorted()
        let lookup = "SELECT \(FactorRecord.selectList(summary: "NULL")) FROM mfa_factors f WHERE f.tenant = ? AND f.uid = ?"
        var owned: [String: [FactorRecord]] = [:]
        for slice in bulkSlices(distinct.count) {
            var parameters: [SQLValue] = []
            for uid in distinct[slice] { parameters += [.text(tenant), .text(uid)] }
            let sql = Array(repeating: lookup, count: slice.count).joined(separator: " UNION ALL ")
            for row in try db.query(sql, parameters) {
                let factor = try FactorRecord(row: row)
                owned[factor.uid, default: []].append(factor)
            }
        }
        for uid in owned.keys { owned[uid]?.sort(by: FactorRecord.enrollmentOrder) }
        return owned
    }

    /// Inserts `factors` (rows of `mfa_factors` only; `insert(_:_:maxFactors:)`
    /// inserts one this way after checking the limit).
    static func insert(_ db: SQLConnection, _ factors: [FactorRecord]) throws(MFAError) {
        let columns = FactorRecord.insertColumns
        for slice in bulkSlices(factors.count) {
            var values: [SQLValue] = []
            values.reserveCapacity(slice.count * columns.count)
            for factor in factors[slice] { values += try factor.insertValues() }
            try db.execute("""
                INSERT INTO mfa_factors (\(columns.joined(separator: ", "))) \
                VALUES \(rowPlaceholders(slice.count, columns: columns.count))
                """, values)
        }
    }
}
