extension MFAContext {
    /// The enrolled factors of `user`, phone numbers in full.
    func enrolledFactors(of user: MFAUser) throws(MFAError) -> [MultiFactorInfo] {
        try user.validate()
        return try store.factors(tenant: user.tenantKey, uid: user.uid).map {
            (record) throws(MFAError) in try factorInfo(record, masked: false)
        }
    }

    /// Checks the enrollment prerequisites (SPEC flow 2) and mints a session.
    func newSession(for user: MFAUser) throws(MFAError) -> String {
        try user.validate()
        let now = clock.now()
        let snapshot = try store.signInSnapshot(tenant: user.tenantKey, uid: user.uid)
        let config = try config(from: snapshot.documents)
        guard config.allowsAnyEnrollment else {
            throw MFAError(.operationNotAllowed, "multi-factor enrollment is disabled")
        }
        guard user.firstFactorSupportsMFA else {
            throw MFAError(.unsupportedFirstFactor, "users of this first factor cannot enroll a second factor")
        }
        guard user.emailVerified, user.email != nil else {
            throw MFAError(.unverifiedEmail, "the user needs a verified email address to enroll")
        }
        guard Self.isRecent(user.authTime, now: now, maxAge: config.limits.recentLoginMaxAge) else {
            throw MFAError(.requiresRecentLogin, "the user signed in too long ago; sign in again to enroll")
        }
        // At the limit, a session is still useful for a kind that does not count (recovery codes).
        let unlimited = FactorRegistry.all.contains { !$0.countsTowardLimit && config.allows($0.id) }
        if !unlimited { try Self.checkFactorLimit(snapshot.factors, config) }
        let claims = TokenClaims(purpose: .enrollmentSession, id: try newTokenID(), tenant: user.tenantKey,
                                 uid: user.uid, expires: now.plus(config.limits.sessionLifetime),
                                 epoch: snapshot.user.tokenEpoch)
        return try OpaqueToken.seal(claims, keyring: keyring)
    }

    /// Throws `secondFactorLimitExceeded` if the user has as many factors
    /// that count toward the limit as the configuration allows.
    static func checkFactorLimit(_ factors: [FactorRecord], _ config: MFAConfig) throws(MFAError) {
        let limited = FactorRegistry.limitedIDs
        guard factors.filter({ limited.contains($0.factorID) }).count < config.limits.maxFactors else {
            throw MFAError(.secondFactorLimitExceeded,
                           "a user may have at most \(config.limits.maxFactors) second factors")
        }
    }

    /// Opens an enrollment session token: intact, unexpired, unused, and
    /// minted since the user's tokens were last revoked.
    func openSession(_ token: String, now: Int64) throws(MFAError) -> TokenClaims {
        let claims = try OpaqueToken.open(token, purpose: .enrollmentSession, keyring: keyring)
        guard claims.expires >= now else { throw MFAError(.invalidSession, "the session has expired") }
        let state = try store.tokenState(tokenID: claims.id, tenant: claims.tenant, uid: claims.uid)
        guard !state.consumed else { throw MFAError(.invalidSession, "the session was already used") }
        guard state.epoch == claims.epoch else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this session was issued")
        }
        return claims
    }

    /// `MultiFactor.enroll(with:displayName:)`: the assertion's factor kind
    /// checks it, then the enrollment is stored.
    func enroll(user: MFAUser, assertion: MultiFactorAssertion, displayName: String?) throws(MFAError) -> MultiFactorInfo {
        do {
            let info = try enrollUncounted(user: user, assertion: assertion, displayName: displayName)
            metrics.enrollment(factorID: assertion.factorID, .success, tenant: user.tenantKey)
            return info
        } catch {
            metrics.enrollment(factorID: assertion.factorID, MetricOutcome(error.code), tenant: user.tenantKey)
            throw error
        }
    }

    private func enrollUncounted(user: MFAUser, assertion: MultiFactorAssertion,
                                 displayName: String?) throws(MFAError) -> MultiFactorInfo {
        try user.validate()
        let name = try Self.checkedDisplayName(displayName)
        guard let kind = FactorRegistry.kind(assertion.factorID) else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        let now = clock.now()
        let enrollment = try kind.enrollment(for: assertion, user: user, context: self, now: now)
        return try completeEnrollment(kind, user: user, enrollment, displayName: name, now: now)
    }

    /// Stores an enrollment a factor kind has checked: the session is
    /// consumed (and must be of the user's current epoch), the kind's rows
    /// written, the limit checked, earlier credentials revoked.
    func completeEnrollment<F: SecondFactor>(_ kind: F.Type, user: MFAUser, _ enrollment: FactorEnrollment,
                                             displayName: String?, now: Int64) throws(MFAError) -> MultiFactorInfo {
        try Self.checkOwner(enrollment.session, user)
        let config = try config(tenant: user.tenant)
        let enrollmentID = try newEnrollmentID(after: store.factors(tenant: user.tenantKey, uid: user.uid), at: now)
        let sealed = try RecordSealer.seal(enrollment.payload, F.binding(tenant: user.tenantKey, uid: user.uid,
                                                                         enrollmentID: enrollmentID),
                                           keyring: keyring)
        var record = FactorRecord(enrollmentID: enrollmentID, tenant: user.tenantKey, uid: user.uid, factorID: F.id,
                                  displayName: displayName, enrolledAt: now, keyID: sealed.keyID, sealed: sealed.sealed)
        record.kindValues = enrollment.columns
        let note = auditNote(config) { () in
            [AuditEvent(kind: .enroll, tenant: user.tenantKey, uid: user.uid, factorID: F.id,
                        enrollmentID: enrollmentID, time: now, detail: enrollment.detail)]
        }
        var commit = EnrollmentCommit(
            factor: record, sessionTokenID: enrollment.session.id,
            consumedUntil: enrollment.session.consumedUntil(skew: config.limits.clockSkew),
            epoch: enrollment.session.epoch, maxFactors: F.countsTowardLimit ? config.limits.maxFactors : nil,
            replaces: F.replacesPrevious, write: enrollment.write, admit: enrollment.admit,
            nowMs: clock.nowMilliseconds())
        commit.audit = note
        try store.finishEnrollment(commit)
        report(note, ())
        enrollment.completed?(record)
        return try factorInfo(record, masked: false)
    }

    /// `MultiFactor.unenroll(withFactorUID:)`.
    func unenroll(user: MFAUser, enrollmentID: String) throws(MFAError) {
        try user.validate()
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let config = try config(tenant: user.tenant)
        guard Self.isRecent(user.authTime, now: now, maxAge: config.limits.recentLoginMaxAge) else {
            throw MFAError(.requiresRecentLogin, "the user signed in too long ago; sign in again to unenroll")
        }
        let note = auditNote(config) { [self] (removal: FactorRemoval) in
            [AuditEvent(kind: .unenroll, tenant: user.tenantKey, uid: user.uid, factorID: removal.factor.factorID,
                        enrollmentID: enrollmentID, time: now)]
                + forgottenEvents(removal.devices, tenant: user.tenantKey, uid: user.uid,
                                  detail: "LAST_FACTOR_REMOVED", time: now)
        }
        guard let (factor, forgotten) = try store.deleteFactor(tenant: user.tenantKey, uid: user.uid,
                                                               enrollmentID: enrollmentID,
                                                               nowMs: clock.nowMilliseconds(), audit: note) else {
            throw MFAError(.mfaEnrollmentNotFound, "the user has no second factor with this id")
        }
        metrics.unenrollment(factorID: factor.factorID, by: .user, tenant: user.tenantKey)
        report(note, (factor, forgotten))
    }

    /// The public description of a stored factor.
    func factorInfo(_ record: FactorRecord, masked: Bool) throws(MFAError) -> MultiFactorInfo {
        let kind = try FactorRegistry.stored(record.factorID)
        let hint = try kind.hint(of: record, masked: masked, context: self)
        return MultiFactorInfo(uid: record.enrollmentID, factorID: record.factorID, displayName: record.displayName,
                               enrollmentDate: record.enrolledAt, hint: hint.text, phoneNumber: hint.phoneNumber,
                               remainingCodes: hint.remainingCodes, email: hint.email)
    }

    /// Whether a first-factor sign-in at `authTime` is recent enough: at most
    /// `maxAge` seconds ago, and not more than 5 minutes in the future (clock
    /// skew between the host's servers).
    static func isRecent(_ authTime: Int64, now: Int64, maxAge: Int64) -> Bool {
        let age = now.minus(authTime)
        return age <= maxAge && age >= -300
    }

    /// Throws `tenantMismatch` or `invalidSession` unless the token belongs to `user`.
    static func checkOwner(_ claims: TokenClaims, _ user: MFAUser) throws(MFAError) {
        guard claims.tenant == user.tenantKey else {
            throw MFAError(.tenantMismatch, "the session belongs to another tenant")
        }
        guard claims.uid == user.uid else { throw MFAError(.invalidSession, "the session belongs to another user") }
    }

    /// A display name: nil or empty for none, else at most 256 bytes without
    /// a control character (`IdentifierText`). The one check of every
    /// factor's display name that enters libmfa.
    static func checkedDisplayName(_ name: String?) throws(MFAError) -> String? {
        guard let name, !name.isEmpty else { return nil }
        guard name.utf8.count <= 256 else { throw MFAError(.invalidArgument, "display name is longer than 256 bytes") }
        try IdentifierText.check(name, "display name")
        return name
    }
}
