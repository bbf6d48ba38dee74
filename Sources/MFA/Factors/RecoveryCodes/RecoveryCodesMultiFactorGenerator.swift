/// A freshly generated recovery-code set: show `codes` to the user once;
/// libmfa keeps only their hashes.
public struct RecoveryCodes: Sendable {
    /// The codes, `xxxx-xxxx-xx`.
    public let codes: [String]
    /// The set as a factor (its hint says how many codes are left).
    public let factor: MultiFactorInfo
}

/// A recovery code, passed to `MultiFactorResolver.resolveSignIn`.
public struct RecoveryCodeMultiFactorAssertion: MultiFactorAssertion {
    /// The set's enrollment id (from its hint), or nil for the user's set.
    public let enrollmentID: String?
    /// The code the user typed (any case; dashes and spaces ignored).
    public let code: String
    /// Always "recovery".
    public var factorID: String { RecoveryCodesMultiFactorID }
}

/// Makes recovery-code sets and assertions, in the seeds' style.
public enum RecoveryCodesMultiFactorGenerator {
    /// "recovery".
    public static let factorID = RecoveryCodesMultiFactorID

    /// Generates a new set for the user of `session` (an enrollment session,
    /// like any enrollment), replacing the previous set. The user's earlier
    /// credentials are revoked, as by any enrollment.
    /// - Parameters:
    ///   - session: from `MultiFactor.session()`.
    ///   - displayName: an optional name for the set.
    /// - Throws: `operationNotAllowed` (recovery codes disabled), `invalidSession`,
    ///   `userTokenExpired`, `storageError`.
    public static func generateCodes(with session: MultiFactorSession,
                                     displayName: String? = nil) throws(MFAError) -> RecoveryCodes {
        let call = CallBudget.begin()
        defer { call.end() }
        return try session.context.generateRecoveryCodes(sessionToken: session.token, displayName: displayName)
    }

    /// An assertion that resolves a sign-in with a recovery code.
    /// - Parameters:
    ///   - enrollmentID: the set's id from the hints, or nil.
    ///   - code: what the user typed.
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String? = nil,
                                          code: String) -> RecoveryCodeMultiFactorAssertion {
        RecoveryCodeMultiFactorAssertion(enrollmentID: enrollmentID, code: code)
    }
}

extension SignInResult {
    /// Whether the user signed in with a recovery code (the host should warn
    /// them and offer a new set; `recovery_codes_remaining` says how many are left).
    public var usedRecoveryCode: Bool { factorID == RecoveryCodesMultiFactorID }
}
