/// One WebAuthn credential of a user, as the relying party knows it: what
/// the listings of factors summarize in their hint ("synced passkey",
/// "device-bound passkey", "passkey", "security key"), in full.
public struct WebAuthnCredentialInfo: Sendable, Equatable {
    /// The factor's enrollment id.
    public let enrollmentID: String
    /// The name the user gave it, if any.
    public let displayName: String?
    /// When it was registered (Unix seconds).
    public let enrollmentDate: Int64
    /// The credential id.
    public let credentialID: [UInt8]
    /// Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256, -35 ES384, -36 ES512, -37 PS256).
    public let algorithm: Int64
    /// The authenticator model's AAGUID (16 bytes; zeros when not attested).
    public let aaguid: [UInt8]
    /// The transports the browser reported ("usb", "nfc", "ble", "internal", "hybrid").
    public let transports: [String]
    /// Whether it is discoverable (`credProps.rk`), or nil when the browser did not say.
    public let discoverable: Bool?
    /// Whether the authenticator verified the user at registration (UV).
    public let userVerified: Bool
    /// BE: the credential may be backed up (synced between the user's devices).
    public let backupEligible: Bool
    /// BS: it is backed up, as of its last use.
    public let backedUp: Bool
    /// The signature counter as last seen (0 for authenticators without one).
    public let signCount: Int64
    /// The attestation format ("none", "packed", "tpm", ...).
    public let attestationFormat: String
    /// How it was attested ("none", "self", "basic", "attca", "anonca", "unverified").
    public let attestationKind: String
    /// When it last signed in (Unix seconds), 0 if never.
    public let lastUsedAt: Int64

    /// A passkey that signs its user in without a password
    /// (`MFAContext.signInWithPasskey`): discoverable, registered with user verification.
    public var isPasskey: Bool { discoverable == true && userVerified }

    /// What the backup flags say: "synced passkey" (BE) or "device-bound key".
    public var backup: String { backupEligible ? "synced passkey" : "device-bound key" }

    /// Creates a description (libmfa makes them).
    public init(enrollmentID: String, displayName: String?, enrollmentDate: Int64, credentialID: [UInt8],
                algorithm: Int64, aaguid: [UInt8], transports: [String], discoverable: Bool?, userVerified: Bool,
                backupEligible: Bool, backedUp: Bool, signCount: Int64, attestationFormat: String,
                attestationKind: String, lastUsedAt: Int64) {
        self.enrollmentID = enrollmentID
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.credentialID = credentialID
        self.algorithm = algorithm
        self.aaguid = aaguid
        self.transports = transports
        self.discoverable = discoverable
        self.userVerified = userVerified
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.signCount = signCount
        self.attestationFormat = attestationFormat
        self.attestationKind = attestationKind
        self.lastUsedAt = lastUsedAt
    }
}

extension MFAContext {
    /// A user's WebAuthn credentials, oldest first: which are passkeys that
    /// sign in without a password, which are synced, how each was attested.
    /// Like `userFactors`, an operator's call (no session).
    /// - Throws: `invalidArgument`, `storageError`.
    public func webAuthnCredentials(uid: String, tenant: String? = nil) throws(MFAError) -> [WebAuthnCredentialInfo] {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        let factors = try store.factors(tenant: tenant ?? "", uid: uid)
        let credentials = try store.database.read { (db) throws(MFAError) in
            try WebAuthnStore.credentials(db, tenant: tenant ?? "", uid: uid)
        }
        return credentials.compactMap { credential in
            guard let factor = factors.first(where: { $0.enrollmentID == credential.enrollmentID }) else { return nil }
            return WebAuthnCredentialInfo(
                enrollmentID: credential.enrollmentID, displayName: factor.displayName,
                enrollmentDate: factor.enrolledAt, credentialID: credential.credentialID,
                algorithm: credential.algorithm, aaguid: credential.aaguid, transports: credential.transports,
                discoverable: credential.discoverable, userVerified: credential.userVerified,
                backupEligible: credential.backupEligible, backedUp: credential.backupState,
                signCount: credential.signCount, attestationFormat: credential.attestationFormat,
                attestationKind: credential.attestationKind, lastUsedAt: credential.lastUsedAt)
        }
    }
}
