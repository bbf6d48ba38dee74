import MFA
import Testing

/// The store URL's libmfa parameter (`mfa_deadline_ms`), the connection
/// settings every connection gets, and loading libpq: no server needed.
@Suite("PostgreSQL store URL and libpq loading")
struct PostgresSettingsTests {
    private let base = "postgres://mfa@db.example.com:5432/mfa"

    @Test("without mfa_deadline_ms the deadline is 5000 ms and the URL reaches libpq unchanged")
    func defaults() throws {
        for url in [base, base + "?sslmode=disable", base + "?"] {
            let settings = try PostgresSettings(url: url)
            #expect(settings.deadline == 5000)
            #expect(settings.connectDeadline == 5000)
            #expect(settings.url == url)
        }
    }

    @Test("mfa_deadline_ms is read and taken out of the URL, wherever it stands")
    func deadlineStripped() throws {
        let cases = [
            (base + "?mfa_deadline_ms=250", base, 250),
            (base + "?sslmode=disable&mfa_deadline_ms=100", base + "?sslmode=disable", 100),
            (base + "?mfa_deadline_ms=600000&application_name=x", base + "?application_name=x", 600_000),
            (base + "?a=1&mfa_deadline_ms=1500&b=2", base + "?a=1&b=2", 1500),
        ]
        for (url, stripped, deadline) in cases {
            let settings = try PostgresSettings(url: url)
            #expect(settings.url == stripped, "\(url)")
            #expect(settings.deadline == deadline, "\(url)")
            #expect(!settings.connectionParameters.contains { $0.value.contains("mfa_deadline_ms") })
        }
    }

    @Test("a bad mfa_deadline_ms is INVALID_ARGUMENT", arguments: [
        "99", "0", "600001", "-1", "+500", " 500", "500 ", "5e3", "1.5", "abc", "", "0x100", "١٠٠٠",
        "99999999999999999999999999", "1000ms",
    ])
    func badDeadline(_ value: String) {
        #expect(errorCode { try PostgresSettings(url: base + "?mfa_deadline_ms=" + value) } == .invalidArgument)
    }

    @Test("mfa_deadline_ms without a value, or given twice, is INVALID_ARGUMENT")
    func malformedDeadline() {
        #expect(errorCode { try PostgresSettings(url: base + "?mfa_deadline_ms") } == .invalidArgument)
        #expect(errorCode { try PostgresSettings(url: base + "?mfa_deadline_ms=200&mfa_deadline_ms=300") }
            == .invalidArgument)
    }

    @Test("mfa_ddl is read and taken out of the URL; a bad value, none, or two are INVALID_ARGUMENT")
    func ddlParameter() throws {
        #expect(try PostgresSettings(url: base).separateDDLGiven == nil)
        let separate = try PostgresSettings(url: base + "?sslmode=disable&mfa_ddl=separate")
        #expect(separate.separateDDLGiven == true)
        #expect(separate.url == base + "?sslmode=disable")
        let transactional = try PostgresSettings(url: base + "?mfa_ddl=transactional&a=1")
        #expect(transactional.separateDDLGiven == false)
        #expect(transactional.url == base + "?a=1")
        for bad in ["?mfa_ddl", "?mfa_ddl=", "?mfa_ddl=on", "?mfa_ddl=Separate",
                    "?mfa_ddl=separate&mfa_ddl=separate"] {
            #expect(errorCode { try PostgresSettings(url: base + bad) } == .invalidArgument, "\(bad)")
        }
    }

    @Test("opening a context with a bad mfa_deadline_ms is INVALID_ARGUMENT, before any connection")
    func openRefusesBadDeadline() throws {
        let keyring = try MasterKeyring(current: MasterKey(id: "k1", bytes: [UInt8](repeating: 7, count: 32)))
        for value in ["50", "abc", "700000"] {
            // Port 9 (discard) on loopback: nothing would answer there.
            let options = MFAOptions(store: "postgres://127.0.0.1:9/none?mfa_deadline_ms=" + value, keyring: keyring)
            #expect(errorCode { try MFAContext(options: options) } == .invalidArgument, "\(value)")
        }
    }

    @Test("connecting waits at most the deadline, or connect_timeout if that is shorter")
    func connectDeadline() throws {
        #expect(try PostgresSettings(url: base + "?connect_timeout=3").connectDeadline == 3000)
        #expect(try PostgresSettings(url: base + "?connect_timeout=1").connectDeadline == 2000, "libpq reads 1 as 2")
        #expect(try PostgresSettings(url: base + "?connect_timeout=60").connectDeadline == 5000)
        #expect(try PostgresSettings(url: base + "?connect_timeout=0&mfa_deadline_ms=900").connectDeadline == 900)
        #expect(try PostgresSettings(url: base + "?connect_timeout=99999999999999999999").connectDeadline == 5000)
    }

    @Test("every connection gets the defaults first, then the URL (which overrides them), then the statement timeout and UTF-8")
    func connectionParameters() throws {
        let parameters = try PostgresSettings(url: base + "?keepalives_idle=45&mfa_deadline_ms=300")
            .connectionParameters
        let keywords = parameters.map(\.keyword)
        #expect(keywords == ["connect_timeout", "keepalives", "keepalives_idle", "tcp_user_timeout",
                             "fallback_application_name", "dbname", "options", "client_encoding"])
        #expect(parameters[0].value == "10" && parameters[1].value == "1" && parameters[2].value == "30")
        #expect(parameters[3].value == "30000")
        #expect(parameters[5].value == base + "?keepalives_idle=45")
        #expect(parameters[6].value == "-c statement_timeout=1300 -c plan_cache_mode=force_generic_plan")
        #expect(parameters[7].value == "UTF8")
    }

    @Test("the statement timeout and generic plans are added to the URL's own options, unless they set them or are empty")
    func startupOptions() throws {
        #expect(try PostgresSettings(url: base + "?options=-csearch_path%3Dx").startupOptions
            == "-csearch_path=x -c statement_timeout=6000 -c plan_cache_mode=force_generic_plan")
        #expect(try PostgresSettings(url: base + "?options=-c%20statement_timeout%3D0%20-c%20plan_cache_mode%3Dauto")
            .startupOptions == "-c statement_timeout=0 -c plan_cache_mode=auto")
        #expect(try PostgresSettings(url: base + "?options=").startupOptions == nil)
        #expect(try PostgresSettings(url: base + "?options").startupOptions == nil)
    }

    @Test("mfa_prepared=off (for transaction poolers) sends unnamed statements and none of libmfa's startup options")
    func preparedOff() throws {
        let on = try PostgresSettings(url: base + "?mfa_prepared=on")
        #expect(on.prepared && on.url == base)
        let off = try PostgresSettings(url: base + "?sslmode=disable&mfa_prepared=off")
        #expect(!off.prepared && off.url == base + "?sslmode=disable" && off.startupOptions == nil)
        #expect(!off.connectionParameters.contains { $0.keyword == "options" })
        // The URL's own options are the host's: they are sent all the same, without libmfa's.
        let own = try PostgresSettings(url: base + "?mfa_prepared=off&options=-csearch_path%3Dx")
        #expect(own.hasOwnOptions && own.startupOptions == "-csearch_path=x")
        #expect(own.connectionParameters.contains { $0.keyword == "options" && $0.value == "-csearch_path=x" })
        #expect(try PostgresSettings(url: base).prepared)
        for bad in ["?mfa_prepared", "?mfa_prepared=", "?mfa_prepared=no", "?mfa_prepared=OFF",
                    "?mfa_prepared=on&mfa_prepared=off"] {
            #expect(errorCode { try PostgresSettings(url: base + bad) } == .invalidArgument, "\(bad)")
        }
    }

    @Test("behind a pooler found out: none of libmfa's startup options, unnamed statements unless mfa_prepared=on")
    func behindPooler() throws {
        let plain = try PostgresSettings(url: base + "?mfa_deadline_ms=2000")
        #expect(plain.prepared && plain.startupOptions != nil && !plain.pooled)
        let pooled = plain.behindPooler()
        #expect(pooled.pooled && !pooled.prepared && pooled.startupOptions == nil)
        #expect(!pooled.connectionParameters.contains { $0.keyword == "options" })
        #expect(pooled.url == plain.url && pooled.deadline == 2000)
        // A pooler that carries named statements (mfa_prepared=on): they stay named, the options go.
        let carried = try PostgresSettings(url: base + "?mfa_prepared=on").behindPooler()
        #expect(carried.prepared && carried.startupOptions == nil)
        #expect(!(try PostgresSettings(url: base + "?mfa_prepared=off").behindPooler().prepared))
        // The URL's own options stay: a pooler that refuses them refuses the connection (PostgresConnection).
        let own = try PostgresSettings(url: base + "?options=-csearch_path%3Dx").behindPooler()
        #expect(own.hasOwnOptions && own.startupOptions == "-csearch_path=x")
        #expect(try !plain.hasOwnOptions && !PostgresSettings(url: base + "?options=").hasOwnOptions)
    }

    @Test("a statement's name is the hash of its text: the same for every client, distinct per statement")
    func statementNames() {
        let a = PostgresConnection.statementName("SELECT 1 FROM mfa_users WHERE uid = $1")
        #expect(a == PostgresConnection.statementName("SELECT 1 FROM mfa_users WHERE uid = $1"))
        #expect(a != PostgresConnection.statementName("SELECT 1 FROM mfa_users WHERE uid = $2"))
        #expect(a.hasPrefix("mfa_") && a.utf8.count == 36 && a.utf8.count < 64)
        #expect(a.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) })
        // BLAKE2b-128 of "" (RFC 7693's parameters, 16-byte digest, no key).
        #expect(PostgresConnection.statementName("") == "mfa_cae66941d9efbd404e4d88758ea67670")
    }

    @Test("a libpq that cannot be loaded is STORAGE_ERROR naming the library")
    func missingLibrary() {
        let path = "/nonexistent/libmfa-test/libpq.so.5"
        do {
            _ = try LibPQ.load(path: path)
            Issue.record("loaded \(path)")
        } catch {
            #expect(error.code == .storageError)
            #expect(error.message.contains(path), "\(error.message)")
            #expect(error.message.contains(LibPQ.environmentVariable), "\(error.message)")
        }
    }

    @Test("a library without libpq's functions is STORAGE_ERROR naming the function")
    func notLibpq() {
        do {
            _ = try LibPQ.load(path: "libz.so.1")
            Issue.record("libz.so.1 passed for libpq")
        } catch {
            #expect(error.code == .storageError)
            #expect(error.message.contains("libz.so.1") && error.message.contains("PQconnectStartParams"),
                    "\(error.message)")
        }
    }
}
