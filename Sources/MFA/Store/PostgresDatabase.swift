import CPQ

/// The shared store for servers on many machines: PostgreSQL through libpq.
///
/// A small pool of connections serves the threads of a context: each
/// transaction takes one connection for itself and gives it back. Statements
/// are prepared once per connection. A connection that breaks (server
/// restarted, network lost) makes the call fail with `storageError` and is
/// dropped; the next call connects afresh. A transaction that did not commit
/// leaves nothing behind.
package final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    package let dialect: any SQLDialect = PostgresDialect()
    private let conninfo: String
    private let lock = Lock()
    /// Idle connections; only touched with `lock` held.
    private var idle: [PostgresConnection] = []
    /// Set by `close`; only touched with `lock` held.
    private var closed = false
    private static let maxIdle = 8

    /// Connects to the database at `url` (a `postgres://` or
    /// `postgresql://` URL, as libpq reads it).
    /// - Throws: `storageError` if the server cannot be reached.
    package init(url: String) throws(MFAError) {
        conninfo = Self.withDefaults(url)
        let first = try PostgresConnection(conninfo: url)
        idle.append(first)
    }

    @discardableResult
    package func transaction<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(begin: "BEGIN", body)
    }

    /// The URL with the connection settings a server needs when the
    /// network fails, unless the URL sets them: give up connecting after
    /// 10 s, and notice a dead peer through TCP keepalives and a 30 s
    /// TCP user timeout instead of waiting forever.
    static func withDefaults(_ url: String) -> String {
        let defaults = ["connect_timeout=10", "keepalives=1", "keepalives_idle=30", "tcp_user_timeout=30000"]
        var out = url
        for setting in defaults where !url.contains(setting.prefix { $0 != "=" } + "=") {
            out += (out.contains("?") ? "&" : "?") + setting
        }
        return out
    }


    /// Reads run statement by statement, each on its own snapshot, without a
    /// transaction around them: the reads that decide anything are single
    /// statements, and every decision is checked again inside the write
    /// transaction that acts on it. (It saves two round trips per read.)
    package func read<R>(_ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        try run(begin: nil, body)
    }

    package func close() {
        let connections = lock.withLock { () -> [PostgresConnection] in
            closed = true
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { connection.finish() }
    }

    private func run<R>(begin: String?, _ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        let connection = try checkOut()
        do {
            let result = try connection.transaction(begin: begin, body)
            checkIn(connection)
            return result
        } catch {
            if connection.isUsable {
                checkIn(connection)
            } else {
                // A broken connection means the server went away: the idle
                // ones are broken too, so the next call connects afresh.
                connection.finish()
                dropIdle()
            }
            throw error
        }
    }

    private func dropIdle() {
        let stale = lock.withLock { () -> [PostgresConnection] in
            defer { idle.removeAll() }
            return idle
        }
        for connection in stale { connection.finish() }
    }

    private func checkOut() throws(MFAError) -> PostgresConnection {
        let reused = try lock.withLock { () throws(MFAError) -> PostgresConnection? in
            guard !closed else { throw MFAError(.storageError, "the store is closed") }
            return idle.popLast()
        }
        if let reused { return reused }
        return try PostgresConnection(conninfo: conninfo)
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

/// One libpq connection with its prepared statements.
final class PostgresConnection: SQLConnection {
    private var handle: OpaquePointer?
    /// Prepared statement names by SQL text.
    private var prepared: [String: String] = [:]

    init(conninfo: String) throws(MFAError) {
        handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { Self.text(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(handle)
            self.handle = nil
            throw MFAError(.storageError, "postgres: cannot connect: \(message)")
        }
        _ = PQsetClientEncoding(handle, "UTF8")
        // Notices ("relation already exists, skipping") are not for the host's stderr.
        _ = PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { finish() }

    /// Whether the connection can serve another transaction.
    var isUsable: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    func finish() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Runs `body` inside `begin` … COMMIT, or statement by statement when `begin` is nil.
    func transaction<R>(begin: String?, _ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        guard let begin else { return try body(self) }
        try command(begin)
        do {
            let result = try body(self)
            try command("COMMIT")
            return result
        } catch {
            if let handle, PQstatus(handle) == CONNECTION_OK { _ = try? command("ROLLBACK") }
            throw error
        }
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> Int {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> [SQLRow] {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        var out: [SQLRow] = []
        out.reserveCapacity(Int(rows))
        for row in 0..<rows {
            out.append((0..<columns).map { Self.value(result, row, $0) })
        }
        return out
    }

    /// Takes a lock named `key` until the transaction ends, so that
    /// transactions that check and then write the same thing run one at a time.
    func serialize(_ key: String) throws(MFAError) {
        _ = try query("SELECT pg_advisory_xact_lock(hashtext(?))", [.text(key)])
    }

    private func command(_ sql: String) throws(MFAError) {
        guard let handle else { throw MFAError(.storageError, "postgres: the connection is closed") }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
    }

    private func run(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> OpaquePointer {
        guard let handle else { throw MFAError(.storageError, "postgres: the connection is closed") }
        let name = try statement(sql, count: parameters.count)
        let buffers = ParameterBuffers(parameters)
        let result = buffers.withArrays { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 0)
        }
        guard let result else { throw failure(nil) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            defer { PQclear(result) }
            throw failure(result)
        }
        return result
    }

    /// The name of `sql` prepared on this connection (`?` become `$1`, `$2`, ...).
    private func statement(_ sql: String, count: Int) throws(MFAError) -> String {
        if let name = prepared[sql] { return name }
        guard let handle else { throw MFAError(.storageError, "postgres: the connection is closed") }
        let name = "mfa_\(prepared.count)"
        var numbered = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                numbered += "$\(index)"
            } else {
                numbered.append(character)
            }
        }
        let result = PQprepare(handle, name, numbered, Int32(count), nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
        prepared[sql] = name
        return name
    }

    private func failure(_ result: OpaquePointer?) -> MFAError {
        let message = result.map { Self.text(PQresultErrorMessage($0)) } ?? ""
        let detail = message.isEmpty ? handle.map { Self.text(PQerrorMessage($0)) } ?? "closed" : message
        if let handle, PQstatus(handle) != CONNECTION_OK { prepared.removeAll() }
        return MFAError(.storageError, "postgres: \(detail.split(separator: "\n").first.map(String.init) ?? "")")
    }

    private static func value(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> SQLValue {
        guard PQgetisnull(result, row, column) == 0, let raw = PQgetvalue(result, row, column) else { return .null }
        let text = String(cString: raw)
        switch PQftype(result, column) {
        case 20, 21, 23, 1700: return Int64(text).map(SQLValue.int) ?? .text(text)
        case 16: return .int(text == "t" ? 1 : 0)
        case 17: return .blob(hexBytes(text))
        default: return .text(text)
        }
    }

    /// Decodes bytea's text form, `\x0a1b...`.
    private static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.dropFirst(2))
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index + 1 < digits.count {
            out.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return out
    }

    private static func nibble(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: byte &- UInt8(ascii: "A") &+ 10
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}

/// Parameters laid out for `PQexecPrepared`: text for numbers and strings,
/// binary for bytes, NULL for null.
private final class ParameterBuffers {
    private var storage: [UnsafeMutablePointer<CChar>?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    init(_ parameters: [SQLValue]) {
        for parameter in parameters {
            switch parameter {
            case .null:
                append(nil, length: 0, format: 0)
            case .int(let number):
                append(Array(String(number).utf8), length: 0, format: 0)
            case .text(let text):
                append(Array(text.utf8), length: 0, format: 0)
            case .blob(let bytes):
                append(bytes, length: Int32(bytes.count), format: 1, terminate: false)
            }
        }
    }

    deinit {
        for pointer in storage { pointer?.deallocate() }
    }

    private func append(_ bytes: [UInt8]?, length: Int32, format: Int32, terminate: Bool = true) {
        guard let bytes else {
            storage.append(nil)
            lengths.append(0)
            formats.append(format)
            return
        }
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        pointer[bytes.count] = 0
        storage.append(pointer)
        lengths.append(length)
        formats.append(format)
    }

    func withArrays<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                UnsafePointer<Int32>?) -> R) -> R {
        let values = storage.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { valuePointers in
            lengths.withUnsafeBufferPointer { lengthPointers in
                formats.withUnsafeBufferPointer { formatPointers in
                    body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                }
            }
        }
    }
}
