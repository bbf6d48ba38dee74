import Foundation
import MFA

/// The stores the parameterized suites run against: SQLite always, and
/// PostgreSQL when `MFA_TEST_POSTGRES_URL` names a server (the README's test
/// command starts one and sets it; see scripts/pg.sh).
///
/// Behind a transaction pooler (Tests/ha/pgbouncer.sh), which passes no
/// startup options, `MFA_TEST_POSTGRES_ADMIN_URL` names the server itself:
/// each fresh store is then a database of its own, created there and
/// reached through the pooler's URL, instead of a schema chosen with
/// `options=-csearch_path`.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The kinds available in this run.
    static var available: [StoreKind] {
        postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["MFA_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The server behind the pooler, for administration, when the tests run through one.
    static var adminURL: String? {
        ProcessInfo.processInfo.environment["MFA_TEST_POSTGRES_ADMIN_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String { rawValue }

    /// A fresh, empty store location of this kind: a private in-memory
    /// SQLite database, or a new schema on the PostgreSQL server.
    func freshLocation(file: Bool = false) throws -> String {
        switch self {
        case .sqlite:
            guard file else { return ":memory:" }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent("store.sqlite").path
        case .postgres:
            guard let base = Self.postgresURL else { throw MFAError(.invalidArgument, "no PostgreSQL server") }
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            if let admin = Self.adminURL {
                try PostgresAdmin.execute("CREATE DATABASE \(schema)", url: admin, transaction: false)
                return Self.replacingDatabase(of: base, with: schema)
            }
            try PostgresAdmin.execute("CREATE SCHEMA \(schema)", url: base)
            let separator = base.contains("?") ? "&" : "?"
            return base + separator + "options=-csearch_path%3D\(schema)"
        }
    }

    /// `url` with its database name (the path after the hosts) replaced.
    static func replacingDatabase(of url: String, with name: String) -> String {
        guard let scheme = url.range(of: "://"),
              let slash = url[scheme.upperBound...].firstIndex(of: "/") else { return url }
        let end = url[slash...].firstIndex(of: "?") ?? url.endIndex
        return url[..<slash] + "/" + name + url[end...]
    }
}

import Testing

/// Runs administrative SQL on the test server (itself, not a pooler in front of it).
enum PostgresAdmin {
    static func execute(_ sql: String, url: String, transaction: Bool = true) throws {
        let database = try PostgresDatabase(url: StoreKind.adminURL ?? url)
        defer { database.close() }
        if transaction {
            try database.transaction { (db) throws(MFAError) in try db.execute(sql, []) }
        } else {
            try database.write { (db) throws(MFAError) in try db.execute(sql, []) }
        }
    }
}
