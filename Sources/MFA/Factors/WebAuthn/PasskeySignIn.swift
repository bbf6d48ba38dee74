extension MFAContext {
    /// The `PublicKeyCredentialRequestOptions` (JSON) of a sign-in with a
    /// passkey alone, before anyone is known: no credential is listed
    /// (`allowCredentials` is empty, so the browser offers the passkeys it
    /// holds for the rp id, in its account chooser or in the username
    /// field's autofill with `mediation: "conditional"`), user verification
    /// is required, and the challenge is a fresh libmfa token bound to the
    /// tenant, expiring after `webauthn.timeout`.
    ///
    /// Nothing is read about any user: the answer is the same whoever asks.
    /// - Parameters:
    ///   - tenant: the tenant the host serves (nil for the project).
    ///   - options: of a ceremony's options, the `hints` apply.
    /// - Throws: `operationNotAllowed` (WebAuthn disabled, no rp id, or
    ///   `webauthn.passkeySignIn` not true), `invalidArgument`, `storageError`.
    public func passkeySignInOptions(tenant: String? = nil,
                                     options: WebAuthnCeremonyOptions = WebAuthnCeremonyOptions()) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try options.check()
        let settings = try passkeySettings(try config(tenant: tenant))
        let (rpID, _) = try Self.relyingParty(settings)
        let now = clock.now()
        let claims = TokenClaims(purpose: .passkeySignIn, id: try newTokenID(), tenant: tenant ?? "", uid: "",
                                 expires: now.plus(settings.timeoutSeconds), epoch: clock.nowMilliseconds())
        return Self.requestOptions(challenge: try WebAuthnChallenge.make(claims, keyring: keyring), rpID: rpID,
                                   allow: [], userVerification: .required, settings: settings, hints: options.hints)
    }

    /// Signs a user in with a passkey alone: the response of
    /// `navigator.credentials.get` to `passkeySignInOptions`. Both factors
    /// are met at once: possession of the key, and the user verified by the
    /// authenticator (PIN or biometrics).
    ///
    /// The credential is found by its id among the tenant's; it must be a
    /// passkey (discoverable, registered with user verification), and the
    /// response's `userHandle` the user's handle. The origin, the rp id
    /// hash, the flags (UP and UV), the signature and the counter are
    /// checked as for a second factor, and the same rules hold: the
    /// challenge is used once, failed attempts count toward the user's and
    /// the credential's backoff, every attempt is audited
    /// (`PASSKEY_SIGN_IN_SUCCESS`, `PASSKEY_SIGN_IN_FAILURE`), and a
    /// challenge made before the user's tokens were revoked is refused
    /// (`userTokenExpired`; one made in the same millisecond counts as
    /// made before).
    ///
    /// A refusal never tells whether an account or a credential exists: an
    /// unknown credential id, one of another tenant, a removed credential,
    /// one that is not a passkey, another user handle and a wrong signature
    /// all answer `invalidVerificationCode` with the same message, after the
    /// same work (a write transaction, as counting a failure takes). The
    /// answers that name more (`tooManyAttemptsTryLater`, `userTokenExpired`,
    /// `invalidSession` for a used challenge, `credentialCloned`) come only
    /// after the credential's own signature checked out.
    ///
    /// Everything that needs no lock is done first (the response read, its
    /// challenge opened, the credential and the user read, the origin, rp
    /// id, flags and signature checked); the write transaction then only
    /// compares, counts and claims, as `resolveSignIn` does.
    /// - Returns: the signed-in user and its claims: `sign_in_second_factor`
    ///   "webauthn", `second_factor_identifier` (the enrollment id), then
    ///   `sign_in_method` "passkey", `amr` (RFC 8176 values, space-separated:
    ///   "hwk user mfa" for a device-bound key, "swk user mfa" for a synced
    ///   passkey), and the WebAuthn claims of a second factor
    ///   (`webauthn_user_verified`, `webauthn_key`, `webauthn_backed_up`).
    /// - Throws: `invalidVerificationCode` (not accepted, see above),
    ///   `invalidArgument` (malformed, or no `userHandle`), `invalidSession`
    ///   (another ceremony's challenge, expired, or used), `tenantMismatch`,
    ///   `originMismatch`, `rpIDMismatch`, `userVerificationRequired`,
    ///   `operationNotAllowed` (passkey sign-in not allowed),
    ///   `tooManyAttemptsTryLater`, `userTokenExpired`, `credentialCloned`,
    ///   `storageError`, `crypto`.
    public func signInWithPasskey(credentialJSON: String, tenant: String? = nil) throws(MFAError) -> SignInResult {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let tenantKey = tenant ?? ""
        let now = clock.now()
        // The response, read and judged on its own.
        let credential = try CredentialJSON(credentialJSON, for: .authentication)
        let clientData = try RelyingParty.clientData(credential.clientDataJSON, type: "webauthn.get")
        let challenge = try WebAuthnChallenge.open(clientData.challenge, purpose: .passkeySignIn, keyring: keyring)
        guard challenge.tenant == tenantKey else {
            throw MFAError(.tenantMismatch, "the response answers a challenge of another tenant")
        }
        guard challenge.expires >= now else { throw MFAError(.invalidSession, "the challenge has expired") }
        let authData = try RelyingParty.assertionData(credential)
        guard let handle = credential.userHandle else {
            throw MFAError(.invalidArgument, "credential: a passkey's response names its user (response.userHandle)")
        }
        // One read, no lock: the credential (if the tenant has it) with its
        // factor, its user and the configuration.
        let (found, first) = try store.database.read { (db) throws(MFAError) in
            let found = try WebAuthnStore.passkey(db, credentialID: credential.credentialID, tenant: tenantKey)
            let view = try MFAStore.attemptView(db, kind: WebAuthnFactor.self, enrollmentID: found?.enrollmentID ?? "",
                                                tenant: tenantKey, uid: found?.uid ?? "", tokenID: challenge.id)
            return (found, view)
        }
        let config = try config(from: first.documents)
        let settings = try passkeySettings(config)
        var (_, party) = try Self.relyingParty(settings)
        party.requireUserVerification = true
        try party.checkOrigin(clientData)
        try party.checkAuthenticatorData(authData)
        // From here on, a refusal says nothing of what exists.
        guard let found, found.isPasskey, let factor = first.factor, factor.factorID == WebAuthnFactor.id,
              factor.tenant == tenantKey, factor.uid == found.uid else {
            try refusePasskey(credential, authData: authData, clientData: clientData, tenant: tenantKey,
                              limits: config.limits, now: now)
        }
        let checked = try webAuthnCheck(credential, clientData: clientData, authData: authData, factor: factor,
                                        settings: settings, userVerification: true)
        let owner = TokenClaims(purpose: .passkeySignIn, id: challenge.id, tenant: tenantKey, uid: found.uid,
                                expires: challenge.expires, epoch: first.user.tokenEpoch)
        if checked.wrong == nil {
            // Only the passkey's holder learns these.
            try checkPasskeyUse(first, factor: factor, challenge: challenge, owner: owner, now: now)
        } else if first.user.lockedUntil > now || factor.lockedUntil > now {
            try refusePasskey(credential, authData: authData, clientData: clientData, tenant: tenantKey,
                              limits: config.limits, now: now, uid: found.uid, factor: factor)
        }
        return try finishPasskey(credential, clientData: clientData, authData: authData, handle: handle,
                                 checked: checked, factor: factor, config: config, owner: owner, now: now)
    }

    /// The WebAuthn settings of `config`, if passkey sign-in is allowed.
    private func passkeySettings(_ config: MFAConfig) throws(MFAError) -> WebAuthnSettings {
        let settings = config.webAuthnSettings
        guard config.allows(WebAuthnMultiFactorID), settings.passkeySignIn else {
            throw MFAError(.operationNotAllowed, "passkey sign-in is not allowed (webauthn.passkeySignIn)")
        }
        return settings
    }

    /// The refusals a passkey's holder may hear, from what the first read
    /// saw: a used challenge, a revocation since the challenge was made, a backoff.
    private func checkPasskeyUse(_ view: AttemptView, factor: FactorRecord, challenge: TokenClaims,
                                 owner: TokenClaims, now: Int64) throws(MFAError) {
        guard !view.consumed else { throw MFAError(.invalidSession, "the challenge was already used") }
        if let revoked = view.user.revokedAtMs, revoked >= challenge.epoch {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in started")
        }
        guard view.user.lockedUntil <= now, factor.lockedUntil <= now else {
            throw MFAError(.tooManyAttemptsTryLater, "too many failed attempts; try again later")
        }
    }

    /// The attempt's transaction: under the user's lock, the same checks
    /// again, then the failure counted or the counter and the challenge claimed.
    private func finishPasskey(_ credential: CredentialJSON, clientData: ClientData, authData: AuthenticatorData,
                               handle: [UInt8], checked: WebAuthnCheck, factor: FactorRecord, config: MFAConfig,
                               owner: TokenClaims, now: Int64) throws(MFAError) -> SignInResult {
        let request = AttemptRequest(enrollmentID: factor.enrollmentID, tenant: owner.tenant, uid: owner.uid,
                                     tokenID: owner.id, epoch: owner.epoch, now: now)
        let result: AttemptResult
        do {
            result = try store.resolveAttempt(request, kind: WebAuthnFactor.self, locate: nil) {
                (view) throws(MFAError) -> AttemptDecision in
                guard let current = view.factor, current.factorID == WebAuthnFactor.id, current.tenant == owner.tenant,
                      current.uid == owner.uid else { throw Self.notAccepted }
                let input = try self.config(from: view.documents)
                let settings = try self.passkeySettings(input)
                var verdict = checked
                if !Self.sameKey(current, factor) || settings != config.webAuthnSettings {
                    verdict = try self.webAuthnCheck(credential, clientData: clientData, authData: authData,
                                                     factor: current, settings: settings, userVerification: true)
                }
                let stored = try WebAuthnStore.attemptState(view.state)
                guard verdict.credentialID == stored.credentialID else {
                    throw MFAError(.storageError, "a stored WebAuthn credential does not match its key")
                }
                let locked = view.user.lockedUntil > now || current.lockedUntil > now
                if verdict.wrong != nil || !KeyedHash.equal(handle, stored.userHandle) {
                    if locked { throw Self.notAccepted }
                    return .wrong(input.limits, penalty: nil)
                }
                guard !view.consumed else { throw MFAError(.invalidSession, "the challenge was already used") }
                guard view.user.tokenEpoch == owner.epoch else {
                    throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in started")
                }
                guard !locked else { throw MFAError(.tooManyAttemptsTryLater, "too many failed attempts; try again later") }
                let flags = authData.flags
                guard flags.contains(.backupEligible) == stored.backupEligible else {
                    throw MFAError(.invalidVerificationCode, "the credential's backup eligibility changed")
                }
                let claim = WebAuthnStore.claim(current.enrollmentID, signCount: Int64(authData.signCount),
                                                backupState: flags.contains(.backedUp), now: now)
                return .accept(consumedUntil: owner.consumedUntil(skew: input.limits.clockSkew), limits: input.limits,
                               claim: claim)
            }
        } catch {
            if error.code != .tooManyAttemptsTryLater {
                audit(AuditEvent(kind: .passkeySignInFailure, tenant: owner.tenant, uid: owner.uid,
                                 factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                                 detail: error.code.name))
            }
            throw error
        }
        if case .failed(let failure, _) = result {
            audit(AuditEvent(kind: .passkeySignInFailure, tenant: owner.tenant, uid: owner.uid,
                             factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                             detail: MFAErrorCode.invalidVerificationCode.name))
            if failure.startedBackoff {
                audit(AuditEvent(kind: .backoff, tenant: owner.tenant, uid: owner.uid, factorID: factor.factorID,
                                 enrollmentID: factor.enrollmentID, time: now,
                                 detail: "locked until \(failure.lockedUntil)"))
            }
            throw Self.notAccepted
        }
        audit(AuditEvent(kind: .passkeySignInSuccess, tenant: owner.tenant, uid: owner.uid, factorID: factor.factorID,
                         enrollmentID: factor.enrollmentID, time: now))
        let flags = authData.flags
        let amr = (flags.contains(.backupEligible) ? "swk" : "hwk") + " user mfa"
        let claims = [SignInResult.Claim(name: "sign_in_method", value: "passkey"),
                      SignInResult.Claim(name: "amr", value: amr)]
            + Self.webAuthnClaims(flags).map { SignInResult.Claim(name: $0.name, value: $0.value) }
        return SignInResult(uid: owner.uid, tenant: owner.tenant.isEmpty ? nil : owner.tenant,
                            factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                            factorClaims: claims)
    }

    /// The one refusal that tells nothing: `invalidVerificationCode`, always with this message.
    static let notAccepted = MFAError(.invalidVerificationCode,
                                      "the passkey was not accepted: sign in another way, or use another passkey")

    /// Refuses a passkey sign-in that no credential of the tenant could
    /// accept (or, `uid` and `factor` given, a wrong signature during a
    /// backoff), after the work an accepted credential's refusal costs: a
    /// signature checked, and a write transaction that reads and counts as
    /// a failure does, changing no row. Audited.
    private func refusePasskey(_ credential: CredentialJSON, authData: AuthenticatorData, clientData: ClientData,
                               tenant: String, limits: MFALimits, now: Int64, uid: String = "",
                               factor: FactorRecord? = nil) throws(MFAError) -> Never {
        if factor == nil {
            _ = PasskeyDecoy.verifies(credential.signature ?? [], of: authData.raw + SHA256.digest(clientData.raw))
        }
        try store.database.transaction { (db) throws(MFAError) in
            _ = try MFAStore.attemptView(db, kind: WebAuthnFactor.self, enrollmentID: "", tenant: tenant, uid: "",
                                         tokenID: [])
            _ = try MFAStore.countFailure(db, enrollmentID: "", tenant: tenant, uid: "", now: now, limits: limits)
        }
        audit(AuditEvent(kind: .passkeySignInFailure, tenant: tenant, uid: uid, factorID: WebAuthnMultiFactorID,
                         enrollmentID: factor?.enrollmentID ?? "", time: now,
                         detail: MFAErrorCode.invalidVerificationCode.name))
        throw Self.notAccepted
    }
}
