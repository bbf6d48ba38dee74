import Foundation
import MFA
import Synchronization

/// A clock the test moves by hand.
final class TestClock: MFAClock {
    private let seconds: Mutex<Int64>

    init(_ start: Int64 = 1_800_000_000) { seconds = Mutex(start) }

    func now() -> Int64 { seconds.withLock { $0 } }

    func advance(_ delta: Int64) { seconds.withLock { $0 += delta } }
}

/// Collects audit events.
final class AuditLog: Sendable {
    private let events = Mutex<[AuditEvent]>([])

    var all: [AuditEvent] { events.withLock { $0 } }

    func record(_ event: AuditEvent) { events.withLock { $0.append(event) } }

    func kinds() -> [AuditEvent.Kind] { all.map(\.kind) }
}

/// A context on an in-memory store, TOTP enabled, with a test clock and an audit log.
struct EngineFixture {
    let clock = TestClock()
    let log = AuditLog()
    let context: MFAContext
    static let keyBytes = [UInt8](repeating: 7, count: 32)

    init(_ kind: StoreKind, config: String = #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#) throws {
        try self.init(store: kind.freshLocation(), config: config)
    }

    init(store: String = ":memory:", config: String = #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#,
         keyring: MasterKeyring? = nil) throws {
        var options = MFAOptions(store: store, keyring: try keyring ?? MasterKeyring(
            current: MasterKey(id: "k1", bytes: Self.keyBytes)))
        options.clock = clock
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
        try context.setConfig(json: config)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true,
                provider: "password", authTime: clock.now())
    }

    /// The code an authenticator app shows for `secret` now.
    func code(_ secret: TOTPSecret, offset: Int64 = 0) throws -> String {
        try TOTP(secret: secret.secret).code(at: clock.now() + offset)
    }

    /// Enrolls a TOTP factor for `user` and returns it with its secret.
    func enrollTOTP(_ user: MFAUser, name: String = "phone app") throws -> (MultiFactorInfo, TOTPSecret) {
        let multiFactor = context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let info = try multiFactor.enroll(
            with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code(secret)),
            displayName: name)
        return (info, secret)
    }

    /// Signs `user` in with the first factor and expects a resolver.
    func resolver(_ user: MFAUser) throws -> MultiFactorResolver {
        guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
            throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
        }
        return resolver
    }
}

/// The code of an `MFAError` thrown by `body`, or nil.
func errorCode<T>(_ body: () throws -> T) -> MFAErrorCode? {
    do {
        _ = try body()
        return nil
    } catch let error as MFAError {
        return error.code
    } catch {
        return .internal
    }
}
