/// Proof of a second factor, passed to `MultiFactor.enroll` or
/// `MultiFactorResolver.resolveSignIn`. Each factor kind has its own
/// (`TOTPMultiFactorAssertion`, `PhoneMultiFactorAssertion`,
/// `RecoveryCodeMultiFactorAssertion`); the engine hands it to the kind its
/// `factorID` names.
public protocol MultiFactorAssertion: Sendable {
    /// The factor id this assertion proves ("totp", "phone", "recovery").
    var factorID: String { get }
}
