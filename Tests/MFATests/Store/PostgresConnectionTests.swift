import Foundation
import Glibc
import MFA
import Testing

/// The PostgreSQL store's connections on a real server (the README's test
/// command sets MFA_TEST_POSTGRES_URL): the settings the first connection
/// gets, and the deadline on every statement. A frozen server is tested in C
/// (Tests/c/test_pg_freeze.c), on a server of its own.
@Suite("PostgreSQL connections: defaults and deadlines")
struct PostgresConnectionTests {
    private static var server: String? { StoreKind.postgresURL }

    /// Regression: the first connection was opened with the raw URL, without
    /// the keepalives and timeouts later ones got.
    @Test("the first connection carries connect_timeout, keepalives and tcp_user_timeout")
    func firstConnectionDefaults() throws {
        guard let url = Self.server else { return }
        let database = try PostgresDatabase(url: url)
        defer { database.close() }
        let (settings, keepalive, idle, userTimeout) = try database.inspectConnection { settings, socket in
            (settings, Self.socketOption(socket, SOL_SOCKET, SO_KEEPALIVE),
             Self.socketOption(socket, Int32(IPPROTO_TCP), TCP_KEEPIDLE),
             Self.socketOption(socket, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT))
        }
        #expect(settings["connect_timeout"] == "10")
        #expect(settings["keepalives"] == "1")
        #expect(settings["keepalives_idle"] == "30")
        #expect(settings["tcp_user_timeout"] == "30000")
        #expect(settings["client_encoding"] == "UTF8")
        #expect(keepalive == 1, "SO_KEEPALIVE on the socket")
        #expect(idle == 30, "TCP_KEEPIDLE on the socket")
        #expect(userTimeout == 30000, "TCP_USER_TIMEOUT on the socket")
    }

    /// Tests/ha/pgbouncer.sh runs this through a PgBouncer that refuses
    /// startup options, with MFA_TEST_POOLER=refusing.
    @Test("a pooler is found out by itself (when it refuses the startup options); a server reached directly is none")
    func poolerFound() throws {
        guard let url = Self.server else { return }
        let database = try PostgresDatabase(url: url)
        defer { database.close() }
        for _ in 0..<3 {
            #expect(try database.read { (db) throws(MFAError) in try db.query("SELECT 1", []) } == [[.int(1)]])
        }
        switch ProcessInfo.processInfo.environment["MFA_TEST_POOLER"] {
        case "refusing"?: #expect(database.foundPooler)
        case nil: #expect(!database.foundPooler)
        default: break
        }
    }

    /// Tests/ha/pgbouncer.sh runs this through a PgBouncer that refuses
    /// startup options too. Regression: libmfa connected again without any
    /// options, the URL's own as well, so a store named by its search_path
    /// would have been read and written in another schema.
    @Test("the URL's own options reach the server; a pooler that refuses them is STORAGE_ERROR, not a store without them")
    func ownOptionsKept() throws {
        guard let url = Self.server else { return }
        let own = Self.with(url, "options=-cwork_mem%3D1234kB")
        if ProcessInfo.processInfo.environment["MFA_TEST_POOLER"] == "refusing" {
            do {
                let database = try PostgresDatabase(url: own)
                defer { database.close() }
                _ = try database.read { (db) throws(MFAError) in try db.query("SELECT 1", []) }
                Issue.record("a pooler refusing the URL's options was used without them")
            } catch {
                #expect(error.code == .storageError)
                #expect(error.message.contains("options of its own"))
            }
            return
        }
        let database = try PostgresDatabase(url: own)
        defer { database.close() }
        let name = try database.read { (db) throws(MFAError) in try db.query("SHOW work_mem", []) }
        #expect(name.first?.first == .text("1234kB"))
        let off = try PostgresDatabase(url: Self.with(own, "mfa_prepared=off"))
        defer { off.close() }
        let unnamed = try off.read { (db) throws(MFAError) in try db.query("SHOW work_mem", []) }
        #expect(unnamed.first?.first == .text("1234kB"), "sent with mfa_prepared=off too")
    }

    @Test("the URL's own settings win over the defaults")
    func urlOverridesDefaults() throws {
        guard let url = Self.server else { return }
        let database = try PostgresDatabase(url: url + (url.contains("?") ? "&" : "?") + "keepalives_idle=45")
        defer { database.close() }
        let idle = try database.inspectConnection { _, socket in
            Self.socketOption(socket, Int32(IPPROTO_TCP), TCP_KEEPIDLE)
        }
        #expect(idle == 45)
    }

    @Test("mfa_deadline_ms is accepted (libpq never sees it); the server's statement_timeout is a second longer")
    func deadlineAccepted() throws {
        guard let url = Self.server else { return }
        let database = try PostgresDatabase(url: Self.with(url, "mfa_deadline_ms=1234"))
        defer { database.close() }
        let rows = try database.read { (db) throws(MFAError) in try db.query("SHOW statement_timeout", []) }
        #expect(rows.first?.first == .text("2234ms"))
    }

    @Test("a statement past the deadline is STORAGE_ERROR, the connection is dropped, nothing half-written")
    func statementDeadline() throws {
        guard Self.server != nil else { return }
        let location = try StoreKind.postgres.freshLocation()
        let marker = "libmfa_deadline_\(UUID().uuidString.prefix(8).lowercased())"
        let database = try PostgresDatabase(url: Self.with(location, "mfa_deadline_ms=300&application_name=\(marker)"))
        defer { database.close() }
        try database.transaction { (db) throws(MFAError) in try db.execute("CREATE TABLE written (x int)", []) }

        // A transaction that writes, then waits on the server past its deadline.
        var failure: MFAError?
        do throws(MFAError) {
            try database.transaction { (db) throws(MFAError) in
                try db.execute("INSERT INTO written VALUES (1)", [])
                _ = try db.query("SELECT pg_sleep(60)", [])
            }
        } catch {
            failure = error
        }
        #expect(failure?.code == .storageError)
        #expect(failure?.message.contains("mfa_deadline_ms") == true, "\(failure?.message ?? "")")

        // The next call connects afresh; the insert was rolled back.
        let count = try database.read { (db) throws(MFAError) in try db.query("SELECT count(*) FROM written", []) }
        #expect(count.first?.first == .int(0))

        // The server ended the abandoned statement itself (statement_timeout):
        // the dropped connection's backend is gone long before pg_sleep(60)
        // would have returned.
        var lingering: [SQLRow] = []
        for _ in 0..<200 {
            lingering = try database.read { (db) throws(MFAError) in
                try db.query("SELECT pid FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()",
                             [.text(marker)])
            }
            if lingering.isEmpty { break }
            usleep(50_000)
        }
        #expect(lingering.isEmpty, "the backend of the dropped connection is still there")
    }

    @Test("a connection that outlived its deadline is not reused: later calls work")
    func reconnectsAfterDeadline() throws {
        guard let url = Self.server else { return }
        let database = try PostgresDatabase(url: Self.with(url, "mfa_deadline_ms=200"))
        defer { database.close() }
        for _ in 0..<3 {
            #expect(errorCode { try database.read { (db) throws(MFAError) in try db.query("SELECT pg_sleep(5)", []) } }
                == .storageError)
            let one = try database.read { (db) throws(MFAError) in try db.query("SELECT 1", []) }
            #expect(one.first?.first == .int(1))
        }
    }

    private static func with(_ url: String, _ parameter: String) -> String {
        url + (url.contains("?") ? "&" : "?") + parameter
    }

    private static func socketOption(_ socket: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, level, name, &value, &size) == 0 ? value : -1
    }
}
