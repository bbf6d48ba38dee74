import MFA

/// A context for the admin and import suites: every factor kind enabled, a
/// test clock, an audit log, and a keyring the test may choose.
struct AdminFixture {
    let clock = TestClock()
    let log = AuditLog()
    let context: MFAContext

    init(_ kind: StoreKind) throws {
        try self.init(store: kind.freshLocation())
    }

    init(store: String, keyring: MasterKeyring? = nil) throws {
        var options = MFAOptions(store: store, keyring: try keyring ?? MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
        try context.setConfig(json: FlowFixture.config)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true, authTime: clock.now())
    }

    /// Signs `user` in with the first factor and expects a resolver.
    func resolver(_ user: MFAUser) throws -> MultiFactorResolver {
        guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
            throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
        }
        return resolver
    }

    /// Imports a TOTP factor for `uid` with a fixed secret (one per uid and index).
    @discardableResult
    func importTOTP(_ uid: String, tenant: String? = nil, index: UInt8 = 0) throws -> (MultiFactorInfo, TOTP) {
        let totp = try TOTP(secret: Self.secret(uid, index))
        let info = try context.importTOTPFactor(for: user(uid, tenant: tenant), totp: totp, displayName: "app \(index)")
        return (info, totp)
    }

    /// 20 bytes that depend on `uid` and `index`.
    static func secret(_ uid: String, _ index: UInt8 = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: index, count: 20)
        for (position, byte) in uid.utf8.enumerated() { bytes[position % 20] ^= byte &+ UInt8(truncatingIfNeeded: position) }
        return bytes
    }

    /// Signs `uid` in with the HOTP code of `counter`.
    func signIn(_ uid: String, tenant: String? = nil, enrollmentID: String, hotp: HOTP,
                counter: UInt64) throws -> SignInResult {
        let resolver = try resolver(user(uid, tenant: tenant))
        return try resolver.resolveSignIn(with: HOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: enrollmentID, oneTimePassword: hotp.code(counter: counter)))
    }

    /// Signs `uid` in with `totp` now.
    func signIn(_ uid: String, tenant: String? = nil, enrollmentID: String, totp: TOTP,
                offset: Int64 = 0) throws -> SignInResult {
        let resolver = try resolver(user(uid, tenant: tenant))
        return try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: enrollmentID, oneTimePassword: totp.code(at: clock.now() + offset)))
    }
}
