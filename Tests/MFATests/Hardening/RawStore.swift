import Foundation
import MFA

/// Direct SQL on a test store, as an attacker with write access to the
/// database (or an operator) would run it.
enum RawStore {
    static func execute(_ location: String, _ sql: String, _ parameters: [SQLValue] = []) throws {
        let database = try open(location)
        defer { database.close() }
        try database.transaction { (db) throws(MFAError) in try db.execute(sql, parameters) }
    }

    static func query(_ location: String, _ sql: String, _ parameters: [SQLValue] = []) throws -> [SQLRow] {
        let database = try open(location)
        defer { database.close() }
        return try database.read { (db) throws(MFAError) in try db.query(sql, parameters) }
    }

    private static func open(_ location: String) throws -> SQLDatabase {
        location.hasPrefix("postgres") ? try PostgresDatabase(url: location) : try SQLiteDatabase(path: location)
    }
}

/// A phone-and-TOTP fixture on a store file (or PostgreSQL schema) that
/// `RawStore` can reach too.
func fileFixture(_ kind: StoreKind, config: String = FlowFixture.config,
                 clock: TestClock = TestClock()) throws -> (PhoneFixture, String) {
    let location = try kind.freshLocation(file: true)
    return (try PhoneFixture(store: location, config: config, clock: clock), location)
}
