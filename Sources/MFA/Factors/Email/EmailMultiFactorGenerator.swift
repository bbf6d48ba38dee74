/// A proof of an email factor: the verification id from
/// `EmailAuthProvider.sendVerificationCode` and the code the user received.
public struct EmailAuthCredential: Sendable, Equatable {
    /// The opaque verification id.
    public let verificationID: String
    /// The six-digit code.
    public let verificationCode: String

    /// Creates a credential.
    public init(verificationID: String, verificationCode: String) {
        self.verificationID = verificationID
        self.verificationCode = verificationCode
    }
}

/// An email assertion, passed to `MultiFactor.enroll` or
/// `MultiFactorResolver.resolveSignIn`: a code sent to the address, or (to
/// enroll only, when the configuration allows it) the user's verified
/// sign-in address with an enrollment session.
public struct EmailMultiFactorAssertion: MultiFactorAssertion {
    /// The code and its verification id, or nil for the verified sign-in address.
    public let credential: EmailAuthCredential?
    /// The enrollment session that enrolls the verified sign-in address, or nil.
    public let session: String?
    /// Always "email".
    public var factorID: String { EmailMultiFactorID }
}

/// Makes email assertions.
public enum EmailMultiFactorGenerator {
    /// "email".
    public static let factorID = EmailMultiFactorID

    /// An assertion from an email credential (a code sent to the address).
    public static func assertion(with credential: EmailAuthCredential) -> EmailMultiFactorAssertion {
        EmailMultiFactorAssertion(credential: credential, session: nil)
    }

    /// An assertion that enrolls the user's sign-in address, which the host
    /// says is verified (`MFAUser.emailVerified`), without sending a code:
    /// only when the configuration sets `email.enrollVerifiedSignInEmail`.
    public static func assertionForVerifiedSignInEmail(session: MultiFactorSession) -> EmailMultiFactorAssertion {
        EmailMultiFactorAssertion(credential: nil, session: session.token)
    }

    /// The same, from a session token a client sent back.
    public static func assertionForVerifiedSignInEmail(sessionToken: String) -> EmailMultiFactorAssertion {
        EmailMultiFactorAssertion(credential: nil, session: sessionToken)
    }
}

/// Sends email codes for enrollment and sign-in, through the context's `EmailSender`.
public struct EmailAuthProvider: Sendable {
    /// The context.
    public let context: MFAContext

    /// The provider of `context`.
    public init(context: MFAContext) {
        self.context = context
    }

    /// Sends a code to an address being enrolled.
    /// - Parameters:
    ///   - address: see `EmailAddress` (no display name, ASCII).
    ///   - session: the user's enrollment session.
    /// - Returns: the verification id to combine with the code.
    /// - Throws: `invalidEmail`, `secondFactorExists`, `secondFactorLimitExceeded`,
    ///   `tooManyAttemptsTryLater` (resend cooldown), `quotaExceeded`,
    ///   `emailSendFailed`, `invalidSession`, `userTokenExpired`, `operationNotAllowed`.
    public func sendVerificationCode(to address: String,
                                     multiFactorSession session: MultiFactorSession) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startEmailEnrollment(sessionToken: session.token, address: address)
    }

    /// Sends a code to the address of an enrolled factor, chosen from a
    /// resolver's hints; the full address never goes back to the client.
    /// - Throws: as above, plus `mfaEnrollmentNotFound`, `tenantMismatch`.
    public func sendVerificationCode(with hint: MultiFactorInfo,
                                     resolver: MultiFactorResolver) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startEmailSignIn(pendingCredential: resolver.session, tenant: resolver.tenant,
                                            enrollmentID: hint.uid)
    }

    /// Sends a code for the enrolled email factor `enrollmentID`, given the
    /// pending credential a client sent back.
    public func sendVerificationCode(withEnrollmentID enrollmentID: String, pendingCredential: String,
                                     tenant: String?) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startEmailSignIn(pendingCredential: pendingCredential, tenant: tenant,
                                            enrollmentID: enrollmentID)
    }

    /// The credential made of a verification id and the code the user typed.
    public func credential(withVerificationID verificationID: String,
                           verificationCode: String) -> EmailAuthCredential {
        EmailAuthCredential(verificationID: verificationID, verificationCode: verificationCode)
    }
}
