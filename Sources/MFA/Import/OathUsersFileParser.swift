/// Reads a line of a pam_oath / liboath users file:
/// `TYPE USER PIN SECRET [COUNTER [LAST-OTP [TIME]]]`, whitespace-separated,
/// with `#` comments. TYPE `HOTP/T<period>[/<digits>]` is TOTP (what libmfa
/// imports); `HOTP`, `HOTP/E[/<digits>]` are counter-based (unsupported).
/// SECRET is hexadecimal. A PIN is not imported: libmfa is the second factor
/// after the host's own first one.
enum OathUsersFileParser {
    static func parse(_ text: Substring, line: Int) -> ParsedLine {
        let trimmed = ImportText.trimmed(text)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        let fields = ImportText.fields(trimmed)
        guard fields.count >= 4 else {
            return .failed(line, fields.count > 1 ? ImportChecks.uid(fields[1]) : nil,
                           "a users-file line needs at least 4 fields: type, user, PIN, secret")
        }
        guard let uid = ImportChecks.uid(fields[1]) else {
            return .failed(line, nil, "the user name (the uid) must be 1 to 128 bytes")
        }
        let type: TokenType
        switch Self.type(fields[0]) {
        case .failure(let error): return .failed(line, uid, error.reason)
        case .success(let parsed): type = parsed
        }
        guard let period = type.period else {
            return .unsupported(line, uid, "\(fields[0]) is an event-based (HOTP) token: libmfa's authenticator factors are TOTP")
        }
        guard let secret = ImportText.hex(fields[3]) else {
            return .failed(line, uid, "the secret is not hexadecimal")
        }
        if let problem = ImportChecks.secretProblem(secret) { return .failed(line, uid, problem) }
        var candidate = ImportCandidate(line: line, uid: uid, secret: secret, parameters: TOTPParameters(
            algorithm: type.algorithm, digits: type.digits, period: period), displayName: nil)
        if fields[2] != "-" && fields[2] != "+" {
            candidate.note = "the PIN is not imported: libmfa is a second factor, the host checks the first"
        }
        return .factor(candidate)
    }

    /// A token type: TOTP with a period, or HOTP (period nil).
    struct TokenType {
        var period: Int64?
        var digits = OTPLimits.defaultDigits
        var algorithm = OTPAlgorithm.sha1
    }

    /// Parses `HOTP`, `HOTP/E[/d]`, `HOTP/T<n>[/d][/SHA…]`.
    static func type(_ text: Substring) -> Result<TokenType, TypeError> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.first?.uppercased() == "HOTP" else {
            return .failure(TypeError("the token type must start with HOTP (HOTP, HOTP/E, HOTP/T30, HOTP/T30/6)"))
        }
        var type = TokenType()
        var rest = parts.dropFirst()
        if let mode = rest.first {
            rest = rest.dropFirst()
            if mode.uppercased() == "E" {
                type.period = nil
            } else if mode.first == "T" || mode.first == "t", let period = Int64(mode.dropFirst()),
                      OTPLimits.period.contains(period) {
                type.period = period
            } else {
                return .failure(TypeError("the token type's mode must be E or T<seconds>"))
            }
        }
        if let digits = rest.first {
            rest = rest.dropFirst()
            guard let value = Int(digits), OTPLimits.digits.contains(value) else {
                return .failure(TypeError("the token type's digits must be 6 to 8"))
            }
            type.digits = value
        }
        if let name = rest.first {
            rest = rest.dropFirst()
            guard let algorithm = OTPAlgorithm(name: name) else {
                return .failure(TypeError("the token type's algorithm must be SHA1, SHA256 or SHA512"))
            }
            type.algorithm = algorithm
        }
        guard rest.isEmpty else { return .failure(TypeError("the token type has too many parts")) }
        return .success(type)
    }

    /// Why a token type was refused.
    struct TypeError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
