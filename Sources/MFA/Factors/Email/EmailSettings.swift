/// The factor id of email second factors, as in `MultiFactorInfo.factorID`.
public let EmailMultiFactorID = "email"

/// The email section of a configuration: `"email": {"state": "ENABLED",
/// "codeLifetime": 600, ..., "enrollVerifiedSignInEmail": false}` (the state
/// may also be given as `"providers": {"email": "ENABLED"}`). Durations are
/// in seconds; the budgets count codes sent per hour and per day.
public struct EmailSettings: FactorSettings {
    /// How long an email code stays valid.
    public var codeLifetime: Int64 = 600
    /// Wrong codes allowed per verification id; after them the id is dead.
    public var maxAttempts: Int64 = 5
    /// The shortest time between two codes to one address (enrollment) or factor (sign-in).
    public var resendCooldown: Int64 = 30
    /// Enrollment codes per address, across every account, per hour.
    public var perAddressHour: Int64 = 5
    /// Enrollment codes per address per day.
    public var perAddressDay: Int64 = 10
    /// Enrollment codes per user per hour.
    public var perUserHour: Int64 = 10
    /// Enrollment codes per user per day.
    public var perUserDay: Int64 = 20
    /// Enrollment codes per tenant (or the project) per hour.
    public var perTenantHour: Int64 = 1000
    /// Enrollment codes per tenant (or the project) per day.
    public var perTenantDay: Int64 = 10000
    /// Sign-in codes per enrolled email factor per hour (a budget of its
    /// own: other accounts' enrollment requests never spend it).
    public var perFactorHour: Int64 = 5
    /// Sign-in codes per enrolled email factor per day.
    public var perFactorDay: Int64 = 10
    /// Whether the user's verified sign-in address may be enrolled without a
    /// code (`EmailAuthProvider.enrollVerifiedSignInEmail`). Off by default:
    /// a second factor in the inbox that also resets the password protects
    /// less than one elsewhere.
    public var enrollVerifiedSignInEmail = false

    /// The defaults.
    public init() {}

    /// Every number with its JSON name and allowed range.
    static var fields: [(name: String, path: WritableKeyPath<EmailSettings, Int64>, range: ClosedRange<Int64>)] {
        [
            ("codeLifetime", \.codeLifetime, 60...3600),
            ("maxAttempts", \.maxAttempts, 1...10),
            ("resendCooldown", \.resendCooldown, 0...3600),
            ("perAddressHour", \.perAddressHour, 1...1_000_000),
            ("perAddressDay", \.perAddressDay, 1...1_000_000),
            ("perUserHour", \.perUserHour, 1...1_000_000),
            ("perUserDay", \.perUserDay, 1...1_000_000),
            ("perTenantHour", \.perTenantHour, 1...100_000_000),
            ("perTenantDay", \.perTenantDay, 1...100_000_000),
            ("perFactorHour", \.perFactorHour, 1...1_000_000),
            ("perFactorDay", \.perFactorDay, 1...1_000_000),
        ]
    }

    /// The limits of the email channel.
    var limits: SentCodeLimits {
        SentCodeLimits(codeLifetime: codeLifetime, maxAttempts: maxAttempts, resendCooldown: resendCooldown,
                       perAddressHour: perAddressHour, perAddressDay: perAddressDay, perUserHour: perUserHour,
                       perUserDay: perUserDay, perTenantHour: perTenantHour, perTenantDay: perTenantDay,
                       perFactorHour: perFactorHour, perFactorDay: perFactorDay)
    }
}

extension MFAConfig {
    /// Whether email second factors may be enrolled.
    public var email: ProviderState {
        get { providers[EmailMultiFactorID] ?? .disabled }
        set { providers[EmailMultiFactorID] = newValue }
    }

    /// The email section.
    public var emailSettings: EmailSettings {
        get { self[EmailFactor.self] }
        set { self[EmailFactor.self] = newValue }
    }
}
