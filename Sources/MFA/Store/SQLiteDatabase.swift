import CSQLite

/// The embedded store: one SQLite connection, in WAL mode, shared by the
/// threads of a context through a mutex. Other processes open their own
/// connection to the same file; SQLite's locks order their transactions.
///
/// Durability: `synchronous=NORMAL` in WAL mode survives a crash or kill of
/// the process at any point; only a power loss can drop the last commits.
/// The connection checkpoints the WAL by `SQLiteCheckpoints`' policy.
package final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    package let dialect: any SQLDialect = SQLiteDialect()
    private let lock = Lock()
    /// Only touched with `lock` held.
    private var connection: SQLiteConnection?
    /// What the context counts of its store, if anything.
    private let metrics: StoreMetrics?

    /// Opens (creating if needed) the database at `path`, or a private
    /// in-memory database for `":memory:"`; `metrics` counts its operations.
    package init(path: String, metrics: StoreMetrics? = nil) throws(MFAError) {
        self.metrics = metrics
        connection = try SQLiteConnection(path: path, metrics: metrics)
    }

    @discardableResult
    package func transaction<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.transaction) { (connection) throws(MFAError) -> R in
            try connection.transaction(begin: "BEGIN IMMEDIATE", body)
        }
    }

    /// Each statement of `body` commits by itself (autocommit): a writing
    /// statement takes the write lock as it begins, as BEGIN IMMEDIATE
    /// would, and waits for it the same way, with no BEGIN and COMMIT to run.
    @discardableResult
    package func write<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.write, body)
    }

    /// Reads run statement by statement, each in its own implicit
    /// transaction (a consistent snapshot per statement, as on PostgreSQL):
    /// no BEGIN and COMMIT around them.
    package func read<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(.read, body)
    }

    /// Runs `body` on the connection, with the lock held, timed for the
    /// metrics (the wait for the lock included) when there are some.
    private func run<R>(_ operation: StoreOperation,
                        _ body: (SQLiteConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        guard let metrics else { return try locked(body) }
        let start = CallBudget.now()
        do {
            let result = try locked(body)
            metrics.observe(operation, since: start, failed: false)
            return result
        } catch {
            metrics.observe(operation, since: start, failed: error.code == .storageError)
            throw error
        }
    }

    private func locked<R>(_ body: (SQLiteConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try lock.withLock { () throws(MFAError) -> R in
            guard let connection else { throw MFAError(.storageError, "the store is closed") }
            return try StoreThread.inside { () throws(MFAError) -> R in try body(connection) }
        }
    }

    package func close() {
        lock.withLock { connection = nil }
    }

    /// How many checkpoints of the write-ahead log this store's connection
    /// has run (`SQLiteCheckpoints`); 0 once closed.
    package var checkpointsRun: Int {
        lock.withLock { connection?.checkpoints.runs ?? 0 }
    }
}

/// A statement cache key: the SQL text, hashed by its length and a few of
/// its bytes instead of all of them (statements are long and few; equal
/// keys still compare the whole text).
struct SQLKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    func hash(into hasher: inout Hasher) {
        let sampled = text.utf8.withContiguousStorageIfAvailable { (bytes) -> Bool in
            hasher.combine(bytes.count)
            let step = max(bytes.count / 16, 1)
            var index = bytes.count - 1
            while index >= 0 {
                hasher.combine(bytes[index])
                index -= step
            }
            return true
        }
        if sampled == nil { hasher.combine(text) }
    }
}

/// One SQLite connection with its prepared statements.
final class SQLiteConnection: SQLConnection {
    private var handle: OpaquePointer?
    private var statements: [SQLKey: OpaquePointer] = [:]
    /// Recently used statements by the address of their SQL text, a
    /// shortcut past hashing the text: the slot keeps the text alive (so no
    /// other text takes its address) and is used only if the text is equal.
    private var recent = [(text: String, statement: OpaquePointer)?](repeating: nil, count: 64)
    /// The bytes of the text and blob parameters of the statement running,
    /// bound in place (`SQLITE_STATIC`): every parameter of a statement is
    /// bound again before each run, and nothing else runs meanwhile.
    private var arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// When this connection checkpoints the write-ahead log (SQLite's hook holds it unretained).
    let checkpoints = SQLiteCheckpoints()

    init(path: String, metrics: StoreMetrics?) throws(MFAError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw MFAError(.storageError, "sqlite: \(message)")
        }
        SQLiteBusyWait.install(on: handle, metrics: metrics)
        sqlite3_extended_result_codes(handle, 1)
        if path != ":memory:" {
            _ = try query("PRAGMA journal_mode=WAL", [])
            try execute("PRAGMA synchronous=NORMAL", [])
            checkpoints.install(on: handle)
        }
        // SQLite's default page cache is 2 MiB: a store of 10,000 users
        // (3 MiB) no longer fits, and every page it misses is a read from the
        // file. The cache grows only as pages are read.
        try execute("PRAGMA cache_size=-\(Self.cacheKiB)", [])
    }

    /// The page cache's limit, in KiB.
    static let cacheKiB = 16384

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
        arena.deallocate()
    }

    func transaction<R>(begin: String, _ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try execute(begin, [])
        do {
            let result = try body(self)
            try execute("COMMIT", [])
            return result
        } catch {
            _ = try? execute("ROLLBACK", [])
            throw error
        }
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> Int {
        let statement = try prepared(sql, parameters)
        defer { sqlite3_reset(statement) }
        var status = sqlite3_step(statement)
        while status == SQLITE_ROW { status = sqlite3_step(statement) }
        guard status == SQLITE_DONE else { throw failure(status) }
        return Int(sqlite3_changes(handle))
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> [SQLRow] {
        var rows: [SQLRow] = []
        try rowsOf(sql, parameters) { (row) throws(MFAError) in rows.append(row.values(from: 0)) }
        return rows
    }

    func scan(_ sql: String, _ parameters: [SQLValue],
              _ body: (any SQLColumns) throws(MFAError) -> Void) throws(MFAError) {
        try rowsOf(sql, parameters) { (row) throws(MFAError) in try body(row) }
    }

    /// Runs a query, handing `body` each row the statement steps onto.
    private func rowsOf(_ sql: String, _ parameters: [SQLValue],
                        _ body: (SQLiteRow) throws(MFAError) -> Void) throws(MFAError) {
        let statement = try prepared(sql, parameters)
        defer { sqlite3_reset(statement) }
        let row = SQLiteRow(statement: statement, count: Int(sqlite3_column_count(statement)))
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            try body(row)
        }
    }

    private func prepared(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> OpaquePointer {
        guard let handle else { throw MFAError(.storageError, "the store is closed") }
        let statement = try cached(sql, handle)
        // The parameters' bytes, end to end in the arena.
        var size = 0
        for value in parameters {
            switch value {
            case .text(let text): size += text.utf8.count
            case .blob(let bytes): size += bytes.count
            case .null, .int: break
            }
        }
        if size > arena.count {
            arena.deallocate()
            arena = .allocate(byteCount: max(size, 2 * arena.count, 1024), alignment: 8)
        }
        var offset = 0
        // Every parameter is bound on every run: no need to clear the last run's.
        for (index, value) in parameters.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, position)
            case .int(let number): status = sqlite3_bind_int64(statement, position, number)
            case .text(let text):
                let count = copy(text.utf8, at: offset)
                // An empty text still needs an address (NULL would bind NULL).
                let start = count == 0 ? Self.empty : UnsafeRawPointer(arena.baseAddress! + offset)
                status = sqlite3_bind_text(statement, position, start.assumingMemoryBound(to: CChar.self),
                                           Int32(count), nil)
                offset += count
            case .blob(let bytes):
                let count = copy(bytes, at: offset)
                let start = count == 0 ? Self.empty : UnsafeRawPointer(arena.baseAddress! + offset)
                status = sqlite3_bind_blob(statement, position, start, Int32(count), nil)
                offset += count
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        return statement
    }

    /// Copies `bytes` into the arena at `offset` (which has room for them).
    private func copy(_ bytes: some Collection<UInt8>, at offset: Int) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: arena[offset..<offset + bytes.count])
        return target.initializeMemory(as: UInt8.self, fromContentsOf: bytes).count
    }

    /// Where an empty text or blob points: a byte that is never read.
    private static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

    /// The prepared statement of `sql`, prepared now if it was not before.
    private func cached(_ sql: String, _ handle: OpaquePointer) throws(MFAError) -> OpaquePointer {
        let address = sql.utf8.withContiguousStorageIfAvailable { Int(bitPattern: $0.baseAddress) } ?? 0
        let slot = (address >> 4 ^ address >> 10) & (recent.count - 1)
        if let entry = recent[slot], entry.text == sql { return entry.statement }
        let statement: OpaquePointer
        let key = SQLKey(sql)
        if let known = statements[key] {
            statement = known
        } else {
            var fresh: OpaquePointer?
            let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &fresh, nil)
            guard status == SQLITE_OK, let fresh else { throw failure(status) }
            statements[key] = fresh
            statement = fresh
        }
        recent[slot] = (sql, statement)
        return statement
    }

    private func failure(_ status: Int32) -> MFAError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
        return MFAError(.storageError, "sqlite (\(status)): \(message)")
    }
}

/// The row a statement is on, read column by column in place: no row is
/// built, and a typed read skips the other types' conversions.
struct SQLiteRow: SQLColumns {
    let statement: OpaquePointer
    let count: Int

    func value(_ index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(statement, column))
        case SQLITE_TEXT: return .text(textColumn(column))
        case SQLITE_BLOB: return .blob(blobColumn(column))
        case SQLITE_NULL: return .null
        default: return .int(Int64(sqlite3_column_double(statement, column)))
        }
    }

    func int(_ index: Int) -> Int64? {
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else { return nil }
        return sqlite3_column_int64(statement, column)
    }

    func text(_ index: Int) -> String? {
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT else { return nil }
        return textColumn(column)
    }

    func blob(_ index: Int) -> [UInt8]? {
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { return nil }
        return blobColumn(column)
    }

    func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL
    }

    /// A TEXT column's value.
    private func textColumn(_ column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let text = sqlite3_column_text(statement, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A BLOB column's value.
    private func blobColumn(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }
}
