/// The MFA configuration of a project or of one tenant.
///
/// A tenant's stored configuration may name only some fields: the rest come
/// from the project's (see `MFAConfigDocument`).
public struct MFAConfig: Sendable, Equatable {
    /// The most test phone numbers a configuration may hold.
    public static let maxTestPhoneNumbers = 10

    /// DISABLED, ENABLED or MANDATORY.
    public var state: MFAState = .disabled
    /// Whether SMS second factors are allowed.
    public var phone: ProviderState = .disabled
    /// Whether TOTP second factors are allowed.
    public var totp: ProviderState = .disabled
    /// How many adjacent 30 s steps either side of now a TOTP code may come from, 0 to 10.
    public var adjacentIntervals: Int = 5
    /// Whether SMS requests must pass the host's app verifier.
    public var appVerification: AppVerificationPolicy = .required
    /// Test phone numbers and their fixed six-digit codes: never sent an SMS, never limited.
    public var testPhoneNumbers: [(number: String, code: String)] = []
    /// Lifetimes and attempt budgets.
    public var limits = MFALimits()

    /// The defaults: MFA disabled, both providers disabled, ±5 steps.
    public init() {}

    /// Whether the factor `factorID` ("totp" or "phone") may be enrolled and used now.
    public func allows(_ factorID: String) -> Bool {
        guard state != .disabled else { return false }
        switch factorID {
        case TOTPMultiFactorID: return totp == .enabled
        case PhoneMultiFactorID: return phone == .enabled
        default: return false
        }
    }

    /// The fixed code of a test phone number, if `number` is one.
    public func testCode(for number: String) -> String? {
        testPhoneNumbers.first { $0.number == number }?.code
    }

    /// Whether two configurations are the same, field by field (test numbers in order).
    public static func == (lhs: MFAConfig, rhs: MFAConfig) -> Bool {
        lhs.state == rhs.state && lhs.phone == rhs.phone && lhs.totp == rhs.totp
            && lhs.adjacentIntervals == rhs.adjacentIntervals && lhs.limits == rhs.limits
            && lhs.appVerification == rhs.appVerification
            && lhs.testPhoneNumbers.elementsEqual(rhs.testPhoneNumbers) { $0 == $1 }
    }
}
