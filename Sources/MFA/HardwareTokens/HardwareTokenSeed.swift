/// A hardware token's seed and settings, as a file delivered it (PSKC, a
/// YubiKey CSV, a users-file line) or as the inventory keeps it: what
/// becomes a factor when the token is assigned (`MFAContext.importToken`).
public struct HardwareTokenSeed: Sendable {
    /// What the token makes.
    public enum Kind: String, Sendable, CaseIterable {
        /// Event-based OATH codes (RFC 4226).
        case hotp
        /// Time-based OATH codes (RFC 6238).
        case totp
        /// Yubico OTPs (a YubiKey's AES key and private id).
        case yubicoOTP = "yubico_otp"

        /// The factor kind it becomes.
        public var factorID: String { rawValue }

        /// What an operator calls it, in reports.
        package var name: String {
            switch self {
            case .hotp: "HOTP token"
            case .totp: "TOTP token"
            case .yubicoOTP: "YubiKey"
            }
        }
    }

    /// The window a TOTP hardware token gets unless its file says otherwise:
    /// ±6 steps (3 minutes at 30 s, privacyIDEA's 180 s time window), then
    /// centred where the token's clock has drifted to.
    package static let hardwareTOTPWindow = 6

    /// What it makes.
    public var kind: Kind
    /// The HMAC key (HOTP, TOTP) or the AES-128 key (Yubico OTP).
    public var secret: [UInt8]
    /// A YubiKey's private id (6 bytes); empty for the others.
    public var privateID: [UInt8] = []
    /// A YubiKey's public id (modhex); nil for the others.
    public var publicID: String?
    /// The HMAC hash (HOTP, TOTP).
    public var algorithm = OTPAlgorithm.sha1
    /// The code length (HOTP, TOTP), 6 to 8.
    public var digits = OTPLimits.defaultDigits
    /// TOTP's period in seconds.
    public var period = OTPLimits.defaultPeriod
    /// HOTP: the counter of the next code (0 for a new token). TOTP: the
    /// last step used (-1: none). Yubico OTP: the last counter value
    /// accepted (-1: none).
    public var counter: Int64
    /// The token's own window (TOTP: ±steps; HOTP: look-ahead), 0 to 10, or
    /// nil for the default (TOTP hardware tokens: ±6; HOTP: the configuration's).
    public var window: Int?
    /// The serial number (1 to 64 printable ASCII characters), needed to store it unassigned.
    public var serial: String?
    /// The issuer or manufacturer the file named, if any.
    public var issuer: String?
    /// Whether it is a device (a TOTP one then gets a window of its own and
    /// a remembered drift) rather than an app's secret.
    public var hardware = true

    package init(kind: Kind, secret: [UInt8], counter: Int64? = nil) {
        self.kind = kind
        self.secret = secret
        self.counter = counter ?? (kind == .hotp ? 0 : -1)
        hardware = false
    }

    /// An event-based token (RFC 4226).
    /// - Parameters:
    ///   - secret: its HMAC key, 10 to 128 bytes.
    ///   - algorithm: its HMAC's hash (SHA-1 unless its file says otherwise).
    ///   - digits: the length of its codes, 6 to 8.
    ///   - counter: the counter of its next code.
    ///   - serial: its serial number, if any.
    public static func hotp(secret: [UInt8], algorithm: OTPAlgorithm = .sha1, digits: Int = OTPLimits.defaultDigits,
                            counter: UInt64 = 0, serial: String? = nil) -> HardwareTokenSeed {
        var seed = HardwareTokenSeed(kind: .hotp, secret: secret, counter: Int64(clamping: counter))
        seed.algorithm = algorithm
        seed.digits = digits
        seed.serial = serial
        seed.hardware = true
        return seed
    }

    /// A time-based token (RFC 6238), T0 = 0.
    public static func totp(secret: [UInt8], algorithm: OTPAlgorithm = .sha1, digits: Int = OTPLimits.defaultDigits,
                            period: Int64 = OTPLimits.defaultPeriod, serial: String? = nil) -> HardwareTokenSeed {
        var seed = HardwareTokenSeed(kind: .totp, secret: secret)
        seed.algorithm = algorithm
        seed.digits = digits
        seed.period = period
        seed.serial = serial
        seed.hardware = true
        return seed
    }

    /// A YubiKey's Yubico OTP slot.
    /// - Parameters:
    ///   - publicID: the public id, modhex (2 to 32 characters; 12 as YubiKeys ship).
    ///   - privateID: the private id, 6 bytes.
    ///   - key: the AES-128 key, 16 bytes.
    ///   - serial: its serial number, or nil to know it by its public id.
    public static func yubicoOTP(publicID: String, privateID: [UInt8], key: [UInt8],
                                 serial: String? = nil) -> HardwareTokenSeed {
        var seed = HardwareTokenSeed(kind: .yubicoOTP, secret: key)
        seed.privateID = privateID
        seed.publicID = publicID
        seed.serial = serial ?? publicID
        seed.hardware = true
        return seed
    }

    /// What the factor's sealed payload holds: the key (and a YubiKey's private id).
    package var payload: [UInt8] {
        kind == .yubicoOTP ? YubicoOTPStore.payload(key: secret, privateID: privateID) : secret
    }

    /// The values of the factor's own columns (`SecondFactor.factorColumns`
    /// of the kind whose columns it fills).
    package var factorValues: [SQLValue] {
        switch kind {
        case .hotp:
            TOTPStore.hotpValues(algorithm: algorithm, digits: digits, next: counter, lookAhead: window, serial: serial)
        case .totp:
            TOTPStore.values(TOTPParameters(algorithm: algorithm, digits: digits, period: period), lastStep: counter,
                             window: window ?? (hardware ? Self.hardwareTOTPWindow : nil), serial: serial)
        case .yubicoOTP:
            YubicoOTPStore.values(publicID: publicID ?? "", counter: counter, serial: serial)
        }
    }

    /// Why the seed cannot be stored, or nil.
    package var problem: String? {
        switch kind {
        case .hotp, .totp:
            if let problem = ImportChecks.secretProblem(secret) { return problem }
            guard OTPLimits.digits.contains(digits) else { return "the code length must be 6 to 8 digits" }
            if kind == .totp, !OTPLimits.period.contains(period) {
                return "the time step must be 1 to 31536000 seconds"
            }
            if kind == .hotp, counter < 0 || counter >= Int64.max - 1 { return "the counter is out of range" }
        case .yubicoOTP:
            guard secret.count == YubicoOTP.keyBytes else { return "a YubiKey's AES key must be 16 bytes" }
            guard privateID.count == YubicoOTP.privateIDBytes else { return "a YubiKey's private id must be 6 bytes" }
            guard let publicID, YubicoOTP.isPublicID(publicID) else {
                return "a YubiKey's public id must be 2 to 32 modhex characters"
            }
        }
        if let window, !OTPLimits.window.contains(window) { return "the window must be 0 to 10" }
        if let serial, TokenStore.serialProblem(serial) != nil { return TokenStore.serialProblem(serial) }
        return nil
    }
}
