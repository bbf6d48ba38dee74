/// What an SMS is being requested for, as told to the app verifier.
public enum AppVerificationAction: Int32, Sendable {
    /// Enrolling a phone number (reCAPTCHA action `mfaSmsEnrollment`).
    case enrollment = 1
    /// Signing in with a phone factor (reCAPTCHA action `mfaSmsSignIn`).
    case signIn = 2
}

/// The host's check that an SMS request comes from its real app: a
/// reCAPTCHA-style token or an APNs-style receipt that the client sent.
public protocol AppVerifier: Sendable {
    /// Whether `credential` proves a genuine app for `action`.
    func verify(credential: String, action: AppVerificationAction) -> Bool
}
