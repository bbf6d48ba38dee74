/// Whether multi-factor authentication is off, offered, or required.
public enum MFAState: String, Sendable, CaseIterable {
    /// No second factor is asked for or can be enrolled.
    case disabled = "DISABLED"
    /// Users may enroll; those who have a factor must use it to sign in.
    case enabled = "ENABLED"
    /// Every user must have a second factor: signing in without one gives `enrollmentRequired`.
    case mandatory = "MANDATORY"
}

/// Whether one kind of second factor may be used.
public enum ProviderState: String, Sendable, CaseIterable {
    /// The factor can be enrolled and used.
    case enabled = "ENABLED"
    /// The factor cannot be enrolled or used.
    case disabled = "DISABLED"
}

/// Whether SMS requests must pass the host's app verifier (reCAPTCHA- or
/// APNs-style). Turning it off is an explicit configuration choice.
public enum AppVerificationPolicy: String, Sendable, CaseIterable {
    /// Every SMS request needs an app credential that the host's verifier accepts (the default).
    case required = "REQUIRED"
    /// SMS requests are not checked: for trusted backends and tests only.
    case disabled = "DISABLED"
}
