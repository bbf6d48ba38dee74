extension MFAContext {
    /// `WebAuthnMultiFactorGenerator.authenticationOptions`: the
    /// `PublicKeyCredentialRequestOptions` (JSON) for a sign-in's pending
    /// credential, allowing the user's credentials (or only `enrollmentID`'s).
    func webAuthnAuthenticationOptions(pendingCredential: String, tenant: String?, enrollmentID: String?,
                                       ceremony: WebAuthnCeremonyOptions = WebAuthnCeremonyOptions()) throws(MFAError) -> String {
        if let enrollmentID { try MFAUser.checkIdentifier(enrollmentID, "enrollment id") }
        try ceremony.check()
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
        let userVerification = Self.userVerification(settings, ceremony)
        let terms = WebAuthnCeremonyTerms(userVerification: userVerification == .required)
        let challenge = TokenClaims(purpose: .webAuthnAuthentication, id: claims.id, tenant: claims.tenant,
                                    uid: claims.uid, expires: now.plus(settings.timeoutSeconds),
                                    reference: terms.authenticationReference(enrollmentID: enrollmentID),
                                    epoch: claims.epoch, parentExpires: claims.expires)
        return Self.requestOptions(challenge: try WebAuthnChallenge.make(challenge, keyring: keyring), rpID: rpID,
                                   allow: credentials.map(Self.descriptor), userVerification: userVerification,
                                   settings: settings, hints: ceremony.hints)
    }

    /// `PublicKeyCredentialRequestOptions` as JSON.
    static func requestOptions(challenge: String, rpID: String, allow: [JSONValue],
                               userVerification: WebAuthnUserVerification, settings: WebAuthnSettings,
                               hints: [WebAuthnHint]) -> String {
        var members: [(String, JSONValue)] = [
            ("challenge", .string(challenge)),
            ("rpId", .string(rpID)),
            ("allowCredentials", .array(allow)),
            ("userVerification", .string(userVerification.rawValue)),
            ("timeout", .int(settings.timeoutMilliseconds)),
        ]
        if !hints.isEmpty { members.append(("hints", .array(hints.map { .string($0.rawValue) }))) }
        return JSONValue.object(members).jsonText
    }

    /// How to judge a WebAuthn assertion (WebAuthn §7.2).
    ///
    /// Everything that needs no lock is done before the attempt's
    /// transaction, so that no response, however large or wrong, holds the
    /// store's write lock while it is read or verified:
    /// - the response is read (its CBOR in time linear in its size) and its
    ///   challenge opened, which must be this pending credential's (same
    ///   user, tenant and token id);
    /// - a first read, without a transaction, finds the credential's factor
    ///   with the user's record and the configuration (`admit`: a user in
    ///   backoff is refused here, as is a used or revoked credential);
    /// - the origin, the rp id hash and the flags are checked, and the
    ///   signature with the factor's key. An origin, rp id or user
    ///   verification that does not match refuses the attempt, audited,
    ///   without counting it the first few times for each user, and counted
    ///   as a failed attempt after them (`UncountedRefusals`).
    ///
    /// In the transaction the judge only compares: the factor must still
    /// hold the key the signature was checked with, under the same
    /// configuration (else everything is checked again there); a wrong
    /// signature or a missing UP flag counts as a failed attempt; the stored
    /// credential id, backup eligibility and user handle must match; and the
    /// counter is claimed with a conditional update: one that does not go up
    /// refuses the sign-in as a cloned authenticator (`credentialCloned`, audited).
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
        guard claims.expires >= now else { throw MFAError(.invalidSession, "the pending credential has expired") }
        let authData = try RelyingParty.assertionData(credential)
        let named = assertion.enrollmentID
        let (restricted, terms) = WebAuthnCeremonyTerms.authentication(challenge.reference)
        let locate = { (db: SQLConnection) throws(MFAError) -> String? in
            guard let id = try WebAuthnStore.enrollmentID(db, credentialID: credential.credentialID,
                                                          tenant: claims.tenant, uid: claims.uid) else {
                throw MFAError(.mfaEnrollmentNotFound, "the user has no WebAuthn credential with this id")
            }
            guard named == nil || named == id, restricted == nil || restricted == id else {
                throw MFAError(.invalidArgument, "the response is from another credential than the one asked for")
            }
            return id
        }
        // The first read: no transaction, no lock.
        let first = try store.database.read { (db) throws(MFAError) -> AttemptView in
            let id = try locate(db) ?? ""
            return try MFAStore.attemptView(db, kind: WebAuthnFactor.self, enrollmentID: id, tenant: claims.tenant,
                                            uid: claims.uid, tokenID: claims.id)
        }
        let (factor, config) = try admit(first, claims: claims, kindID: WebAuthnFactor.id, now: now)
        let checked: WebAuthnCheck
        do throws(MFAError) {
            checked = try webAuthnCheck(credential, clientData: clientData, authData: authData, factor: factor,
                                        settings: config.webAuthnSettings, userVerification: terms.userVerification)
        } catch {
            guard Self.uncountedRefusals.contains(error.code) else { throw error }
            try refuseWebAuthn(error, factor: factor, claims: claims, config: config, now: now)
        }
        return FactorAttempt(enrollmentID: nil, locate: locate, judge: { (input) throws(MFAError) -> AttemptVerdict in
            let stored = try WebAuthnStore.attemptState(input.state)
            // Checked before the transaction with this very key and configuration,
            // unless the factor was re-sealed (a key rotation) or the configuration changed since.
            var verdict = checked
            if !Self.sameKey(input.factor, factor) || input.config.webAuthnSettings != config.webAuthnSettings {
                verdict = try self.webAuthnCheck(credential, clientData: clientData, authData: authData,
                                                 factor: input.factor, settings: input.config.webAuthnSettings,
                                                 userVerification: terms.userVerification)
            }
            guard verdict.credentialID == stored.credentialID else {
                throw MFAError(.storageError, "a stored WebAuthn credential does not match its key")
            }
            if let wrong = verdict.wrong { return .wrong(message: wrong, penalty: nil) }
            let flags = authData.flags
            guard flags.contains(.backupEligible) == stored.backupEligible else {
                throw MFAError(.invalidVerificationCode, "the credential's backup eligibility changed")
            }
            if let handle = credential.userHandle, !KeyedHash.equal(handle, stored.userHandle) {
                return .wrong(message: "the response names another user handle", penalty: nil)
            }
            // The counter is claimed with the sign-in: one that does not go up
            // refuses it as a cloned authenticator (the claim's miss).
            let claim = WebAuthnStore.claim(input.factor.enrollmentID, signCount: Int64(authData.signCount),
                                            backupState: flags.contains(.backedUp), now: input.now)
            return .accept(claim, claims: Self.webAuthnClaims(flags))
        })
    }

    /// The claims a WebAuthn sign-in adds: whether the user was verified,
    /// and what the backup flags say of the credential ("synced passkey"
    /// when it may be backed up, BE; else "device-bound key"; and whether it
    /// is backed up now, BS).
    static func webAuthnClaims(_ flags: AuthenticatorData.Flags) -> [(name: String, value: String)] {
        [("webauthn_user_verified", flags.contains(.userVerified) ? "true" : "false"),
         ("webauthn_key", flags.contains(.backupEligible) ? "synced passkey" : "device-bound key"),
         ("webauthn_backed_up", flags.contains(.backedUp) ? "true" : "false")]
    }

    /// The refusals that say nothing of whether the user holds the key,
    /// which go uncounted the first few times (`UncountedRefusals`).
    private static let uncountedRefusals: Set<MFAErrorCode> = [.originMismatch, .rpIDMismatch,
                                                               .userVerificationRequired]

    /// What checking an assertion against a factor found: the credential id
    /// sealed with the key, and why the attempt counts as failed, if it does
    /// (a wrong signature, no UP flag).
    struct WebAuthnCheck {
        var credentialID: [UInt8]
        var wrong: String?
    }

    /// Checks the origin, the rp id hash, the flags and the signature with
    /// `factor`'s key. Throws what refuses the attempt uncounted (a
    /// mismatch) or is malformed; returns a signature that does not check
    /// out, or a missing UP flag, as `wrong`.
    func webAuthnCheck(_ credential: CredentialJSON, clientData: ClientData, authData: AuthenticatorData,
                       factor: FactorRecord, settings: WebAuthnSettings,
                       userVerification: Bool) throws(MFAError) -> WebAuthnCheck {
        var (_, party) = try Self.relyingParty(settings)
        party.requireUserVerification = party.requireUserVerification || userVerification
        // The origin and the rp id are the cheapest, and need no key.
        try party.checkOrigin(clientData)
        let (sealedID, key) = try WebAuthnFactor.credential(fromPayload: openPayload(of: factor))
        do throws(MFAError) {
            _ = try party.verifyAssertion(credential, clientData: clientData, authData: authData, key: key)
            return WebAuthnCheck(credentialID: sealedID, wrong: nil)
        } catch {
            guard error.code == .invalidVerificationCode else { throw error }
            return WebAuthnCheck(credentialID: sealedID, wrong: error.message)
        }
    }

    /// Whether two reads of a factor hold the same sealed key.
    static func sameKey(_ a: FactorRecord, _ b: FactorRecord) -> Bool {
        a.enrollmentID == b.enrollmentID && a.keyID == b.keyID && a.sealFormat == b.sealFormat && a.sealed == b.sealed
    }

    /// Refuses an attempt for a mismatch (`error`), audited; counted as a
    /// failed attempt once the user's uncounted refusals are used up.
    /// A counted refusal's events are stored with the count; an uncounted
    /// one writes nothing else, so its event is stored alone.
    private func refuseWebAuthn(_ error: MFAError, factor: FactorRecord, claims: TokenClaims, config: MFAConfig,
                                now: Int64) throws(MFAError) -> Never {
        let note = auditNote(config) { (outcome: FailureOutcome?) in
            self.failureEvents(factor, claims: claims, now: now, outcome: outcome, detail: error.code.name)
        }
        if !uncountedRefusals.allow(tenant: claims.tenant, uid: claims.uid, now: now) {
            let counted = AuditNote<FailureOutcome>(trail: note.trail) { note.build($0) }
            let outcome = try store.countRefusal(enrollmentID: factor.enrollmentID, tenant: claims.tenant,
                                                 uid: claims.uid, now: now, limits: config.limits, audit: counted)
            if outcome.startedBackoff { metrics.backoffEntered(factorID: factor.factorID, tenant: claims.tenant) }
            report(counted, outcome)
        } else {
            for event in note.build(nil) { audit(event, config: config) }
        }
        throw error
    }
}
