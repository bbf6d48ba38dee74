import Foundation
import MFA
import Synchronization
import Testing

/// The store's metrics: each operation timed, each retry counted by reason, failures counted.
@Suite("Metrics: store operations, retries and errors")
struct StoreMetricsTests {
    /// The store's counter `name` with `labels` in `metrics`.
    private static func value(_ metrics: MFAMetrics, _ name: String, _ labels: [String: String]) -> UInt64 {
        metrics.snapshot().value(name, labels) ?? 0
    }

    @Test("PostgreSQL: a serialization failure is retried once and counted as one retry")
    func serializationRetry() throws {
        guard StoreKind.available.contains(.postgres), StoreKind.adminURL == nil else { return }
        let location = try StoreKind.postgres.freshLocation() + "%20-cdefault_transaction_isolation%3Dserializable"
        let metrics = MFAMetrics(options: .on)
        let database = try PostgresDatabase(url: location, metrics: metrics.store)
        defer { database.close() }
        try database.transaction { (db) throws(MFAError) in
            try db.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)", [])
            try db.execute("INSERT INTO counter VALUES (1, 0)", [])
        }
        let before = Self.value(metrics, "libmfa_store_operation_duration_seconds", ["operation": "transaction"])
        // Both read the row before either writes: the second writer waits for the first
        // one's commit, then fails with 40001 and runs again (its second run reads anew).
        let readA = DispatchSemaphore(value: 0), readB = DispatchSemaphore(value: 0)
        let runs = Mutex(0)
        let errors = Mutex<[MFAErrorCode]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                try database.transaction { (db) throws(MFAError) in
                    let first = runs.withLock { $0 += 1; return $0 <= 2 }
                    _ = try db.query("SELECT n FROM counter WHERE id = 1", [])
                    if first {
                        (index == 0 ? readA : readB).signal()
                        (index == 0 ? readB : readA).wait()
                        if index == 1 { usleep(100_000) }  // the first writer goes first
                    }
                    try db.execute("UPDATE counter SET n = n + 1 WHERE id = 1", [])
                }
            } catch let error as MFAError {
                errors.withLock { $0.append(error.code) }
            } catch {
                errors.withLock { $0.append(.internal) }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty)
        #expect(runs.withLock { $0 } == 3)
        #expect(Self.value(metrics, "libmfa_store_retries_total", ["reason": "serialization_failure"]) == 1)
        #expect(Self.value(metrics, "libmfa_store_retries_total", ["reason": "deadlock"]) == 0)
        #expect(Self.value(metrics, "libmfa_store_operation_duration_seconds", ["operation": "transaction"])
            == before + 2, "a retried transaction is one operation")
        let total = try database.read { (db) throws(MFAError) in
            try db.query("SELECT n FROM counter WHERE id = 1", []).first?.first
        }
        #expect(total == .int(2))
    }

    @Test("PostgreSQL: a failed operation is counted as an error", arguments: [StoreKind.postgres])
    func storeError(_ kind: StoreKind) throws {
        guard StoreKind.available.contains(kind) else { return }
        let metrics = MFAMetrics(options: .on)
        let database = try PostgresDatabase(url: try kind.freshLocation(), metrics: metrics.store)
        #expect(throws: MFAError.self) {
            try database.read { (db) throws(MFAError) in try db.query("SELECT * FROM no_such_table", []) }
        }
        #expect(throws: MFAError.self) {
            try database.transaction { (_) throws(MFAError) in throw MFAError(.invalidSession, "not the store's") }
        }
        database.close()
        #expect(throws: MFAError.self) {
            try database.write { (db) throws(MFAError) in try db.execute("SELECT 1", []) }
        }
        #expect(Self.value(metrics, "libmfa_store_errors_total", ["operation": "read"]) == 1)
        #expect(Self.value(metrics, "libmfa_store_errors_total", ["operation": "transaction"]) == 0,
                "an engine's refusal inside a transaction is not a store error")
        #expect(Self.value(metrics, "libmfa_store_errors_total", ["operation": "write"]) == 1)
    }

    @Test("SQLite: a statement that waits for another connection's lock is counted as a busy retry")
    func sqliteBusy() throws {
        let path = try StoreKind.sqlite.freshLocation(file: true)
        let metrics = MFAMetrics(options: .on)
        let waiting = try SQLiteDatabase(path: path, metrics: metrics.store)
        let holder = try SQLiteDatabase(path: path)
        try holder.write { (db) throws(MFAError) in try db.execute("CREATE TABLE t (n INTEGER)", []) }
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? holder.transaction { (db) throws(MFAError) in
                try db.execute("INSERT INTO t VALUES (1)", [])
                holding.signal()
                usleep(120_000)
            }
            done.signal()
        }
        holding.wait()
        try waiting.write { (db) throws(MFAError) in try db.execute("INSERT INTO t VALUES (2)", []) }
        done.wait()
        #expect(Self.value(metrics, "libmfa_store_retries_total", ["reason": "busy"]) > 0)
        #expect(Self.value(metrics, "libmfa_store_errors_total", ["operation": "write"]) == 0)
        let observed = metrics.snapshot().family("libmfa_store_operation_duration_seconds")?.samples.first {
            $0.labelDictionary["operation"] == "write"
        }
        #expect(observed?.value == 1)
        #expect((observed?.sum ?? 0) >= 0.05, "the wait for the lock is in the operation's time")
    }
}
