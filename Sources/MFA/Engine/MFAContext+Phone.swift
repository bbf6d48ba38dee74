extension MFAContext {
    /// `PhoneAuthProvider.verifyPhoneNumber(_:appCredential:multiFactorSession:)`.
    func startPhoneEnrollment(sessionToken: String, phoneNumber: String,
                              appCredential: String?) throws(MFAError) -> String {
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(PhoneMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "phone second factors are disabled")
        }
        try PhoneNumber.check(phoneNumber)
        try verifyApp(appCredential, action: .enrollment, config: config)
        let existing = try store.factors(tenant: session.tenant, uid: session.uid)
        guard try !phoneNumbers(of: existing).contains(phoneNumber) else {
            throw MFAError(.secondFactorExists, "this number is already one of the user's second factors")
        }
        let verificationID = try sendCode(to: phoneNumber, purpose: .enrollment, enrollmentID: nil,
                                          boundToken: session.id, tenant: session.tenant, uid: session.uid,
                                          config: config, now: now)
        return try OpaqueToken.seal(TokenClaims(purpose: .phoneVerification, id: session.id, tenant: session.tenant,
                                                uid: session.uid, expires: now.plus(config.limits.smsCodeLifetime),
                                                reference: verificationID), keyring: keyring)
    }

    /// `PhoneAuthProvider.verifyPhoneNumber(with:appCredential:resolver:)`.
    func startPhoneSignIn(pendingCredential: String, tenant: String?, enrollmentID: String,
                          appCredential: String?) throws(MFAError) -> String {
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let (factor, config) = try admit(store.attempt(enrollmentID: enrollmentID, tenant: claims.tenant,
                                                       uid: claims.uid, tokenID: claims.id), claims: claims, now: now)
        guard factor.factorID == PhoneMultiFactorID else {
            throw MFAError(.invalidArgument, "this factor is not a phone number")
        }
        try verifyApp(appCredential, action: .signIn, config: config)
        let number = try phoneNumber(of: factor)
        let verificationID = try sendCode(to: number, purpose: .signIn, enrollmentID: factor.enrollmentID,
                                          boundToken: claims.id, tenant: claims.tenant, uid: claims.uid,
                                          config: config, now: now)
        return try OpaqueToken.seal(TokenClaims(purpose: .phoneVerification, id: try newTokenID(),
                                                tenant: claims.tenant, uid: claims.uid,
                                                expires: now.plus(config.limits.smsCodeLifetime),
                                                reference: verificationID), keyring: keyring)
    }

    /// Finishes a phone enrollment with the code the user received.
    func enrollPhone(user: MFAUser, credential: PhoneAuthCredential,
                     displayName: String?) throws(MFAError) -> MultiFactorInfo {
        let now = clock.now()
        let claims = try OpaqueToken.open(credential.verificationID, purpose: .phoneVerification, keyring: keyring)
        try Self.checkOwner(claims, user)
        let config = try config(tenant: user.tenant)
        guard config.allows(PhoneMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "phone second factors are disabled")
        }
        let record = try checkEnrollmentCode(claims: claims, code: credential.verificationCode,
                                             limits: config.limits, now: now)
        let number = String(decoding: try FactorSealer.open(record.sealed, keyID: record.keyID,
                                                            id: record.verificationID, tenant: record.tenant,
                                                            keyring: keyring), as: UTF8.self)
        let enrollmentID = try newEnrollmentID()
        let sealed = try FactorSealer.seal(Array(number.utf8), id: enrollmentID, tenant: user.tenantKey,
                                           keyring: keyring)
        let factor = FactorRecord(enrollmentID: enrollmentID, tenant: user.tenantKey, uid: user.uid,
                                  factorID: PhoneMultiFactorID, displayName: displayName, enrolledAt: now,
                                  keyID: sealed.keyID, sealed: sealed.sealed, algorithm: 0, digits: 0, period: 0,
                                  lastStep: -1)
        try store.finishEnrollment(factor, claim: .smsCode(verificationID: record.verificationID,
                                                            maxAttempts: config.limits.smsMaxAttempts, now: now),
                                   sessionTokenID: claims.id, sessionExpires: now.plus(config.limits.sessionLifetime),
                                   maxFactors: config.limits.maxFactors, now: now) { (existing) throws(MFAError) in
            // Checked under the user's lock, so two enrollments racing with one number cannot both win.
            guard try !phoneNumbers(of: existing).contains(number) else {
                throw MFAError(.secondFactorExists, "this number is already one of the user's second factors")
            }
        }
        audit(AuditEvent(kind: .enroll, tenant: user.tenantKey, uid: user.uid, factorID: PhoneMultiFactorID,
                         enrollmentID: enrollmentID, time: now))
        return try factorInfo(factor, masked: false)
    }

    /// Checks an enrollment's SMS code; a wrong one is counted against its
    /// verification in the same transaction that judged it.
    private func checkEnrollmentCode(claims: TokenClaims, code: String, limits: MFALimits,
                                     now: Int64) throws(MFAError) -> SMSVerificationRecord {
        let judged = try store.judgeSMSCode(verificationID: claims.reference) { (record) throws(MFAError) -> Bool in
            guard let record, record.purpose == .enrollment else {
                throw MFAError(.invalidSession, "the verification id is unknown or expired")
            }
            try checkSMSState(record, claims: claims, limits: limits, now: now)
            return try smsCodeMatches(record, code: code)
        }
        guard judged.matched, let record = judged.record else {
            throw MFAError(.invalidVerificationCode, judged.attempts >= limits.smsMaxAttempts
                ? "the code is wrong; this verification is now closed" : "the code is wrong")
        }
        return record
    }

    /// Throws unless the verification still accepts a code: it belongs to the
    /// token's user, is unused, has wrong tries left and has not expired.
    func checkSMSState(_ record: SMSVerificationRecord, claims: TokenClaims, limits: MFALimits,
                       now: Int64) throws(MFAError) {
        guard record.tenant == claims.tenant, record.uid == claims.uid else {
            throw MFAError(.invalidSession, "the verification id is unknown or expired")
        }
        guard !record.used else { throw MFAError(.invalidSession, "this code was already used") }
        guard record.attempts < limits.smsMaxAttempts else {
            throw MFAError(.invalidSession, "too many wrong codes for this verification; request a new code")
        }
        guard record.expires >= now, claims.expires >= now else {
            throw MFAError(.codeExpired, "the code has expired; request a new one")
        }
    }

    /// Whether `code` is the verification's code (keyed hashes compared in constant time).
    func smsCodeMatches(_ record: SMSVerificationRecord, code: String) throws(MFAError) -> Bool {
        guard let key = keyring.key(id: record.keyID) else {
            throw MFAError(.crypto, "the code was hashed under a master key that was not given")
        }
        return KeyedHash.equal(Self.codeHash(code, verificationID: record.verificationID, key: key.codesKey),
                               record.codeHash)
    }

    /// Makes, stores (as a keyed hash) and sends a code, within the limits.
    /// Test numbers get their fixed code, never reach the sender and are not counted.
    private func sendCode(to number: String, purpose: SMSVerificationRecord.Purpose, enrollmentID: String?,
                          boundToken: [UInt8], tenant: String, uid: String, config: MFAConfig,
                          now: Int64) throws(MFAError) -> String {
        let verificationID = try random.identifier(bytes: 21)
        let testCode = config.testCode(for: number)
        let code: String
        if let testCode { code = testCode } else { code = Self.sixDigits(try random.uniform(1_000_000)) }
        let sealed = try FactorSealer.seal(Array(number.utf8), id: verificationID, tenant: tenant, keyring: keyring)
        let record = SMSVerificationRecord(
            verificationID: verificationID, tenant: tenant, uid: uid, purpose: purpose, enrollmentID: enrollmentID,
            boundToken: boundToken, keyID: sealed.keyID, sealed: sealed.sealed,
            codeHash: Self.codeHash(code, verificationID: verificationID, key: keyring.current.codesKey),
            expires: now.plus(config.limits.smsCodeLifetime))
        guard testCode == nil else {
            try store.reserveSMS(record, cooldownScopes: [], cooldown: 0, quotas: [], now: now)
            return verificationID
        }
        let limits = config.limits
        // The number's budget is named by a keyed hash (the store never holds
        // the number in the clear); the names under the previous keys count too,
        // so rotating the master key resets no cooldown and no cap.
        let numberScopes = keyring.all.map {
            "number:" + Base64URL.encode(Array(KeyedHash.hash(Array(number.utf8), key: $0.codesKey).prefix(16)))
        }
        try store.reserveSMS(record, cooldownScopes: numberScopes, cooldown: limits.smsResendCooldown, quotas: [
            SMSQuota(scope: numberScopes[0], aliases: Array(numberScopes.dropFirst()), perHour: limits.smsPerNumberHour,
                     perDay: limits.smsPerNumberDay),
            SMSQuota(scope: "user:" + tenant + "\u{1f}" + uid, perHour: limits.smsPerUserHour,
                     perDay: limits.smsPerUserDay),
            SMSQuota(scope: "tenant:" + tenant, perHour: limits.smsPerTenantHour, perDay: limits.smsPerTenantDay),
        ], now: now)
        do throws(MFAError) {
            guard let smsSender else { throw MFAError(.smsSendFailed, "no SMS sender is configured") }
            try smsSender.send(to: number, message: "\(code) is your verification code.")
        } catch {
            try? store.cancelSMS(verificationID: verificationID)
            audit(AuditEvent(kind: .smsSent, tenant: tenant, uid: uid, factorID: PhoneMultiFactorID,
                             enrollmentID: enrollmentID ?? "", time: now, detail: MFAErrorCode.smsSendFailed.name))
            throw error.code == .smsSendFailed ? error : MFAError(.smsSendFailed, "the SMS sender failed")
        }
        audit(AuditEvent(kind: .smsSent, tenant: tenant, uid: uid, factorID: PhoneMultiFactorID,
                         enrollmentID: enrollmentID ?? "", time: now))
        return verificationID
    }

    /// Applies the app verification policy to one SMS request.
    private func verifyApp(_ credential: String?, action: AppVerificationAction, config: MFAConfig) throws(MFAError) {
        guard config.appVerification == .required else { return }
        guard let appVerifier else {
            throw MFAError(.operationNotAllowed,
                           "SMS requests need an app verifier; register one, or set phone.appVerification to DISABLED")
        }
        guard let credential, !credential.isEmpty else {
            throw MFAError(.missingAppCredential, "an app verification credential is required")
        }
        guard credential.utf8.count <= 16384, appVerifier.verify(credential: credential, action: action) else {
            throw MFAError(.invalidAppCredential, "the app verification credential was rejected")
        }
    }

    /// The phone numbers of the user's phone factors.
    private func phoneNumbers(of factors: [FactorRecord]) throws(MFAError) -> [String] {
        var numbers: [String] = []
        for factor in factors where factor.factorID == PhoneMultiFactorID {
            numbers.append(try phoneNumber(of: factor))
        }
        return numbers
    }

    /// The number of a phone factor, decrypted.
    func phoneNumber(of factor: FactorRecord) throws(MFAError) -> String {
        String(decoding: try FactorSealer.open(factor.sealed, keyID: factor.keyID, id: factor.enrollmentID,
                                               tenant: factor.tenant, keyring: keyring), as: UTF8.self)
    }

    /// The stored form of a code: a BLAKE2b hash keyed by the master key and bound to its verification.
    static func codeHash(_ code: String, verificationID: String, key: [UInt8]) -> [UInt8] {
        KeyedHash.hash(Array("libmfa sms code v1".utf8) + [0] + Array(verificationID.utf8) + [0] + Array(code.utf8),
                       key: key)
    }

    private static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }
}
