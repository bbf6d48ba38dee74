/// The email factor's channel (codes by email, in `mfa_email_verifications`,
/// `mfa_email_sends` and `mfa_email_budgets`) and its flows, on the
/// machinery it shares with SMS (`SentCodeChannel`).
package enum EmailCodes {
    /// The channel.
    package static let channel = SentCodeChannel(
        factorID: EmailMultiFactorID, record: "email", addressScope: "address", tablePrefix: "mfa_email",
        hashLabel: "libmfa email code v1", tokenPurpose: .emailVerification, sentEvent: .emailSent,
        sendFailure: .emailSendFailed) { config in config.emailSettings.limits }

    /// The email track of the schema.
    package static let migrations: [Migration] = [
        // Version 1: the channel's verifications, sends and budgets.
        { d, _ in channel.createTables(d) },
    ]

    /// The subject of every code's email.
    static let subject = "Your verification code"

    /// The body of a code's email.
    static func body(_ code: String, purpose: EmailMessage.Purpose) -> String {
        let why = purpose == .enrollment ? "to add this address as a second factor"
            : "to finish signing in"
        return "\(code) is your verification code \(why). It expires in a few minutes; "
            + "if you did not ask for it, ignore this message.\n"
    }
}

extension MFAContext {
    /// `EmailAuthProvider.sendVerificationCode(to:multiFactorSession:)`.
    func startEmailEnrollment(sessionToken: String, address: String) throws(MFAError) -> String {
        var request = CodeSendRequest()
        return try countedSend(factorID: EmailMultiFactorID, .enrollment, &request) { (request) throws(MFAError) in
            try enrollmentCode(sessionToken: sessionToken, address: address, request: &request)
        }
    }

    /// `EmailAuthProvider.sendVerificationCode(with:resolver:)`.
    func startEmailSignIn(pendingCredential: String, tenant: String?, enrollmentID: String) throws(MFAError) -> String {
        var request = CodeSendRequest(tenant: tenant ?? "")
        return try countedSend(factorID: EmailMultiFactorID, .signIn, &request) { (_) throws(MFAError) in
            try signInCode(pendingCredential: pendingCredential, tenant: tenant, enrollmentID: enrollmentID)
        }
    }

    /// `startEmailEnrollment`, uncounted.
    private func enrollmentCode(sessionToken: String, address: String,
                                request: inout CodeSendRequest) throws(MFAError) -> String {
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        request.tenant = session.tenant
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(EmailMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "email second factors are disabled")
        }
        try EmailAddress.check(address)
        let normalized = EmailAddress.normalized(address)
        let existing = try store.factors(tenant: session.tenant, uid: session.uid)
        try Self.checkFactorLimit(existing, config)
        try checkNewAddress(normalized, existing)
        return try sendEnrollmentCode(EmailCodes.channel, to: normalized,
                                      budgetAddress: EmailAddress.comparable(normalized), session: session,
                                      config: config, now: now) { (code) throws(MFAError) in
            try sendEmail(code, to: normalized, purpose: .enrollment)
        }
    }

    /// `startEmailSignIn`, uncounted.
    private func signInCode(pendingCredential: String, tenant: String?, enrollmentID: String) throws(MFAError) -> String {
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now)
        let view = try store.attemptSnapshot(enrollmentID: enrollmentID, tenant: claims.tenant, uid: claims.uid,
                                             tokenID: claims.id)
        let (factor, config) = try admit(view, claims: claims, kind: EmailFactor.self, now: now)
        let address = try emailAddress(of: factor)
        return try sendSignInCode(EmailCodes.channel, to: address, factor: factor, claims: claims, config: config,
                                  now: now) { (code) throws(MFAError) in
            try sendEmail(code, to: address, purpose: .signIn)
        }
    }

    /// Checks an enrollment's email code and says what to store.
    func emailEnrollment(user: MFAUser, credential: EmailAuthCredential, now: Int64) throws(MFAError) -> FactorEnrollment {
        try codeEnrollment(EmailCodes.channel, user: user, verificationID: credential.verificationID,
                           code: credential.verificationCode, now: now) { [self] (existing, address) throws(MFAError) in
            // Under the user's lock: two enrollments racing with one address cannot both win.
            try checkNewAddress(address, existing)
        }
    }

    /// Enrolls the user's verified sign-in address without a code, when the
    /// configuration allows it.
    func verifiedEmailEnrollment(user: MFAUser, sessionToken: String, now: Int64) throws(MFAError) -> FactorEnrollment {
        let config = try config(tenant: user.tenant)
        guard config.allows(EmailMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "email second factors are disabled")
        }
        guard config.emailSettings.enrollVerifiedSignInEmail else {
            throw MFAError(.operationNotAllowed,
                           "enrolling the sign-in address without a code is off (email.enrollVerifiedSignInEmail)")
        }
        guard user.emailVerified, let email = user.email else {
            throw MFAError(.unverifiedEmail, "the user's sign-in address is not verified")
        }
        try EmailAddress.check(email)
        let address = EmailAddress.normalized(email)
        let session = try openSession(sessionToken, now: now)
        try Self.checkOwner(session, user)
        let payload = try withBytes(of: Array(address.utf8)) { (buffer) throws(MFAError) in
            try SecureBytes(copying: buffer)
        }
        var enrollment = FactorEnrollment(session: session, payload: payload,
                                          write: { _, _ in }, admit: { [self] (existing) throws(MFAError) in
            try checkNewAddress(address, existing)
        })
        enrollment.detail = "VERIFIED_SIGN_IN_EMAIL"
        return enrollment
    }

    /// How an email sign-in attempt is judged (`codeAttempt` on the email channel).
    func emailAttempt(_ credential: EmailAuthCredential, claims: TokenClaims,
                      now: Int64) throws(MFAError) -> FactorAttempt {
        try codeAttempt(EmailCodes.channel, verificationID: credential.verificationID,
                        code: credential.verificationCode, claims: claims, now: now)
    }

    /// The address of an email factor, decrypted.
    func emailAddress(of factor: FactorRecord) throws(MFAError) -> String {
        String(decoding: try openPayload(of: factor).array, as: UTF8.self)
    }

    /// Throws `secondFactorExists` if `address` (in any case) is one of the user's email factors.
    private func checkNewAddress(_ address: String, _ factors: [FactorRecord]) throws(MFAError) {
        let wanted = EmailAddress.comparable(address)
        for factor in factors where factor.factorID == EmailMultiFactorID {
            guard try EmailAddress.comparable(emailAddress(of: factor)) != wanted else {
                throw MFAError(.secondFactorExists, "this address is already one of the user's second factors")
            }
        }
    }

    /// Sends one code by email through the host's sender.
    private func sendEmail(_ code: String, to address: String, purpose: EmailMessage.Purpose) throws(MFAError) {
        guard let emailSender else { throw MFAError(.emailSendFailed, "no email sender is configured") }
        do throws(MFAError) {
            try emailSender.send(EmailMessage(to: address, subject: EmailCodes.subject,
                                              body: EmailCodes.body(code, purpose: purpose), code: code,
                                              purpose: purpose))
        } catch {
            throw error.code == .emailSendFailed ? error : MFAError(.emailSendFailed, "the email sender failed")
        }
    }
}
