/// Reads a line of otpauth URIs: `otpauth://totp/Issuer:uid?secret=...`.
/// The account name is the uid; the issuer becomes the display name.
enum OtpauthLineParser {
    static func parse(_ text: Substring, line: Int) -> ParsedLine {
        let trimmed = ImportText.trimmed(text)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        let key: KeyURI
        do {
            key = try KeyURI(parsing: String(trimmed))
        } catch {
            return .failed(line, nil, error.message)
        }
        guard let uid = ImportChecks.uid(key.account) else {
            return .failed(line, nil, "the account name (the uid) must be 1 to 128 bytes")
        }
        guard key.kind == .totp else {
            return .unsupported(line, uid, "HOTP (counter-based) factors are not supported: libmfa's authenticator factors are TOTP")
        }
        if let problem = ImportChecks.secretProblem(key.secret) { return .failed(line, uid, problem) }
        return .factor(ImportCandidate(line: line, uid: uid, secret: key.secret, parameters: TOTPParameters(
            algorithm: key.algorithm, digits: key.digits, period: key.period),
            displayName: ImportChecks.displayName(key.issuer)))
    }
}

/// Small text helpers for the importers.
enum ImportText {
    /// `text` without surrounding spaces, tabs and carriage returns.
    static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !blank($0) }),
              let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }

    /// The whitespace-separated fields of a line.
    static func fields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
    }

    /// Bytes from hexadecimal text, or nil.
    static func hex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
