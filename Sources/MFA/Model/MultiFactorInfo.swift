/// One enrolled second factor, as shown to users and in sign-in hints.
public struct MultiFactorInfo: Sendable, Equatable {
    /// The enrollment id: 28 random URL-safe characters.
    public let uid: String
    /// `TOTPMultiFactorID` ("totp") or `PhoneMultiFactorID` ("phone").
    public let factorID: String
    /// The name the user gave the factor, if any.
    public let displayName: String?
    /// When the factor was enrolled (Unix seconds).
    public let enrollmentDate: Int64
    /// For phone factors, the number; masked (`+1******1234`) in sign-in hints.
    public let phoneNumber: String?

    /// Creates a factor description.
    public init(uid: String, factorID: String, displayName: String?, enrollmentDate: Int64,
                phoneNumber: String? = nil) {
        self.uid = uid
        self.factorID = factorID
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.phoneNumber = phoneNumber
    }
}
