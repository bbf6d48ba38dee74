/// The `apple` anonymous attestation statement format (WebAuthn §8.8):
/// Apple devices, whose anonymization CA makes a certificate for each
/// credential.
///
/// The first certificate's key is the credential's, and its extension
/// 1.2.840.113635.100.8.2 holds the nonce SHA-256(authenticatorData ||
/// clientDataHash), which binds the certificate to this registration; the
/// chain leads to Apple's WebAuthn root (configured by the relying party,
/// or judged by the host).
enum AppleAttestation {
    /// The nonce extension.
    static let nonceOID = "1.2.840.113635.100.8.2"

    static func verify(_ statement: CBORValue, _ authData: AuthenticatorData,
                       _ credential: AuthenticatorData.AttestedCredential,
                       _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try AttestationStatement.expectKeys(statement, ["x5c", "alg"])
        guard let x5c = statement[text: "x5c"] else { throw MFAError(.invalidArgument, "attStmt: apple needs x5c") }
        let chain = try AttestationStatement.certificates(x5c)
        let leaf = chain[0]
        guard let value = leaf.extensions[nonceOID]?.value else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: no Apple nonce extension")
        }
        let nonce = try Self.nonce(value)
        guard KeyedHash.equal(nonce, SHA256.digest(authData.raw + clientDataHash)) else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: its nonce is another registration's")
        }
        guard AttestationStatement.sameKey(leaf.publicKey, credential.publicKey) else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: its key is not the credential's")
        }
        return AttestationResult(format: "apple", kind: .anonymizationCA, chain: chain.map(\.der))
    }

    /// The nonce in the extension's value: `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    private static func nonce(_ value: ArraySlice<UInt8>) throws(MFAError) -> [UInt8] {
        func fail() -> MFAError { MFAError(.invalidArgument, "attestation certificate: the Apple nonce is malformed") }
        var outer = DERReader(value)
        let sequence = try outer.expect("the nonce extension")
        guard sequence.isUniversal(DERReader.Tag.sequence), outer.isAtEnd else { throw fail() }
        var fields = sequence.reader
        let tagged = try fields.expect("the nonce")
        guard tagged.isContext(1), tagged.constructed else { throw fail() }
        var inner = tagged.reader
        let octets = try inner.expect("the nonce")
        guard octets.isUniversal(DERReader.Tag.octetString), inner.isAtEnd else { throw fail() }
        return Array(octets.contents)
    }
}
