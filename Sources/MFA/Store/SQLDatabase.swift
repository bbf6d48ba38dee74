/// One connection, used only inside `SQLDatabase.transaction`.
///
/// Statements use `?` placeholders in both dialects; each backend prepares a
/// statement once per connection and reuses it.
package protocol SQLConnection: AnyObject {
    /// Runs a statement that returns no rows.
    /// - Returns: the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> Int
    /// Runs a query.
    func query(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> [SQLRow]
    /// Runs a query and hands each row to `body` as it is read, without
    /// building the rows (see `SQLColumns`; by default, through `query`).
    /// The row is valid only during the call, and `body` runs no statement
    /// of its own on this connection.
    func scan(_ sql: String, _ parameters: [SQLValue],
              _ body: (any SQLColumns) throws(MFAError) -> Void) throws(MFAError)
}

/// A database that runs closures as transactions.
///
/// `transaction` commits if `body` returns and rolls back if it throws, so a
/// check-and-update written inside one is atomic across threads, processes
/// and machines. A failure of the database itself is `storageError`, and the
/// next call starts afresh (reconnecting if it has to).
package protocol SQLDatabase: Sendable {
    /// Which SQL the database speaks.
    var dialect: any SQLDialect { get }
    /// Runs `body` in one transaction that takes the write lock up front.
    @discardableResult
    func transaction<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R
    /// Runs `body`'s statements each as its own transaction (autocommit):
    /// for a check-and-write that is a single statement.
    @discardableResult
    func write<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R
    /// Runs `body`, which only reads and takes no write lock. A backend may
    /// give each statement its own snapshot: what a read decides must be
    /// checked again by the write transaction that acts on it.
    func read<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R
    /// Closes every connection; later calls fail with `storageError`.
    func close()
    /// Whether opening a store applies each schema change in a transaction
    /// of its own instead of all of them in one (`Schema`): for servers
    /// that refuse a schema change after a write in the same transaction.
    var separateSchemaChanges: Bool { get }
    /// Runs one schema change as a transaction of its own.
    /// - Returns: false if the server refused it with one of the SQLSTATEs
    ///   in `alreadyDone` (what it would do is done already), true if it ran.
    /// - Throws: `storageError` for any other failure.
    func applySchemaChange(_ sql: String, alreadyDone: Set<String>) throws(MFAError) -> Bool
}

extension SQLDatabase {
    /// Schema changes run together, in one transaction.
    package var separateSchemaChanges: Bool { false }

    /// Runs the change; this database reports no SQLSTATE, so it never
    /// finds one done already.
    package func applySchemaChange(_ sql: String, alreadyDone: Set<String>) throws(MFAError) -> Bool {
        try write { (db) throws(MFAError) in try db.execute(sql, []) }
        return true
    }
}
