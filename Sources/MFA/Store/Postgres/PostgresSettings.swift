/// What a `postgres://` store URL asks for: the URL libpq gets, the
/// connection settings libmfa adds, and libmfa's own parameter,
/// `mfa_deadline_ms`.
///
/// `mfa_deadline_ms` (100 to 600000, default 5000) bounds every wait on the
/// server: connecting, and each statement, BEGIN and COMMIT. Past it the call
/// fails with `storageError`, the connection is dropped (the server rolls
/// back what it had not committed) and the next call connects afresh. It is
/// taken out of the URL before libpq reads it.
package struct PostgresSettings: Equatable, Sendable {
    /// The query parameter that sets the deadline.
    package static let deadlineParameter = "mfa_deadline_ms"
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

    /// Reads a `postgres://` or `postgresql://` URL.
    /// - Throws: `invalidArgument` if `mfa_deadline_ms` is not a whole number
    ///   in `deadlineRange`, or appears twice.
    package init(url: String) throws(MFAError) {
        let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let items = parts.count > 1 ? parts[1].split(separator: "&", omittingEmptySubsequences: false) : []
        var kept: [Substring] = []
        var deadline: Int?
        var connectTimeout: Int?
        for item in items {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pair.count > 1 ? pair[1] : nil
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
    }

    /// What `PQconnectStartParams` gets, in order: the defaults, then the URL
    /// (with expand_dbname, its settings override the defaults), then the
    /// client encoding libmfa reads and writes.
    package var connectionParameters: [(keyword: String, value: String)] {
        Self.connectionDefaults.map { (keyword: $0.0, value: $0.1) }
            + [(keyword: "dbname", value: url), (keyword: "client_encoding", value: "UTF8")]
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
