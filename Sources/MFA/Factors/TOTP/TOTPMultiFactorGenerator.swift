/// Makes TOTP secrets and assertions, under the seeds' names.
public enum TOTPMultiFactorGenerator {
    /// "totp".
    public static let factorID = TOTPMultiFactorID

    /// Generates a secret for the user of `session` and keeps it, encrypted,
    /// until the enrollment is finished or its deadline passes.
    /// - Throws: `invalidSession`, `operationNotAllowed` (TOTP disabled),
    ///   `storageError`.
    public static func generateSecret(with session: MultiFactorSession) throws(MFAError) -> TOTPSecret {
        let call = CallBudget.begin()
        defer { call.end() }
        return try session.context.generateTOTPSecret(sessionToken: session.token)
    }

    /// An assertion that finishes enrolling `secret` with a code from the app.
    public static func assertionForEnrollment(with secret: TOTPSecret,
                                              oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(target: .enrollment(sessionInfo: secret.sessionInfo), oneTimePassword: oneTimePassword)
    }

    /// An assertion that enrolls the unassigned TOTP hardware token `serial`
    /// (imported by an operator) for the user of `session`, proved by the
    /// code it shows.
    public static func assertionForEnrollment(with session: MultiFactorSession, serial: String,
                                              oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(target: .claim(session: session.token, serial: serial),
                                 oneTimePassword: oneTimePassword)
    }

    /// An assertion that resolves a sign-in with the enrolled factor `enrollmentID`.
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String,
                                          oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(target: .signIn(enrollmentID: enrollmentID), oneTimePassword: oneTimePassword)
    }
}
