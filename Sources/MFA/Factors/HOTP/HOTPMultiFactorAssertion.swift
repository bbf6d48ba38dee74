/// An HOTP assertion: a code from an event-based token, to sign in with
/// an enrolled factor, or to claim a token an operator imported unassigned.
public struct HOTPMultiFactorAssertion: MultiFactorAssertion {
    /// What the code is for.
    public enum Target: Sendable, Equatable {
        /// An enrolled factor, named by its enrollment id.
        case signIn(enrollmentID: String)
        /// The unassigned token with this serial, claimed by the user of an
        /// enrollment session (`MultiFactorSession.token`).
        case claim(session: String, serial: String)
    }

    /// What the code is for.
    public let target: Target
    /// The code the token shows.
    public let oneTimePassword: String
    /// The code the token shows at the next press, for a resynchronization
    /// of a token pressed beyond the look-ahead window; nil otherwise.
    public let nextOneTimePassword: String?
    /// Always "hotp".
    public var factorID: String { HOTPMultiFactorID }

    /// Creates an assertion (usually through `HOTPMultiFactorGenerator`).
    public init(target: Target, oneTimePassword: String, nextOneTimePassword: String? = nil) {
        self.target = target
        self.oneTimePassword = oneTimePassword
        self.nextOneTimePassword = nextOneTimePassword
    }
}

/// Makes HOTP assertions, in the seeds' style.
public enum HOTPMultiFactorGenerator {
    /// "hotp".
    public static let factorID = HOTPMultiFactorID

    /// An assertion that resolves a sign-in with the enrolled token
    /// `enrollmentID`; with `nextOneTimePassword`, the code of the press
    /// after, it also resynchronizes a token pressed many times away from
    /// the server (up to the configuration's `hotp.resyncWindow`).
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String,
                                          nextOneTimePassword: String? = nil) -> HOTPMultiFactorAssertion {
        HOTPMultiFactorAssertion(target: .signIn(enrollmentID: enrollmentID), oneTimePassword: oneTimePassword,
                                 nextOneTimePassword: nextOneTimePassword)
    }

    /// An assertion that enrolls the unassigned token `serial` for the user
    /// of `session`, proved by a code it shows (and, for a token pressed
    /// away from the server, the next one).
    public static func assertionForEnrollment(with session: MultiFactorSession, serial: String,
                                              oneTimePassword: String,
                                              nextOneTimePassword: String? = nil) -> HOTPMultiFactorAssertion {
        HOTPMultiFactorAssertion(target: .claim(session: session.token, serial: serial),
                                 oneTimePassword: oneTimePassword, nextOneTimePassword: nextOneTimePassword)
    }
}
