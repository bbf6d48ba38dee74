extension KeyURI {
    /// Parses an otpauth URI.
    ///
    /// The label splits at its first literal `:` into issuer and account, each
    /// percent-decoded; without a literal colon, a leading `issuer:` that
    /// matches the `issuer` parameter is taken off. Unknown parameters are
    /// ignored; a repeated `secret`, `issuer`, `algorithm`, `digits`, `period`
    /// or `counter` is an error, as is an issuer parameter that disagrees with
    /// the label's.
    /// - Parameter text: the URI.
    /// - Throws: `invalidURI` naming what is wrong (never the secret itself).
    public init(parsing text: String) throws(MFAError) {
        guard text.utf8.count <= Self.maxLength else { throw Self.fail("URI is too long") }
        let scheme = "otpauth://"
        guard text.utf8.count > scheme.utf8.count,
              text.prefix(scheme.count).lowercased() == scheme else {
            throw Self.fail("not an otpauth:// URI")
        }
        var rest = text.dropFirst(scheme.count)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let slash = rest.firstIndex(of: "/") else { throw Self.fail("URI has no label") }
        let kind: Kind
        switch rest[..<slash].lowercased() {
        case "totp": kind = .totp
        case "hotp": kind = .hotp
        default: throw Self.fail("type must be totp or hotp")
        }
        let afterSlash = rest[rest.index(after: slash)...]
        let question = afterSlash.firstIndex(of: "?") ?? afterSlash.endIndex
        let parameters = try Parameters(afterSlash[question...].dropFirst())
        var (issuer, account) = try Self.splitLabel(afterSlash[..<question])
        if let fromQuery = parameters.issuer {
            if let issuer, issuer != fromQuery {
                throw Self.fail("issuer in the label and in the parameters differ")
            }
            if issuer == nil, account.hasPrefix(fromQuery + ":") {
                account = String(account.dropFirst(fromQuery.count + 1))
            }
            issuer = fromQuery
        }
        guard !account.isEmpty else { throw Self.fail("account name is empty") }
        guard let secret = parameters.secret else { throw Self.fail("secret is missing") }
        if kind == .hotp && parameters.counter == nil { throw Self.fail("HOTP URI has no counter") }
        self.init(kind: kind, issuer: issuer, account: account, secret: secret,
                  algorithm: parameters.algorithm ?? .sha1,
                  digits: parameters.digits ?? OTPLimits.defaultDigits,
                  period: parameters.period ?? OTPLimits.defaultPeriod,
                  counter: parameters.counter ?? 0)
        do {
            try validate()
        } catch {
            throw Self.fail(error.message)
        }
    }

    /// Splits the label at its first literal colon and percent-decodes both parts.
    private static func splitLabel(_ label: Substring) throws(MFAError) -> (String?, String) {
        if let colon = label.firstIndex(of: ":") {
            guard let issuer = PercentEncoding.decode(label[..<colon], plusIsSpace: false),
                  let account = PercentEncoding.decode(label[label.index(after: colon)...],
                                                      plusIsSpace: false) else {
                throw fail("label is not valid percent-encoded UTF-8 (or holds a NUL)")
            }
            guard !issuer.isEmpty else { throw fail("issuer in the label is empty") }
            return (issuer, account)
        }
        guard let account = PercentEncoding.decode(label, plusIsSpace: false) else {
            throw fail("label is not valid percent-encoded UTF-8 (or holds a NUL)")
        }
        return (nil, account)
    }

    static func fail(_ message: String) -> MFAError { MFAError(.invalidURI, message) }

    /// The parameters of the query string that matter to an OTP.
    private struct Parameters {
        var secret: [UInt8]?
        var issuer: String?
        var algorithm: OTPAlgorithm?
        var digits: Int?
        var period: Int64?
        var counter: UInt64?
        private var seen: Set<String> = []

        init(_ query: Substring) throws(MFAError) {
            for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=") ?? pair.endIndex
                guard let key = PercentEncoding.decode(pair[..<equals], plusIsSpace: true),
                      let value = PercentEncoding.decode(pair[equals...].dropFirst(), plusIsSpace: true)
                else { throw KeyURI.fail("query is not valid percent-encoded UTF-8 (or holds a NUL)") }
                try take(key.lowercased(), value)
            }
        }

        private mutating func take(_ key: String, _ value: String) throws(MFAError) {
            let known = ["secret", "issuer", "algorithm", "digits", "period", "counter"]
            guard known.contains(key) else { return }
            guard seen.insert(key).inserted else { throw KeyURI.fail("parameter \(key) is repeated") }
            switch key {
            case "secret":
                do {
                    secret = try Base32.decode(value)
                } catch {
                    throw KeyURI.fail("secret is not valid base32")
                }
            case "issuer":
                guard !value.isEmpty else { throw KeyURI.fail("issuer is empty") }
                issuer = value
            case "algorithm":
                guard let algorithm = OTPAlgorithm(name: value) else {
                    throw KeyURI.fail("algorithm must be SHA1, SHA256 or SHA512")
                }
                self.algorithm = algorithm
            case "digits":
                guard KeyURI.isDecimal(value), let digits = Int(value), OTPLimits.digits.contains(digits) else {
                    throw KeyURI.fail("digits must be 6 to 8")
                }
                self.digits = digits
            case "period":
                guard KeyURI.isDecimal(value), let period = Int64(value), OTPLimits.period.contains(period) else {
                    throw KeyURI.fail("period must be 1 to 31536000 seconds")
                }
                self.period = period
            default:
                guard KeyURI.isDecimal(value), let counter = UInt64(value) else {
                    throw KeyURI.fail("counter is not a number")
                }
                self.counter = counter
            }
        }
    }

    /// Whether `value` is a number in plain decimal digits (Swift's integer
    /// parsing would also take a leading `+` or `-`).
    private static func isDecimal(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
