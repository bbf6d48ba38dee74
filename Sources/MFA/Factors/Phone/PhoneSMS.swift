extension MFAContext {
    /// `PhoneAuthProvider.verifyPhoneNumber(_:appCredential:multiFactorSession:)`.
    func startPhoneEnrollment(sessionToken: String, phoneNumber: String,
                              appCredential: String?) throws(MFAError) -> String {
        var request = CodeSendRequest()
        return try countedSend(factorID: PhoneMultiFactorID, .enrollment, &request) { (request) throws(MFAError) in
            try enrollmentCode(sessionToken: sessionToken, phoneNumber: phoneNumber, appCredential: appCredential,
                               request: &request)
        }
    }

    /// `PhoneAuthProvider.verifyPhoneNumber(with:appCredential:resolver:)`.
    func startPhoneSignIn(pendingCredential: String, tenant: String?, enrollmentID: String,
                          appCredential: String?) throws(MFAError) -> String {
        var request = CodeSendRequest(tenant: tenant ?? "")
        return try countedSend(factorID: PhoneMultiFactorID, .signIn, &request) { (request) throws(MFAError) in
            try signInCode(pendingCredential: pendingCredential, tenant: tenant, enrollmentID: enrollmentID,
                           appCredential: appCredential, request: &request)
        }
    }

    /// `startPhoneEnrollment`, uncounted.
    private func enrollmentCode(sessionToken: String, phoneNumber: String, appCredential: String?,
                                request: inout CodeSendRequest) throws(MFAError) -> String {
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
        let fixedCode = config.testCode(for: phoneNumber)
        let verificationID = try sendEnrollmentCode(SMSStore.channel, to: phoneNumber, budgetAddress: phoneNumber,
                                                    session: session, config: config, now: now, fixedCode: fixedCode) {
            (code) throws(MFAError) in try sendSMS(code, to: phoneNumber)
        }
        request.fixedCode = fixedCode != nil
        return verificationID
    }

    /// `startPhoneSignIn`, uncounted.
    private func signInCode(pendingCredential: String, tenant: String?, enrollmentID: String, appCredential: String?,
                            request: inout CodeSendRequest) throws(MFAError) -> String {
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let view = try store.attemptSnapshot(enrollmentID: enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                             tokenID: claims.id)
        let (factor, config) = try admit(view, claims: claims, kind: PhoneFactor.self, now: now)
        try verifyApp(appCredential, action: .signIn, config: config)
        let number = try phoneNumber(of: factor)
        let fixedCode = config.testCode(for: number)
        let verificationID = try sendSignInCode(SMSStore.channel, to: number, factor: factor, claims: claims,
                                                config: config, now: now, fixedCode: fixedCode) {
            (code) throws(MFAError) in try sendSMS(code, to: number)
        }
        request.fixedCode = fixedCode != nil
        return verificationID
    }

    /// Checks an enrollment's SMS code (a wrong one is counted against its
    /// verification in the same transaction that judged it) and says what to store.
    func phoneEnrollment(user: MFAUser, credential: PhoneAuthCredential,
                         now: Int64) throws(MFAError) -> FactorEnrollment {
        try codeEnrollment(SMSStore.channel, user: user, verificationID: credential.verificationID,
                           code: credential.verificationCode, now: now) { [self] (existing, number) throws(MFAError) in
            // Checked under the user's lock, so two enrollments racing with one number cannot both win.
            guard try !phoneNumbers(of: existing).contains(number) else {
                throw MFAError(.secondFactorExists, "this number is already one of the user's second factors")
            }
        }
    }

    /// How a phone sign-in attempt is judged (`codeAttempt` on the SMS channel).
    func phoneAttempt(_ credential: PhoneAuthCredential, claims: TokenClaims,
                      now: Int64) throws(MFAError) -> FactorAttempt {
        try codeAttempt(SMSStore.channel, verificationID: credential.verificationID,
                        code: credential.verificationCode, claims: claims, now: now)
    }

    /// Sends one code by SMS through the host's sender.
    private func sendSMS(_ code: String, to number: String) throws(MFAError) {
        guard let smsSender else { throw MFAError(.smsSendFailed, "no SMS sender is configured") }
        do throws(MFAError) {
            try smsSender.send(to: number, message: "\(code) is your verification code.")
        } catch {
            throw error.code == .smsSendFailed ? error : MFAError(.smsSendFailed, "the SMS sender failed")
        }
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
}
