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
