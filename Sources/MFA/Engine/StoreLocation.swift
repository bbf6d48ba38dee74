/// Chooses the store backend from the location given at open.
package enum StoreLocation {
    /// A PostgreSQL database for a `postgres://` or `postgresql://` URL, an
    /// SQLite database for anything else (a file path, a `file:` URI, or
    /// `":memory:"`).
    /// - Throws: `invalidArgument` for a location meant for another database
    ///   (`misdirection(_:)`), which SQLite would otherwise take for a file
    ///   name; what the backend throws.
    static func open(_ location: String, metrics: StoreMetrics? = nil) throws(MFAError) -> SQLDatabase {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return try PostgresDatabase(url: location, metrics: metrics)
        }
        if let problem = misdirection(location) { throw MFAError(.invalidArgument, problem) }
        return try SQLiteDatabase(path: location, metrics: metrics)
    }

    /// Why `location`, which is not a PostgreSQL URL, is not an SQLite file
    /// either, or nil if it may be one:
    /// - a URL of a scheme other than `file` (`mysql://`, `sqlite://`,
    ///   `POSTGRES://`, or `postgres://` after white space);
    /// - a libpq keyword/value string (`host=db1,db2 dbname=mfa`), which
    ///   PostgreSQL's own clients accept.
    ///
    /// SQLite would open either as a file of that name (`host=db1,db2
    /// dbname=mfa` in the working directory): each server would then keep
    /// a store of its own, which must never happen silently. A file whose
    /// name begins that way is still reachable with a path (`./host=x`).
    package static func misdirection(_ location: String) -> String? {
        let text = location.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let scheme = urlScheme(text) {
            let lower = scheme.lowercased()
            guard lower != "file" else { return nil }
            if lower == "postgres" || lower == "postgresql" {
                return text.count == location.utf8.count
                    ? "the store URL's scheme must be written postgres:// or postgresql://, in lower case"
                    : "the store URL must begin with postgres:// or postgresql://, with no white space before it"
            }
            return "the store location is a \(scheme):// URL: give an SQLite file path (or a file: URI) "
                + "or a postgres:// URL"
        }
        if let keyword = conninfoKeyword(text) {
            return "the store location is a libpq keyword/value string (\(keyword)=…): give PostgreSQL "
                + "as a URL, such as postgres://host1,host2/mfa?target_session_attrs=read-write"
        }
        return nil
    }

    /// The scheme of a URL (`scheme://`: a letter, then letters, digits,
    /// `+`, `-` or `.`), if `text` begins with one.
    private static func urlScheme(_ text: Substring.UTF8View) -> String? {
        guard let first = text.first, isLetter(first) else { return nil }
        let scheme = text.prefix { isLetter($0) || isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
        guard text.dropFirst(scheme.count).starts(with: "://".utf8) else { return nil }
        return String(Substring(scheme))
    }

    /// The keyword a libpq keyword/value string begins with (`host=`,
    /// `dbname =`), if `text` begins with one of libpq's keywords.
    private static func conninfoKeyword(_ text: Substring.UTF8View) -> String? {
        let word = text.prefix { (0x61...0x7A).contains($0) || $0 == 0x5F }
        guard !word.isEmpty else { return nil }
        let after = text.dropFirst(word.count).drop { $0 == 0x20 || $0 == 0x09 }
        guard after.first == 0x3D else { return nil }
        let keyword = String(Substring(word))
        return libpqKeywords.contains(keyword) ? keyword : nil
    }

    /// libpq's connection keywords (its documentation's "Parameter Key Words").
    private static let libpqKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name",
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
        "replication", "gssencmode", "sslmode", "requiressl", "sslnegotiation", "sslcompression", "sslcert",
        "sslkey", "sslkeylogfile", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
        "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib",
        "gssdelegation", "service", "target_session_attrs", "load_balance_hosts", "min_protocol_version",
        "max_protocol_version",
    ]

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
