import CPQ
import CSodium
import Glibc

/// One libpq connection with its prepared statements.
///
/// Every exchange with the server is non-blocking: the connection waits on
/// its socket with `poll`, never in libpq, and gives up when the deadline
/// (`mfa_deadline_ms`) passes. Giving up drops the connection: libpq closes
/// the socket without waiting for the server (the connection is in
/// non-blocking mode), and the server rolls back whatever transaction was
/// open when it notices (and cancels a statement still running a second
/// after the deadline, through the `statement_timeout` sent when connecting).
///
/// The connection keeps no session state on the server but its prepared
/// statements, and with `mfa_prepared=off` not even those: a transaction
/// pooler may hand each transaction to another server connection.
///
/// A pooler the URL does not mention is found out (`foundPooler`): when it
/// refuses the startup options, the connection is made again without them
/// (`PostgresSettings.behindPooler`), unless the URL set `options` of its
/// own (then connecting fails with `storageError`: dropping them could put
/// the store in another schema); when a statement prepared under a name
/// is missing on the server connection a transaction lands on (SQLSTATE
/// 26000), or already taken there (42P05), the connection sends its
/// statements unnamed from then on. A name is the hash of its statement's
/// text (`statementName`), so a statement never runs under a name another
/// client prepared for something else on that server connection.
package final class PostgresConnection: SQLConnection {
    private let pq: LibPQ
    private var handle: OpaquePointer?
    private let deadline: Int
    /// Whether statements are prepared under a name (`mfa_prepared`).
    private(set) var named: Bool
    /// Whether a transaction pooler turned out to sit between the
    /// connection and the server (see the type's documentation).
    private(set) var foundPooler = false
    /// The settings the connection was made with (without startup options
    /// when the server refused them).
    private(set) var settings: PostgresSettings
    /// Prepared statement names by SQL text.
    private var prepared: [SQLKey: String] = [:]
    /// SQL texts with `?` numbered as `$1`, `$2`, … (for unnamed statements).
    private var numbered: [SQLKey: String] = [:]
    /// The SQLSTATE of the last statement that failed on the server, if any.
    private(set) var lastSQLState: String?
    /// When the transaction running must be done (its call's budget,
    /// `CallBudget`); nil between transactions.
    private var until: PostgresDeadline?

    /// Connects, within `settings.connectDeadline`; again without startup
    /// options if the server refuses them (a pooler).
    /// - Parameters:
    ///   - named: whether to prepare statements under names (the
    ///     settings', unless the store found they do not last).
    ///   - until: when the call that connects must be done, if that comes
    ///     before the connect deadline.
    /// - Throws: `storageError` if the server cannot be reached in time or refuses.
    init(pq: LibPQ, settings: PostgresSettings, named: Bool? = nil, until: PostgresDeadline? = nil) throws(MFAError) {
        self.pq = pq
        self.settings = settings
        deadline = settings.deadline
        self.named = named ?? settings.prepared
        do {
            try connect(settings, until: until)
        } catch {
            // PgBouncer: "unsupported startup parameter: options".
            guard error.message.contains("unsupported startup parameter"), settings.startupOptions != nil else {
                throw error
            }
            // libmfa's own options can go; the URL's cannot (a search_path
            // left out would put the store in another schema).
            guard !settings.hasOwnOptions else {
                throw MFAError(.storageError, "postgres: the server (a connection pooler?) refuses startup options, "
                    + "and the store URL sets options of its own: set them for the role on the server "
                    + "(ALTER ROLE ... SET) or in the pooler, and take them out of the URL")
            }
            self.settings = settings.behindPooler()
            self.named = self.named && self.settings.prepared
            foundPooler = true
            try connect(self.settings, until: until)
        }
        if let handle {
            _ = pq.setNonblocking(handle, 1)
            // Notices ("relation already exists, skipping") are not for the host's stderr.
            _ = pq.setNoticeProcessor(handle, { _, _ in }, nil)
        }
    }

    deinit { finish() }

    /// Whether the connection can serve another transaction.
    var isUsable: Bool {
        guard let handle else { return false }
        return pq.status(handle) == CONNECTION_OK && pq.transactionStatus(handle) == PQTRANS_IDLE
    }

    /// A setting the server reported when the connection started
    /// (`server_version`; CockroachDB adds `crdb_version`), if it did.
    func serverParameter(_ name: String) -> String? {
        guard let handle, let value = pq.parameterStatus(handle, name) else { return nil }
        return String(cString: value)
    }

    /// Sends every statement unnamed from now on.
    func unname() {
        named = false
        prepared.removeAll()
    }

    /// Closes the connection without waiting for the server.
    func finish() {
        if let handle { pq.finish(handle) }
        handle = nil
        prepared.removeAll()
    }

    /// The connection's settings as libpq reports them (`PQconninfo`), and its socket.
    func inspect<R>(_ body: (_ settings: [String: String], _ socket: Int32) -> R) -> R {
        var settings: [String: String] = [:]
        guard let handle else { return body(settings, -1) }
        if let options = pq.conninfo(handle) {
            var option = options
            while let keyword = option.pointee.keyword {
                if let value = option.pointee.val { settings[String(cString: keyword)] = String(cString: value) }
                option += 1
            }
            pq.conninfoFree(options)
        }
        return body(settings, pq.socket(handle))
    }

    /// Runs `body` inside `begin` … COMMIT, or statement by statement when
    /// `begin` is nil; every wait on the server ends by `until` (each one by
    /// the deadline from its start when nil).
    func transaction<R>(begin: String?, until: PostgresDeadline? = nil,
                        _ body: (SQLConnection) throws(MFAError) -> R) throws(MFAError) -> R {
        lastSQLState = nil
        self.until = until
        defer { self.until = nil }
        guard let begin else { return try body(self) }
        try command(begin)
        do {
            let result = try body(self)
            try command("COMMIT")
            return result
        } catch {
            if let handle, pq.status(handle) == CONNECTION_OK { _ = try? command("ROLLBACK") }
            throw error
        }
    }

    @discardableResult
    package func execute(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> Int {
        let result = try run(sql, parameters)
        defer { pq.clear(result) }
        return pq.cmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    package func query(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> [SQLRow] {
        let result = try run(sql, parameters)
        defer { pq.clear(result) }
        let rows = pq.ntuples(result)
        let columns = pq.nfields(result)
        var out: [SQLRow] = []
        out.reserveCapacity(Int(rows))
        for row in 0..<rows {
            out.append((0..<columns).map { PostgresValue.decode(pq, result, row, $0) })
        }
        return out
    }

    // MARK: - Connecting

    private func connect(_ settings: PostgresSettings, until call: PostgresDeadline?) throws(MFAError) {
        let own = PostgresDeadline(milliseconds: settings.connectDeadline)
        let until = call.map(own.earlier) ?? own
        let parameters = settings.connectionParameters
        handle = CStrings.with(parameters.map(\.keyword)) { keywords in
            CStrings.with(parameters.map(\.value)) { values in pq.connectStartParams(keywords, values, 1) }
        }
        guard let handle else { throw MFAError(.storageError, "postgres: cannot connect: out of memory") }
        // libpq's protocol: start as if PQconnectPoll had asked to write.
        var polling = PGRES_POLLING_WRITING
        while pq.status(handle) != CONNECTION_BAD {
            switch polling {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
                let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
                guard try wait(for: events, until: until) else {
                    finish()
                    throw MFAError(.storageError, "postgres: cannot connect: no answer from the server within "
                        + "\(until.milliseconds) ms (\(PostgresSettings.deadlineParameter) or connect_timeout)")
                }
            default:
                break
            }
            if polling == PGRES_POLLING_FAILED { break }
            polling = pq.connectPoll(handle)
        }
        let message = Self.text(pq.errorMessage(handle))
        finish()
        throw MFAError(.storageError, "postgres: cannot connect: \(Self.firstLine(message))")
    }

    // MARK: - Statements

    private func command(_ sql: String, expect: ExecStatusType = PGRES_COMMAND_OK) throws(MFAError) {
        let result = try exchange { handle in pq.sendQuery(handle, sql) }
        defer { pq.clear(result) }
        guard pq.resultStatus(result) == expect else { throw failure(result) }
    }

    private func run(_ sql: String, _ parameters: [SQLValue]) throws(MFAError) -> OpaquePointer {
        let buffers = PostgresParameters(parameters)
        var result: OpaquePointer?
        if named {
            let name = try statement(sql, count: parameters.count)
            if let name {
                result = try exchange { handle in
                    buffers.withArrays { values, lengths, formats in
                        pq.sendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 0)
                    }
                }
            }
            if let failed = result, pq.resultStatus(failed) == PGRES_FATAL_ERROR,
               Self.state(pq, failed) == Self.missingStatement {
                // Missing on the server connection this landed on: names do not last.
                pq.clear(failed)
                result = nil
            }
            if result == nil {
                // A transaction pooler hands out server connections: names go. Outside a
                // transaction the statement did nothing: send it again, unnamed. Inside one
                // the server ended the transaction, which the store runs again
                // (`PostgresDatabase.isRetryable`).
                unname()
                foundPooler = true
                guard let handle, pq.transactionStatus(handle) == PQTRANS_IDLE else {
                    if lastSQLState == nil { lastSQLState = Self.missingStatement }
                    throw MFAError(.storageError, "postgres: a prepared statement did not last (a transaction pooler)")
                }
            }
        }
        if result == nil {
            let text = numberedText(sql)
            result = try exchange { handle in
                buffers.withArrays { values, lengths, formats in
                    pq.sendQueryParams(handle, text, Int32(parameters.count), nil, values, lengths, formats, 0)
                }
            }
        }
        guard let result else { throw failure(nil) }
        let status = pq.resultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            defer { pq.clear(result) }
            throw failure(result)
        }
        return result
    }

    /// SQLSTATE invalid_sql_statement_name: "prepared statement … does not exist".
    static let missingStatement = "26000"
    /// SQLSTATE duplicate_prepared_statement: "prepared statement … already exists".
    static let duplicateStatement = "42P05"

    /// The SQLSTATE of a failed result.
    private static func state(_ pq: LibPQ, _ result: OpaquePointer) -> String? {
        pq.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    /// The name of `sql` prepared on this connection, or nil if the server
    /// connection already had that name (a transaction pooler's, prepared
    /// by another client).
    ///
    /// A name is `mfa_` and 128 bits of the statement's BLAKE2b hash: every
    /// client that names a statement so prepared the same text, so a name
    /// found on a server connection a pooler hands over can only be the
    /// statement it names.
    private func statement(_ sql: String, count: Int) throws(MFAError) -> String? {
        if let name = prepared[SQLKey(sql)] { return name }
        let text = Self.numbering(sql)
        let name = Self.statementName(text)
        let result = try exchange { handle in pq.sendPrepare(handle, name, text, Int32(count), nil) }
        defer { pq.clear(result) }
        guard pq.resultStatus(result) == PGRES_COMMAND_OK else {
            if Self.state(pq, result) == Self.duplicateStatement { return nil }
            throw failure(result)
        }
        prepared[SQLKey(sql)] = name
        return name
    }

    /// `mfa_` and the first 16 bytes of the BLAKE2b hash of `text`, in hex.
    package static func statementName(_ text: String) -> String {
        var hash = [UInt8](repeating: 0, count: 16)
        var text = text
        text.withUTF8 { bytes in
            _ = crypto_generichash(&hash, 16, bytes.baseAddress, UInt64(bytes.count), nil, 0)
        }
        var hex = [CChar](repeating: 0, count: 33)
        sodium_bin2hex(&hex, hex.count, hash, hash.count)
        return "mfa_" + String(decoding: hex.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `sql` in PostgreSQL's numbering, remembered per connection.
    private func numberedText(_ sql: String) -> String {
        if let text = numbered[SQLKey(sql)] { return text }
        let text = Self.numbering(sql)
        numbered[SQLKey(sql)] = text
        return text
    }

    /// `sql` with its `?` placeholders as `$1`, `$2`, ….
    static func numbering(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    // MARK: - The exchange

    /// Sends one request with `send` and waits, within the deadline, for all
    /// its results. The caller clears the result it gets: the first error,
    /// or else the last result.
    /// - Throws: `storageError` if the request cannot be sent, the connection
    ///   breaks, or the deadline passes (the connection is then dropped).
    private func exchange(_ send: (OpaquePointer) -> Int32) throws(MFAError) -> OpaquePointer {
        guard let handle else { throw MFAError(.storageError, "postgres: the connection is closed") }
        let until = self.until ?? PostgresDeadline(milliseconds: deadline)
        guard until.remaining > 0 else { throw deadlinePassed(until) }
        guard send(handle) == 1 else { throw failure(nil) }
        // Push the request out (the connection is non-blocking), reading
        // whatever the server sends meanwhile, as libpq asks.
        while true {
            let flushed = pq.flush(handle)
            if flushed == 0 { break }
            guard flushed == 1 else { throw failure(nil) }
            guard try wait(for: POLLIN | POLLOUT, until: until) else { throw deadlinePassed(until) }
            guard pq.consumeInput(handle) == 1 else { throw failure(nil) }
        }
        var kept: OpaquePointer?
        while true {
            while pq.isBusy(handle) == 1 {
                let ready: Bool
                do throws(MFAError) {
                    ready = try wait(for: POLLIN, until: until)
                } catch {
                    if let kept { pq.clear(kept) }
                    throw error
                }
                guard ready, pq.consumeInput(handle) == 1 else {
                    if let kept { pq.clear(kept) }
                    throw ready ? failure(nil) : deadlinePassed(until)
                }
            }
            guard let result = pq.getResult(handle) else { break }
            if let previous = kept, Self.isError(pq.resultStatus(previous)) {
                pq.clear(result)
            } else {
                if let previous = kept { pq.clear(previous) }
                kept = result
            }
        }
        guard let kept else { throw failure(nil) }
        return kept
    }

    private func wait(for events: Int32, until: PostgresDeadline) throws(MFAError) -> Bool {
        guard let handle else { throw MFAError(.storageError, "postgres: the connection is closed") }
        return try until.wait(socket: pq.socket(handle), for: events)
    }

    /// Drops the connection: the deadline passed.
    private func deadlinePassed(_ until: PostgresDeadline) -> MFAError {
        finish()
        return MFAError(.storageError, "postgres: no answer from the server within \(until.milliseconds) ms "
            + "(\(PostgresSettings.deadlineParameter)\(self.until == nil ? "" : ", for the whole call")); "
            + "the connection was dropped")
    }

    private static func isError(_ status: ExecStatusType) -> Bool {
        status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY
    }

    private func failure(_ result: OpaquePointer?) -> MFAError {
        // The first failure of a transaction is what ended it (later ones are 25P02).
        if lastSQLState == nil, let result, let state = pq.resultErrorField(result, Int32(UInt8(ascii: "C"))) {
            lastSQLState = String(cString: state)
        }
        let message = result.map { Self.text(pq.resultErrorMessage($0)) } ?? ""
        let detail = message.isEmpty ? handle.map { Self.text(pq.errorMessage($0)) } ?? "closed" : message
        if let handle, pq.status(handle) != CONNECTION_OK { prepared.removeAll() }
        return MFAError(.storageError, "postgres: \(Self.firstLine(detail))")
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").first.map(String.init) ?? ""
    }
}

/// Arrays of C strings for libpq, alive during a call.
private enum CStrings {
    /// Calls `body` with `strings` as a NULL-terminated array.
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
