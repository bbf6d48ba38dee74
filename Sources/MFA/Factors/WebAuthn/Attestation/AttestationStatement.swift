/// How an authenticator vouched for a new credential, once its attestation
/// statement's signature checked out.
package struct AttestationResult: Sendable {
    /// How the statement was made (WebAuthn §6.5.4's attestation types).
    package enum Kind: String, Sendable {
        /// No statement (`none`).
        case none
        /// Signed by the credential's own key (`packed` without a certificate).
        case selfAttestation = "self"
        /// Signed by an attestation key with a certificate chain (`packed` x5c, `fido-u2f`, `android-key`).
        case basic
        /// Signed by a TPM's attestation identity key, certified by an attestation CA (`tpm`).
        case attestationCA = "attca"
        /// A certificate an anonymization CA made for this credential alone (`apple`).
        case anonymizationCA = "anonca"
        /// A statement that was not verified: conveyance `none` asked for no
        /// attestation, so its format (perhaps one libmfa does not know) is
        /// recorded and nothing else.
        case unverified
    }

    /// The statement format: "none", "packed", "fido-u2f", "tpm", "android-key", "apple", or
    /// (unverified) what the authenticator wrote.
    package var format: String
    /// How it was made.
    package var kind: Kind
    /// The certificate chain, leaf first (DER), for `basic`, `attca` and `anonca`.
    package var chain: [[UInt8]]
}

/// The attestation statement formats libmfa verifies (WebAuthn §8): `none`,
/// `packed` (self attestation and x5c chains), `fido-u2f`, `tpm` (Windows
/// Hello), `android-key` and `apple` (anonymous). Each checks the
/// statement's signature and certificate requirements; whether the chain is
/// trusted is decided afterwards (`WebAuthnTrustPolicy`).
///
/// `android-safetynet` is not among them: Google turned the SafetyNet
/// Attestation API down in January 2025, Android's FIDO2 API sends
/// `android-key` for device-bound keys since April 2025 and `none` for
/// synced passkeys, so a statement of that format is only met from old
/// devices; under conveyance `none` it registers unverified like any other
/// format, and when attestation is asked for it is refused.
package enum AttestationStatement {
    /// The longest certificate chain accepted.
    static let maxChain = 5
    /// The formats verified here.
    package static let formats = ["none", "packed", "fido-u2f", "tpm", "android-key", "apple"]

    /// Verifies `statement` of format `format` for `authData` and the client data hash.
    /// - Throws: `invalidArgument` for a malformed or unknown statement;
    ///   `invalidVerificationCode` for a signature or certificate that does not check out.
    package static func verify(format: String, statement: CBORValue, authData: AuthenticatorData,
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
        case "tpm":
            return try TPMAttestation.verify(statement, authData, credential, clientDataHash)
        case "android-key":
            return try AndroidKeyAttestation.verify(statement, authData, credential, clientDataHash)
        case "apple":
            return try AppleAttestation.verify(statement, authData, credential, clientDataHash)
        default:
            throw MFAError(.invalidArgument, "attestation format \"\(printable(format))\" is not one libmfa verifies "
                + "(none, packed, fido-u2f, tpm, android-key, apple)")
        }
    }

    /// A format's name as it may be stored and shown: at most 32 printable
    /// ASCII characters, else "unknown".
    package static func printable(_ format: String) -> String {
        let bytes = Array(format.utf8)
        guard !bytes.isEmpty, bytes.count <= 32, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return "unknown" }
        return format
    }

    private static func packed(_ statement: CBORValue, _ authData: AuthenticatorData,
                               _ credential: AuthenticatorData.AttestedCredential,
                               _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try expectKeys(statement, ["alg", "sig", "x5c"])
        let algorithm = try statementAlgorithm(statement, "packed")
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
        try checkSignature(leaf, algorithm, signature, signed, "packed")
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
        try checkAAGUID(leaf, credential)
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
        guard let key = chain[0].publicKey, case .ec2 = key.material else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: fido-u2f needs a P-256 key")
        }
        guard let point = credential.publicKey.uncompressedPoint else {
            throw MFAError(.invalidVerificationCode, "attStmt: a fido-u2f credential must be a P-256 key")
        }
        let signed = [0x00] + authData.rpIDHash + clientDataHash + credential.credentialID + point
        guard key.verifies(signature, of: signed, with: .es256) else {
            throw MFAError(.invalidVerificationCode, "attStmt: the fido-u2f attestation signature is wrong")
        }
        return AttestationResult(format: "fido-u2f", kind: .basic, chain: chain.map(\.der))
    }

    // MARK: What the formats share

    /// Refuses a statement with a field other than `known`.
    static func expectKeys(_ statement: CBORValue, _ known: [String]) throws(MFAError) {
        guard case .map(let pairs) = statement else { throw MFAError(.invalidArgument, "attStmt is not a map") }
        for pair in pairs {
            guard let name = pair.key.text, known.contains(name) else {
                throw MFAError(.invalidArgument, "attStmt: an unknown field")
            }
        }
    }

    /// The statement's `alg`: a COSE algorithm libmfa verifies (RS1 only where `allowSHA1`).
    static func statementAlgorithm(_ statement: CBORValue, _ format: String,
                                   allowSHA1: Bool = false) throws(MFAError) -> COSEKey.Algorithm {
        guard let raw = statement[text: "alg"]?.int, let algorithm = COSEKey.Algorithm(rawValue: raw),
              algorithm != .rs1 || allowSHA1 else {
            throw MFAError(.invalidArgument, "attStmt: \(format) alg must be ES256, EdDSA, RS256, ES384, ES512 or PS256"
                + (allowSHA1 ? " (or RS1)" : ""))
        }
        return algorithm
    }

    /// Checks that `leaf`'s key made `signature` of `signed` with `algorithm`.
    static func checkSignature(_ leaf: X509Certificate, _ algorithm: COSEKey.Algorithm, _ signature: [UInt8],
                               _ signed: [UInt8], _ format: String) throws(MFAError) {
        guard let key = leaf.publicKey else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: its key is of a kind libmfa does not verify")
        }
        guard key.verifies(signature, of: signed, with: algorithm) else {
            throw MFAError(.invalidVerificationCode, "attStmt: the \(format) attestation signature is wrong "
                + "(or alg does not fit the certificate's key)")
        }
    }

    /// Checks the certificate's AAGUID extension, if it has one: not
    /// critical, and the authenticator data's AAGUID.
    static func checkAAGUID(_ certificate: X509Certificate,
                            _ credential: AuthenticatorData.AttestedCredential) throws(MFAError) {
        if let extensionValue = certificate.aaguid {
            guard !extensionValue.critical, let aaguid = extensionValue.value, aaguid == credential.aaguid else {
                throw MFAError(.invalidVerificationCode,
                               "attestation certificate: its AAGUID extension does not match the authenticator's")
            }
        }
    }

    /// Whether a certificate's key is the credential's public key.
    static func sameKey(_ certificate: COSEKey?, _ credential: COSEKey) -> Bool {
        func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> { bytes.drop { $0 == 0 } }
        switch (certificate?.material, credential.material) {
        case (.ec2(let x1, let y1)?, .ec2(let x2, let y2)): return x1 == x2 && y1 == y2
        case (.ec(let c1, let x1, let y1)?, .ec(let c2, let x2, let y2)): return c1 == c2 && x1 == x2 && y1 == y2
        case (.okp(let x1)?, .okp(let x2)): return x1 == x2
        case (.rsa(let n1, let e1)?, .rsa(let n2, let e2)): return trimmed(n1) == trimmed(n2) && trimmed(e1) == trimmed(e2)
        default: return false
        }
    }

    /// The certificates of an `x5c`, read.
    static func certificates(_ x5c: CBORValue) throws(MFAError) -> [X509Certificate] {
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
