/// The store's schema: numbered forward migrations in tracks.
///
/// The core track (`schema_version` in `mfa_meta`) holds what every factor
/// shares: configuration, users, factors, single-use records. Each factor
/// kind has a track of its own (`schema_version:<factor id>`) for its own
/// tables, declared beside the factor (`SecondFactor.migrations`). Opening a
/// store applies, in one transaction, every migration after the stored
/// versions: the core track first, then each factor's in registry order. A
/// store with any track newer than this code knows is refused.
package enum Schema {
    /// The core version this libmfa writes.
    package static var currentVersion: Int64 { Int64(CoreSchema.migrations.count) }

    /// Every track: the core, then each registered factor's.
    static var tracks: [(name: String, migrations: [Migration])] {
        [("schema_version", CoreSchema.migrations)]
            + FactorRegistry.all.map { ("schema_version:" + $0.id, $0.migrations) }
    }

    /// Brings the database up to date.
    /// - Throws: `storageError` if the database is newer than this code, or on any failure.
    package static func migrate(_ database: SQLDatabase) throws(MFAError) {
        let create = "CREATE TABLE IF NOT EXISTS mfa_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)"
        // SQLite's write transaction holds the whole file: the table is made in
        // it. Elsewhere two processes creating the table at once may clash
        // (PostgreSQL's catalog) before any row can be locked: the loser finds
        // it made when it tries again.
        let ownTransaction = !database.dialect.rowLock.isEmpty
        if ownTransaction {
            do {
                try database.write { (db) throws(MFAError) in try db.execute(create, []) }
            } catch {
                try database.write { (db) throws(MFAError) in try db.execute(create, []) }
            }
        }
        try database.transaction { (db) throws(MFAError) in
            if !ownTransaction { try db.execute(create, []) }
            // The core version's row, locked (created at 0 in a new store):
            // opening processes migrate one after another.
            try db.execute(database.dialect.upsert(into: "mfa_meta", columns: ["name", "value"], conflict: ["name"],
                                                   update: [.expression("value", "mfa_meta.value")]),
                           [.text("schema_version"), .int(0)])
            for track in tracks {
                let rows = try db.query("SELECT value FROM mfa_meta WHERE name = ?", [.text(track.name)])
                let stored = rows.first?.first?.int ?? 0
                let known = Int64(track.migrations.count)
                guard stored <= known, stored >= 0 else {
                    throw MFAError(.storageError, "the store has \(track.name) \(stored); this libmfa knows up to \(known)")
                }
                guard stored < known || rows.isEmpty else { continue }
                for migration in track.migrations[Int(stored)...] {
                    let statements: [String]
                    do {
                        statements = try migration(database.dialect, db)
                    } catch let error as MFAError {
                        throw error
                    } catch {
                        throw MFAError(.storageError, "a migration of \(track.name) failed: \(error)")
                    }
                    for statement in statements { try db.execute(statement, []) }
                }
                try db.execute(database.dialect.upsert(into: "mfa_meta", columns: ["name", "value"],
                                                        conflict: ["name"], update: [.proposed("value")]),
                               [.text(track.name), .int(known)])
            }
        }
    }

    /// The stored core schema version.
    package static func version(_ database: SQLDatabase) throws(MFAError) -> Int64 {
        try database.transaction { (db) throws(MFAError) in
            try db.query("SELECT value FROM mfa_meta WHERE name = 'schema_version'", []).first?.first?.int ?? 0
        }
    }
}

/// One migration: the statements to run, in the store's dialect. The
/// connection is the migrating transaction's, for a migration that must
/// read the shape it changes first (run nothing on it but reads). It
/// throws `MFAError` (a typed throw here crashes Swift 6.3's SIL lowering
/// of the closures in the migration lists).
package typealias Migration = @Sendable (any SQLDialect, any SQLConnection) throws -> [String]
