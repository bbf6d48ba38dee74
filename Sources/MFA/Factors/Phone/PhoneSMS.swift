import Glibc

extension MFAContext {
    /// `PhoneAuthProvider.verifyPhoneNumber(_:appCredential:multiFactorSession:)`.
    func startPhoneEnrollment(sessionToken: String, phoneNumber: String,
                              appCredential: String?) throws(MFAError) -> String {
        var request = SendRequest()
        return try counted(.enrollment, &request) { (request) throws(MFAError) in
            try enrollmentCode(sessionToken: sessionToken, phoneNumber: phoneNumber, appCredential: appCredential,
                               request: &request)
        }
    }

    /// `PhoneAuthProvider.verifyPhoneNumber(with:appCredential:resolver:)`.
    func startPhoneSignIn(pendingCredential: String, tenant: String?, enrollmentID: String,
                          appCredential: String?) throws(MFAError) -> String {
        var request = SendRequest(tenant: tenant ?? "")
        return try counted(.signIn, &request) { (request) throws(MFAError) in
            try signInCode(pendingCredential: pendingCredential, tenant: tenant, enrollmentID: enrollmentID,
                           appCredential: appCredential, request: &request)
        }
    }

    /// Runs a request for a code and counts how it ended (`libmfa_code_sends_total`).
    private func counted(_ purpose: SendPurpose, _ request: inout SendRequest,
                         _ body: (inout SendRequest) throws(MFAError) -> String) throws(MFAError) -> String {
        do {
            let verificationID = try body(&request)
            metrics.codeSend(factorID: PhoneMultiFactorID, purpose, request.testNumber ? .testNumber : .sent,
                             tenant: request.tenant)
            return verificationID
        } catch {
            metrics.codeSend(factorID: PhoneMultiFactorID, purpose, SendOutcome(error.code), tenant: request.tenant)
            throw error
        }
    }

    /// `startPhoneEnrollment`, uncounted.
    private func enrollmentCode(sessionToken: String, phoneNumber: String, appCredential: String?,
                                request: inout SendRequest) throws(MFAError) -> String {
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        request.tenant = session.tenant
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(PhoneMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "phone second factors are disabled")
        }
        try PhoneNumber.check(phoneNumber)
        try verifyApp(appCredential, action: .enrollment, config: config)
        let existing = try store.factors(tenant: session.tenant, uid: session.uid)
        try Self.checkFactorLimit(existing, config)
        guard try !phoneNumbers(of: existing).contains(phoneNumber) else {
            throw MFAError(.secondFactorExists, "this number is already one of the user's second factors")
        }
        let limits = config.limits
        let numberScopes = budgetNames(of: phoneNumber)
        // Enrollment sends are the anti-pumping budgets: per number across
        // every account, per user, per tenant.
        let verificationID = try sendCode(
            to: phoneNumber, purpose: .enrollment, enrollmentID: nil, boundToken: session.id, tenant: session.tenant,
            uid: session.uid, config: config, now: now, request: &request, cooldownScopes: numberScopes, quotas: [
                SMSQuota(scope: numberScopes[0], aliases: Array(numberScopes.dropFirst()),
                         perHour: limits.smsPerNumberHour, perDay: limits.smsPerNumberDay),
                SMSQuota(scope: "user:" + session.tenant + "\u{1f}" + session.uid, perHour: limits.smsPerUserHour,
                         perDay: limits.smsPerUserDay),
                SMSQuota(scope: "tenant:" + session.tenant, perHour: limits.smsPerTenantHour,
                         perDay: limits.smsPerTenantDay),
            ])
        return try OpaqueToken.seal(TokenClaims(purpose: .phoneVerification, id: session.id, tenant: session.tenant,
                                                uid: session.uid, expires: now.plus(limits.smsCodeLifetime),
                                                reference: verificationID, epoch: session.epoch,
                                                parentExpires: session.expires), keyring: keyring)
    }

    /// `startPhoneSignIn`, uncounted.
    private func signInCode(pendingCredential: String, tenant: String?, enrollmentID: String, appCredential: String?,
                            request: inout SendRequest) throws(MFAError) -> String {
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let view = try store.attemptSnapshot(enrollmentID: enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                             tokenID: claims.id)
        let (factor, config) = try admit(view, claims: claims, kind: PhoneFactor.self, now: now)
        try verifyApp(appCredential, action: .signIn, config: config)
        let number = try phoneNumber(of: factor)
        let limits = config.limits
        // Sign-in sends to an enrolled number have a budget of their own, per
        // factor: no other account's enrollment requests can spend it.
        let scope = "factor:" + factor.enrollmentID
        let verificationID = try sendCode(
            to: number, purpose: .signIn, enrollmentID: factor.enrollmentID, boundToken: claims.id,
            tenant: claims.tenant, uid: claims.uid, config: config, now: now, request: &request, cooldownScopes: [scope],
            quotas: [SMSQuota(scope: scope, perHour: limits.smsPerFactorHour, perDay: limits.smsPerFactorDay)])
        return try OpaqueToken.seal(TokenClaims(purpose: .phoneVerification, id: try newTokenID(),
                                                tenant: claims.tenant, uid: claims.uid,
                                                expires: now.plus(limits.smsCodeLifetime),
                                                reference: verificationID, epoch: claims.epoch), keyring: keyring)
    }

    /// Checks an enrollment's SMS code (a wrong one is counted against its
    /// verification in the same transaction that judged it) and says what to store.
    func phoneEnrollment(user: MFAUser, credential: PhoneAuthCredential,
                         now: Int64) throws(MFAError) -> FactorEnrollment {
        let claims = try OpaqueToken.open(credential.verificationID, purpose: .phoneVerification, keyring: keyring)
        try Self.checkOwner(claims, user)
        // A reset removed the SMS code with the revocation: the revocation is the answer.
        try checkNotRevoked(claims, now: now)
        let config = try config(tenant: user.tenant)
        guard config.allows(PhoneMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "phone second factors are disabled")
        }
        let limits = config.limits
        let judged = try SMSStore.judge(verificationID: claims.reference, maxAttempts: limits.smsMaxAttempts,
                                        store) { (record) throws(MFAError) -> Bool in
            guard let record, record.purpose == .enrollment, record.boundToken == claims.id else {
                throw MFAError(.invalidSession, "the verification id is unknown or expired")
            }
            try checkSMSState(record, claims: claims, limits: limits, now: now)
            return try smsCodeMatches(record, code: credential.verificationCode)
        }
        guard judged.matched, let record = judged.record else {
            throw MFAError(.invalidVerificationCode, judged.attempts >= limits.smsMaxAttempts
                ? "the code is wrong; this verification is now closed" : "the code is wrong")
        }
        let number = try RecordSealer.open(record.sealed, keyID: record.keyID, record.binding, keyring: keyring)
        let text = String(decoding: number.array, as: UTF8.self)
        let verificationID = record.verificationID
        let maxAttempts = limits.smsMaxAttempts
        return FactorEnrollment(session: claims, payload: number, write: { (db, _) throws(MFAError) in
            try SMSStore.claim(db, verificationID, maxAttempts: maxAttempts, now: now)
        }, admit: { [self] (existing) throws(MFAError) in
            // Checked under the user's lock, so two enrollments racing with one number cannot both win.
            guard try !phoneNumbers(of: existing).contains(text) else {
                throw MFAError(.secondFactorExists, "this number is already one of the user's second factors")
            }
        })
    }

    /// How a phone sign-in attempt is judged: the verification names the
    /// factor; a wrong code is counted against the verification and the
    /// factor; a right one uses the code up.
    func phoneAttempt(_ credential: PhoneAuthCredential, claims: TokenClaims,
                      now: Int64) throws(MFAError) -> FactorAttempt {
        let verification = try OpaqueToken.open(credential.verificationID, purpose: .phoneVerification,
                                                keyring: keyring)
        guard verification.tenant == claims.tenant, verification.uid == claims.uid else {
            throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
        }
        // An expired code says so, even when the pending credential expired with it.
        guard verification.expires >= now else {
            throw MFAError(.codeExpired, "the code has expired; request a new one")
        }
        let found = SMSFound()
        return FactorAttempt(enrollmentID: nil, locate: { (db) throws(MFAError) -> String? in
            guard let record = try SMSStore.verification(db, verification.reference), record.boundToken == claims.id,
                  record.purpose == .signIn, let enrollmentID = record.enrollmentID else {
                throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
            }
            found.record = record
            return enrollmentID
        }, judge: { [self] (input) throws(MFAError) -> AttemptVerdict in
            guard let record = found.record, record.enrollmentID == input.factor.enrollmentID else {
                throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
            }
            let limits = input.config.limits
            try checkSMSState(record, claims: verification, limits: limits, now: now)
            guard try smsCodeMatches(record, code: credential.verificationCode) else {
                return .wrong(message: "the code is wrong", penalty: SMSStore.countWrongCode(
                    record.verificationID, maxAttempts: limits.smsMaxAttempts))
            }
            return .accept(SMSStore.claim(record.verificationID, maxAttempts: limits.smsMaxAttempts, now: now),
                           claims: [])
        })
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

    /// The names of a number's budget under every key of the keyring (the
    /// store never holds the number in the clear; the names under previous
    /// keys count too, so rotating the master key resets no cooldown and no cap).
    private func budgetNames(of number: String) -> [String] {
        keyring.all.map {
            "number:" + Base64URL.encode(Array(KeyedHash.hash(Array(number.utf8), key: $0.codesKey).prefix(16)))
        }
    }

    /// Makes, stores (as a keyed hash) and sends a code, within the budgets.
    /// Test numbers get their fixed code, never reach the sender and are not counted.
    private func sendCode(to number: String, purpose: SMSVerificationRecord.Purpose, enrollmentID: String?,
                          boundToken: [UInt8], tenant: String, uid: String, config: MFAConfig, now: Int64,
                          request: inout SendRequest, cooldownScopes: [String],
                          quotas: [SMSQuota]) throws(MFAError) -> String {
        let verificationID = try random.identifier(bytes: 21)
        let testCode = config.testCode(for: number)
        let code: String
        if let testCode { code = testCode } else { code = Self.sixDigits(try random.uniform(1_000_000)) }
        var record = SMSVerificationRecord(
            verificationID: verificationID, tenant: tenant, uid: uid, purpose: purpose, enrollmentID: enrollmentID,
            boundToken: boundToken, keyID: "", sealed: [],
            codeHash: Self.codeHash(code, verificationID: verificationID, key: keyring.current.codesKey),
            expires: now.plus(config.limits.smsCodeLifetime))
        (record.keyID, record.sealed) = try RecordSealer.seal(Array(number.utf8), record.binding, keyring: keyring)
        guard testCode == nil else {
            request.testNumber = true
            try SMSStore.reserve(record, cooldownScopes: [], cooldown: 0, quotas: [], now: now, store)
            return verificationID
        }
        try SMSStore.reserve(record, cooldownScopes: cooldownScopes, cooldown: config.limits.smsResendCooldown,
                             quotas: quotas, now: now, store)
        do throws(MFAError) {
            guard let smsSender else { throw MFAError(.smsSendFailed, "no SMS sender is configured") }
            try smsSender.send(to: number, message: "\(code) is your verification code.")
        } catch {
            try? SMSStore.cancel(verificationID: verificationID, store)
            audit(AuditEvent(kind: .smsSent, tenant: tenant, uid: uid, factorID: PhoneMultiFactorID,
                             enrollmentID: enrollmentID ?? "", time: now, detail: MFAErrorCode.smsSendFailed.name),
                             config: config)
            throw error.code == .smsSendFailed ? error : MFAError(.smsSendFailed, "the SMS sender failed")
        }
        audit(AuditEvent(kind: .smsSent, tenant: tenant, uid: uid, factorID: PhoneMultiFactorID,
                         enrollmentID: enrollmentID ?? "", time: now), config: config)
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
        String(decoding: try openPayload(of: factor).array, as: UTF8.self)
    }

    /// The stored form of a code: a BLAKE2b hash keyed by the master key and bound to its verification.
    static func codeHash(_ code: String, verificationID: String, key: SecureBytes) -> [UInt8] {
        KeyedHash.hash(Array("libmfa sms code v1".utf8) + [0] + Array(verificationID.utf8) + [0] + Array(code.utf8),
                       key: key)
    }

    private static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }
}

/// What the metrics learn of a request for a code as it runs.
private struct SendRequest {
    /// The tenant ("" for the project), once known.
    var tenant = ""
    /// Whether the number is a configured test number (nothing is sent).
    var testNumber = false
}

/// The verification a phone attempt found while locating its factor, for its judge.
private final class SMSFound: @unchecked Sendable {
    var record: SMSVerificationRecord?
}
