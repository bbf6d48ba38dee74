/// The relying party's checks of WebAuthn Level 2 (§7.1 registration,
/// §7.2 authentication), without state: the challenge is given, and what a
/// store keeps (the counter, the key) is the caller's.
///
/// Each refusal is a named error: `invalidArgument` (malformed JSON, CBOR,
/// client data, authenticator data), `invalidSession` (another challenge),
/// `originMismatch`, `rpIDMismatch`, `userVerificationRequired`,
/// `invalidVerificationCode` (user not present, a signature or statement
/// that does not check out).
package struct RelyingParty: Sendable {
    /// The rp id ("example.com").
    package var id: String
    /// The origins responses may come from.
    package var origins: [String]
    /// Whether the UV flag is required.
    package var requireUserVerification: Bool

    package init(id: String, origins: [String], requireUserVerification: Bool) {
        self.id = id
        self.origins = origins
        self.requireUserVerification = requireUserVerification
    }

    /// A verified registration: the new credential and how it was attested.
    package struct Registration: Sendable {
        package var clientData: ClientData
        package var authData: AuthenticatorData
        package var credential: AuthenticatorData.AttestedCredential
        package var attestation: AttestationResult
        package var transports: [String]
        package var attachment: String?
        /// Whether the credential is discoverable, as the browser's credProps says.
        package var residentKey: Bool?
    }

    /// What to do with a registration's attestation statement.
    package enum Statements: Sendable {
        /// Verify it; a format libmfa does not know is `invalidArgument`.
        case verify
        /// Verify it if its format is known; record another as unverified.
        case verifyKnown
        /// Record its format only (conveyance `none`, nobody to judge it).
        case skip
    }

    /// A verified assertion: what the store must check and keep.
    package struct Assertion: Sendable {
        package var clientData: ClientData
        package var authData: AuthenticatorData
    }

    /// Reads the client data of a response and checks its type; the
    /// challenge is left to the caller (`checkChallenge`, or a token).
    package static func clientData(_ bytes: [UInt8], type: String) throws(MFAError) -> ClientData {
        let clientData = try ClientData(bytes)
        guard clientData.type == type else {
            throw MFAError(.invalidArgument, "clientDataJSON.type must be \(type)")
        }
        return clientData
    }

    /// Checks the origin and that the call did not come from a cross-origin frame.
    package func checkOrigin(_ clientData: ClientData) throws(MFAError) {
        guard origins.contains(clientData.origin) else {
            throw MFAError(.originMismatch, "the response was made on a page of an origin that is not allowed")
        }
        guard !clientData.crossOrigin else {
            throw MFAError(.originMismatch, "the response was made in a cross-origin frame")
        }
    }

    /// Checks the rp id hash and the UP and UV flags.
    package func checkAuthenticatorData(_ authData: AuthenticatorData) throws(MFAError) {
        guard authData.rpIDHash == SHA256.digest(Array(id.utf8)) else {
            throw MFAError(.rpIDMismatch, "the authenticator scoped its response to another relying party id")
        }
        guard authData.flags.contains(.userPresent) else {
            throw MFAError(.invalidVerificationCode, "the authenticator did not see the user present")
        }
        guard !requireUserVerification || authData.flags.contains(.userVerified) else {
            throw MFAError(.userVerificationRequired, "the authenticator did not verify the user")
        }
    }

    /// Checks that the client data carries `expected` (base64url, as written in the options).
    package static func checkChallenge(_ clientData: ClientData, _ expected: String) throws(MFAError) {
        guard KeyedHash.equal(Array(clientData.challenge.utf8), Array(expected.utf8)) else {
            throw MFAError(.invalidSession, "the response answers another challenge")
        }
    }

    /// §7.1 steps 5-21 for a registration whose client data was read and
    /// whose challenge was checked: origin, rp id hash, flags, algorithm,
    /// attestation statement.
    package func verifyRegistration(_ credential: CredentialJSON, clientData: ClientData,
                                    statements: Statements = .verify) throws(MFAError) -> Registration {
        try checkOrigin(clientData)
        guard let object = credential.attestationObject else {
            throw MFAError(.invalidArgument, "credential: no attestationObject")
        }
        let attestation = try CBORDecoder.decode(object, "attestationObject")
        guard case .map(let pairs) = attestation, pairs.allSatisfy({ ["fmt", "attStmt", "authData"].contains($0.key.text ?? "") }),
              let format = attestation[text: "fmt"]?.text, let statement = attestation[text: "attStmt"],
              let rawAuthData = attestation[text: "authData"]?.bytes else {
            throw MFAError(.invalidArgument, "attestationObject must be a map of fmt, attStmt and authData")
        }
        let authData = try AuthenticatorData(rawAuthData)
        try checkAuthenticatorData(authData)
        guard let attested = authData.credential else {
            throw MFAError(.invalidArgument, "authenticatorData: a registration needs attested credential data (AT)")
        }
        guard attested.credentialID == credential.credentialID else {
            throw MFAError(.invalidArgument, "credential: rawId is not the credential id of the authenticator data")
        }
        let result: AttestationResult
        switch statements {
        case .skip where format != "none",
             .verifyKnown where !AttestationStatement.formats.contains(format):
            result = AttestationResult(format: AttestationStatement.printable(format), kind: .unverified, chain: [])
        default:
            result = try AttestationStatement.verify(format: format, statement: statement, authData: authData,
                                                     clientDataHash: SHA256.digest(clientData.raw))
        }
        return Registration(clientData: clientData, authData: authData, credential: attested, attestation: result,
                            transports: credential.transports, attachment: credential.attachment,
                            residentKey: credential.residentKey)
    }

    /// §7.2 steps 11-21 for an assertion whose client data was read and whose
    /// challenge was checked: origin, rp id hash, flags, the signature by `key`.
    /// The signature counter is the caller's to check.
    package func verifyAssertion(_ credential: CredentialJSON, clientData: ClientData,
                                 key: COSEKey) throws(MFAError) -> Assertion {
        try checkOrigin(clientData)
        return try verifyAssertion(credential, clientData: clientData, authData: Self.assertionData(credential),
                                   key: key)
    }

    /// The authenticator data of an assertion, read (§7.2 step 5 onwards
    /// need it): present with a signature, and without attested credential data.
    package static func assertionData(_ credential: CredentialJSON) throws(MFAError) -> AuthenticatorData {
        guard let rawAuthData = credential.authenticatorData, credential.signature != nil else {
            throw MFAError(.invalidArgument, "credential: an assertion needs authenticatorData and signature")
        }
        let authData = try AuthenticatorData(rawAuthData)
        guard authData.credential == nil else {
            throw MFAError(.invalidArgument, "authenticatorData: an assertion carries no attested credential data")
        }
        return authData
    }

    /// `verifyAssertion(_:clientData:key:)` on authenticator data already
    /// read (`assertionData`): origin, rp id hash, flags, the signature by `key`.
    package func verifyAssertion(_ credential: CredentialJSON, clientData: ClientData, authData: AuthenticatorData,
                                 key: COSEKey) throws(MFAError) -> Assertion {
        try checkOrigin(clientData)
        try checkAuthenticatorData(authData)
        guard let signature = credential.signature,
              key.verifies(signature, of: authData.raw + SHA256.digest(clientData.raw)) else {
            throw MFAError(.invalidVerificationCode, "the signature is wrong")
        }
        return Assertion(clientData: clientData, authData: authData)
    }
}
