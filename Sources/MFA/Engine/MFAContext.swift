/// The MFA engine on one store: configuration, enrollment, sign-in, tokens.
///
/// A context is thread-safe; open one per process (or per store) and share
/// it. Several processes, or servers sharing a store and a master key, see
/// one consistent state: every check-and-update is a single transaction.
public final class MFAContext: Sendable {
    let store: MFAStore
    let keyring: MasterKeyring
    /// The provider that wraps the store's data keys, if the keys came from one.
    let keyProvider: (any KeyProvider)?
    let clock: any MFAClock
    let random: any RandomSource
    /// Whether `random` is libsodium's CSPRNG (`SystemRandom`), told once (see `FreshDraw`).
    let randomIsSystem: Bool
    let auditSink: (@Sendable (AuditEvent) -> Void)?
    /// The chain of the stored audit trail this context appends to.
    let trail: AuditTrail
    /// Events reported from inside a store call, stored after it (`audit`).
    let pendingAudit = PendingAudit()
    let configCache = ConfigCache()
    /// The refusals each user had without counting (`UncountedRefusals`).
    let uncountedRefusals = UncountedRefusals()
    let smsSender: (any SMSSender)?
    let emailSender: (any EmailSender)?
    let appVerifier: (any AppVerifier)?
    let attestationTrust: (any WebAuthnAttestationTrust)?
    /// The context's counters and latency histograms (see `MFAMetrics`).
    public let metrics: MFAMetrics

    /// Opens a context. A store written by an earlier libmfa is migrated,
    /// and its factors re-sealed to the current binding with the keys given.
    /// Every key given (current and earlier) is checked against the check
    /// value the store keeps for its id (`checkKeys`).
    /// - Throws: `invalidArgument` for a bad store location (empty, over
    ///   4096 bytes, or meant for another database: a URL of another scheme,
    ///   or a libpq keyword/value string such as `host=db1,db2 dbname=mfa`;
    ///   a bad `auditChain`); `keyMismatch` naming the key id, if the store
    ///   knows a key by that id and the key given under it is another one;
    ///   `storageError` if the store cannot be opened or migrated;
    ///   `invalidArgument` for a metrics tenant limit out of range. With a
    ///   key provider: its errors (`keyProviderUnavailable`,
    ///   `keyProviderLogin`, `keyProviderKeyNotFound`, `keyMismatch` for a
    ///   provider key that does not unwrap the store's data keys), never a
    ///   fallback to another key.
    public init(options: MFAOptions) throws(MFAError) {
        guard !options.store.isEmpty, options.store.utf8.count <= 4096 else {
            throw MFAError(.invalidArgument, "the store location must be 1 to 4096 bytes")
        }
        try options.metrics.validate()
        try MFAOptions.checkAuditChain(options.auditChain)
        try Sodium.ensureReady()
        switch (options.keyring, options.keyProvider) {
        case (nil, nil): throw MFAError(.invalidArgument, "give a master key or a key provider")
        case (.some, .some): throw MFAError(.invalidArgument, "give a master key or a key provider, not both")
        default: break
        }
        metrics = MFAMetrics(options: options.metrics)
        store = try MFAStore(database: try StoreLocation.open(options.store, metrics: metrics.store))
        keyProvider = options.keyProvider
        if let provider = options.keyProvider {
            do {
                keyring = try DataKeyEnvelope.open(store, provider: provider, random: options.random,
                                                   now: options.clock.now())
            } catch {
                store.database.close()
                throw error
            }
        } else {
            keyring = options.keyring!
        }
        clock = options.clock
        random = options.random
        randomIsSystem = options.random is SystemRandom
        auditSink = options.audit
        trail = AuditTrail(chain: options.auditChain, keyring: keyring)
        smsSender = options.smsSender
        emailSender = options.emailSender
        appVerifier = options.appVerifier
        attestationTrust = options.attestationTrust
        try checkKeys()
        try upgradeSeals()
        metrics.store?.reset()
    }

    /// Closes the store; every later call fails with `storageError`. The
    /// keys are wiped when the context itself goes.
    public func close() {
        flushPendingAudit()
        store.database.close()
    }

    /// The view of one user's second factors.
    public func multiFactor(for user: MFAUser) -> MultiFactor {
        MultiFactor(user: user, context: self)
    }

    /// The store's schema version.
    public func schemaVersion() throws(MFAError) -> Int64 {
        let call = CallBudget.begin()
        defer { call.end() }
        return try Schema.version(store.database)
    }

    // MARK: Shared helpers

    /// A new random token id.
    func newTokenID() throws(MFAError) -> [UInt8] {
        try random.bytes(16)
    }

    /// A new enrollment id: 21 random bytes as 28 URL-safe characters, never
    /// beginning with `-`, which a command line (mfactl, getopt) would take
    /// for an option: a leading `-` becomes `_`.
    func newEnrollmentID() throws(MFAError) -> String {
        let id = try random.identifier(bytes: 21)
        return id.hasPrefix("-") ? "_" + id.dropFirst() : id
    }

    /// A new enrollment id that sorts after those of the user's factors
    /// enrolled at `now` (`siblings`), so that the user's factors list in
    /// enrollment order (see `EnrollmentOrder`).
    func newEnrollmentID(after siblings: [FactorRecord], at now: Int64) throws(MFAError) -> String {
        EnrollmentOrder.id(try newEnrollmentID(), after: siblings, at: now)
    }
}
