/// The MFA engine on one store: configuration, enrollment, sign-in, tokens.
///
/// A context is thread-safe; open one per process (or per store) and share
/// it. Several processes, or servers sharing a store and a master key, see
/// one consistent state: every check-and-update is a single transaction.
public final class MFAContext: Sendable {
    let store: MFAStore
    let keyring: MasterKeyring
    let clock: any MFAClock
    let random: any RandomSource
    let auditSink: (@Sendable (AuditEvent) -> Void)?
    let configCache = ConfigCache()
    let smsSender: (any SMSSender)?
    let appVerifier: (any AppVerifier)?

    /// Opens a context.
    /// - Throws: `invalidArgument` for a bad store location; `storageError`
    ///   if the store cannot be opened or migrated.
    public init(options: MFAOptions) throws(MFAError) {
        guard !options.store.isEmpty, options.store.utf8.count <= 4096 else {
            throw MFAError(.invalidArgument, "the store location must be 1 to 4096 bytes")
        }
        try Sodium.ensureReady()
        store = try MFAStore(database: try StoreLocation.open(options.store))
        keyring = options.keyring
        clock = options.clock
        random = options.random
        auditSink = options.audit
        smsSender = options.smsSender
        appVerifier = options.appVerifier
    }

    /// Closes the store; every later call fails with `storageError`.
    public func close() {
        store.database.close()
    }

    /// The view of one user's second factors.
    public func multiFactor(for user: MFAUser) -> MultiFactor {
        MultiFactor(user: user, context: self)
    }

    /// The store's schema version.
    public func schemaVersion() throws(MFAError) -> Int64 {
        try Schema.version(store.database)
    }

    // MARK: Configuration

    /// Stores the configuration of the project (`tenant` nil) or of a tenant,
    /// replacing the one before. See `MFAConfigDocument` for the format.
    /// - Throws: `invalidArgument` naming the bad field; `storageError`.
    public func setConfig(json: String, tenant: String? = nil) throws(MFAError) {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let document = try MFAConfigDocument.validate(json)
        if let tenant {
            _ = try MFAConfigDocument.resolve([try projectDocument(), document])
            try store.setConfigDocument(document.jsonText, tenant: tenant, now: clock.now())
        } else {
            try store.setConfigDocument(document.jsonText, tenant: "", now: clock.now())
        }
        audit(AuditEvent(kind: .configChange, tenant: tenant ?? "", time: clock.now()))
    }

    /// Stores a configuration given as a value (every field is written).
    public func setConfig(_ config: MFAConfig, tenant: String? = nil) throws(MFAError) {
        try setConfig(json: MFAConfigDocument.json(config).jsonText, tenant: tenant)
    }

    /// The effective configuration of the project or of a tenant (the
    /// tenant's fields over the project's over the defaults).
    public func config(tenant: String? = nil) throws(MFAError) -> MFAConfig {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        return try config(from: store.configDocuments(tenant: tenant ?? ""))
    }

    /// The configuration the stored documents give, parsed once per distinct
    /// pair of documents (another process may change them at any time, so
    /// the documents themselves are read with every operation).
    func config(from documents: ConfigDocuments) throws(MFAError) -> MFAConfig {
        if let cached = configCache.lookup(documents) { return cached }
        var layers: [JSONValue] = [.object([])]
        if let project = documents.project { layers.append(try JSONParser.parse(project)) }
        if let tenant = documents.tenant { layers.append(try JSONParser.parse(tenant)) }
        let config = try MFAConfigDocument.resolve(layers)
        configCache.store(config, for: documents)
        return config
    }

    /// The effective configuration as JSON, every field written out.
    public func configJSON(tenant: String? = nil) throws(MFAError) -> String {
        MFAConfigDocument.json(try config(tenant: tenant)).jsonText
    }

    private func projectDocument() throws(MFAError) -> JSONValue {
        guard let text = try store.configDocuments(tenant: "").project else { return .object([]) }
        return try JSONParser.parse(text)
    }

    // MARK: Shared helpers

    /// Reports an event to the host's audit callback, if any.
    func audit(_ event: AuditEvent) {
        auditSink?(event)
    }

    /// A new random token id.
    func newTokenID() throws(MFAError) -> [UInt8] {
        try random.bytes(16)
    }

    /// A new enrollment id: 21 random bytes as 28 URL-safe characters.
    func newEnrollmentID() throws(MFAError) -> String {
        try random.identifier(bytes: 21)
    }
}
