/// What differs between the SQL that libmfa's stores speak, in one place
/// (in the manner of a query builder's dialect): type names, table options,
/// upserts and locks. Statements are written once against this protocol.
///
/// Locks are row locks only (no advisory locks, which CockroachDB lacks):
/// a check followed by writes locks the row it checks (`rowLock`), or is
/// one conditional statement.
package protocol SQLDialect: Sendable {
    /// A short name for messages: "sqlite", "postgres".
    var name: String { get }
    /// The column type for bytes (`BLOB`, `BYTEA`).
    var blobType: String { get }
    /// Appended to `CREATE TABLE` for tables keyed by their primary key
    /// (SQLite's ` WITHOUT ROWID`; nothing elsewhere).
    var keyedTableSuffix: String { get }
    /// How a column of the row proposed for insertion is named in an
    /// upsert's update list (`excluded.x`).
    func proposed(_ column: String) -> String
    /// Appended to a `SELECT` to lock the rows it reads until the
    /// transaction ends (` FOR UPDATE`); "" where a write transaction
    /// already holds the whole database (SQLite).
    var rowLock: String { get }
    /// Whether a statement may hold data-modifying common table expressions
    /// (`WITH x AS (UPDATE … RETURNING …) …`), so that a check and several
    /// writes are one statement, committed by itself.
    var writingCTEs: Bool { get }
}

extension SQLDialect {
    /// `INSERT INTO table (columns) VALUES (?, ...) ON CONFLICT (conflict) DO UPDATE SET ...`,
    /// or `DO NOTHING` when `update` is empty.
    /// - Parameters:
    ///   - table: the table.
    ///   - columns: the columns inserted, one `?` each.
    ///   - conflict: the unique key that decides between insert and update.
    ///   - update: assignments for an existing row; `.proposed(c)` takes the
    ///     inserted value, `.expression(c, sql)` any expression (which may use
    ///     `proposed(_:)` and the table's own columns).
    package func upsert(into table: String, columns: [String], conflict: [String],
                        update: [UpsertAssignment]) -> String {
        let values = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values)) " +
            "ON CONFLICT (\(conflict.joined(separator: ", "))) DO "
        guard !update.isEmpty else { return head + "NOTHING" }
        return head + "UPDATE SET " + update.map { assignment in
            switch assignment {
            case .proposed(let column): "\(column) = \(proposed(column))"
            case .expression(let column, let sql): "\(column) = \(sql)"
            }
        }.joined(separator: ", ")
    }

    /// A `CREATE TABLE` statement for a table keyed by its primary key.
    package func createKeyedTable(_ name: String, _ body: String) -> String {
        "CREATE TABLE \(name) (\(body))\(keyedTableSuffix)"
    }
}

/// One assignment in an upsert's update list.
package enum UpsertAssignment: Sendable {
    /// `column = <the inserted value of column>`.
    case proposed(String)
    /// `column = <sql>`.
    case expression(String, String)
}

/// SQLite 3.35 or later.
package struct SQLiteDialect: SQLDialect {
    package init() {}
    package var name: String { "sqlite" }
    package var blobType: String { "BLOB" }
    package var keyedTableSuffix: String { " WITHOUT ROWID" }
    package func proposed(_ column: String) -> String { "excluded." + column }
    package var rowLock: String { "" }
    package var writingCTEs: Bool { false }
}

/// PostgreSQL 12 or later, and the distributed databases that speak its
/// dialect (CockroachDB, YugabyteDB): nothing beyond what they all run.
package struct PostgresDialect: SQLDialect {
    package init() {}
    package var name: String { "postgres" }
    package var blobType: String { "BYTEA" }
    package var keyedTableSuffix: String { "" }
    package func proposed(_ column: String) -> String { "excluded." + column }
    package var rowLock: String { " FOR UPDATE" }
    package var writingCTEs: Bool { true }
}
