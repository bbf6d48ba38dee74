import Foundation
import MFA
import Testing

/// When the SQLite store checkpoints its write-ahead log
/// (`SQLiteCheckpoints`): not after every commit while a reader elsewhere
/// keeps the log from starting over, and the log still starts over once
/// nothing holds it.
@Suite("SQLite checkpoints")
struct SQLiteCheckpointTests {
    /// The log's size in frames, from a passive checkpoint of `database`.
    private func logFrames(_ database: SQLiteDatabase) throws -> Int64 {
        let row = try database.read { (db) throws(MFAError) in try db.query("PRAGMA wal_checkpoint(PASSIVE)", []) }
        return try #require(row.first?[1].int)
    }

    @Test("a reader holding the log: one checkpoint per 1,000 new frames, not one per commit; then the log starts over")
    func heldLog() throws {
        let path = try StoreKind.sqlite.freshLocation(file: true)
        let writer = try SQLiteDatabase(path: path)
        let reader = try SQLiteDatabase(path: path)
        defer { writer.close(); reader.close() }
        try writer.write { (db) throws(MFAError) in
            try db.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
        }
        let body = SQLValue.blob([UInt8](repeating: 7, count: 300))
        let insert = { (count: Int) throws in
            for _ in 0..<count {
                try writer.write { (db) throws(MFAError) in
                    try db.execute("INSERT INTO rows (body) VALUES (?)", [body])
                }
            }
        }
        // Another connection in a read transaction, as a second server reading the
        // store: no checkpoint can copy the frames written after it began.
        let commits = 3_000
        try reader.read { (db) throws(MFAError) in
            try db.execute("BEGIN", [])
            _ = try db.query("SELECT COUNT(*) FROM rows", [])
            do { try insert(commits) } catch { throw MFAError(.internal, "\(error)") }
            try db.execute("COMMIT", [])
        }
        let held = try logFrames(writer)
        #expect(held >= Int64(commits), "the log could not start over: every commit is in it")
        // SQLite's own policy would have run a checkpoint after each of the commits past 1,000 frames.
        #expect(writer.checkpointsRun >= 2 && writer.checkpointsRun <= Int(held / 1000) + 1)
        // Nothing holds the log any more: the next checkpoint copies all of it, and it starts over.
        try insert(1_100)
        #expect(try logFrames(writer) < 1_000)
        #expect(try reader.read { (db) throws(MFAError) in try db.query("SELECT COUNT(*) FROM rows", []) }
            .first?[0].int == Int64(commits + 1_100))
    }

    @Test("one connection alone: its log starts over after each checkpoint, as under SQLite's policy")
    func aloneStartsOver() throws {
        let path = try StoreKind.sqlite.freshLocation(file: true)
        let writer = try SQLiteDatabase(path: path)
        defer { writer.close() }
        try writer.write { (db) throws(MFAError) in
            try db.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
        }
        for _ in 0..<2_500 {
            try writer.write { (db) throws(MFAError) in
                try db.execute("INSERT INTO rows (body) VALUES (?)", [.blob([UInt8](repeating: 1, count: 300))])
            }
        }
        #expect(writer.checkpointsRun >= 1)
        #expect(try logFrames(writer) < 1_000)
    }
}
