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
        let config = try config(tenant: user.tenant)
        guard config.state != .disabled, config.totp == .enabled || config.phone == .enabled else {
            throw MFAError(.operationNotAllowed, "multi-factor enrollment is disabled")
        }
        guard !MFAUser.unsupportedFirstFactors.contains(user.provider) else {
            throw MFAError(.unsupportedFirstFactor, "users who signed in with \(user.provider) cannot enroll a second factor")
        }
        guard user.emailVerified, user.email != nil else {
            throw MFAError(.unverifiedEmail, "the user needs a verified email address to enroll")
        }
        guard Self.isRecent(user.authTime, now: now, maxAge: config.limits.recentLoginMaxAge) else {
            throw MFAError(.requiresRecentLogin, "the user signed in too long ago; sign in again to enroll")
        }
        let count = try store.factors(tenant: user.tenantKey, uid: user.uid).count
        guard count < config.limits.maxFactors else {
            throw MFAError(.secondFactorLimitExceeded,
                           "a user may have at most \(config.limits.maxFactors) second factors")
        }
        let claims = TokenClaims(purpose: .enrollmentSession, id: try newTokenID(), tenant: user.tenantKey,
                                 uid: user.uid, expires: now.plus(config.limits.sessionLifetime))
        return try OpaqueToken.seal(claims, keyring: keyring)
    }

    /// Opens an enrollment session token: intact, unexpired, unused.
    func openSession(_ token: String, now: Int64) throws(MFAError) -> TokenClaims {
        let claims = try OpaqueToken.open(token, purpose: .enrollmentSession, keyring: keyring)
        guard claims.expires >= now else { throw MFAError(.invalidSession, "the session has expired") }
        guard try !store.isConsumed(tokenID: claims.id) else {
            throw MFAError(.invalidSession, "the session was already used")
        }
        return claims
    }

    /// `TOTPMultiFactorGenerator.generateSecret(with:)`.
    func generateTOTPSecret(sessionToken: String) throws(MFAError) -> TOTPSecret {
        let now = clock.now()
        let claims = try openSession(sessionToken, now: now)
        let config = try config(tenant: claims.tenant.isEmpty ? nil : claims.tenant)
        guard config.allows(TOTPMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "TOTP second factors are disabled")
        }
        try store.purgeExpired(now: now)
        let secret = try random.bytes(OTPLimits.defaultSecretBytes)
        let pendingID = try random.identifier(bytes: 21)
        let deadline = now.plus(config.limits.enrollmentDeadline)
        let sealed = try FactorSealer.seal(secret, id: pendingID, tenant: claims.tenant, keyring: keyring)
        try store.insertPending(PendingRecord(pendingID: pendingID, tenant: claims.tenant, uid: claims.uid,
                                              keyID: sealed.keyID, sealed: sealed.sealed, deadline: deadline))
        let info = TokenClaims(purpose: .totpEnrollment, id: claims.id, tenant: claims.tenant, uid: claims.uid,
                               expires: deadline, reference: pendingID)
        return TOTPSecret(secret: secret, hashingAlgorithm: .sha1, codeLength: OTPLimits.defaultDigits,
                          codeIntervalSeconds: OTPLimits.defaultPeriod, enrollmentCompletionDeadline: deadline,
                          sessionInfo: try OpaqueToken.seal(info, keyring: keyring))
    }

    /// `MultiFactor.enroll(with:displayName:)`.
    func enroll(user: MFAUser, assertion: MultiFactorAssertion, displayName: String?) throws(MFAError) -> MultiFactorInfo {
        try user.validate()
        let name = try Self.checkedDisplayName(displayName)
        if let phone = assertion as? PhoneMultiFactorAssertion {
            return try enrollPhone(user: user, credential: phone.credential, displayName: name)
        }
        guard let totp = assertion as? TOTPMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        guard case .enrollment(let sessionInfo) = totp.target else {
            throw MFAError(.invalidArgument, "a sign-in assertion cannot enroll a factor")
        }
        return try enrollTOTP(user: user, sessionInfo: sessionInfo, oneTimePassword: totp.oneTimePassword,
                              displayName: name)
    }

    private func enrollTOTP(user: MFAUser, sessionInfo: String, oneTimePassword: String,
                            displayName: String?) throws(MFAError) -> MultiFactorInfo {
        let now = clock.now()
        let claims = try OpaqueToken.open(sessionInfo, purpose: .totpEnrollment, keyring: keyring)
        try Self.checkOwner(claims, user)
        guard now <= claims.expires else {
            throw MFAError(.codeExpired, "the secret's enrollment deadline has passed; generate a new one")
        }
        let config = try config(tenant: user.tenant)
        guard config.allows(TOTPMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "TOTP second factors are disabled")
        }
        guard let pending = try store.pending(id: claims.reference) else {
            throw MFAError(.invalidSession, "this enrollment was already finished or has expired")
        }
        let secret = try FactorSealer.open(pending.sealed, keyID: pending.keyID, id: pending.pendingID,
                                           tenant: pending.tenant, keyring: keyring)
        guard let step = try TOTP(secret: secret).verify(oneTimePassword, at: now, window: config.adjacentIntervals)
        else {
            audit(AuditEvent(kind: .signInFailure, tenant: user.tenantKey, uid: user.uid, factorID: TOTPMultiFactorID,
                             time: now, detail: MFAErrorCode.invalidVerificationCode.name))
            throw MFAError(.invalidVerificationCode, "the code does not match the secret; try again")
        }
        let enrollmentID = try newEnrollmentID()
        let sealed = try FactorSealer.seal(secret, id: enrollmentID, tenant: user.tenantKey, keyring: keyring)
        let record = FactorRecord(enrollmentID: enrollmentID, tenant: user.tenantKey, uid: user.uid,
                                  factorID: TOTPMultiFactorID, displayName: displayName, enrolledAt: now,
                                  keyID: sealed.keyID, sealed: sealed.sealed, algorithm: OTPAlgorithm.sha1.rawValue,
                                  digits: OTPLimits.defaultDigits, period: OTPLimits.defaultPeriod, lastStep: step)
        let keepUntil = now.plus(max(config.limits.sessionLifetime, config.limits.enrollmentDeadline))
        try store.finishEnrollment(record, claim: .pendingSecret(id: pending.pendingID), sessionTokenID: claims.id,
                                   sessionExpires: keepUntil, maxFactors: config.limits.maxFactors, now: now)
        audit(AuditEvent(kind: .enroll, tenant: user.tenantKey, uid: user.uid, factorID: TOTPMultiFactorID,
                         enrollmentID: enrollmentID, time: now))
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
        guard let factorID = try store.deleteFactor(tenant: user.tenantKey, uid: user.uid, enrollmentID: enrollmentID,
                                                    now: now) else {
            throw MFAError(.mfaEnrollmentNotFound, "the user has no second factor with this id")
        }
        audit(AuditEvent(kind: .unenroll, tenant: user.tenantKey, uid: user.uid, factorID: factorID,
                         enrollmentID: enrollmentID, time: now))
    }

    /// The public description of a stored factor.
    func factorInfo(_ record: FactorRecord, masked: Bool) throws(MFAError) -> MultiFactorInfo {
        var number: String?
        if record.factorID == PhoneMultiFactorID {
            let full = try phoneNumber(of: record)
            number = masked ? PhoneNumber.masked(full) : full
        }
        return MultiFactorInfo(uid: record.enrollmentID, factorID: record.factorID, displayName: record.displayName,
                               enrollmentDate: record.enrolledAt, phoneNumber: number)
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

    /// A display name: nil or empty for none, else at most 256 bytes.
    static func checkedDisplayName(_ name: String?) throws(MFAError) -> String? {
        guard let name, !name.isEmpty else { return nil }
        guard name.utf8.count <= 256 else { throw MFAError(.invalidArgument, "display name is longer than 256 bytes") }
        return name
    }
}
