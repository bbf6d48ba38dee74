/// How to open an `MFAContext`.
public struct MFAOptions: Sendable {
    /// Where the state lives: an SQLite file path, `":memory:"` for a
    /// private in-memory store (tests), or a `postgres://` (or
    /// `postgresql://`) URL for a store shared by many servers.
    ///
    /// A PostgreSQL URL is libpq's, plus libmfa's `mfa_deadline_ms`
    /// (100 to 600000, default 5000): how long a call waits for the server,
    /// when connecting and for each statement, before it fails with
    /// `storageError` and drops the connection (nothing half-written; the
    /// next call connects afresh). Out of range or not a whole number is
    /// `invalidArgument`. libpq (`libpq.so.5`, or the file `LIBMFA_LIBPQ`
    /// names) is loaded when the first such store is opened; if it cannot
    /// be, opening is `storageError` naming it.
    ///
    /// A location meant for another database is `invalidArgument` rather
    /// than an SQLite file of that name: a URL of a scheme other than
    /// `file:` (`mysql://`, `POSTGRES://`), and a libpq keyword/value
    /// string (`host=db1,db2 dbname=mfa`; give PostgreSQL as a URL).
    public var store: String
    /// The master keys (nil with a `keyProvider`).
    public var keyring: MasterKeyring?
    /// A key provider holding the key that wraps the store's data keys (an
    /// HSM: `PKCS11KeyProvider`; the host's KMS: `HostKeyProvider`), in place
    /// of a `keyring`. Set one or the other.
    public var keyProvider: (any KeyProvider)?
    /// The clock (the system clock by default).
    public var clock: any MFAClock
    /// The random source for secrets, ids and codes (libsodium by default).
    public var random: any RandomSource
    /// Called with every audit event, synchronously, after the change it
    /// reports is stored. It must not call back into the context.
    public var audit: (@Sendable (AuditEvent) -> Void)?
    /// The chain of the stored audit trail this context appends to, when the
    /// configuration keeps the trail (`AuditTrailSettings`): 1 to 64 letters,
    /// digits and `.` `_` `-` `:`; `"main"` by default. Appends to one chain
    /// wait for each other (one verifiable order); servers that write many
    /// events to one PostgreSQL store may each name their own chain.
    public var auditChain: String
    /// Sends SMS codes; nil means none is configured (sending fails with `smsSendFailed`).
    public var smsSender: (any SMSSender)?
    /// Sends email codes; nil means none is configured (sending fails with `emailSendFailed`).
    public var emailSender: (any EmailSender)?
    /// Checks the app credential of SMS requests; required unless the
    /// configuration sets `phone.appVerification` to DISABLED.
    public var appVerifier: (any AppVerifier)?
    /// Decides which WebAuthn attestations are trusted (see
    /// `WebAuthnAttestationTrust`); nil leaves it to the configuration.
    public var attestationTrust: (any WebAuthnAttestationTrust)?
    /// Which metrics the context keeps (`MFAContext.metrics`): on without a
    /// tenant label by default; `.off`, or `.byTenant(limit:)`.
    public var metrics: MetricsOptions

    /// Options with the system clock and randomness and no audit callback.
    /// - Parameters:
    ///   - store: an SQLite path or `":memory:"`.
    ///   - keyring: the master keys.
    public init(store: String, keyring: MasterKeyring?) {
        self.store = store
        self.keyring = keyring
        keyProvider = nil
        clock = SystemClock()
        random = SystemRandom()
        audit = nil
        auditChain = Self.defaultAuditChain
        smsSender = nil
        emailSender = nil
        appVerifier = nil
        attestationTrust = nil
        metrics = .on
    }

    /// The chain a context appends to unless told otherwise.
    public static let defaultAuditChain = "main"

    /// Throws `invalidArgument` unless `chain` is 1 to 64 letters, digits and `.` `_` `-` `:`.
    static func checkAuditChain(_ chain: String) throws(MFAError) {
        guard !chain.isEmpty, chain.utf8.count <= 64, chain.utf8.allSatisfy({ byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2e || byte == 0x5f || byte == 0x2d || byte == 0x3a
        }) else {
            throw MFAError(.invalidArgument, "the audit chain must be 1 to 64 letters, digits and . _ - :")
        }
    }

    /// Options whose data keys a key provider wraps (see `keyProvider`),
    /// with the system clock and randomness and no audit callback.
    /// - Parameters:
    ///   - store: an SQLite path, `":memory:"` or a PostgreSQL URL.
    ///   - keyProvider: the provider.
    public init(store: String, keyProvider: any KeyProvider) {
        self.init(store: store, keyring: nil)
        self.keyProvider = keyProvider
    }
}
