extension MFAContext {
    /// Reports a successful first factor. A user with second factors gets a
    /// resolver; one without is signed in, unless MFA is MANDATORY.
    /// - Throws: `enrollmentRequired` (MANDATORY, no factor),
    ///   `unsupportedFirstFactor` (a phone first factor for a user with factors),
    ///   `invalidArgument`, `storageError`.
    public func signIn(_ user: MFAUser) throws(MFAError) -> SignInOutcome {
        try user.validate()
        let now = clock.now()
        let snapshot = try store.signInSnapshot(tenant: user.tenantKey, uid: user.uid)
        let factors = snapshot.factors
        let config = try config(from: snapshot.documents)
        guard !factors.isEmpty else {
            guard config.state != .mandatory else {
                throw MFAError(.enrollmentRequired, "this project requires a second factor: enroll one")
            }
            return .signedIn(SignInResult(uid: user.uid, tenant: user.tenant, factorID: nil, enrollmentID: nil,
                                          time: now))
        }
        guard !MFAUser.unsupportedFirstFactors.contains(user.provider) else {
            throw MFAError(.unsupportedFirstFactor,
                           "users with second factors cannot sign in with \(user.provider) as first factor")
        }
        let claims = TokenClaims(purpose: .signIn, id: try newTokenID(), tenant: user.tenantKey, uid: user.uid,
                                 expires: now.plus(config.limits.pendingCredentialLifetime))
        return .secondFactorRequired(MultiFactorResolver(
            hints: try factors.map { (record) throws(MFAError) in try factorInfo(record, masked: true) },
            session: try OpaqueToken.seal(claims, keyring: keyring), tenant: user.tenant, uid: user.uid,
            context: self))
    }

    /// Rebuilds a resolver from a pending credential a client sent back.
    /// - Throws: `invalidSession`, `tenantMismatch`.
    public func resolver(pendingCredential: String, tenant: String?) throws(MFAError) -> MultiFactorResolver {
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: clock.now())
        let factors = try store.factors(tenant: claims.tenant, uid: claims.uid)
        return MultiFactorResolver(
            hints: try factors.map { (record) throws(MFAError) in try factorInfo(record, masked: true) },
            session: pendingCredential, tenant: tenant, uid: claims.uid, context: self)
    }

    /// Finishes a sign-in: `MultiFactorResolver.resolveSignIn(with:)`.
    ///
    /// The whole attempt (backoff check, code comparison, and either the
    /// failure count or the step claim and credential consumption) is one
    /// store transaction: racing attempts are strictly ordered.
    /// - Parameters:
    ///   - pendingCredential: the resolver's session.
    ///   - tenant: the tenant the host serves this request for (nil for the project).
    ///   - assertion: the second factor (TOTP or phone).
    /// - Throws: `invalidVerificationCode`, `codeExpired` (SMS), `invalidSession`,
    ///   `tenantMismatch`, `mfaEnrollmentNotFound`, `tooManyAttemptsTryLater`,
    ///   `invalidArgument`, `storageError`.
    public func resolveSignIn(pendingCredential: String, tenant: String?,
                              assertion: MultiFactorAssertion) throws(MFAError) -> SignInResult {
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        var request = AttemptRequest(enrollmentID: nil, smsVerificationID: nil, tenant: claims.tenant,
                                     uid: claims.uid, tokenID: claims.id, tokenExpires: claims.expires, now: now)
        var seen: FactorRecord?
        let decide: (AttemptView) throws(MFAError) -> AttemptDecision
        switch assertion {
        case let totp as TOTPMultiFactorAssertion:
            guard case .signIn(let enrollmentID) = totp.target else {
                throw MFAError(.invalidArgument, "an enrollment assertion cannot resolve a sign-in")
            }
            try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
            request.enrollmentID = enrollmentID
            decide = { (view) throws(MFAError) -> AttemptDecision in
                let (factor, config) = try self.admit(view, claims: claims, now: now)
                seen = factor
                guard factor.factorID == TOTPMultiFactorID else {
                    throw MFAError(.invalidArgument, "a TOTP assertion cannot resolve a phone factor")
                }
                guard let step = try self.matchTOTP(factor, code: totp.oneTimePassword, now: now,
                                                    window: config.adjacentIntervals) else {
                    return .wrong(config.limits)
                }
                return .accept(.totpStep(step))
            }
        case let phone as PhoneMultiFactorAssertion:
            let verification = try OpaqueToken.open(phone.credential.verificationID, purpose: .phoneVerification,
                                                    keyring: keyring)
            guard verification.tenant == claims.tenant, verification.uid == claims.uid else {
                throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
            }
            request.smsVerificationID = verification.reference
            decide = { (view) throws(MFAError) -> AttemptDecision in
                guard let record = view.sms, record.boundToken == claims.id, record.purpose == .signIn else {
                    throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
                }
                let (factor, config) = try self.admit(view, claims: claims, now: now)
                seen = factor
                try self.checkSMSState(record, claims: verification, limits: config.limits, now: now)
                guard try self.smsCodeMatches(record, code: phone.credential.verificationCode) else {
                    return .wrong(config.limits)
                }
                return .accept(.smsCode(verificationID: record.verificationID,
                                        maxAttempts: config.limits.smsMaxAttempts, now: now))
            }
        default:
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        let failure: FailureOutcome?
        do {
            failure = try store.resolveAttempt(request, decide: decide)
        } catch {
            if let factor = seen, error.code != .tooManyAttemptsTryLater {
                audit(AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid,
                                 factorID: factor.factorID, enrollmentID: factor.enrollmentID, time: now,
                                 detail: error.code.name))
            }
            throw error
        }
        guard let factor = seen else { throw MFAError(.internal, "the attempt saw no factor") }
        if let failure {
            reportFailure(factor, claims: claims, now: now, outcome: failure)
            throw MFAError(.invalidVerificationCode, "the code is wrong or was already used")
        }
        audit(AuditEvent(kind: .signInSuccess, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                         enrollmentID: factor.enrollmentID, time: now))
        return SignInResult(uid: claims.uid, tenant: tenant, factorID: factor.factorID,
                            enrollmentID: factor.enrollmentID, time: now)
    }

    /// Refuses an attempt unless the factor exists, belongs to the
    /// credential's user, the credential is unused and no backoff is running.
    func admit(_ view: AttemptView, claims: TokenClaims, now: Int64) throws(MFAError)
        -> (factor: FactorRecord, config: MFAConfig) {
        guard let factor = view.factor else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        guard factor.tenant == claims.tenant, factor.uid == claims.uid else {
            throw MFAError(.invalidSession, "the pending credential belongs to another user")
        }
        guard !view.consumed else { throw MFAError(.invalidSession, "the pending credential was already used") }
        guard view.user.lockedUntil <= now, factor.lockedUntil <= now else {
            throw MFAError(.tooManyAttemptsTryLater, "too many failed attempts; try again later")
        }
        return (factor, try config(from: view.documents))
    }

    /// Opens a pending credential: intact, of this tenant, unexpired.
    func openPendingCredential(_ token: String, tenant: String?, now: Int64) throws(MFAError) -> TokenClaims {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let claims = try OpaqueToken.open(token, purpose: .signIn, keyring: keyring)
        guard claims.tenant == (tenant ?? "") else {
            throw MFAError(.tenantMismatch, "the pending credential belongs to another tenant")
        }
        guard claims.expires >= now else { throw MFAError(.invalidSession, "the pending credential has expired") }
        return claims
    }

    /// The step `code` matches for a TOTP factor, later than its last accepted step.
    func matchTOTP(_ factor: FactorRecord, code: String, now: Int64, window: Int) throws(MFAError) -> Int64? {
        let secret = try FactorSealer.open(factor.sealed, keyID: factor.keyID, id: factor.enrollmentID,
                                           tenant: factor.tenant, keyring: keyring)
        let algorithm = OTPAlgorithm(rawValue: factor.algorithm) ?? .sha1
        let totp = try TOTP(secret: secret, algorithm: algorithm, digits: factor.digits, period: factor.period)
        return try totp.verify(code, at: now, window: window, after: factor.lastStep)
    }

    /// Reports a failed attempt (already counted by `attempt`), and the
    /// backoff it started, to the audit callback.
    func reportFailure(_ factor: FactorRecord, claims: TokenClaims, now: Int64, outcome: FailureOutcome?) {
        audit(AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                         enrollmentID: factor.enrollmentID, time: now,
                         detail: MFAErrorCode.invalidVerificationCode.name))
        if let outcome, outcome.startedBackoff {
            audit(AuditEvent(kind: .backoff, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                             enrollmentID: factor.enrollmentID, time: now,
                             detail: "locked until \(outcome.lockedUntil)"))
        }
    }
}
