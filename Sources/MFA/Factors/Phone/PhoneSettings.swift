/// The factor id of SMS second factors, as in `MultiFactorInfo.factorID`.
public let PhoneMultiFactorID = "phone"

/// The phone section of a configuration: `"phone": {"appVerification":
/// "REQUIRED"}` and `"testPhoneNumbers": {"+15555550100": "123456"}`.
public struct PhoneSettings: FactorSettings {
    /// The most test phone numbers a configuration may hold.
    public static let maxTestPhoneNumbers = 10

    /// Whether SMS requests must pass the host's app verifier.
    public var appVerification: AppVerificationPolicy = .required
    /// Test phone numbers and their fixed six-digit codes: never sent an SMS, never limited.
    public var testPhoneNumbers: [(number: String, code: String)] = []

    /// The defaults: app verification required, no test numbers.
    public init() {}

    /// Whether two settings are the same (test numbers in order).
    public static func == (lhs: PhoneSettings, rhs: PhoneSettings) -> Bool {
        lhs.appVerification == rhs.appVerification
            && lhs.testPhoneNumbers.elementsEqual(rhs.testPhoneNumbers) { $0 == $1 }
    }
}

/// Whether SMS requests must pass the host's app verifier (reCAPTCHA- or
/// APNs-style). Turning it off is an explicit configuration choice.
public enum AppVerificationPolicy: String, Sendable, CaseIterable {
    /// Every SMS request needs an app credential that the host's verifier accepts (the default).
    case required = "REQUIRED"
    /// SMS requests are not checked: for trusted backends and tests only.
    case disabled = "DISABLED"
}

extension MFAConfig {
    /// The most test phone numbers a configuration may hold.
    public static var maxTestPhoneNumbers: Int { PhoneSettings.maxTestPhoneNumbers }

    /// Whether SMS second factors may be enrolled.
    public var phone: ProviderState {
        get { providers[PhoneMultiFactorID] ?? .disabled }
        set { providers[PhoneMultiFactorID] = newValue }
    }

    /// Whether SMS requests must pass the host's app verifier.
    public var appVerification: AppVerificationPolicy {
        get { self[PhoneFactor.self].appVerification }
        set { self[PhoneFactor.self].appVerification = newValue }
    }

    /// Test phone numbers and their fixed six-digit codes.
    public var testPhoneNumbers: [(number: String, code: String)] {
        get { self[PhoneFactor.self].testPhoneNumbers }
        set { self[PhoneFactor.self].testPhoneNumbers = newValue }
    }

    /// The fixed code of a test phone number, if `number` is one.
    public func testCode(for number: String) -> String? {
        testPhoneNumbers.first { $0.number == number }?.code
    }
}
