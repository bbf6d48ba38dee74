/// What a host gets when a user with second factors passes the first one:
/// the factors to choose from and a pending credential to finish with.
public struct MultiFactorResolver: Sendable {
    /// The user's factors, phone numbers masked.
    public let hints: [MultiFactorInfo]
    /// The pending credential: opaque, expiring, single-use, bound to user and tenant.
    public let session: String
    /// The tenant the sign-in belongs to, or nil.
    public let tenant: String?
    /// The user signing in.
    public let uid: String
    /// The context that made it.
    public let context: MFAContext

    /// Finishes the sign-in with a second factor.
    /// - Throws: `invalidVerificationCode`, `invalidSession`, `tenantMismatch`,
    ///   `mfaEnrollmentNotFound`, `tooManyAttemptsTryLater`, `storageError`.
    public func resolveSignIn(with assertion: MultiFactorAssertion) throws(MFAError) -> SignInResult {
        try context.resolveSignIn(pendingCredential: session, tenant: tenant, assertion: assertion)
    }
}
