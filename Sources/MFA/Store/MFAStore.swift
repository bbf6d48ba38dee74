/// libmfa's state, as atomic operations over a SQL database.
///
/// Each method is one transaction, so every check-and-update (claim a TOTP
/// step, consume a token or a pending enrollment, count a failure) holds
/// across threads, processes and servers that share the database. The SQL
/// is written once for both backends; what differs is the `SQLDialect`.
/// The operations are grouped by concern in the `MFAStore+*.swift` files;
/// each factor kind keeps the operations on its own tables in its folder.
package final class MFAStore: Sendable {
    package let database: SQLDatabase
    /// What sign-ins read, for the resolves that follow them here.
    package let memo = AttemptMemo()

    /// Wraps `database` and brings its schema up to date.
    package init(database: SQLDatabase) throws(MFAError) {
        self.database = database
        try Schema.migrate(database)
    }

    /// The database's dialect.
    package var dialect: any SQLDialect { database.dialect }

    /// `?, ?, …` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
