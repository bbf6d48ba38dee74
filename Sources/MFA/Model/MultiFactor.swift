/// A user's second factors: list, enroll, unenroll (the seeds' `user.multiFactor`).
public struct MultiFactor: Sendable {
    /// The user, as the host reports them.
    public let user: MFAUser
    /// The context.
    public let context: MFAContext

    /// Creates the view of `user`'s factors in `context`.
    public init(user: MFAUser, context: MFAContext) {
        self.user = user
        self.context = context
    }

    /// The enrolled factors, oldest first, phone numbers in full.
    public func enrolledFactors() throws(MFAError) -> [MultiFactorInfo] {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.enrolledFactors(of: user)
    }

    /// A session for enrolling a new factor.
    /// - Throws: `operationNotAllowed` (MFA disabled), `unsupportedFirstFactor`,
    ///   `unverifiedEmail`, `requiresRecentLogin`, `secondFactorLimitExceeded`.
    public func session() throws(MFAError) -> MultiFactorSession {
        let call = CallBudget.begin()
        defer { call.end() }
        return MultiFactorSession(token: try context.newSession(for: user), context: context)
    }

    /// Finishes an enrollment.
    /// - Parameters:
    ///   - assertion: from `TOTPMultiFactorGenerator.assertionForEnrollment` (or the phone generator).
    ///   - displayName: an optional name for the factor, at most 256 bytes.
    /// - Returns: the new factor.
    /// - Throws: `invalidVerificationCode` (the user may retry), `codeExpired`,
    ///   `invalidSession`, `secondFactorLimitExceeded`, `secondFactorExists`.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) throws(MFAError) -> MultiFactorInfo {
        let call = CallBudget.begin()
        defer { call.end() }
        return try context.enroll(user: user, assertion: assertion, displayName: displayName)
    }

    /// Removes the factor with this enrollment id; revokes earlier credentials.
    /// - Throws: `requiresRecentLogin`, `mfaEnrollmentNotFound`.
    public func unenroll(withFactorUID factorUID: String) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        try context.unenroll(user: user, enrollmentID: factorUID)
    }

    /// Removes this factor; revokes earlier credentials.
    public func unenroll(with factorInfo: MultiFactorInfo) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        try unenroll(withFactorUID: factorInfo.uid)
    }
}
