/// The flows every kind that sends codes shares (phone, email): sending a
/// code within its budgets, checking an enrollment's code, judging a
/// sign-in's. The kinds add what is their own (checking the address, test
/// numbers, app verification, the message) around them.
extension MFAContext {
    /// Sends a code to an address being enrolled by the user of `session`,
    /// within the enrollment budgets: per address across every account
    /// (the anti-pumping budget), per user, per tenant, and the address's
    /// resend cooldown. A `fixedCode` (a test number) passes no budget.
    /// - Parameters:
    ///   - budgetAddress: the address as its budget knows it (an email
    ///     address in lower case, so that spellings share one budget).
    ///   - deliver: sends the code (not called for a fixed code).
    /// - Returns: the verification id, an opaque token bound to the session.
    func sendEnrollmentCode(_ channel: SentCodeChannel, to address: String, budgetAddress: String,
                            session: TokenClaims, config: MFAConfig, now: Int64, fixedCode: String? = nil,
                            deliver: (String) throws(MFAError) -> Void) throws(MFAError) -> String {
        let limits = channel.limits(config)
        let addressScopes = budgetNames(of: budgetAddress, channel)
        let verificationID = try sendCode(
            channel, to: address, purpose: .enrollment, enrollmentID: nil, boundToken: session.id,
            tenant: session.tenant, uid: session.uid, limits: limits, now: now, fixedCode: fixedCode,
            cooldownScopes: addressScopes, quotas: [
                CodeQuota(scope: addressScopes[0], aliases: Array(addressScopes.dropFirst()),
                          perHour: limits.perAddressHour, perDay: limits.perAddressDay),
                CodeQuota(scope: SentCodeChannel.userScope(tenant: session.tenant, uid: session.uid),
                          perHour: limits.perUserHour, perDay: limits.perUserDay),
                CodeQuota(scope: SentCodeChannel.tenantScope(session.tenant), perHour: limits.perTenantHour,
                          perDay: limits.perTenantDay),
            ], deliver: deliver)
        return try OpaqueToken.seal(TokenClaims(purpose: channel.tokenPurpose, id: session.id, tenant: session.tenant,
                                                uid: session.uid, expires: now.plus(limits.codeLifetime),
                                                reference: verificationID, epoch: session.epoch,
                                                parentExpires: session.expires), keyring: keyring)
    }

    /// Sends a sign-in code to the address of the enrolled `factor`. Such
    /// sends have a budget of their own, per factor: no other account's
    /// enrollment requests can spend it.
    /// - Returns: the verification id, an opaque token bound to the pending credential.
    func sendSignInCode(_ channel: SentCodeChannel, to address: String, factor: FactorRecord, claims: TokenClaims,
                        config: MFAConfig, now: Int64, fixedCode: String? = nil,
                        deliver: (String) throws(MFAError) -> Void) throws(MFAError) -> String {
        let limits = channel.limits(config)
        let scope = SentCodeChannel.factorScope(factor.enrollmentID)
        let verificationID = try sendCode(
            channel, to: address, purpose: .signIn, enrollmentID: factor.enrollmentID, boundToken: claims.id,
            tenant: claims.tenant, uid: claims.uid, limits: limits, now: now, fixedCode: fixedCode,
            cooldownScopes: [scope],
            quotas: [CodeQuota(scope: scope, perHour: limits.perFactorHour, perDay: limits.perFactorDay)],
            deliver: deliver)
        return try OpaqueToken.seal(TokenClaims(purpose: channel.tokenPurpose, id: try newTokenID(),
                                                tenant: claims.tenant, uid: claims.uid,
                                                expires: now.plus(limits.codeLifetime),
                                                reference: verificationID, epoch: claims.epoch), keyring: keyring)
    }

    /// Checks an enrollment's code (a wrong one is counted against its
    /// verification) and says what to store: the address, sealed.
    /// - Parameter admit: sees the user's factors and the address under the
    ///   user's lock, and throws to refuse (the address is already one of them).
    func codeEnrollment(_ channel: SentCodeChannel, user: MFAUser, verificationID token: String, code: String,
                        now: Int64, admit: @escaping @Sendable ([FactorRecord], String) throws(MFAError) -> Void)
        throws(MFAError) -> FactorEnrollment {
        let claims = try OpaqueToken.open(token, purpose: channel.tokenPurpose, keyring: keyring)
        try Self.checkOwner(claims, user)
        // A reset removed the code with the revocation: the revocation is the answer.
        try checkNotRevoked(claims, now: now)
        let config = try config(tenant: user.tenant)
        guard config.allows(channel.factorID) else {
            throw MFAError(.operationNotAllowed, "\(channel.factorID) second factors are disabled")
        }
        let limits = channel.limits(config)
        let judged = try channel.judge(verificationID: claims.reference, maxAttempts: limits.maxAttempts,
                                       store) { (record) throws(MFAError) -> Bool in
            guard let record, record.purpose == .enrollment, record.boundToken == claims.id else {
                throw MFAError(.invalidSession, "the verification id is unknown or expired")
            }
            try checkCodeState(record, claims: claims, limits: limits, now: now)
            return try codeMatches(channel, record, code: code)
        }
        guard judged.matched, let record = judged.record else {
            throw MFAError(.invalidVerificationCode, judged.attempts >= limits.maxAttempts
                ? "the code is wrong; this verification is now closed" : "the code is wrong")
        }
        let address = try RecordSealer.open(record.sealed, keyID: record.keyID, record.binding(channel),
                                            keyring: keyring)
        let text = String(decoding: address.array, as: UTF8.self)
        let verificationID = record.verificationID
        let maxAttempts = limits.maxAttempts
        return FactorEnrollment(session: claims, payload: address, write: { (db, _) throws(MFAError) in
            try channel.claim(db, verificationID, maxAttempts: maxAttempts, now: now)
        }, admit: { (existing) throws(MFAError) in try admit(existing, text) })
    }

    /// How a sign-in attempt with a sent code is judged: the verification
    /// names the factor; a wrong code is counted against the verification and
    /// the factor; a right one uses the code up.
    func codeAttempt(_ channel: SentCodeChannel, verificationID token: String, code: String, claims: TokenClaims,
                     now: Int64) throws(MFAError) -> FactorAttempt {
        let verification = try OpaqueToken.open(token, purpose: channel.tokenPurpose, keyring: keyring)
        guard verification.tenant == claims.tenant, verification.uid == claims.uid else {
            throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
        }
        // An expired code says so, even when the pending credential expired with it.
        guard verification.expires >= now else {
            throw MFAError(.codeExpired, "the code has expired; request a new one")
        }
        let found = SentCodeFound()
        return FactorAttempt(enrollmentID: nil, locate: { (db) throws(MFAError) -> String? in
            guard let record = try channel.verification(db, verification.reference), record.boundToken == claims.id,
                  record.purpose == .signIn, let enrollmentID = record.enrollmentID else {
                throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
            }
            found.record = record
            return enrollmentID
        }, judge: { [self] (input) throws(MFAError) -> AttemptVerdict in
            guard let record = found.record, record.enrollmentID == input.factor.enrollmentID else {
                throw MFAError(.invalidSession, "the verification id does not belong to this sign-in")
            }
            let limits = channel.limits(input.config)
            try checkCodeState(record, claims: verification, limits: limits, now: now)
            guard try codeMatches(channel, record, code: code) else {
                return .wrong(message: "the code is wrong", penalty: channel.countWrongCode(
                    record.verificationID, maxAttempts: limits.maxAttempts))
            }
            return .accept(channel.claim(record.verificationID, maxAttempts: limits.maxAttempts, now: now),
                           claims: [])
        })
    }

    /// Throws unless the verification still accepts a code: it belongs to the
    /// token's user, is unused, has wrong tries left and has not expired.
    func checkCodeState(_ record: SentCodeRecord, claims: TokenClaims, limits: SentCodeLimits,
                        now: Int64) throws(MFAError) {
        guard record.tenant == claims.tenant, record.uid == claims.uid else {
            throw MFAError(.invalidSession, "the verification id is unknown or expired")
        }
        guard !record.used else { throw MFAError(.invalidSession, "this code was already used") }
        guard record.attempts < limits.maxAttempts else {
            throw MFAError(.invalidSession, "too many wrong codes for this verification; request a new code")
        }
        guard record.expires >= now, claims.expires >= now else {
            throw MFAError(.codeExpired, "the code has expired; request a new one")
        }
    }

    /// Whether `code` is the verification's code (keyed hashes compared in constant time).
    func codeMatches(_ channel: SentCodeChannel, _ record: SentCodeRecord, code: String) throws(MFAError) -> Bool {
        guard let key = keyring.key(id: record.keyID) else {
            throw MFAError(.crypto, "the code was hashed under a master key that was not given")
        }
        return KeyedHash.equal(Self.codeHash(channel, code, verificationID: record.verificationID,
                                             key: key.codesKey), record.codeHash)
    }

    /// The names of an address's budget under every key of the keyring (the
    /// store never holds the address in the clear; the names under previous
    /// keys count too, so rotating the master key resets no cooldown and no cap).
    private func budgetNames(of address: String, _ channel: SentCodeChannel) -> [String] {
        keyring.all.map {
            channel.addressScope + ":"
                + Base64URL.encode(Array(KeyedHash.hash(Array(address.utf8), key: $0.codesKey).prefix(16)))
        }
    }

    /// Makes, stores (as a keyed hash) and delivers a code, within the
    /// budgets. A fixed code (a test number) is stored without passing any
    /// budget, and never delivered.
    private func sendCode(_ channel: SentCodeChannel, to address: String, purpose: SentCodeRecord.Purpose,
                          enrollmentID: String?, boundToken: [UInt8], tenant: String, uid: String,
                          limits: SentCodeLimits, now: Int64, fixedCode: String?, cooldownScopes: [String],
                          quotas: [CodeQuota], deliver: (String) throws(MFAError) -> Void) throws(MFAError) -> String {
        let verificationID = try random.identifier(bytes: 21)
        let code: String
        if let fixedCode { code = fixedCode } else { code = Self.sixDigits(try random.uniform(1_000_000)) }
        var record = SentCodeRecord(
            verificationID: verificationID, tenant: tenant, uid: uid, purpose: purpose, enrollmentID: enrollmentID,
            boundToken: boundToken, keyID: "", sealed: [],
            codeHash: Self.codeHash(channel, code, verificationID: verificationID, key: keyring.current.codesKey),
            expires: now.plus(limits.codeLifetime))
        (record.keyID, record.sealed) = try RecordSealer.seal(Array(address.utf8), record.binding(channel),
                                                              keyring: keyring)
        guard fixedCode == nil else {
            try channel.reserve(record, cooldownScopes: [], cooldown: 0, quotas: [], now: now, store)
            return verificationID
        }
        try channel.reserve(record, cooldownScopes: cooldownScopes, cooldown: limits.resendCooldown, quotas: quotas,
                            now: now, store)
        do throws(MFAError) {
            try deliver(code)
        } catch {
            try? channel.cancel(verificationID: verificationID, store)
            audit(AuditEvent(kind: channel.sentEvent, tenant: tenant, uid: uid, factorID: channel.factorID,
                             enrollmentID: enrollmentID ?? "", time: now, detail: channel.sendFailure.name))
            throw error.code == channel.sendFailure
                ? error : MFAError(channel.sendFailure, "the \(channel.factorID) code could not be sent")
        }
        audit(AuditEvent(kind: channel.sentEvent, tenant: tenant, uid: uid, factorID: channel.factorID,
                         enrollmentID: enrollmentID ?? "", time: now))
        return verificationID
    }

    /// The stored form of a code: a BLAKE2b hash keyed by the master key and
    /// bound to its channel and its verification.
    static func codeHash(_ channel: SentCodeChannel, _ code: String, verificationID: String,
                         key: SecureBytes) -> [UInt8] {
        KeyedHash.hash(channel.hashLabel + [0] + Array(verificationID.utf8) + [0] + Array(code.utf8), key: key)
    }

    private static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }
}

/// The verification an attempt found while locating its factor, for its judge.
private final class SentCodeFound: @unchecked Sendable {
    var record: SentCodeRecord?
}
