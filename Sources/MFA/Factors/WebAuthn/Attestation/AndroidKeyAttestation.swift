/// The `android-key` attestation statement format (WebAuthn §8.4): keys in
/// Android's hardware-backed keystore, attested by the keystore itself.
///
/// The first certificate is the credential key's own, made by the keystore
/// with the key description extension (OID 1.3.6.1.4.1.11129.2.1.17).
/// Checked: its key is the credential's and signed the statement; the
/// description's attestation challenge is the client data hash; neither
/// authorization list says `allApplications` (the key must be scoped to the
/// relying party); and, from the two lists together, the key was generated
/// in the keystore (origin `KM_ORIGIN_GENERATED`) for signing (purpose
/// `KM_PURPOSE_SIGN`). Those two are judged where the lists say them: a key
/// described as imported, or for other purposes only, is refused; lists
/// that say nothing of them (the WebAuthn specification's own test vector
/// has empty ones; every keystore fills them) are not. Whether the keystore
/// is trusted (Google's roots) is the chain's question, answered by the
/// configuration's roots or the host.
enum AndroidKeyAttestation {
    /// The key description extension.
    static let keyDescriptionOID = "1.3.6.1.4.1.11129.2.1.17"
    /// Authorization list tags: purpose, allApplications, origin.
    static let purposeTag = 1, allApplicationsTag = 600, originTag = 702
    /// `KM_PURPOSE_SIGN`, `KM_ORIGIN_GENERATED`.
    static let purposeSign = 2, originGenerated = 0

    static func verify(_ statement: CBORValue, _ authData: AuthenticatorData,
                       _ credential: AuthenticatorData.AttestedCredential,
                       _ clientDataHash: [UInt8]) throws(MFAError) -> AttestationResult {
        try AttestationStatement.expectKeys(statement, ["alg", "sig", "x5c"])
        let algorithm = try AttestationStatement.statementAlgorithm(statement, "android-key")
        guard let signature = statement[text: "sig"]?.bytes, let x5c = statement[text: "x5c"] else {
            throw MFAError(.invalidArgument, "attStmt: android-key needs sig and x5c")
        }
        let chain = try AttestationStatement.certificates(x5c)
        let leaf = chain[0]
        guard let description = leaf.extensions[keyDescriptionOID] else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: no Android key description")
        }
        let key = try KeyDescription(description.value)
        try AttestationStatement.checkSignature(leaf, algorithm, signature, authData.raw + clientDataHash,
                                                "android-key")
        guard AttestationStatement.sameKey(leaf.publicKey, credential.publicKey) else {
            throw MFAError(.invalidVerificationCode, "attestation certificate: its key is not the credential's")
        }
        guard KeyedHash.equal(key.challenge, clientDataHash) else {
            throw MFAError(.invalidVerificationCode, "Android key description: the challenge is another registration's")
        }
        guard !key.allApplications else {
            throw MFAError(.invalidVerificationCode, "Android key description: the key is not scoped to the relying party")
        }
        guard key.origins.allSatisfy({ $0 == originGenerated }), key.purposes.isEmpty || key.purposes.contains(purposeSign) else {
            throw MFAError(.invalidVerificationCode,
                           "Android key description: the key was not generated in the keystore for signing")
        }
        return AttestationResult(format: "android-key", kind: .basic, chain: chain.map(\.der))
    }

    /// What the checks read of a `KeyDescription`: the attestation
    /// challenge, and from both authorization lists together the purposes,
    /// the origins and whether `allApplications` appears.
    struct KeyDescription {
        var challenge: [UInt8] = []
        var purposes: Set<Int> = []
        var origins: Set<Int> = []
        var allApplications = false

        init(_ value: ArraySlice<UInt8>) throws(MFAError) {
            func fail() -> MFAError { MFAError(.invalidArgument, "Android key description: malformed") }
            var outer = DERReader(value)
            let sequence = try outer.expect("the key description")
            guard sequence.isUniversal(DERReader.Tag.sequence), outer.isAtEnd else { throw fail() }
            var fields = sequence.reader
            // attestationVersion, attestationSecurityLevel, keymasterVersion, keymasterSecurityLevel
            for _ in 0..<4 { _ = try fields.expect("a version or security level") }
            let challenge = try fields.expect("the attestation challenge")
            guard challenge.isUniversal(DERReader.Tag.octetString) else { throw fail() }
            self.challenge = Array(challenge.contents)
            _ = try fields.expect("the unique id")
            for _ in 0..<2 {
                let list = try fields.expect("an authorization list")
                guard list.isUniversal(DERReader.Tag.sequence) else { throw fail() }
                try read(list.reader)
            }
        }

        /// Reads one `AuthorizationList`: each entry an explicitly tagged value.
        private mutating func read(_ list: DERReader) throws(MFAError) {
            func fail() -> MFAError { MFAError(.invalidArgument, "Android key description: malformed authorization list") }
            var entries = list
            while let entry = try entries.next() {
                guard entry.tagClass == 2, entry.constructed else { throw fail() }
                var inner = entry.reader
                let value = try inner.expect("an authorization")
                switch entry.number {
                case AndroidKeyAttestation.allApplicationsTag:
                    allApplications = true
                case AndroidKeyAttestation.purposeTag:
                    guard value.isUniversal(DERReader.Tag.set) else { throw fail() }
                    var items = value.reader
                    while let item = try items.next() {
                        guard item.isUniversal(DERReader.Tag.integer), let purpose = DERReader.integer(item.contents) else {
                            throw fail()
                        }
                        purposes.insert(purpose)
                    }
                case AndroidKeyAttestation.originTag:
                    guard value.isUniversal(DERReader.Tag.integer), let origin = DERReader.integer(value.contents) else {
                        throw fail()
                    }
                    origins.insert(origin)
                default:
                    break
                }
            }
        }
    }
}
