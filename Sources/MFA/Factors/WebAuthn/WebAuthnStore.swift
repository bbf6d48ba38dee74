/// The WebAuthn factor's own table: one row per credential, keyed by its
/// enrollment id, with what the relying party keeps between ceremonies.
///
/// The public key itself is the factor's sealed payload (with the
/// credential id), so a store that was tampered with cannot swap in
/// another key: the seal is bound to the factor's row.
package enum WebAuthnStore {
    /// The WebAuthn track of the schema.
    package static let migrations: [Migration] = [
        { d, _ in [
            d.createKeyedTable("mfa_webauthn_credentials", """
                enrollment_id TEXT PRIMARY KEY, credential_id \(d.blobType) NOT NULL, \
                user_handle \(d.blobType) NOT NULL, algorithm BIGINT NOT NULL, sign_count BIGINT NOT NULL, \
                transports TEXT NOT NULL, aaguid \(d.blobType) NOT NULL, backup_eligible BIGINT NOT NULL, \
                backup_state BIGINT NOT NULL, user_verified BIGINT NOT NULL, attestation_format TEXT NOT NULL, \
                attestation_kind TEXT NOT NULL, authenticator_kind BIGINT NOT NULL, last_used_at BIGINT NOT NULL
                """),
            "CREATE UNIQUE INDEX mfa_webauthn_credential_ids ON mfa_webauthn_credentials (credential_id)",
        ] },
        // Version 2: whether the credential is discoverable (credProps.rk: 1
        // yes, 0 no, -1 unknown, as for every credential stored before), which
        // with user verification at registration makes a passkey that signs in
        // without a password.
        { _, _ in [
            "ALTER TABLE mfa_webauthn_credentials ADD COLUMN discoverable BIGINT NOT NULL DEFAULT -1",
        ] },
    ]

    /// What identifies the authenticator to its user, as `FactorRecord.summary` carries it.
    package enum AuthenticatorKind: Int64, Sendable {
        /// A roaming authenticator (USB, NFC, BLE) whose credential cannot leave it.
        case securityKey = 1
        /// A credential that may be synced (BE), or a platform authenticator's.
        case passkey = 2

        package var hint: String {
            switch self {
            case .securityKey: "security key"
            case .passkey: "passkey"
            }
        }
    }

    /// What a factor's summary says of its credential, as bits: the
    /// authenticator kind (1 or 2), then `signsIn` (4), `backupEligible`
    /// (8), `backedUp` (16).
    package struct Summary: Sendable, Equatable {
        var kind: AuthenticatorKind
        /// A passkey that signs its user in without a password: discoverable, and registered with UV.
        var signsIn: Bool
        var backupEligible: Bool
        var backedUp: Bool

        init(kind: AuthenticatorKind, signsIn: Bool, backupEligible: Bool, backedUp: Bool) {
            self.kind = kind
            self.signsIn = signsIn
            self.backupEligible = backupEligible
            self.backedUp = backedUp
        }

        init?(_ value: Int64) {
            guard let kind = AuthenticatorKind(rawValue: value & 3) else { return nil }
            self.init(kind: kind, signsIn: value & 4 != 0, backupEligible: value & 8 != 0, backedUp: value & 16 != 0)
        }

        init(_ credential: Credential) {
            self.init(kind: credential.authenticatorKind, signsIn: credential.isPasskey,
                      backupEligible: credential.backupEligible, backedUp: credential.backupState)
        }

        var value: Int64 {
            kind.rawValue | (signsIn ? 4 : 0) | (backupEligible ? 8 : 0) | (backedUp ? 16 : 0)
        }

        /// The factor's hint: "synced passkey" or "device-bound passkey" for
        /// a passkey that signs in; else "passkey" (backup eligible or a
        /// platform authenticator's) or "security key".
        var hint: String {
            guard signsIn else { return kind.hint }
            return backupEligible ? "synced passkey" : "device-bound passkey"
        }
    }

    /// The summary (`Summary`).
    static let kindSQL = """
        SELECT c.authenticator_kind + (CASE WHEN c.discoverable = 1 AND c.user_verified = 1 THEN 4 ELSE 0 END) \
        + 8 * c.backup_eligible + 16 * c.backup_state FROM mfa_webauthn_credentials c \
        WHERE c.enrollment_id = f.enrollment_id
        """

    /// One stored credential.
    package struct Credential: Sendable, Equatable {
        package var enrollmentID: String
        package var credentialID: [UInt8]
        package var userHandle: [UInt8]
        package var algorithm: Int64
        package var signCount: Int64
        package var transports: [String]
        package var aaguid: [UInt8]
        package var backupEligible: Bool
        package var backupState: Bool
        package var userVerified: Bool
        package var attestationFormat: String
        package var attestationKind: String
        package var authenticatorKind: AuthenticatorKind
        package var lastUsedAt: Int64
        /// Whether the credential is discoverable (credProps), or nil when unknown.
        package var discoverable: Bool?

        /// A passkey that can sign its user in without a password:
        /// discoverable, and the user verified at registration.
        package var isPasskey: Bool { discoverable == true && userVerified }
    }

    private static let columns = """
        c.enrollment_id, c.credential_id, c.user_handle, c.algorithm, c.sign_count, c.transports, c.aaguid, \
        c.backup_eligible, c.backup_state, c.user_verified, c.attestation_format, c.attestation_kind, \
        c.authenticator_kind, c.last_used_at, c.discoverable
        """

    /// Stores a new credential; `secondFactorExists` if its id is already registered (to anyone).
    static func insert(_ db: SQLConnection, _ credential: Credential) throws(MFAError) {
        guard try db.query("SELECT 1 FROM mfa_webauthn_credentials WHERE credential_id = ?",
                           [.blob(credential.credentialID)]).isEmpty else {
            throw MFAError(.secondFactorExists, "this credential is already registered")
        }
        try db.execute("""
            INSERT INTO mfa_webauthn_credentials (enrollment_id, credential_id, user_handle, algorithm, sign_count, \
            transports, aaguid, backup_eligible, backup_state, user_verified, attestation_format, attestation_kind, \
            authenticator_kind, last_used_at, discoverable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(credential.enrollmentID), .blob(credential.credentialID), .blob(credential.userHandle),
                  .int(credential.algorithm), .int(credential.signCount),
                  .text(credential.transports.joined(separator: ",")), .blob(credential.aaguid),
                  .int(credential.backupEligible ? 1 : 0), .int(credential.backupState ? 1 : 0),
                  .int(credential.userVerified ? 1 : 0), .text(credential.attestationFormat),
                  .text(credential.attestationKind), .int(credential.authenticatorKind.rawValue),
                  .int(credential.lastUsedAt), .int(credential.discoverable.map { $0 ? 1 : 0 } ?? -1)])
    }

    /// A user's credentials, oldest first.
    static func credentials(_ db: SQLConnection, tenant: String, uid: String) throws(MFAError) -> [Credential] {
        try db.query("""
            SELECT \(columns) FROM mfa_webauthn_credentials c JOIN mfa_factors f ON f.enrollment_id = c.enrollment_id \
            WHERE f.tenant = ? AND f.uid = ? ORDER BY f.enrolled_at, f.enrollment_id
            """, [.text(tenant), .text(uid)]).map { (row) throws(MFAError) in try credential(row) }
    }

    /// The credential of a factor.
    static func credential(_ db: SQLConnection, enrollmentID: String) throws(MFAError) -> Credential {
        guard let row = try db.query("SELECT \(columns) FROM mfa_webauthn_credentials c WHERE c.enrollment_id = ?",
                                     [.text(enrollmentID)]).first else {
            throw MFAError(.storageError, "a stored WebAuthn factor has no credential")
        }
        return try credential(row)
    }

    /// The enrollment id of the user's credential with this id, if any.
    static func enrollmentID(_ db: SQLConnection, credentialID: [UInt8], tenant: String,
                             uid: String) throws(MFAError) -> String? {
        try db.query("""
            SELECT c.enrollment_id FROM mfa_webauthn_credentials c JOIN mfa_factors f \
            ON f.enrollment_id = c.enrollment_id WHERE c.credential_id = ? AND f.tenant = ? AND f.uid = ?
            """, [.blob(credentialID), .text(tenant), .text(uid)]).first?.first?.text
    }

    /// The credential a passkey sign-in names: its factor and user, and
    /// whether it is a passkey that signs in (discoverable, registered with
    /// user verification).
    struct PasskeyOwner: Sendable {
        var enrollmentID: String
        var uid: String
        var isPasskey: Bool
    }

    /// The credential with this id among `tenant`'s, if any (one indexed lookup).
    static func passkey(_ db: SQLConnection, credentialID: [UInt8], tenant: String) throws(MFAError) -> PasskeyOwner? {
        guard let row = try db.query("""
            SELECT c.enrollment_id, f.uid, c.discoverable, c.user_verified FROM mfa_webauthn_credentials c \
            JOIN mfa_factors f ON f.enrollment_id = c.enrollment_id WHERE c.credential_id = ? AND f.tenant = ?
            """, [.blob(credentialID), .text(tenant)]).first else { return nil }
        guard row.count == 4, let id = row[0].text, let uid = row[1].text, let discoverable = row[2].int,
              let verified = row[3].int else {
            throw MFAError(.storageError, "a stored WebAuthn credential is malformed")
        }
        return PasskeyOwner(enrollmentID: id, uid: uid, isPasskey: discoverable == 1 && verified != 0)
    }

    /// What an attempt reads of the credential with its factor (`WebAuthnFactor.attemptColumns`).
    static let attemptColumns = ["w.credential_id", "w.user_handle", "w.sign_count", "w.backup_eligible"]

    /// What the judge of an attempt needs of the stored credential.
    struct AttemptState: Sendable {
        var credentialID: [UInt8]
        var userHandle: [UInt8]
        var signCount: Int64
        var backupEligible: Bool
    }

    /// The `attemptColumns` of an attempt, checked.
    static func attemptState(_ row: [SQLValue]) throws(MFAError) -> AttemptState {
        guard row.count == 4, row[0] != .null else {
            throw MFAError(.storageError, "a stored WebAuthn factor has no credential")
        }
        guard let credentialID = row[0].blob, let handle = row[1].blob, let count = row[2].int, count >= 0,
              let be = row[3].int else {
            throw MFAError(.storageError, "a stored WebAuthn credential is malformed")
        }
        return AttemptState(credentialID: credentialID, userHandle: handle, signCount: count, backupEligible: be != 0)
    }

    /// Records a use: the counter must go up, unless it was and stays 0
    /// (authenticators without a counter). When it does not, the response
    /// came from a clone, or was replayed: the sign-in is refused as
    /// `credentialCloned` (and audited as a failure).
    static func claim(_ enrollmentID: String, signCount: Int64, backupState: Bool, now: Int64) -> FactorClaim {
        FactorClaim(claimShape, [.int(signCount), .int(backupState ? 1 : 0), .int(now), .text(enrollmentID),
                                 .int(signCount), .int(signCount)])
    }

    private static let claimShape = ClaimShape(
        table: "mfa_webauthn_credentials", assignments: "sign_count = ?, backup_state = ?, last_used_at = ?",
        condition: "enrollment_id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))",
        missed: .refuse(MFAError(.credentialCloned,
                                 "the signature counter did not increase: the authenticator may be a clone")))

    private static func credential(_ row: SQLRow) throws(MFAError) -> Credential {
        guard row.count == 15, let id = row[0].text, let credentialID = row[1].blob, let handle = row[2].blob,
              let algorithm = row[3].int, let count = row[4].int, let transports = row[5].text,
              let aaguid = row[6].blob, let be = row[7].int, let bs = row[8].int, let uv = row[9].int,
              let format = row[10].text, let attestationKind = row[11].text,
              let kind = row[12].int.flatMap(AuthenticatorKind.init(rawValue:)), let lastUsed = row[13].int,
              let discoverable = row[14].int else {
            throw MFAError(.storageError, "a stored WebAuthn credential is malformed")
        }
        return Credential(enrollmentID: id, credentialID: credentialID, userHandle: handle, algorithm: algorithm,
                          signCount: count, transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
                          aaguid: aaguid, backupEligible: be != 0, backupState: bs != 0, userVerified: uv != 0,
                          attestationFormat: format, attestationKind: attestationKind, authenticatorKind: kind,
                          lastUsedAt: lastUsed, discoverable: discoverable < 0 ? nil : discoverable != 0)
    }
}
