/// A TOTP assertion: a one-time password for a secret being enrolled, or for
/// an enrolled factor at sign-in.
public struct TOTPMultiFactorAssertion: MultiFactorAssertion {
    /// What the password is for.
    public enum Target: Sendable, Equatable {
        /// A secret being enrolled, named by its `TOTPSecret.sessionInfo`.
        case enrollment(sessionInfo: String)
        /// An enrolled factor, named by its enrollment id.
        case signIn(enrollmentID: String)
        /// The unassigned TOTP hardware token with this serial, claimed by
        /// the user of an enrollment session (`MultiFactorSession.token`).
        case claim(session: String, serial: String)
    }

    /// What the password is for.
    public let target: Target
    /// The code from the authenticator app.
    public let oneTimePassword: String
    /// Always "totp".
    public var factorID: String { TOTPMultiFactorID }

    /// Creates an assertion (usually through `TOTPMultiFactorGenerator`).
    public init(target: Target, oneTimePassword: String) {
        self.target = target
        self.oneTimePassword = oneTimePassword
    }
}
