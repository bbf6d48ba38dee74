import Foundation
import MFA
import Synchronization

/// Accepts or refuses every attestation, recording what it saw.
final class RecordingTrust: WebAuthnAttestationTrust, Sendable {
    let accept: Bool
    private let seen = Mutex<[WebAuthnAttestation]>([])

    init(accept: Bool) { self.accept = accept }

    var attestations: [WebAuthnAttestation] { seen.withLock { $0 } }

    func trust(_ attestation: WebAuthnAttestation) -> Bool {
        seen.withLock { $0.append(attestation) }
        return accept
    }
}

/// A context with WebAuthn enabled for rp id example.com, a test clock and an audit log.
struct WebAuthnFixture {
    let clock = TestClock()
    let log = AuditLog()
    let context: MFAContext
    static let config = """
        {"state":"ENABLED","providers":{"webauthn":"ENABLED","totp":"ENABLED"},"webauthn":{"rpId":"example.com"}}
        """

    init(_ kind: StoreKind = .sqlite, config: String = Self.config, trust: (any WebAuthnAttestationTrust)? = nil) throws {
        var options = MFAOptions(store: try kind.freshLocation(), keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        options.attestationTrust = trust
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
        try context.setConfig(json: config)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true, authTime: clock.now())
    }

    func registrationOptions(_ user: MFAUser) throws -> String {
        try WebAuthnMultiFactorGenerator.registrationOptions(with: context.multiFactor(for: user).session(),
                                                             userName: user.email ?? user.uid)
    }

    /// Registers `authenticator` for `user`.
    @discardableResult
    func enroll(_ user: MFAUser, _ authenticator: TestAuthenticator, name: String? = "key") throws -> MultiFactorInfo {
        let json = authenticator.register(try registrationOptions(user))
        return try context.multiFactor(for: user).enroll(
            with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: name)
    }

    func resolver(_ user: MFAUser) throws -> MultiFactorResolver {
        guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
            throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
        }
        return resolver
    }

    /// Signs `user` in with `authenticator`'s answer to a fresh challenge.
    @discardableResult
    func signIn(_ user: MFAUser, _ authenticator: TestAuthenticator) throws -> SignInResult {
        let resolver = try resolver(user)
        let json = authenticator.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))
        return try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: json))
    }
}
