import Foundation
import MFA
import Testing

@Suite("Store locations meant for another database are refused, not opened as SQLite files")
struct StoreLocationTests {
    private func open(_ location: String) throws -> MFAContext {
        try MFAContext(options: MFAOptions(
            store: location, keyring: MasterKeyring(current: MasterKey(id: "k1", bytes: [UInt8](repeating: 7, count: 32)))))
    }

    private func refusal(_ location: String) -> MFAError? {
        do {
            let context = try open(location)
            context.close()
            return nil
        } catch let error as MFAError {
            return error
        } catch {
            return nil
        }
    }

    @Test("libpq keyword/value strings are INVALID_ARGUMENT and create no file", arguments: [
        "host=127.0.0.1 dbname=NAME", "dbname=NAME", "host = db1,db2 dbname=NAME target_session_attrs=read-write",
        "  user=mfa dbname=NAME", "service=NAME", "target_session_attrs=read-write host=NAME",
    ])
    func keywordValue(_ template: String) throws {
        let name = "mfa-test-\(UUID().uuidString)"
        let location = template.replacingOccurrences(of: "NAME", with: name)
        let error = try #require(refusal(location))
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("keyword/value"))
        #expect(error.message.contains("postgres://"))
        let created = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
            .filter { $0.contains(name) }
        #expect(created.isEmpty, "refused, yet created \(created)")
    }

    @Test("URLs of other schemes, or a PostgreSQL URL miswritten, are INVALID_ARGUMENT", arguments: [
        ("mysql://db.internal/mfa", "mysql://"), ("sqlite:///var/lib/mfa.sqlite", "sqlite://"),
        ("redis://127.0.0.1:6379/0", "redis://"), ("POSTGRES://db/mfa", "lower case"),
        ("PostgreSQL://db/mfa", "lower case"), (" postgres://db/mfa", "white space"),
        ("\tpostgresql://db/mfa", "white space"),
    ])
    func otherSchemes(_ location: String, _ said: String) throws {
        let error = try #require(refusal(location))
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains(said), "\(error.message)")
    }

    @Test("SQLite paths that merely contain = or look like words still open, as do file: URIs")
    func sqlitePathsStillOpen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID())")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("a=b"),
                                                withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let locations = [
            directory.appendingPathComponent("host=x.sqlite").path,
            directory.appendingPathComponent("a=b/store.sqlite").path,
            directory.appendingPathComponent("hostname.sqlite").path,
            "file:" + directory.appendingPathComponent("uri.sqlite").path,
            ":memory:",
        ]
        for location in locations {
            let context = try open(location)
            try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
            context.close()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains("host=x.sqlite"))
        #expect(names.contains("hostname.sqlite"))
        #expect(names.contains("uri.sqlite"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("a=b/store.sqlite").path))
    }

    @Test("only libpq's own keywords before = make a keyword/value string; a relative name is judged as given")
    func relativeNames() {
        for name in ["tenant=acme", "hostname=x", "Host=x", "mfa.sqlite", "data/host=x", "./host=x", "=x", "file:x.db"] {
            #expect(StoreLocation.misdirection(name) == nil, "\(name)")
        }
        for name in ["host=x", "host =x", "dbname=mfa", "sslmode=require host=db", "\tport=5432"] {
            #expect(StoreLocation.misdirection(name) != nil, "\(name)")
        }
    }
}
