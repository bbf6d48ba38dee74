extension MFAContext {
    /// `WebAuthnMultiFactorGenerator.authenticationOptions`: the
    /// `PublicKeyCredentialRequestOptions` (JSON) for a sign-in's pending
    /// credential, allowing the user's credentials (or only `enrollmentID`'s).
    func webAuthnAuthenticationOptions(pendingCredential: String, tenant: String?,
                                       enrollmentID: String?) throws(MFAError) -> String {
        if let enrollmentID { try MFAUser.checkIdentifier(enrollmentID, "enrollment id") }
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let state = try store.tokenState(tokenID: claims.id, tenant: claims.tenant, uid: claims.uid)
        guard !state.consumed else { throw MFAError(.invalidSession, "the pending credential was already used") }
        guard state.epoch == claims.epoch else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in started")
        }
        let settings = try config(tenant: tenant).webAuthnSettings
        let (rpID, _) = try Self.relyingParty(settings)
        var credentials = try store.database.read { (db) throws(MFAError) in
            try WebAuthnStore.credentials(db, tenant: claims.tenant, uid: claims.uid)
        }
        if let enrollmentID { credentials = credentials.filter { $0.enrollmentID == enrollmentID } }
        guard !credentials.isEmpty else {
            throw MFAError(.mfaEnrollmentNotFound, enrollmentID == nil ? "the user has no WebAuthn credential"
                           : "the user has no WebAuthn credential with this enrollment id")
        }
        let challenge = TokenClaims(purpose: .webAuthnAuthentication, id: claims.id, tenant: claims.tenant,
                                    uid: claims.uid, expires: now.plus(settings.timeoutSeconds),
                                    reference: enrollmentID ?? "", epoch: claims.epoch, parentExpires: claims.expires)
        let options: JSONValue = .object([
            ("challenge", .string(try WebAuthnChallenge.make(challenge, keyring: keyring))),
            ("rpId", .string(rpID)),
            ("allowCredentials", .array(credentials.map(Self.descriptor))),
            ("userVerification", .string(settings.userVerification.rawValue)),
            ("timeout", .int(settings.timeoutMilliseconds)),
        ])
        return options.jsonText
    }

    /// How to judge a WebAuthn assertion (WebAuthn §7.2) in the attempt's transaction.
    ///
    /// Before it: the response is read and its challenge opened, which must
    /// be this pending credential's (same user, tenant and token id). In it:
    /// the origin, rp id hash and flags (a mismatch refuses the attempt
    /// without counting it, and is audited), the signature with the stored
    /// key (a wrong one counts as a failed attempt), then the counter, claimed
    /// with a conditional update: one that does not go up refuses the
    /// sign-in as a cloned authenticator (`credentialCloned`, audited).
    func webAuthnAttempt(_ assertion: WebAuthnMultiFactorAssertion, claims: TokenClaims,
                         now: Int64) throws(MFAError) -> FactorAttempt {
        if let id = assertion.enrollmentID { try MFAUser.checkIdentifier(id, "enrollment id") }
        let credential = try CredentialJSON(assertion.credentialJSON, for: .authentication)
        let clientData = try RelyingParty.clientData(credential.clientDataJSON, type: "webauthn.get")
        let challenge = try WebAuthnChallenge.open(clientData.challenge, purpose: .webAuthnAuthentication,
                                                   keyring: keyring)
        guard challenge.tenant == claims.tenant else {
            throw MFAError(.tenantMismatch, "the response answers a challenge of another tenant")
        }
        guard challenge.uid == claims.uid else {
            throw MFAError(.invalidSession, "the response answers a challenge of another user")
        }
        guard challenge.id == claims.id else {
            throw MFAError(.invalidSession, "the response answers the challenge of another sign-in")
        }
        guard challenge.expires >= now else { throw MFAError(.invalidSession, "the challenge has expired") }
        let named = assertion.enrollmentID
        let restricted = challenge.reference.isEmpty ? nil : challenge.reference
        return FactorAttempt(enrollmentID: nil, locate: { (db) throws(MFAError) -> String? in
            guard let id = try WebAuthnStore.enrollmentID(db, credentialID: credential.credentialID,
                                                          tenant: claims.tenant, uid: claims.uid) else {
                throw MFAError(.mfaEnrollmentNotFound, "the user has no WebAuthn credential with this id")
            }
            guard named == nil || named == id, restricted == nil || restricted == id else {
                throw MFAError(.invalidArgument, "the response is from another credential than the one asked for")
            }
            return id
        }, judge: { (input) throws(MFAError) -> AttemptVerdict in
            let stored = try WebAuthnStore.attemptState(input.state)
            let (sealedID, key) = try WebAuthnFactor.credential(fromPayload: self.openPayload(of: input.factor))
            guard sealedID == stored.credentialID else {
                throw MFAError(.storageError, "a stored WebAuthn credential does not match its key")
            }
            let (_, party) = try Self.relyingParty(input.config.webAuthnSettings)
            let verified: RelyingParty.Assertion
            do throws(MFAError) {
                verified = try party.verifyAssertion(credential, clientData: clientData, key: key)
            } catch {
                guard error.code == .invalidVerificationCode else { throw error }
                return .wrong(message: error.message, penalty: nil)
            }
            let flags = verified.authData.flags
            guard flags.contains(.backupEligible) == stored.backupEligible else {
                throw MFAError(.invalidVerificationCode, "the credential's backup eligibility changed")
            }
            if let handle = credential.userHandle, !KeyedHash.equal(handle, stored.userHandle) {
                return .wrong(message: "the response names another user handle", penalty: nil)
            }
            // The counter is claimed with the sign-in: one that does not go up
            // refuses it as a cloned authenticator (the claim's miss).
            let claim = WebAuthnStore.claim(input.factor.enrollmentID, signCount: Int64(verified.authData.signCount),
                                            backupState: flags.contains(.backedUp), now: input.now)
            return .accept(claim, claims: [("webauthn_user_verified", flags.contains(.userVerified) ? "true" : "false")])
        })
    }
}
