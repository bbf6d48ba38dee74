extension MFAContext {
    /// Reports a successful first factor. A user with second factors gets a
    /// resolver; one without is signed in, unless MFA is MANDATORY.
    /// - Throws: `enrollmentRequired` (MANDATORY, no factor, a first factor
    ///   that can carry one), `unsupportedFirstFactor` (a first factor that
    ///   cannot carry MFA, for a user with factors or under MANDATORY: such a
    ///   user could never enroll, so they are told so rather than sent to a
    ///   dead end), `invalidArgument`, `storageError`.
    public func signIn(_ user: MFAUser) throws(MFAError) -> SignInOutcome {
        let call = CallBudget.begin()
        defer { call.end() }
        return try countedSignIn(user, deviceToken: nil)
    }

    /// Reports a successful first factor, with the device token the user's
    /// device holds (see `rememberDevice`). When the token names one of the
    /// user's remembered devices that has not expired, and remembering is on,
    /// the user is signed in without a second factor: the result's factor id
    /// is `"remembered_device"` (the claim `sign_in_second_factor`) and its
    /// enrollment id the device's id (`second_factor_identifier`); audited
    /// as a `SIGN_IN_SUCCESS` of that factor id. Any other token is ignored:
    /// the answer is the one `signIn(_:)` gives, and the token is audited
    /// (`DEVICE_REFUSED`). Nothing in the answer tells a token's holder why.
    /// - Throws: as `signIn(_:)`.
    public func signIn(_ user: MFAUser, deviceToken: String?) throws(MFAError) -> SignInOutcome {
        let call = CallBudget.begin()
        defer { call.end() }
        return try countedSignIn(user, deviceToken: deviceToken)
    }

    /// A first factor's report, counted by how it ended (`metrics.signInStarted`).
    private func countedSignIn(_ user: MFAUser, deviceToken: String?) throws(MFAError) -> SignInOutcome {
        do {
            let outcome = try signIn(user, deviceToken: deviceToken, now: clock.now())
            if case .secondFactorRequired = outcome {
                metrics.signInStarted(.secondFactorRequired, tenant: user.tenantKey)
            } else {
                metrics.signInStarted(.signedIn, tenant: user.tenantKey)
            }
            return outcome
        } catch {
            metrics.signInStarted(SignInStartOutcome(error.code), tenant: user.tenantKey)
            throw error
        }
    }

    /// `signIn(_:deviceToken:)`, uncounted.
    private func signIn(_ user: MFAUser, deviceToken: String?, now: Int64) throws(MFAError) -> SignInOutcome {
        try user.validate()
        let snapshot = try store.signInSnapshot(tenant: user.tenantKey, uid: user.uid)
        let factors = snapshot.factors
        let config = try config(from: snapshot.documents)
        guard !factors.isEmpty else {
            guard config.state != .mandatory else {
                guard user.firstFactorSupportsMFA else {
                    throw MFAError(.unsupportedFirstFactor,
                                   "this project requires a second factor, which this first factor cannot carry")
                }
                throw MFAError(.enrollmentRequired, "this project requires a second factor: enroll one")
            }
            return .signedIn(SignInResult(uid: user.uid, tenant: user.tenant, factorID: nil, enrollmentID: nil,
                                          time: now))
        }
        guard user.firstFactorSupportsMFA else {
            throw MFAError(.unsupportedFirstFactor, "users with second factors cannot sign in with this first factor")
        }
        if let deviceToken, let result = try rememberedSignIn(user, token: deviceToken, config: config, now: now) {
            return .signedIn(result)
        }
        let draw = try FreshDraw(random, system: randomIsSystem)
        let claims = TokenClaims(purpose: .signIn, id: draw.tokenID, tenant: user.tenantKey, uid: user.uid,
                                 expires: now.plus(config.limits.pendingCredentialLifetime),
                                 epoch: snapshot.user.tokenEpoch)
        let session = try OpaqueToken.seal(claims, keyring: keyring, nonce: draw.nonce)
        let resolver = MultiFactorResolver(
            hints: try factors.map { (record) throws(MFAError) in try factorInfo(record, masked: true) },
            session: session, tenant: user.tenant, uid: user.uid, context: self)
        store.memo.keep(session, claims: claims, views: snapshot.views, now: now)
        return .secondFactorRequired(resolver)
    }

    /// How many sign-ins in flight this context remembers for their resolves (`AttemptMemo`).
    package var rememberedSignIns: Int { store.memo.count }

    /// Rebuilds a resolver from a pending credential a client sent back.
    /// - Throws: `invalidSession` (tampered, expired or already used),
    ///   `userTokenExpired` (the user's tokens were revoked since), `tenantMismatch`.
    public func resolver(pendingCredential: String, tenant: String?) throws(MFAError) -> MultiFactorResolver {
        let call = CallBudget.begin()
        defer { call.end() }
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: clock.now())
        let state = try store.tokenState(tokenID: claims.id, tenant: claims.tenant, uid: claims.uid)
        guard !state.consumed else { throw MFAError(.invalidSession, "the pending credential was already used") }
        guard state.epoch == claims.epoch else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in started")
        }
        let factors = try store.factors(tenant: claims.tenant, uid: claims.uid)
        return MultiFactorResolver(
            hints: try factors.map { (record) throws(MFAError) in try factorInfo(record, masked: true) },
            session: pendingCredential, tenant: tenant, uid: claims.uid, context: self)
    }

    /// Finishes a sign-in: `MultiFactorResolver.resolveSignIn(with:)`.
    ///
    /// The assertion's factor kind judges it inside one store transaction
    /// with the backoff check and the bookkeeping (the failure count, or the
    /// claim of what it accepted and the pending credential's consumption):
    /// racing attempts are strictly ordered.
    /// - Parameters:
    ///   - pendingCredential: the resolver's session.
    ///   - tenant: the tenant the host serves this request for (nil for the project).
    ///   - assertion: the second factor.
    /// - Throws: `invalidVerificationCode`, `codeExpired` (SMS), `invalidSession`,
    ///   `userTokenExpired`, `tenantMismatch`, `mfaEnrollmentNotFound`,
    ///   `tooManyAttemptsTryLater`, `invalidArgument`, `storageError`, `crypto`.
    public func resolveSignIn(pendingCredential: String, tenant: String?,
                              assertion: MultiFactorAssertion) throws(MFAError) -> SignInResult {
        let call = CallBudget.begin()
        defer { call.end() }
        let start = metrics.start()
        // What the status alone does not tell apart (a replayed code, an expired credential).
        var outcome: MetricOutcome?
        do {
            let result = try resolve(pendingCredential: pendingCredential, tenant: tenant, assertion: assertion,
                                     outcome: &outcome)
            metrics.signIn(factorID: assertion.factorID, .success, tenant: tenant ?? "", since: start)
            return result
        } catch {
            metrics.signIn(factorID: assertion.factorID, outcome ?? MetricOutcome(error.code), tenant: tenant ?? "",
                           since: start)
            throw error
        }
    }

    /// `resolveSignIn(pendingCredential:tenant:assertion:)`, uncounted;
    /// `outcome` says what a failure's status does not.
    private func resolve(pendingCredential: String, tenant: String?, assertion: MultiFactorAssertion,
                         outcome failure: inout MetricOutcome?) throws(MFAError) -> SignInResult {
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now, checkExpiry: false)
        guard let kind = FactorRegistry.kind(assertion.factorID) else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        // The kind opens its assertion first: an expired SMS code says
        // CODE_EXPIRED even when the pending credential expired with it.
        let attempt: FactorAttempt
        do {
            attempt = try kind.attempt(for: assertion, claims: claims, context: self, now: now)
        } catch {
            // A kind that reads the store first (WebAuthn) may miss what a revocation
            // removed: the revocation is the answer, as below.
            if error.code != .userTokenExpired, error.code != .tooManyAttemptsTryLater {
                try checkNotRevoked(claims, now: now)
            }
            throw error
        }
        guard claims.expires >= now else {
            failure = .expired
            throw MFAError(.invalidSession, "the pending credential has expired")
        }
        let outcome = AttemptOutcome()
        let request = AttemptRequest(enrollmentID: attempt.enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                     tokenID: claims.id, epoch: claims.epoch, now: now)
        // Stored with the attempt's write, if the configuration it reads keeps the trail.
        let note = AuditNote<AttemptAudit>(trail: nil) { (audit) in
            self.attemptEvents(audit.result, factor: audit.factor, claims: claims, now: now)
        }
        let result: AttemptResult
        do {
            result = try store.resolveAttempt(request, kind: kind, locate: attempt.locate, audit: note) {
                (view) throws(MFAError) -> AttemptDecision in
                outcome.factor = nil
                let (factor, config) = try self.admit(view, claims: claims, kindID: kind.id, now: now)
                outcome.factor = factor
                outcome.config = config
                note.trail = config.auditTrail.store ? self.trail : nil
                let input = AttemptInput(factor: factor, state: view.state, config: config, claims: claims, now: now,
                                         consumed: view.consumedTokens)
                switch try attempt.judge(input) {
                case .accept(let claim, let extra):
                    outcome.claims = extra.map { SignInResult.Claim(name: $0.name, value: $0.value) }
                    return .accept(consumedUntil: claims.consumedUntil(skew: config.limits.clockSkew),
                                   limits: config.limits, claim: claim)
                case .wrong(let message, let penalty):
                    outcome.message = message
                    return .wrong(config.limits, penalty: penalty)
                }
            }
        } catch {
            if let factor = outcome.factor, error.code != .tooManyAttemptsTryLater {
                audit(AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid,
                                 factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                                 detail: error.code.name), config: outcome.config)
            }
            // Refused before the factor was admitted (admitting checks the epoch
            // first): what a revocation removed (the factor, the SMS code, the
            // WebAuthn credential) is not the answer; the revocation is.
            if outcome.factor == nil, error.code != .userTokenExpired, error.code != .tooManyAttemptsTryLater {
                try checkNotRevoked(claims, now: now)
            }
            throw error
        }
        guard let factor = outcome.factor else { throw MFAError(.internal, "the attempt saw no factor") }
        report(note, AttemptAudit(result: result, factor: factor))
        if case .failed(let counted, let message) = result {
            if counted.startedBackoff { metrics.backoffEntered(factorID: factor.factorID, tenant: claims.tenant) }
            // A message of the store's: the code was right, and its claim missed (used already).
            if message != nil { failure = .replay }
            throw MFAError(.invalidVerificationCode, message ?? outcome.message)
        }
        var factorClaims = outcome.claims
        if let accepted = attempt.accepted {
            // Read after the commit: the sign-in stands whatever this read says.
            let extra = (try? store.database.read { (db) throws(MFAError) in try accepted(db, factor) }) ?? []
            factorClaims += extra.map { SignInResult.Claim(name: $0.name, value: $0.value) }
        }
        return SignInResult(uid: claims.uid, tenant: tenant, factorID: factor.factorID,
                            enrollmentID: factor.enrollmentID, time: now, factorClaims: factorClaims)
    }

    /// Refuses an attempt unless the factor exists, belongs to the
    /// credential's user, is of the assertion's kind, the credential is
    /// unused and of the user's current epoch, and no backoff is running.
    func admit<K: SecondFactor>(_ view: AttemptView, claims: TokenClaims, kind: K.Type,
                                now: Int64) throws(MFAError) -> (factor: FactorRecord, config: MFAConfig) {
        try admit(view, claims: claims, kindID: K.id, now: now)
    }

    /// `admit(_:claims:kind:now:)` by the kind's id. A used credential is
    /// `invalidSession`; then a credential minted before
    /// the user's last revocation is `userTokenExpired` whatever else the
    /// revocation changed (the factor removed with it is not looked for).
    func admit(_ view: AttemptView, claims: TokenClaims, kindID: String,
               now: Int64) throws(MFAError) -> (factor: FactorRecord, config: MFAConfig) {
        guard !view.consumed else { throw MFAError(.invalidSession, "the pending credential was already used") }
        guard view.user.tokenEpoch == claims.epoch else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in started")
        }
        guard let factor = view.factor else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        guard factor.tenant == claims.tenant, factor.uid == claims.uid else {
            throw MFAError(.invalidSession, "the pending credential belongs to another user")
        }
        guard factor.factorID == kindID else {
            throw MFAError(.invalidArgument, "a \(kindID) assertion cannot resolve a \(factor.factorID) factor")
        }
        guard view.user.lockedUntil <= now, factor.lockedUntil <= now else {
            throw MFAError(.tooManyAttemptsTryLater, "too many failed attempts; try again later")
        }
        return (factor, try config(from: view.documents))
    }

    /// Opens a pending credential: intact, of this tenant, and (unless told
    /// otherwise) unexpired. One this context sealed and still remembers
    /// (`AttemptMemo`) is not decrypted again.
    func openPendingCredential(_ token: String, tenant: String?, now: Int64,
                               checkExpiry: Bool = true) throws(MFAError) -> TokenClaims {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let claims: TokenClaims
        if let remembered = store.memo.claims(of: token) {
            claims = remembered
        } else {
            claims = try OpaqueToken.open(token, purpose: .signIn, keyring: keyring)
        }
        guard claims.tenant == (tenant ?? "") else {
            throw MFAError(.tenantMismatch, "the pending credential belongs to another tenant")
        }
        guard !checkExpiry || claims.expires >= now else {
            throw MFAError(.invalidSession, "the pending credential has expired")
        }
        return claims
    }

    /// The events of an attempt's write: the sign-in, or the failed attempt
    /// (counted) and the backoff it started.
    func attemptEvents(_ result: AttemptResult, factor: FactorRecord, claims: TokenClaims,
                       now: Int64) -> [AuditEvent] {
        switch result {
        case .accepted:
            return [AuditEvent(kind: .signInSuccess, tenant: claims.tenant, uid: claims.uid,
                               factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now)]
        case .failed(let failure, _):
            return failureEvents(factor, claims: claims, now: now, outcome: failure,
                                 detail: MFAErrorCode.invalidVerificationCode.name)
        }
    }

    /// A failed attempt's events (already counted, or refused with `detail`)
    /// and the backoff it started.
    func failureEvents(_ factor: FactorRecord, claims: TokenClaims, now: Int64, outcome: FailureOutcome?,
                       detail: String) -> [AuditEvent] {
        var events = [AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid,
                                 factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                                 detail: detail)]
        if let outcome, outcome.startedBackoff {
            events.append(AuditEvent(kind: .backoff, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                                     enrollmentID: factor.enrollmentID, time: now,
                                     detail: "locked until \(outcome.lockedUntil)"))
        }
        return events
    }
}

/// What the events of an attempt's write are made from.
package struct AttemptAudit {
    /// How the attempt ended.
    package var result: AttemptResult
    /// The factor it was for.
    package var factor: FactorRecord
}

/// What the attempt's transaction learned, for what follows it.
private final class AttemptOutcome: @unchecked Sendable {
    var factor: FactorRecord?
    /// The configuration the attempt read.
    var config: MFAConfig?
    var claims: [SignInResult.Claim] = []
    var message = "the code is wrong or was already used"
}
