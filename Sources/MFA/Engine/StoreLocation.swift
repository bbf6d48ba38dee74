/// Chooses the store backend from the location given at open.
enum StoreLocation {
    /// A PostgreSQL database for a `postgres://` or `postgresql://` URL, an
    /// SQLite database for anything else (a file path, or `":memory:"`).
    static func open(_ location: String) throws(MFAError) -> SQLDatabase {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return try PostgresDatabase(url: location)
        }
        return try SQLiteDatabase(path: location)
    }
}
