import Glibc

/// The shared store for servers on many machines: PostgreSQL through libpq.
///
/// A small pool of connections serves the threads of a context: each
/// transaction takes one connection for itself and gives it back. Statements
/// are prepared once per connection. A connection that breaks (server
/// restarted, network lost) or that gets no answer within the deadline
/// (`mfa_deadline_ms` in the URL; see `PostgresSettings`) makes the call fail
/// with `storageError` and is dropped; the next call connects afresh. A
/// transaction that did not commit leaves nothing behind.
///
/// A transaction that the server ends with a serialization failure or a
/// deadlock (SQLSTATE 40001, 40P01: what CockroachDB and YugabyteDB answer
/// to conflicting transactions, and PostgreSQL at SERIALIZABLE) was rolled
/// back whole, so it is run again, a bounded number of times with a short
/// random pause: nothing it did was kept, so nothing is counted twice. A
/// connection lost during COMMIT is never retried (the commit may have
/// happened): that is `storageError`. The deadline covers the retries: a
/// call's statements, transactions and retries share one budget of
/// `mfa_deadline_ms` (`CallBudget`), and once it is spent the call fails
/// with `storageError`, however many tries were left.
///
/// Behind a transaction pooler the URL does not mention (PgBouncer in
/// transaction mode), the first connection that finds it out
/// (`PostgresConnection.foundPooler`) sets the store's connections from then
/// on: no startup options, no named statements. A transaction ended by a
/// statement name that did not last (SQLSTATE 26000) was rolled back whole
/// and is run again the same way.
///
/// libpq itself is loaded when the first such database is opened (`LibPQ`).
package final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    package let dialect: any SQLDialect = PostgresDialect()
    /// Whether schema changes run each in a transaction of their own
    /// (`mfa_ddl`, or a CockroachDB or YugabyteDB server; see `PostgresSettings`).
    package let separateSchemaChanges: Bool
    private let pq: LibPQ
    /// The call's budget on the server (`mfa_deadline_ms`), in milliseconds.
    private let deadline: Int
    /// The settings new connections get; only touched with `lock` held.
    private var settings: PostgresSettings
    /// Whether statement names turned out not to last (a pooler); only touched with `lock` held.
    private var unnamed = false
    private let lock = Lock()
    /// Idle connections; only touched with `lock` held.
    private var idle: [PostgresConnection] = []
    /// Set by `close`; only touched with `lock` held.
    private var closed = false
    private static let maxIdle = 8
    /// What the context counts of its store, if anything.
    private let metrics: StoreMetrics?
    /// How many times a transaction is run again after a serialization failure or a deadlock.
    package static let maxRetries = 12

    /// Connects to the database at `url` (a `postgres://` or
    /// `postgresql://` URL, as libpq reads it, plus libmfa's own
    /// `mfa_deadline_ms`); `metrics` counts its operations and retries.
    /// - Throws: `invalidArgument` for a bad `mfa_deadline_ms`; `storageError`
    ///   if libpq cannot be loaded or the server cannot be reached.
    package init(url: String, metrics: StoreMetrics? = nil) throws(MFAError) {
        self.metrics = metrics
        settings = try PostgresSettings(url: url)
        deadline = settings.deadline
        pq = try LibPQ.shared()
        let start = CallBudget.now()
        defer { CallBudget.charge(CallBudget.now() - start) }
        let first = try PostgresConnection(pq: pq, settings: settings, until: PostgresDeadline(
            milliseconds: settings.deadline, start: start, spent: CallBudget.spent ?? 0))
        separateSchemaChanges = settings.separateDDLGiven
            ?? Self.isDistributed(serverVersion: first.serverParameter("server_version"),
                                  cockroachVersion: first.serverParameter("crdb_version"))
        adopt(first)
        idle.append(first)
    }

    /// Whether the server is CockroachDB (it reports `crdb_version` when a
    /// connection starts) or YugabyteDB (its `server_version` reads like
    /// "11.2-YB-2.20.1.0-b0"): PostgreSQL's wire protocol, but schema
    /// changes that do not mix with writes in one transaction.
    package static func isDistributed(serverVersion: String?, cockroachVersion: String?) -> Bool {
        cockroachVersion != nil || serverVersion?.contains("-YB-") == true
    }

    package func applySchemaChange(_ sql: String, alreadyDone: Set<String>) throws(MFAError) -> Bool {
        var state: String?
        do throws(MFAError) {
            try run(.write, begin: nil) { (db) throws(MFAError) in
                do throws(MFAError) {
                    try db.execute(sql, [])
                } catch {
                    state = (db as? PostgresConnection)?.lastSQLState
                    throw error
                }
            }
            return true
        } catch {
            if let state, alreadyDone.contains(state) { return false }
            throw error
        }
    }

    /// Whether the store found a transaction pooler between it and the server.
    package var foundPooler: Bool { lock.withLock { settings.pooled || unnamed } }

    @discardableResult
    package func transaction<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.transaction, begin: "BEGIN", body)
    }

    /// Reads run statement by statement, each on its own snapshot, without a
    /// transaction around them: the reads that decide anything are single
    /// statements, and every decision is checked again inside the write
    /// transaction that acts on it. (It saves two round trips per read.)
    package func read<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.read, begin: nil, body)
    }

    /// Runs each statement of `body` as its own transaction (autocommit):
    /// for a check-and-write that is one statement.
    @discardableResult
    package func write<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.write, begin: nil, body)
    }

    package func close() {
        let connections = lock.withLock { () -> [PostgresConnection] in
            closed = true
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { connection.finish() }
    }

    /// Runs `body` on a connection of the pool, again after a conflict
    /// (bounded), all within the call's budget (`CallBudget`): what the
    /// call spent before, this run's waits and its retries' pauses together
    /// never pass the deadline. The metrics, if any, time the whole of it
    /// and count each retry.
    private func run<R>(_ operation: StoreOperation, begin: String?,
                        _ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        let start = CallBudget.now()
        var failed = true
        defer {
            let end = CallBudget.now()
            CallBudget.charge(end - start)
            metrics?.observe(operation, since: start, failed: failed)
        }
        let until = PostgresDeadline(milliseconds: deadline, start: start, spent: CallBudget.spent ?? 0)
        guard !until.passed else { throw Self.spent(until, retries: 0) }
        var retries = 0
        while true {
            let connection = try checkOut(until: until)
            do {
                let result = try StoreThread.inside { () throws(MFAError) -> R in
                    try connection.transaction(begin: begin, until: until, body)
                }
                adopt(connection)
                checkIn(connection)
                failed = false
                return result
            } catch {
                adopt(connection)
                let usable = connection.isUsable
                if usable {
                    checkIn(connection)
                } else {
                    // A broken connection (or one past its deadline) means the
                    // server went away or froze: the idle ones would fail or wait
                    // the same way, so the next call connects afresh.
                    connection.finish()
                    dropIdle()
                }
                guard usable, retries < Self.maxRetries, Self.isRetryable(connection.lastSQLState) else {
                    if error.code != .storageError { failed = false }
                    throw error
                }
                retries += 1
                if let metrics { metrics.retried(Self.retryReason(connection.lastSQLState)) }
                Self.pause(before: retries)
                // The call's budget covers its retries.
                guard !until.passed else { throw Self.spent(until, retries: retries) }
            }
        }
    }

    /// The error of a call whose budget ran out between tries.
    private static func spent(_ until: PostgresDeadline, retries: Int) -> MFAError {
        MFAError(.storageError, "postgres: no answer from the server within \(until.milliseconds) ms "
            + "(\(PostgresSettings.deadlineParameter), for the whole call"
            + (retries > 0 ? ", \(retries) retries after serialization failures or deadlocks)" : ")"))
    }

    /// Whether a transaction that failed with `state` was rolled back by the
    /// server for a conflict, and may simply be run again.
    /// (A statement name that did not last, 26000, ends the transaction
    /// the same way: the connection that met it has stopped naming them.)
    static func isRetryable(_ state: String?) -> Bool {
        state == "40001" || state == "40P01" || state == PostgresConnection.missingStatement
    }

    /// The metrics' name for why a transaction that failed with `state` runs again.
    static func retryReason(_ state: String?) -> StoreRetryReason {
        switch state {
        case "40001": .serializationFailure
        case "40P01": .deadlock
        default: .statementLost
        }
    }

    /// Takes what `connection` found out about a pooler for the connections to come.
    private func adopt(_ connection: PostgresConnection) {
        guard connection.foundPooler else { return }
        lock.withLock {
            if connection.settings.pooled { settings = connection.settings }
            if !connection.named { unnamed = true }
        }
    }

    /// A short random pause before retry `number`: up to 1, 2, 4 … 64 ms.
    private static func pause(before number: Int) {
        let ceiling = UInt32(1000) << UInt32(min(number, 7) - 1)
        usleep(UInt32.random(in: 100...ceiling))
    }

    /// Calls `body` with the settings libpq reports for a connection of the
    /// pool (`PQconninfo`) and its socket, for tests.
    package func inspectConnection<R>(_ body: (_ settings: [String: String], _ socket: Int32) -> R)
        throws(MFAError) -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return connection.inspect(body)
    }

    private func dropIdle() {
        let stale = lock.withLock { () -> [PostgresConnection] in
            defer { idle.removeAll() }
            return idle
        }
        for connection in stale { connection.finish() }
    }

    private func checkOut(until: PostgresDeadline? = nil) throws(MFAError) -> PostgresConnection {
        let (reused, settings, unnamed) = try lock.withLock {
            () throws(MFAError) -> (PostgresConnection?, PostgresSettings, Bool) in
            guard !closed else { throw MFAError(.storageError, "the store is closed") }
            return (idle.popLast(), self.settings, self.unnamed)
        }
        if let reused {
            if unnamed && reused.named { reused.unname() }
            return reused
        }
        let fresh = try PostgresConnection(pq: pq, settings: settings, named: unnamed ? false : nil, until: until)
        adopt(fresh)
        return fresh
    }

    private func checkIn(_ connection: PostgresConnection) {
        let keep = lock.withLock { () -> Bool in
            guard !closed, idle.count < Self.maxIdle else { return false }
            idle.append(connection)
            return true
        }
        if !keep { connection.finish() }
    }
}
