import Foundation
import MFA

/// The stores the parameterized suites run against: SQLite always, and
/// PostgreSQL when `MFA_TEST_POSTGRES_URL` names a server (the README's test
/// command starts one and sets it; see scripts/pg.sh).
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
            try PostgresAdmin.execute("CREATE SCHEMA \(schema)", url: base)
            let separator = base.contains("?") ? "&" : "?"
            return base + separator + "options=-csearch_path%3D\(schema)"
        }
    }
}

import Testing

/// Runs administrative SQL on the test server.
enum PostgresAdmin {
    static func execute(_ sql: String, url: String) throws {
        let database = try PostgresDatabase(url: url)
        defer { database.close() }
        try database.transaction { (db) throws(MFAError) in try db.execute(sql, []) }
    }
}
