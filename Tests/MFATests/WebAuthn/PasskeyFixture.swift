import Foundation
import MFA

/// A context where users may sign in with a passkey alone (rp id
/// example.com, `webauthn.passkeySignIn` true, TOTP too), on the store kind
/// given, with a test clock and an audit log.
struct PasskeyFixture {
    let clock = TestClock()
    let log = AuditLog()
    let context: MFAContext
    static let config = """
        {"state":"ENABLED","providers":{"webauthn":"ENABLED","totp":"ENABLED"},
         "webauthn":{"rpId":"example.com","passkeySignIn":true}}
        """

    init(_ kind: StoreKind = .sqlite, config: String = Self.config) throws {
        var options = MFAOptions(store: try kind.freshLocation(), keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
        try context.setConfig(json: config)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true, authTime: clock.now())
    }

    /// Registers `key` for `user` with `options` (a passkey by default), then lets a second pass
    /// (the enrollment revoked the user's earlier tokens in this second).
    @discardableResult
    func enroll(_ user: MFAUser, _ key: TestAuthenticator, name: String = "passkey",
                options: WebAuthnCeremonyOptions = .passkey) throws -> MultiFactorInfo {
        let session = try context.multiFactor(for: user).session()
        let json = key.register(try WebAuthnMultiFactorGenerator.registrationOptions(
            with: session, userName: user.email ?? user.uid, options: options))
        let info = try context.multiFactor(for: user).enroll(
            with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: name)
        clock.advance(1)
        return info
    }

    /// `key`'s answer to fresh passkey sign-in options of `tenant`.
    func answer(_ key: TestAuthenticator, tenant: String? = nil) throws -> String {
        key.assert(try context.passkeySignInOptions(tenant: tenant))
    }

    /// Signs in with `key` alone.
    @discardableResult
    func signIn(_ key: TestAuthenticator, tenant: String? = nil) throws -> SignInResult {
        try context.signInWithPasskey(credentialJSON: try answer(key, tenant: tenant), tenant: tenant)
    }

    /// The error of `body`, with its message.
    func refusal(_ body: () throws -> Any) -> MFAError? {
        do {
            _ = try body()
            return nil
        } catch let error as MFAError {
            return error
        } catch {
            return MFAError(.internal, "\(error)")
        }
    }
}
