/// The `tpm` attestation statement format (WebAuthn §8.3): Windows Hello
/// and other platform authenticators whose keys live in a TPM 2.0.
///
/// The TPM certifies the credential key (`certInfo`, about `pubArea`) with
/// an attestation identity key (AIK) whose certificate, issued by the TPM
/// maker's or the platform's attestation CA, leads the chain. Checked: the
/// version 2.0; that `pubArea` is the credential's public key; that
/// `certInfo` is a TPM's certification of exactly that object (its name is
/// `pubArea`'s digest) over the hash of what the statement covers
/// (`extraData`); the AIK's signature of `certInfo` (RS1, the SHA-1 RSA
/// signatures Windows makes, is accepted here and only here); and the AIK
/// certificate's requirements (§8.3.1): version 3, an empty subject, the
/// TPM's maker, model and version in its subject alternative name, the
/// key purpose `tcg-kp-AIKCertificate`, no CA, and its AAGUID extension, if
/// any, the authenticator's.
enum TPMAttestation {
    /// `tcg-kp-AIKCertificate`.
    static let aikPurpose = "2.23.133.8.3"
    /// `tcpaTpmManufacturer`, `tcpaTpmModel`, `tcpaTpmVersion`.
    static let tpmAttributes = ["2.23.133.2.1", "2.23.133.2.2", "2.23.133.2.3"]
    /// The subject alternative name extension.
    static let subjectAltName = "2.5.29.17"
    /// The extended key usage extension.
    static let extendedKeyUsage = "2.5.29.37"

    static func verify(_ statement: CBORValue, _ authData: AuthenticatorData,
                       _ credential: AuthenticatorData.AttestedCredential,
                       _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try AttestationStatement.expectKeys(statement, ["ver", "alg", "x5c", "sig", "certInfo", "pubArea"])
        guard statement[text: "ver"]?.text == "2.0" else {
            throw MFAError(.invalidArgument, "attStmt: tpm ver must be \"2.0\"")
        }
        let algorithm = try AttestationStatement.statementAlgorithm(statement, "tpm", allowSHA1: true)
        guard let signature = statement[text: "sig"]?.bytes, let certInfo = statement[text: "certInfo"]?.bytes,
              let pubArea = statement[text: "pubArea"]?.bytes, let x5c = statement[text: "x5c"] else {
            throw MFAError(.invalidArgument, "attStmt: tpm needs x5c, sig, certInfo and pubArea")
        }
        // Read everything before checking anything.
        let chain = try AttestationStatement.certificates(x5c)
        let area = try TPMStructures.readPublic(pubArea)
        let attest = try TPMStructures.readAttest(certInfo)
        guard sameKey(area.key, credential.publicKey) else {
            throw MFAError(.invalidVerificationCode, "attStmt: pubArea is not the credential's public key")
        }
        guard KeyedHash.equal(attest.extraData, algorithm.digest.hash(authData.raw + clientDataHash)) else {
            throw MFAError(.invalidVerificationCode, "attStmt: certInfo certifies another registration (extraData)")
        }
        guard attest.name.count > 2, let nameDigest = TPMStructures.digest(UInt16(attest.name[0]) << 8 | UInt16(attest.name[1])),
              UInt16(attest.name[0]) << 8 | UInt16(attest.name[1]) == area.nameAlg,
              KeyedHash.equal(Array(attest.name.dropFirst(2)), nameDigest.hash(pubArea)) else {
            throw MFAError(.invalidVerificationCode, "attStmt: certInfo certifies another object than pubArea (name)")
        }
        let aik = chain[0]
        try AttestationStatement.checkSignature(aik, algorithm, signature, certInfo, "tpm")
        try checkCertificate(aik, credential)
        return AttestationResult(format: "tpm", kind: .attestationCA, chain: chain.map(\.der))
    }

    /// WebAuthn §8.3.1: the AIK certificate's requirements.
    private static func checkCertificate(_ aik: X509Certificate,
                                         _ credential: AuthenticatorData.AttestedCredential) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidVerificationCode, "AIK certificate: \(why)") }
        guard aik.version == 3 else { throw fail("not version 3") }
        guard aik.subjectIsEmpty else { throw fail("its subject must be empty") }
        guard let names = aik.extensions[subjectAltName] else { throw fail("no subject alternative name") }
        let attributes = try X509Extension.directoryNameAttributes(names.value)
        guard tpmAttributes.allSatisfy({ attributes[$0] != nil }) else {
            throw fail("its subject alternative name does not name the TPM's maker, model and version")
        }
        guard let usage = aik.extensions[extendedKeyUsage],
              try X509Extension.keyPurposes(usage.value).contains(aikPurpose) else {
            throw fail("its extended key usage lacks tcg-kp-AIKCertificate (2.23.133.8.3)")
        }
        guard aik.isCA == false else { throw fail("basic constraints must say it is no CA") }
        try AttestationStatement.checkAAGUID(aik, credential)
    }

    /// Whether `pubArea`'s key is the credential's public key.
    private static func sameKey(_ key: TPMStructures.Public.Key, _ credential: COSEKey) -> Bool {
        switch (key, credential.material) {
        case (.rsa(let modulus, let exponent), .rsa(let n, let e)):
            let tpmExponent = exponent == 0 ? 65537 : exponent
            let stored = Array(e.drop { $0 == 0 })
            guard stored.count <= 4 else { return false }
            let value = stored.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Array(modulus.drop { $0 == 0 }) == Array(n.drop { $0 == 0 }) && value == tpmExponent
        case (.ecc(let curve, let x, let y), .ec2(let cx, let cy)):
            return curve == 0x0003 && x == cx && y == cy
        case (.ecc(let curve, let x, let y), .ec(let cCurve, let cx, let cy)):
            return curve == (cCurve == .p384 ? 0x0004 : 0x0005) && x == cx && y == cy
        default:
            return false
        }
    }
}
