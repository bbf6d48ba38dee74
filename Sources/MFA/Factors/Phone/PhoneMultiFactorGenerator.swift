/// A proof of a phone factor: the verification id from `verifyPhoneNumber`
/// and the code the user received by SMS.
public struct PhoneAuthCredential: Sendable, Equatable {
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

/// A phone assertion, passed to `MultiFactor.enroll` or `MultiFactorResolver.resolveSignIn`.
public struct PhoneMultiFactorAssertion: MultiFactorAssertion {
    /// The credential.
    public let credential: PhoneAuthCredential
    /// Always "phone".
    public var factorID: String { PhoneMultiFactorID }
}

/// Makes phone assertions, under the seeds' names.
public enum PhoneMultiFactorGenerator {
    /// "phone".
    public static let factorID = PhoneMultiFactorID

    /// An assertion from a phone credential.
    public static func assertion(with credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: credential)
    }
}

/// Sends SMS codes for enrollment and sign-in (the seeds' `PhoneAuthProvider`).
public struct PhoneAuthProvider: Sendable {
    /// The context.
    public let context: MFAContext

    /// The provider of `context`.
    public init(context: MFAContext) {
        self.context = context
    }

    /// Sends a code to a number being enrolled.
    /// - Parameters:
    ///   - phoneNumber: strict E.164.
    ///   - appCredential: the token the client's app verification produced.
    ///   - session: the user's enrollment session.
    /// - Returns: the verification id to combine with the code.
    /// - Throws: `invalidPhoneNumber`, `missingAppCredential`, `invalidAppCredential`,
    ///   `secondFactorExists`, `tooManyAttemptsTryLater` (resend cooldown),
    ///   `quotaExceeded`, `smsSendFailed`, `invalidSession`, `operationNotAllowed`.
    public func verifyPhoneNumber(_ phoneNumber: String, appCredential: String?,
                                  multiFactorSession session: MultiFactorSession) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startPhoneEnrollment(sessionToken: session.token, phoneNumber: phoneNumber,
                                         appCredential: appCredential)
    }

    /// Sends a code to the number of an enrolled factor, chosen from a
    /// resolver's hints; the full number never goes back to the client.
    /// - Throws: as above, plus `mfaEnrollmentNotFound`, `tenantMismatch`.
    public func verifyPhoneNumber(with hint: MultiFactorInfo, appCredential: String?,
                                  resolver: MultiFactorResolver) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startPhoneSignIn(pendingCredential: resolver.session, tenant: resolver.tenant,
                                     enrollmentID: hint.uid, appCredential: appCredential)
    }

    /// Sends a code for the enrolled phone factor `enrollmentID`, given the
    /// pending credential a client sent back (what the C ABI and other
    /// hosts without a resolver object use).
    public func verifyPhoneNumber(withEnrollmentID enrollmentID: String, appCredential: String?,
                                  pendingCredential: String, tenant: String?) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.startPhoneSignIn(pendingCredential: pendingCredential, tenant: tenant,
                                     enrollmentID: enrollmentID, appCredential: appCredential)
    }

    /// The credential made of a verification id and the code the user typed.
    public func credential(withVerificationID verificationID: String,
                           verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(verificationID: verificationID, verificationCode: verificationCode)
    }
}
