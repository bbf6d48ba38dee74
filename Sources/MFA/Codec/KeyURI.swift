/// An `otpauth://` key URI, the Google Authenticator key URI format that
/// authenticator apps read from QR codes.
///
/// Built URIs percent-encode the issuer and the account name (spaces, colons,
/// `@`, `&`, non-ASCII), keep a literal `:` between them in the label, and
/// carry the secret without padding:
///
/// `otpauth://totp/ACME%20Co:alice%40example.com?secret=...&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30`
public struct KeyURI: Sendable, Equatable {
    /// TOTP or HOTP; the raw values are the C constants `MFA_OTP_*`.
    public enum Kind: Int32, Sendable {
        /// Time-based (RFC 6238).
        case totp = 1
        /// Counter-based (RFC 4226).
        case hotp = 2
    }

    /// The longest issuer or account name accepted, in UTF-8 bytes.
    public static let maxNameBytes = 1024
    /// The longest URI accepted, in bytes.
    public static let maxLength = 16384

    /// TOTP or HOTP.
    public var kind: Kind
    /// The service's name, or nil.
    public var issuer: String?
    /// The account name, usually an email address; not empty.
    public var account: String
    /// The raw shared secret.
    public var secret: [UInt8]
    /// The HMAC hash.
    public var algorithm: OTPAlgorithm
    /// The code length, 6 to 8.
    public var digits: Int
    /// The TOTP period in seconds.
    public var period: Int64
    /// The HOTP initial counter.
    public var counter: UInt64

    /// Creates a key URI.
    /// - Parameters:
    ///   - kind: TOTP (default) or HOTP.
    ///   - issuer: the service's name, or nil.
    ///   - account: the account name.
    ///   - secret: the raw shared secret.
    ///   - algorithm: the HMAC hash.
    ///   - digits: the code length.
    ///   - period: the TOTP period in seconds.
    ///   - counter: the HOTP initial counter.
    public init(kind: Kind = .totp, issuer: String?, account: String, secret: [UInt8],
                algorithm: OTPAlgorithm = .sha1, digits: Int = OTPLimits.defaultDigits,
                period: Int64 = OTPLimits.defaultPeriod, counter: UInt64 = 0) {
        self.kind = kind
        self.issuer = issuer
        self.account = account
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = counter
    }

    /// The URI text.
    /// - Throws: `invalidArgument` for an empty or overlong account or issuer, one holding a NUL,
    ///   a secret of a bad length, or digits or period out of range.
    public func uri() throws(MFAError) -> String {
        try validate()
        let account = PercentEncoding.encode(self.account)
        var label = account
        var query = "secret=" + Base32.encode(secret, padding: false)
        if let issuer {
            let encoded = PercentEncoding.encode(issuer)
            label = encoded + ":" + account
            query += "&issuer=" + encoded
        }
        query += "&algorithm=\(algorithm.name)&digits=\(digits)"
        switch kind {
        case .totp: query += "&period=\(period)"
        case .hotp: query += "&counter=\(counter)"
        }
        let type = kind == .totp ? "totp" : "hotp"
        return "otpauth://\(type)/\(label)?\(query)"
    }

    /// Throws `invalidArgument` unless every field is in range.
    func validate() throws(MFAError) {
        guard !account.isEmpty, account.utf8.count <= Self.maxNameBytes else {
            throw MFAError(.invalidArgument, "account name must be 1 to 1024 bytes")
        }
        if let issuer, issuer.isEmpty || issuer.utf8.count > Self.maxNameBytes {
            throw MFAError(.invalidArgument, "issuer must be 1 to 1024 bytes")
        }
        guard !account.utf8.contains(0), issuer?.utf8.contains(0) != true else {
            throw MFAError(.invalidArgument, "account name and issuer cannot hold a NUL")
        }
        try OTPLimits.check(keyBytes: secret.count)
        try OTPLimits.check(digits: digits)
        if kind == .totp { try OTPLimits.check(period: period) }
    }
}
