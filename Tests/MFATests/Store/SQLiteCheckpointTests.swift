import Foundation
import MFA
import Testing

/// When the SQLite store checkpoints its write-ahead log
/// (`SQLiteCheckpoints`): not after every commit while a reader elsewhere
/// keeps the log from starting over, unless the log has grown past its
/// ceiling; and the log still starts over once nothing holds it.
@Suite("SQLite checkpoints")
struct SQLiteCheckpointTests {
    /// The log's size in frames, from a passive checkpoint of `database` (-1 if it says none).
    private func logFrames(_ database: SQLiteDatabase) throws(MFAError) -> Int64 {
        let row = try database.read { (db) throws(MFAError) in try db.query("PRAGMA wal_checkpoint(PASSIVE)", []) }
        return row.first?[1].int ?? -1
    }

    @Test("a reader holding the log: one checkpoint per 1,000 new frames, every commit past 8,000; then the log starts over")
    func heldLog() throws {
        let path = try StoreKind.sqlite.freshLocation(file: true)
        let writer = try SQLiteDatabase(path: path)
        let reader = try SQLiteDatabase(path: path)
        defer { writer.close(); reader.close() }
        try writer.write { (db) throws(MFAError) in
            try db.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
        }
        let body = SQLValue.blob([UInt8](repeating: 7, count: 300))
        let insert = { (count: Int) throws(MFAError) in
            for _ in 0..<count {
                try writer.write { (db) throws(MFAError) in
                    try db.execute("INSERT INTO rows (body) VALUES (?)", [body])
                }
            }
        }
        // Another connection in a read transaction, as a second server reading the
        // store: no checkpoint can copy the frames written after it began.
        let (commits, more) = (3_000, 6_000)
        var (held, calm, past) = (Int64(0), 0, Int64(0))
        try reader.read { (db) throws(MFAError) in
            try db.execute("BEGIN", [])
            _ = try db.query("SELECT COUNT(*) FROM rows", [])
            try insert(commits)
            held = try logFrames(writer)
            calm = writer.checkpointsRun
            // On past the ceiling: from there every commit checkpoints, as under SQLite's policy.
            try insert(more)
            past = try logFrames(writer)
            try db.execute("COMMIT", [])
        }
        #expect(held >= Int64(commits), "the log could not start over: every commit is in it")
        // SQLite's own policy would have run a checkpoint after each of the commits past 1,000 frames.
        #expect(calm >= 2 && calm <= Int(held / 1000) + 1)
        #expect(past >= Int64(SQLiteCheckpointTests.ceiling) + 500)
        let pastCeiling = writer.checkpointsRun - calm - Int(SQLiteCheckpointTests.ceiling - held) / 1000 - 1
        #expect(pastCeiling >= Int(past - SQLiteCheckpointTests.ceiling) / 3,
                "about one checkpoint per commit past the ceiling (a commit writes one to three frames)")
        // Nothing holds the log any more: the next checkpoint copies all of it, and it starts over.
        try insert(1_100)
        #expect((0..<1_000).contains(try logFrames(writer)))
        #expect(try reader.read { (db) throws(MFAError) in try db.query("SELECT COUNT(*) FROM rows", []) }
            .first?[0].int == Int64(commits + more + 1_100))
    }

    /// `SQLiteCheckpoints.ceiling`, as the tests expect it.
    private static let ceiling: Int64 = 8_000

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
        #expect((0..<1_000).contains(try logFrames(writer)))
    }
}
