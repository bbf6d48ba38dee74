import Foundation
import MFA
import Synchronization
import Testing

/// A PostgreSQL server at SERIALIZABLE, as CockroachDB and YugabyteDB run
/// by default: conflicting transactions end with SQLSTATE 40001, which
/// libmfa runs again (bounded), so racing attempts all get their real
/// answer, and each is counted once.
@Suite("PostgreSQL at SERIALIZABLE: serialization failures are retried, nothing counted twice")
struct SerializableRetryTests {
    /// A fresh store whose every transaction is SERIALIZABLE.
    private static func serializableStore() throws -> String? {
        guard StoreKind.available.contains(.postgres), StoreKind.adminURL == nil else { return nil }
        return try StoreKind.postgres.freshLocation() + "%20-cdefault_transaction_isolation%3Dserializable"
    }

    @Test("wrong codes racing from 3 threads: every one answered and counted exactly once")
    func wrongCodesCountedOnce() throws {
        guard let location = try Self.serializableStore() else { return }
        let fixture = try EngineFixture(store: location, config: """
            {"state":"ENABLED","providers":{"totp":"ENABLED"},"limits":{"freeAttempts":100}}
            """)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        let right = try fixture.code(secret)
        let wrong = right == "000000" ? "000001" : "000000"
        let answers = Mutex<[MFAErrorCode?]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            for _ in 0..<12 {
                let code = errorCode {
                    try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: info.uid, oneTimePassword: wrong))
                }
                answers.withLock { $0.append(code) }
            }
        }
        let all = answers.withLock { $0 }
        #expect(all.count == 36)
        #expect(all.allSatisfy { $0 == .invalidVerificationCode }, "\(all)")
        let database = try PostgresDatabase(url: location)
        defer { database.close() }
        let counts = try database.read { (db) throws(MFAError) in
            try db.query("SELECT u.failures, f.failures FROM mfa_users u JOIN mfa_factors f ON f.uid = u.uid", [])
        }
        #expect(counts.first == [.int(36), .int(36)], "every wrong code counted once, against user and factor")
    }

    @Test("one code racing from 3 threads with 3 pending credentials: accepted exactly once")
    func rightCodeAcceptedOnce() throws {
        guard let location = try Self.serializableStore() else { return }
        let fixture = try EngineFixture(store: location)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        fixture.clock.advance(30)
        for _ in 0..<5 {
            let code = try fixture.code(secret)
            let resolvers = try (0..<3).map { _ in try fixture.resolver(user) }
            let answers = Mutex<[MFAErrorCode?]>([])
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                let answer = errorCode {
                    try resolvers[index].resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: info.uid, oneTimePassword: code))
                }
                answers.withLock { $0.append(answer) }
            }
            let all = answers.withLock { $0 }
            #expect(all.filter { $0 == nil }.count == 1, "\(all)")
            #expect(all.filter { $0 == .invalidVerificationCode }.count == 2, "\(all)")
            fixture.clock.advance(30)
        }
    }
}
