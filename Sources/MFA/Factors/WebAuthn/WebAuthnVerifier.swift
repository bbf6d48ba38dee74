/// The relying party's checks without libmfa's state, for hosts that keep
/// their own credentials (like `TOTP.verify` beside the engine), and for
/// checking other implementations' responses against libmfa's.
///
/// The challenge is the host's; so are the credential store, the counter
/// and the attestation trust (the chain is returned, not judged).
public enum WebAuthnVerifier {
    /// What a response must answer.
    public struct Expectation: Sendable {
        /// The challenge as the options carried it (base64url).
        public var challenge: String
        /// The rp id ("example.com").
        public var rpID: String
        /// The origins the response may come from.
        public var origins: [String]
        /// Whether the UV flag is required.
        public var requireUserVerification: Bool

        /// Creates an expectation.
        public init(challenge: String, rpID: String, origins: [String], requireUserVerification: Bool = false) {
            self.challenge = challenge
            self.rpID = rpID
            self.origins = origins
            self.requireUserVerification = requireUserVerification
        }

        var party: RelyingParty {
            RelyingParty(id: rpID, origins: origins, requireUserVerification: requireUserVerification)
        }
    }

    /// A verified registration.
    public struct Credential: Sendable, Equatable {
        /// The credential id.
        public let credentialID: [UInt8]
        /// The public key as a COSE_Key (CBOR): keep it to verify assertions.
        public let publicKey: [UInt8]
        /// Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
        public let algorithm: Int64
        /// The signature counter at registration.
        public let signCount: UInt32
        /// The authenticator data flags (UP 0x01, UV 0x04, BE 0x08, BS 0x10).
        public let flags: UInt8
        /// The AAGUID (16 bytes).
        public let aaguid: [UInt8]
        /// The attestation format: "none", "packed" or "fido-u2f".
        public let format: String
        /// How it was attested: "none", "self" or "basic".
        public let attestationKind: String
        /// The chain of a "basic" attestation, leaf first, DER.
        public let certificates: [[UInt8]]
        /// The transports the browser reported.
        public let transports: [String]
    }

    /// A verified assertion.
    public struct Assertion: Sendable, Equatable {
        /// The credential id it was made with.
        public let credentialID: [UInt8]
        /// The signature counter: the host must check that it went up (unless both are 0).
        public let signCount: UInt32
        /// The authenticator data flags.
        public let flags: UInt8
        /// The user handle the authenticator returned, if any.
        public let userHandle: [UInt8]?
    }

    /// Verifies a registration response (WebAuthn §7.1): type, challenge,
    /// origin, rp id hash, flags, algorithm, attestation statement (none,
    /// packed, fido-u2f; the chain is returned unjudged).
    /// - Throws: `invalidArgument` (malformed), `invalidSession` (another
    ///   challenge), `originMismatch`, `rpIDMismatch`,
    ///   `userVerificationRequired`, `invalidVerificationCode` (UP missing, a
    ///   statement that does not verify), `crypto` (GnuTLS cannot be loaded).
    public static func verifyRegistration(credentialJSON: String,
                                          expecting expectation: Expectation) throws(MFAError) -> Credential {
        let credential = try CredentialJSON(credentialJSON, for: .registration)
        let clientData = try RelyingParty.clientData(credential.clientDataJSON, type: "webauthn.create")
        try RelyingParty.checkChallenge(clientData, expectation.challenge)
        let registration = try expectation.party.verifyRegistration(credential, clientData: clientData)
        let attested = registration.credential
        return Credential(credentialID: attested.credentialID, publicKey: attested.publicKeyBytes,
                          algorithm: attested.publicKey.algorithm.rawValue,
                          signCount: registration.authData.signCount, flags: registration.authData.flags.rawValue,
                          aaguid: attested.aaguid, format: registration.attestation.format,
                          attestationKind: registration.attestation.kind.rawValue,
                          certificates: registration.attestation.chain, transports: registration.transports)
    }

    /// Verifies an assertion response (WebAuthn §7.2) with a stored public
    /// key: type, challenge, origin, rp id hash, flags, signature. The
    /// counter and the credential's owner are the host's to check.
    /// - Throws: as `verifyRegistration`; `invalidArgument` for a public key
    ///   that is not a COSE_Key of ES256, EdDSA or RS256.
    public static func verifyAssertion(credentialJSON: String, expecting expectation: Expectation,
                                       publicKey: [UInt8]) throws(MFAError) -> Assertion {
        let key = try COSEKey(try CBORDecoder.decode(publicKey, "public key"))
        let credential = try CredentialJSON(credentialJSON, for: .authentication)
        let clientData = try RelyingParty.clientData(credential.clientDataJSON, type: "webauthn.get")
        try RelyingParty.checkChallenge(clientData, expectation.challenge)
        let verified = try expectation.party.verifyAssertion(credential, clientData: clientData, key: key)
        return Assertion(credentialID: credential.credentialID, signCount: verified.authData.signCount,
                         flags: verified.authData.flags.rawValue, userHandle: credential.userHandle)
    }
}
