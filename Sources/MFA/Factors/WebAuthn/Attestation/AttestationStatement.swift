/// How an authenticator vouched for a new credential, once its attestation
/// statement's signature checked out.
package struct AttestationResult: Sendable {
    /// How the statement was made.
    package enum Kind: String, Sendable {
        /// No statement (`none`).
        case none
        /// Signed by the credential's own key (`packed` without a certificate).
        case selfAttestation = "self"
        /// Signed by an attestation key with a certificate chain (`packed` x5c, `fido-u2f`).
        case basic
    }

    /// The statement format: "none", "packed" or "fido-u2f".
    package var format: String
    /// How it was made.
    package var kind: Kind
    /// The certificate chain, leaf first (DER), for `basic`.
    package var chain: [[UInt8]]
}

/// The attestation statement formats libmfa verifies (WebAuthn §8): `none`,
/// `packed` (self attestation and x5c chains) and `fido-u2f`. Each checks
/// the statement's signature and certificate requirements; whether the
/// chain is trusted is decided afterwards (`WebAuthnTrustPolicy`).
enum AttestationStatement {
    /// The longest certificate chain accepted.
    static let maxChain = 5

    /// Verifies `statement` of format `format` for `authData` and the client data hash.
    /// - Throws: `invalidArgument` for a malformed or unknown statement;
    ///   `invalidVerificationCode` for a signature or certificate that does not check out.
    static func verify(format: String, statement: CBORValue, authData: AuthenticatorData,
                       clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        guard let credential = authData.credential else {
            throw MFAError(.invalidArgument, "authenticatorData: a registration needs attested credential data")
        }
        switch format {
        case "none":
            guard case .map(let pairs) = statement, pairs.isEmpty else {
                throw MFAError(.invalidArgument, "attStmt: the none format has an empty statement")
            }
            return AttestationResult(format: format, kind: .none, chain: [])
        case "packed":
            return try packed(statement, authData, credential, clientDataHash)
        case "fido-u2f":
            return try fidoU2F(statement, authData, credential, clientDataHash)
        default:
            throw MFAError(.invalidArgument, "attestation format \"\(format.prefix(32))\" is not none, packed or fido-u2f")
        }
    }

    private static func packed(_ statement: CBORValue, _ authData: AuthenticatorData,
                               _ credential: AuthenticatorData.AttestedCredential,
                               _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try expectKeys(statement, ["alg", "sig", "x5c"])
        guard let rawAlgorithm = statement[text: "alg"]?.int, let algorithm = COSEKey.Algorithm(rawValue: rawAlgorithm) else {
            throw MFAError(.invalidArgument, "attStmt: packed alg must be ES256, EdDSA or RS256")
        }
        guard let signature = statement[text: "sig"]?.bytes else {
            throw MFAError(.invalidArgument, "attStmt: packed needs sig bytes")
        }
        let signed = authData.raw + clientDataHash
        guard let x5c = statement[text: "x5c"] else {
            // Self attestation: the credential key signs, with its own algorithm.
            guard algorithm == credential.publicKey.algorithm else {
                throw MFAError(.invalidVerificationCode, "attStmt: self attestation's alg differs from the credential's")
            }
            guard credential.publicKey.verifies(signature, of: signed) else {
                throw MFAError(.invalidVerificationCode, "attStmt: the self attestation signature is wrong")
            }
            return AttestationResult(format: "packed", kind: .selfAttestation, chain: [])
        }
        let chain = try certificates(x5c)
        let leaf = chain[0]
        guard let key = leaf.publicKey, key.algorithm == algorithm else {
            throw MFAError(.invalidVerificationCode, "attStmt: the attestation certificate's key does not match alg")
        }
        guard key.verifies(signature, of: signed) else {
            throw MFAError(.invalidVerificationCode, "attStmt: the packed attestation signature is wrong")
        }
        // WebAuthn §8.2.1: the attestation certificate's requirements.
        guard leaf.version == 3 else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: not version 3")
        }
        guard let country = leaf.subject["2.5.4.6"], !country.isEmpty, leaf.subject["2.5.4.10"]?.isEmpty == false,
              leaf.subject["2.5.4.3"]?.isEmpty == false,
              leaf.subject["2.5.4.11"] == "Authenticator Attestation" else {
            throw MFAError(.invalidVerificationCode,
                           "attestation certificate: the subject needs C, O, CN and OU \"Authenticator Attestation\"")
        }
        guard leaf.isCA == false else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: basic constraints must say it is no CA")
        }
        if let extensionValue = leaf.aaguid {
            guard !extensionValue.critical, let aaguid = extensionValue.value, aaguid == credential.aaguid else {
                throw MFAError(.invalidVerificationCode,
                               "attestation certificate: its AAGUID extension does not match the authenticator's")
            }
        }
        return AttestationResult(format: "packed", kind: .basic, chain: chain.map(\.der))
    }

    private static func fidoU2F(_ statement: CBORValue, _ authData: AuthenticatorData,
                                _ credential: AuthenticatorData.AttestedCredential,
                                _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try expectKeys(statement, ["sig", "x5c"])
        guard let signature = statement[text: "sig"]?.bytes, let x5c = statement[text: "x5c"] else {
            throw MFAError(.invalidArgument, "attStmt: fido-u2f needs sig and x5c")
        }
        let chain = try certificates(x5c)
        guard chain.count == 1 else { throw MFAError(.invalidArgument, "attStmt: fido-u2f has exactly one certificate") }
        guard let key = chain[0].publicKey, key.algorithm == .es256 else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: fido-u2f needs a P-256 key")
        }
        guard let point = credential.publicKey.uncompressedPoint else {
            throw MFAError(.invalidVerificationCode, "attStmt: a fido-u2f credential must be a P-256 key")
        }
        let signed = [0x00] + authData.rpIDHash + clientDataHash + credential.credentialID + point
        guard key.verifies(signature, of: signed) else {
            throw MFAError(.invalidVerificationCode, "attStmt: the fido-u2f attestation signature is wrong")
        }
        return AttestationResult(format: "fido-u2f", kind: .basic, chain: chain.map(\.der))
    }

    private static func expectKeys(_ statement: CBORValue, _ known: [String]) throws(MFAError) {
        guard case .map(let pairs) = statement else { throw MFAError(.invalidArgument, "attStmt is not a map") }
        for pair in pairs {
            guard let name = pair.key.text, known.contains(name) else {
                throw MFAError(.invalidArgument, "attStmt: an unknown field")
            }
        }
    }

    private static func certificates(_ x5c: CBORValue) throws(MFAError) -> [X509Certificate] {
        guard case .array(let items) = x5c, !items.isEmpty, items.count <= maxChain else {
            throw MFAError(.invalidArgument, "attStmt: x5c must hold 1 to \(maxChain) certificates")
        }
        var chain: [X509Certificate] = []
        for item in items {
            guard let der = item.bytes else { throw MFAError(.invalidArgument, "attStmt: x5c holds a non-byte item") }
            chain.append(try X509Certificate(der: der))
        }
        return chain
    }
}
