/// WebAuthn credentials (security keys and passkeys) as a second factor:
/// libmfa is the relying party of WebAuthn Level 2.
///
/// Each credential is one factor. Its payload (sealed, bound to the row) is
/// the credential id and its COSE public key; `mfa_webauthn_credentials`
/// keeps the signature counter, transports, AAGUID, backup flags and user
/// handle. A ceremony's challenge is a libmfa token itself (see
/// `WebAuthnChallenge`), so nothing is stored between `start` and `finish`:
/// registration uses up its enrollment session, authentication its pending
/// credential, and the counter is claimed with a conditional update in the
/// attempt's transaction, as TOTP claims its step.
package enum WebAuthnFactor: SecondFactor {
    package typealias Settings = WebAuthnSettings

    package static var id: String { WebAuthnMultiFactorID }
    package static var kind: Int32 { 4 }
    package static var configKeys: [String] { ["webauthn"] }
    package static var defaultSettings: WebAuthnSettings { WebAuthnSettings() }
    package static var migrations: [Migration] { WebAuthnStore.migrations }
    package static var stateTables: [String] { ["mfa_webauthn_credentials"] }
    package static var summarySQL: String? { WebAuthnStore.kindSQL }
    package static var attemptJoin: String {
        "LEFT JOIN mfa_webauthn_credentials w ON w.enrollment_id = f.enrollment_id"
    }
    package static var attemptColumns: [String] { WebAuthnStore.attemptColumns }

    package static func apply(_ document: JSONValue, to settings: inout WebAuthnSettings) throws(MFAError) {
        guard let section = document["webauthn"] else { return }
        try WebAuthnConfig.apply(section, to: &settings)
    }

    package static func check(_ settings: WebAuthnSettings) throws(MFAError) {
        try WebAuthnConfig.checkRelyingParty(settings)
    }

    package static func json(_ settings: WebAuthnSettings) -> [(String, JSONValue)] {
        [("webauthn", WebAuthnConfig.json(settings))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        // A record read from the store carries its kind as its summary; a
        // record just enrolled does not, and is looked up.
        var summary = record.summary
        if summary == nil {
            summary = try context.store.database.read { (db) throws(MFAError) in
                WebAuthnStore.Summary(try WebAuthnStore.credential(db, enrollmentID: record.enrollmentID)).value
            }
        }
        return FactorHint(text: summary.flatMap(WebAuthnStore.Summary.init)?.hint ?? "security key")
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let webAuthn = assertion as? WebAuthnMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        return try context.webAuthnEnrollment(user: user, credentialJSON: webAuthn.credentialJSON, now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let webAuthn = assertion as? WebAuthnMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        return try context.webAuthnAttempt(webAuthn, claims: claims, now: now)
    }

    /// The sealed payload: a format byte, the credential id's length (2
    /// bytes), the credential id, the COSE public key.
    static func payload(credentialID: [UInt8], publicKey: [UInt8]) -> [UInt8] {
        [1, UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)] + credentialID + publicKey
    }

    /// The credential id and public key of a payload.
    static func credential(fromPayload bytes: SecureBytes) throws(MFAError) -> (id: [UInt8], key: COSEKey) {
        let plain: [UInt8] = bytes.withBytes { Array($0) }
        guard plain.count > 3, plain[0] == 1 else { throw MFAError(.storageError, "a stored WebAuthn key is malformed") }
        let length = Int(plain[1]) << 8 | Int(plain[2])
        guard length >= 1, plain.count > 3 + length else {
            throw MFAError(.storageError, "a stored WebAuthn key is malformed")
        }
        do throws(MFAError) {
            let key = try COSEKey(stored: try CBORDecoder.decode(Array(plain[(3 + length)...]), "stored key"))
            return (Array(plain[3..<3 + length]), key)
        } catch {
            throw MFAError(.storageError, "a stored WebAuthn key is malformed")
        }
    }
}
