import MFA

/// A context on a store that `RawStore` can reach too, with phone and TOTP
/// enabled, the stored audit trail on, a test clock and an audit log.
struct AuditFixture {
    static let config = """
        {"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED"},
         "phone":{"appVerification":"DISABLED"},"auditTrail":{"store":true}}
        """
    static let k1 = [UInt8](repeating: 7, count: 32)
    static let k2 = [UInt8](repeating: 9, count: 32)

    let clock: TestClock
    let log = AuditLog()
    let sender = RecordingSender()
    let context: MFAContext
    let location: String

    /// A fresh store of `kind` with the trail on (`config`).
    init(_ kind: StoreKind, config: String = Self.config) throws {
        let location = try kind.freshLocation(file: true)
        try self.init(location: location, clock: TestClock())
        try context.setConfig(json: config)
    }

    /// Another context on `location` (the configuration as stored).
    init(location: String, clock: TestClock, chain: String = MFAOptions.defaultAuditChain,
         keyring: MasterKeyring? = nil) throws {
        self.location = location
        self.clock = clock
        var options = MFAOptions(store: location, keyring: try keyring ?? MasterKeyring(
            current: MasterKey(id: "k1", bytes: Self.k1)))
        options.clock = clock
        options.smsSender = sender
        options.auditChain = chain
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true, authTime: clock.now())
    }

    /// Enrolls a TOTP factor.
    func enrollTOTP(_ user: MFAUser) throws -> (MultiFactorInfo, TOTPSecret) {
        let multiFactor = context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let info = try multiFactor.enroll(
            with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: TOTP(secret: secret.secret).code(at: clock.now())),
            displayName: "app")
        return (info, secret)
    }

    /// Signs `user` in with `code` for `factor`.
    func signIn(_ user: MFAUser, _ factor: MultiFactorInfo, code: String) throws -> SignInResult {
        guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
            throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
        }
        return try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: factor.uid, oneTimePassword: code))
    }

    /// Every stored event, chain by chain.
    func stored() throws -> [AuditRecord] {
        var out: [AuditRecord] = []
        for chain in try context.auditChains() {
            out += try context.auditRecords(AuditQuery(chain: chain.chain, limit: AuditQuery.maxLimit))
        }
        return out
    }

    /// The one chain's verification.
    func verify() throws -> AuditChainVerification? {
        try context.verifyAuditTrail().chains.first
    }
}

extension AuditRecord {
    /// The event's fields, for comparing with what the callback saw.
    var fields: [String] { [kindName, tenant, uid, factorID, enrollmentID, String(time), detail, actor] }
}

extension AuditEvent {
    var fields: [String] { [kind.rawValue, tenant, uid, factorID, enrollmentID, String(time), detail, actor] }
}
