/// A hardware token as the admin API lists it: unassigned in the
/// inventory, or a user's factor.
public struct HardwareToken: Sendable, Equatable {
    /// The serial number (a YubiKey imported without one: its public id).
    public let serial: String
    /// What it makes: "hotp", "totp" or "yubico_otp".
    public let factorID: String
    /// The tenant, or nil for the project.
    public let tenant: String?
    /// A YubiKey's public id (modhex), else nil.
    public let publicID: String?
    /// The issuer or manufacturer the import named, if any (unassigned tokens).
    public let issuer: String?
    /// The user who has it as a factor, or nil while it is unassigned.
    public let uid: String?
    /// The factor it became, or nil while it is unassigned.
    public let enrollmentID: String?
    /// When it was imported (unassigned) or enrolled (assigned), Unix seconds.
    public let time: Int64

    /// Whether it is a user's factor.
    public var isAssigned: Bool { uid != nil }

    /// Creates a listing entry.
    public init(serial: String, factorID: String, tenant: String?, publicID: String?, issuer: String?, uid: String?,
                enrollmentID: String?, time: Int64) {
        self.serial = serial
        self.factorID = factorID
        self.tenant = tenant
        self.publicID = publicID
        self.issuer = issuer
        self.uid = uid
        self.enrollmentID = enrollmentID
        self.time = time
    }
}

/// One page of `MFAContext.listTokens`.
public struct HardwareTokenPage: Sendable, Equatable {
    /// The tokens, by tenant (the project first) then serial.
    public let tokens: [HardwareToken]
    /// Pass it back to get the next page; nil when this page is the last.
    public let nextCursor: String?
}
