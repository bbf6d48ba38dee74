extension MFAContext {
    /// `TOTPMultiFactorGenerator.generateSecret(with:)`: a fresh secret, kept
    /// sealed until the enrollment is finished or its deadline passes.
    func generateTOTPSecret(sessionToken: String) throws(MFAError) -> TOTPSecret {
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(TOTPMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "TOTP second factors are disabled")
        }
        try Self.checkFactorLimit(store.factors(tenant: session.tenant, uid: session.uid), config)
        try store.purgeExpired(now: now)
        let secret = try random.bytes(OTPLimits.defaultSecretBytes)
        let pendingID = try random.identifier(bytes: 21)
        let deadline = now.plus(config.limits.enrollmentDeadline)
        var pending = TOTPStore.Pending(pendingID: pendingID, tenant: session.tenant, uid: session.uid, keyID: "",
                                        sealed: [], deadline: deadline)
        (pending.keyID, pending.sealed) = try RecordSealer.seal(secret, pending.binding, keyring: keyring)
        try TOTPStore.insertPending(pending, store)
        let info = TokenClaims(purpose: .totpEnrollment, id: session.id, tenant: session.tenant, uid: session.uid,
                               expires: deadline, reference: pendingID, epoch: session.epoch,
                               parentExpires: session.expires)
        return TOTPSecret(secret: secret, hashingAlgorithm: .sha1, codeLength: OTPLimits.defaultDigits,
                          codeIntervalSeconds: OTPLimits.defaultPeriod, enrollmentCompletionDeadline: deadline,
                          sessionInfo: try OpaqueToken.seal(info, keyring: keyring))
    }

    /// Checks the code of a secret being enrolled and says what to store.
    func totpEnrollment(user: MFAUser, sessionInfo: String, oneTimePassword: String,
                        now: Int64) throws(MFAError) -> FactorEnrollment {
        let claims = try OpaqueToken.open(sessionInfo, purpose: .totpEnrollment, keyring: keyring)
        try Self.checkOwner(claims, user)
        guard now <= claims.expires else {
            throw MFAError(.codeExpired, "the secret's enrollment deadline has passed; generate a new one")
        }
        // A reset removed the pending secret with the revocation: the revocation is the answer.
        try checkNotRevoked(claims, now: now)
        let config = try config(tenant: user.tenant)
        guard config.allows(TOTPMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "TOTP second factors are disabled")
        }
        guard let pending = try TOTPStore.pending(id: claims.reference, store), pending.uid == claims.uid,
              pending.tenant == claims.tenant else {
            throw MFAError(.invalidSession, "this enrollment was already finished or has expired")
        }
        let secret = try RecordSealer.open(pending.sealed, keyID: pending.keyID, pending.binding, keyring: keyring)
        guard let step = try TOTPFactor.match(oneTimePassword, secret: secret, .standard, at: now,
                                              window: config.adjacentIntervals) else {
            audit(AuditEvent(kind: .signInFailure, tenant: user.tenantKey, uid: user.uid, factorID: TOTPMultiFactorID,
                             time: now, detail: MFAErrorCode.invalidVerificationCode.name), config: config)
            throw MFAError(.invalidVerificationCode, "the code does not match the secret; try again")
        }
        let pendingID = pending.pendingID
        var enrollment = FactorEnrollment(session: claims, payload: secret) { (db, _) throws(MFAError) in
            try TOTPStore.claimPending(db, pendingID)
        }
        enrollment.columns = TOTPStore.values(.standard, lastStep: step)
        return enrollment
    }
}
