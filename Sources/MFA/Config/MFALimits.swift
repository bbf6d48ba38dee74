/// Lifetimes and attempt budgets. All durations are in seconds.
public struct MFALimits: Sendable, Equatable {
    /// How long an enrollment `MultiFactorSession` stays valid.
    public var sessionLifetime: Int64 = 600
    /// How long a sign-in pending credential (the resolver's session) stays valid.
    public var pendingCredentialLifetime: Int64 = 300
    /// How long a generated TOTP secret may wait for its enrollment to finish.
    public var enrollmentDeadline: Int64 = 600
    /// How recent the first-factor sign-in must be to enroll or unenroll.
    public var recentLoginMaxAge: Int64 = 300
    /// The most second factors one user may have.
    public var maxFactors: Int64 = 5
    /// Failed attempts (per factor and per user) allowed before backoff starts.
    public var freeAttempts: Int64 = 5
    /// The first backoff; each further failure doubles it.
    public var backoffBase: Int64 = 1
    /// The longest backoff.
    public var backoffMax: Int64 = 900
    /// Failures are forgotten this long after the last one, so a lock never lasts.
    public var failureMemory: Int64 = 3600
    /// How long an SMS code stays valid.
    public var smsCodeLifetime: Int64 = 300
    /// Wrong codes allowed per verification id; after them the id is dead.
    public var smsMaxAttempts: Int64 = 5
    /// The shortest time between two SMS to one number.
    public var smsResendCooldown: Int64 = 30
    /// SMS per number per hour.
    public var smsPerNumberHour: Int64 = 5
    /// SMS per number per day.
    public var smsPerNumberDay: Int64 = 10
    /// SMS per user per hour.
    public var smsPerUserHour: Int64 = 10
    /// SMS per user per day.
    public var smsPerUserDay: Int64 = 20
    /// SMS per tenant (or the project) per hour.
    public var smsPerTenantHour: Int64 = 1000
    /// SMS per tenant (or the project) per day.
    public var smsPerTenantDay: Int64 = 10000
    /// Sign-in SMS per enrolled phone factor per hour (a budget of its own:
    /// other accounts' enrollment requests to the same number never spend it).
    public var smsPerFactorHour: Int64 = 5
    /// Sign-in SMS per enrolled phone factor per day.
    public var smsPerFactorDay: Int64 = 10
    /// How far the clocks of servers sharing a store may disagree: records of
    /// used tokens are kept this long past the tokens' own expiry.
    public var clockSkew: Int64 = 300

    /// The defaults.
    public init() {}

    /// Every limit with its JSON name and allowed range.
    static var fields: [(name: String, path: WritableKeyPath<MFALimits, Int64>, range: ClosedRange<Int64>)] {
        [
            ("sessionLifetime", \.sessionLifetime, 10...86_400),
            ("pendingCredentialLifetime", \.pendingCredentialLifetime, 10...86_400),
            ("enrollmentDeadline", \.enrollmentDeadline, 10...86_400),
            ("recentLoginMaxAge", \.recentLoginMaxAge, 1...86_400 * 30),
            ("maxFactors", \.maxFactors, 1...10),
            ("freeAttempts", \.freeAttempts, 1...100),
            ("backoffBase", \.backoffBase, 1...3600),
            ("backoffMax", \.backoffMax, 1...86_400),
            ("failureMemory", \.failureMemory, 60...86_400 * 30),
            ("smsCodeLifetime", \.smsCodeLifetime, 30...3600),
            ("smsMaxAttempts", \.smsMaxAttempts, 1...10),
            ("smsResendCooldown", \.smsResendCooldown, 0...3600),
            ("smsPerNumberHour", \.smsPerNumberHour, 1...1_000_000),
            ("smsPerNumberDay", \.smsPerNumberDay, 1...1_000_000),
            ("smsPerUserHour", \.smsPerUserHour, 1...1_000_000),
            ("smsPerUserDay", \.smsPerUserDay, 1...1_000_000),
            ("smsPerTenantHour", \.smsPerTenantHour, 1...100_000_000),
            ("smsPerTenantDay", \.smsPerTenantDay, 1...100_000_000),
            ("smsPerFactorHour", \.smsPerFactorHour, 1...1_000_000),
            ("smsPerFactorDay", \.smsPerFactorDay, 1...1_000_000),
            ("clockSkew", \.clockSkew, 0...3600),
        ]
    }
}
