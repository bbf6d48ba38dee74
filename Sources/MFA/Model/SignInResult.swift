/// A finished sign-in.
public struct SignInResult: Sendable, Equatable {
    /// The user.
    public let uid: String
    /// The tenant, or nil.
    public let tenant: String?
    /// The second factor used ("totp", "phone", "recovery"), or nil when none was required.
    public let factorID: String?
    /// The enrollment id of the factor used, or nil.
    public let enrollmentID: String?
    /// When the sign-in finished (Unix seconds).
    public let time: Int64
    /// Claims the factor kind adds (a recovery code adds
    /// `recovery_codes_remaining`), beside the service's two.
    public let factorClaims: [Claim]

    /// One claim: a name and its value.
    public struct Claim: Sendable, Equatable {
        /// The claim's name.
        public let name: String
        /// Its value.
        public let value: String

        /// Creates a claim.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a result.
    public init(uid: String, tenant: String?, factorID: String?, enrollmentID: String?, time: Int64,
                factorClaims: [Claim] = []) {
        self.uid = uid
        self.tenant = tenant
        self.factorID = factorID
        self.enrollmentID = enrollmentID
        self.time = time
        self.factorClaims = factorClaims
    }

    /// The claims a host puts in the credential it issues, as the service does:
    /// `sign_in_second_factor` and `second_factor_identifier`, then the factor's own.
    public var claims: [(name: String, value: String)] {
        guard let factorID, let enrollmentID else { return [] }
        return [("sign_in_second_factor", factorID), ("second_factor_identifier", enrollmentID)]
            + factorClaims.map { ($0.name, $0.value) }
    }
}

/// The answer to a first-factor sign-in.
public enum SignInOutcome: Sendable {
    /// No second factor is needed: the user is signed in.
    case signedIn(SignInResult)
    /// The user has second factors: resolve with one of them.
    case secondFactorRequired(MultiFactorResolver)
}
