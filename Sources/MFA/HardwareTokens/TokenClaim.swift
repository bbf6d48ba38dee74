/// What a user gives to claim a hardware token an operator imported unassigned.
package struct TokenClaimRequest: Sendable {
    /// The kind of token the assertion is for.
    package var kind: HardwareTokenSeed.Kind
    /// The enrollment session (`MultiFactorSession.token`).
    package var session: String
    /// The serial printed on the token (not needed for a YubiKey: its OTP names it).
    package var serial: String?
    /// The code the token shows (a YubiKey's OTP).
    package var code: String
    /// HOTP: the code after it, for a token pressed away from the server.
    package var next: String?
}

extension MFAContext {
    /// Checks a code from an unassigned token and says how to store the
    /// token as the user's factor: the enrollment takes the token out of the
    /// inventory in its transaction, so two users cannot both claim it, and
    /// the factor starts after the code that proved it (a TOTP step, an HOTP
    /// counter, a YubiKey's counters), so that code cannot sign in after.
    ///
    /// A wrong code counts against the token, with the backoff a factor has
    /// (`TokenStore.countFailure`): whoever reads a serial off a token cannot
    /// guess its codes faster than its owner could be guessed.
    /// - Throws: `tokenNotFound` (no unassigned token of this kind has the
    ///   serial, or the YubiKey's public id), `invalidVerificationCode`,
    ///   `tooManyAttemptsTryLater`, `operationNotAllowed`, `invalidSession`,
    ///   `invalidArgument`, `storageError`.
    func claimToken(_ request: TokenClaimRequest, user: MFAUser, now: Int64) throws(MFAError) -> FactorEnrollment {
        let session = try openSession(request.session, now: now)
        try Self.checkOwner(session, user)
        let config = try config(tenant: user.tenant)
        guard config.allows(request.kind.factorID) else {
            throw MFAError(.operationNotAllowed, "\(request.kind.name)s are disabled")
        }
        let tenant = user.tenantKey
        let typed = request.kind == .yubicoOTP ? YubicoOTP.read(request.code) : nil
        if request.kind == .yubicoOTP, typed == nil {
            throw MFAError(.invalidVerificationCode, "this is not a Yubico OTP (32 to 64 modhex characters)")
        }
        if request.kind != .yubicoOTP {
            guard let serial = request.serial else { throw MFAError(.invalidArgument, "the token's serial is missing") }
            if let problem = TokenStore.serialProblem(serial) { throw MFAError(.invalidArgument, problem) }
        }
        let found = try store.database.read { (db) throws(MFAError) -> TokenStore.Row? in
            if let typed { return try TokenStore.find(db, tenant: tenant, publicID: typed.publicID) }
            return try TokenStore.find(db, tenant: tenant, serial: request.serial ?? "")
        }
        guard let row = found, row.seed.kind == request.kind else {
            throw MFAError(.tokenNotFound, request.kind == .yubicoOTP
                ? "no unassigned YubiKey has this OTP's public id" : "no unassigned \(request.kind.name) has this serial")
        }
        guard row.lockedUntil <= now else {
            throw MFAError(.tooManyAttemptsTryLater, "too many wrong codes for this token; try again later")
        }
        let secret = try RecordSealer.open(row.sealed, keyID: row.keyID, row.binding, keyring: keyring)
        var seed = row.seed
        guard let counter = try Self.check(request, typed: typed, seed: seed, secret: secret, config: config,
                                           now: now) else {
            try store.database.transaction { (db) throws(MFAError) in
                try TokenStore.countFailure(db, tokenID: row.tokenID, now: now, limits: config.limits)
            }
            audit(AuditEvent(kind: .signInFailure, tenant: tenant, uid: user.uid, factorID: request.kind.factorID,
                             time: now, detail: MFAErrorCode.invalidVerificationCode.name))
            throw MFAError(.invalidVerificationCode, "the code is not one this token shows now; try again")
        }
        seed.counter = counter
        let tokenID = row.tokenID
        let serial = row.serial
        var enrollment = FactorEnrollment(session: session, payload: secret) { (db, _) throws(MFAError) in
            try TokenStore.take(db, tokenID: tokenID)
        }
        enrollment.columns = seed.factorValues
        enrollment.detail = "TOKEN"
        enrollment.completed = { [self] record in
            audit(AuditEvent(kind: .tokenAssigned, tenant: record.tenant, uid: record.uid, factorID: record.factorID,
                             enrollmentID: record.enrollmentID, time: now, detail: "serial \(serial)"))
        }
        return enrollment
    }

    /// Where a claim's code falls: the counter the new factor stores (HOTP:
    /// the next one; TOTP: the step used; Yubico OTP: the counters used),
    /// or nil for a wrong code.
    private static func check(_ request: TokenClaimRequest, typed: YubicoOTP.Typed?, seed: HardwareTokenSeed,
                              secret: SecureBytes, config: MFAConfig, now: Int64) throws(MFAError) -> Int64? {
        switch request.kind {
        case .hotp:
            let settings = config.hotpSettings
            return try HOTPSearch.find(request.code, next: request.next, secret: secret, algorithm: seed.algorithm,
                                       digits: seed.digits, from: seed.counter,
                                       lookAhead: seed.window ?? settings.lookAhead,
                                       resyncWindow: settings.resyncWindow).map { $0.counter + 1 }
        case .totp:
            let parameters = TOTPParameters(algorithm: seed.algorithm, digits: seed.digits, period: seed.period)
            guard let step = try TOTPFactor.match(request.code, secret: secret, parameters, at: now,
                                                  window: seed.window ?? HardwareTokenSeed.hardwareTOTPWindow),
                  step > seed.counter else { return nil }
            return step
        case .yubicoOTP:
            guard let typed, secret.count == YubicoOTP.keyBytes + YubicoOTP.privateIDBytes else { return nil }
            return secret.withBytes { (bytes) -> Int64? in
                guard let fields = YubicoOTP.open(typed.block, key: UnsafeRawBufferPointer(rebasing: bytes[0..<16])),
                      YubicoOTP.samePrivateID(fields.privateID, UnsafeRawBufferPointer(rebasing: bytes[16...])),
                      fields.counter > seed.counter else { return nil }
                return fields.counter
            }
        }
    }
}
