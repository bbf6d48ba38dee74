/// Chooses the store backend from the location given at open.
enum StoreLocation {
    /// An SQLite database for a path or `":memory:"`.
    static func open(_ location: String) throws(MFAError) -> SQLDatabase {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            throw MFAError(.invalidArgument, "this libmfa has no PostgreSQL store")
        }
        return try SQLiteDatabase(path: location)
    }
}
