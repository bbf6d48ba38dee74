/// Reads a line of a pam_oath / liboath users file:
/// `TYPE USER PIN SECRET [COUNTER [LAST-OTP [TIME]]]`, whitespace-separated,
/// with `#` comments. TYPE `HOTP/T<period>[/<digits>]` is TOTP; `HOTP` and
/// `HOTP/E[/<digits>]` are counter-based, stored as HOTP factors. SECRET is
/// hexadecimal. A PIN is not imported: libmfa is the second factor after
/// the host's own first one.
///
/// An HOTP line's COUNTER is where liboath looks for the next code (0 when
/// it is left out). After a login liboath writes the counter of the code it
/// accepted there, with the code as LAST-OTP, and refuses that code again:
/// when LAST-OTP is the code of COUNTER, the factor's next counter is the
/// one after it, else COUNTER itself.
///
/// pam_oath writes the last code it accepted and when (`0 755224
/// 2024-01-01T12:00:00L`, the time in the server's local time): the code's
/// step is counted as used (`OathLastUse`), so the code cannot be used again
/// after the migration. COUNTER must be a decimal number and TIME in that
/// form, as liboath requires; a LAST-OTP that is not a code of the token's
/// length is left out, as liboath leaves it out.
enum OathUsersFileParser {
    static func parse(_ text: Substring, line: Int) -> ParsedLine {
        let trimmed = ImportText.trimmed(text)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        let fields = ImportText.fields(trimmed)
        guard fields.count >= 4 else {
            return .failed(line, fields.count > 1 ? try? ImportChecks.uid(fields[1]).get() : nil,
                           "a users-file line needs at least 4 fields: type, user, PIN, secret")
        }
        let uid: String
        switch ImportChecks.uid(fields[1], named: "the user name (the uid)") {
        case .failure(let problem): return .failed(line, nil, problem.reason)
        case .success(let checked): uid = checked
        }
        let type: TokenType
        switch Self.type(fields[0]) {
        case .failure(let error): return .failed(line, uid, error.reason)
        case .success(let parsed): type = parsed
        }
        guard let secret = ImportText.hex(fields[3]) else {
            return .failed(line, uid, "the secret is not hexadecimal")
        }
        if let problem = ImportChecks.secretProblem(secret) { return .failed(line, uid, problem) }
        var notes: [String] = []
        if fields[2] != "-" && fields[2] != "+" {
            notes.append("the PIN is not imported: libmfa is a second factor, the host checks the first")
        }
        if fields.count > 4 {
            guard Self.isDecimal(fields[4]) else {
                return .failed(line, uid, "the counter (the fifth field) must be a decimal number")
            }
        }
        guard let period = type.period else {
            return hotp(fields, line: line, uid: uid, secret: secret, type: type, notes: notes)
        }
        var candidate = ImportCandidate(line: line, uid: uid, secret: secret, parameters: TOTPParameters(
            algorithm: type.algorithm, digits: type.digits, period: period), displayName: nil)
        if fields.count > 5 {
            var time: Int64?
            if fields.count > 6 {
                guard let parsed = OathLastUse.localTime(fields[6]) else {
                    return .failed(line, uid, "the time of the last login (the seventh field) must be YYYY-MM-DDThh:mm:ssL")
                }
                time = parsed
            }
            let code = fields[5]
            if code.utf8.count == type.digits && Self.isDecimal(code) {
                candidate.lastUse = OathLastUse(code: String(code), localTime: time)
                notes.append("the last code pam_oath accepted stays used")
            } else {
                notes.append("the last OTP field is not a \(type.digits)-digit code and was left out")
            }
        }
        if !notes.isEmpty { candidate.note = notes.joined(separator: "; ") }
        return .factor(candidate)
    }

    /// An HOTP line's factor: its counter (fifth field, 0 without one), moved
    /// past the last code liboath accepted when the sixth field is that code.
    private static func hotp(_ fields: [Substring], line: Int, uid: String, secret: [UInt8], type: TokenType,
                             notes: [String]) -> ParsedLine {
        var notes = notes
        var counter: Int64 = 0
        if fields.count > 4 {
            guard let value = Int64(fields[4]), value < Int64.max - 1 else {
                return .failed(line, uid, "the counter (the fifth field) is out of range")
            }
            counter = value
        }
        if fields.count > 6, OathLastUse.localTime(fields[6]) == nil {
            return .failed(line, uid, "the time of the last login (the seventh field) must be YYYY-MM-DDThh:mm:ssL")
        }
        if fields.count > 5, let hotp = try? HOTP(secret: secret, digits: type.digits, algorithm: type.algorithm) {
            let last = fields[5]
            if last.utf8.count == type.digits, isDecimal(last),
               KeyedHash.equal(Array(last.utf8), Array(hotp.code(counter: UInt64(counter)).utf8)) {
                counter += 1
                notes.append("the last code pam_oath accepted stays used")
            } else if last.utf8.count != type.digits || !isDecimal(last) {
                notes.append("the last OTP field is not a \(type.digits)-digit code and was left out")
            }
        }
        var seed = HardwareTokenSeed(kind: .hotp, secret: secret, counter: counter)
        seed.algorithm = type.algorithm
        seed.digits = type.digits
        var candidate = ImportCandidate(line: line, uid: uid, seed: seed, displayName: nil)
        notes.insert("an event-based (HOTP) token, next counter \(counter)", at: 0)
        candidate.note = notes.joined(separator: "; ")
        return .factor(candidate)
    }

    /// Whether `text` is 1 to 20 decimal digits.
    private static func isDecimal(_ text: Substring) -> Bool {
        (1...20).contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
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
