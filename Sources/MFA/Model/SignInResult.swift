/// A finished sign-in.
public struct SignInResult: Sendable, Equatable {
    /// The user.
    public let uid: String
    /// The tenant, or nil.
    public let tenant: String?
    /// The second factor used ("totp", "phone"), or nil when none was required.
    public let factorID: String?
    /// The enrollment id of the factor used, or nil.
    public let enrollmentID: String?
    /// When the sign-in finished (Unix seconds).
    public let time: Int64

    /// The claims a host puts in the credential it issues, as the service does:
    /// `sign_in_second_factor` and `second_factor_identifier`.
    public var claims: [(name: String, value: String)] {
        guard let factorID, let enrollmentID else { return [] }
        return [("sign_in_second_factor", factorID), ("second_factor_identifier", enrollmentID)]
    }
}

/// The answer to a first-factor sign-in.
public enum SignInOutcome: Sendable {
    /// No second factor is needed: the user is signed in.
    case signedIn(SignInResult)
    /// The user has second factors: resolve with one of them.
    case secondFactorRequired(MultiFactorResolver)
}
