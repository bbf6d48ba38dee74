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
                                 expires: now + config.limits.pendingCredentialLifetime)
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
    /// - Parameters:
    ///   - pendingCredential: the resolver's session.
    ///   - tenant: the tenant the host serves this request for (nil for the project).
    ///   - assertion: the second factor.
    /// - Throws: `invalidVerificationCode`, `invalidSession`, `tenantMismatch`,
    ///   `mfaEnrollmentNotFound`, `tooManyAttemptsTryLater`, `invalidArgument`, `storageError`.
    public func resolveSignIn(pendingCredential: String, tenant: String?,
                              assertion: MultiFactorAssertion) throws(MFAError) -> SignInResult {
        guard let totp = assertion as? TOTPMultiFactorAssertion, case .signIn(let enrollmentID) = totp.target else {
            throw MFAError(.invalidArgument, "an enrollment assertion cannot resolve a sign-in")
        }
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let attempt = try store.attempt(enrollmentID: enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                        tokenID: claims.id)
        guard let factor = attempt.factor else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        guard factor.tenant == claims.tenant, factor.uid == claims.uid else {
            throw MFAError(.invalidSession, "the pending credential belongs to another user")
        }
        guard !attempt.consumed else { throw MFAError(.invalidSession, "the pending credential was already used") }
        guard attempt.user.lockedUntil <= now, factor.lockedUntil <= now else {
            throw MFAError(.tooManyAttemptsTryLater, "too many failed attempts; try again later")
        }
        let config = try config(from: attempt.documents)
        let step = try matchTOTP(factor, code: totp.oneTimePassword, now: now, window: config.adjacentIntervals)
        guard let step else {
            try recordFailure(factor, claims: claims, now: now, limits: config.limits)
            throw MFAError(.invalidVerificationCode, "the code is wrong or was already used")
        }
        do {
            try store.completeSignIn(enrollmentID: factor.enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                     step: step, tokenID: claims.id, tokenExpires: claims.expires, now: now)
        } catch {
            audit(AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                             enrollmentID: factor.enrollmentID, time: now, detail: error.code.name))
            throw error
        }
        audit(AuditEvent(kind: .signInSuccess, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                         enrollmentID: factor.enrollmentID, time: now))
        return SignInResult(uid: claims.uid, tenant: tenant, factorID: factor.factorID,
                            enrollmentID: factor.enrollmentID, time: now)
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
    private func matchTOTP(_ factor: FactorRecord, code: String, now: Int64, window: Int) throws(MFAError) -> Int64? {
        guard factor.factorID == TOTPMultiFactorID else {
            throw MFAError(.invalidArgument, "a TOTP assertion cannot resolve a phone factor")
        }
        let secret = try FactorSealer.open(factor.sealed, keyID: factor.keyID, id: factor.enrollmentID,
                                           tenant: factor.tenant, keyring: keyring)
        let algorithm = OTPAlgorithm(rawValue: factor.algorithm) ?? .sha1
        let totp = try TOTP(secret: secret, algorithm: algorithm, digits: factor.digits, period: factor.period)
        return try totp.verify(code, at: now, window: window, after: factor.lastStep)
    }

    /// Counts a failure and reports it (and any backoff it starts) to the audit callback.
    private func recordFailure(_ factor: FactorRecord, claims: TokenClaims, now: Int64,
                               limits: MFALimits) throws(MFAError) {
        let outcome = try store.recordFailure(enrollmentID: factor.enrollmentID, tenant: claims.tenant,
                                              uid: claims.uid, now: now, limits: limits)
        audit(AuditEvent(kind: .signInFailure, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                         enrollmentID: factor.enrollmentID, time: now,
                         detail: MFAErrorCode.invalidVerificationCode.name))
        if outcome.startedBackoff {
            audit(AuditEvent(kind: .backoff, tenant: claims.tenant, uid: claims.uid, factorID: factor.factorID,
                             enrollmentID: factor.enrollmentID, time: now,
                             detail: "locked until \(outcome.lockedUntil)"))
        }
    }
}
