/// The store's schema: numbered forward migrations in tracks.
///
/// The core track (`schema_version` in `mfa_meta`) holds what every factor
/// shares: configuration, users, factors, single-use records. Each factor
/// kind has a track of its own (`schema_version:<factor id>`) for its own
/// tables, declared beside the factor (`SecondFactor.migrations`), and so
/// has each feature with tables of its own that is not a factor kind
/// (`schema_version:devices`, remembered devices; `schema_version:audit`,
/// the stored audit trail, `AuditSchema`). Opening a
/// store applies, in one transaction, every migration after the stored
/// versions: the core track first, then each factor's in registry order. A
/// store with any track newer than this code knows is refused.
///
/// A store whose tracks are all current is only read (`isCurrent`): opening
/// it takes no write lock, so that processes opening a store (a PAM login)
/// never wait for another's long write (an import batch). The write lock is
/// taken only to migrate, and the versions are read again under it.
///
/// A server that refuses schema changes after writes in one transaction
/// (CockroachDB, YugabyteDB: `SQLDatabase.separateSchemaChanges`) gets
/// each statement of a migration as a transaction of its own instead, and
/// each track's version recorded after each migration (`migrateSeparately`).
package enum Schema {
    /// The core version this libmfa writes.
    package static var currentVersion: Int64 { Int64(CoreSchema.migrations.count) }

    /// Every track: the core, the wrapped data keys' (`DataKeysSchema`), then
    /// each registered factor's, then those of the features with tables of
    /// their own (remembered devices, the audit trail, the hardware-token
    /// inventory).
    static var tracks: [(name: String, migrations: [Migration])] {
        [("schema_version", CoreSchema.migrations), (DataKeysSchema.track, DataKeysSchema.migrations)]
            + FactorRegistry.all.map { ("schema_version:" + $0.id, $0.migrations) }
            + [("schema_version:devices", DeviceStore.migrations)]
            + [(AuditSchema.track, AuditSchema.migrations), (TokenStore.track, TokenStore.migrations)]
    }

    /// Brings the database up to date.
    /// - Throws: `storageError` if the database is newer than this code, or on any failure.
    package static func migrate(_ database: SQLDatabase) throws(MFAError) {
        if try isCurrent(database) { return }
        if database.separateSchemaChanges { return try migrateSeparately(database) }
        // SQLite's write transaction holds the whole file: the table is made in
        // it. Elsewhere two processes creating the table at once may clash
        // (PostgreSQL's catalog) before any row can be locked: the loser finds
        // it made when it tries again.
        let ownTransaction = !database.dialect.rowLock.isEmpty
        if ownTransaction {
            do {
                try database.write { (db) throws(MFAError) in try db.execute(createMeta, []) }
            } catch {
                try database.write { (db) throws(MFAError) in try db.execute(createMeta, []) }
            }
        }
        try database.transaction { (db) throws(MFAError) in
            if !ownTransaction { try db.execute(createMeta, []) }
            // The core version's row, locked (created at 0 in a new store):
            // opening processes migrate one after another.
            try db.execute(trackRow(database.dialect), [.text("schema_version"), .int(0)])
            for track in tracks {
                let rows = try db.query("SELECT value FROM mfa_meta WHERE name = ?", [.text(track.name)])
                let stored = rows.first?.first?.int ?? 0
                let known = Int64(track.migrations.count)
                guard stored <= known, stored >= 0 else {
                    throw MFAError(.storageError, "the store has \(track.name) \(stored); this libmfa knows up to \(known)")
                }
                guard stored < known || rows.isEmpty else { continue }
                for migration in track.migrations[Int(stored)...] {
                    let statements = try Self.statements(of: migration, track: track.name, database.dialect, db)
                    for statement in statements { try db.execute(statement, []) }
                }
                try db.execute(database.dialect.upsert(into: "mfa_meta", columns: ["name", "value"],
                                                        conflict: ["name"], update: [.proposed("value")]),
                               [.text(track.name), .int(known)])
            }
        }
    }

    /// Whether every track of the store is at the version this libmfa
    /// writes, read without a transaction or a lock. False for a store
    /// without `mfa_meta` (a new one) or with a track behind.
    /// - Throws: `storageError` if a track is newer than this libmfa knows.
    static func isCurrent(_ database: SQLDatabase) throws(MFAError) -> Bool {
        let rows: [SQLRow]
        do {
            rows = try database.read { (db) throws(MFAError) in try db.query("SELECT name, value FROM mfa_meta", []) }
        } catch {
            // No such table (a new store), or it cannot be read now: the migration decides under its lock.
            return false
        }
        var versions: [String: Int64] = [:]
        for row in rows where row.count == 2 {
            if let name = row[0].text, let value = row[1].int { versions[name] = value }
        }
        var current = true
        for track in tracks {
            guard let stored = versions[track.name] else {
                current = false
                continue
            }
            let known = Int64(track.migrations.count)
            guard stored <= known, stored >= 0 else {
                throw MFAError(.storageError, "the store has \(track.name) \(stored); this libmfa knows up to \(known)")
            }
            if stored < known { current = false }
        }
        return current
    }

    /// The table of the tracks' versions.
    private static let createMeta = "CREATE TABLE IF NOT EXISTS mfa_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)"

    /// Creates a track's row at a version (parameters: name, version) unless
    /// it is there; either way the row is locked until the transaction ends.
    private static func trackRow(_ dialect: any SQLDialect) -> String {
        dialect.upsert(into: "mfa_meta", columns: ["name", "value"], conflict: ["name"],
                       update: [.expression("value", "mfa_meta.value")])
    }

    /// A migration's statements, as it gives them for this dialect and store.
    private static func statements(of migration: Migration, track: String, _ dialect: any SQLDialect,
                                   _ db: any SQLConnection) throws(MFAError) -> [String] {
        do {
            return try migration(dialect, db)
        } catch let error as MFAError {
            throw error
        } catch {
            throw MFAError(.storageError, "a migration of \(track) failed: \(error)")
        }
    }

    /// Brings the database up to date one statement at a time, for servers
    /// that refuse a schema change after a write in the same transaction
    /// (and advise one schema change per transaction).
    ///
    /// Nothing holds the other openers off, so each statement may meet its
    /// own work done already, by another process opening the store at the
    /// same time or by one that stopped halfway: a table or index that
    /// exists, a column added or dropped, rows copied (`alreadyDone`). Such
    /// a statement is passed over. A track's version moves on only after
    /// every statement of a migration has run or been passed over, and
    /// never backwards. Unlike the transactional way this is not atomic:
    /// processes of an older libmfa must be stopped before a newer one
    /// opens the store.
    static func migrateSeparately(_ database: SQLDatabase) throws(MFAError) {
        try applyAlone(createMeta, database)
        let dialect = database.dialect
        let rows = try database.read { (db) throws(MFAError) in try db.query("SELECT name, value FROM mfa_meta", []) }
        var versions: [String: Int64] = [:]
        for row in rows where row.count == 2 {
            if let name = row[0].text, let value = row[1].int { versions[name] = value }
        }
        var pending: [(name: String, migrations: ArraySlice<Migration>)] = []
        for track in tracks {
            let stored: Int64
            if let version = versions[track.name] {
                stored = version
            } else {
                // The track's row, created at 0 (unless another process just made it).
                try database.write { (db) throws(MFAError) in
                    try db.execute(trackRow(dialect), [.text(track.name), .int(0)])
                }
                stored = try storedVersion(track.name, database)
            }
            let known = Int64(track.migrations.count)
            guard stored <= known, stored >= 0 else {
                throw MFAError(.storageError, "the store has \(track.name) \(stored); this libmfa knows up to \(known)")
            }
            pending.append((track.name, track.migrations[Int(stored)...]))
        }
        for (name, migrations) in pending {
            for (index, migration) in zip(migrations.indices, migrations) {
                // Another opener may have finished this migration since the
                // versions were read: its work is not done twice (a table a
                // later migration dropped is not made again).
                if try storedVersion(name, database) > Int64(index) { continue }
                let statements = try database.read { (db) throws(MFAError) -> [String] in
                    try Self.statements(of: migration, track: name, dialect, db)
                }
                for statement in statements {
                    if try storedVersion(name, database) > Int64(index) { break }
                    try applyAlone(statement, database)
                }
                try database.write { (db) throws(MFAError) in
                    try db.execute("UPDATE mfa_meta SET value = ? WHERE name = ? AND value < ?",
                                   [.int(Int64(index + 1)), .text(name), .int(Int64(index + 1))])
                }
            }
        }
    }

    /// A track's stored version (0 without a row).
    private static func storedVersion(_ name: String, _ database: SQLDatabase) throws(MFAError) -> Int64 {
        try database.read { (db) throws(MFAError) in
            try db.query("SELECT value FROM mfa_meta WHERE name = ?", [.text(name)]).first?.first?.int ?? 0
        }
    }

    /// The SQLSTATEs that say a migration statement's work is done already:
    /// the table or index exists (42P07), the column was added (42701),
    /// the column was dropped, or a statement moving its values out of it
    /// finds it gone (42703: the values moved before it went), a statement
    /// moving rows out of a table finds the table gone (42P01: they moved
    /// before it went), the rows were copied (23505: one statement copies
    /// them all or none) or the table they were copied into is gone again
    /// (42P01: a later migration moved them on and dropped it).
    package static func alreadyDone(_ statement: String) -> Set<String> {
        let words = statement.split(separator: " ", maxSplits: 6).map { $0.uppercased() }
        guard let first = words.first else { return [] }
        switch first {
        case "CREATE": return ["42P07"]
        case "ALTER" where words.contains("ADD"): return ["42701"]
        case "ALTER" where words.contains("DROP"): return ["42703"]
        case "INSERT": return ["23505", "42703", "42P01"]
        case "UPDATE", "DELETE": return ["42703", "42P01"]
        default: return []
        }
    }

    /// Runs one migration statement alone, passing over work done already;
    /// a statement that fails otherwise is tried once more (two processes
    /// creating one table at once may clash in PostgreSQL's catalog before
    /// either sees the other's table).
    private static func applyAlone(_ statement: String, _ database: SQLDatabase) throws(MFAError) {
        let done = alreadyDone(statement)
        do {
            _ = try database.applySchemaChange(statement, alreadyDone: done)
        } catch {
            _ = try database.applySchemaChange(statement, alreadyDone: done)
        }
    }

    /// The stored core schema version.
    package static func version(_ database: SQLDatabase) throws(MFAError) -> Int64 {
        try database.read { (db) throws(MFAError) in
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
