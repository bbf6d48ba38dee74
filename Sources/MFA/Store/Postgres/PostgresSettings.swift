/// What a `postgres://` store URL asks for: the URL libpq gets, the
/// connection settings libmfa adds, and libmfa's own parameters,
/// `mfa_deadline_ms`, `mfa_prepared` and `mfa_ddl`.
///
/// `mfa_deadline_ms` (100 to 600000, default 5000) bounds a call's waits on
/// the server together: connecting, and every statement, BEGIN and COMMIT
/// of the call, retries included (`CallBudget`). Past it the call fails
/// with `storageError`, the connection is dropped (the server rolls back
/// what it had not committed) and the next call connects afresh. The
/// server gets `statement_timeout` = deadline + 1 s in the connection's
/// startup packet (libpq's `options`), so that a statement left behind does
/// not hold its locks, and `plan_cache_mode=force_generic_plan`: no session
/// state is set after connecting.
///
/// `mfa_prepared` (`on`, the default, or `off`): `off` is for a transaction
/// pooler that does not carry prepared statements from one server
/// connection to the next (PgBouncer before 1.21, or without
/// `max_prepared_statements`): every statement is sent unnamed, parsed
/// with its parameters in the same round trip, and libmfa adds no startup
/// options (such poolers refuse them; give the role a `statement_timeout`).
/// The URL's own `options` are still sent: a pooler that refuses them
/// makes connecting fail rather than run without them.
/// Without `mfa_prepared` in the URL such a pooler is found out by itself
/// (`behindPooler`): a server that refuses the startup options, or a
/// statement prepared on one server connection and missing on the next.
///
/// `mfa_ddl` (`transactional` or `separate`): how opening a store applies
/// schema changes. `transactional` (PostgreSQL's way) runs them all in one
/// transaction; `separate` runs each schema change in a transaction of its
/// own, as CockroachDB requires (it refuses a schema change after a write in
/// the same transaction) and YugabyteDB advises (`Schema`). Without it the
/// server decides: `separate` for one that reports itself as CockroachDB or
/// YugabyteDB when the connection starts, `transactional` otherwise.
///
/// All three are taken out of the URL before libpq reads it.
package struct PostgresSettings: Equatable, Sendable {
    /// The query parameter that sets the deadline.
    package static let deadlineParameter = "mfa_deadline_ms"
    /// The query parameter that turns named prepared statements off.
    package static let preparedParameter = "mfa_prepared"
    /// The query parameter that says how schema changes are applied.
    package static let ddlParameter = "mfa_ddl"
    /// How much longer than the deadline the server lets a statement run, in milliseconds.
    package static let serverGrace = 1000
    /// The deadline when the URL sets none, in milliseconds.
    package static let defaultDeadline = 5000
    /// The deadlines the URL may set, in milliseconds.
    package static let deadlineRange = 100...600_000
    /// Settings every connection gets unless the URL sets them: give up
    /// connecting after 10 s, and notice a dead peer through TCP keepalives
    /// and a 30 s TCP user timeout instead of waiting for it forever.
    package static let connectionDefaults = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "30"), ("tcp_user_timeout", "30000"),
        ("fallback_application_name", "libmfa"),
    ]

    /// The store URL without libmfa's own parameters: what libpq reads.
    package let url: String
    /// How long one wait on the server may last, in milliseconds.
    package let deadline: Int
    /// How long connecting may last, in milliseconds: the deadline, or the
    /// URL's `connect_timeout` if that is shorter.
    package let connectDeadline: Int
    /// Whether statements are prepared once per connection under a name
    /// (`mfa_prepared=on`, or by default until a pooler is found), or sent
    /// unnamed with each execution.
    package var prepared: Bool { preparedGiven ?? !pooled }
    /// `mfa_prepared` as the URL gives it, if it does.
    package let preparedGiven: Bool?
    /// Whether the URL says `mfa_ddl=separate` (true) or `transactional`
    /// (false); nil if it does not say.
    package let separateDDLGiven: Bool?
    /// Whether a transaction pooler was found between libmfa and the server
    /// (`behindPooler`).
    package private(set) var pooled = false
    /// The URL's own `options` (still percent-encoded), if it has any.
    private let urlOptions: Substring?
    /// Whether the URL names server settings of its own (`options`, not
    /// empty): they are always sent, and a server that refuses them cannot
    /// be used without them.
    package var hasOwnOptions: Bool { urlOptions.map { !$0.isEmpty } ?? false }

    /// Reads a `postgres://` or `postgresql://` URL.
    /// - Throws: `invalidArgument` if `mfa_deadline_ms` is not a whole number
    ///   in `deadlineRange`, or appears twice.
    package init(url: String) throws(MFAError) {
        let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let items = parts.count > 1 ? parts[1].split(separator: "&", omittingEmptySubsequences: false) : []
        var kept: [Substring] = []
        var deadline: Int?
        var connectTimeout: Int?
        var prepared: Bool?
        var separateDDL: Bool?
        var options: Substring?
        for item in items {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pair.count > 1 ? pair[1] : nil
            if pair[0] == Self.preparedParameter {
                prepared = try Self.choice(value, Self.preparedParameter, given: prepared, yes: "on", no: "off")
                continue
            }
            if pair[0] == Self.ddlParameter {
                separateDDL = try Self.choice(value, Self.ddlParameter, given: separateDDL, yes: "separate",
                                              no: "transactional")
                continue
            }
            if pair[0] == "options" { options = value ?? "" }
            if pair[0] == Self.deadlineParameter {
                guard deadline == nil else {
                    throw MFAError(.invalidArgument, "postgres: \(Self.deadlineParameter) is given twice in the store URL")
                }
                deadline = try Self.milliseconds(value)
                continue
            }
            if pair[0] == "connect_timeout", let seconds = value.flatMap({ Int($0) }), seconds > 0 {
                connectTimeout = min(max(seconds, 2), 1_000_000) * 1000 // libpq reads 1 as 2
            }
            kept.append(item)
        }
        self.url = kept.isEmpty ? String(parts[0]) : parts[0] + "?" + kept.joined(separator: "&")
        self.deadline = deadline ?? Self.defaultDeadline
        connectDeadline = min(self.deadline, connectTimeout ?? Int.max)
        preparedGiven = prepared
        separateDDLGiven = separateDDL
        urlOptions = options
    }

    /// These settings for a transaction pooler found between libmfa and the
    /// server (PgBouncer in transaction mode): none of libmfa's startup
    /// options, which such a pooler refuses, and unnamed statements unless
    /// the URL says `mfa_prepared=on` (a pooler that carries them, PgBouncer
    /// 1.21 and later with `max_prepared_statements`).
    package func behindPooler() -> PostgresSettings {
        var settings = self
        settings.pooled = true
        return settings
    }

    /// What `PQconnectStartParams` gets, in order: the defaults (in a
    /// secure-execution process, with the effective user's own client files:
    /// `PostgresSecureExecution`), then the URL
    /// (with expand_dbname, its settings override the defaults), then the
    /// server's statement timeout (added to the URL's own `options`), then
    /// the client encoding libmfa reads and writes.
    package var connectionParameters: [(keyword: String, value: String)] {
        var parameters = Self.connectionDefaults.map { (keyword: $0.0, value: $0.1) }
        if ProcessEnvironment.isSecureExecution { parameters += PostgresSecureExecution.ownFiles }
        parameters.append((keyword: "dbname", value: url))
        if let options = startupOptions { parameters.append((keyword: "options", value: options)) }
        parameters.append((keyword: "client_encoding", value: "UTF8"))
        return parameters
    }

    /// The server settings sent when connecting (libpq's `options`): the
    /// URL's own, then `statement_timeout` (deadline + 1 s) and
    /// `plan_cache_mode=force_generic_plan` (every statement is planned once
    /// per connection, not at every execution: its plan is a handful of
    /// key lookups whatever the values), each unless the URL's options set
    /// it. With `mfa_prepared=off` or behind a pooler found, only the URL's
    /// own (libmfa adds none a pooler would refuse); nil when there are none
    /// to send, or when the URL sets `options` to nothing.
    package var startupOptions: String? {
        let own = urlOptions.map(Self.percentDecoded) ?? ""
        if urlOptions != nil && own.isEmpty { return nil }
        guard prepared, !pooled else { return own.isEmpty ? nil : own }
        var options = own.isEmpty ? [] : [own]
        if !own.contains("statement_timeout") { options.append("-c statement_timeout=\(deadline + Self.serverGrace)") }
        if !own.contains("plan_cache_mode") { options.append("-c plan_cache_mode=force_generic_plan") }
        return options.joined(separator: " ")
    }

    /// `text` with its `%XX` escapes (and `+`, as libpq does not read it, kept) decoded.
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A parameter that is one of two words: true for `yes`, false for `no`.
    /// - Throws: `invalidArgument` for anything else, or if it was `given` already.
    private static func choice(_ value: Substring?, _ parameter: String, given: Bool?, yes: String,
                               no: String) throws(MFAError) -> Bool {
        guard given == nil else {
            throw MFAError(.invalidArgument, "postgres: \(parameter) is given twice in the store URL")
        }
        guard let value, value == yes || value == no else {
            throw MFAError(.invalidArgument, "postgres: \(parameter) must be \(yes) or \(no)")
        }
        return value == yes
    }

    private static func milliseconds(_ text: Substring?) throws(MFAError) -> Int {
        guard let text, !text.isEmpty, text.count <= 7, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(text), deadlineRange.contains(value) else {
            let shown = text.map { $0.count > 20 ? $0.prefix(20) + "..." : $0 } ?? "nothing"
            throw MFAError(.invalidArgument, "postgres: \(deadlineParameter) must be a whole number of milliseconds "
                + "from \(deadlineRange.lowerBound) to \(deadlineRange.upperBound), not \"\(shown)\"")
        }
        return value
    }
}
