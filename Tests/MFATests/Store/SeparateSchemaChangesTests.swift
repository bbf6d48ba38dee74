import Dispatch
import Foundation
import MFA
import Synchronization
import Testing

/// Opening a store on a server that refuses a schema change after a write
/// in the same transaction, as CockroachDB does (SQLSTATE 0A000), with
/// `mfa_ddl=separate` (`Schema.migrateSeparately`). PostgreSQL plays that
/// server: in a database of each test's own, an event trigger refuses any
/// schema change in a transaction that has written anything, the schema
/// change before it included. That is stricter than CockroachDB, which
/// runs a schema change after another (not atomically) and asks for one per
/// transaction. Needs MFA_TEST_POSTGRES_URL (the README's test command sets
/// it); through a pooler (MFA_TEST_POSTGRES_ADMIN_URL) it does not run.
@Suite("Schema changes one per transaction, for CockroachDB and YugabyteDB")
struct SeparateSchemaChangesTests {
    /// The trigger that plays CockroachDB's rule.
    private static let rule = [
        """
        CREATE FUNCTION refuse_schema_change_after_write() RETURNS event_trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
                RAISE EXCEPTION 'schema change statement cannot follow a statement that has written \
        in the same transaction' USING ERRCODE = '0A000';
            END IF;
        END $$
        """,
        """
        CREATE EVENT TRIGGER refuse_schema_change_after_write ON ddl_command_start \
        EXECUTE FUNCTION refuse_schema_change_after_write()
        """,
    ]

    /// A new database on the test server with the rule in force: its URL
    /// (libpq's, without `mfa_ddl`), or nil when there is no server to use.
    private static func strictDatabase() throws -> String? {
        guard let base = StoreKind.postgresURL, StoreKind.adminURL == nil else { return nil }
        let name = "ddl_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresAdmin.execute("CREATE DATABASE \(name)", url: base, transaction: false)
        let url = StoreKind.replacingDatabase(of: base, with: name)
        for statement in rule { try PostgresAdmin.execute(statement, url: url, transaction: false) }
        return url
    }

    private static func separate(_ url: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "mfa_ddl=separate"
    }

    /// Every track's stored version, by name.
    private static func versions(_ database: SQLDatabase) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for row in try database.read({ (db) throws(MFAError) in
            try db.query("SELECT name, value FROM mfa_meta", [])
        }) {
            if let name = row[0].text, let value = row[1].int { out[name] = value }
        }
        return out
    }

    /// What every track's version is once a store is current.
    private static let current: [String: Int64] = [
        "schema_version": Schema.currentVersion, "schema_version:totp": 4, "schema_version:phone": 1,
        "schema_version:recovery": 1, "schema_version:webauthn": 2, "schema_version:hotp": 1,
        "schema_version:yubico_otp": 1, "schema_version:email": 1, "schema_version:devices": 1,
        "schema_version:audit": 1, "schema_version:tokens": 1, "schema_version:keys": 1,
    ]

    /// The columns of `table` in the current schema, sorted.
    private static func columns(_ table: String, _ database: SQLDatabase) throws -> [String] {
        try database.read { (db) throws(MFAError) in
            try db.query("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                         + "AND table_schema = current_schema() ORDER BY column_name", [.text(table)])
        }.compactMap { $0.first?.text }
    }

    @Test("the rule bites: one transaction of migrations is refused (what CockroachDB does to it)")
    func transactionalRefused() throws {
        guard let url = try Self.strictDatabase() else { return }
        let database = try PostgresDatabase(url: url + (url.contains("?") ? "&" : "?") + "mfa_ddl=transactional")
        defer { database.close() }
        #expect(!database.separateSchemaChanges)
        #expect(errorCode { try MFAStore(database: database) } == .storageError)
    }

    @Test("a new store is made one schema change at a time; TOTP enrolls and signs in; reopening changes nothing")
    func newStore() throws {
        guard let url = try Self.strictDatabase() else { return }
        let fixture = try EngineFixture(store: Self.separate(url))
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        fixture.clock.advance(30) // the enrollment used this step's code
        let result = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
        #expect(result.enrollmentID == info.uid)
        let database = try PostgresDatabase(url: Self.separate(url))
        defer { database.close() }
        #expect(database.separateSchemaChanges)
        _ = try MFAStore(database: database)
        #expect(try Self.versions(database) == Self.current)
        #expect(try Self.columns("mfa_factors", database) == [
            "display_name", "enrolled_at", "enrollment_id", "factor_id", "failures", "key_id", "last_failure_at",
            "locked_until", "seal_format", "sealed", "tenant", "totp_algorithm", "totp_digits", "totp_last_step",
            "totp_period", "totp_serial", "totp_window", "uid", "yubico_counter", "yubico_public_id", "yubico_serial",
        ])
    }

    @Test("the TOTP track's move into the factor's row, stopped after its table was dropped, is finished")
    func totpMoveResumed() throws {
        guard let url = try Self.strictDatabase() else { return }
        let fixture = try EngineFixture(store: Self.separate(url))
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        let database = try PostgresDatabase(url: Self.separate(url))
        defer { database.close() }
        // Every statement of TOTP's third migration ran (the columns added, the
        // rows moved, the old table dropped); its version was not recorded.
        try database.write { (db) throws(MFAError) in
            try db.execute("UPDATE mfa_meta SET value = 2 WHERE name = 'schema_version:totp'", [])
        }
        _ = try MFAStore(database: database)
        #expect(try Self.versions(database) == Self.current)
        fixture.clock.advance(30)
        let result = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
        #expect(result.enrollmentID == info.uid)
    }

    @Test("a migration stopped halfway (a column dropped, the version not yet recorded) is finished")
    func resumesHalfway() throws {
        guard let url = try Self.strictDatabase() else { return }
        let database = try PostgresDatabase(url: Self.separate(url))
        defer { database.close() }
        // The core track's first two migrations, then the third up to its
        // DROP COLUMN, each statement alone, and the version left at 2.
        let dialect = database.dialect
        var statements: [String] = []
        for migration in CoreSchema.migrations.prefix(3) {
            statements += try database.read { (db) throws(MFAError) -> [String] in
                do { return try migration(dialect, db) } catch { throw MFAError(.internal, "\(error)") }
            }
        }
        let third = statements.firstIndex { $0.contains("DROP COLUMN tokens_valid_after") }
        #expect(third != nil)
        for statement in statements[...(third ?? 0)] {
            try database.write { (db) throws(MFAError) in try db.execute(statement, []) }
        }
        try database.write { (db) throws(MFAError) in
            try db.execute("CREATE TABLE mfa_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)", [])
        }
        try database.write { (db) throws(MFAError) in
            try db.execute("INSERT INTO mfa_meta (name, value) VALUES ('schema_version', 2)", [])
        }
        _ = try MFAStore(database: database)
        #expect(try Self.versions(database) == Self.current)
        let users = try Self.columns("mfa_users", database)
        #expect(!users.contains("tokens_valid_after"))
        #expect(users.contains("revoked_at_ms") && users.contains("consumed"))
        #expect(try Self.columns("mfa_factors", database).contains("seal_format"))
    }

    @Test("four processes' worth of contexts open one new store at once; each gets the same current store")
    func concurrentOpens() throws {
        guard let url = try Self.strictDatabase() else { return }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let database = try PostgresDatabase(url: Self.separate(url))
                defer { database.close() }
                _ = try MFAStore(database: database)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let database = try PostgresDatabase(url: Self.separate(url))
        defer { database.close() }
        #expect(try Self.versions(database) == Self.current)
    }

    @Test("a store newer than this libmfa is refused before anything is changed")
    func newerRefused() throws {
        guard let url = try Self.strictDatabase() else { return }
        let database = try PostgresDatabase(url: Self.separate(url))
        defer { database.close() }
        _ = try MFAStore(database: database)
        try database.write { (db) throws(MFAError) in
            try db.execute("UPDATE mfa_meta SET value = value + 1 WHERE name = 'schema_version:totp'", [])
        }
        #expect(errorCode { try MFAStore(database: database) } == .storageError)
        #expect(try Self.versions(database)["schema_version:totp"] == 5)
    }

    @Test("which statements' failures mean their work is done already")
    func alreadyDone() {
        #expect(Schema.alreadyDone("CREATE TABLE mfa_x (a TEXT)") == ["42P07"])
        #expect(Schema.alreadyDone("CREATE UNIQUE INDEX i ON t (a)") == ["42P07"])
        #expect(Schema.alreadyDone("ALTER TABLE mfa_users ADD COLUMN consumed BYTEA") == ["42701"])
        #expect(Schema.alreadyDone("ALTER TABLE mfa_factors DROP COLUMN digits") == ["42703"])
        #expect(Schema.alreadyDone("INSERT INTO t (a) SELECT a FROM u") == ["23505", "42703", "42P01"])
        #expect(Schema.alreadyDone("UPDATE mfa_users SET a = b") == ["42703", "42P01"])
        #expect(Schema.alreadyDone("DROP TABLE mfa_factors").isEmpty)
    }

    @Test("CockroachDB and YugabyteDB are known by what they report when a connection starts")
    func detection() {
        #expect(PostgresDatabase.isDistributed(serverVersion: "13.0.0", cockroachVersion: "CockroachDB CCL v24.1.0"))
        #expect(PostgresDatabase.isDistributed(serverVersion: "11.2-YB-2.20.1.0-b0", cockroachVersion: nil))
        #expect(!PostgresDatabase.isDistributed(serverVersion: "15.18 (Debian 15.18-0+deb12u1)",
                                                cockroachVersion: nil))
        #expect(!PostgresDatabase.isDistributed(serverVersion: nil, cockroachVersion: nil))
    }
}
