/// One enrolled second factor, as shown to users and in sign-in hints.
public struct MultiFactorInfo: Sendable, Equatable {
    /// The enrollment id: 28 random URL-safe characters.
    public let uid: String
    /// The factor id: `TOTPMultiFactorID` ("totp"), `PhoneMultiFactorID`
    /// ("phone"), `RecoveryCodesMultiFactorID` ("recovery"), `WebAuthnMultiFactorID`
    /// ("webauthn"), `EmailMultiFactorID` ("email").
    public let factorID: String
    /// The name the user gave the factor, if any.
    public let displayName: String?
    /// When the factor was enrolled (Unix seconds).
    public let enrollmentDate: Int64
    /// What identifies the factor to its user, filled by every kind and
    /// never secret: "authenticator app", a masked number (`+1******1234`),
    /// "7 codes left", an email address (masked in sign-in hints: `j***@e******.com`).
    public let hint: String
    /// For phone factors, the number; masked (`+1******1234`) in sign-in hints.
    public let phoneNumber: String?
    /// For a recovery-code set, how many codes are left.
    public let remainingCodes: Int?
    /// For email factors, the address; masked (`j***@e******.com`) in sign-in hints.
    public let email: String?

    /// Creates a factor description.
    public init(uid: String, factorID: String, displayName: String?, enrollmentDate: Int64, hint: String = "",
                phoneNumber: String? = nil, remainingCodes: Int? = nil, email: String? = nil) {
        self.uid = uid
        self.factorID = factorID
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.hint = hint
        self.phoneNumber = phoneNumber
        self.remainingCodes = remainingCodes
        self.email = email
    }
}
